#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/general.sh — allgather (p = 1, all ports, full duplex) on graphs given as edge lists,
# each beside its lower bound: tori, meshes and hypercubes written with their nodes renumbered
# at random (gossip recognises the Cayley graphs among them with nauty and plans them as their
# spec; the greedy runs on everything, forced, for comparison), random regular graphs and a
# dragonfly. The graphs are generated here with awk (no other tool needed), seeded, so every
# run writes the same files. Prints a Markdown table: graph, nodes, degree, lower bound, rounds
# and seconds of `gossip plan` (auto), rounds and seconds of the greedy.
# Usage: bench/general.sh [BUILD_DIR] [WORK_DIR]
set -euo pipefail
B=${1:-build}
D=${2:-bench/out/general}
mkdir -p "$D"

. "$(dirname "$0")/graphs.sh"

gen() { # NAME N GENERATOR...
    local name=$1 n=$2; shift 2
    [ -s "$D/$name.txt" ] || "$@" | shuffle 7 "$n" >"$D/$name.txt"
}
gen torus32x32 1024 torus 32 32
gen torus16x16 256 torus 16 16
gen mesh32x32 1024 mesh 32 32
gen hypercube8 256 hypercube 8
gen hypercube10 1024 hypercube 10
gen regular4-256 256 regular 256 4 1
gen regular4-1000 1000 regular 1000 4 2
gen regular8-1000 1000 regular 1000 8 3
gen dragonfly-a8h4 264 dragonfly 8 4

now() { date +%s.%N; }
echo "| graph (edge list) | nodes | degree | lower bound | gossip plan: rounds (method) | seconds | greedy: rounds | seconds |"
echo "|---|---:|---:|---:|---|---:|---:|---:|"
for name in torus16x16 torus32x32 mesh32x32 hypercube8 hypercube10 regular4-256 regular4-1000 regular8-1000 dragonfly-a8h4; do
    f="file:$D/$name.txt"
    t0=$(now); a=$("$B/gossip" plan allgather "$f" --json); t1=$(now)
    g=$("$B/gossip" plan allgather "$f" --method greedy --json); t2=$(now)
    deg=$("$B/gossip" info "$f" --json --no-spectrum --no-rotation | jq -r '.degree | if .min == .max then (.min | tostring) else "\(.min)..\(.max)" end')
    jq -rn --argjson a "$a" --argjson g "$g" --arg name "$name" --arg deg "$deg" \
        --arg ta "$(echo "$t1 - $t0" | bc)" --arg tg "$(echo "$t2 - $t1" | bc)" \
        '"| \($name) | \($a.nodes) | \($deg) | \($a.lower_bound) | \($a.rounds) (\($a.method)) | \($ta | tonumber * 100 | round / 100) | \($g.rounds) | \($tg | tonumber * 100 | round / 100) |"'
done

# At scale (issue 24 item 4): explicit allgathers on graphs without a group up to 10^4 nodes,
# one process at a time (each holds N(N-1) transfers: 2.4 GB at 10^4), timed as a whole process
# with its CPU time and peak memory (/usr/bin/time). The yardstick is an all-pairs BFS over the
# same graph: N times one plain BFS (bench_bfs, best of 3), the work of the simplest explicit
# allgather, a BFS tree per origin. Bounds: the counting bound ceil((N-1)/delta) (delta the
# least in-degree: a corner of a mesh takes 2 packets a round) and the diameter. Skipped with
# GENERAL_SCALE=0.
[ "${GENERAL_SCALE:-1}" = 0 ] && exit 0
gen0() { # NAME GENERATOR... (node ids as generated: the mesh row by row)
    local name=$1; shift
    [ -s "$D/$name.txt" ] || "$@" >"$D/$name.txt"
}
gen0 mesh70x70 mesh 70 70
gen0 mesh100x100 mesh 100 100
gen mesh100x100-shuffled 10000 mesh 100 100
gen0 regular4-10000 regular 10000 4 5
echo
echo "| graph (edge list) | nodes | counting bound | diameter | rounds | CPU s | wall s | peak RSS (MB) | all-pairs BFS (s) | CPU / all-pairs BFS |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for name in mesh70x70 mesh100x100 mesh100x100-shuffled regular4-10000; do
    f="file:$D/$name.txt"
    y=$("$B/bench/bench_bfs" "$f")
    /usr/bin/time -f "%U %S %e %M" -o "$D/time.txt" "$B/gossip" plan allgather "$f" --json >"$D/plan.json"
    read -r us ss es kb <"$D/time.txt"
    jq -rn --argjson a "$(cat "$D/plan.json")" --argjson y "$y" --arg name "$name" --arg cpu "$(echo "$us + $ss" | bc)" \
        --arg wall "$es" --arg kb "$kb" \
        '($y.bfs_s * $a.nodes) as $apsp |
         "| \($name) | \($a.nodes) | \($a.bounds.degree) | \($a.bounds.diameter) | \($a.rounds)\(if $a.verified then "" else " (not verified)" end) | \($cpu | tonumber * 10 | round / 10) | \($wall | tonumber * 10 | round / 10) | \($kb | tonumber / 1024 | round) | \($apsp * 100 | round / 100) | \(($cpu | tonumber) / $apsp | round) |"'
done
