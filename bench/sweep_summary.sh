#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/sweep_summary.sh — markdown summary of the sweep TSVs in docs/data (see bench/sweep.c).
set -euo pipefail
cd "$(dirname "$0")/../docs/data"
echo "| family | p | graphs | meet the lower bound | above it | meet ceil((N-1)/(delta p)) | slowest plan (s) |"
echo "|---|---|---|---|---|---|---|"
for fam in tori2d tori3d circulants; do
    for p in 1 2 3 4; do
        f=$fam-p$p.tsv
        [ -f "$f" ] || continue
        awk -F'\t' -v fam="$fam" -v p="$p" 'NR > 1 { n++; if ($8 == 1) ok++; else bad++; if ($4 == $6) deg++; if ($10 > m) m = $10 }
            END { printf "| %s | %d | %d | %d | %d | %d | %.3f |\n", fam, p, n, ok, bad, deg, m }' "$f"
    done
done
echo
echo "Graphs above the lower bound:"
echo
echo "| graph | p | rounds | lower bound | degree bound | layered bound |"
echo "|---|---|---|---|---|---|"
for f in *.tsv; do
    awk -F'\t' 'NR > 1 && $8 == 0 { printf "| %s | %s | %s | %s | %s | %s |\n", $1, $3, $4, $5, $6, $7 }' "$f"
done
