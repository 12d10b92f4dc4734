#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_verify_export_draw.sh — a schedule planned on file:PATH carries its graph (issue 25, item 6):
# verify, export and draw work from another directory and after the file is gone; a changed
# file is one warning line; an older schedule (path only) still verifies where the path
# resolves and is one error line (exit 2) where it does not; a damaged embedded graph is one
# error line (exit 2).
GOSSIP=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
DATA=$(cd "$2" && pwd)
. "$(dirname "$0")/lib.sh"

mkdir -p "$tmp/plan" "$tmp/elsewhere"
cp "$DATA/petersen.txt" "$tmp/plan/cluster.txt"
cp "$DATA/torus3x3-hosts.graphml" "$tmp/plan/hosts.graphml"
cd "$tmp/plan" || exit 2
expect 0 plan allgather file:cluster.txt -o s.json
expect 0 plan broadcast file:hosts.graphml --root 4 -o h.json
jq -e '.topology == "file:cluster.txt" and .graph.nodes == 10 and (.graph.edges | length) == 15
       and (.graph.hash | test("^fnv1a64:[0-9a-f]{16}$"))' s.json >/dev/null || fail "s.json has no embedded graph: $(tail -c 300 s.json)"
jq -e '(.names | length) == 9 and (.graph.edges | length) == 18' h.json >/dev/null || fail "h.json: names or graph missing"
# A spec without a file embeds nothing: the spec alone rebuilds it anywhere.
expect 0 plan allgather torus:3x3 -o t.json
jq -e 'has("graph") | not' t.json >/dev/null || fail "torus:3x3's schedule embeds a graph"
# The old format: the same schedule without its graph.
jq 'del(.graph)' s.json >old.json

# From another directory, and after the files are gone.
cd "$tmp/elsewhere" || exit 2
rm "$tmp/plan/cluster.txt" "$tmp/plan/hosts.graphml"
expect 0 verify ../plan/s.json && grepcheck '^correct: allgather on file:cluster.txt'
expect 0 verify ../plan/h.json --json
jqcheck '.ok and .collective == "broadcast" and .nodes == 9'
expect 0 export ../plan/s.json --format msccl-xml && grepcheck '<algo'
expect 0 export ../plan/s.json --format msccl-json
jqcheck '.collective.name == "Allgather" and (.steps | length) == 3'
expect 0 draw ../plan/s.json -o d.svg
grep -q '<svg' d.svg || fail "draw from the embedded graph wrote no SVG"
[ -s "$tmp/err" ] && fail "a missing file with an embedded graph said something: $(cat "$tmp/err")"

# The old format where its path does not resolve: one line, naming the path and the way out.
expect 2 verify ../plan/old.json
grep -q "cannot open 'cluster.txt'" "$tmp/err" && grep -q "plan it again" "$tmp/err" ||
    fail "old schedule, missing file: $(cat "$tmp/err")"
expect 2 export ../plan/old.json --format msccl-json
# ... and where it does: verified on the file, as before.
cp "$DATA/petersen.txt" cluster.txt
expect 0 verify ../plan/old.json && grepcheck '^correct'

# A file at the schedule's path that holds another graph: checked on the schedule's own graph,
# with one warning line naming both hashes.
sed 's/^0 1$/0 2/' "$DATA/petersen.txt" >cluster.txt
expect 0 verify ../plan/s.json && grepcheck '^correct'
checks=$((checks + 1))
if [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -q '^gossip: warning: file:cluster.txt is not the graph this schedule was planned on (file fnv1a64:[0-9a-f]*, schedule fnv1a64:[0-9a-f]*)' "$tmp/err"; then
    fail "changed file: want one warning line, got: $(cat "$tmp/err")"
fi
# The same file is no news.
cp "$DATA/petersen.txt" cluster.txt
expect 0 verify ../plan/s.json
[ -s "$tmp/err" ] && fail "the same file gave a warning: $(cat "$tmp/err")"

# A damaged embedded graph: one error line, exit 2 — whether an edge moved (the hash says so),
# the hash itself was edited, or the graph is malformed.
jq -c '.graph.edges[0] = [0, 2]' ../plan/s.json >bad1.json
expect 2 verify bad1.json
grep -q 'embedded graph does not match its hash' "$tmp/err" || fail "moved edge: $(cat "$tmp/err")"
jq -c '.graph.hash = "fnv1a64:0000000000000000"' ../plan/s.json >bad2.json
expect 2 verify bad2.json
expect 2 export bad2.json --format msccl-json
jq -c '.graph.edges[0] = [0, 99]' ../plan/s.json >bad3.json
expect 2 verify bad3.json
jq -c '.graph.edges[0] = "x"' ../plan/s.json >bad4.json
expect 2 verify bad4.json
jq -c '.graph.nodes = 11' ../plan/s.json >bad5.json
expect 2 verify bad5.json
jq -c 'del(.graph.hash)' ../plan/s.json >bad6.json
expect 2 verify bad6.json
# Renamed hosts are another graph: the names are part of the hash.
jq -c '.names[0] = "other"' ../plan/h.json >bad7.json
expect 2 verify bad7.json

finish
