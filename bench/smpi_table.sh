#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/smpi_table.sh [PLATFORM ...] — the summary of bench/out/smpi/PLATFORM.txt: per collective
# and size, gossip's simulated time, the best of SMPI's algorithms (and which), their ratio
# (best other / gossip: above 1 gossip is faster), and the all-port bandwidth bound: every node
# must receive (allgather: (N-1)B; reduce-scatter: (N-1)B/N; allreduce: 2(N-1)B/N; bcast: B)
# through its d links of the nominal bandwidth, with N = 64.
# At scale (t1616-*, t888-*, t3232-*): an allgather's bytes are its whole output (each rank's
# block B/N: every node receives (N-1)B/N), the bound adds D hops of the link latency (D the diameter),
# Swing's best variant stands beside SMPI's best (allreduce), and the real time and memory of
# gossip's runs follow: real seconds per call (the first, planning included, and the second),
# the plan a rank keeps (largest rank, and the mean), and the smpirun's peak RSS over N; then
# the runs that did not finish.
set -euo pipefail
cd "$(dirname "$0")/.."
scale_table() { # name file
    local name=$1 f=$2 n d D lat bw desc
    case $name in
    t1616*) n=256 d=4 D=16 desc="torus 16x16, 256 ranks" ;;
    t888*) n=512 d=6 D=12 desc="torus 8x8x8, 512 ranks" ;;
    t3232*) n=1024 d=4 D=32 desc="torus 32x32, 1024 ranks" ;;
    esac
    case $name in *fast) bw=10e9 lat=1e-6 ;; *) bw=1.25e9 lat=5e-6 ;; esac
    echo "### $name ($desc, $d links per node, $(case $name in *fast) echo '10 GB/s, 1 us' ;; *) echo '1.25 GB/s, 5 us' ;; esac), diameter $D)"
    echo
    echo "| collective | bytes | gossip us (algorithm) | best SMPI us (algorithm) | SMPI/gossip | Swing us (variant) | Swing/gossip | bound us | gossip/bound |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    awk -v n="$n" -v d="$d" -v D="$D" -v bw="$bw" -v lat="$lat" -v mode=times -f <(scale_awk) "$f"
    echo
    echo "gossip's runs: real seconds the simulation spends per call (first call: planning, the agreement and"
    echo "the run; second call: the run), of which planning (summed over ranks), the library's memory per"
    echo "rank (plan kept: largest rank / mean; peak with message buffers: largest rank), and the smpirun's"
    echo "peak RSS over N."
    echo
    echo "| collective | bytes | real s, 1st call | real s, 2nd call | planning s | plan kept KiB (max / mean) | library peak KiB | RSS / rank MiB |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    awk -v n="$n" -v mode=costs -f <(scale_awk) "$f"
    echo
    local nf
    nf=$(awk -v mode=failed -f <(scale_awk) "$f")
    if [ -n "$nf" ]; then
        echo "Did not finish (timeout: more than the real-time limit; memcap: killed above the memory cap; crashed):"
        echo
        echo "$nf"
        echo
    fi
}

scale_awk() {
    cat <<'AWK'
function kv(key,   i) { for (i = 6; i <= NF; i++) if (index($i, key "=") == 1) return substr($i, length(key) + 2); return "" }
{ k = $3 " " $5 }
$6 == "-" { if ($4 != "gossip") { nf[k] = nf[k] (nf[k] == "" ? "" : ", ") $2 " (" $7 ")" } else { gnf[k] = $7 } keys[k] = 1; next }
$4 == "gossip" { g[k] = $6; ga[k] = $8; gs[k] = $7; keys[k] = 1
    w1[k] = kv("wall1"); w2[k] = kv("wall2"); ps[k] = kv("plan_s"); ph[k] = kv("plan_held"); pm[k] = kv("plan_mean"); hp[k] = kv("heap_peak"); rss[k] = kv("rss_kb") }
$4 == "mpi" && $7 != "WRONG" { keys[k] = 1; if (!(k in best) || $6 + 0 < best[k]) { best[k] = $6 + 0; ba[k] = $2 } }
$4 == "mpi" && $7 == "WRONG" { nf[k] = nf[k] (nf[k] == "" ? "" : ", ") $2 " (WRONG)" }
$4 == "swing" && $7 != "WRONG" { keys[k] = 1; if (!(k in sb) || $6 + 0 < sb[k]) { sb[k] = $6 + 0; sa[k] = $2 } }
$4 == "swing" && $7 == "WRONG" { nf[k] = nf[k] (nf[k] == "" ? "" : ", ") "Swing " $2 " (WRONG)" }
END {
    split("allgather allreduce reduce-scatter bcast", cs, " ")
    split("8 65536 1048576 4194304", ss, " ")
    for (i = 1; i <= 4; i++) for (j = 1; j <= 4; j++) {
        k = cs[i] " " ss[j]
        if (!(k in keys)) continue
        B = ss[j]
        if (mode == "failed") {
            if (k in gnf) printf "- %s %d: gossip (%s)\n", cs[i], B, gnf[k]
            if (k in nf) printf "- %s %d: %s\n", cs[i], B, nf[k]
            continue
        }
        if (mode == "costs") {
            if (!(k in g)) continue
            printf "| %s | %d | %.1f | %.1f | %.2f | %.0f / %.0f | %.0f | %.1f |\n", cs[i], B, w1[k], w2[k], ps[k], ph[k] / 1024, pm[k] / 1024, hp[k] / 1024, rss[k] / 1024 / n
            continue
        }
        # At scale an allgather's bytes are its whole output (blocks of B/N), as reduce-scatter's.
        if (cs[i] == "allgather" || cs[i] == "reduce-scatter") { blk = int(B / 8 / n); if (blk < 1) blk = 1; recv = (n - 1) * blk * 8 }
        else if (cs[i] == "allreduce") recv = 2 * (n - 1) * B / n
        else recv = B
        bound = (recv / (d * bw) + D * lat) * 1e6
        gt = (k in g) ? sprintf("%.1f (%s%s)", g[k], ga[k], gs[k] == "ok" ? "" : ", " gs[k]) : ((k in gnf) ? "- (" gnf[k] ")" : "-")
        r = (k in best) && (k in g) ? sprintf("%.2f", best[k] / g[k]) : "-"
        st = (k in sb) ? sprintf("%.1f (%s)", sb[k], sa[k]) : "-"
        sr = (k in sb) && (k in g) ? sprintf("%.2f", sb[k] / g[k]) : "-"
        gb = (k in g) ? sprintf("%.2f", g[k] / bound) : "-"
        printf "| %s | %d | %s | %s | %s | %s | %s | %.1f | %s |\n", cs[i], B, gt,
            (k in best) ? sprintf("%.1f (%s)", best[k], ba[k]) : "-", r, st, sr, bound, gb
    }
}
AWK
}

want=("$@")
[ ${#want[@]} -gt 0 ] || want=(t88-fast t88-slow t444-fast t444-slow q6-fast q6-slow)
for name in "${want[@]}"; do
    f=bench/out/smpi/$name.txt
    [ -s "$f" ] || continue
    case $name in t1616* | t888* | t3232*) scale_table "$name" "$f"; continue ;; esac
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
