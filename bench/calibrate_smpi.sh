#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/calibrate_smpi.sh — `gossip-mpi calibrate` under SimGrid SMPI: does it recover the
# simulated platform's parameters, and does the model it writes choose what bench/smpi.sh's
# hand-tuned model chooses?
#   bench/calibrate_smpi.sh            both link speeds of bench/smpi.sh (fast: 10 GB/s, 1 us;
#                                      slow: 1.25 GB/s, 5 us), calibrated on a 4x4 torus
# Writes bench/out/calibrate/t44-{fast,slow}.{json,txt} (the tuning files and calibrate's
# report) and prints two markdown tables (bench/README.md):
#  1. recovered against the platform — what SMPI delivers for one message: the link latency
#     times SMPI's latency factor (smpi/lat-factor: 2.01467 below 257 bytes) for alpha and for
#     each further link (hop), 1 / (link bandwidth x smpi/bw-factor at that size) for beta —
#     and against bench/smpi.sh's hand-tuned figures; and on the fast links with 0.5 us per
#     message sent or received (smpi/os, ois, or), the overhead;
#  2. the runtime's choice (`gossip plan COLL SPEC --bytes B`) under the recovered file and under
#     the hand-tuned options, on every platform of bench/smpi.sh (8x8 and 4x4x4 tori, 6-cube),
#     and the 16x16 torus of the benches at scale, every collective, every power of two from 8 B
#     to 4 MiB (and, for scale, how often the default model — no tuning file — agrees).
# Needs libsimgrid-dev (installed with apt-get when missing) and a built build/ (gossip and
# libgossip.a). One smpirun at a time; about a minute in all.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v smpicc >/dev/null; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends libsimgrid-dev >&2
fi
[ -f build/libgossip.a ] && [ -x build/gossip ] || { cmake --preset default >/dev/null && cmake --build --preset default -j1 >/dev/null; }
w=build-smpi
out=bench/out/calibrate
mkdir -p "$w" "$out"
# As CMake builds gossip-mpi: its sources, gossip's option helper (tools/gossip/cli.c) and the runtime.
# smpicc's warnings are dropped, its errors shown.
smpicc -O2 -Iinclude -Ibuild/include -Isrc/mpi -Itools/gossip-mpi -Itools/gossip tools/gossip-mpi/*.c tools/gossip/cli.c \
    src/mpi/mpi_ctx.c src/mpi/mpi_choose.c src/mpi/mpi_engine.c src/mpi/mpi_coll.c src/mpi/mpi_exec.c src/mpi/mpi_plan.c \
    src/mpi/mpi_tuning.c src/mpi/mpi_calibrate.c build/libgossip.a \
    -ljansson -lnauty -ligraph -lgsl -llapacke -llapack -lblas -lcadical -lstdc++ -lm -o "$w/gossip-mpi" 2>&1 | { grep -v "warning" || true; } >&2
[ -x "$w/gossip-mpi" ] || { echo "calibrate_smpi: smpicc could not build gossip-mpi" >&2; exit 2; }
for i in $(seq 0 15); do echo "node-$i"; done >"$w/hosts16"

# SMPI's default factors by message size (SimGrid 3.32: smpi/bw-factor, smpi/lat-factor).
BWF="0:0.812084 257:0.338112 732:0.341987 1426:0.608902 3484:0.77493 5776:1.08739 9376:0.58729 15424:0.697866 65472:0.940694"
LATF0=2.01467
# bench/smpi.sh's hand-tuned beta: the same factors over the link's bandwidth.
hand_beta() { awk -v bw="$1" -v f="$BWF" 'BEGIN { n = split(f, e, " ");
    for (i = 1; i <= n; i++) { split(e[i], q, ":"); printf "%s%s:%.4g", (i > 1 ? "," : ""), q[1], 1 / (bw * q[2]) } }'; }
# beta for a message of $2 bytes from a table "S:V,S:V,...".
beta_at() { awk -v t="$1" -v s="$2" 'BEGIN { n = split(t, e, ","); b = 0; for (i = 1; i <= n; i++) { split(e[i], q, ":"); if (q[1] <= s) b = q[2] } printf "%.6g", b }'; }
file_beta() { jq -r 'if .beta_by_size then [.beta_by_size[] | "\(.[0]):\(.[1])"] | join(",") else "0:\(.beta)" end' "$1"; }
err() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) printf (a == 0 ? "0" : "inf"); else printf "%+.1f%%", 100 * (a / b - 1) }'; }

# fast-o: the fast links with a per-message cost on both sides (smpi/os, smpi/ois, smpi/or:
# 0.5 us per message sent or received), which the defaults leave at 0: overhead must come out.
for speed in fast slow fast-o; do
    extra=()
    case $speed in fast) bw=10GBps lat=1us ;; slow) bw=1.25GBps lat=5us ;;
        fast-o) bw=10GBps lat=1us extra=(--cfg=smpi/os:0:5e-7:0 --cfg=smpi/ois:0:5e-7:0 --cfg=smpi/or:0:5e-7:0) ;; esac
    bench/torus_platform.sh "t44-$speed" 4,4 "$bw" "$lat" >"$w/t44-$speed.xml"
    # As bench/smpi.sh runs: computation not simulated (so gamma measures 0, as the bench sets it).
    smpirun -np 16 -platform "$w/t44-$speed.xml" -hostfile "$w/hosts16" --cfg=smpi/simulate-computation:no "${extra[@]}" \
        "$w/gossip-mpi" calibrate --topology torus:4x4 -o "$out/t44-$speed.json" 2>/dev/null >"$out/t44-$speed.txt"
done

echo "| platform | parameter | SMPI delivers | bench/smpi.sh (hand) | recovered | error vs SMPI |"
echo "|---|---|---|---|---|---|"
for speed in fast slow; do
    case $speed in fast) bwv=1e10 latv=1e-6 a=2e-6 ;; *) bwv=1.25e9 latv=5e-6 a=10e-6 ;; esac
    f="$out/t44-$speed.json"
    al=$(awk -v l=$latv -v k=$LATF0 'BEGIN { printf "%.6g", l * k }')
    ra=$(jq .alpha "$f") rh=$(jq .hop "$f") ro=$(jq .overhead "$f") rg=$(jq .gamma "$f")
    printf '| %s | alpha (s) | %.4g | %s | %.4g | %s |\n' "$speed" "$al" "$a" "$ra" "$(err "$ra" "$al")"
    printf '| %s | hop (s) | %.4g | %s | %.4g | %s |\n' "$speed" "$al" "$a" "$rh" "$(err "$rh" "$al")"
    printf '| %s | overhead (s) | 0 | 0 | %.4g | %s |\n' "$speed" "$ro" "$(err "$ro" 0)"
    printf '| %s | gamma (s/B) | 0 (not simulated) | 0 | %.4g | %s |\n' "$speed" "$rg" "$(err "$rg" 0)"
    hb=$(hand_beta $bwv) fb=$(file_beta "$f")
    for s in 64 512 1024 2048 4096 8192 12288 32768 65536 1048576 16777216; do
        p=$(beta_at "$hb" "$s") r=$(beta_at "$fb" "$s")
        printf '| %s | beta at %s B (s/B) | %.4g | %.4g | %.4g | %s |\n' "$speed" "$s" "$p" "$p" "$r" "$(err "$r" "$p")"
    done
done

f="$out/t44-fast-o.json"
ra=$(jq .alpha "$f") rh=$(jq .hop "$f") ro=$(jq .overhead "$f")
# A blocking ping-pong pays the send and the receive overhead once each: alpha + 1 us.
printf '| fast-o | alpha (s) | 3.015e-06 | - | %.4g | %s |\n' "$ra" "$(err "$ra" 3.01467e-6)"
printf '| fast-o | hop (s) | 2.015e-06 | - | %.4g | %s |\n' "$rh" "$(err "$rh" 2.01467e-6)"
printf '| fast-o | overhead (s) | 5e-07 | - | %.4g | %s |\n' "$ro" "$(err "$ro" 5e-7)"

echo
echo "| platform | collective | sizes | recovered: same choice as hand | differences (bytes: hand / recovered) | defaults (no tuning): same choice |"
echo "|---|---|---|---|---|---|"
# bench/smpi.sh's hand-tuned model: alpha and beta by size from SMPI's factors, hop twice the
# link latency (its cost_env).
eval "$(sed -n '/^cost_env() {/,/^}/p' bench/smpi.sh)"
for p in "t88-fast torus:8x8" "t88-slow torus:8x8" "t444-fast torus:4x4x4" "t444-slow torus:4x4x4" "q6-fast hypercube:6" "q6-slow hypercube:6" "t1616-fast torus:16x16" "t1616-slow torus:16x16"; do
    set -- $p
    name=$1 spec=$2
    case $name in *fast) f="$out/t44-fast.json" ;; *) f="$out/t44-slow.json" ;; esac
    cost_env "$name"
    for coll in allgather allreduce reduce-scatter broadcast reduce; do
        same=0 total=0 diff="" dflt=0
        for k in $(seq 3 22); do
            sz=$((1 << k))
            h=$(build/gossip plan "$coll" "$spec" --bytes $sz --alpha "$a" --beta "$b" --gamma 0 --hop "$hop" --overhead 0 --json | jq -r .choice)
            r=$(build/gossip plan "$coll" "$spec" --bytes $sz --tuning "$f" --json | jq -r .choice)
            d=$(build/gossip plan "$coll" "$spec" --bytes $sz --json | jq -r .choice)
            total=$((total + 1))
            [ "$h" = "$d" ] && dflt=$((dflt + 1))
            if [ "$h" = "$r" ]; then same=$((same + 1)); else diff="$diff $sz: $h / $r;"; fi
        done
        echo "| $name | $coll | 8 B .. 4 MiB | $same / $total | ${diff:-none} | $dflt / $total |"
    done
done
