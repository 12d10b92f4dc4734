#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# One synopsis, three places: the README's command table, docs/cli.md's and each command's
# --help must agree, so that none of them offers an option the tool does not take or hides one
# it does. Checked here (issue 25 item 11):
#   1. the README and docs/cli.md tables list the same synopses, row for row;
#   2. for each command, the options those rows name are exactly the options of its --help usage;
#   3. every option of a usage is explained in the --help text's option list (what the man page's
#      OPTIONS section is cut from), and every explained option is in the usage.
# Usage: test_help.sh GOSSIP SOURCE_DIR [GOSSIP_MPI]
set -u
GOSSIP=$1
SRC=$2
GOSSIP_MPI=${3:-}
failures=0 checks=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() { checks=$((checks + 1)); }

# The first column of the command table of a markdown file, one synopsis per line, with the
# table's escapes undone.
synopses() {
    awk '/^\| command \| what it does \|/ { on = 1; next }
         on && /^\|---/ { next }
         on && /^\|/ { print; next }
         on { exit }' "$1" |
        sed -e 's/\\|/\x01/g' | awk -F'|' '{ print $2 }' | sed -e 's/\x01/|/g' -e 's/^ *`//' -e 's/` *$//'
}

readme=$(synopses "$SRC/README.md")
cli=$(synopses "$SRC/docs/cli.md")
check
[ -n "$readme" ] || fail "README.md: no command table"
check
if [ "$readme" != "$cli" ]; then
    fail "README.md and docs/cli.md list different synopses:"
    diff <(echo "$readme") <(echo "$cli") | sed 's/^/  /'
fi

# The options (--name or -o) in a text, sorted and unique.
options() { grep -oE -- '(^|[^a-z-])(--[a-z][a-z-]*|-o)' | grep -oE -- '--?[a-z][a-z-]*' | sort -u; }

# A command's --help usage: the lines from the first to the first blank one (the whole text is
# read first: a reader that stops early would break the tool's pipe).
usage_of() { local h; h=$("$GOSSIP" "$1" --help) && awk 'NF == 0 { exit } { print }' <<<"$h"; }
# The option list of a --help text: the lines "  --name ..." (two to four spaces, then a dash;
# deeper lines continue an explanation).
explained_of() { "$GOSSIP" "$1" --help 2>&1 | grep -E '^ {2,4}-' | awk '{ print $1 }' | sed 's/,$//' | sort -u; }

commands=$(echo "$readme" | awk '$1 == "gossip" { print $2 }' | sort -u)
for c in $commands; do
    table=$(echo "$readme" | awk -v c="$c" '$1 == "gossip" && $2 == c' | options)
    usage=$(usage_of "$c" | options)
    check
    if [ "$table" != "$usage" ]; then
        fail "gossip $c: the table's options differ from its --help usage (< table, > usage):"
        diff <(echo "$table") <(echo "$usage") | grep '^[<>]' | sed 's/^/  /'
    fi
    explained=$(explained_of "$c")
    check
    missing=$(comm -23 <(echo "$usage") <(echo "$explained"))
    [ -z "$missing" ] || fail "gossip $c --help: options in the usage but not explained: $(echo $missing)"
    check
    extra=$(comm -13 <(echo "$usage") <(echo "$explained"))
    [ -z "$extra" ] || fail "gossip $c --help: options explained but not in the usage: $(echo $extra)"
done

# gossip-mpi calibrate: its row against its usage and option list (its help needs no MPI launch).
if [ -n "$GOSSIP_MPI" ]; then
    h=$("$GOSSIP_MPI" help calibrate)
    table=$(echo "$readme" | grep 'gossip-mpi calibrate' | options)
    usage=$(awk 'NF == 0 { exit } { print }' <<<"$h" | options)
    check
    [ "$table" = "$usage" ] || fail "gossip-mpi calibrate: the table's options ($(echo $table)) differ from its usage ($(echo $usage))"
    check
    missing=$(comm -23 <(echo "$usage") <(grep -E '^ {2,4}-' <<<"$h" | awk '{ print $1 }' | sort -u))
    [ -z "$missing" ] || fail "gossip-mpi help calibrate: options in the usage but not explained: $(echo $missing)"
fi

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
