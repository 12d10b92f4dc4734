#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/plan.sh — optimal gossip at scale: `gossip plan allgather SPEC` (auto method), whole
# process wall time and peak memory, with the plan's own rounds, bound and inner seconds.
# Usage: bench/plan.sh [BUILD_DIR]
set -euo pipefail
B=${1:-build}
echo "| spec | nodes | method | rounds | lower bound | optimal | plan seconds (inner) | process wall (s) | peak RSS (MB) |"
echo "|---|---|---|---|---|---|---|---|---|"
for spec in torus:32x32 torus:1000x1000 star:9 hypercube:20 torus:3x7 torus:100x100; do
    /usr/bin/time -f "%e %M" -o /tmp/gossip_time "$B/gossip" plan allgather "$spec" --json >/tmp/gossip_plan.json
    read -r secs kb </tmp/gossip_time
    jq -r --arg w "$secs" --arg m "$((kb / 1024))" \
        '"| \(.topology) | \(.nodes) | \(.method) | \(.rounds) | \(.lower_bound) | \(.optimal) | \(.seconds*10000|round/10000) | \($w) | \($m) |"' \
        /tmp/gossip_plan.json
done
