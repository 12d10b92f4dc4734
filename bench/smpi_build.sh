#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/smpi_build.sh — builds build-smpi/smpi_bench (bench/smpi/smpi_bench.c with the runtime's
# MPI sources compiled by smpicc, linked to build/libgossip.a) and, when Swing's repository is
# at hand, build-smpi/smpi_bench_swing; used by bench/smpi.sh and bench/smpi_fabric.sh, run
# again after every change of the library. Needs smpicc (libsimgrid-dev) and build/libgossip.a.
#   SMPI_BUILD_DIR=DIR (default build-smpi)  GOSSIP_BUILD=DIR (default build: its libgossip.a and
#   include/)  NO_SWING=1: no Swing build (tests/mpi/test_smpi.sh uses all three)  TRACE=1: also
#   smpi_bench_trace, which logs every request (bench/smpi_trace.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
w=${SMPI_BUILD_DIR:-build-smpi}
b=${GOSSIP_BUILD:-build}
mkdir -p "$w"
# planmem.c (plain cc: smpicc would map its clock to simulated time) counts the library's
# allocations and planning time per rank through -Wl,--wrap (no library source touched).
wrap=$(printf -- '-Wl,--wrap=%s ' gsp_malloc gsp_calloc gsp_realloc gsp_free gsp_strdup gsp_alloc_array gsp_topo_from_spec \
    gsp_vertex_transitive gsp_distances gsp_rt_algos gsp_rt_choose_build gsp_rt_realize gsp_rt_program)
libs=(-ljansson -lnauty -ligraph -lgsl -llapacke -llapack -lblas -lcadical -lstdc++ -lm)
cc -O2 -Iinclude -I"$b/include" -c bench/smpi/planmem.c -o "$w/planmem.o"
srcs=(bench/smpi/smpi_bench.c src/mpi/mpi_ctx.c src/mpi/mpi_choose.c src/mpi/mpi_engine.c src/mpi/mpi_coll.c src/mpi/mpi_tuning.c src/mpi/mpi_calibrate.c src/mpi/mpi_exec.c src/mpi/mpi_plan.c)
objs=("$w/smpi_bench.o" "$w/planmem.o")
for src in "${srcs[@]}"; do
    o=$w/$(basename "$src" .c).o
    smpicc -O2 -Iinclude -I"$b/include" -Isrc/mpi -c "$src" -o "$o" 2>/dev/null
    [ "$o" = "$w/smpi_bench.o" ] || objs+=("$o")
done
# Linked aside and renamed: a simulation may be running the old binary.
smpicc "${objs[@]}" "$b/libgossip.a" $wrap "${libs[@]}" -o "$w/smpi_bench.new" 2>/dev/null
mv -f "$w/smpi_bench.new" "$w/smpi_bench"

# TRACE=1: also smpi_bench_trace, the runtime's sources compiled with bench/smpi/trace_shim.h
# force-included, so that every request they post is logged (bench/smpi_trace.sh).
if [ -n "${TRACE:-}" ]; then
    mkdir -p "$w/trace"
    tobjs=("$w/planmem.o" "$w/trace/trace_shim.o")
    smpicc -O2 -c bench/smpi/trace_shim.c -o "$w/trace/trace_shim.o" 2>/dev/null
    for src in "${srcs[@]}"; do
        o=$w/trace/$(basename "$src" .c).o
        smpicc -O2 -include bench/smpi/trace_shim.h -Iinclude -I"$b/include" -Isrc/mpi -c "$src" -o "$o" 2>/dev/null
        tobjs+=("$o")
    done
    smpicc "${tobjs[@]}" "$b/libgossip.a" $wrap "${libs[@]}" -o "$w/smpi_bench_trace.new" 2>/dev/null
    mv -f "$w/smpi_bench_trace.new" "$w/smpi_bench_trace"
fi

# Swing's public multiport implementation as a yardstick: lib/libswing.cc of HLC-Lab/bine_trees_fugaku
# at 3901d10c, unmodified, compiled with smpicxx; its MPI_Allreduce replaces SMPI's in smpi_bench_swing.
swing_commit=3901d10c38de23b82d0d5c6b94b8b461cb4da4fc
SWING_REPO=${SWING_REPO:-/work/.mirror/HLC-Lab+bine_trees_fugaku/repo}
[ -z "${NO_SWING:-}" ] || exit 0
if [ ! -f "$w/libswing.cc" ] && [ -d "$SWING_REPO" ]; then
    git -C "$SWING_REPO" show "$swing_commit:lib/libswing.cc" >"$w/libswing.cc" 2>/dev/null || rm -f "$w/libswing.cc"
fi
if [ -f "$w/libswing.cc" ]; then
    smpicxx -O3 -DLOCAL -c -fPIC "$w/libswing.cc" -o "$w/libswing.o" 2>/dev/null &&
        smpicxx "${objs[@]}" "$w/libswing.o" "$b/libgossip.a" $wrap "${libs[@]}" -o "$w/smpi_bench_swing.new" 2>/dev/null &&
        mv -f "$w/smpi_bench_swing.new" "$w/smpi_bench_swing" || true
fi
