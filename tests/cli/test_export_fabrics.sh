#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_export_fabrics.sh — fabric plans exported to executors (issue 24 item 5): MSCCL XML for
# allgather, reduce-scatter, allreduce and broadcast (well-formed; ranks are the compute nodes;
# a channel per NIC rail), msccl-tools JSON for allgather, run here by an independent simulation in jq:
# every send's chunk is held by its sender before its step, and every rank ends with every
# chunk. (tests/unit/test_export_fabric.c runs the XML as the executor would.)
GOSSIP=$1
DATA=$2
. "$(dirname "$0")/lib.sh"

# msccl-tools JSON, simulated: the held chunks of each rank, step by step.
sim='.collective.nodes as $n | .instance.chunks as $c
  | reduce .steps[] as $s (
      [range($n) as $r | .input_map[$r|tostring] | map({key: tostring, value: true}) | from_entries];
      . as $held
      | if all($s.sends[]; . as $x | $held[$x[1]][$x[0]|tostring]) then
          reduce $s.sends[] as $x (.; .[$x[2]][$x[0]|tostring] = true)
        else error("a chunk sent before its sender holds it") end)
  | all(.[]; length == $n * $c)'

for spec in dgx:8x2 mi250:1; do
    for coll in allgather reduce-scatter allreduce; do
        expect 0 plan "$coll" "$spec" -o "$tmp/p.json" || continue
        expect 0 export "$tmp/p.json" --format msccl-xml -o "$tmp/p.xml"
        xmllint --noout "$tmp/p.xml" || fail "$coll $spec: the XML is not well-formed"
        checks=$((checks + 1))
        want=$coll
        [ "$coll" = reduce-scatter ] && want=reduce_scatter
        grep -q "<algo [^>]*ngpus=\"16\" coll=\"$want\"" "$tmp/p.xml" || fail "$coll $spec: $(grep -m1 '<algo' "$tmp/p.xml")"
        # Sizes, for the record: docs/fabrics.md quotes them.
        echo "$coll $spec: $(wc -c <"$tmp/p.xml") bytes of XML, $(grep -c '<step ' "$tmp/p.xml") steps"
    done
    expect 0 plan allgather "$spec" -o "$tmp/ag.json" --batches 2
    expect 0 export "$tmp/ag.json" --format msccl-json -o "$tmp/ag.msccl.json"
    jq -e "$sim" "$tmp/ag.msccl.json" >/dev/null || fail "$spec: the msccl-tools JSON does not gather every chunk"
    jq -e '.collective.nodes == 16 and (.ranks | length) == 16 and .instance.chunks == (.input_map["0"] | length)' "$tmp/ag.msccl.json" >/dev/null ||
        fail "$spec: JSON keys"
    checks=$((checks + 2))
    # The simulation can fail: the steps in reverse order.
    jq '.steps |= reverse' "$tmp/ag.msccl.json" >"$tmp/bad.json"
    jq -e "$sim" "$tmp/bad.json" >/dev/null 2>&1 && fail "$spec: steps reversed and still gathered"
    checks=$((checks + 1))
done

# A random fabric file with capacities and switches: the three round forms verify, export and
# are well-formed; a switch's message sent a round before it arrives, or an arc loaded past its
# capacity, is refused by the verifier (exit 1).
rnd="file:$DATA/fabric-random.txt"
for coll in allgather reduce-scatter allreduce; do
    expect 0 plan "$coll" "$rnd" --batches 2 -o "$tmp/r.json"
    expect 0 verify "$tmp/r.json"
    grepcheck "^correct: $coll on "
    expect 0 export "$tmp/r.json" --format msccl-xml -o "$tmp/r.xml"
    xmllint --noout "$tmp/r.xml" || fail "$coll $rnd: the XML is not well-formed"
    checks=$((checks + 1))
done
expect 0 plan reduce-scatter "$rnd" --batches 2 -o "$tmp/r.json"
jq '(.names | [index("s0"), index("s1"), index("s2"), index("s3")]) as $sw | (.rounds | length) as $R
    | (.rounds[$R - 1].send | map(select(.[0] as $u | $sw | index($u))) | .[0]) as $m
    | .rounds[$R - 1].send -= [$m] | .rounds[$R - 2].send += [$m]' "$tmp/r.json" >"$tmp/early.json"
expect 1 verify "$tmp/early.json"
grepcheck 'rule held: .*holds no message of it \(switches forward, never combine\)'
jq '.model.capacity = 1' "$tmp/r.json" >"$tmp/over.json"
expect 1 verify "$tmp/over.json"
grepcheck 'rule packets: .*its capacity allows'

# dgx:8x2: 8 rails and the NVSwitch's channel; b0.gpu3 (rank 3) sends to the other box on rail 3.
expect 0 plan allgather dgx:8x2 -o "$tmp/d.json"
expect 0 export "$tmp/d.json" --format msccl-xml
grepcheck '<algo [^>]*nchannels="9"'
grepcheck '^<!-- gossip: dgx:8x2; ranks are its compute nodes: 0=b0.gpu0 .* 15=b1.gpu7;'
awk '/<gpu id="3"/{g=1} /<\/gpu>/{g=0} g && /<tb /{print}' "$tmp/out" | grep -E 'send="(8|9|1[0-5])"' | grep -v 'chan="3"' &&
    fail "b0.gpu3 sends across the boxes off rail 3"
checks=$((checks + 1))

# What cannot be exported: one line, exit 2.
expect 0 plan reduce-scatter dgx:8x2 -o "$tmp/rs.json"
expect 2 export "$tmp/rs.json" --format msccl-json
errline 'export the reduce-scatter as msccl-xml'
expect 0 plan broadcast dgx:8x2 --root b1.gpu5 -o "$tmp/b.json"
expect 0 export "$tmp/b.json" --format msccl-xml -o "$tmp/b.xml"
xmllint --noout "$tmp/b.xml" || fail "broadcast: the XML is not well-formed"
checks=$((checks + 1))
grep -q '<algo [^>]*coll="broadcast"' "$tmp/b.xml" || fail "broadcast: $(grep -m1 '<algo' "$tmp/b.xml")"
# Only the root (rank 13, b1.gpu5) reads its input.
[ "$(grep -c 'srcbuf="i"' "$tmp/b.xml")" -ge 1 ] && ! awk '/<gpu id=/{g=$2} /srcbuf="i"/ && g != "id=\"13\""{bad=1} END{exit !bad}' "$tmp/b.xml" ||
    fail "broadcast: a rank other than the root reads its input"
checks=$((checks + 1))
expect 2 export "$tmp/b.json" --format msccl-json
errline 'export the broadcast as msccl-xml'
# Beyond the executor's limits: refused with the limit named. Two leaves of 32 hosts need 32
# rails and a channel for inside a leaf; the executor has 32 channels.
expect 0 plan allgather fattree:2x32 -o "$tmp/ft.json"
expect 2 export "$tmp/ft.json" --format msccl-xml
errline 'boxes of 32 ranks need a channel per rail and one more; the executor has 32 channels'
expect 0 plan allgather fattree:2x31 -o "$tmp/ft.json"
expect 0 export "$tmp/ft.json" --format msccl-xml
grepcheck '<algo [^>]*nchannels="32"'
finish
