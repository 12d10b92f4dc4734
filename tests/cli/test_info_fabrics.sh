#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_info_fabrics.sh — fabrics on the command line (docs/fabrics.md): `gossip info` on the fabric
# specs and files with the exact optimum and its JSON keys, --root, ForestColl's published
# optima, plans at the optimum (trees, the round form verified), and one error line (exit 2) for every malformed capacity or switch.
GOSSIP=$1
DATA=$2
. "$(dirname "$0")/lib.sh"

# ForestColl's two published optima: two DGX A100 boxes 346.67 GB/s, two MI250 boxes 354.13.
expect 0 info dgx:8x2 --json
jqcheck '.optimum.allgather.algbw == "1040/3" and (.optimum.allgather.algbw_value * 100 | round) == 34667'
jqcheck '.compute_nodes == 16 and (.switches | length) == 3 and .capacities.min == 25 and .capacities.max == 300'
jqcheck '.optimum.allgather.binding_cut | length == 18 and (index("b0.gpu0") == null)'
jqcheck '.optimum.reduce_scatter.algbw == "1040/3" and .optimum.allreduce.algbw == "520/3"'
jqcheck '.optimum.broadcast.algbw == "200" and .optimum.broadcast.root == "b0.gpu0" and (.optimum.broadcast.binding_cut | length) == 9'
jqcheck '.optimum.allreduce.binding_cut_reduce_scatter | length == 18'
jqcheck '.lower_bound == null and .nodes == 19 and (.ranks | length) == 16 and .ranks[0] == "b0.gpu0" and .ranks[15] == "b1.gpu7"'
expect 0 info mi250:2 --json
jqcheck '.optimum.allgather.algbw == "5312/15" and (.optimum.allgather.algbw_value * 100 | round) == 35413'
jqcheck '.optimum.allgather.binding_cut | length == 31'
expect 0 info "file:$DATA/dgx-a100-2box.txt" --json
jqcheck '.optimum.allgather.algbw == "1040/3" and .compute_nodes == 16 and (.switches | length) == 20'

# Text: compute nodes, switches, capacities, the optima.
expect 0 info dgx:8x2
grepcheck '^compute nodes +16 \(the ranks; the other 3 vertices are switches\)$'
grepcheck '^switches +3: ib b0.nvswitch b1.nvswitch$'
grepcheck '^capacities +25 \(32 arcs\) 300 \(32 arcs\)$'
grepcheck '^  allgather +1040/3 = 346.667, binding cut S = every vertex but \{b0.gpu0\}$'
grepcheck '^  broadcast +200 from b0.gpu0'
expect 0 info "file:$DATA/fabric.txt"
grepcheck '^  allgather +15, binding cut S = every vertex but \{h2\}$'
grepcheck '^  reduce-scatter +75/4 = 18.75'
grepcheck '^capacities +2.5 \(2 arcs\) 10 \(1 arcs\) 12.5 \(1 arcs\) 25 \(4 arcs\)$'
expect 0 info "file:$DATA/fabric.graphml" --json
jqcheck '.switches == ["nvs"] and .optimum.allgather.algbw == "75/4" and .capacities.min_exact == "1"'

# --root picks the broadcast's root; a switch or an unknown name is refused.
expect 0 info dgx:8x2 --root b1.gpu3 --json
jqcheck '.optimum.broadcast.root == "b1.gpu3" and .optimum.broadcast.algbw == "200"'
expect 2 info dgx:8x2 --root ib
expect 2 info dgx:8x2 --root nowhere
expect 2 info dgx:8x2 --root b0.gpu1 --no-optimum
expect 2 info torus:4x4 --root 3
expect 0 info torus:4x4 --root 3 --json
jqcheck '.optimum.broadcast.root == "3" and .optimum.broadcast.algbw == "4"'
expect 0 info dgx:8x2 --no-optimum --json
jqcheck '.optimum == null'

# Generators and their parameters.
expect 0 info "dgx:8x2:nvlink=600,nic=50" --json
jqcheck '.optimum.allgather.algbw == "2080/3"'
expect 0 info "fattree:4x8:spines=3,oversub=2" --json
jqcheck '.capacities.max_exact == "4/3" and .compute_nodes == 32'
expect 0 info "fattree:4x8:oversub=16" --json
jqcheck '.optimum.allgather.algbw == "2/3" and (.optimum.allgather.binding_cut | length) == 35'
expect 0 info dragonfly:4x2x2 --json
jqcheck '.compute_nodes == 72 and (.switches | length) == 36'
expect 0 info "torus:4x4x4@1,1,0.5" --json
jqcheck '.optimum.allgather.algbw == "320/63" and .capacities.min == 0.5 and .optimum.allgather.max_flows == 1'

# Plain specs keep their output and gain the optimum in JSON (unit capacities).
expect 0 info torus:5x5 --json
jqcheck '.lower_bound == 6 and .optimum.allgather.algbw == "25/6" and .compute_nodes == 25 and .switches == [] and .capacities == null'
expect 0 info torus:4x4
grep -q 'optimum\|compute nodes' "$tmp/out" && fail "plain torus text shows fabric lines"

# A vertex-transitive graph with capacities is a fabric: the Cayley searches do not run, and the
# text says nothing of them (it said "none of the known Cayley families" and "Aut of order 0").
printf 'a b 1\nb c 2\nc a 1\n' >"$tmp/tri.txt"
expect 0 info "file:$tmp/tri.txt"
grepcheck '^vertex-transitive +yes'
grep -q 'Cayley\|isomorphic' "$tmp/out" && fail "a fabric's text claims a Cayley search"
expect 0 info "file:$tmp/tri.txt" --json
jqcheck '.isomorphic_to == null and .cayley_graph == null'

# Plans on fabrics: spanning trees whose algbw is the optimum, exactly (issue 24 item 3).
expect 0 plan allgather dgx:8x2 --json
jqcheck '.algbw == "1040/3" and .optimum.algbw == "1040/3" and .optimal == true and .method == "fabric-trees"'
jqcheck '.nodes == 16 and .vertices == 19 and .switches == 3 and .trees >= 16 and .depth >= 1 and .hop_depth >= 2 * .depth'
jqcheck '.rounds == .lower_bound + .hop_depth - 1 and .bounds.throughput == 1 and .verified == true and (.seconds | type) == "number"'
expect 0 plan allgather mi250:2 --json --batches 3
jqcheck '.algbw == "5312/15" and .optimal and .lower_bound == 3 and .rounds == .hop_depth + 2 and .chunks == 3 * .share'
expect 0 plan reduce-scatter "file:$DATA/fabric.txt" --json
jqcheck '.algbw == "75/4" and .optimum.algbw == "75/4" and .rounds == .lower_bound + .hop_depth - 1 and .verified'
# Reduce-scatter's round form: the in-trees' rounds, the allgather's on the reversed fabric run
# backwards; allreduce's: those, then allgather's (issue 24 item 3).
# dgx:8x2 is boxes on a switch with a NIC each: the two-level trees (src/analysis/fabric_boxes.c),
# by hand: the direct tree's share w = (25*7*2 - 300)/(7*325) = 2/91 of a block, so 91 parts, 2
# on the direct tree and 11 or 12 on each of the 8 relay trees; a node's NIC then carries
# 91 + 7*2 = 105 parts a root's worth, its NVLink 7*91 + 7*89 = 1260: 105/25 = 1260/300 = 21/5
# times the capacity, so 5 * 91 = 455 chunks a node, 21 times the capacity a round, 16 roots x
# 9 trees, 2 edges deep.
expect 0 plan reduce-scatter dgx:8x2 --json --batches 2
jqcheck '.optimal and .lower_bound == 2 and .rounds == .hop_depth + 1 and .chunks == 2 * .share and .capacity_factor == 21 and .verified'
jqcheck '.share == 455 and .trees == 144 and .depth == 2'
expect 0 plan reduce-scatter dgx:8x2
grepcheck '^rounds +[0-9]+ \(bound 1, the batches; 455 chunks per node, an arc carries 21 x its capacity a round\), verified$'
grepcheck '^trees +144, deepest 2 edges \(4 fabric hops\)$'
expect 0 plan allreduce dgx:8x2 --json
jqcheck '.algbw == "520/3" and .optimal and .phases.reduce_scatter.algbw == "1040/3" and .phases.allgather.algbw == "1040/3"'
jqcheck '.trees == .phases.reduce_scatter.trees + .phases.allgather.trees'
jqcheck '.lower_bound == 2 and .rounds == .phases.reduce_scatter.hop_depth + .phases.allgather.hop_depth and .verified'
# The phases disagree on fabric.txt (75/4 against 15): each phase fills its own rounds.
expect 0 plan allreduce "file:$DATA/fabric.txt" --json
jqcheck '.algbw == "25/3" and .optimal and .lower_bound == 9 and .verified'
expect 0 plan broadcast dgx:8x2 --root b1.gpu3 --json
jqcheck '.algbw == "200" and .root == "b1.gpu3" and .optimal and .verified'
expect 0 plan allgather "torus:3x4@1,0.5" --json
jqcheck '.optimal and .switches == 0'
expect 0 plan allgather dgx:8x1
grepcheck '^algbw +2400/7 = 342.857 \(optimum 2400/7 = 342.857: reached\)$'
grepcheck '^trees +8, deepest 1 edges \(2 fabric hops\)$'
# The round form written with -o passes gossip verify (capacities per arc, chunks).
expect 0 plan allgather dgx:8x2 -o "$tmp/dgx.json" --batches 2
expect 0 verify "$tmp/dgx.json"
expect 0 plan reduce-scatter mi250:1 -o "$tmp/rs.json"
expect 0 verify "$tmp/rs.json"
grepcheck '^correct: reduce-scatter on mi250:1'
expect 0 plan allreduce dgx:8x2 -o "$tmp/ar.json"
expect 0 verify "$tmp/ar.json"
grepcheck '^correct: allreduce on dgx:8x2'
jqcheck_file() { jq -e "$2" "$1" >/dev/null || fail "$1: $2"; }
jqcheck_file "$tmp/dgx.json" '.model.capacity == 21 and .chunks == 910 and .method == "fabric-trees"'
# b0.gpu0's NVLink packets of round 0 moved onto its 25 GB/s NIC: the verifier says so (exit 1).
# (tests/unit/test_fabric.c moves a single packet onto a full arc.)
jq -c '.names as $n | ($n | index("b0.gpu0")) as $g | ($n | index("b0.nvswitch")) as $s | ($n | index("ib")) as $ib
       | .rounds[0].send |= map(if .[0] == $g and .[1] == $s then .[1] = $ib else . end)' "$tmp/dgx.json" >"$tmp/bad.json"
expect 1 verify "$tmp/bad.json"
grep -q 'its capacity allows' "$tmp/out" "$tmp/err" || fail "a moved packet: $(cat "$tmp/out" "$tmp/err")"
# Exported (tests/cli/test_export_fabrics.sh checks what).
expect 0 export "$tmp/dgx.json" --format msccl-xml
expect 0 export "$tmp/dgx.json" --format msccl-json
# The picture of one GPU's trees (docs/img/dgx-8x2-trees.svg is made so).
expect 0 draw dgx:8x1 -o "$tmp/trees.svg"
grep -q 'allgather trees at the optimum, algbw 2400/7' "$tmp/trees.svg" || fail "draw dgx:8x1: $(head -c 300 "$tmp/trees.svg")"
[ "$(grep -c 'marker-end' "$tmp/trees.svg")" = 14 ] || fail "draw dgx:8x1: not 14 arrows"
expect 0 draw dgx:8x2 --root b1.gpu2 -o "$tmp/trees2.svg"
grep -q 'trees of b1.gpu2' "$tmp/trees2.svg" || fail "draw --root b1.gpu2"
expect 2 draw dgx:8x2 --root ib -o "$tmp/x.svg"
expect 2 draw torus:4x4 --root 0 -o "$tmp/x.svg"
# Bad input: one line, exit 2.
expect 2 plan broadcast dgx:8x2 --root ib
grepcheck_err() { grep -qE -- "$1" "$tmp/err" || fail "stderr lacks /$1/: $(cat "$tmp/err")"; }
grepcheck_err 'is a switch'
expect 2 plan broadcast dgx:8x2 --root nowhere
expect 2 plan allgather dgx:8x2 --packets 2
expect 2 plan allgather dgx:8x2 --batches 0
expect 2 plan allgather torus:4x4 --batches 2

# Malformed capacities and switches: one line, exit 2.
bad() { # NAME TEXT REGEX
    printf '%b' "$2" >"$tmp/$1.txt"
    expect 2 info "file:$tmp/$1.txt" && grep -qE -- "$3" "$tmp/err" || fail "$1: $(cat "$tmp/err")"
}
bad negative 'a b -25\n' "capacity '-25' is negative"
bad zero 'a b 0\n' "not positive"
bad word 'a b fast\n' "unexpected text after the edge: 'fast'"
bad number 'a b 1e3\n' "'1e3' is not a capacity"
bad decimals 'a b 0.0000001\n' "more than 6 decimals"
bad large 'a b 99999999999\n' "above"
bad arrow 'a > \n' "one-way link"
bad trailing 'a > b 5 6\n' "unexpected text after the edge"
bad noswitch 'switch\na b\n' "names no node"
bad unlinked 'switch s\na b 2\n' "switch 's' is on no link"
bad allswitch 'switch a b\na b 2\n' "every node is a switch"
bad mixed 'switch 1\na b 2\n' "integer id"
# Found by fuzz_edges: a form feed between switch names looped forever.
bad formfeed 'switch a\fb\na c 2\n' "switch 'b' is on no link"
# Found by fuzz_edges: a switch line before the 'nodes' line, its id past it, wrote past the switch table.
bad switchfirst 'switch 3431\n\nnodes 3\n' "switch id 3431 out of range 0..2 \\(the 'nodes' line\\)"
for spec in dgx:8 dgx:0x2 "dgx:8x2:nvlink=-1" "dgx:8x2:nvlnk=300" "mi250:2:xgmi=fast" fattree:4 "fattree:4x8:oversub=0" \
    "fattree:4x8:spines=2.5" dragonfly:4x2 "torus:4x4@1" "torus:4x4@1,2,3" "torus:4x4@" "file:$DATA/fabric.txt@1" \
    "product(dgx:8x2,cycle:3)" "torus:554@2@29296"; do
    expect 2 info "$spec"
done

# The runtime on a fabric (`plan --bytes`): the ranks are the compute nodes, the algorithm the
# trees at the optimum (fabric-trees), a rank's program, the fabric's bound said; what does
# not apply is refused with one line.
expect 0 plan allreduce dgx:8x2 --bytes 1M --json
jqcheck '.topology == "dgx:8x2" and .nodes == 16 and .choice == "fabric-trees" and (.candidates | length) == 1'
# mi250:2, whose optimal packing is deep (23 compute edges): the shallow trees (below the
# optimum's algbw 5312/15, 12 deep) and the ring trees (the box's 2400/7, 9 deep) are candidates,
# and the rings are chosen.
expect 0 plan allgather mi250:2 --bytes 2M
grepcheck 'the fabric allows 67108864 bytes in 189.5 us at best \(M / algbw\*, algbw\* = 5312/15'
expect 0 plan allgather mi250:2 --bytes 2M --json
jqcheck '.choice == "fabric-rings" and (.candidates | length) == 3 and (.candidates[0].built_from | test("23 deep")) and (.candidates[1].built_from | test("algbw 25600/83\\), 12 deep")) and (.candidates[2].built_from | test("algbw 2400/7\\), 9 deep"))'
expect 0 plan allreduce dgx:8x2 --bytes 64M
grepcheck 'the fabric allows 67108864 bytes in 387.2 us at best \(M / algbw\*, algbw\* = 520/3'
expect 0 plan broadcast dgx:4x2 --bytes 64K --root 3 --rank 5 --json
jqcheck '.choice == "fabric-trees" and (.program | length) == 1 and (.program[0].sends | length) > 0'
expect 2 plan broadcast dgx:8x2 --bytes 1M --root 16 && errline "is not a rank \(compute node\) of dgx:8x2 \(0..15\)"
expect 2 plan reduce dgx:8x2 --bytes 1M && errline "no runtime algorithm for reduce on a fabric"
expect 2 plan allgather dgx:8x2 --bytes 1M --method greedy && errline "--method does not apply on a fabric"

finish
