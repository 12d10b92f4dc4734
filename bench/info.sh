#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/info.sh — `gossip info` at scale against the yardstick of one plain BFS (bench_bfs).
# Usage: bench/info.sh [BUILD_DIR]; prints a markdown table for bench/README.md.
set -euo pipefail
B=${1:-build}
echo "| spec | nodes | arcs | gossip info (s) | peak RSS (MB) | build arcs (s) | one BFS (s) | info / (build + BFS) |"
echo "|---|---|---|---|---|---|---|---|"
# Two file graphs that are not vertex-transitive, made here: K_{1,200000} (a tree) and a
# 300 x 300 grid without wrap-around (iFUB for the diameter, 64 sampled BFS for the average).
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
awk 'BEGIN { for (i = 1; i <= 200000; i++) print 0, i }' >"$d/star200k.txt"
awk 'BEGIN { a = 300; for (y = 0; y < a; y++) for (x = 0; x < a; x++) { v = y * a + x; if (x + 1 < a) print v, v + 1; if (y + 1 < a) print v, v + a } }' >"$d/grid300.txt"
for spec in torus:1000x1000 star:10 hypercube:20 optcirc:1000000 "file:$d/star200k.txt" "file:$d/grid300.txt"; do
    y=$("$B/bench/bench_bfs" "$spec")
    /usr/bin/time -f "%e %M" -o /tmp/gossip_time "$B/gossip" info "$spec" --json >/tmp/gossip_info.json
    read -r secs kb </tmp/gossip_time
    nodes=$(jq .nodes <<<"$y"); arcs=$(jq .arcs <<<"$y")
    bs=$(jq .build_s <<<"$y"); bfs=$(jq .bfs_s <<<"$y")
    ratio=$(awk -v a="$secs" -v b="$bs" -v c="$bfs" 'BEGIN{printf "%.1f", a/(b+c)}')
    echo "| ${spec#file:"$d"/} | $nodes | $arcs | $secs | $((kb / 1024)) | $bs | $bfs | $ratio |"
done
