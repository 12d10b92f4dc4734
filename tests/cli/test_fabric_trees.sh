#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_fabric_trees.sh — the slow sweep of plans on fabrics (label slow): every collective on
# larger generated fabrics and the DGX file reaches the optimum exactly (algbw == optimum, as
# recounted from the trees' loads), and the round form of every collective passes the verifier
# under the capacities. The default tier's checks are in test_fabric.sh and
# tests/unit/test_fabric.c.
GOSSIP=$1
DATA=$2
. "$(dirname "$0")/lib.sh"

for spec in dgx:8x4 mi250:4 dgx:8x16 "fattree:16x16:spines=4,oversub=4,link=50" "fattree:4x8:oversub=16" \
    "dragonfly:4x2x8:global=0.1" "torus:4x4x4@1,1,0.5" "hypercube:6@1,1,1,1,1,0.5" "file:$DATA/dgx-a100-2box.txt"; do
    for coll in allgather reduce-scatter allreduce broadcast; do
        expect 0 plan "$coll" "$spec" --json || continue
        jqcheck '.optimal == true and .algbw == .optimum.algbw'
        if [ "$coll" = allreduce ]; then
            jqcheck '.verified == true and .rounds == .lower_bound + .phases.reduce_scatter.hop_depth + .phases.allgather.hop_depth - 2'
        else
            jqcheck '.verified == true and .rounds == .hop_depth'
        fi
    done
done
# Pipelined: 8 batches on two MI250 boxes, written and verified again from the file.
expect 0 plan allgather mi250:2 --batches 8 -o "$tmp/m.json" --json
jqcheck '.rounds == .hop_depth + 7 and .lower_bound == 8'
expect 0 verify "$tmp/m.json"
finish
