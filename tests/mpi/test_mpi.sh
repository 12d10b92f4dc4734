#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_mpi.sh — gossip's exact runtime run for real with Debian's Open MPI: results identical to
# MPI's own collectives (reductions: equal to the standard's wrap-around result, the same bits on
# every rank) on 2 to 16 ranks, every collective and every runtime algorithm, several datatypes
# and counts including 0 and large; and the PMPI drop-in under two unmodified programs, one of
# them checking exactness and MPI conformance (exact_mpi.c).
# Usage: test_mpi.sh GOSSIP_MPI PLAIN_MPI LIBGOSSIP_PMPI EXACT_MPI DROPIN_MPI
GM=$1
PLAIN=$2
PRELOAD=$3
EXACT=$4
DROPIN=$5
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# The defaults, whatever tuning file this machine has (the calibration checks below set their own).
export GOSSIP_TUNING=none
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
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
    run "$n" reduce-scatter "$spec" --count 37 --type int --reps 1
    run "$n" reduce "$spec" --count 100 --type double --root $((n / 2)) --reps 1
    run "$n" broadcast "$spec" --count 100 --type float --root $((n - 1)) --reps 1
done
# Every runtime algorithm, forced, with counts that do not divide into N blocks.
for a in packet flood rings swing; do run 16 allgather torus:4x4 --count 333 --algorithm $a --reps 1; run 16 reduce-scatter torus:4x4 --count 333 --algorithm $a --reps 1; done
# Swing (distance-halving peers): routed partners on an 8-ring, sides of 2 (one part a
# dimension), the 3-cube; counts that do not divide into the parts.
for c in 1 7 1001; do
    run 16 allreduce torus:8x2 --count $c --algorithm swing --reps 1
    run 8 allreduce hypercube:3 --count $c --algorithm swing --reps 1 --type int
done
run 16 allgather torus:8x2 --count 33 --algorithm swing --reps 1
run 16 reduce-scatter torus:2x8 --count 33 --algorithm swing --reps 1 --type float
# The rings on tori of sides 2 and 3 (parts of a side-2 dimension share its one arc), counts
# smaller than the parts, and the hypercube (multiport recursive halving and doubling).
for c in 1 5 1001; do
    run 12 allreduce torus:2x3x2 --count $c --algorithm rings --reps 1
    run 12 allgather torus:2x3x2 --count $c --algorithm rings --type int --reps 1
    run 8 reduce-scatter hypercube:3 --count $c --algorithm rings --type int --op max --reps 1
done
run 16 allreduce torus:4x4 --count 1001 --algorithm rings --reps 1
# Recursive doubling and halving: the hypercube (neighbours), a power-of-two torus (routed),
# whole vectors combined in place while copies fly (segments too).
for c in 1 1001; do
    for coll in allreduce allgather reduce-scatter; do
        run 8 $coll hypercube:3 --count $c --algorithm doubling --reps 2
        op=(--op max) # --op applies to the reductions only: given to allgather it is refused
        [ $coll = allgather ] && op=()
        run 16 $coll torus:4x4 --count $c --algorithm doubling --type int "${op[@]}" --reps 1
    done
done
run 8 allreduce hypercube:3 --count 100003 --algorithm doubling --reps 2 --segment 4096
for a in rs-ag rs-ag-flood gather tree; do run 16 allreduce torus:4x4 --count 1001 --algorithm $a --reps 1; run 13 allreduce optcirc:13 --count 5 --algorithm $a --type int --op max --reps 1; done
for a in tree flat dims scatter-allgather multitree rings; do run 16 broadcast torus:4x4 --count 100003 --algorithm $a --root 6 --reps 1; run 8 broadcast hypercube:3 --count 3 --algorithm $a --root 5 --reps 1; done
for a in tree flat dims rs-gather multitree rings; do run 16 reduce torus:4x4 --count 1001 --algorithm $a --root 9 --reps 1; run 6 reduce torus:6 --count 2 --algorithm $a --root 1 --reps 1; done
run 16 allgather torus:4x4 --count 0 --reps 1
run 16 allgather torus:4x4 --count 1 --type int8 --reps 1
run 16 allgather torus:4x4 --count 65536 --type double --reps 1
run 16 allreduce torus:4x4 --count 100000 --type float --reps 1
run 16 allreduce torus:4x4 --count 1000 --type int16 --reps 1
run 16 allreduce torus:4x4 --count 1000 --type int8 --op prod --reps 1
run 16 allreduce torus:4x4 --count 1000 --type double --reps 1 --alpha 1e-3
run 16 allreduce torus:4x4 --count 100 --method balanced-search --reps 1
run 12 allreduce torus:3x4 --count 500 --type int --op max --reps 1
run 8 broadcast hypercube:3 --count 0 --reps 1
# The drop-in: an unmodified program, intercepted (the verbose notes say so), results correct.
out=$(timeout 120 mpirun --oversubscribe -n 16 -x LD_PRELOAD="$PRELOAD" -x GOSSIP_TOPOLOGY=torus:4x4 -x GOSSIP_VERBOSE=1 "$PLAIN" 1000 2>&1)
if [ $? = 0 ] && grep -q "all results correct" <<<"$out" && grep -q "MPI_Allgather by gossip" <<<"$out" &&
    grep -q "MPI_Allreduce by gossip" <<<"$out" && grep -q "MPI_Bcast by gossip" <<<"$out"; then pass=$((pass + 1));
else failn=$((failn + 1)); echo "FAIL: drop-in on torus:4x4"; echo "$out" | tail -5; fi
# A topology of the wrong size falls through to MPI's own, with a note, and stays correct.
out=$(timeout 120 mpirun --oversubscribe -n 16 -x LD_PRELOAD="$PRELOAD" -x GOSSIP_TOPOLOGY=torus:3x3 "$PLAIN" 10 2>&1)
if [ $? = 0 ] && grep -q "all results correct" <<<"$out" && grep -q "GOSSIP_TOPOLOGY=torus:3x3 is not usable here (torus:3x3 has 9 nodes" <<<"$out"; then pass=$((pass + 1));
else failn=$((failn + 1)); echo "FAIL: drop-in fall-through"; echo "$out" | tail -5; fi
# Exactness and conformance through the drop-in (exact_mpi.c): on every topology of the tier,
# with the cost model's choices and with each algorithm forced; MPI's own first, as a control.
# EXACT_FLAGS=--no-growth leaves out exact_mpi's repeated calls (its section 12, most of a run's
# time on fabrics and at large counts: 48 of 55 s for the shallow trees on torus:2x4@1,2); each
# configuration keeps them in one run.
exact() { # N SPEC [ENV...]
    local n=$1 spec=$2; shift 2
    local envs=()
    for e in "$@"; do envs+=(-x "$e"); done
    out=$(timeout 300 mpirun --oversubscribe -n "$n" -x LD_PRELOAD="$PRELOAD" -x GOSSIP_TOPOLOGY="$spec" "${envs[@]}" "$EXACT" "${EXACT_COUNT:-1000}" ${EXACT_FLAGS:-} 2>&1)
    if [ $? = 0 ] && grep -q "every check passed" <<<"$out"; then pass=$((pass + 1));
    else failn=$((failn + 1)); echo "FAIL: exact_mpi on $spec $* (count ${EXACT_COUNT:-1000})"; grep -m5 FAIL <<<"$out"; fi
}
out=$(timeout 120 mpirun --oversubscribe -n 4 "$EXACT" 1000 2>&1)
if [ $? = 0 ] && grep -q "every check passed" <<<"$out"; then pass=$((pass + 1)); else failn=$((failn + 1)); echo "FAIL: exact_mpi without gossip"; fi
for t in "16 torus:4x4" "8 hypercube:3" "13 optcirc:13" "6 cycle:6" "2 complete:2" "12 torus:3x4" "10 petersen_file"; do
    set -- $t
    spec=$2
    [ "$spec" = petersen_file ] && spec="file:$(dirname "$0")/../data/petersen.txt"
    exact "$1" "$spec"
done
exact 16 torus:4x4 GOSSIP_ALGORITHM=allreduce=tree,bcast=scatter-allgather,reduce=rs-gather,allgather=flood,reduce-scatter=flood
exact 13 optcirc:13 GOSSIP_ALGORITHM=allreduce=gather,bcast=tree,reduce=tree
exact 16 torus:4x4 GOSSIP_ALGORITHM=bcast=multitree,reduce=multitree
exact 12 torus:3x4 GOSSIP_ALGORITHM=bcast=dims,reduce=dims
exact 12 torus:3x4 GOSSIP_ALGORITHM=allreduce=rings,allgather=rings,reduce-scatter=rings,bcast=rings,reduce=rings
exact 8 hypercube:3 GOSSIP_ALGORITHM=allreduce=rings,allgather=rings,reduce-scatter=rings GOSSIP_SEGMENT=64
exact 16 torus:4x4 GOSSIP_ALGORITHM=allreduce=doubling,allgather=doubling,reduce-scatter=doubling
# Swing under both cost models, with segments: routed partners on the 8-ring, the 3-cube.
exact 16 torus:8x2 GOSSIP_ALGORITHM=allreduce=swing,allgather=swing,reduce-scatter=swing GOSSIP_SHARED_MEMORY=0 GOSSIP_SEGMENT=64
exact 8 hypercube:3 GOSSIP_ALGORITHM=allreduce=swing,allgather=swing,reduce-scatter=swing GOSSIP_SHARED_MEMORY=1
exact 10 "file:$(dirname "$0")/../data/petersen.txt" GOSSIP_ALGORITHM=bcast=flat,reduce=flat
exact 10 "file:$(dirname "$0")/../data/petersen.txt" GOSSIP_ALGORITHM=bcast=multitree,reduce=multitree GOSSIP_SEGMENT=512
exact 8 hypercube:3 GOSSIP_ALGORITHM=allreduce=rs-ag-flood GOSSIP_METHOD=greedy
# What real programs do (dropin_mpi.c): the same bytes in different datatypes on different
# ranks, invalid (op, datatype) pairs returning MPI's class through the communicator's handler
# and leaving it usable — under both cost models, with segments, and with the algorithms that
# split buffers forced.
dropin() { # N SPEC [ENV...]
    local n=$1 spec=$2; shift 2
    local envs=()
    for e in "$@"; do envs+=(-x "$e"); done
    out=$(timeout 300 mpirun --oversubscribe -n "$n" -x LD_PRELOAD="$PRELOAD" -x GOSSIP_TOPOLOGY="$spec" "${envs[@]}" "$DROPIN" 5000 2>&1)
    if [ $? = 0 ] && grep -q "every check passed" <<<"$out"; then pass=$((pass + 1));
    else failn=$((failn + 1)); echo "FAIL: dropin_mpi on $spec $*"; grep -m5 "FAIL\|MPI_ERR" <<<"$out"; fi
}
dropin 16 torus:4x4 GOSSIP_SHARED_MEMORY=0
dropin 16 torus:4x4 GOSSIP_SHARED_MEMORY=1
dropin 16 torus:4x4 GOSSIP_SEGMENT=8192
dropin 16 torus:4x4 GOSSIP_SEGMENT=8192 GOSSIP_ALGORITHM=bcast=multitree,allgather=rings
dropin 16 torus:4x4 GOSSIP_SHARED_MEMORY=0 GOSSIP_ALGORITHM=bcast=scatter-allgather,allgather=packet
dropin 12 torus:3x4 GOSSIP_ALGORITHM=bcast=rings,allreduce=rings,reduce=rings,allgather=rings
dropin 8 hypercube:3 GOSSIP_SHARED_MEMORY=0 GOSSIP_SEGMENT=1024
# Fabrics (switches, link capacities: a DGX-like pair of boxes, a fat tree, an MI250 box, a
# fabric file): the ranks are the compute nodes and the runtime runs the trees that reach the
# throughput optimum, pipelined (fabric-trees); counts that do not divide into the trees'
# parts, every collective, against MPI's own; and through the drop-in, exactness and what real
# programs do. Reduce is not planned on fabrics: MPI's own runs it (correct either way).
for c in 1 333 100003; do
    for coll in allgather allreduce reduce-scatter; do run 8 $coll dgx:4x2 --count $c --type int --reps 2; done
    run 8 broadcast dgx:4x2 --count $c --root 5 --reps 2
done
for coll in allgather allreduce reduce-scatter; do run 8 $coll fattree:2x4 --count 1001 --reps 1; done
run 8 broadcast fattree:2x4 --count 1001 --root 7 --reps 1
run 16 allreduce mi250:1 --count 4099 --reps 1
run 3 allreduce "file:$(dirname "$0")/../data/fabric.txt" --count 100 --type int --op max --reps 2
exact 8 dgx:4x2
exact 8 dgx:4x2 GOSSIP_SHARED_MEMORY=0 GOSSIP_SEGMENT=512
# Blocks of 100 KB: the allgather on the boxes' trees in 5 staggered lanes, 3 in flight per edge, the
# reduce-scatter's in 6, 2 in flight, the allreduce's two phases fused in 5, 2 in flight
# (mpi_engine.c: box_lanes, run_fused), under both link models; under the shared-memory one
# (GOSSIP_SHARED_MEMORY=1) the fused lanes are long beside its latency and go one in flight
# (mpi_coll.c: one_in_flight).
# Only the first run makes exact_mpi's repeated calls, here and in every block below (EXACT_FLAGS).
f=""
for m in "GOSSIP_SHARED_MEMORY=0" "GOSSIP_SHARED_MEMORY=1"; do EXACT_FLAGS=$f EXACT_COUNT=100000 exact 8 dgx:4x2 "$m"; f=--no-growth; done
# Chunked streams (mpi_engine.c): a cost model whose 5776-9375-byte band moves a byte at half the
# cost of larger messages (as SimGrid SMPI's defaults do, 1.087 against 0.94 of a link) sends the
# NICs' messages as streams of chunks of that band, in flight together about 128 a rank (8 to 64 a stream), and keeps the
# NVLinks' whole (a chunk's latency there needs more in flight than a stream keeps); the
# receivers absorb a message once all its chunks are in (12,000 chunks a rank in the first run,
# 27,000 in the second, counted when the runs made exact_mpi's repeated calls). dgx:4x2's cut is its
# boxes' NICs, so an allgather's and an allreduce's store phases cut their chunks in two sizes in
# turn (mpi_engine.c: UNEVEN_SHORT), and the reduce-scatter's and the allreduce's in-trees take
# the fill: counted by a temporary print (session 39, without the repeated calls), 16 phases with
# uneven chunks and 48 with the fill over the ranks, under either link model.
for m in "GOSSIP_SHARED_MEMORY=0" "GOSSIP_SHARED_MEMORY=1"; do
    EXACT_FLAGS=--no-growth EXACT_COUNT=100000 exact 8 dgx:4x2 "$m" GOSSIP_ALPHA=2e-6 GOSSIP_BETA=0:1e-10,5776:5e-11,9376:1e-10
done
# Uneven chunks in more lanes (mpi_engine.c: uneven_lanes): a band of 500-799 bytes at 0.1 us
# cuts the store phases' blocks (100 KB and more) in 9 lanes of at least 16 mean chunks, 3 in
# flight, and the reduce phases take the fill. Counted by a temporary print (session 39, without
# the repeated calls): 32 such layouts, 120 phases with uneven chunks, 136 with the fill. One link
# model: the cost model given, both take the same paths (the same counts under
# GOSSIP_SHARED_MEMORY=1 when this was written).
EXACT_FLAGS=--no-growth EXACT_COUNT=100000 exact 8 dgx:4x2 GOSSIP_SHARED_MEMORY=0 GOSSIP_ALPHA=1e-7 GOSSIP_BETA=0:1e-10,500:5e-11,800:1e-10
# The drain (mpi_engine.c: DRAIN_LANES): with 60 GB/s NICs a GPU's NVLink and NIC bind the
# allgather (dgx:4x2:nic=60's cut), so the store phases of the allgather and the allreduce stream
# their last two lanes on every route, the NVLinks' too, and the NICs' messages stream in every
# lane (a 1000-3999-byte band, 0.5 us latency: a NIC route is slow, an NVLink fast). The
# reduce-scatter's and the allreduce's in-trees (two levels, turns taken) take the fill too: every
# message a relay passes on streams (16 streamed sends a rank in each such phase, 12 of them the
# fill's, counted when this was written). Counted by a temporary print (session 39, without the
# repeated calls): 32 phases with the drain and 48 with the fill over the ranks, each link model.
for m in "GOSSIP_SHARED_MEMORY=0" "GOSSIP_SHARED_MEMORY=1"; do
    EXACT_FLAGS=--no-growth EXACT_COUNT=100000 exact 8 dgx:4x2:nic=60 "$m" GOSSIP_ALPHA=5e-7 GOSSIP_BETA=0:1e-10,1000:5e-11,4000:1e-10
done
# The shallow trees (fabric-shallow: where compute nodes have links between them), forced: the
# same exactness through the same engine.
f=""
for m in "GOSSIP_SHARED_MEMORY=0" "GOSSIP_SHARED_MEMORY=1" "GOSSIP_SEGMENT=512"; do
    EXACT_FLAGS=$f exact 8 "torus:2x4@1,2" "$m" GOSSIP_ALGORITHM=allreduce=fabric-shallow,allgather=fabric-shallow,reduce-scatter=fabric-shallow,bcast=fabric-shallow
    f=--no-growth
done
# The ring trees (fabric-rings: Hamiltonian rings of a box of linked compute nodes), forced on
# the same torus with capacities (no broadcast: MPI's own runs it there).
f=""
for m in "GOSSIP_SHARED_MEMORY=0" "GOSSIP_SHARED_MEMORY=1" "GOSSIP_SEGMENT=512"; do
    EXACT_FLAGS=$f exact 8 "torus:2x4@1,2" "$m" GOSSIP_ALGORITHM=allreduce=fabric-rings,allgather=fabric-rings,reduce-scatter=fabric-rings
    f=--no-growth
done
# Cross first (mpi_engine.c): two boxes of six GPUs on rings of fast links, a slow NIC each into one
# switch (tests/data/rings-2x6.txt), the ring trees forced (4 levels deep, turns taken); a band of
# 1000-3999 bytes at half the cost streams every lane of the reduce-scatter's in-trees on every
# route, on each arc the sums with a NIC still to cross (FEEDS) issued before any other. Counted
# by a temporary print (session 39): every rank's reduce-scatter ran cross first in 64 lanes, its
# 3 arcs each with FEEDS sends (6 FEEDS sends, 5 others a lane, each held until its arc's FEEDS
# were all issued); the allreduce's first phase in 6 lanes (count 100000, --no-shared-memory;
# count 77777 under --shared-memory: 52 lanes, 5). The allgather's store phase on the same trees
# (deep) keeps four chunks in flight on each stream of a slow route instead of its share of 128
# (mpi_engine.c: the deep window; every route is slow under this band): counted by a temporary
# print (session 41), every rank's allgather in 8 lanes (count 100000) and 7 (77777), 11 streams
# at 4 in flight instead of 12; there its relays pass each streamed block on chunk by chunk as it
# arrives (mpi_engine.c: cut-through; a temporary print, session 42: lanes started so on every
# rank, under both link models and with --segment 4096 below).
for t in "--no-shared-memory 100000" "--shared-memory 77777"; do
    set -- $t
    for coll in reduce-scatter allreduce allgather; do
        run 12 $coll "file:$(dirname "$0")/../data/rings-2x6.txt" --algorithm fabric-rings "$1" --alpha 5e-7 \
            --beta 0:1e-10,1000:5e-11,4000:1e-10 --count "$2" --type double --reps 1
    done
done
# A latency of 1e-6 makes the rings' links fast routes for the band's chunks (the NICs stay slow):
# the reduce-scatter's in-trees then keep four chunks in flight on each fast stream (mpi_engine.c:
# the deep reduce window). Counted by a temporary print (session 43): every rank's reduce-scatter
# with 10 of its 11 streams at 4 instead of 64, in 64 lanes (100000) and 52 (77777), and 152 with
# --segment 4096; the allreduce's first phase alike (6 and 5 lanes), its second not. There the
# relays sum each chunk as it arrives and pass the sums on chunk by chunk (mpi_engine.c: the
# reduce cut-through): counted by a temporary print (session 55), on every rank in five of these
# six runs (not the allreduce with --segment 4096). So, in the same five, does the ENDS window (its
# ENDS sends held until the rank's first chunk over a NIC is in: session 60, a temporary print).
for t in "--no-shared-memory 100000" "--shared-memory 77777" "--segment=4096 77777"; do
    set -- $t
    for coll in reduce-scatter allreduce; do
        run 12 $coll "file:$(dirname "$0")/../data/rings-2x6.txt" --algorithm fabric-rings ${1/=/ } --alpha 1e-6 \
            --beta 0:1e-10,1000:5e-11,4000:1e-10 --count "$2" --type double --reps 1
    done
done
# With segments set (GOSSIP_SEGMENT, --segment), cross first keeps them (mpi_engine.c: cross_lanes),
# and the allgather keeps them with its deep window (a temporary print, session 41: 152 lanes,
# 11 streams, the NIC's at 4 in flight).
for coll in reduce-scatter allreduce allgather; do
    run 12 $coll "file:$(dirname "$0")/../data/rings-2x6.txt" --algorithm fabric-rings --segment 4096 --alpha 5e-7 \
        --beta 0:1e-10,1000:5e-11,4000:1e-10 --count 77777 --type double --reps 1
done
# The optimal packing on an 8-ring with capacities (4 deep for the allgather, 7 for the broadcast,
# whose trees then run a tree per part), forced: the same exactness.
f=""
for m in "GOSSIP_SHARED_MEMORY=0" "GOSSIP_SHARED_MEMORY=1" "GOSSIP_SEGMENT=512"; do
    EXACT_FLAGS=$f exact 8 "cycle:8@1" "$m" GOSSIP_ALGORITHM=allreduce=fabric-trees,allgather=fabric-trees,reduce-scatter=fabric-trees,bcast=fabric-trees
    f=--no-growth
done
dropin 8 dgx:4x2
dropin 8 fattree:2x4 GOSSIP_SEGMENT=8192
# A fabric of another number of compute nodes falls through to MPI's own, with a note.
out=$(timeout 120 mpirun --oversubscribe -n 8 -x LD_PRELOAD="$PRELOAD" -x GOSSIP_TOPOLOGY=dgx:8x2 "$PLAIN" 10 2>&1)
if [ $? = 0 ] && grep -q "all results correct" <<<"$out" && grep -q "dgx:8x2 has 16 compute nodes but the communicator has 8 ranks" <<<"$out"; then pass=$((pass + 1));
else failn=$((failn + 1)); echo "FAIL: drop-in fall-through on a fabric"; echo "$out" | tail -5; fi
# The link model's choices (the ranks here share one node, so the shared-memory model is the
# default): forced back, through the drop-in.
exact 16 torus:4x4 GOSSIP_SHARED_MEMORY=0
exact 12 torus:3x4 GOSSIP_SHARED_MEMORY=0 GOSSIP_ALPHA=1e-5
exact 8 hypercube:3 GOSSIP_SHARED_MEMORY=0
exact 13 optcirc:13 GOSSIP_SHARED_MEMORY=0 GOSSIP_SEGMENT=512
exact 10 "file:$(dirname "$0")/../data/petersen.txt" GOSSIP_SHARED_MEMORY=0
# Which model: detected (one node here), or forced by the options.
for flag in "" --no-shared-memory --shared-memory; do
    out=$(timeout 120 mpirun --oversubscribe -n 2 "$GM" bench reduce complete:2 --reps 1 --max-bytes 64 $flag 2>&1)
    rc=$?
    want="shared memory"; [ "$flag" = --no-shared-memory ] && want="network links"
    if [ $rc = 0 ] && grep -q "^# cost model: $want" <<<"$out"; then pass=$((pass + 1));
    else failn=$((failn + 1)); echo "FAIL: gossip-mpi bench $flag: not '$want'"; echo "$out" | head -3; fi
done
# Cost options with --approximate (one register schedule, nothing to choose) are refused.
out=$(timeout 120 mpirun --oversubscribe -n 2 "$GM" run allreduce complete:2 --approximate --shared-memory 2>&1)
rc=$?
if [ $rc = 2 ] && grep -q "not with --approximate" <<<"$out"; then pass=$((pass + 1));
else failn=$((failn + 1)); echo "FAIL: gossip-mpi --approximate --shared-memory: exit $rc"; echo "$out" | head -2; fi
# Pipelined lanes (blocks cut into segments, the schedule run once per segment, all at once).
exact 16 torus:4x4 GOSSIP_SEGMENT=256
run 16 broadcast torus:4x4 --count 100003 --algorithm multitree --root 3 --reps 2 --segment 4096
run 16 reduce torus:4x4 --count 100003 --algorithm multitree --root 12 --reps 2 --segment 4096
exact 8 hypercube:3 GOSSIP_SEGMENT=64 GOSSIP_ALGORITHM=allreduce=tree,bcast=scatter-allgather,reduce=rs-gather,allgather=flood,reduce-scatter=flood
# A 2 GiB broadcast (MPI's int count of doubles, 2^31 bytes and more) on 2 ranks.
out=$(timeout 300 mpirun --oversubscribe -n 2 -x LD_PRELOAD="$PRELOAD" -x GOSSIP_TOPOLOGY=complete:2 "$EXACT" 10 --big 2>&1)
if [ $? = 0 ] && grep -q "every check passed" <<<"$out"; then pass=$((pass + 1)); else failn=$((failn + 1)); echo "FAIL: exact_mpi --big"; grep -m3 FAIL <<<"$out"; fi
# A coefficient method is refused for the MPI collectives, said once, and the run stays exact.
out=$(timeout 120 mpirun --oversubscribe -n 8 -x LD_PRELOAD="$PRELOAD" -x GOSSIP_TOPOLOGY=hypercube:3 -x GOSSIP_METHOD=spectral "$EXACT" 100 2>&1)
if [ $? = 0 ] && grep -q "every check passed" <<<"$out" && [ "$(grep -c 'GOSSIP_METHOD ignored: method spectral computes sums with real coefficients' <<<"$out")" = 1 ]; then pass=$((pass + 1));
else failn=$((failn + 1)); echo "FAIL: GOSSIP_METHOD=spectral refused"; echo "$out" | tail -3; fi
# gossip-mpi's approximate mode is labelled so.
out=$(timeout 120 mpirun --oversubscribe -n 8 "$GM" run allreduce hypercube:3 --approximate --method spectral --reps 1 2>&1)
if [ $? = 0 ] && grep -q "approximate register schedule: results equal the standard's to rounding (approximate)" <<<"$out"; then pass=$((pass + 1));
else failn=$((failn + 1)); echo "FAIL: gossip-mpi --approximate"; echo "$out" | tail -3; fi
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
# Calibration: the file gossip-mpi calibrate writes loads, its figures are positive and finite
# (overhead and hop may be 0), and the runtime and `gossip plan --tuning` use it.
GOSSIP="$(dirname "$GM")/gossip"
check() { # DESCRIPTION CONDITION-EXIT-STATUS
    if [ "$2" = 0 ]; then pass=$((pass + 1)); else failn=$((failn + 1)); echo "FAIL: $1"; echo "$out" | tail -8; fi
}
out=$(timeout 300 mpirun --oversubscribe -n 2 "$GM" calibrate -o "$tmp/cfg/gossip/tuning.json" --max-bytes 1048576 2>&1)
rc=$?
jq -e '.format == "gossip-tuning" and .alpha > 0 and .beta > 0 and .gamma > 0 and .overhead >= 0 and .hop >= 0 and .shared_memory
       and ([.alpha, .beta, .gamma, .overhead, .hop] | all(isinfinite | not)) and ((.beta_by_size // []) | all(.[1] >= 0))
       and .measured.ranks == 2 and (.measured.mpi | test("Open MPI"))' "$tmp/cfg/gossip/tuning.json" >/dev/null 2>&1
check "gossip-mpi calibrate on 2 ranks: a tuning file with positive, finite figures" $((rc + $?))
grep -q "^alpha .* a 0-byte message" <<<"$out" && grep -q "^written   $tmp/cfg/gossip/tuning.json" <<<"$out"
check "gossip-mpi calibrate prints its figures and the file written" $?
out=$("$GOSSIP" plan allreduce torus:2x2 --bytes 4096 --tuning "$tmp/cfg/gossip/tuning.json" --json 2>&1)
[ "$(jq .cost.alpha <<<"$out")" = "$(jq .alpha "$tmp/cfg/gossip/tuning.json")" ] && jq -e '.cost.shared_memory' <<<"$out" >/dev/null
check "gossip plan --tuning loads the calibrated file" $?
# Hop: ranks placed on a topology of diameter 2.
out=$(timeout 300 mpirun --oversubscribe -n 4 "$GM" calibrate --topology torus:2x2 --max-bytes 4096 --reps 2 2>&1)
rc=$?
grep -q "^hop .* rank 0 to 3, 2 links" <<<"$out"
check "gossip-mpi calibrate --topology torus:2x2: hop measured" $((rc + $?))
out=$(timeout 60 mpirun --oversubscribe -n 3 "$GM" calibrate --topology torus:2x2 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "torus:2x2 has 4 nodes but there are 3 ranks" <<<"$out"
check "gossip-mpi calibrate --topology of another size: exit 2" $?
out=$(timeout 60 mpirun -n 1 "$GM" calibrate 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "at least 2 ranks" <<<"$out"
check "gossip-mpi calibrate on 1 rank: exit 2" $?
# The default location ($XDG_CONFIG_HOME/gossip/tuning.json), GOSSIP_VERBOSE=2: every candidate's
# predicted time at each new choice, the chosen one starred.
out=$(env -u GOSSIP_TUNING XDG_CONFIG_HOME="$tmp/cfg" GOSSIP_VERBOSE=2 timeout 120 mpirun --oversubscribe -n 4 "$GM" run allreduce torus:2x2 --count 1000 --reps 1 2>&1)
rc=$?
grep -q "^gossip: tuning file .*/cfg/gossip/tuning.json (measured on" <<<"$out" && grep -q "^gossip: allreduce on torus:2x2, 8000 bytes (predicted for its size class, up to 8192 bytes): " <<<"$out" &&
    grep -q "^gossip:   \* [a-z-]* .* us .*chosen: the least predicted time" <<<"$out" && [ "$(grep -c '^gossip:   ' <<<"$out")" -ge 3 ]
check "GOSSIP_VERBOSE=2: the tuning file and every candidate's predicted time" $((rc + $?))
# The drop-in: without a file, GOSSIP_VERBOSE=1 says how to calibrate (once, rank 0).
mkdir -p "$tmp/home"
out=$(env -u GOSSIP_TUNING -u XDG_CONFIG_HOME timeout 120 mpirun --oversubscribe -n 4 -x HOME="$tmp/home" -x LD_PRELOAD="$PRELOAD" -x GOSSIP_TOPOLOGY=torus:2x2 -x GOSSIP_VERBOSE=1 "$PLAIN" 100 2>&1)
rc=$?
[ "$(grep -c '^gossip: no tuning file; defaults used (calibrate with: mpirun -n 2 gossip-mpi calibrate -o ~/.config/gossip/tuning.json)' <<<"$out")" = 1 ] && grep -q "all results correct" <<<"$out"
check "drop-in without a tuning file: GOSSIP_VERBOSE=1 says how to calibrate, once" $((rc + $?))
# With the file (measured on this node: it applies), and forced to the link model (it does not).
out=$(timeout 120 mpirun --oversubscribe -n 4 -x GOSSIP_TUNING="$tmp/cfg/gossip/tuning.json" -x LD_PRELOAD="$PRELOAD" -x GOSSIP_TOPOLOGY=torus:2x2 -x GOSSIP_VERBOSE=2 "$PLAIN" 100 2>&1)
rc=$?
grep -q "^gossip: tuning file .*tuning.json (measured on" <<<"$out" && grep -q "all results correct" <<<"$out" && grep -q "chosen: the least predicted time" <<<"$out"
check "drop-in with GOSSIP_TUNING: loaded, the choices explained" $((rc + $?))
out=$(timeout 120 mpirun --oversubscribe -n 4 -x GOSSIP_TUNING="$tmp/cfg/gossip/tuning.json" -x GOSSIP_SHARED_MEMORY=0 -x LD_PRELOAD="$PRELOAD" -x GOSSIP_TOPOLOGY=torus:2x2 -x GOSSIP_VERBOSE=1 "$PLAIN" 100 2>&1)
rc=$?
grep -q "was measured with every rank on one node, but these ranks span nodes: defaults used" <<<"$out" && grep -q "all results correct" <<<"$out"
check "drop-in: a shared-memory tuning file is not applied to the link model" $((rc + $?))
# A malformed file is said without GOSSIP_VERBOSE, and the run stays correct on the defaults.
echo '{"alpha": 1e-6, "beta": 1e-10, "gama": 0}' >"$tmp/bad.json"
out=$(timeout 120 mpirun --oversubscribe -n 4 -x GOSSIP_TUNING="$tmp/bad.json" -x LD_PRELOAD="$PRELOAD" -x GOSSIP_TOPOLOGY=torus:2x2 "$PLAIN" 100 2>&1)
rc=$?
[ "$(grep -c "bad.json: unknown key 'gama' (did you mean 'gamma'?); defaults used" <<<"$out")" = 1 ] && grep -q "all results correct" <<<"$out"
check "drop-in: a malformed tuning file said once, defaults used" $((rc + $?))
out=$(timeout 120 mpirun --oversubscribe -n 4 "$GM" run allreduce torus:2x2 --tuning "$tmp/bad.json" 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "unknown key 'gama'" <<<"$out"
check "gossip-mpi run --tuning with a malformed file: exit 2" $?
echo "$pass passed, $failn failed"
[ "$failn" = 0 ]
