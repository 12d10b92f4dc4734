#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# fabrics.sh — the throughput optimum of the fabrics of docs/fabrics.md, as `gossip info --json`
# computes it: the table of that page (tests/cli/test_docs.sh compares it with a fresh run).
# With --trees: the plans of `gossip plan allgather FABRIC --json` (spanning trees at the
# optimum) and their times, beside ForestColl's times measured in issue 24 (user CPU, trees
# included): the table of docs/fabrics.md "Plans" and bench/README.md.
# Usage: bench/fabrics.sh [BUILD_DIR] [--trees [RUNS]]
set -euo pipefail
g=${1:-build}/gossip
if [ "${2:-}" = --trees ]; then
    runs=${3:-3}
    # fabric, ForestColl's seconds ("-": not measured)
    plans="dgx:8x1 - dgx:8x2 3.1 dgx:8x4 27 mi250:1 - mi250:2 22.5 mi250:4 186 dgx:8x16 - mi250:8 - fattree:4x8 - dragonfly:4x2x2 - torus:4x4x4@1,1,0.5 -"
    echo "| fabric | GPUs | optimum algbw | trees reach | trees | deepest (hops) | rounds, 1 batch | plan CPU s (median of $runs) | plan wall s | ForestColl CPU s | ForestColl / gossip |"
    echo "|---|---:|---|---|---:|---|---:|---:|---:|---:|---:|"
    set -- $plans
    while [ $# -ge 2 ]; do
        spec=$1 fc=$2
        shift 2
        secs=() users=()
        for _ in $(seq "$runs"); do
            "$g" plan allgather "$spec" --json >/tmp/gossip-bench-$$.json
            secs+=("$(jq .seconds /tmp/gossip-bench-$$.json)")
            users+=("$(jq .cpu_seconds /tmp/gossip-bench-$$.json)")
        done
        med=$(printf '%s\n' "${secs[@]}" | sort -g | sed -n "$(((runs + 1) / 2))p")
        user=$(printf '%s\n' "${users[@]}" | sort -g | sed -n "$(((runs + 1) / 2))p")
        jq -r --arg s "$spec" --arg med "$med" --arg user "$user" --arg fc "$fc" '
            def r3: . * 1000 | round / 1000;
            "| `\($s)` | \(.nodes) | \(.optimum.algbw) = \(.optimum.algbw_value * 100 | round / 100) | \(.algbw)\(if .optimal then " (optimal)" else " (BELOW)" end) | \(.trees) | \(.depth) (\(.hop_depth)) | \(.rounds) | \($user | tonumber | r3) | \($med | tonumber | r3) | \($fc) | \(if $fc == "-" then "-" else "\(($fc | tonumber) / ([($user | tonumber), 0.001] | max) | round)x" end) |"' /tmp/gossip-bench-$$.json
    done
    rm -f /tmp/gossip-bench-$$.json
    exit 0
fi
specs="dgx:8x1 dgx:8x2 dgx:8x2:nvlink=600,nic=50 dgx:8x16 mi250:1 mi250:2 mi250:16 fattree:4x8 fattree:4x8:oversub=16
fattree:16x16:spines=4,oversub=4,link=50 dragonfly:4x2x2 dragonfly:4x2x8:global=0.1 torus:4x4x4 torus:4x4x4@1,1,0.5
hypercube:6 file:tests/data/fabric.txt"
echo "| fabric | vertices | compute | switches | allgather algbw | reduce-scatter | allreduce | broadcast | allgather's binding cut |"
echo "|---|---:|---:|---:|---|---|---|---|---|"
for s in $specs; do
    "$g" info "$s" --json --no-spectrum --no-rotation | jq -r --arg s "$s" '
        def frac(o): if o == null then "-" else
            (if (o.algbw | test("/")) then "\(o.algbw) = \(o.algbw_value * 100 | round / 100)" else o.algbw end) end;
        def cut($n; $names): if (.binding_cut | length) * 2 > $n then "all but " + ([$names[] as $x | select((.binding_cut | index($x)) == null) | $x] | .[0:4] | join(" ")) + (if ($n - (.binding_cut | length)) > 4 then " … (\($n - (.binding_cut | length)))" else "" end)
                 else (.binding_cut[0:4] | join(" ")) + (if (.binding_cut | length) > 4 then " … (\(.binding_cut | length))" else "" end) end;
        (.nodes) as $n | ((.names // [range(0; .nodes) | tostring])) as $names |
        "| `\($s)` | \(.nodes) | \(.compute_nodes) | \(.switches | length) | \(frac(.optimum.allgather)) | \(frac(.optimum.reduce_scatter)) | \(frac(.optimum.allreduce)) | \(frac(.optimum.broadcast)) | \(.optimum.allgather | cut($n; $names)) |"'
done
