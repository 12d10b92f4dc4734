#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/smpi.sh — gossip's exact collectives against every algorithm SimGrid's SMPI ships, on
# simulated networks (all-port, full-duplex links). Every result is checked
# (bench/smpi/smpi_bench.c).
#   bench/smpi.sh [PLATFORM ...]      platforms (64 ranks): t88-fast t88-slow t444-fast t444-slow
#                                     q6-fast q6-slow (the default); at scale: t1616-fast (16x16
#                                     torus, 256 ranks), t888-fast (8x8x8, 512), t3232-fast (32x32,
#                                     1024), t1616-slow
#   ONLY=gossip|mpi|swing ...         one side only (its lines are replaced, the others kept)
#   COLLS="bcast" ...                 only these collectives
#   ALGS="ring rdb" ...               only these SMPI algorithms (with ONLY=mpi)
#   SIZES="8 65536" ...               only these sizes (at scale; the 64-rank platforms run their five)
#                                     (at scale an allgather's size is its whole output, each rank's
#                                     block size/N, as reduce-scatter's is its input)
#   RESUME=1 ...                      at scale: skip runs that already have a line
# 64 ranks: one smpirun per collective and algorithm, all sizes in it, 300 s each, 2 calls per
# size (the second timed). At scale: one smpirun per collective, algorithm and size (8 B, 64 KiB,
# 1 MiB, 4 MiB), TIMEOUT=600 s of real time per call: SMPI's algorithms and Swing make one call
# (their first call's simulated time is the steady one), gossip two in 2 x TIMEOUT (its first
# call, on a little over half the bytes, plans and agrees on the plan: two small allreduces of
# simulated time; the second is timed). Peak RSS and real time
# of the smpirun recorded (rss_kb=, elapsed=); a run that exceeds the time is recorded as
# "timeout", one whose memory exceeds MEMCAP_GB (default 12) as "memcap" (killed: the machine is
# shared), one that dies as "crashed rc=N". Swing (allreduce only, at scale): Swing's public
# multiport implementation (HLC-Lab/bine_trees_fugaku, lib/libswing.cc at commit 3901d10c),
# compiled unmodified with smpicxx and linked into smpi_bench, from SWING_REPO (a clone of that
# repository; default /work/.mirror/HLC-Lab+bine_trees_fugaku/repo) or build-smpi/libswing.cc.
# Runs are sequential (never two smpirun at once; SMPI_JOBS=2 runs the 64-rank ones two at a time).
# Writes bench/out/smpi/PLATFORM.txt (one line per run and size) and prints the summary table
# (bench/smpi_table.sh). Needs libsimgrid-dev (installed with apt-get when missing) and a built
# build/libgossip.a.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
if ! command -v smpicc >/dev/null; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends libsimgrid-dev >&2
fi
[ -f build/libgossip.a ] || { cmake --preset default >/dev/null && cmake --build --preset default -j1 >/dev/null; }
w=build-smpi
# smpi_bench (and Swing's variant) built against build/libgossip.a: bench/smpi_build.sh.
bench/smpi_build.sh
mkdir -p bench/out/smpi

# name ranks topo_parameters gossip-spec bandwidth latency
platforms="t88-fast 64 8,8 torus:8x8 10GBps 1us
t88-slow 64 8,8 torus:8x8 1.25GBps 5us
t444-fast 64 4,4,4 torus:4x4x4 10GBps 1us
t444-slow 64 4,4,4 torus:4x4x4 1.25GBps 5us
q6-fast 64 2,2,2,2,2,2 hypercube:6 10GBps 1us
q6-slow 64 2,2,2,2,2,2 hypercube:6 1.25GBps 5us
t1616-fast 256 16,16 torus:16x16 10GBps 1us
t888-fast 512 8,8,8 torus:8x8x8 10GBps 1us
t3232-fast 1024 32,32 torus:32x32 10GBps 1us
t1616-slow 256 16,16 torus:16x16 1.25GBps 5us"
want=("$@")
[ ${#want[@]} -gt 0 ] || want=(t88-fast t88-slow t444-fast t444-slow q6-fast q6-slow)

# SMPI's algorithms per collective ("automatic" times every algorithm itself: left out; the
# smp_* and mvapich2 two-level variants assume several ranks per node and are kept: they run).
algs_allgather="default 2dmesh 3dmesh bruck GB loosely_lr NTSLR NTSLR_NB pair rdb rhv ring SMP_NTS smp_simple spreading_simple ompi ompi_neighborexchange mvapich2 mvapich2_smp mpich impi"
algs_allreduce="default lr rab1 rab2 rab_rdb rdb smp_binomial smp_binomial_pipeline smp_rdb smp_rsag smp_rsag_lr smp_rsag_rab redbcast ompi ompi_ring_segmented mpich mvapich2 mvapich2_rs mvapich2_two_level impi rab"
algs_reduce_scatter="default ompi ompi_basic_recursivehalving ompi_ring ompi_butterfly mpich mpich_pair mpich_rdb mpich_noncomm mvapich2 impi"
algs_bcast="default arrival_pattern_aware arrival_pattern_aware_wait arrival_scatter binomial_tree flattree flattree_pipeline NTSB NTSL NTSL_Isend scatter_LR_allgather scatter_rdb_allgather SMP_binary SMP_binomial SMP_linear ompi ompi_split_bintree ompi_pipeline mpich mvapich2 mvapich2_inter_node mvapich2_intra_node mvapich2_knomial_intra_node impi"
# Swing's variants (LIBSWING_ALGO), all multiport (one port per direction of every dimension).
swing_variants=${SWING_VARIANTS:-SWING_B SWING_B_COALESCE SWING_B_CONT SWING_L}

jobs=()
while read -r name n params spec bw lat; do
    [[ " ${want[*]} " == *" $name "* ]] || continue
    xml="$w/$name.xml"
    bench/torus_platform.sh "$name" "$params" "$bw" "$lat" "$w/hosts-$n" >"$xml"
    if [ "$n" -le 64 ]; then sizes=(-); else read -r -a sizes <<<"${SIZES:-8 65536 1048576 4194304}"; fi
    for coll in ${COLLS:-allgather allreduce reduce-scatter bcast}; do
        cfg=${coll//-/_}
        eval "algs=\$algs_$cfg"
        [ -z "${ALGS:-}" ] || algs=$ALGS
        for b in "${sizes[@]}"; do
            [ -n "${ONLY:-}" ] && [ "$ONLY" != gossip ] || jobs+=("$name $n $spec $coll gossip - $b")
        done
        if [ -z "${ONLY:-}" ] || [ "$ONLY" = mpi ]; then
            for a in $algs; do for b in "${sizes[@]}"; do jobs+=("$name $n $spec $coll mpi $a $b"); done; done
        fi
        if [ "$n" -gt 64 ] && [ "$coll" = allreduce ] && { [ -z "${ONLY:-}" ] || [ "$ONLY" = swing ]; }; then
            for v in $swing_variants; do for b in "${sizes[@]}"; do jobs+=("$name $n $spec $coll swing $v $b"); done; done
        fi
    done
done <<<"$platforms"

# The cost model's parameters for a platform: alpha, hop and beta by message size.
cost_env() { # name -> sets a b
    local name=$1 bw lat
    # gossip's cost model gets the platform's parameters, as a tuning file would: SMPI's default
    # network model charges a message of s bytes lat * lat-factor(s) + s / (bw * bw-factor(s))
    # (smpi/lat-factor and smpi/bw-factor, piecewise by size: large messages pay 11.6 times the
    # link's latency, as a rendezvous would), so alpha and beta go by message size with the
    # same breakpoints (measured one message to a neighbour: within 1 % of these). Combining
    # costs nothing here (gamma 0: computation is not simulated), and neither does issuing a
    # message (overhead 0); a routed message pays each further link's latency (hop = the link
    # latency, doubled as SMPI does for small messages).
    case $name in *fast) lat=1e-6 bw=1e10 ;; *) lat=5e-6 bw=1.25e9 ;; esac
    a=$(awk -v lat=$lat 'BEGIN { n = split("0:2.01467 257:1.95341 732:1.9503 1426:1.61075 3484:1.88101 5776:2.18796 9376:2.59299 15424:3.48845 65472:11.6436", f, " ");
        for (i = 1; i <= n; i++) { split(f[i], q, ":"); printf "%s%s:%.4g", (i > 1 ? "," : ""), q[1], lat * q[2] } }')
    hop=$(awk -v lat=$lat 'BEGIN { printf "%.4g", 2 * lat }')
    b=$(awk -v bw=$bw 'BEGIN { n = split("0:0.812084 257:0.338112 732:0.341987 1426:0.608902 3484:0.77493 5776:1.08739 9376:0.58729 15424:0.697866 65472:0.940694", f, " ");
        for (i = 1; i <= n; i++) { split(f[i], q, ":"); printf "%s%s:%.4g", (i > 1 ? "," : ""), q[1], 1 / (bw * q[2]) } }')
}

# 64 ranks: every size in one smpirun (as before).
run_small() { # platform n spec coll mode alg
    local name=$1 n=$2 spec=$3 coll=$4 mode=$5 alg=$6 cfg=${4//-/_} extra=() a b hop
    [ "$alg" = - ] || extra=(--cfg=smpi/$cfg:$alg)
    cost_env "$name"
    local out sizes=()
    # SMPI's own allgathers of 4 MiB per rank take minutes each to simulate (64 x 64 x 4 MiB of
    # copies); they run on the first platform only, and elsewhere their 1 MiB runs are timed on
    # shared buffers (unchecked). gossip runs every size everywhere, checked up to 1 MiB.
    local shared_from=4194304
    if [ "$coll" = allgather ] && [ "$mode" = mpi ] && [ "$name" != t88-fast ]; then sizes=(8 1024 65536 1048576); shared_from=1048576; fi
    # Local computation is not simulated for either side (SMPI's own reductions cost nothing in
    # simulated time, so gossip's must not either): the comparison is the network's.
    out=$(SMPI_BENCH_SHARED_FROM=$shared_from GOSSIP_ALPHA=$a GOSSIP_BETA=$b GOSSIP_GAMMA=0 GOSSIP_HOP=$hop GOSSIP_OVERHEAD=0 timeout 300 smpirun -np 64 -platform "$w/$name.xml" -hostfile "$w/hosts-64" --cfg=smpi/simulate-computation:no \
        "${extra[@]}" "$w/smpi_bench" "$coll" "$spec" "$mode" "${sizes[@]}" 2>/dev/null | grep -E "^$coll (gossip|mpi) ") || true
    [ -n "$out" ] || out="$coll $mode - - failed"
    while read -r line; do echo "$name $alg $line"; done <<<"$out"
}

# At scale: one size per smpirun, with a real-time cap, a memory cap, and its peak RSS.
run_big() { # platform n spec coll mode alg bytes
    local name=$1 n=$2 spec=$3 coll=$4 mode=$5 alg=$6 bytes=$7 cfg=${4//-/_} extra=() envs=() a b hop bin=$w/smpi_bench
    cost_env "$name"
    case $mode in
    mpi) extra=(--cfg=smpi/$cfg:$alg) ;;
    swing) bin=$w/smpi_bench_swing envs=(LIBSWING_ALGO=$alg LIBSWING_MULTIPORT=1 LIBSWING_DIMENSIONS=$(grep "^$name " <<<"$platforms" | awk '{print $3}')) ;;
    esac
    # At scale an allgather's BYTES is its whole output (each rank's block BYTES/N, as for
    # reduce-scatter's input): N blocks of BYTES per rank would not fit, and every result is checked.
    local shared_from=$((1 << 62))
    # gossip: two calls in twice the time. Its first call plans, and agrees on the plan with two
    # small PMPI_Allreduce calls that cost simulated time; it moves a little over half the bytes,
    # the least of gossip's size class, which plans exactly what the second, timed, call runs
    # (SMPI_BENCH_WARMUP=class). SMPI's algorithms and Swing: one call (their first call's time
    # is the steady one).
    local reps=1 lim=${TIMEOUT:-600}
    [ "$mode" != gossip ] || { reps=2 lim=$((2 * lim)); }
    local tf rc=0 cap=$((${MEMCAP_GB:-12} << 20)) peak=0 killed=0 t0=$SECONDS
    tf=$(mktemp -p "$w" run.XXXXXX)
    env "${envs[@]}" SMPI_BENCH_AG_TOTAL=1 SMPI_BENCH_REPS=$reps SMPI_BENCH_WARMUP=class SMPI_BENCH_SHARED_FROM=$shared_from GOSSIP_ALPHA=$a GOSSIP_BETA=$b GOSSIP_GAMMA=0 GOSSIP_HOP=$hop GOSSIP_OVERHEAD=0 \
        timeout --kill-after=10 "$lim" /usr/bin/time -o "$tf.time" -f "%M %e" smpirun -np "$n" -platform "$w/$name.xml" -hostfile "$w/hosts-$n" \
        --cfg=smpi/simulate-computation:no "${extra[@]}" "$bin" "$coll" "$spec" "$mode" "$bytes" >"$tf" 2>"$tf.err" &
    local pid=$!
    # timeout leads its own process group: watch the group's memory.
    while kill -0 "$pid" 2>/dev/null; do
        sleep 1
        local rss
        rss=$(ps -o rss= -p "$(pgrep -d, -g "$pid" || echo "$pid")" 2>/dev/null | awk '{s += $1} END {print s + 0}')
        [ "$rss" -le "$peak" ] || peak=$rss
        if [ "$rss" -gt "$cap" ]; then kill -KILL -- "-$pid" 2>/dev/null || true; killed=1; fi
    done
    wait "$pid" || rc=$?
    local line el=$((SECONDS - t0)) rss_kb=$peak
    line=$(grep -E "^$coll (gossip|mpi|swing) " "$tf" | head -1) || true
    if [ -s "$tf.time" ] && read -r m e < <(tail -1 "$tf.time") && [[ $m =~ ^[0-9]+$ ]]; then rss_kb=$m el=$e; fi
    if [ "$killed" = 1 ]; then line="$coll $mode $bytes - memcap"
    elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        # What the first call gave before the time ran out (smpi_bench's progress on stderr).
        line="$coll $mode $bytes - timeout $(grep -o '^smpi_bench: call 1 .*' "$tf.err" | head -1 | sed 's/^smpi_bench: call 1 /call1_/; s/ / call1_/g')"
    elif [ -z "$line" ]; then line="$coll $mode $bytes - crashed rc=$rc $(grep -v '^\[' "$tf.err" | grep -m1 . | tr -s ' \t' '__' | cut -c1-120)"
    fi
    echo "$name $alg $line rss_kb=$rss_kb elapsed=$el"
    rm -f "$tf" "$tf.time" "$tf.err"
}
export -f run_small run_big cost_env
export w platforms

for name in "${want[@]}"; do
    f=bench/out/smpi/$name.txt
    n=$(grep "^$name " <<<"$platforms" | awk '{print $2}')
    if [ "$n" -gt 64 ]; then touch "$f"; continue; fi
    if [ "${ONLY:-}" = gossip ]; then
        colls=${COLLS:-allgather allreduce reduce-scatter bcast}
        grep -Ev "^$name - (${colls// /|}) " "$f" >"$f.tmp" || true
        mv "$f.tmp" "$f"
    else
        : >"$f"
    fi
done
for j in "${jobs[@]}"; do
    read -r name n spec coll mode alg b <<<"$j"
    [ "$n" -gt 64 ] && continue
    echo "$name $n $spec $coll $mode $alg"
done | xargs -r -P "${SMPI_JOBS:-1}" -L 1 bash -c 'run_small "$0" "$@" >>"bench/out/smpi/$0.txt"'
for j in "${jobs[@]}"; do
    read -r name n spec coll mode alg b <<<"$j"
    [ "$n" -gt 64 ] || continue
    f=bench/out/smpi/$name.txt
    key="$name $alg $coll $mode $b "
    if [ "${RESUME:-}" = 1 ] && grep -q "^$key" "$f"; then continue; fi
    line=$(run_big "$name" "$n" "$spec" "$coll" "$mode" "$alg" "$b")
    # A rerun replaces the line of the same platform, algorithm, collective, mode and size.
    { grep -v "^$key" "$f" || true; echo "$line"; } >"$f.tmp" && mv "$f.tmp" "$f"
    echo "$line" >&2
done
bash bench/smpi_table.sh "${want[@]}"
