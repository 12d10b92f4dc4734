#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/smpi_fabric.sh — MPI's collectives on fabrics (switches, link capacities) simulated by
# SimGrid SMPI, against the fabric's exact throughput bound: every algorithm SMPI ships for the
# collective, every result checked (bench/smpi/smpi_bench.c), each time beside T* = M / algbw*
# (gossip info FABRIC --json: optimum.COLLECTIVE.algbw_value, GB/s; M the allreduce vector or
# the whole allgather output). The platform is bench/fabric_platform's: compute nodes as hosts,
# switches as routers, a one-way link per arc of its capacity, one latency (LAT, default 1us),
# shortest routes. This is the yardstick side of issue 24 item 5: gossip's runtime does not run
# fabric plans yet (gsp_mpi_ctx_create refuses fabrics), so there is no gossip line.
#   bench/smpi_fabric.sh [FABRIC ...]      default: dgx:8x2 mi250:2
#   COLLS="allreduce allgather"  SIZES="1048576 67108864"  ALGS="rab1 ring"  LAT=1us
# Writes bench/out/smpi_fabric.txt (one line per run) and prints a markdown table per fabric and
# collective: each size's best SMPI algorithm, its time, the bound and the ratio. (smpi_bench
# times allgathers of 4 MiB a rank and more on shared buffers, unchecked, as bench/smpi.sh does.)
# TABLE_ONLY=1 prints the table of the last run without running anything.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build-smpi/smpi_bench ] || { echo "smpi_fabric: build-smpi/smpi_bench is missing: run bench/smpi.sh once (it builds it)" >&2; exit 2; }
[ -x build/bench/fabric_platform ] || { echo "smpi_fabric: build/bench/fabric_platform is missing: cmake --build build" >&2; exit 2; }
fabrics=("$@")
[ ${#fabrics[@]} -gt 0 ] || fabrics=(dgx:8x2 mi250:2)
read -r -a sizes <<<"${SIZES:-1048576 67108864}"
out=bench/out/smpi_fabric.txt
mkdir -p bench/out build-smpi
if [ -z "${TABLE_ONLY:-}" ]; then
: >"$out"
algs_allgather="default 2dmesh 3dmesh bruck GB loosely_lr NTSLR NTSLR_NB pair rdb rhv ring SMP_NTS smp_simple spreading_simple ompi ompi_neighborexchange mvapich2 mvapich2_smp mpich impi"
algs_allreduce="default lr rab1 rab2 rab_rdb rdb smp_binomial smp_binomial_pipeline smp_rdb smp_rsag smp_rsag_lr smp_rsag_rab redbcast ompi ompi_ring_segmented mpich mvapich2 mvapich2_rs mvapich2_two_level impi rab"
for f in "${fabrics[@]}"; do
    tag=${f//[:]/-}
    build/bench/fabric_platform "$f" "build-smpi/hosts-$tag" "${LAT:-1us}" >"build-smpi/$tag.xml"
    n=$(wc -l <"build-smpi/hosts-$tag")
    info=$(build/gossip info "$f" --json --no-spectrum --no-rotation)
    for coll in ${COLLS:-allreduce allgather}; do
        key=${coll//-/_}
        eval "algs=\${ALGS:-\$algs_$key}"
        bw=$(jq -r ".optimum.$key.algbw_value" <<<"$info")
        for a in $algs; do
            # One call per size (SMPI's algorithms need no warm-up: the first call's time is theirs).
            res=$(SMPI_BENCH_AG_TOTAL=1 SMPI_BENCH_REPS=1 timeout 600 smpirun -np "$n" -platform "build-smpi/$tag.xml" -hostfile "build-smpi/hosts-$tag" \
                --cfg=smpi/simulate-computation:no --cfg=smpi/"$key":"$a" build-smpi/smpi_bench "$coll" "$f" mpi "${sizes[@]}" 2>/dev/null |
                grep "^$coll mpi " || true)
            if [ -z "$res" ]; then echo "$f $n $coll $a - - failed" >>"$out"; continue; fi
            while read -r _ _ bytes us ok _; do
                bound=$(awk -v m="$bytes" -v b="$bw" 'BEGIN { printf "%.3f", m / (b * 1e9) * 1e6 }')
                echo "$f $n $coll $a $bytes $us $ok bound_us=$bound" >>"$out"
            done <<<"$res"
        done
    done
done
fi
# The table: per fabric, collective and size, SMPI's fastest algorithm against the bound.
echo "| fabric | ranks | collective | bytes | SMPI's best | µs | bound µs (M / algbw*) | best / bound | wrong or failed |"
echo "|---|---|---|---|---|---|---|---|---|"
awk '$7 == "ok" || $7 == "unchecked" { k = $1 " " $2 " " $3 " " $5; if (!(k in best) || $6 + 0 < best[k] + 0) { best[k] = $6; alg[k] = $4; b[k] = $8 } }
     $7 == "unchecked" { k = $1 " " $2 " " $3 " " $5; unch[k] = 1 }
     $7 != "ok" && $7 != "unchecked" { k = $1 " " $2 " " $3 " " $5; bad[k] = bad[k] " " $4 }
     END { for (k in best) { split(k, f, " "); sub("bound_us=", "", b[k]);
             printf "| %s | %s | %s | %s | %s%s | %.1f | %.1f | %.2f | %s |\n", f[1], f[2], f[3], f[4], alg[k], unch[k] ? " (timed, unchecked)" : "", best[k], b[k], best[k] / b[k], bad[k] } }' "$out" | sort
