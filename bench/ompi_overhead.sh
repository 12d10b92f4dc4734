#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/ompi_overhead.sh — what the drop-in adds to a small call on this machine's Open MPI:
# CALLS (default 10^5) MPI_Allreduce of one double and MPI_Bcast of one int on P ranks, the same
# binary plain and with libgossip_pmpi.so preloaded, run alternately REPS times (default 5), so
# that a change of the machine's load hits both alike. Prints per spec the medians per call,
# the ratio of the medians drop-in / Open MPI, and the range of the ratios of the REPS pairs
# run back to back. With BEFORE=path/to/an/older/libgossip_pmpi.so, that library runs in the
# same rotation and its columns follow (the effect of a change, measured under the same load).
#   bench/ompi_overhead.sh [BUILD_DIR] [P] [SPEC...]     (raw times: bench/out/overhead/)
set -euo pipefail
B=${1:-build}
P=${2:-4}
shift 2 2>/dev/null || shift $#
SPECS=${*:-"torus:2x2 cycle:4 complete:4"}
CALLS=${CALLS:-100000}
REPS=${REPS:-5}
LIB=${LIB:-$PWD/$B/libgossip_pmpi.so}
BEFORE=${BEFORE:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
prog=$B/bench/ompi_overhead
raw=${RAW:-bench/out/overhead}
mkdir -p "$raw" "$(dirname "$prog")"
mpicc -O2 "$(dirname "$0")/mpi/overhead.c" -o "$prog"
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# Paired ratios of column $1 of files $2 / $3: "min-max".
range() { paste "$2" "$3" | awk -v c="$1" -v w="$(awk 'NR == 1 { print NF }' "$2")" \
    '{ r = $(w + c) / $c; if (NR == 1 || r < lo) lo = r; if (NR == 1 || r > hi) hi = r } END { printf "%.2f–%.2f", lo, hi }'; }
head="| spec | ranks | calls | Open MPI allreduce us | drop-in us | ratio (pairs) | Open MPI bcast us | drop-in us | ratio (pairs) |"
sep="|---|---|---|---|---|---|---|---|---|"
[ -n "$BEFORE" ] && head="$head before: allreduce us | ratio (pairs) | bcast us | ratio (pairs) |" && sep="$sep---|---|---|---|"
echo "$head"
echo "$sep"
for spec in $SPECS; do
    f=$raw/${spec//[:\/]/_}-$P
    : >"$f.plain"; : >"$f.gossip"; : >"$f.before"
    for r in $(seq "$REPS"); do
        mpirun --oversubscribe -n "$P" "$prog" "$CALLS" >>"$f.plain"
        mpirun --oversubscribe -n "$P" -x LD_PRELOAD="$LIB" -x GOSSIP_TOPOLOGY="$spec" "$prog" "$CALLS" >>"$f.gossip"
        [ -z "$BEFORE" ] || mpirun --oversubscribe -n "$P" -x LD_PRELOAD="$BEFORE" -x GOSSIP_TOPOLOGY="$spec" "$prog" "$CALLS" >>"$f.before"
    done
    pa=$(awk '{print $2}' "$f.plain" | median); ga=$(awk '{print $2}' "$f.gossip" | median)
    pb=$(awk '{print $5}' "$f.plain" | median); gb=$(awk '{print $5}' "$f.gossip" | median)
    line=$(awk -v s="$spec" -v p="$P" -v c="$CALLS" -v pa="$pa" -v ga="$ga" -v pb="$pb" -v gb="$gb" -v ra="$(range 2 "$f.plain" "$f.gossip")" \
        -v rb="$(range 5 "$f.plain" "$f.gossip")" \
        'BEGIN { printf "| %s | %d | %d | %.3f | %.3f | %.2f (%s) | %.3f | %.3f | %.2f (%s) |", s, p, c, pa, ga, ga / pa, ra, pb, gb, gb / pb, rb }')
    if [ -n "$BEFORE" ]; then
        oa=$(awk '{print $2}' "$f.before" | median); ob=$(awk '{print $5}' "$f.before" | median)
        line="$line$(awk -v pa="$pa" -v oa="$oa" -v pb="$pb" -v ob="$ob" -v ra="$(range 2 "$f.plain" "$f.before")" \
            -v rb="$(range 5 "$f.plain" "$f.before")" 'BEGIN { printf " %.3f | %.2f (%s) | %.3f | %.2f (%s) |", oa, oa / pa, ra, ob, ob / pb, rb }')"
    fi
    echo "$line"
done
