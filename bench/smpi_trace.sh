#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/smpi_trace.sh FABRIC COLLECTIVE BYTES — where a gossip collective's time goes on a fabric
# under SimGrid SMPI: its runtime run as bench/smpi_fabric.sh runs gossip's side (the platform,
# the cost model, the one call after planning), with every request it posts logged in simulated
# time (bench/smpi/trace_shim.c), then per class of link (a direct link, a host's link up into a
# switch, a switch's link down to a host, a link between switches; by capacity) the bytes its
# busiest link carries as µs at its capacity, when the first and last bytes arrived, and the
# delivered rate over the call in bins of BIN_US µs (default 4) as a percentage of the class's
# capacity. A message's bytes count in the bin its receive completes in, so messages that end
# together show as a spike above 100 (SMPI's bandwidth factor can also exceed 1: 1.087 for
# messages of 5776-9375 bytes).
#   COLLECTIVE: allgather, reduce-scatter, allreduce, bcast; BYTES as smpi_fabric.sh's SIZES
#   FACTORS=1, LAT, SMPI_CFG as bench/smpi_fabric.sh; KEEP=DIR keeps the per-rank logs in DIR;
#   SMPI_BUILD_DIR, GOSSIP_BUILD as bench/smpi_build.sh
# The log reads the clock with --cfg=smpi/wtime:0 and perturbs the simulated time a little
# (mi250:4's 4 MiB allgather: 40.927 µs traced, 40.936 not; its 16 MiB, with a first version of
# the log, 81.2 against 82.7): for where time goes, not for timings.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 3 ] || { echo "usage: bench/smpi_trace.sh FABRIC COLLECTIVE BYTES" >&2; exit 2; }
f=$1 coll=$2 bytes=$3
case $coll in allgather | reduce-scatter | allreduce | bcast) ;; *) echo "smpi_trace: unknown collective '$coll'" >&2; exit 2 ;; esac
[[ $bytes =~ ^[1-9][0-9]{0,11}$ ]] || { echo "smpi_trace: BYTES '$bytes' is not a size in bytes" >&2; exit 2; }
binus=${BIN_US:-4}
awk -v b="$binus" 'BEGIN { exit !(b + 0 > 0) }' || { echo "smpi_trace: BIN_US '$binus' is not a positive number" >&2; exit 2; }
more=()
[ -z "${SMPI_CFG:-}" ] || read -r -a more <<<"$SMPI_CFG"
command -v smpicc >/dev/null || { echo "smpi_trace: smpicc is missing: apt-get install libsimgrid-dev" >&2; exit 2; }
w=${SMPI_BUILD_DIR:-build-smpi} b=${GOSSIP_BUILD:-build}
[ -f "$b/libgossip.a" ] && [ -x "$b/bench/fabric_platform" ] || { echo "smpi_trace: $b/libgossip.a or $b/bench/fabric_platform is missing: cmake --build $b" >&2; exit 2; }
SMPI_BUILD_DIR=$w GOSSIP_BUILD=$b TRACE=1 NO_SWING=1 bash bench/smpi_build.sh
tag=${f//[:]/-}
"$b"/bench/fabric_platform "$f" "$w/hosts-$tag" "${LAT:-1us}" >"$w/$tag.xml"
n=$(wc -l <"$w/hosts-$tag")
# shellcheck source=bench/smpi_costs.sh
. bench/smpi_costs.sh
cfg=(--cfg=smpi/wtime:0)
[ "${FACTORS:-}" = 1 ] && cfg+=(--cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1)
dir=${KEEP:-$(mktemp -d)}
mkdir -p "$dir"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$dir"' EXIT
res=$(TRACE_DIR=$dir SMPI_BENCH_AG_TOTAL=1 SMPI_BENCH_WARMUP=plan GOSSIP_TUNING=none GOSSIP_ALPHA=$alpha GOSSIP_BETA=$beta GOSSIP_GAMMA=0 GOSSIP_OVERHEAD=0 \
    smpirun -np "$n" -platform "$w/$tag.xml" -hostfile "$w/hosts-$tag" --cfg=smpi/simulate-computation:no "${cfg[@]}" "${more[@]}" \
    "$w/smpi_bench_trace" "$coll" "$f" gossip "$bytes" 2>/dev/null | grep "^$coll gossip " || true)
[ -n "$res" ] || { echo "smpi_trace: the run failed" >&2; exit 3; }
echo "$res"
# The links: their capacities, and each one's class from the routes it is on.
# The timed call: the requests after the last gap of 5 ms (smpi_bench starts it 10 ms after
# its barrier).
t0=$(cat "$dir"/r* | awk '!/^#/ { print $1 }' | sort -g | awk 'NR == 1 || $1 - p > 5000 { s = $1 } { p = $1 } END { print s }')
awk -v binus="$binus" -v T0="$t0" -v hosts="$w/hosts-$tag" -v logs="$dir" '
    BEGIN { while ((getline h < hosts) > 0) rank[h] = nh++ }
    FNR == NR && /<link id=/ { match($0, /id="[^"]*"/); id = substr($0, RSTART + 4, RLENGTH - 5)
        match($0, /bandwidth="[0-9.e+]*GBps"/); cap[id] = substr($0, RSTART + 11, RLENGTH - 16) * 1e9; next }
    FNR == NR && /<route / { match($0, /src="[^"]*"/); s = substr($0, RSTART + 5, RLENGTH - 6); match($0, /dst="[^"]*"/); d = substr($0, RSTART + 5, RLENGTH - 6)
        k = 0; rest = $0; while (match(rest, /link_ctn id="[^"]*"/)) { L[++k] = substr(rest, RSTART + 13, RLENGTH - 14); rest = substr(rest, RSTART + RLENGTH) }
        key = rank[s] " " rank[d]; route[key] = k
        for (i = 1; i <= k; i++) { lk[key, i] = L[i]; c = k == 1 ? "direct" : i == 1 ? "up" : i == k ? "down" : "core"
            if (!(L[i] in cls)) cls[L[i]] = c; else if (cls[L[i]] != c) cls[L[i]] = "mixed" }
        next }
    FNR != NR && FNR == 1 { r = FILENAME; sub(/.*\/r/, "", r) }
    FNR != NR && /^#/ { print "smpi_trace: rank " r ": " $0 > "/dev/stderr"; next }
    FNR != NR { n++; P[n] = $1; D[n] = $2; K[n] = $3; me[n] = r; peer[n] = $4; B[n] = $5 }
    END {
        T0 += 0; T1 = T0; for (i = 1; i <= n; i++) if (P[i] >= T0 && D[i] > T1) T1 = D[i]
        nb = int((T1 - T0) / binus) + 1
        printf "call %.3f us from the first request to the last completion; %d bins of %g us\n", T1 - T0, nb, binus
        for (i = 1; i <= n; i++) {
            if (K[i] != 1 || P[i] < T0 || D[i] < 0) continue
            key = peer[i] " " me[i]; if (!(key in route)) continue
            b = int((D[i] - T0) / binus); if (b >= nb) b = nb - 1
            for (j = 1; j <= route[key]; j++) { l = lk[key, j]; got[l] += B[i]; bin[l, b] += B[i]
                if (!(l in first) || D[i] < first[l]) first[l] = D[i]; if (D[i] > last[l]) last[l] = D[i] }
        }
        for (l in got) { g = cls[l] " " cap[l] / 1e9; links[g]++; capsum[g] += cap[l]; at = got[l] / cap[l] * 1e6; if (at > most[g]) most[g] = at
            if (!(g in f0) || first[l] < f0[g]) f0[g] = first[l]; if (last[l] > l1[g]) l1[g] = last[l]
            for (b = 0; b < nb; b++) del[g, b] += bin[l, b] }
        # In a fixed order: by class, then capacity (an insertion sort: mawk has no asort).
        ng = 0; for (g in links) { split(g, q, " "); key = q[1] sprintf(" %012.3f", q[2]); j = ++ng
            while (j > 1 && sk[j - 1] > key) { sk[j] = sk[j - 1]; sg[j] = sg[j - 1]; j-- }
            sk[j] = key; sg[j] = g }
        for (x = 1; x <= ng; x++) {
            g = sg[x]; split(g, q, " ")
            printf "%s links of %s GB/s (%d): busiest %.2f us at capacity; bytes in from %.2f to %.2f us\n  %%", q[1], q[2], links[g], most[g], f0[g] - T0, l1[g] - T0
            for (b = 0; b < nb; b++) printf " %3.0f", 100 * del[g, b] / (capsum[g] * binus * 1e-6)
            printf "\n"
        }
    }' "$w/$tag.xml" "$dir"/r*
