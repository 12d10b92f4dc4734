#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/fuzz.sh — long libFuzzer campaigns against gossip's readers (tests/fuzz): each target
# runs RUNS executions (default 10^6) from its seed corpus and dictionary, inputs up to 4 KB,
# 1 s and 256 MB per input at most. Prints per target: executions, seconds, coverage (edges),
# features, corpus size, and findings (crash-, timeout-, leak-, oom- files left in OUT).
#   bench/fuzz.sh [RUNS] [OUT]          (builds the fuzz preset with clang when needed)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000000}
out=${2:-build-fuzz/campaign}
mkdir -p "$out"
out=$(cd "$out" && pwd)
root=$PWD
export root
[ -x build-fuzz/tests/fuzz/fuzz_spec ] || { CC=clang cmake --preset fuzz >/dev/null && cmake --build --preset fuzz -j "$(nproc)" >/dev/null; }
targets="fuzz_spec fuzz_edges fuzz_sched fuzz_msccl fuzz_options"
run_one() {
    local t=$1 runs=$2 out=$3
    mkdir -p "$out/$t/corpus"
    local start=$SECONDS
    (cd "$out/$t" && "$root/build-fuzz/tests/fuzz/$t" -runs="$runs" -max_len=4096 -timeout=1 -rss_limit_mb=2048 -malloc_limit_mb=256 \
        -print_final_stats=1 -dict="$root/tests/fuzz/$t.dict" corpus "$root/tests/fuzz/corpus/$t" >log 2>&1) || true
    local secs=$((SECONDS - start))
    local execs cov ft corp finds
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/$t/log" | grep -o '[0-9]*$' || echo 0)
    cov=$(grep -o 'cov: [0-9]*' "$out/$t/log" | tail -1 | grep -o '[0-9]*' || echo 0)
    ft=$(grep -o 'ft: [0-9]*' "$out/$t/log" | tail -1 | grep -o '[0-9]*' || echo 0)
    corp=$(ls "$out/$t/corpus" | wc -l)
    finds=$(ls "$out/$t" | grep -cE '^(crash|timeout|leak|oom|slow-unit)-' || true)
    echo "| $t | $execs | $secs | $cov | $ft | $corp | $finds |"
}
export -f run_one
echo "| target | executions | seconds | coverage (edges) | features | corpus | findings |"
echo "|---|---:|---:|---:|---:|---:|---:|"
printf '%s\n' $targets | xargs -P "$(nproc)" -I{} bash -c 'run_one {} '"$runs"' '"$out"
