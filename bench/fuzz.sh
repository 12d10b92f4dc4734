#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/fuzz.sh — long libFuzzer campaigns against gossip's readers (tests/fuzz): each target
# runs RUNS executions (default 10^6) on a fresh copy of its seed corpus (tests/fuzz/corpus/NAME
# is only read: new inputs go to OUT/NAME/corpus) with its dictionary, inputs up to 4 KB, 1 s
# and 256 MB per input at most. Prints per target: executions, seconds, coverage (edges),
# features, corpus size, findings (crash-, timeout-, leak-, oom-, slow-unit- files left in
# OUT/NAME) and libFuzzer's log. Exits 1 when a target has a finding or stops early.
#   bench/fuzz.sh [RUNS] [OUT] [TARGET...]
# Environment: JOBS (targets run at once; default 1: one core), FUZZ_BIN (the directory of the
# built targets; default build-fuzz/tests/fuzz, built with the fuzz preset when missing), NICE
# (default 10). The slow-labelled tests NAME_long run this script on one target each.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
runs=${1:-1000000}
out=${2:-build-fuzz/campaign}
shift 2 2>/dev/null || shift $#
targets=${*:-"fuzz_spec fuzz_edges fuzz_sched fuzz_msccl fuzz_options"}
jobs=${JOBS:-1}
bin=${FUZZ_BIN:-$root/build-fuzz/tests/fuzz}
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -z "${FUZZ_BIN:-}" ] && [ ! -x "$bin/fuzz_spec" ]; then
    CC=clang cmake --preset fuzz >/dev/null && cmake --build --preset fuzz -j "$jobs" >/dev/null
fi
export root runs out bin NICE=${NICE:-10}
run_one() {
    local t=$1 dir=$out/$1
    [ -x "$bin/$t" ] || { echo "| $t | not built ($bin/$t) | | | | | 1 |"; return 1; }
    # A fresh copy of the seed corpus every time: the campaign starts where the repository
    # stands, and what it finds stays in OUT until someone adds it deliberately.
    rm -rf "$dir"
    mkdir -p "$dir/corpus"
    cp "$root/tests/fuzz/corpus/$t/"* "$dir/corpus/"
    local start rc=0
    start=$(date +%s.%N)
    (cd "$dir" && nice -n "$NICE" "$bin/$t" -runs="$runs" -max_len=4096 -timeout=1 -rss_limit_mb=2048 -malloc_limit_mb=256 \
        -print_final_stats=1 -dict="$root/tests/fuzz/$t.dict" corpus >log 2>&1) || rc=$?
    local secs execs cov ft corp finds
    secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/log" | grep -o '[0-9]*$' || echo 0)
    cov=$(grep -o 'cov: [0-9]*' "$dir/log" | tail -1 | grep -o '[0-9]*' || echo 0)
    ft=$(grep -o 'ft: [0-9]*' "$dir/log" | tail -1 | grep -o '[0-9]*' || echo 0)
    corp=$(find "$dir/corpus" -type f | wc -l)
    finds=$(find "$dir" -maxdepth 1 -regextype egrep -regex '.*/(crash|timeout|leak|oom|slow-unit)-.*' | wc -l)
    echo "| $t | $execs | $secs | $cov | $ft | $corp | $finds | $dir/log |"
    [ "$rc" -eq 0 ] && [ "$finds" -eq 0 ] && [ "$execs" -ge "$runs" ]
}
export -f run_one
echo "| target | executions | seconds | coverage (edges) | features | corpus | findings | log |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
printf '%s\n' $targets | xargs -P "$jobs" -I{} bash -c 'run_one {}'
