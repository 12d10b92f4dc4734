#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/torus_platform.sh ID DIMS BW LAT [HOSTFILE] — prints a SimGrid platform of one TORUS cluster:
# N = the product of DIMS (e.g. 16,16) nodes node-0 … node-(N-1), links of bandwidth BW and latency LAT
# (e.g. 10GBps 1us); with HOSTFILE, writes the node names there, one a line (smpirun's -hostfile).
# Used by bench/smpi.sh, bench/calibrate_smpi.sh and tests/mpi/test_smpi.sh.
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: torus_platform.sh ID DIMS BW LAT [HOSTFILE]" >&2; exit 2; }
id=$1 dims=$2 bw=$3 lat=$4
n=1
IFS=, read -r -a d <<<"$dims"
for x in "${d[@]}"; do n=$((n * x)); done
cat <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="$id" topology="TORUS" topo_parameters="$dims" prefix="node-" radical="0-$((n - 1))" suffix="" speed="1Gf" bw="$bw" lat="$lat"/>
</platform>
XML
if [ $# -ge 5 ]; then
    for ((i = 0; i < n; i++)); do echo "node-$i"; done >"$5"
fi
