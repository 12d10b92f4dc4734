#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_mpi_hosts.sh — host names reach the runtime (issue 25, item 7): when the topology file
# names its nodes by host, rank r runs the node named by its host, not node r. On one machine
# every rank gets its own host name through GOSSIP_HOSTNAME (one app context per rank), in
# orders other than the file's; the drop-in must then give results exact and conforming
# (exact_mpi, dropin_mpi), say the mapping under GOSSIP_VERBOSE, place several ranks of one
# host on nodes named HOST:k, and fall through to MPI's own collectives — with one line naming
# the host — when a host is no node's name. Without GOSSIP_TOPOLOGY, GOSSIP_VERBOSE=1 says the
# drop-in is loaded and idle. At most 8 ranks.
# Usage: test_mpi_hosts.sh LIBGOSSIP_PMPI EXACT_MPI DROPIN_MPI PLAIN_MPI DATA_DIR GOSSIP_MPI
PRELOAD=$1
EXACT=$2
DROPIN=$3
PLAIN=$4
DATA=$5
GM=$6
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export GOSSIP_TUNING=none
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
failn=0
check() { # DESCRIPTION STATUS
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else failn=$((failn + 1)); echo "FAIL: $1"; echo "$out" | grep -v '^ *$' | tail -6; fi
}
# hosts SPEC PROGRAM ARG "HOST ..." [VAR=VALUE ...]: one rank per host name given, in that
# order (rank r gets the r-th), every rank under the drop-in with GOSSIP_VERBOSE=1.
hosts() {
    local spec=$1 prog=$2 arg=$3 names=$4
    shift 4
    local args=() sep=()
    for h in $names; do
        args+=("${sep[@]}" -n 1 env LD_PRELOAD="$PRELOAD" GOSSIP_TOPOLOGY="$spec" GOSSIP_VERBOSE=1 GOSSIP_HOSTNAME="$h" "$@" "$prog" "$arg")
        sep=(:)
    done
    out=$(timeout 300 mpirun --oversubscribe "${args[@]}" 2>&1)
}
CUBE="file:$DATA/hosts-cube.txt" # golf 0, bravo 1, echo 2, alpha 3, hotel 4, delta 5, charlie 6, foxtrot 7

# (a, b) Ranks in alphabetical order of their hosts (as a launcher would place them): exact,
# and the mapping said, naming the permutation.
hosts "$CUBE" "$EXACT" 1000 "alpha bravo charlie delta echo foxtrot golf hotel"
grep -q "every check passed" <<<"$out" &&
    grep -q "^gossip: ranks placed by host name on $CUBE (MPI's placement is not the file's order): rank 0 runs node 3 'alpha', rank 1 runs node 1 'bravo', rank 2 runs node 6 'charlie', rank 3 runs node 5 'delta', rank 4 runs node 2 'echo', rank 5 runs node 7 'foxtrot', rank 6 runs node 0 'golf', rank 7 runs node 4 'hotel'$" <<<"$out" &&
    grep -q "MPI_Allgather by gossip" <<<"$out" && [ "$(grep -c '^gossip: ranks placed' <<<"$out")" = 1 ]
check "permuted hosts: exact_mpi exact through gossip, the mapping said once" $?
# Other orders, each algorithm that applies to a file's graph forced (none may fall back),
# segments.
hosts "$CUBE" "$EXACT" 1000 "hotel foxtrot alpha echo charlie golf delta bravo" \
    GOSSIP_ALGORITHM=allreduce=rs-ag,allgather=packet,reduce-scatter=packet,bcast=multitree,reduce=multitree GOSSIP_SEGMENT=256
grep -q "every check passed" <<<"$out" && grep -q "rank 0 runs node 4 'hotel', rank 1 runs node 7 'foxtrot'" <<<"$out" &&
    ! grep -q "falls back" <<<"$out" && grep -q "MPI_Reduce_scatter_block by gossip's packet" <<<"$out"
check "permuted hosts, rs-ag, packet and multitrees in segments: exact" $?
hosts "$CUBE" "$EXACT" 1000 "bravo charlie alpha hotel golf echo foxtrot delta" GOSSIP_ALGORITHM=allreduce=gather,bcast=tree,reduce=tree
grep -q "every check passed" <<<"$out" && ! grep -q "falls back" <<<"$out" && grep -q "MPI_Allreduce by gossip's gather" <<<"$out"
check "permuted hosts, gather and trees: exact" $?
hosts "$CUBE" "$EXACT" 1000 "delta golf bravo hotel alpha foxtrot echo charlie" \
    GOSSIP_ALGORITHM=allreduce=rs-ag-flood,allgather=flood,reduce-scatter=flood,bcast=scatter-allgather,reduce=rs-gather
grep -q "every check passed" <<<"$out" && ! grep -q "falls back" <<<"$out" && grep -q "MPI_Allgather by gossip's flood" <<<"$out"
check "permuted hosts, flood and scatter-allgather: exact" $?
# Datatypes with holes on some ranks (the allgather packs and unpacks), in-place calls, MPI's
# error classes.
hosts "$CUBE" "$DROPIN" 5000 "charlie alpha hotel bravo golf echo foxtrot delta"
grep -q "every check passed" <<<"$out" && grep -q "not the file's order" <<<"$out"
check "permuted hosts: dropin_mpi (mixed datatypes, holes, error classes)" $?
# The file's own order: said so.
hosts "$CUBE" "$PLAIN" 100 "golf bravo echo alpha hotel delta charlie foxtrot"
grep -q "all results correct" <<<"$out" && grep -q "(MPI's placement is the file's order): rank 0 runs node 0 'golf'" <<<"$out"
check "hosts in the file's order: said so" $?

# gossip-mpi places its ranks alike (its checks compare with MPI's own, rank by rank).
for coll in allgather reduce-scatter "broadcast --root 3"; do
    args=() sep=()
    for h in charlie alpha hotel bravo golf echo foxtrot delta; do
        args+=("${sep[@]}" -n 1 env GOSSIP_VERBOSE=1 GOSSIP_HOSTNAME=$h "$GM" run $coll "$CUBE" --count 333 --reps 1)
        sep=(:)
    done
    out=$(timeout 300 mpirun --oversubscribe "${args[@]}" 2>&1)
    grep -q "results \(identical to MPI's\|equal the standard's\)" <<<"$out" && grep -q "rank 0 runs node 6 'charlie'" <<<"$out"
    check "gossip-mpi run $coll on permuted hosts" $?
done

# Several ranks on one host: the k-th rank of host H runs node H:k.
printf 'alpha:0 beta:0\nbeta:0 alpha:1\nalpha:1 beta:1\nbeta:1 alpha:0\n' >"$tmp/two.txt"
hosts "file:$tmp/two.txt" "$EXACT" 1000 "beta alpha beta alpha"
grep -q "every check passed" <<<"$out" &&
    grep -q "rank 0 runs node 1 'beta:0', rank 1 runs node 0 'alpha:0', rank 2 runs node 3 'beta:1', rank 3 runs node 2 'alpha:1'$" <<<"$out"
check "two ranks per host: H:k placement, exact" $?
# ... on a host the file names once: refused, MPI's own collectives run, still correct.
printf 'a b\nb c\nc a\n' >"$tmp/three.txt"
hosts "file:$tmp/three.txt" "$PLAIN" 100 "a a b"
grep -q "all results correct" <<<"$out" &&
    [ "$(grep -c "^gossip: GOSSIP_TOPOLOGY=file:$tmp/three.txt is not usable here (.*host 'a' runs 2 ranks but the file has one node 'a' (name its nodes a:0 .. a:1" <<<"$out")" = 1 ] &&
    ! grep -q "by gossip" <<<"$out"
check "two ranks on a host named once: one line, MPI's own" $?

# (c) A host that is no node's name: one line naming it, MPI's own collectives, correct results.
hosts "$CUBE" "$EXACT" 1000 "alpha bravo charlie delta echo zulu golf hotel"
grep -q "every check passed" <<<"$out" &&
    [ "$(grep -c "is not usable here (.*rank 5 runs on host 'zulu', and zulu is no node of the file" <<<"$out")" = 1 ] && ! grep -q "by gossip" <<<"$out"
check "a missing host: said once, MPI's own collectives" $?
# Every rank on this machine's own name: no node of the file either ...
out=$(timeout 120 mpirun --oversubscribe -n 8 -x LD_PRELOAD="$PRELOAD" -x GOSSIP_TOPOLOGY="$CUBE" "$PLAIN" 100 2>&1)
grep -q "all results correct" <<<"$out" && grep -q "is not usable here (.*runs 8 ranks\|is not usable here (.*is no node of the file" <<<"$out"
check "the machine's own host name, not in the file: MPI's own" $?
# ... unless the file's order is asked for.
out=$(timeout 120 mpirun --oversubscribe -n 8 -x LD_PRELOAD="$PRELOAD" -x GOSSIP_TOPOLOGY="$CUBE" -x GOSSIP_PLACEMENT=order -x GOSSIP_VERBOSE=1 "$PLAIN" 100 2>&1)
grep -q "all results correct" <<<"$out" && grep -q "^gossip: ranks placed in the file's order (GOSSIP_PLACEMENT=order): rank r runs node r$" <<<"$out" &&
    grep -q "MPI_Allgather by gossip" <<<"$out"
check "GOSSIP_PLACEMENT=order: rank r on node r" $?

# (d) The drop-in alone (no GOSSIP_TOPOLOGY): GOSSIP_VERBOSE=1 says it is loaded and idle, once.
out=$(timeout 120 mpirun --oversubscribe -n 4 -x LD_PRELOAD="$PRELOAD" -x GOSSIP_VERBOSE=1 "$PLAIN" 100 2>&1)
grep -q "all results correct" <<<"$out" &&
    [ "$(grep -c "^gossip: libgossip_pmpi is loaded but idle: GOSSIP_TOPOLOGY is not set, so MPI's own collectives run$" <<<"$out")" = 1 ] &&
    [ "$(grep -c '^gossip:' <<<"$out")" = 1 ]
check "LD_PRELOAD alone with GOSSIP_VERBOSE=1: one line, loaded and idle" $?
out=$(timeout 120 mpirun --oversubscribe -n 2 -x LD_PRELOAD="$PRELOAD" "$PLAIN" 100 2>&1)
grep -q "all results correct" <<<"$out" && ! grep -q "^gossip:" <<<"$out"
check "LD_PRELOAD alone, not verbose: silent" $?
echo "$pass passed, $failn failed"
[ "$failn" = 0 ]
