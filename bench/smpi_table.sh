#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/smpi_table.sh [PLATFORM ...] — the summary of bench/out/smpi/PLATFORM.txt: per collective
# and size, gossip's simulated time, the best of SMPI's algorithms (and which), their ratio
# (best other / gossip: above 1 gossip is faster), and the all-port bandwidth bound: every node
# must receive (allgather: (N-1)B; reduce-scatter: (N-1)B/N; allreduce: 2(N-1)B/N; bcast: B)
# through its d links of the nominal bandwidth, with N = 64.
set -euo pipefail
cd "$(dirname "$0")/.."
want=("$@")
[ ${#want[@]} -gt 0 ] || want=(t88-fast t88-slow t444-fast t444-slow q6-fast q6-slow)
for name in "${want[@]}"; do
    f=bench/out/smpi/$name.txt
    [ -s "$f" ] || continue
    case $name in t88*) d=4 ;; *) d=6 ;; esac
    case $name in *fast) bw=10e9 ;; *) bw=1.25e9 ;; esac
    echo "## $name ($(case $name in t88*) echo torus 8x8;; t444*) echo torus 4x4x4;; *) echo 6-cube;; esac), $d links per node, $(case $name in *fast) echo '10 GB/s, 1 us';; *) echo '1.25 GB/s, 5 us';; esac))"
    echo
    echo "| collective | bytes | gossip us (algorithm) | best SMPI us (algorithm) | ratio | bound us | gossip/bound |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    awk -v d="$d" -v bw="$bw" '
        $5 == "-" { next }
        $6 == "WRONG" { wrong[$3 " " $4 " " $5] = 1 }
        $4 == "gossip" { g[$3 " " $5] = $6; ga[$3 " " $5] = $8; gs[$3 " " $5] = $7; keys[$3 " " $5] = 1 }
        $4 == "mpi" && $7 != "WRONG" && $6 != "-" {
            k = $3 " " $5
            if (!(k in best) || $6 < best[k]) { best[k] = $6; ba[k] = $2 }
        }
        END {
            n = 64
            split("allgather allreduce reduce-scatter bcast", cs, " ")
            split("8 1024 65536 1048576 4194304", ss, " ")
            for (i = 1; i <= 4; i++) for (j = 1; j <= 5; j++) {
                k = cs[i] " " ss[j]
                if (!(k in keys)) continue
                B = ss[j]
                if (cs[i] == "allgather") recv = (n - 1) * B
                else if (cs[i] == "reduce-scatter") recv = (n - 1) * B / n
                else if (cs[i] == "allreduce") recv = 2 * (n - 1) * B / n
                else recv = B
                bound = recv / (d * bw) * 1e6
                r = (k in best) ? sprintf("%.2f", best[k] / g[k]) : "-"
                # The bandwidth bound means something once it dominates the latency (64 KiB up).
                bb = B >= 65536 ? sprintf("%.1f", bound) : "-"
                gb = B >= 65536 ? sprintf("%.2f", g[k] / bound) : "-"
                printf "| %s | %d | %.1f (%s%s) | %s (%s) | %s | %s | %s |\n", cs[i], B, g[k], ga[k], gs[k] == "ok" ? "" : ", " gs[k],
                    (k in best) ? sprintf("%.1f", best[k]) : "-", (k in ba) ? ba[k] : "-", r, bb, gb
            }
        }' "$f"
    echo
done
