#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_plan_options.sh — one way to give sizes and options (issue 25 item 4), on `gossip plan`
# and the commands that share its sizes (export, draw, info's memory limit): sizes with units and
# exponents wherever bytes or counts are taken, options that do not apply refused by presence
# (not by comparing values with defaults), and `plan --bytes B --algorithm A` forcing a runtime
# algorithm as gossip-mpi --algorithm and GOSSIP_ALGORITHM do.
GOSSIP=$1
. "$(dirname "$0")/lib.sh"

# The issue's reproductions: --bytes 1MiB, 1M, 64K, 1e6 were refused ("not an integer").
expect 0 plan allgather torus:4x4 --bytes 1MiB --json && jqcheck '.bytes == 1048576'
expect 0 plan allgather torus:4x4 --bytes 1M --json && jqcheck '.bytes == 1048576'
expect 0 plan allgather torus:4x4 --bytes 64K --json && jqcheck '.bytes == 65536'
expect 0 plan allgather torus:4x4 --bytes 1e6 --json && jqcheck '.bytes == 1000000'
expect 0 plan allgather torus:4x4 --bytes=1KB --json && jqcheck '.bytes == 1024'
expect 0 plan allgather torus:4x4 --bytes 1kB --json && jqcheck '.bytes == 1024'
expect 0 plan allgather torus:4x4 --bytes 1.5K --json && jqcheck '.bytes == 1536'
expect 0 plan allreduce torus:4x4 --bytes 1M --segment 64K --json && jqcheck '.cost.segment == 65536'
# Not whole, negative, malformed, beyond the range: one line naming the option, exit 2.
expect 2 plan allgather torus:4x4 --bytes 1.3K && errline "^gossip: error: --bytes: '1.3K' is not a whole number"
expect 2 plan allgather torus:4x4 --bytes 1e-3 && errline "--bytes: '1e-3' is not a whole number"
expect 2 plan allgather torus:4x4 --bytes -1 && errline "--bytes: '-1' is negative"
expect 2 plan allgather torus:4x4 --bytes 1X && errline "--bytes: '1X' is not a size"
expect 2 plan allgather torus:4x4 --bytes 2T && errline "--bytes: '2T' is too large \(at most 1099511627776\)"
expect 2 plan allgather torus:4x4 --bytes 18446744073709551616 && errline "--bytes: .* is too large"
expect 2 plan allreduce torus:4x4 --bytes 1M --segment 0.5 && errline "--segment: '0.5' is not a whole number"
# The memory limit takes the same sizes, and a malformed one is said, not ignored.
GOSSIP_MEMORY_LIMIT=2G expect 0 info cycle:5
GOSSIP_MEMORY_LIMIT=1KiB expect 2 info torus:30x30 && errline "memory limit"
GOSSIP_MEMORY_LIMIT=2X expect 2 info cycle:5 && errline "^gossip: error: GOSSIP_MEMORY_LIMIT: '2X' is not a size"
# Other sizes and counts: export's byte limits, scatter's trials, revolve's steps simulated.
expect 0 plan allgather torus:3x3 -o "$tmp/t33.json"
expect 0 export "$tmp/t33.json" --format msccl-xml --min-bytes 1K --max-bytes 1MiB && grepcheck 'minBytes="1024"' && grepcheck 'maxBytes="1048576"'
expect 2 export "$tmp/t33.json" --format msccl-json --max-bytes 1M && errline "export: --max-bytes applies to msccl-xml"
expect 0 scatter 16 --simulate --trials 1K --seed 1 --json && jqcheck '.trials == 1024'
expect 0 revolve 7 --simulate 1e2 --json && jqcheck '.steps == 100'

# Presence, not value: --alpha 1e-6 (the default) without --bytes was accepted.
expect 2 plan allgather torus:4x4 --alpha 1e-6 && errline "plan: --alpha applies with --bytes only"
for o in "--beta 1e-10" "--gamma 2e-10" "--hop 1e-7" "--overhead 2e-7" "--segment 0" "--rank 0" "--shared-memory" "--algorithm auto"; do
    expect 2 plan allgather torus:4x4 $o && errline "plan: ${o%% *} (applies with --bytes only|chooses among the runtime's algorithms)"
done
for o in "--packets 1" "--ports all" "--duplex full" "--seed 1" "--prove" "--time-limit 60" "--degree 2" "-o $tmp/x.json"; do
    expect 2 plan allgather torus:4x4 --bytes 1K $o && errline "plan: ${o%% *} does not apply with --bytes"
done
expect 2 plan allgather torus:4x4 --time-limit 60 && errline "plan: --time-limit applies with --prove or --method sat"
expect 2 plan allgather torus:4x4 --root 0 && errline "plan: --root applies to broadcast and reduce"
expect 0 plan broadcast torus:4x4 --root 0
expect 0 plan reduce torus:4x4 --bytes 1K --root 3
expect 2 draw "$tmp/t33.json" -o "$tmp/d.svg" --method auto && errline "draw: --method applies to a SPEC"
expect 2 draw torus:3x3 -o "$tmp/d.svg" --topology-only --packets 1 && errline "draw: --packets plans a schedule"

# One vocabulary: --algorithm picks a runtime algorithm; --method a construction.
expect 0 plan allreduce torus:4x4 --bytes 1K --json && jqcheck '.forced == false'
auto_choice=$(jq -r .choice "$tmp/out")
expect 0 plan allreduce torus:4x4 --bytes 1K --algorithm tree --json
jqcheck '.choice == "tree" and .forced and ([.candidates[] | select(.chosen)] | length == 1 and .[0].algorithm == "tree")'
[ "$auto_choice" != tree ] || fail "the model's choice is already tree: the forcing test proves nothing"
expect 0 plan allgather torus:4x4 --bytes 1M --algorithm=flood && grepcheck '^\* flood ' && grepcheck 'forced by --algorithm'
expect 0 plan allgather torus:4x4 --bytes 1M --algorithm auto --json && jqcheck '.forced == false'
expect 0 plan broadcast torus:4x4 --bytes 1M --alg tree --rank 5 --json && jqcheck '.choice == "tree" and .rank == 5 and (.program | length) >= 1'
expect 2 plan allreduce torus:4x4 --bytes 1K --algorithm rsag && errline "no runtime algorithm 'rsag'; did you mean 'rs-ag'\? The allreduce algorithms: auto, rs-ag, .*tree, fabric-trees, fabric-shallow, fabric-rings \(gossip list --runtime\)"
# An option the help names as another command's ("gossip list --runtime") is not suggested: it
# said "unknown option '--runtime'; did you mean '--runtime'?".
expect 2 plan allreduce dgx:8x2 --runtime && errline "^gossip: error: plan: unknown option '--runtime' \(see 'gossip plan --help'\)$"
expect 2 plan allreduce dgx:8x2 --runtim && errline "^gossip: error: plan: unknown option '--runtim' \(see 'gossip plan --help'\)$"
expect 2 plan allreduce dgx:8x2 --tunign x && errline "did you mean '--tuning'"
expect 2 plan allgather torus:4x4 --bytes 1K --algorithm nonsense && errline "no runtime algorithm 'nonsense'; the allgather algorithms: auto, "
expect 2 plan allgather torus:4x4 --bytes 1K --algorithm gather && errline "--algorithm gather does not run allgather"
expect 2 plan allreduce torus:4x4 --bytes 1K --method rs-ag && errline "plan: --method names a construction method .*'rs-ag' is a runtime algorithm: give --algorithm rs-ag"
expect 0 plan allreduce torus:4x4 --bytes 1K --method rotation
expect 2 plan allreduce torus:4x4 --algorithm rs-ag && errline "plan: --algorithm .*applies with --bytes only; a schedule's construction is --method"
# Every algorithm 'gossip list --runtime' names for a collective is accepted for it by name.
expect 0 list --runtime --collective allgather --json
for a in $(jq -r '.algorithms[].name' "$tmp/out"); do
    timeout 60 "$GOSSIP" plan allgather hypercube:4 --bytes 64K --algorithm "$a" --json >"$tmp/a.json" 2>"$tmp/a.err"
    rc=$?
    checks=$((checks + 1))
    if [ $rc = 0 ]; then jq -e --arg a "$a" '.choice == $a and .forced' "$tmp/a.json" >/dev/null || fail "--algorithm $a: not the choice"
    elif [ $rc = 2 ]; then grep -q "does not apply" "$tmp/a.err" || fail "--algorithm $a: $(cat "$tmp/a.err")"
    else fail "--algorithm $a exited $rc"; fi
done
finish
