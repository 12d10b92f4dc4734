# SPDX-License-Identifier: GPL-3.0-or-later
#!/usr/bin/env bash
# bench/rt_rank.sh — what one rank of the MPI runtime spends to plan a collective, against N:
# `gossip plan COLL SPEC --bytes B --rank 1` is what each rank computes on its first call (the
# topology, one BFS, the candidates' compact forms, the cost model's choice, its own program),
# timed as a whole process with its peak memory. Yardstick: bench_bfs SPEC (build the arc table
# and one plain BFS). Usage: bench/rt_rank.sh [BUILD_DIR]; prints a markdown table.
set -euo pipefail
B=${1:-build}
specs=${SPECS:-"torus:16x16 torus:32x32 torus:64x64 torus:16x16x16 torus:32x32x32 hypercube:12 hypercube:16 torus:24x23x24x2x3x2"}
echo "| spec | nodes | collective | bytes | choice | rounds | plan s | peak RSS MB | build+BFS s | plan / (build+BFS) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for spec in $specs; do
    y=$("$B/bench/bench_bfs" "$spec")
    nodes=$(jq .nodes <<<"$y"); yard=$(jq '.build_s + .bfs_s' <<<"$y")
    for coll in allreduce allgather reduce-scatter broadcast; do
        for bytes in 8 1048576; do
            /usr/bin/time -f "%e %M" -o /tmp/rt_rank_time "$B/gossip" plan "$coll" "$spec" --bytes "$bytes" --rank 1 --json >/tmp/rt_rank.json
            read -r secs kb </tmp/rt_rank_time
            choice=$(jq -r .choice /tmp/rt_rank.json)
            rounds=$(jq "[.candidates[] | select(.chosen)][0].rounds" /tmp/rt_rank.json)
            ratio=$(awk -v a="$secs" -v b="$yard" 'BEGIN{printf "%.1f", a/(b > 0.001 ? b : 0.001)}')
            echo "| $spec | $nodes | $coll | $bytes | $choice | $rounds | $secs | $((kb / 1024)) | $(printf %.3f "$yard") | $ratio |"
        done
    done
done
