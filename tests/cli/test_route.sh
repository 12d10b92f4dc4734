#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_route.sh — `gossip route`: routes in optimal circulants, with failed nodes and links,
# and distances on other circulants; bad input is one line, exit 2.
GOSSIP=$1
. "$(dirname "$0")/lib.sh"

# Routing in optimal circulants.
expect 0 route optcirc:35 0 17 --json
jqcheck '.address == [3,1] and .distance == 4 and .hops == 4 and .delivered and .path[0] == 0 and .path[-1] == 17'
expect 0 route optcirc:35 0 17 --fail-node 5 --fail-link 0-4 --json
jqcheck '.delivered and (.path | index(5)) == null and .path[1] != 4'
expect 1 route optcirc:13 0 6 --fail-node 2 --fail-node 3 --fail-node 10 --fail-node 11
grepcheck 'unreachable'
expect 2 route torus:4x4 0 3
expect 2 route optcirc:35 0 35
expect 2 route optcirc:35 0 17 --fail-link 0-1
expect 2 route optcirc:35 0 17 --fail-link x
expect 2 route optcirc:35 0
# Nothing printed is false: a route's distance on a non-optimal circulant (0 to 50 in
# G(100; 1, 2) is 25 jumps of 2).
expect 0 route circulant:100:1,2 0 50 --json && jqcheck '.distance == 25 and .hops == 25'
expect 0 route circulant:100:3,4 0 50 --json && jqcheck '.distance == 13'
finish
