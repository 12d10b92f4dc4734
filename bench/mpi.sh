#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/mpi.sh — gossip's schedules against each of Open MPI's coll/tuned algorithms forced in
# turn, 8 B to 1 MiB per rank. Writes one file per (collective, ranks, algorithm) under OUT and a
# summary on stdout. Usage: bench/mpi.sh [BUILD_DIR] [OUT_DIR] [RANKS...]
set -uo pipefail
B=${1:-build}
OUT=${2:-bench/out/mpi}
shift 2 2>/dev/null || true
RANKS=${*:-4 16}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
spec_for() { case $1 in 2) echo complete:2;; 4) echo torus:2x2;; 8) echo hypercube:3;; 16) echo torus:4x4;; *) echo "cycle:$1";; esac; }
declare -A algs=([allgather]="1 2 3 4 5" [allreduce]="1 2 3 4 5 6" [broadcast]="1 2 3 5 6 7 8")
declare -A mca=([allgather]=allgather [allreduce]=allreduce [broadcast]=bcast)
for coll in allgather allreduce broadcast; do
    for p in $RANKS; do
        spec=$(spec_for "$p")
        for a in ${algs[$coll]}; do
            f="$OUT/$coll-p$p-alg$a.txt"
            [ -s "$f" ] && continue
            timeout 600 mpirun --oversubscribe -n "$p" --mca coll_tuned_use_dynamic_rules 1 \
                --mca "coll_tuned_${mca[$coll]}_algorithm" "$a" "$B/gossip-mpi" bench "$coll" "$spec" --reps 5 >"$f" 2>&1
        done
    done
done
echo "| collective | ranks | coll_tuned algorithm | 8 B: gossip / MPI (µs) | 8 KiB | 1 MiB (or largest) | gossip's algorithm at 8 KiB |"
echo "|---|---|---|---|---|---|---|"
for f in "$OUT"/*.txt; do
    b=$(basename "$f" .txt); coll=${b%%-*}; rest=${b#*-p}; p=${rest%%-*}; a=${rest#*-alg}
    awk -v c="$coll" -v p="$p" -v a="$a" '!/^#/ && NF >= 4 { t[$1] = sprintf("%.0f / %.0f", $2, $3); m[$1] = $4; last = $1 }
        END { printf "| %s | %s | %s | %s | %s | %s | %s |\n", c, p, a, t[8], t[8192], t[last], m[8192] }' "$f"
done
