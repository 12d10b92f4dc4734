#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_mpi_plan.sh — schedules' plans (gsp_mpi_plan_*) run by the runtime's engine on symmetric
# (Cayley) and explicit schedules, register allreduces of three methods; each run checks its
# results against MPI's own collectives (plan_mpi.c). Usage: test_mpi_plan.sh PLAN_MPI
P=$1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
pass=0 failn=0
run() { # N SPEC [METHOD]
    local n=$1; shift
    out=$(timeout 120 mpirun --oversubscribe -n "$n" "$P" "$@" 2>&1)
    if [ $? = 0 ] && grep -q "^plan_mpi $1: ok$" <<<"$out"; then pass=$((pass + 1));
    else failn=$((failn + 1)); echo "FAIL: mpirun -n $n plan_mpi $*"; echo "$out" | tail -5; fi
}
run 2 complete:2
run 5 cycle:5 spectral
run 8 hypercube:3 spectral
run 9 torus:3x3 product
run 6 "product(cycle:3,complete:2)" product
run 10 "file:$(dirname "$0")/../data/petersen.txt" diameter2
run 16 torus:4x4 spectral
echo "$pass passed, $failn failed"
[ "$failn" = 0 ]
