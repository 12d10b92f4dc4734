#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_mpi_options.sh — gossip-mpi's options (issue 25 item 4): gossip's getopt_long helper
# (--opt=value, prefixes, did you mean), --version and --help without MPI, sizes for counts and
# bytes, counts beyond MPI's int refused (never truncated), options that do not apply refused by
# presence, --algorithm and --method checked against their registries; one error line from
# rank 0 only. Usage: test_mpi_options.sh GOSSIP_MPI
GM=$1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 GOSSIP_TUNING=none
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
failn=0
fail() { failn=$((failn + 1)); echo "FAIL: $*"; }
# mpi WANT REGEX N ARGS... : mpirun -n N gossip-mpi ARGS exits WANT (2: exactly one
# "gossip-mpi: error:" line, whatever the ranks) and its output matches REGEX.
mpi() {
    local want=$1 re=$2 n=$3; shift 3
    timeout 120 mpirun --oversubscribe -n "$n" "$GM" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" != "$want" ]; then fail "gossip-mpi $* exited $rc, want $want: $(grep -v '^--\|^ *$' "$tmp/err" | head -3) $(head -c 300 "$tmp/out")"; return; fi
    if [ "$want" = 2 ] && [ "$(grep -c '^gossip-mpi: error: ' "$tmp/err")" != 1 ]; then fail "gossip-mpi $*: want one error line: $(cat "$tmp/err")"; return; fi
    if ! grep -qE -- "$re" "$tmp/out" "$tmp/err"; then fail "gossip-mpi $*: no '$re' in: $(head -c 400 "$tmp/out") $(head -c 400 "$tmp/err")"; return; fi
    pass=$((pass + 1))
}
# Help and version: no MPI needed, printed once under mpirun.
"$GM" --version >"$tmp/v" 2>&1 && grep -q '^gossip-mpi [0-9]' "$tmp/v" && pass=$((pass + 1)) || fail "gossip-mpi --version: $(cat "$tmp/v")"
"$GM" --help | grep -q -- '--algorithm A' && pass=$((pass + 1)) || fail "gossip-mpi --help"
"$GM" help calibrate | grep -q '^usage: mpirun -n P gossip-mpi calibrate' && pass=$((pass + 1)) || fail "gossip-mpi help calibrate"
mpi 0 '^gossip-mpi [0-9]' 4 --version
[ "$(grep -c '^gossip-mpi ' "$tmp/out")" = 1 ] && pass=$((pass + 1)) || fail "--version under mpirun -n 4 printed $(grep -c '^gossip-mpi ' "$tmp/out") times"
mpi 0 '^usage: mpirun -n P gossip-mpi run' 2 run --help
# The issue's reproductions: --count=1000 failed; --count 4294967297 silently ran 1 element.
mpi 0 '4 ranks, 1000 elements, .*results identical' 4 run allgather torus:2x2 --count=1000 --reps 1
mpi 2 "^gossip-mpi: error: --count: '4294967297' is too large \(at most 2147483647\)" 4 run allgather torus:2x2 --count 4294967297
mpi 0 '4 ranks, 1024 elements, .*results identical' 4 run allgather torus:2x2 --count 1K --reps 1
mpi 0 '4 ranks, 1000 elements, .*results equal' 4 run allreduce torus:2x2 --count 1e3 --reps 1
mpi 0 '4 ranks, 10 elements' 4 run allgather torus:2x2 --cou 10 --rep 1
mpi 2 "run: unknown option '--cout'; did you mean '--count'\? \(see 'gossip-mpi run --help'\)" 4 run allgather torus:2x2 --cout 5
mpi 2 "run: --s is ambiguous \(--segment, --shared-memory\)" 2 run allgather complete:2 --s 4
mpi 2 "run: --approximate takes no value" 2 run allreduce complete:2 --approximate=1
mpi 2 "unknown command 'rn'; did you mean 'run'\?" 2 rn allgather complete:2
mpi 2 "--count: '1.5' is not a whole number" 2 run allgather complete:2 --count 1.5
mpi 2 "--count: '-1' is negative" 2 run allgather complete:2 --count -1
mpi 2 "--reps: '0' is too small" 2 run allgather complete:2 --reps 0
# Counts that fit an int but whose products do not: refused, not truncated.
mpi 2 "run: --count 1073741824: allgather of double on 4 ranks would pass MPI an int count above 2\^31 - 1; at most 67108863 elements" \
    4 run allgather torus:2x2 --count 1G
mpi 2 "run: --count 1073741824: reduce-scatter .* at most 536870911 elements" 4 run reduce-scatter torus:2x2 --count 1G --type int8
mpi 2 "bench: --max-bytes 2147483647: allgather on 2 ranks .* at most 1073741816 bytes" 2 bench allgather complete:2 --max-bytes 2147483647
mpi 2 "--max-bytes: '2G' is too large \(at most 2147483647\)" 2 bench allgather complete:2 --max-bytes 2G
mpi 0 '^64 ' 2 bench allgather complete:2 --max-bytes=64 --reps 1
# Presence, not value.
mpi 2 "bench: --count does not apply" 2 bench allgather complete:2 --count 1024
mpi 2 "run: --max-bytes applies to bench" 2 run allgather complete:2 --max-bytes 1M
mpi 2 "run: --root applies to broadcast and reduce, not allgather" 2 run allgather complete:2 --root 0
mpi 2 "run: --op applies to the reductions" 2 run broadcast complete:2 --op sum
mpi 2 "run: --segment chooses among the exact runtime algorithms, not with --approximate" 2 run allreduce complete:2 --approximate --segment 0
mpi 2 "run: --root 2 is not a rank \(0..1\)" 2 run broadcast complete:2 --root 2
# One vocabulary: --algorithm a runtime algorithm, --method a construction.
mpi 0 'rs-ag: results equal' 4 run allreduce torus:2x2 --algorithm=rs-ag --reps 1
mpi 2 "run: --algorithm: no runtime algorithm 'rsag'; did you mean 'rs-ag'\? The allreduce algorithms: auto, rs-ag" 4 run allreduce torus:2x2 --algorithm rsag
mpi 2 "run: --algorithm gather does not run allgather" 4 run allgather torus:2x2 --algorithm gather
mpi 2 "run: --method names a construction method .*give --algorithm rs-ag" 4 run allreduce torus:2x2 --method rs-ag
mpi 2 "^gossip-mpi: error: --max-bytes: '512' is too small \(at least 1024\)" 2 calibrate --max-bytes 512
mpi 2 "calibrate: unknown option '--repz'; did you mean '--reps'\?" 2 calibrate --repz 2
echo "$pass passed, $failn failed"
[ "$failn" = 0 ]
