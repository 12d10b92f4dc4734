#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/info.sh — `gossip info` at scale against the yardstick of one plain BFS (bench_bfs).
# Usage: bench/info.sh [BUILD_DIR]; prints a markdown table for bench/README.md.
set -euo pipefail
B=${1:-build}
echo "| spec | nodes | arcs | gossip info (s) | peak RSS (MB) | build arcs (s) | one BFS (s) | info / (build + BFS) |"
echo "|---|---|---|---|---|---|---|---|"
for spec in torus:1000x1000 star:10 hypercube:20 optcirc:1000000; do
    y=$("$B/bench/bench_bfs" "$spec")
    /usr/bin/time -f "%e %M" -o /tmp/gossip_time "$B/gossip" info "$spec" --json >/tmp/gossip_info.json
    read -r secs kb </tmp/gossip_time
    nodes=$(jq .nodes <<<"$y"); arcs=$(jq .arcs <<<"$y")
    bs=$(jq .build_s <<<"$y"); bfs=$(jq .bfs_s <<<"$y")
    ratio=$(awk -v a="$secs" -v b="$bs" -v c="$bfs" 'BEGIN{printf "%.1f", a/(b+c)}')
    echo "| $spec | $nodes | $arcs | $secs | $((kb / 1024)) | $bs | $bfs | $ratio |"
done
