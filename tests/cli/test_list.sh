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
# The model options apply with --topology only (refused by presence, not by value).
expect 2 list --packets 1 && errline "list: --packets, --ports and --duplex apply with --topology"
expect 0 list --topology torus:3x3 --packets 1
finish
