#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/ompi_overhead.sh — what the drop-in adds to a small call on this machine's Open MPI:
# CALLS (default 10^5) MPI_Allreduce of one double and MPI_Bcast of one int on P ranks, the same
# binary plain and with libgossip_pmpi.so preloaded, run alternately REPS times (default 5), so
# that a change of the machine's load hits both alike. Prints per spec the median and least
# time per call (the least: the run the machine's other load disturbed least), the ratio of the
# medians drop-in / Open MPI with the range of the ratios of the REPS pairs run back to back,
# and the ratio of the least times. With BEFORE=path/to/an/older/libgossip_pmpi.so, that library runs in the
# same rotation and its columns follow (the effect of a change, measured under the same load).
# With INTERLEAVE=1, each run times both sides itself (overhead --interleave: blocks of 1000
# calls through the drop-in and through PMPI_, alternating), which a loaded machine disturbs far
# less than separate runs: per spec, the median over REPS runs of each run's median block ratio.
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
least() { sort -g | head -1; }
# Paired ratios of column $1 of files $2 / $3: "min–max".
range() { paste -d' ' "$2" "$3" | awk -v c="$1" '{ r = $(6 + c) / $c; if (NR == 1 || r < lo) lo = r; if (NR == 1 || r > hi) hi = r }
    END { printf "%.2f–%.2f", lo, hi }'; }
# One collective's columns for file $2 against the plain file $1 (column $3 of "allreduce X us
# bcast Y us"): median (least) us, ratio of the medians (pairs' range), ratio of the least.
cols() {
    local pm pl gm gl
    pm=$(awk -v c="$3" '{print $c}' "$1" | median); pl=$(awk -v c="$3" '{print $c}' "$1" | least)
    gm=$(awk -v c="$3" '{print $c}' "$2" | median); gl=$(awk -v c="$3" '{print $c}' "$2" | least)
    awk -v pm="$pm" -v pl="$pl" -v gm="$gm" -v gl="$gl" -v r="$(range "$3" "$1" "$2")" \
        'BEGIN { printf " %.3f (%.3f) | %.2f (%s) | %.2f |", gm, gl, gm / pm, r, gl / pl }'
}
plain() { awk -v c="$2" '{print $c}' "$1" | median | tr '\n' ' '; echo -n "("; awk -v c="$2" '{print $c}' "$1" | least | tr -d '\n'; echo -n ")"; }
if [ -n "${INTERLEAVE:-}" ]; then
    # One process times both sides in alternating blocks of 1000 calls (overhead --interleave):
    # per run, the median of the blocks' ratios drop-in / Open MPI; over the REPS runs, the
    # median of those and their range.
    head="| spec | ranks | calls × reps | allreduce: drop-in / Open MPI, median of runs (range) | bcast |"
    sep="|---|---|---|---|---|"
    [ -n "$BEFORE" ] && head="$head before: allreduce | before: bcast |" && sep="$sep---|---|"
    echo "$head"
    echo "$sep"
    for spec in $SPECS; do
        f=$raw/${spec//[:\/]/_}-$P-interleaved
        : >"$f.gossip"; : >"$f.before"
        for r in $(seq "$REPS"); do
            mpirun --oversubscribe -n "$P" -x LD_PRELOAD="$LIB" -x GOSSIP_TOPOLOGY="$spec" "$prog" "$CALLS" --interleave >>"$f.gossip"
            [ -z "$BEFORE" ] || mpirun --oversubscribe -n "$P" -x LD_PRELOAD="$BEFORE" -x GOSSIP_TOPOLOGY="$spec" "$prog" "$CALLS" --interleave >>"$f.before"
        done
        # Fields 13 and 24: the allreduce's and the bcast's median block ratio.
        med() { awk -v c="$2" '{print $c}' "$1" | median; }
        rng() { awk -v c="$2" '{print $c}' "$1" | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f–%.3f", v[1], v[NR] }'; }
        line="| $spec | $P | $CALLS × $REPS | $(med "$f.gossip" 13) ($(rng "$f.gossip" 13)) | $(med "$f.gossip" 24) ($(rng "$f.gossip" 24)) |"
        [ -z "$BEFORE" ] || line="$line $(med "$f.before" 13) ($(rng "$f.before" 13)) | $(med "$f.before" 24) ($(rng "$f.before" 24)) |"
        echo "$line"
    done
    exit 0
fi
head="| spec | ranks | calls × reps | Open MPI allreduce us, median (least) | drop-in | ratio of medians (pairs) | ratio of least"
head="$head | Open MPI bcast us | drop-in | ratio of medians (pairs) | ratio of least |"
sep="|---|---|---|---|---|---|---|---|---|---|---|"
[ -n "$BEFORE" ] && head="$head before: allreduce us | ratio (pairs) | ratio of least | before: bcast us | ratio (pairs) | ratio of least |" &&
    sep="$sep---|---|---|---|---|---|"
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
    line="| $spec | $P | $CALLS × $REPS | $(plain "$f.plain" 2) |$(cols "$f.plain" "$f.gossip" 2) $(plain "$f.plain" 5) |$(cols "$f.plain" "$f.gossip" 5)"
    [ -z "$BEFORE" ] || line="$line$(cols "$f.plain" "$f.before" 2)$(cols "$f.plain" "$f.before" 5)"
    echo "$line"
done
