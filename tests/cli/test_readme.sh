#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# test_readme.sh — the README's examples are run: every line "$ gossip ..." inside a fenced
# block is executed and its output compared with the lines that follow it in the README.
GOSSIP=$1
README=$2
. "$(dirname "$0")/lib.sh"
cmds=()
outs=()
in_block=0
cur=-1
while IFS= read -r line; do
    if [[ "$line" == '```'* ]]; then
        in_block=$((1 - in_block))
        cur=-1
        continue
    fi
    [ "$in_block" = 1 ] || continue
    if [[ "$line" == '$ gossip '* ]]; then
        cmds+=("${line#\$ gossip }")
        outs+=("")
        cur=$((${#cmds[@]} - 1))
    elif [ "$cur" -ge 0 ]; then
        outs[$cur]+="$line"$'\n'
    fi
done <"$README"
for i in "${!cmds[@]}"; do
    checks=$((checks + 1))
    # shellcheck disable=SC2086
    got=$(eval "\"$GOSSIP\" ${cmds[$i]}" 2>&1)
    want=${outs[$i]%$'\n'}
    # Timings differ from run to run.
    got=$(grep -v '^time ' <<<"$got")
    if [ "$got" != "$want" ]; then
        fail "README example 'gossip ${cmds[$i]}' differs:"$'\n'"$(diff <(echo "$want") <(echo "$got"))"
    fi
done
[ "${#cmds[@]}" -ge 5 ] || fail "found only ${#cmds[@]} README examples"
finish
