#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_headers.sh — every function the public headers declare has a doc comment right above it
# (igraph's and zstd's habit): a declaration whose previous non-blank line does not end a
# comment fails, with the header and line. Usage: test_headers.sh SOURCE_DIR
S=$1
fails=$(awk '
    FNR == 1 { prev = "" }
    /^(static inline )?[A-Za-z_][A-Za-z0-9_ *]*[ *]gsp_[a-z0-9_]+\(/ && !/^typedef/ && !/^#/ {
        if (prev !~ /\*\/[ \t]*$/) printf "%s:%d: %s\n", FILENAME, FNR, $0
    }
    NF { prev = $0 }
' "$S"/include/gossip/*.h)
n=$(grep -c . <<<"$fails")
total=$(cat "$S"/include/gossip/*.h | grep -cE '^(static inline )?[A-Za-z_][A-Za-z0-9_ *]*[ *]gsp_[a-z0-9_]+\(')
if [ -n "$fails" ]; then echo "$fails"; echo "FAIL: $n of $total public functions without a doc comment"; exit 1; fi
echo "all $total public functions documented"
