#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_api_used.sh — every function the public headers declare (GSP_API) is called somewhere a
# test, a tool or an example would notice it break: a C call `name(` in tests/, tools/ or
# examples/, or the Python bindings' `_lib.name` in python/. A function nobody calls is
# untested API that a user may rely on: test it, or remove it from the headers. Comments do not
# count: C's /* */ and // and Python's # lines are stripped first. Usage: test_api_used.sh SOURCE_DIR
set -u
S=$1
decl='^GSP_API [A-Za-z_][A-Za-z0-9_ *]*[ *]gsp_[a-z0-9_]+\('
public=$(grep -hE "$decl" "$S"/include/gossip/*.h "$S"/include/gossip/version.h.in |
    grep -oE 'gsp_[a-z0-9_]+\(' | tr -d '(' | sort -u)
[ -n "$public" ] || { echo "FAIL: no GSP_API function found under $S/include/gossip"; exit 1; }
# The callers' text without comments (a mention in a comment is not a call).
calls=$(
    find "$S/tests" "$S/tools" "$S/examples" -type f \( -name '*.c' -o -name '*.h' \) -print0 |
        xargs -0 cat | sed -e 's://.*$::' | perl -0pe 's:/\*.*?\*/::gs' | grep -oE 'gsp_[a-z0-9_]+[[:space:]]*\(' | tr -d '( \t'
    find "$S/python" "$S/tests/python" -type f -name '*.py*' -print0 |
        xargs -0 cat | sed -e 's/#.*$//' | grep -oE '_lib\.gsp_[a-z0-9_]+' | sed 's/^_lib\.//'
)
used=$(echo "$calls" | sort -u)
unused=$(comm -23 <(echo "$public") <(echo "$used"))
total=$(echo "$public" | wc -l)
if [ -n "$unused" ]; then
    echo "$unused" | sed 's/^/never called from tests, tools, examples or python: /'
    echo "FAIL: $(echo "$unused" | wc -l) of $total public functions are never called"
    exit 1
fi
echo "all $total public functions are called from tests, tools, examples or python"
