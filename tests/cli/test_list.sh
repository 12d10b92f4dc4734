#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_list.sh — `gossip list`: the methods, by collective, and with --topology (and a model)
# whether each applies there and, if not, why.
GOSSIP=$1
DATA=$2
. "$(dirname "$0")/lib.sh"

expect 0 list && grepcheck 'bfs-tree' && grepcheck 'flood' && grepcheck 'greedy' && grepcheck 'tree'
expect 0 list --collective allreduce --json
jqcheck '(.methods | length) >= 1 and all(.methods[]; .collective == "allreduce") and .topology == null'
expect 0 list --topology "file:$DATA/dicycle3.txt" --json
jqcheck 'any(.methods[]; .name == "tree" and .applies == false and (.why_not | type) == "string")'
# Where each method applies is data in the registry, checked in one place: the message names
# only the needs the model misses, with the method's reason.
expect 0 list --topology torus:4x4 --ports 1 --json
jqcheck 'all(.methods[]; .applies == (.why_not == null))'
jqcheck 'any(.methods[]; .name == "bfs-tree" and (.why_not | test("^needs all ports: .*use matching-tree")))'
jqcheck 'any(.methods[]; .name == "rotation" and .why_not == "needs all ports")'
jqcheck 'any(.methods[]; .name == "matching-tree" and .collective == "broadcast" and .applies)'
expect 0 list --topology torus:4x4 --packets inf --json
jqcheck 'any(.methods[]; .name == "greedy" and .why_not == "needs finite packets: for packets = inf use flood")'
jqcheck 'any(.methods[]; .name == "flood" and .applies)'
expect 0 list --topology torus:4x4 --duplex half --json
jqcheck 'any(.methods[]; .name == "doubling" and .why_not == "needs full duplex: partners exchange both ways in the same round")'
expect 0 list --topology hypercube:12 --json
jqcheck 'any(.methods[]; .name == "doubling" and (.why_not | test("^needs 2 to 2048 nodes")))'
jqcheck 'any(.methods[]; .name == "doubling" and .collective == "allreduce") and any(.methods[]; .name == "linear" and .why_not == "limited to 32 nodes")'
expect 0 list --topology "file:$DATA/petersen.txt" --json
jqcheck 'any(.methods[]; .name == "rotation" and (.why_not | test("^needs a Cayley graph given by its spec")))'
# The model options apply with --topology only (refused by presence, not by value).
expect 2 list --packets 1 && errline "list: --packets, --ports and --duplex apply with --topology"
expect 0 list --topology torus:3x3 --packets 1
# reduce has runtime algorithms only: refused without --runtime, listed with it.
expect 2 list --collective reduce && errline "list: reduce has no construction methods, only runtime algorithms"
expect 0 list --runtime --collective reduce --json
jqcheck '(.algorithms | length) >= 1 and all(.algorithms[]; .collectives | index("reduce"))'
finish
