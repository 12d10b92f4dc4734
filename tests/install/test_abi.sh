#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_abi.sh — what the shared libraries export.
#   Every function the installed headers declare is marked GSP_API (gossip/export.h).
#   libgossip.so: exactly the functions its headers declare (all of include/gossip but mpi.h,
#   whose library is static), no internal helper (gsp__*, the JSON writer), nothing of the
#   CaDiCaL it embeds.
#   libgossip_pmpi.so (LD_PRELOADed into users' programs): the MPI_* functions src/mpi/pmpi.c
#   defines, and nothing else (src/mpi/pmpi.map).
# Usage: test_abi.sh SOURCE_DIR LIBGOSSIP_SO [LIBGOSSIP_PMPI_SO]
set -u
S=$1 so=$2 pmpi=${3:-}
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
exported() { nm -D --defined-only "$1" | awk 'NF == 3 { print $3 }' | sort -u; }
# A function declaration at the start of a line (static inline ones are not exported).
decl='^(GSP_API )?[A-Za-z_][A-Za-z0-9_ *]*[ *]gsp_[a-z0-9_]+\('
headers=$(ls "$S"/include/gossip/*.h "$S"/include/gossip/version.h.in)
[ -n "$headers" ] || bad "no headers under $S/include/gossip"
unmarked=$(grep -nE "$decl" $headers | grep -vE '^[^:]+:[0-9]+:(GSP_API |static |typedef )')
[ -z "$unmarked" ] || bad "declared without GSP_API: $(echo "$unmarked" | sed "s|^$S/||")"
public=$(grep -hE "$decl" $(echo "$headers" | grep -v '/mpi\.h$') | grep -v '^static ' |
    grep -oE 'gsp_[a-z0-9_]+\(' | tr -d '(' | sort -u)
got=$(exported "$so")
extra=$(comm -13 <(echo "$public") <(echo "$got"))
missing=$(comm -23 <(echo "$public") <(echo "$got"))
[ -z "$extra" ] || bad "libgossip.so exports $(echo "$extra" | wc -l) symbols no installed header declares: $(echo "$extra" | head -8 | tr '\n' ' ')"
[ -z "$missing" ] || bad "libgossip.so does not export $(echo "$missing" | wc -l) declared functions: $(echo "$missing" | head -8 | tr '\n' ' ')"
[ -n "$extra$missing" ] || echo "libgossip.so exports the $(echo "$got" | wc -l) functions its headers declare, and nothing else"

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
