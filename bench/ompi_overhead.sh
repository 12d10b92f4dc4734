#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/ompi_overhead.sh — what the drop-in adds to a small call on this machine's Open MPI:
# CALLS (default 10^5) MPI_Allreduce of one double and MPI_Bcast of one int on P ranks, plain and
# with libgossip_pmpi.so preloaded, interleaved REPS times (default 5); prints the medians per
# call and the ratio drop-in / Open MPI.  Usage: bench/ompi_overhead.sh [BUILD_DIR] [P] [SPEC...]
set -euo pipefail
B=${1:-build}
P=${2:-4}
shift 2 2>/dev/null || true
SPECS=${*:-"torus:2x2 cycle:4 complete:4"}
CALLS=${CALLS:-100000}
REPS=${REPS:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
prog=$B/bench/ompi_overhead
mpicc -O2 "$(dirname "$0")/mpi/overhead.c" -o "$prog"
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "| spec | ranks | calls | Open MPI allreduce us | drop-in us | ratio | Open MPI bcast us | drop-in us | ratio |"
echo "|---|---|---|---|---|---|---|---|---|"
for spec in $SPECS; do
    : >/tmp/ovh_plain; : >/tmp/ovh_gossip
    for r in $(seq "$REPS"); do
        mpirun --oversubscribe -n "$P" "$prog" "$CALLS" >>/tmp/ovh_plain
        mpirun --oversubscribe -n "$P" -x LD_PRELOAD="$PWD/$B/libgossip_pmpi.so" -x GOSSIP_TOPOLOGY="$spec" "$prog" "$CALLS" >>/tmp/ovh_gossip
    done
    pa=$(awk '{print $2}' /tmp/ovh_plain | median); ga=$(awk '{print $2}' /tmp/ovh_gossip | median)
    pb=$(awk '{print $5}' /tmp/ovh_plain | median); gb=$(awk '{print $5}' /tmp/ovh_gossip | median)
    awk -v s="$spec" -v p="$P" -v c="$CALLS" -v pa="$pa" -v ga="$ga" -v pb="$pb" -v gb="$gb" \
        'BEGIN { printf "| %s | %d | %d | %.3f | %.3f | %.2f | %.3f | %.3f | %.2f |\n", s, p, c, pa, ga, ga / pa, pb, gb, gb / pb }'
done
