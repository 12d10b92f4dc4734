#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_gossip.sh — `gossip` itself: --version, -V, --help, `help`, a missing or unknown
# command (exit 2, with a suggestion for a near one).
GOSSIP=$1
. "$(dirname "$0")/lib.sh"

expect 0 --version && grepcheck '^gossip [0-9]+\.[0-9]+\.[0-9]+$' && grepcheck '^License GPL-3\.0-or-later: GNU GPL version 3 or later'
expect 0 --help && grepcheck 'info'
expect 0 help info && grepcheck '^usage: gossip info'
expect 2
expect 2 frobnicate
# Did you mean: commands; -V and help help.
expect 2 pln && grep -q "did you mean 'plan'" "$tmp/err" || fail "no suggestion for pln"
expect 2 frobnicate && ! grep -q "did you mean" "$tmp/err" || fail "a far word got a suggestion"
expect 0 -V && grep -qx "gossip [0-9.]*" "$tmp/out" || fail "gossip -V"
expect 0 help help && grep -q "usage: gossip" "$tmp/out" || fail "gossip help help"
finish
