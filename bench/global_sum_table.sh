#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/global_sum_table.sh — docs/global-sum.md's table: for small graphs of every family, the
# diameter D (Problem A's lower bound), distinct eigenvalues - 1 (Theorem 1's rounds), and the
# best exact method with its rounds. Usage: bench/global_sum_table.sh [BUILD_DIR]
set -euo pipefail
B=${1:-build}
G="$B/gossip"
D="$(dirname "$0")/../tests/data"
echo "| graph | N | D | distinct eigenvalues − 1 | best exact method | rounds | sum-optimal |"
echo "|---|---|---|---|---|---|---|"
for spec in hypercube:3 hypercube:4 hypercube:6 complete:5 complete:8 cycle:7 cycle:8 cycle:12 \
    "file:$D/petersen.txt" "file:$D/frucht.txt" "file:$D/path4.txt" torus:3x3 torus:4x4 torus:5x5 torus:3x5 torus:4x6 \
    star:3 star:4 star:5 star:6 optcirc:13 optcirc:25 circulant:13:1,5 circulant:16:1,6 \
    "product(cycle:5,complete:2)" "product(cycle:7,cycle:4)" "product(file:$D/petersen.txt,complete:2)" \
    "perm:4:(1 0 2 3),(2 1 0 3),(3 2 1 0)" "cayley:Z4xZ4:(1,0),(0,1),(1,1)"; do
    info=$("$G" info "$spec" --json --no-rotation)
    plan=$("$G" plan allreduce "$spec" --json)
    name=${spec/file:$D\//file:}
    jq -rn --argjson i "$info" --argjson p "$plan" --arg s "$name" \
        '"| \($s) | \($i.nodes) | \($i.diameter) | \(if $i.distinct_eigenvalues then $i.distinct_eigenvalues - 1 else "—" end) | \($p.method) | \($p.rounds) | \(if $p.sum_optimal then "yes" else "no" end) |"'
done
