#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/smpi_chain.sh — the cost of one pipelined path in SMPI's network model (bench/smpi/chain.c):
# 1 MiB in 128 segments of 8 KiB along H = 1..7 links of the fast 8x8 torus (10 GB/s, 1 us), with
# each flow control the runtime could use. The bandwidth time alone is 96 us; the all-port bound
# of the 4 MiB broadcast on that torus, whose four trees each carry 1 MiB, is 104.9 us.
# Usage: bench/smpi_chain.sh   (after bench/smpi.sh has made build-smpi/t88-fast.xml and hosts)
set -euo pipefail
cd "$(dirname "$0")/.."
w=build-smpi
[ -f "$w/t88-fast.xml" ] || { echo "run bench/smpi.sh t88-fast first (it writes the platform)" >&2; exit 2; }
smpicc -O2 bench/smpi/chain.c -o "$w/chain" 2>/dev/null
echo "| links | flow control | window | us | us per link beyond the bandwidth time |"
echo "|---:|---|---:|---:|---:|"
for H in 1 3 6; do
    for fc in "sync 4" "sync 8" "sync 16" "recv 4" "recv 8" "eager 128"; do
        set -- $fc
        mode=$1; W=$2; [ "$mode" = eager ] && mode=recv
        line=$(smpirun -np 64 -platform "$w/t88-fast.xml" -hostfile "$w/hosts" --cfg=smpi/simulate-computation:no \
            "$w/chain" "$H" 128 8192 "$mode" "$W" 2>/dev/null | tail -1)
        us=$(awk '{print $6}' <<<"$line")
        awk -v h="$H" -v m="$1" -v w="$W" -v us="$us" 'BEGIN { printf "| %d | %s | %d | %.1f | %.1f |\n", h, m, w, us, (us - 96.5) / h }'
    done
done
