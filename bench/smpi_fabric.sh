#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/smpi_fabric.sh — MPI's collectives on fabrics (switches, link capacities) simulated by
# SimGrid SMPI, against the fabric's exact throughput bound: every algorithm SMPI ships for the
# collective, every result checked (bench/smpi/smpi_bench.c), each time beside T* = M / algbw*
# (gossip info FABRIC --json: optimum.COLLECTIVE.algbw_value, GB/s; M the allreduce, reduce-scatter
# or broadcast vector, or the whole allgather output; the broadcast's root is rank 0). The platform is bench/fabric_platform's: compute nodes as hosts,
# switches as routers, a one-way link per arc of its capacity, one latency (LAT, default 1us),
# explicit routes (the widest path through switches, as the fabric's trees route an edge).
# gossip's side ("gossip" lines): its runtime on the fabric (the `fabric-trees` algorithm:
# ranks are the compute nodes), two calls, the second timed, results checked the same way.
#   bench/smpi_fabric.sh [FABRIC ...]      default: dgx:8x2 mi250:2
#   COLLS="allreduce allgather reduce-scatter bcast"  SIZES="1048576 67108864"  ALGS="rab1 ring"  LAT=1us
#   ONLY=gossip|mpi: one side (the file's other lines are kept)
#   FACTORS=1: SMPI's latency and bandwidth factors at 1 (SimGrid's flow model alone: a message
#   pays its route's latency and the links' capacities), into bench/out/smpi_fabric_factors1.txt
#   SMPI_CFG="--cfg=..." more of SimGrid's options for every run of both sides (e.g. a software
#   overhead per MPI_Isend, --cfg=smpi/ois:0:2e-8:0: 20 ns), into bench/out/smpi_fabric_cfg.txt
#   (with FACTORS=1: smpi_fabric_factors1_cfg.txt), the runs without it left alone
# gossip's cost model gets the platform's parameters, as a tuning file would (bench/smpi.sh):
# alpha and beta by message size from SMPI's factor tables (flat with FACTORS=1), alpha for a
# route of two links (2 LAT: GPU to switch to GPU), beta that of the capacities' scale.
# Writes bench/out/smpi_fabric.txt (one line per run) and prints a markdown table per fabric and
# collective: each size's best SMPI algorithm, its time, the bound and the ratio. (smpi_bench
# times allgathers of 4 MiB a rank and more on shared buffers, unchecked, as bench/smpi.sh does.)
# TABLE_ONLY=1 prints the table of the last run without running anything.
set -euo pipefail
cd "$(dirname "$0")/.."
# SMPI_CFG: SimGrid options only, checked before anything runs.
more=()
[ -z "${SMPI_CFG:-}" ] || read -r -a more <<<"$SMPI_CFG"
for o in "${more[@]}"; do
    case $o in --cfg=?*:?*) ;; *) echo "smpi_fabric: SMPI_CFG: '$o' is not --cfg=OPTION:VALUE" >&2; exit 2 ;; esac
done
command -v smpicc >/dev/null || { echo "smpi_fabric: smpicc is missing: apt-get install libsimgrid-dev" >&2; exit 2; }
[ -f build/libgossip.a ] || { echo "smpi_fabric: build/libgossip.a is missing: cmake --build build" >&2; exit 2; }
[ -n "${TABLE_ONLY:-}" ] || bench/smpi_build.sh
[ -x build/bench/fabric_platform ] || { echo "smpi_fabric: build/bench/fabric_platform is missing: cmake --build build" >&2; exit 2; }
fabrics=("$@")
[ ${#fabrics[@]} -gt 0 ] || fabrics=(dgx:8x2 mi250:2)
read -r -a sizes <<<"${SIZES:-1048576 67108864}"
out=bench/out/smpi_fabric.txt
cfg=()
if [ "${FACTORS:-}" = 1 ]; then out=bench/out/smpi_fabric_factors1.txt; cfg=(--cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1); fi
if [ ${#more[@]} -gt 0 ]; then cfg+=("${more[@]}"); out=${out%.txt}_cfg.txt; fi
# gossip's cost model: alpha and beta from LAT and FACTORS.
# shellcheck source=bench/smpi_costs.sh
. bench/smpi_costs.sh
mkdir -p bench/out build-smpi
if [ -z "${TABLE_ONLY:-}" ]; then
if [ -n "${ONLY:-}" ] && [ -f "$out" ]; then
    # Keep the other side's lines of the fabrics, collectives and sizes run again, and every
    # line of the others.
    awk -v only="$ONLY" -v run=" ${fabrics[*]} " -v colls=" ${COLLS:-allreduce allgather reduce-scatter bcast} " -v sz=" ${sizes[*]} " \
        '!index(run, " " $1 " ") || !index(colls, " " $3 " ") || !index(sz, " " $5 " ") || (only == "gossip" ? $4 != "gossip" : $4 == "gossip")' "$out" >"$out.keep"
    mv "$out.keep" "$out"
else : >"$out"; fi
algs_allgather="default 2dmesh 3dmesh bruck GB loosely_lr NTSLR NTSLR_NB pair rdb rhv ring SMP_NTS smp_simple spreading_simple ompi ompi_neighborexchange mvapich2 mvapich2_smp mpich impi"
algs_reduce_scatter="default ompi ompi_basic_recursivehalving ompi_ring ompi_butterfly mpich mpich_pair mpich_rdb mpich_noncomm mvapich2 impi"
algs_bcast="default arrival_pattern_aware arrival_pattern_aware_wait arrival_scatter binomial_tree flattree flattree_pipeline NTSB NTSL NTSL_Isend scatter_LR_allgather scatter_rdb_allgather SMP_binary SMP_binomial SMP_linear ompi ompi_split_bintree ompi_pipeline mpich mvapich2 mvapich2_inter_node mvapich2_intra_node mvapich2_knomial_intra_node impi"
algs_allreduce="default lr rab1 rab2 rab_rdb rdb smp_binomial smp_binomial_pipeline smp_rdb smp_rsag smp_rsag_lr smp_rsag_rab redbcast ompi ompi_ring_segmented mpich mvapich2 mvapich2_rs mvapich2_two_level impi rab"
for f in "${fabrics[@]}"; do
    tag=${f//[:]/-}
    build/bench/fabric_platform "$f" "build-smpi/hosts-$tag" "${LAT:-1us}" >"build-smpi/$tag.xml"
    n=$(wc -l <"build-smpi/hosts-$tag")
    info=$(build/gossip info "$f" --json --no-spectrum --no-rotation)
    for coll in ${COLLS:-allreduce allgather reduce-scatter bcast}; do
        key=${coll//-/_} okey=${coll//-/_}
        [ "$coll" = bcast ] && okey=broadcast
        eval "algs=\${ALGS:-\$algs_$key}"
        bw=$(jq -r ".optimum.$okey.algbw_value" <<<"$info")
        [ "${ONLY:-}" = gossip ] && algs=""
        for a in $algs; do
            # One call per size (SMPI's algorithms need no warm-up: the first call's time is theirs).
            res=$(SMPI_BENCH_AG_TOTAL=1 SMPI_BENCH_REPS=1 timeout 600 smpirun -np "$n" -platform "build-smpi/$tag.xml" -hostfile "build-smpi/hosts-$tag" \
                --cfg=smpi/simulate-computation:no "${cfg[@]}" --cfg=smpi/"$key":"$a" build-smpi/smpi_bench "$coll" "$f" mpi "${sizes[@]}" 2>/dev/null |
                grep "^$coll mpi " || true)
            if [ -z "$res" ]; then echo "$f $n $coll $a - - failed" >>"$out"; continue; fi
            while read -r _ _ bytes us ok _; do
                bound=$(awk -v m="$bytes" -v b="$bw" 'BEGIN { printf "%.3f", m / (b * 1e9) * 1e6 }')
                echo "$f $n $coll $a $bytes $us $ok bound_us=$bound" >>"$out"
            done <<<"$res"
            # A size the run did not reach (stopped by the timeout after the smaller ones): say so.
            for b in "${sizes[@]}"; do
                grep -q "^$coll mpi $b " <<<"$res" || echo "$f $n $coll $a $b - failed" >>"$out"
            done
        done
        [ "${ONLY:-}" = mpi ] && continue
        # gossip: it plans each size first (gsp_mpi_ctx_prepare: SMPI_BENCH_WARMUP=plan), then
        # the one call is the time — the simulated time of a second call after a warm-up, to the
        # nanosecond (tests/mpi/test_smpi.sh), at half the simulation. An hour of real time:
        # SimGrid charges real time per message and request, and mi250:2's 64 MiB allgather in
        # the 15 segments its cost model chooses took 22 min for two calls (2026-11-27).
        res=$(SMPI_BENCH_AG_TOTAL=1 SMPI_BENCH_WARMUP=plan GOSSIP_TUNING=none GOSSIP_ALPHA=$alpha GOSSIP_BETA=$beta GOSSIP_GAMMA=0 GOSSIP_OVERHEAD=0 timeout 3600 \
            smpirun -np "$n" -platform "build-smpi/$tag.xml" -hostfile "build-smpi/hosts-$tag" --cfg=smpi/simulate-computation:no "${cfg[@]}" build-smpi/smpi_bench "$coll" "$f" gossip "${sizes[@]}" 2>/dev/null | grep "^$coll gossip " || true)
        if [ -z "$res" ]; then echo "$f $n $coll gossip - - failed" >>"$out"; continue; fi
        while read -r _ _ bytes us ok _; do
            bound=$(awk -v m="$bytes" -v b="$bw" 'BEGIN { printf "%.3f", m / (b * 1e9) * 1e6 }')
            echo "$f $n $coll gossip $bytes $us $ok bound_us=$bound" >>"$out"
        done <<<"$res"
    done
done
fi
# The table: per fabric, collective and size, gossip and SMPI's fastest algorithm against the bound.
echo "| fabric | ranks | collective | bytes | gossip µs | SMPI's best | µs | bound µs (M / algbw*) | gossip / bound | SMPI's best / bound | SMPI's best / gossip | wrong or failed |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
awk '$4 == "gossip" && ($7 == "ok" || $7 == "unchecked") { k = $1 " " $2 " " $3 " " $5; g[k] = $6; b[k] = $8; seen[k] = 1 }
     $4 != "gossip" && ($7 == "ok" || $7 == "unchecked") { k = $1 " " $2 " " $3 " " $5; seen[k] = 1; b[k] = $8; if (!(k in best) || $6 + 0 < best[k] + 0) { best[k] = $6; alg[k] = $4 } }
     $7 == "unchecked" { k = $1 " " $2 " " $3 " " $5; unch[k] = 1 }
     $7 != "ok" && $7 != "unchecked" { k = $1 " " $2 " " $3 " " $5; bad[k] = bad[k] " " $4 }
     END { for (k in seen) { split(k, f, " "); sub("bound_us=", "", b[k]);
             gs = k in g ? sprintf("%.1f", g[k]) : "-"; gb = k in g ? sprintf("%.2f", g[k] / b[k]) : "-";
             ms = k in best ? sprintf("%.1f", best[k]) : "-"; mb = k in best ? sprintf("%.2f", best[k] / b[k]) : "-";
             mg = (k in best) && (k in g) ? sprintf("%.2f", best[k] / g[k]) : "-";
             printf "| %s | %s | %s | %s | %s | %s%s | %s | %.1f | %s | %s | %s | %s |\n", f[1], f[2], f[3], f[4], gs, alg[k], unch[k] ? " (timed, unchecked)" : "", ms, b[k], gb, mb, mg, bad[k] } }' "$out" | sort
