#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/general.sh — allgather (p = 1, all ports, full duplex) on graphs given as edge lists,
# each beside its lower bound: tori, meshes and hypercubes written with their nodes renumbered
# at random (gossip recognises the Cayley graphs among them with nauty and plans them as their
# spec; the greedy runs on everything, forced, for comparison), random regular graphs and a
# dragonfly. The graphs are generated here with awk (no other tool needed), seeded, so every
# run writes the same files. Prints a Markdown table: graph, nodes, degree, lower bound, rounds
# and seconds of `gossip plan` (auto), rounds and seconds of the greedy.
# Usage: bench/general.sh [BUILD_DIR] [WORK_DIR]
set -euo pipefail
B=${1:-build}
D=${2:-bench/out/general}
mkdir -p "$D"

# Renumber the nodes of an edge list at random (seeded): the file no longer looks like its spec.
shuffle() { # SEED N < edges > edges
    awk -v seed="$1" -v n="$2" 'BEGIN { srand(seed); for (i = 0; i < n; i++) p[i] = i
        for (i = n - 1; i > 0; i--) { j = int(rand() * (i + 1)); t = p[i]; p[i] = p[j]; p[j] = t } }
        { print p[$1], p[$2] }'
}
torus() { awk -v a="$1" -v b="$2" 'BEGIN { for (i = 0; i < a; i++) for (j = 0; j < b; j++) {
    x = i * b + j; print x, ((i + 1) % a) * b + j; print x, i * b + (j + 1) % b } }'; }
mesh() { awk -v a="$1" -v b="$2" 'BEGIN { for (i = 0; i < a; i++) for (j = 0; j < b; j++) { x = i * b + j
    if (i + 1 < a) print x, x + b; if (j + 1 < b) print x, x + 1 } }'; }
hypercube() { awk -v k="$1" 'BEGIN { n = 2 ^ k; for (x = 0; x < n; x++) for (j = 0; j < k; j++) {
    b = 2 ^ j; y = int(x / b) % 2 ? x - b : x + b; if (x < y) print x, y } }'; }
# A random d-regular simple graph (d even): the union of d/2 random Hamiltonian cycles, a cycle
# drawn again when it would repeat an edge (the configuration model almost never gives a simple
# graph at d = 8).
regular() { awk -v n="$1" -v d="$2" -v seed="$3" 'BEGIN { srand(seed)
    for (c = 0; c < d / 2; c++) {
        for (;;) { for (i = 0; i < n; i++) p[i] = i
            for (i = n - 1; i > 0; i--) { j = int(rand() * (i + 1)); t = p[i]; p[i] = p[j]; p[j] = t }
            ok = 1; delete f
            for (i = 0; i < n && ok; i++) { u = p[i]; v = p[(i + 1) % n]; if (u > v) { t = u; u = v; v = t }
                if (((u, v) in e) || ((u, v) in f)) ok = 0; else f[u, v] = 1 }
            if (ok) break }
        for (k in f) { e[k] = 1; split(k, uv, SUBSEP); print uv[1], uv[2] } } }'; }
# A dragonfly: g = a h + 1 groups of a routers, each group complete, each router with h global
# links, group i's link number q (0 .. a h - 1) going to group (i + q + 1) mod g (the balanced
# "absolute" arrangement: every pair of groups joined once).
dragonfly() { awk -v a="$1" -v h="$2" 'BEGIN { g = a * h + 1
    for (i = 0; i < g; i++) { for (r = 0; r < a; r++) for (s = r + 1; s < a; s++) print i * a + r, i * a + s
        for (q = 0; q < a * h; q++) { j = (i + q + 1) % g; if (j < i) continue
            qq = (i - j - 1 + 2 * g) % g; print i * a + int(q / h), j * a + int(qq / h) } } }'; }

gen() { # NAME N GENERATOR...
    local name=$1 n=$2; shift 2
    [ -s "$D/$name.txt" ] || "$@" | shuffle 7 "$n" >"$D/$name.txt"
}
gen torus32x32 1024 torus 32 32
gen torus16x16 256 torus 16 16
gen mesh32x32 1024 mesh 32 32
gen hypercube8 256 hypercube 8
gen hypercube10 1024 hypercube 10
gen regular4-256 256 regular 256 4 1
gen regular4-1000 1000 regular 1000 4 2
gen regular8-1000 1000 regular 1000 8 3
gen dragonfly-a8h4 264 dragonfly 8 4

now() { date +%s.%N; }
echo "| graph (edge list) | nodes | degree | lower bound | gossip plan: rounds (method) | seconds | greedy: rounds | seconds |"
echo "|---|---:|---:|---:|---|---:|---:|---:|"
for name in torus16x16 torus32x32 mesh32x32 hypercube8 hypercube10 regular4-256 regular4-1000 regular8-1000 dragonfly-a8h4; do
    f="file:$D/$name.txt"
    t0=$(now); a=$("$B/gossip" plan allgather "$f" --json); t1=$(now)
    g=$("$B/gossip" plan allgather "$f" --method greedy --json); t2=$(now)
    deg=$("$B/gossip" info "$f" --json --no-spectrum --no-rotation | jq -r '.degree | if .min == .max then (.min | tostring) else "\(.min)..\(.max)" end')
    jq -rn --argjson a "$a" --argjson g "$g" --arg name "$name" --arg deg "$deg" \
        --arg ta "$(echo "$t1 - $t0" | bc)" --arg tg "$(echo "$t2 - $t1" | bc)" \
        '"| \($name) | \($a.nodes) | \($deg) | \($a.lower_bound) | \($a.rounds) (\($a.method)) | \($ta | tonumber * 100 | round / 100) | \($g.rounds) | \($tg | tonumber * 100 | round / 100) |"'
done
