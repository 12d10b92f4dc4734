#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_revolve.sh — `gossip revolve`: the revolving hierarchy's sequences, simulations and
# their bad input (one line, exit 2).
GOSSIP=$1
. "$(dirname "$0")/lib.sh"

# The revolving hierarchy.
expect 0 revolve 7 --json --steps 2
jqcheck '.N == 7 and .n == 3 and .labels == [0,6,3,5,1,2,4] and .cds == [-2,-1,1,3] and (.messages | length) == 2 and .messages[0] == [[0,6],[1,2],[3,6],[4,2]]'
jqcheck '(.sent | unique) == [4] and (.received | unique) == [4]'
expect 0 revolve 31 && grepcheck 'CDS +-8 -4 -2 -1 1 3 7 15 \(8 elements\)'
expect 0 revolve 16 --variant snext --json --steps 1
jqcheck '.labels == [4,3,8,2,11,7,14,1,5,10,9,6,12,13,15,0] and .cds == [-6,-4,-3,-1,1,3,5] and .messages[0] == [[4,3],[5,10],[8,2],[9,6],[11,7],[12,13],[14,1],[15,0]]'
expect 0 revolve 16 --variant snext2 --json
jqcheck '.labels == [0,15,7,14,3,6,10,13,1,2,4,5,8,9,11,12] and (.cds | length) == 4 and (.sent | unique) == [8]'
expect 0 revolve 16 --variant bcnext --json --steps 1
jqcheck '.messages[0] == [[4,3],[5,11],[6,14],[7,0],[10,2],[12,9],[13,8],[15,1]]'
expect 0 revolve 63 --simulate 500 && grepcheck 'all equal the true maximum' && grepcheck '32.00 per result'
expect 0 revolve 64 --variant bcnext --simulate 500 && grepcheck 'one per step from step 5 on'
expect 0 revolve 100 --arity 3 && grepcheck 'at most 1 per real process \(limit 2\)'
expect 0 revolve 10 --arity 2 --json
jqcheck '.positions == 15 and .virtual == 5 and .max_hosted <= 1 and (.sent | length) == 10'
expect 2 revolve 10 --arity 1
expect 0 revolve 64 --variant bcnext --simulate 300 --async 5 && grepcheck 'all equal the true maximum' && grepcheck 'asynchronous +delays 1..5'
expect 2 revolve 63 --simulate 0
expect 2 revolve 15 --variant snext
expect 2 revolve 10
expect 2 revolve 7 --variant snext2x
expect 2 revolve
expect 2 revolve 2
# A missing option value is said, in one line.
expect 2 revolve 7 --steps && grep -q 'needs a value' "$tmp/err" || fail "revolve --steps without a value"
expect 2 revolve 7 --simulate 10 --steps 4 && errline "revolve: --steps prints message steps"
finish
