#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# models.sh — rounds against the lower bound in every communication model, per collective and
# family: the table of docs/models.md. Usage: bench/models.sh [BUILD_DIR]
set -euo pipefail
g=${1:-build}/gossip
specs="hypercube:4 hypercube:6 hypercube:8 torus:4x4 torus:8x8 torus:16x16 torus:3x5 torus:4x4x4 complete:7 complete:16 optcirc:40 star:4 star:5 cycle:9 file:tests/data/petersen.txt"
models=("one-port:--ports 1" "one-port p=inf:--ports 1 --packets inf" "half duplex:--duplex half" "half duplex p=inf:--duplex half --packets inf" "one-port half duplex:--ports 1 --duplex half")
echo "| topology | collective | model | method | rounds | lower bound | met |"
echo "|---|---|---|---|---:|---:|---|"
for s in $specs; do
    for c in broadcast allgather allreduce; do
        for m in "${models[@]}"; do
            name=${m%%:*} opts=${m#*:}
            # Broadcast and allreduce carry one number: packets do not matter; half duplex does
            # not constrain a broadcast (everything flows away from the root).
            if [ "$c" != allgather ] && [[ $name == *"p=inf"* ]]; then continue; fi
            if [ "$c" = broadcast ] && [[ $name == "half duplex" ]]; then continue; fi
            # shellcheck disable=SC2086
            out=$("$g" plan "$c" "$s" $opts --json 2>/dev/null) || { echo "| $s | $c | $name | - | - | - | no method |"; continue; }
            jq -r --arg s "$s" --arg c "$c" --arg m "$name" \
                '"| \($s) | \($c) | \($m) | \(.method) | \(.rounds) | \(.lower_bound) | \(if .rounds == .lower_bound then "yes" else "no (+\(.rounds - .lower_bound))" end) |"' <<<"$out"
        done
    done
done
