#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# models_sat.sh — the allgather gaps of docs/models.md put to the SAT solver: for every family
# and model where the auto plan is above the lower bound, `gossip plan allgather --prove`
# (one round fewer until the solver says none exists, the bound is met, or a solve passes
# the time limit). Usage: bench/models_sat.sh [BUILD_DIR] [SECONDS per solve, default 30]
set -euo pipefail
g=${1:-build}/gossip
T=${2:-30}
specs="hypercube:4 hypercube:6 hypercube:8 torus:4x4 torus:8x8 torus:16x16 torus:3x5 torus:4x4x4 complete:7 complete:16 optcirc:40 star:4 star:5 cycle:9 file:tests/data/petersen.txt"
models=("one-port:--ports 1" "one-port p=inf:--ports 1 --packets inf" "half duplex:--duplex half" "half duplex p=inf:--duplex half --packets inf" "one-port half duplex:--ports 1 --duplex half")
echo "| topology | model | auto plan | with --prove | lower bound | optimality | solver |"
echo "|---|---|---:|---:|---:|---|---|"
for s in $specs; do
    for m in "${models[@]}"; do
        name=${m%%:*} opts=${m#*:}
        # shellcheck disable=SC2086
        a=$("$g" plan allgather "$s" $opts --json 2>/dev/null) || continue
        [ "$(jq '.rounds > .lower_bound' <<<"$a")" = true ] || continue
        # shellcheck disable=SC2086
        p=$("$g" plan allgather "$s" $opts --prove --time-limit "$T" --json 2>/dev/null) || { echo "| $s | $name | $(jq .rounds <<<"$a") | - | $(jq .lower_bound <<<"$a") | refused | - |"; continue; }
        jq -r --arg s "$s" --arg m "$name" --argjson auto "$(jq .rounds <<<"$a")" \
            '"| \($s) | \($m) | \($auto) | \(.rounds) | \(.lower_bound) | \(.optimality) | \(.proof // "" | gsub("\\|"; "/")) |"' <<<"$p"
    done
done
