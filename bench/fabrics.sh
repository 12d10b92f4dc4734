#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# fabrics.sh — the throughput optimum of the fabrics of docs/fabrics.md, as `gossip info --json`
# computes it: the table of that page (tests/cli/test_docs.sh compares it with a fresh run).
# Usage: bench/fabrics.sh [BUILD_DIR]
set -euo pipefail
g=${1:-build}/gossip
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
