#!/usr/bin/env bash
# test_mpi.sh — gossip's schedules run for real with Debian's Open MPI: results identical to
# MPI's own collectives (allreduce: equal to the standard's wrap-around result) on 2 to 16 ranks,
# several datatypes and counts including 0 and large; and the PMPI drop-in under an unmodified
# program. Usage: test_mpi.sh GOSSIP_MPI PLAIN_MPI LIBGOSSIP_PMPI
GM=$1
PLAIN=$2
PRELOAD=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
pass=0
failn=0
run() { # N ARGS...
    local n=$1; shift
    out=$(timeout 120 mpirun --oversubscribe -n "$n" "$GM" run "$@" 2>&1)
    if [ $? = 0 ] && grep -q "results \(identical to MPI's\|equal the standard's\)" <<<"$out"; then pass=$((pass + 1));
    else failn=$((failn + 1)); echo "FAIL: mpirun -n $n gossip-mpi run $*"; echo "$out" | tail -3; fi
}
for spec in complete:2 cycle:3 torus:2x2 cycle:5 torus:2x3 hypercube:3 torus:3x3 torus:3x4 torus:4x4; do
    n=$("$(dirname "$GM")/gossip" info "$spec" --json --no-spectrum --no-rotation | jq .nodes)
    run "$n" allgather "$spec" --count 100 --type int --reps 1
    run "$n" allreduce "$spec" --count 100 --type double --reps 1
    run "$n" broadcast "$spec" --count 100 --type float --root $((n - 1)) --reps 1
done
run 16 allgather torus:4x4 --count 0 --reps 1
run 16 allgather torus:4x4 --count 1 --type int8 --reps 1
run 16 allgather torus:4x4 --count 65536 --type double --reps 1
run 16 allreduce torus:4x4 --count 100000 --type float --reps 1
run 16 allreduce torus:4x4 --count 1000 --type int16 --reps 1
run 16 allreduce torus:4x4 --count 1000 --type int8 --op prod --reps 1
run 12 allreduce torus:3x4 --count 500 --type int --op max --reps 1
run 8 broadcast hypercube:3 --count 0 --reps 1
# The drop-in: an unmodified program, intercepted (the verbose notes say so), results correct.
out=$(timeout 120 mpirun --oversubscribe -n 16 -x LD_PRELOAD="$PRELOAD" -x GOSSIP_TOPOLOGY=torus:4x4 -x GOSSIP_VERBOSE=1 "$PLAIN" 1000 2>&1)
if [ $? = 0 ] && grep -q "all results correct" <<<"$out" && grep -q "MPI_Allgather by gossip" <<<"$out" &&
    grep -q "MPI_Allreduce by gossip" <<<"$out" && grep -q "MPI_Bcast by gossip" <<<"$out"; then pass=$((pass + 1));
else failn=$((failn + 1)); echo "FAIL: drop-in on torus:4x4"; echo "$out" | tail -5; fi
# A topology of the wrong size falls through to MPI's own, with a note, and stays correct.
out=$(timeout 120 mpirun --oversubscribe -n 16 -x LD_PRELOAD="$PRELOAD" -x GOSSIP_TOPOLOGY=torus:3x3 -x GOSSIP_VERBOSE=1 "$PLAIN" 10 2>&1)
if [ $? = 0 ] && grep -q "all results correct" <<<"$out" && grep -q "falls through to PMPI: torus:3x3 has 9 nodes" <<<"$out"; then pass=$((pass + 1));
else failn=$((failn + 1)); echo "FAIL: drop-in fall-through"; echo "$out" | tail -5; fi
# The revolving hierarchy's applications under mpirun: answers equal the sequential solvers',
# and every rank sends and receives the same number of hierarchy messages.
MR="$(dirname "$GM")/mpi_revolve"
for args in "16 bnb 40 1" "8 bnb 30 3" "16 jacobi 16 1" "4 jacobi 8 2"; do
    set -- $args
    n=$1; shift
    out=$(timeout 120 mpirun --oversubscribe -n "$n" "$MR" "$@" 2>&1)
    if [ $? = 0 ] && grep -q "equal\|converged" <<<"$out" && grep -q "sent \([0-9]*\)\.\.\1, received \1\.\.\1" <<<"$out"; then pass=$((pass + 1));
    else failn=$((failn + 1)); echo "FAIL: mpi_revolve $args"; echo "$out" | tail -3; fi
done
echo "$pass passed, $failn failed"
[ "$failn" = 0 ]
