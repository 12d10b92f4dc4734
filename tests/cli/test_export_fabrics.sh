#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_export_fabrics.sh — fabric plans exported to executors (issue 24 item 5): MSCCL XML for
# allgather, reduce-scatter, allreduce and broadcast (well-formed; ranks are the compute nodes;
# a channel per NIC rail), msccl-tools JSON for the same four, run here by an independent
# simulation in jq of what msccl-tools reads in it (below). (tests/unit/test_export_fabric.c runs
# the XML as the executor would.)
GOSSIP=$1
DATA=$2
. "$(dirname "$0")/lib.sh"

# msccl-tools JSON, simulated: the held chunks of each rank, step by step (a step's sends
# grouped by receiver: one merge each, not one update per chunk).
sim='.collective.nodes as $n | .instance.chunks as $c
  | reduce .steps[] as $s (
      [range($n) as $r | .input_map[$r|tostring] | map({key: tostring, value: true}) | from_entries];
      . as $held
      | if all($s.sends[]; . as $x | $held[$x[1]][$x[0]|tostring]) then
          reduce ($s.sends | group_by(.[2])[]) as $g (.; .[$g[0][2]] += ($g | map({key: (.[0]|tostring), value: true}) | from_entries))
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
        expect 0 export "$tmp/p.json" --format msccl-json -o "$tmp/p.msccl.json"
        echo "msccl-json $coll $spec: $(wc -c <"$tmp/p.msccl.json") bytes, $(jq '.steps | length' "$tmp/p.msccl.json") steps"
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

# msccl-tools JSON of all four collectives, simulated as msccl-tools defines it (msccl/collectives.py,
# msccl/algorithm.py Algorithm.check_implements): a "chunk" is one rank's contribution at an
# address ("addr"; several at one address make the collective combining), "pre" the ranks that
# hold it first, "post" those that must hold it at the end; a send [addr, src, dst] carries all
# that src holds at addr at the start of its step. Here what a rank holds at an address is the
# list of contributions added up there, so counting one twice shows: the receives of a step at
# one address are added to what the receiver holds, unless (combining only) a single receive
# brings all the receiver holds and more — a finished sum, which replaces its partial one — and
# any contribution held twice fails at once. At the end every rank holds, at every address its
# postcondition names, each contribution to it exactly once. A send from a rank that holds
# nothing at the address fails.
sums='. as $doc | .collective as $c | $c.nodes as $n
  | ($c.chunks | map(.addr) | max + 1) as $na
  | ($c.chunks | length > $na) as $comb
  | (reduce ($c.chunks | to_entries[]) as $e ([range($na) | []]; .[$e.value.addr] += [$e.key])) as $full
  | (reduce ($c.chunks | to_entries[]) as $e ([range($n) | [range($na) | []]];
       reduce $e.value.pre[] as $r (.; .[$r][$e.value.addr] += [$e.key])))
  | reduce ($doc.steps | to_entries[]) as $st (.;
      . as $h
      | reduce ($st.value.sends | group_by([.[2], .[0]]))[] as $g (.;
          $g[0][2] as $d | $g[0][0] as $a | ($g | map($h[.[1]][$a])) as $in | $h[$d][$a] as $held
          | if any($in[]; length == 0) then error("step \($st.key): a send of address \($a) by a rank that holds none of it")
            elif $comb and ($in | length) == 1 and ($held | length) > 0 and ($held - $in[0] | length) == 0 then .[$d][$a] = $in[0]
            else ($held + ($in | add)) as $sum
              | if ($sum | unique | length) != ($sum | length)
                then error("step \($st.key): rank \($d) counts a contribution to address \($a) twice") else .[$d][$a] = $sum end
            end))
  | . as $h
  | all($c.chunks[]; .addr as $a | all(.post[]; ($h[.][$a] | sort) == $full[$a]))'
mkdir "$tmp/mt"
nmt=0
# (dgx:8x2's own files are 455 chunks a rank, their simulation here over a minute: the same
# two-level trees with other capacities, 70 chunks, stand in for it.)
for spec in dgx:4x2 dgx:8x2:nvlink=100,nic=50 fattree:2x4 mi250:1 "file:$DATA/fabric.txt"; do
    expect 0 plan allgather "$spec" -o "$tmp/a.json" || continue
    expect 0 export "$tmp/a.json" --format msccl-json -o "$tmp/a.msccl.json" || continue
    root=$(jq -r '.ranks[-2]' "$tmp/a.msccl.json")
    for coll in allgather reduce-scatter allreduce broadcast; do
        args=()
        [ "$coll" = broadcast ] && args=(--root "$root")
        expect 0 plan "$coll" "$spec" "${args[@]}" -o "$tmp/p.json" || continue
        expect 0 export "$tmp/p.json" --format msccl-json -o "$tmp/m.json" || continue
        jq -e "$sums" "$tmp/m.json" >/dev/null || fail "$coll $spec: the msccl-tools JSON does not hold the collective's result"
        # What msccl-tools reads the collective as: its runtime name, combining (several chunks
        # at an address) or not, where the data starts.
        case $coll in
        allgather) want='"allgather" false' ;;
        reduce-scatter) want='"reduce_scatter" true' ;;
        allreduce) want='"allreduce" true' ;;
        broadcast) want='"custom" false' ;;
        esac
        got=$(jq -r '.collective | "\(.runtime_name | tojson) \((.chunks | length) > (.chunks | map(.addr) | unique | length))"' "$tmp/m.json")
        [ "$got" = "$want" ] || fail "$coll $spec: collective $got, want $want"
        [ "$coll" != broadcast ] || jq -e --arg r "$root" '(.input_map | keys) == [(.ranks | index($r) | tostring)]' "$tmp/m.json" >/dev/null ||
            fail "broadcast $spec: the input_map is not the root's ($root) alone"
        checks=$((checks + 3))
        nmt=$((nmt + 1))
        cp "$tmp/m.json" "$tmp/mt/$nmt.good.json"
        # Sizes, for the record: docs/fabrics.md quotes them.
        case $spec in dgx:8x2* | mi250:1) continue ;; esac
        # The simulation can fail: a send dropped, a send duplicated in its step.
        jq -c '(.steps | length / 2 | floor) as $k | .steps[$k].sends |= .[1:]' "$tmp/m.json" >"$tmp/bad.json"
        jq -e "$sums" "$tmp/bad.json" >/dev/null 2>&1 && fail "$coll $spec: a send dropped and still correct"
        cp "$tmp/bad.json" "$tmp/mt/$nmt.bad.json"
        jq -c '(.steps | length / 2 | floor) as $k | .steps[$k].sends += [.steps[$k].sends[0]]' "$tmp/m.json" >"$tmp/bad.json"
        jq -e "$sums" "$tmp/bad.json" >/dev/null 2>&1 && fail "$coll $spec: a send duplicated and still correct"
        checks=$((checks + 2))
    done
done
# msccl-tools' own loader and check on the same files (tests/cli/msccl_tools_check.py), when a
# checkout of it is at hand: MSCCL_TOOLS=/path/to/msccl-tools (nothing is downloaded).
if [ -n "${MSCCL_TOOLS:-}" ] && [ -f "$MSCCL_TOOLS/msccl/serialization.py" ] && command -v python3 >/dev/null; then
    python3 "$(dirname "$0")/msccl_tools_check.py" "$MSCCL_TOOLS" "$tmp"/mt/*.good.json --bad "$tmp"/mt/*.bad.json >"$tmp/mt.out" 2>&1 ||
        fail "msccl-tools' check_implements: $(grep -m3 FAIL "$tmp/mt.out")"
    echo "msccl-tools' check_implements: $(grep -c 'passes$' "$tmp/mt.out") files pass, the dropped sends' fail"
    checks=$((checks + 1))
else
    echo "skipped: msccl-tools' own loader (set MSCCL_TOOLS to a checkout of microsoft/msccl-tools)"
fi

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

# Read back, msccl-tools JSON is an allgather only: a reduction's is refused with one line.
expect 0 plan reduce-scatter fattree:2x4 -o "$tmp/rs.json"
expect 0 export "$tmp/rs.json" --format msccl-json -o "$tmp/rs.msccl.json"
expect 2 verify "$tmp/rs.msccl.json" --topology fattree:2x4
errline "the collective is msccl-tools' 'reduce_scatter', and gossip reads msccl-tools JSON as an allgather only"

# What cannot be exported: one line, exit 2.
expect 0 plan broadcast dgx:8x2 --root b1.gpu5 -o "$tmp/b.json"
expect 0 export "$tmp/b.json" --format msccl-xml -o "$tmp/b.xml"
xmllint --noout "$tmp/b.xml" || fail "broadcast: the XML is not well-formed"
checks=$((checks + 1))
grep -q '<algo [^>]*coll="broadcast"' "$tmp/b.xml" || fail "broadcast: $(grep -m1 '<algo' "$tmp/b.xml")"
# Only the root (rank 13, b1.gpu5) reads its input.
[ "$(grep -c 'srcbuf="i"' "$tmp/b.xml")" -ge 1 ] && ! awk '/<gpu id=/{g=$2} /srcbuf="i"/ && g != "id=\"13\""{bad=1} END{exit !bad}' "$tmp/b.xml" ||
    fail "broadcast: a rank other than the root reads its input"
checks=$((checks + 1))
# Beyond the executor's limits: refused with the limit named. Two leaves of 32 hosts need 32
# rails and a channel for inside a leaf; the executor has 32 channels.
expect 0 plan allgather fattree:2x32 -o "$tmp/ft.json"
expect 2 export "$tmp/ft.json" --format msccl-xml
errline 'boxes of 32 ranks need a channel per rail and one more; the executor has 32 channels'
expect 0 plan allgather fattree:2x31 -o "$tmp/ft.json"
expect 0 export "$tmp/ft.json" --format msccl-xml
grepcheck '<algo [^>]*nchannels="32"'
finish
