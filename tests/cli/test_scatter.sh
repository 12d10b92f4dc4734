#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_scatter.sh — `gossip scatter`: JSON keys, reproducibility, the plot, bad input.
GOSSIP=$1
. "$(dirname "$0")/lib.sh"
expect 0 scatter --help && grepcheck '^usage: gossip scatter'
expect 0 scatter 4 --exact --json
jqcheck '.n == 4 and (.p[2] * 10000 | floor) == 2222 and (.mean > 3.19 and .mean < 3.20) and .p[-1] > 1 - 1e-12'
expect 0 scatter 128 --exact --rounds 11 --json
jqcheck '(.p | length) == 12 and (.p[11] - 0.1020 | fabs) < 1.5e-4'
expect 0 scatter 64 --simulate --trials 500 --seed 3 --json
jqcheck '.n == 64 and .trials == 500 and .seed == 3 and .variant == "push" and .stderr > 0 and .quantiles["0.5"] >= 9 and (.p | length) > 5'
cp "$tmp/out" "$tmp/first"
expect 0 scatter 64 --simulate --trials 500 --seed 3 --json
checks=$((checks + 1))
[ "$(jq -c 'del(.sends_per_second)' "$tmp/first")" = "$(jq -c 'del(.sends_per_second)' "$tmp/out")" ] || fail "same seed, different results"
expect 0 scatter 1000 --simulate --trials 20 --seed 1 --variant push-pull
grepcheck 'Theorem 2'
expect 0 scatter --plot "$tmp/p.svg" --sizes 8,64 --trials 100
xmllint --noout "$tmp/p.svg" || fail "plot is not well-formed SVG"
expect 2 scatter
expect 2 scatter 1 --exact
expect 2 scatter 64
expect 2 scatter 64 --exact --simulate --trials 3 --seed 1
expect 2 scatter 64 --simulate --trials 10
expect 2 scatter 64 --simulate --trials 0 --seed 1
expect 2 scatter 20000 --exact
expect 2 scatter 64 --simulate --trials 5 --seed 1 --variant gossip
expect 2 scatter --plot "$tmp/q.svg" --sizes 8,x
# Options that do not apply are refused by presence, not by value.
expect 2 scatter 16 --exact --seed 1 && errline "scatter: --seed applies with --simulate"
expect 2 scatter 16 --exact --sizes 8 && errline "scatter: --sizes applies with --plot only"
expect 2 scatter --plot "$tmp/p.svg" --json && errline "scatter: --json does not apply with --plot"
finish
