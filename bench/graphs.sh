#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/graphs.sh — edge-list generators, sourced by bench/general.sh and tests/cli/test_general.sh:
# awk only (no other tool needed), seeded, so every run writes the same file. Each prints
# "u v" lines on stdout: torus A B, mesh A B, hypercube K, regular N D SEED (D even), dragonfly
# A H; shuffle SEED N renumbers the nodes of an edge list at random.

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

