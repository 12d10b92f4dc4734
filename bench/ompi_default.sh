#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/ompi_default.sh — the runtime's overhead on this machine's Open MPI (shared memory):
# gossip's exact collectives (drop-in algorithms, default cost model, GOSSIP_TOPOLOGY
# complete:P — on one node every pair of ranks is one hop) against Open MPI's default choice,
# as the ratio gossip / Open MPI (below 1: gossip is faster) with the algorithm gossip chose,
# 8 B to 4 MiB per rank, median of 101 interleaved repetitions of the slowest rank.
# Usage: bench/ompi_default.sh [BUILD_DIR] [OUT_DIR] [RANKS...]   (default: build bench/out/ompi 2 4)
set -uo pipefail
B=${1:-build}
OUT=${2:-bench/out/ompi}
shift 2 2>/dev/null || true
RANKS=${*:-2 4}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for p in $RANKS; do
    for coll in allgather allreduce reduce-scatter broadcast reduce; do
        timeout 900 mpirun --oversubscribe -n "$p" "$B/gossip-mpi" bench "$coll" "complete:$p" --reps 101 --max-bytes 4194304 \
            >"$OUT/$coll-p$p.txt" 2>&1
    done
done
echo "| collective | ranks | 8 B | 512 B | 32 KiB | 512 KiB | 4 MiB |"
echo "|---|---|---|---|---|---|---|"
for p in $RANKS; do
    for coll in allgather allreduce reduce-scatter broadcast reduce; do
        awk -v c="$coll" -v p="$p" '!/^#/ && NF >= 4 { r[$1] = sprintf("%.2f (%s)", $2 / $3, $4) }
            END { printf "| %s | %d | %s | %s | %s | %s | %s |\n", c, p, r[8], r[512], r[32768], r[524288], r[4194304] }' \
            "$OUT/$coll-p$p.txt"
    done
done
