#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/smpi.sh — gossip's exact collectives against every algorithm SimGrid's SMPI ships, on
# simulated networks (all-port, full-duplex links): tori 8x8 and 4x4x4 and the 6-cube, each with
# two link speeds and latencies. Every result is checked (bench/smpi/smpi_bench.c).
#   bench/smpi.sh [PLATFORM ...]      platforms: t88-fast t88-slow t444-fast t444-slow q6-fast q6-slow
#   ONLY=gossip bench/smpi.sh ...     rerun gossip's side only (after a change), keeping SMPI's lines
#   COLLS="bcast" ...                  only these collectives (with ONLY=gossip: replace their lines)
# Writes bench/out/smpi/PLATFORM.txt (one line per run) and prints the summary table
# (bench/smpi_table.sh). Needs libsimgrid-dev (installed with apt-get when missing) and a built
# build/libgossip.a (./dev run builds it). Takes about 10 minutes per platform on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
if ! command -v smpicc >/dev/null; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends libsimgrid-dev >&2
fi
[ -f build/libgossip.a ] || { cmake --preset default >/dev/null && cmake --build --preset default -j "$(nproc)" >/dev/null; }
w=build-smpi
mkdir -p "$w" bench/out/smpi
smpicc -O2 -Iinclude -Ibuild/include -Isrc/mpi bench/smpi/smpi_bench.c src/mpi/mpi_ctx.c src/mpi/mpi_choose.c src/mpi/mpi_engine.c src/mpi/mpi_coll.c src/mpi/mpi_exec.c src/mpi/mpi_plan.c build/libgossip.a \
    -ljansson -lnauty -ligraph -lgsl -llapacke -llapack -lblas -lcadical -lstdc++ -lm -o "$w/smpi_bench" 2>/dev/null
for i in $(seq 0 63); do echo "node-$i"; done >"$w/hosts"

# name topo_parameters gossip-spec bandwidth latency
platforms="t88-fast 8,8 torus:8x8 10GBps 1us
t88-slow 8,8 torus:8x8 1.25GBps 5us
t444-fast 4,4,4 torus:4x4x4 10GBps 1us
t444-slow 4,4,4 torus:4x4x4 1.25GBps 5us
q6-fast 2,2,2,2,2,2 hypercube:6 10GBps 1us
q6-slow 2,2,2,2,2,2 hypercube:6 1.25GBps 5us"
want=("$@")
[ ${#want[@]} -gt 0 ] || want=(t88-fast t88-slow t444-fast t444-slow q6-fast q6-slow)

# SMPI's algorithms per collective ("automatic" times every algorithm itself: left out; the
# smp_* and mvapich2 two-level variants assume several ranks per node and are kept: they run).
algs_allgather="default 2dmesh 3dmesh bruck GB loosely_lr NTSLR NTSLR_NB pair rdb rhv ring SMP_NTS smp_simple spreading_simple ompi ompi_neighborexchange mvapich2 mvapich2_smp mpich impi"
algs_allreduce="default lr rab1 rab2 rab_rdb rdb smp_binomial smp_binomial_pipeline smp_rdb smp_rsag smp_rsag_lr smp_rsag_rab redbcast ompi ompi_ring_segmented mpich mvapich2 mvapich2_rs mvapich2_two_level impi rab"
algs_reduce_scatter="default ompi ompi_basic_recursivehalving ompi_ring ompi_butterfly mpich mpich_pair mpich_rdb mpich_noncomm mvapich2 impi"
algs_bcast="default arrival_pattern_aware arrival_pattern_aware_wait arrival_scatter binomial_tree flattree flattree_pipeline NTSB NTSL NTSL_Isend scatter_LR_allgather scatter_rdb_allgather SMP_binary SMP_binomial SMP_linear ompi ompi_split_bintree ompi_pipeline mpich mvapich2 mvapich2_inter_node mvapich2_intra_node mvapich2_knomial_intra_node impi"

jobs=()
while read -r name params spec bw lat; do
    [[ " ${want[*]} " == *" $name "* ]] || continue
    xml="$w/$name.xml"
    cat >"$xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="$name" topology="TORUS" topo_parameters="$params" prefix="node-" radical="0-63" suffix="" speed="1Gf" bw="$bw" lat="$lat"/>
</platform>
XML
    for coll in ${COLLS:-allgather allreduce reduce-scatter bcast}; do
        cfg=${coll//-/_}
        jobs+=("$name $spec $coll gossip -")
        [ "${ONLY:-}" = gossip ] && continue
        eval "algs=\$algs_$cfg"
        for a in $algs; do jobs+=("$name $spec $coll mpi $a"); done
    done
done <<<"$platforms"

run_one() { # platform spec coll mode alg
    local name=$1 spec=$2 coll=$3 mode=$4 alg=$5 cfg=${3//-/_} extra=()
    [ "$alg" = - ] || extra=(--cfg=smpi/$cfg:$alg)
    # gossip's cost model gets the platform's parameters, as an MPI tuning file would: SMPI
    # doubles a link's latency for small messages and scales the bandwidth by message size;
    # combining costs nothing here (gamma 0: computation is not simulated), and neither does
    # issuing a message (overhead 0); a routed message pays each further link's latency (hop =
    # the link latency, doubled as SMPI does). Blocks are pipelined in segments of 8 KiB.
    # beta by message size: SMPI's default bandwidth factors (smpi/bw-factor) over the link's
    # bandwidth, as a tuning file would give them.
    local a b bw
    case $name in *fast) a=2e-6 bw=1e10 ;; *) a=10e-6 bw=1.25e9 ;; esac
    b=$(awk -v bw=$bw 'BEGIN { n = split("0:0.812084 257:0.338112 732:0.341987 1426:0.608902 3484:0.77493 5776:1.08739 9376:0.58729 15424:0.697866 65472:0.940694", f, " ");
        for (i = 1; i <= n; i++) { split(f[i], q, ":"); printf "%s%s:%.4g", (i > 1 ? "," : ""), q[1], 1 / (bw * q[2]) } }')
    local out sizes=()
    # SMPI's own allgathers of 4 MiB per rank take minutes each to simulate (64 x 64 x 4 MiB of
    # copies); they run on the first platform only, and elsewhere their 1 MiB runs are timed on
    # shared buffers (unchecked). gossip runs every size everywhere, checked up to 1 MiB.
    local shared_from=4194304
    if [ "$coll" = allgather ] && [ "$mode" = mpi ] && [ "$name" != t88-fast ]; then sizes=(8 1024 65536 1048576); shared_from=1048576; fi
    # Local computation is not simulated for either side (SMPI's own reductions cost nothing in
    # simulated time, so gossip's must not either): the comparison is the network's.
    out=$(SMPI_BENCH_SHARED_FROM=$shared_from GOSSIP_ALPHA=$a GOSSIP_BETA=$b GOSSIP_GAMMA=0 GOSSIP_HOP=$a GOSSIP_OVERHEAD=0 GOSSIP_SEGMENT=8192 timeout 300 smpirun -np 64 -platform "$w/$name.xml" -hostfile "$w/hosts" --cfg=smpi/simulate-computation:no \
        "${extra[@]}" "$w/smpi_bench" "$coll" "$spec" "$mode" "${sizes[@]}" 2>/dev/null | grep -E "^$coll (gossip|mpi) ") || true
    [ -n "$out" ] || out="$coll $mode - - failed"
    while read -r line; do echo "$name $alg $line"; done <<<"$out"
}
export -f run_one
export w
for name in "${want[@]}"; do
    if [ "${ONLY:-}" = gossip ]; then
        colls=${COLLS:-allgather allreduce reduce-scatter bcast}
        grep -Ev "^$name - (${colls// /|}) " "bench/out/smpi/$name.txt" >"bench/out/smpi/$name.tmp" || true
        mv "bench/out/smpi/$name.tmp" "bench/out/smpi/$name.txt"
    else
        : >"bench/out/smpi/$name.txt"
    fi
done
printf '%s\n' "${jobs[@]}" | xargs -P "$(nproc)" -L 1 bash -c 'run_one "$0" "$@" >>"bench/out/smpi/$0.txt"'
bash bench/smpi_table.sh "${want[@]}"
