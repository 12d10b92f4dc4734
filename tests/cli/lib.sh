# SPDX-License-Identifier: GPL-3.0-or-later
# lib.sh — helpers for the CLI tests: run the tool, check exit codes, error lines and JSON.
set -u
GOSSIP=${GOSSIP:?}
failures=0
checks=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect CODE ARGS... : the exit code must be CODE; for 2, stderr must be one error line.
expect() {
    local want=$1; shift
    checks=$((checks + 1))
    timeout 60 "$GOSSIP" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" != "$want" ]; then
        fail "gossip $* exited $rc, want $want; stderr: $(head -c 300 "$tmp/err")"
        return 1
    fi
    if [ "$want" = 2 ]; then
        local lines
        lines=$(wc -l <"$tmp/err")
        if [ "$lines" != 1 ] || ! grep -q '^gossip: error: ' "$tmp/err"; then
            fail "gossip $*: want one 'gossip: error:' line on stderr, got: $(cat "$tmp/err")"
            return 1
        fi
    fi
    return 0
}

# jqcheck FILTER : the last stdout must satisfy the jq filter (which yields true).
jqcheck() {
    checks=$((checks + 1))
    if ! jq -e "$1" "$tmp/out" >/dev/null 2>&1; then
        fail "jq '$1' on: $(head -c 400 "$tmp/out")"
    fi
}

# grepcheck REGEX : the last stdout must match.
grepcheck() {
    checks=$((checks + 1))
    grep -qE -- "$1" "$tmp/out" || fail "stdout does not match '$1': $(head -c 400 "$tmp/out")"
}

# errline REGEX : the last stderr (one error line, checked by expect) must match.
errline() {
    checks=$((checks + 1))
    grep -qE -- "$1" "$tmp/err" || fail "stderr does not match '$1': $(cat "$tmp/err")"
}

finish() {
    echo "$((checks - failures)) passed, $failures failed"
    [ "$failures" = 0 ]
}
