#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_info.sh — `gossip info`: invariants, JSON keys, --help, large graphs, and every reader's
# refusal of bad or hostile input (one line, exit 2).
GOSSIP=$1
DATA=$2
. "$(dirname "$0")/lib.sh"

expect 0 info --help && grepcheck '^usage: gossip info'
expect 2 info
expect 2 info torus:3x3 --bogus

expect 0 info torus:5x5 --json
jqcheck '.nodes == 25 and .arcs == 100 and .degree.min == 4 and .degree.max == 4'
jqcheck '.diameter == 4 and .distance_counts == [1,4,8,8,4] and .average_distance == 2.5'
jqcheck '.distinct_eigenvalues == 6 and .vertex_transitive == true'
jqcheck '.complete_rotation.found == true and .complete_rotation.fixed_points == 0'
jqcheck '.bounds.diameter == 4 and .bounds.degree == 6 and .lower_bound == 6'

expect 0 info torus:6x6 --json
jqcheck '.complete_rotation.found and .complete_rotation.fixed_points == 3'
expect 0 info torus:3x7 --json
jqcheck '.complete_rotation.found == false and .complete_rotation.exhaustive == true'
expect 0 info hypercube:6 --json
jqcheck '.diameter == 6 and .distance_counts == [1,6,15,20,15,6,1] and .distinct_eigenvalues == 7'
expect 0 info star:5 --json
jqcheck '.diameter == 6 and .distance_counts == [1,4,12,30,44,26,3] and .complete_rotation.found'
expect 0 info "product(cycle:5,complete:2)" --json
jqcheck '.nodes == 10 and .diameter == 3 and .cayley == true'
expect 0 info "file:$DATA/petersen.txt" --json
jqcheck '.diameter == 2 and .distinct_eigenvalues == 3 and .vertex_transitive == true and .complete_rotation == null'
expect 0 info "file:$DATA/frucht.txt" --json
jqcheck '.vertex_transitive == false and .distance_counts_scope == "all_pairs"'
expect 0 info "file:$DATA/dicycle3.txt" --json
jqcheck '.directed == true and .diameter == 2'
expect 0 info torus:4x4
grepcheck '^diameter +4$'

# Bad input: one line, exit 2.
for spec in torus:0x5 torus:5x circulant:10: circulant:10:0 star:13 hypercube:64 foo:3 \
    "product(torus:3x3)" "file:/nonexistent" "file:$DATA/bad_token.txt" \
    "file:$DATA/bad_range.txt" "file:$DATA/bad_loop.txt" "file:$DATA"; do
    expect 2 info "$spec"
done
expect 2 info star:13 && true
grep -q 'too large\|limit' "$tmp/err" || fail "star:13 error does not say it is too large"


# Sizes that overflow 64 bits are said in floating point, never as a negative count.
for spec in complete:3037000501 star:20 hypercube:62; do
    expect 2 info "$spec" && { grep -q -- ' -[0-9]' "$tmp/err" && fail "info $spec: a negative count in: $(cat "$tmp/err")"; checks=$((checks + 1)); }
done
# A missing option value is said, in one line.
expect 2 verify x.json --seed && grep -q 'needs a value' "$tmp/err" || fail "verify --seed without a value"
expect 2 plan allgather torus:3x3 --seed 99999999999999999999 && grep -q 'too large' "$tmp/err" || fail "--seed overflow not said"
# Hostile input (issue 15): every reader refuses cleanly, with one line, before allocating.
expect 0 plan allreduce torus:3X4x5 --json && jqcheck '.verified and .nodes == 60'
expect 0 plan allreduce "torus:$(printf '0%.0s' $(seq 600))3x4" --json && jqcheck '.verified and .nodes == 12'
expect 0 info "product(circulant:10:1,3,cycle:3)" --json --no-spectrum && jqcheck '.nodes == 30 and .arcs == 180'
printf 'nodes 6 trailing garbage\n0 1\n' >"$tmp/g1.txt"
expect 2 info "file:$tmp/g1.txt" && grep -q "unexpected text after 'nodes 6'" "$tmp/err" || fail "nodes with garbage accepted"
printf 'nodes 6\nnodes 3\n0 1\n' >"$tmp/g2.txt"
expect 2 info "file:$tmp/g2.txt" && grep -q "a second 'nodes' line" "$tmp/err" || fail "two nodes lines accepted"
printf '0 1\n1\0 2\n' >"$tmp/g3.txt"
expect 2 info "file:$tmp/g3.txt" && grep -q "NUL byte" "$tmp/err" || fail "NUL byte accepted"
printf '0 1 x\n' >"$tmp/g4.txt"
expect 2 info "file:$tmp/g4.txt" && grep -q "after the edge: 'x'$" "$tmp/err" || fail "0 1 x"
expect 2 info file:/dev/zero && grep -q "NUL byte" "$tmp/err" || fail "/dev/zero"
# (No '<': a file whose first byte that is not a space is '<' reads as GraphML, about one run in 250.)
head -c 10000 /dev/urandom | tr -d '\n\000<' >"$tmp/g5.txt"
expect 2 info "file:$tmp/g5.txt" && grep -q "longer than 4096 bytes" "$tmp/err" || fail "a line without end"
printf 'nodes 1073741823\n' >"$tmp/g6.txt"
expect 2 info "file:$tmp/g6.txt" && grep -q "above the memory limit" "$tmp/err" || fail "nodes 1073741823"
printf '0 1073741823\n' >"$tmp/g7.txt"
expect 2 info "file:$tmp/g7.txt" && grep -q "above the memory limit" "$tmp/err" || fail "0 1073741823"
expect 2 info optcirc:249516416 && grep -q "above the memory limit" "$tmp/err" || fail "optcirc:249516416"
expect 2 info "product(cycle:268435456,:8)"
for k in 58 59 60 61 62; do expect 2 info "hypercube:$k" && grep -qE "the limit is|overflows" "$tmp/err" || fail "hypercube:$k"; done
expect 2 info "product(cycle:268435456,cycle:268435456)" && grep -q "arc" "$tmp/err" || fail "a product too large, found late"
GOSSIP_MEMORY_LIMIT=1M expect 2 info torus:300x300 && grep -q "memory limit of 0.0 GB" "$tmp/err" || fail "GOSSIP_MEMORY_LIMIT ignored"
expect 2 info 'perm:4:(1 0 2 3' && grep -q "unexpected end of the spec" "$tmp/err" && [ "$(tr -d '\000' <"$tmp/err" | wc -c)" = "$(wc -c <"$tmp/err")" ] || fail "perm message"
expect 2 info $'file:/nonexistent\nfile' && grep -q 'nonexistent\\nfile' "$tmp/err" || fail "a newline echoed raw"
expect 2 scatter --plot "$tmp/p.svg" --sizes '' && [ ! -e "$tmp/p.svg" ] || fail "scatter --sizes ''"
# A 127-byte schedule asking for 10^8 rounds is rejected within 300 MB of address space; a
# schedule file too large for the memory limit is refused before it is read.
printf '{"format":"gossip-schedule","version":1,"collective":"allgather","topology":"cycle:3","nodes":3,"symmetric":[[100000000,0,0]]}' >"$tmp/bigsym.json"
# (Skipped for a sanitizer build, which reserves terabytes of address space for its shadow.)
if (ulimit -v 300000; "$GOSSIP" --version >/dev/null 2>&1); then
    (ulimit -v 300000; "$GOSSIP" verify "$tmp/bigsym.json" >/dev/null 2>&1); [ $? = 1 ] || fail "symmetric [[100000000,0,0]] not rejected in 300 MB"
fi
head -c 2000000 /dev/zero | tr '\0' ' ' >"$tmp/huge.json"
GOSSIP_MEMORY_LIMIT=16M expect 2 verify "$tmp/huge.json" && grep -q "above the memory limit" "$tmp/err" || fail "huge schedule file read"
expect 0 plan allgather torus:3x3 -o "$tmp/e33.json"
expect 2 export "$tmp/e33.json" --format msccl-xml --min-bytes 99999999999999999999 && grep -q "too large" "$tmp/err" || fail "--min-bytes overflow"
# Nothing printed is false: a disconnected graph's average distance, tiny probabilities.
printf '0 1\n2 3\n' >"$tmp/dis.txt"
expect 0 info "file:$tmp/dis.txt" && grep -q 'connected only' "$tmp/out" || fail "disconnected average not qualified"
expect 0 scatter 64 --exact --rounds 7 && grep -q 'j=6 8.685e-27' "$tmp/out" || fail "small probability printed as 0"
expect 2 info "$DATA/petersen.txt" && grep -q "did you mean 'file:" "$tmp/err" || fail "a file named without file:"
# Edge lists with host names, and 1-based ids: the map is reported and kept in schedules.
printf '# hosts\nnode-a node-b\nnode-b node-c\nnode-c node-a\nnode-c gpu01.example\n' >"$tmp/hosts.txt"
expect 0 info "file:$tmp/hosts.txt" --json && jqcheck '.nodes == 4 and .names == ["node-a", "node-b", "node-c", "gpu01.example"]'
expect 0 plan allgather "file:$tmp/hosts.txt" -o "$tmp/hosts.json"
jq -e '.names[3] == "gpu01.example"' "$tmp/hosts.json" >/dev/null || fail "names not kept in the schedule"
expect 0 verify "$tmp/hosts.json"
printf '1 2\n2 3\n3 4\n4 1\n' >"$tmp/one.txt"
expect 0 info "file:$tmp/one.txt" && grep -q 'the file is 1-based' "$tmp/out" || fail "1-based not explained"
expect 0 info "file:$tmp/one.txt" --json && jqcheck '.nodes == 4 and .diameter == 2'
printf '0 1\n1 two\n' >"$tmp/mixed.txt"
expect 2 info "file:$tmp/mixed.txt" && grep -q 'names throughout' "$tmp/err" || fail "mixed ids and names"
# Did you mean: families, methods.
expect 2 info toru:4x4 && grep -q "did you mean 'torus'" "$tmp/err" || fail "no suggestion for toru"
expect 2 plan allgather torus:4x4 --method rotaton && grep -q "did you mean 'rotation'" "$tmp/err" || fail "no suggestion for rotaton"
# GraphML through igraph: the same graph as the edge list, GraphML ids as node names, kept in
# schedules; malformed documents and self-loops are one error line.
expect 0 info "file:$DATA/petersen.graphml" --json --no-spectrum
jqcheck '.nodes == 10 and .arcs == 30 and .diameter == 2 and .vertex_transitive == true and .names[9] == "n9"'
expect 0 info "file:$DATA/petersen.txt" --json --no-spectrum && jqcheck '.nodes == 10 and .arcs == 30 and .diameter == 2'
expect 0 plan allgather "file:$DATA/torus3x3-hosts.graphml" -o "$tmp/g.json"
jq -e '.names[4] == "node1-1.cluster" and .nodes == 9' "$tmp/g.json" >/dev/null || fail "GraphML names not kept in the schedule"
printf '<graphml><graph><node id="a"/><edge source="a" target="b"/></graph>' >"$tmp/bad.graphml"
expect 2 info "file:$tmp/bad.graphml" && grep -q "not a GraphML graph" "$tmp/err" || fail "malformed GraphML"
printf '<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="undirected"><node id="a"/><node id="b"/><edge source="a" target="a"/></graph></graphml>' >"$tmp/loop.graphml"
expect 2 info "file:$tmp/loop.graphml" && grep -q "self-loop at node a" "$tmp/err" || fail "GraphML self-loop"
# Blanks around punctuation in specs are tolerated; blanks inside perm words still separate.
expect 0 info "product(cycle:5, complete:2)" --json && [ "$(jq .nodes "$tmp/out")" = 10 ] || fail "spaces in product spec"
expect 0 info " torus: 4 x 4 " --json && [ "$(jq -r .topology "$tmp/out")" = torus:4x4 ] || fail "spaces in torus spec"
expect 0 info "perm:4:( 1 0 2 3 ), (1 2 3 0)" --json && [ "$(jq .nodes "$tmp/out")" = 24 ] || fail "spaces in perm spec"
# Large graphs (issue 25): a 200,000-leaf star K_{1,n}, made here. One BFS per node took more
# than 60 s; iFUB needs a few. Diameter 2; average distance 2n/(n+1) exactly (a tree: the n
# leaf-centre pairs at 1, the n(n-1)/2 leaf pairs at 2, over n(n+1)/2 pairs).
awk 'BEGIN { for (i = 1; i <= 200000; i++) print 0, i }' >"$tmp/star200k.txt"
t0=$(date +%s)
expect 0 info "file:$tmp/star200k.txt" --json
t1=$(date +%s)
jqcheck '.nodes == 200001 and .diameter == 2 and .diameter_method == "iFUB" and .bfs_runs < 100'
jqcheck '.average_distance_exact and .average_distance_stderr == 0 and (.average_distance - 400000 / 200001 | . < 1e-9 and . > -1e-9)'
jqcheck '.distance_counts_scope == "sampled_sources" and .distance_counts_sources == 64 and (.distance_counts | add) == 64 * 200001'
[ $((t1 - t0)) -le 20 ] || fail "info on the 200,000-leaf star took $((t1 - t0)) s"
expect 0 info "file:$tmp/star200k.txt" --no-spectrum
grepcheck '^diameter +2 \(exact: iFUB' && grepcheck '^average distance +1\.99999 \(exact: a tree, from subtree sizes\)$'
# Not a tree: a 300 x 300 grid (no wrap), the average distance estimated from 64 random nodes,
# within 4 standard errors of the closed form: per axis the ordered pairs' |i - j| sum to
# a(a^2 - 1)/3 = 8999900, so the total is 2 * 300^2 * 8999900 over 90000 * 89999 pairs.
awk 'BEGIN { a = 300; for (y = 0; y < a; y++) for (x = 0; x < a; x++) { v = y * a + x; if (x + 1 < a) print v, v + 1; if (y + 1 < a) print v, v + a } }' >"$tmp/grid300.txt"
expect 0 info "file:$tmp/grid300.txt" --json --no-spectrum
jqcheck '.nodes == 90000 and .diameter == 598 and .diameter_method == "iFUB" and (.average_distance_exact | not) and .average_distance_stderr > 0'
truth=$(awk 'BEGIN { printf "%.10f", 2 * 90000 * 8999900 / (90000 * 89999) }')
jqcheck "(.average_distance - $truth) as \$e | (\$e * \$e) <= 16 * .average_distance_stderr * .average_distance_stderr"
expect 0 info "file:$tmp/grid300.txt" --no-spectrum && grepcheck '^average distance +[0-9.]+ \+- [0-9.e-]+ \(estimate: BFS from 64 random nodes'
# Small graphs keep their all-pairs figures.
expect 0 info "file:$DATA/frucht.txt" --json --no-spectrum
jqcheck '.average_distance_exact and .average_distance_stderr == 0 and .distance_counts_scope == "all_pairs" and .diameter_method == "all-pairs BFS"'
finish
