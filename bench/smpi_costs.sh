# SPDX-License-Identifier: GPL-3.0-or-later
# bench/smpi_costs.sh — sourced by bench/smpi_fabric.sh and bench/smpi_trace.sh: gossip's cost
# model for a platform of bench/fabric_platform, as a tuning file would give it. Sets alpha and
# beta (GOSSIP_ALPHA / GOSSIP_BETA) from LAT (a link's latency, default 1us; a route is two
# links: GPU to switch to GPU) and FACTORS: SMPI's default latency and bandwidth factors by
# message size (smpi/lat-factor, smpi/bw-factor), or with FACTORS=1 a flat 2 LAT and the
# capacities' scale.
lat_s=$(awk -v l="${LAT:-1us}" 'BEGIN { v = l + 0; if (l ~ /us$/) v *= 1e-6; else if (l ~ /ns$/) v *= 1e-9; else if (l ~ /ms$/) v *= 1e-3; printf "%.4g", 2 * v }')
if [ "${FACTORS:-}" = 1 ]; then
    alpha=$lat_s beta=1e-11
else
    alpha=$(awk -v lat="$lat_s" 'BEGIN { n = split("0:2.01467 257:1.95341 732:1.9503 1426:1.61075 3484:1.88101 5776:2.18796 9376:2.59299 15424:3.48845 65472:11.6436", f, " ");
        for (i = 1; i <= n; i++) { split(f[i], q, ":"); printf "%s%s:%.4g", (i > 1 ? "," : ""), q[1], lat * q[2] } }')
    beta=$(awk 'BEGIN { n = split("0:0.812084 257:0.338112 732:0.341987 1426:0.608902 3484:0.77493 5776:1.08739 9376:0.58729 15424:0.697866 65472:0.940694", f, " ");
        for (i = 1; i <= n; i++) { split(f[i], q, ":"); printf "%s%s:%.4g", (i > 1 ? "," : ""), q[1], 1 / (1e11 * q[2]) } }')
fi
