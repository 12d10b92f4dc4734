#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_docs.sh — the tables of docs/ are what their scripts print today: each table is cut from
# the doc (the rows after the line naming its command) and compared with a fresh run.
# Usage: test_docs.sh BUILD_DIR SOURCE_DIR [global-sum|problemb|models|runtime|fabrics]...
set -uo pipefail
B=$(cd "$1" && pwd)
S=$(cd "$2" && pwd)
shift 2
fail=0
table_after() { # DOC LINE-PREFIX: the first markdown table after the line starting with PREFIX
    awk -v p="$2" 'index($0, p) == 1 { on = 1; next } on && /^\|/ { print; seen = 1; next } on && seen { exit }' "$1"
}
check() { # NAME DOC PREFIX COMMAND...
    local name=$1 doc=$2 prefix=$3
    shift 3
    local want got
    want=$(table_after "$doc" "$prefix")
    got=$(cd "$S" && "$@" 2>/dev/null | grep '^|')
    if [ -z "$want" ]; then echo "FAIL: $name: no table after '$prefix' in $doc"; fail=1; return; fi
    if [ "$want" != "$got" ]; then
        echo "FAIL: $name: $doc differs from the script's output:"
        diff <(echo "$want") <(echo "$got") | head -20
        fail=1
    else
        echo "ok: $name ($(echo "$want" | wc -l) lines)"
    fi
}
for what in "${@:-global-sum}"; do
    case $what in
    global-sum) check global-sum "$S/docs/global-sum.md" 'Command: `bench/global_sum_table.sh build`' bash bench/global_sum_table.sh "$B" ;;
    problemb) check problemb "$S/docs/global-sum.md" 'Command: `MAXCIRC=32 bench/problemb.sh build`' env MAXCIRC=32 bash bench/problemb.sh "$B" ;;
    runtime) check runtime "$S/docs/runtime.md" 'the tests read it. Command: `gossip list --runtime`' "$B/gossip" list --runtime ;;
    fabrics) check fabrics "$S/docs/fabrics.md" 'Command: `bench/fabrics.sh build`' bash bench/fabrics.sh "$B" ;;
    models) check models "$S/docs/models.md" 'Command: `bench/models.sh`' bash bench/models.sh "$B" ;;
    esac
done
exit $fail
