#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_abi.sh — what the shared libraries export.
#   libgossip_pmpi.so (LD_PRELOADed into users' programs): the MPI_* functions src/mpi/pmpi.c
#   defines, and nothing else (src/mpi/pmpi.map).
# Usage: test_abi.sh SOURCE_DIR [LIBGOSSIP_PMPI_SO]
set -u
S=$1 pmpi=${2:-}
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
exported() { nm -D --defined-only "$1" | awk 'NF == 3 { print $3 }' | sort -u; }

if [ -n "$pmpi" ]; then
    defined=$(grep -oE '^int (MPI_[A-Za-z_]+)\(' "$S/src/mpi/pmpi.c" | sed 's/^int //; s/($//' | sort -u)
    got=$(exported "$pmpi")
    [ -n "$defined" ] || bad "no MPI_ function found in src/mpi/pmpi.c"
    extra=$(comm -13 <(echo "$defined") <(echo "$got"))
    missing=$(comm -23 <(echo "$defined") <(echo "$got"))
    [ -z "$extra" ] || bad "libgossip_pmpi.so exports $(echo "$extra" | wc -l) symbols that are not its MPI entry points: $(echo "$extra" | head -5 | tr '\n' ' ')"
    [ -z "$missing" ] || bad "libgossip_pmpi.so does not export: $(echo "$missing" | tr '\n' ' ')"
    [ -n "$extra$missing" ] || echo "libgossip_pmpi.so exports its $(echo "$got" | wc -l) MPI entry points: $(echo "$got" | tr '\n' ' ')"
fi
[ "$fails" = 0 ] || exit 1
