#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/problemb.sh — Problem B for the vertex-transitive graphs of the families with N <= 32:
# the diameter D, the best exact construction (auto without the search), and whether the
# numeric search finds a D-round linear protocol (method `linear`, verified when found).
# Usage: bench/problemb.sh [BUILD_DIR] > table.md
set -uo pipefail
B=${1:-build}
G="$B/gossip"
D="$(cd "$(dirname "$0")/../tests/data" && pwd)"
specs=()
for k in 1 2 3 4 5; do specs+=("hypercube:$k"); done
specs+=(star:3 star:4 "file:$D/petersen.txt" "perm:4:(1 0 2 3),(2 1 0 3),(3 2 1 0)")
for n in 3 4 5 6 7 8 10 12 16 20 24 32; do specs+=("cycle:$n" "complete:$n"); done
for a in 3 4 5 6; do for b in $(seq $a 10); do [ $((a * b)) -le 32 ] && specs+=("torus:${a}x${b}"); done; done
specs+=(torus:2x2x2 torus:2x2x4 torus:2x4x4 torus:3x3x3 torus:2x3x4 torus:2x2x3)
specs+=("product(cycle:5,complete:2)" "product(cycle:3,complete:4)" "product(complete:3,complete:3)" "product(star:3,cycle:5)")
# Degree-4 circulants, one per multiplier class (s1 < s2 < N/2, connected).
gcd() { local a=$1 b=$2; while [ "$b" -ne 0 ]; do local t=$((a % b)); a=$b; b=$t; done; echo "$a"; }
for n in $(seq 7 ${MAXCIRC:-24}); do
    for s1 in $(seq 1 $(((n - 1) / 2))); do
        for s2 in $(seq $((s1 + 1)) $(((n - 1) / 2))); do
            [ "$(gcd "$(gcd "$n" "$s1")" "$s2")" = 1 ] || continue
            canon=1
            for u in $(seq 2 $((n - 1))); do
                [ "$(gcd "$u" "$n")" = 1 ] || continue
                a=$((u * s1 % n)); b=$((u * s2 % n)); [ $a -gt $((n - a)) ] && a=$((n - a)); [ $b -gt $((n - b)) ] && b=$((n - b))
                [ $a -gt $b ] && { t=$a; a=$b; b=$t; }
                if [ $a -lt "$s1" ] || { [ $a -eq "$s1" ] && [ $b -lt "$s2" ]; }; then canon=0; break; fi
            done
            [ $canon = 1 ] && specs+=("circulant:$n:$s1,$s2")
        done
    done
done
echo "| graph | N | D | best construction | its rounds | D-round linear protocol (Problem B) |"
echo "|---|---|---|---|---|---|"
found=0; missing=0
# One error file per run: two runs at once (two checkouts) must not read each other's.
errf=$(mktemp)
trap 'rm -f "$errf"' EXIT
for s in "${specs[@]}"; do
    best=$("$G" plan allreduce "$s" --json) || continue
    # spectral and linear schedules are single-value linear protocols: Problem B is answered.
    case $(jq -r .method <<<"$best") in
    spectral | linear) [ "$(jq .rounds <<<"$best")" = "$(jq .diameter <<<"$best")" ] && lin=$best || lin=$("$G" plan allreduce "$s" --method linear --json 2>"$errf") ;;
    *) lin=$("$G" plan allreduce "$s" --method linear --json 2>"$errf") ;;
    esac
    name=${s/file:$D\//file:}
    if [ -n "$lin" ]; then r="found (verified)"; found=$((found + 1)); else r="not found: $(sed 's/.*(\(.*\))/\1/' "$errf")"; missing=$((missing + 1)); fi
    jq -rn --argjson b "$best" --arg s "$name" --arg r "$r" '"| \($s) | \($b.nodes) | \($b.diameter) | \($b.method) | \($b.rounds) | \($r) |"'
done
echo
echo "$found graphs with a D-round linear protocol found, $missing without."
