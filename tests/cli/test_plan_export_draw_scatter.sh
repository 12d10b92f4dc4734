# SPDX-License-Identifier: GPL-3.0-or-later
#!/usr/bin/env bash
# test_plan_export_draw_scatter.sh — where the writers write (plan -o, export -o, draw -o, scatter --plot): "-" is
# standard output (plan's report then on stderr), a FIFO or a device is written in place, a
# symbolic link stays a link, a failed write (a full disk, a closed pipe) is exit 3 with the
# reason and no "written", a directory that cannot take the file exit 2 with nothing left behind;
# "-" as an input reads standard input (verify, export, draw).
GOSSIP=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") # absolute: the test runs in its directory
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1

# check CONDITION MESSAGE : one check of the test's own.
check() {
    checks=$((checks + 1))
    eval "$1" || fail "$2"
}

expect 0 plan allgather torus:3x3 -o "$tmp/t33.json"
check '[ -f "$tmp/t33.json" ] && [ ! -e "$tmp/-" ]' "plan -o FILE"

# ---- standard output ----
expect 0 plan allgather torus:3x3 -o -
jqcheck '.format == "gossip-schedule" and .topology == "torus:3x3" and .nodes == 9'
check '[ ! -e "$tmp/-" ]' "plan -o - wrote a file named '-'"
check 'grep -q "^written  *standard output" "$tmp/err" && grep -q "^rounds  *2" "$tmp/err"' "plan -o -: the report belongs on stderr: $(cat "$tmp/err")"
cp "$tmp/out" "$tmp/stdout.json"
expect 0 verify - <"$tmp/stdout.json" && grepcheck '^correct: allgather on torus:3x3'
expect 0 verify - --json <"$tmp/stdout.json" && jqcheck '.ok and .nodes == 9'
printf '{"format":' >"$tmp/half.json"
expect 2 verify - <"$tmp/half.json" && check 'grep -q "(standard input):" "$tmp/err"' "verify -: malformed input named"
expect 2 verify - </dev/null && check 'grep -q "standard input is empty" "$tmp/err"' "verify - on nothing"
expect 2 plan allgather torus:3x3 -o - --json && check 'grep -q "both write standard output" "$tmp/err"' "plan -o - --json"
# /dev/stdout names standard output too: the report moves to stderr, the schedule is the file.
expect 0 plan allgather torus:3x3 -o /dev/stdout
jqcheck '.format == "gossip-schedule"'
check 'grep -q "^written  */dev/stdout" "$tmp/err"' "plan -o /dev/stdout: report on stderr"
expect 0 export "$tmp/t33.json" --format msccl-json -o -
jqcheck '.msccl_type == "algorithm" and .collective.nodes == 9'
cp "$tmp/out" "$tmp/msccl.json"
expect 0 verify - --topology torus:3x3 <"$tmp/msccl.json" && grepcheck '^correct'
expect 2 verify - <"$tmp/msccl.json" && check 'grep -q "standard input is msccl-tools JSON" "$tmp/err"' "msccl on stdin without --topology"
expect 0 export - --format msccl-xml <"$tmp/t33.json" && grepcheck '^<algo '
expect 0 export "$tmp/t33.json" --format msccl-xml && grepcheck '^<algo '
expect 0 draw torus:3x3 -o -
check 'xmllint --noout "$tmp/out"' "draw -o -: not SVG"
expect 0 draw - -o "$tmp/stdin.svg" <"$tmp/t33.json"
check 'xmllint --noout "$tmp/stdin.svg"' "draw - (a schedule on stdin)"
expect 0 scatter --plot - --sizes 8 --trials 50
check 'xmllint --noout "$tmp/out"' "scatter --plot -: not SVG"

# ---- a symbolic link stays a link; the file it points to is replaced ----
cp "$tmp/t33.json" "$tmp/target.json"
ln -s target.json "$tmp/link.json"
expect 0 plan allgather torus:4x4 -o "$tmp/link.json" && grepcheck "^written  *$tmp/link.json"
check '[ -L "$tmp/link.json" ] && [ "$(jq -r .topology "$tmp/target.json")" = torus:4x4 ]' "plan -o LINK replaced the link"
ln -s target.xml "$tmp/link.xml"
expect 0 export "$tmp/t33.json" --format msccl-xml -o "$tmp/link.xml"
check '[ -L "$tmp/link.xml" ] && grep -q "^<algo " "$tmp/target.xml"' "export -o LINK (dangling: its target created)"
ln -s target.svg "$tmp/link.svg"
expect 0 draw torus:3x3 -o "$tmp/link.svg"
check '[ -L "$tmp/link.svg" ] && xmllint --noout "$tmp/target.svg"' "draw -o LINK"
expect 0 scatter --plot "$tmp/link.svg" --sizes 8 --trials 20
check '[ -L "$tmp/link.svg" ] && grep -q "lines exact" "$tmp/target.svg"' "scatter --plot LINK"

# ---- a FIFO is written in place (a reader in the background) ----
mkfifo "$tmp/fifo"
fifo_ok=1
# through_fifo WHAT ARGS... : runs gossip ARGS with a reader on the FIFO; WHAT: jq or xml, the check of what arrived.
through_fifo() {
    local what=$1; shift
    rm -f "$tmp/fifo.out"
    timeout 20 cat "$tmp/fifo" >"$tmp/fifo.out" &
    local reader=$!
    expect 0 "$@" || fifo_ok=0
    wait "$reader"
    checks=$((checks + 1))
    if [ ! -p "$tmp/fifo" ]; then
        fail "gossip $*: the FIFO is no longer a FIFO"
        fifo_ok=0
        rm -f "$tmp/fifo"
        mkfifo "$tmp/fifo"
    elif [ "$what" = jq ] && ! jq -e . "$tmp/fifo.out" >/dev/null 2>&1; then
        fail "gossip $*: no JSON through the FIFO"; fifo_ok=0
    elif [ "$what" = xml ] && ! xmllint --noout "$tmp/fifo.out" 2>/dev/null; then
        fail "gossip $*: no XML through the FIFO"; fifo_ok=0
    fi
}
through_fifo jq plan allgather torus:3x3 -o "$tmp/fifo"
through_fifo jq export "$tmp/t33.json" --format msccl-json -o "$tmp/fifo"
through_fifo xml draw torus:3x3 -o "$tmp/fifo"
through_fifo xml scatter --plot "$tmp/fifo" --sizes 8 --trials 20

# ---- a full device: exit 3 with the reason, no "written", the device kept. Only where
# /dev/full exists, and only once the FIFO showed that special files are written in place (a
# regression would otherwise replace the machine's /dev/full with a file, as root). ----
if [ -c /dev/full ] && [ "$fifo_ok" = 1 ]; then
    ln -s /dev/full "$tmp/full"
    for o in /dev/full "$tmp/full"; do
        expect 3 plan allgather torus:3x3 -o "$o"
        check '! grep -q written "$tmp/out" && grep -q "cannot write .*No space left on device" "$tmp/err"' "plan -o $o: $(cat "$tmp/err")"
        expect 3 export "$tmp/t33.json" --format msccl-xml -o "$o"
        check 'grep -q "No space left on device" "$tmp/err"' "export -o $o"
        expect 3 draw torus:3x3 -o "$o"
        check 'grep -q "No space left on device" "$tmp/err"' "draw -o $o"
        expect 3 scatter --plot "$o" --sizes 8 --trials 20
        check 'grep -q "No space left on device" "$tmp/err"' "scatter --plot $o"
        check '[ -c /dev/full ]' "/dev/full is no longer a device"
    done
    check '[ -L "$tmp/full" ]' "the link to /dev/full was replaced"
    # Standard output on a full device: every command's output is checked.
    for args in "list" "plan allgather torus:3x3 --json" "info torus:3x3" "plan allgather torus:3x3 -o -" "export $tmp/t33.json --format msccl-json"; do
        checks=$((checks + 1))
        # shellcheck disable=SC2086
        "$GOSSIP" $args >/dev/full 2>"$tmp/err"
        rc=$?
        [ "$rc" = 3 ] && grep -q "^gossip: error: cannot write standard output: No space left on device" "$tmp/err" ||
            fail "gossip $args >/dev/full: exit $rc, $(cat "$tmp/err")"
    done
fi

# ---- a closed pipe: exit 3 with the reason (no silent death by SIGPIPE). More than a pipe's
# buffer (64 KiB) is written to a reader that reads nothing, so the write fails for sure. ----
expect 0 plan allgather hypercube:8 --method greedy -o "$tmp/q8.json"
checks=$((checks + 1))
"$GOSSIP" plan allgather hypercube:8 --method greedy -o - 2>"$tmp/err" | true
rc=${PIPESTATUS[0]}
[ "$rc" = 3 ] && grep -q "cannot write standard output: Broken pipe" "$tmp/err" && ! grep -q written "$tmp/err" ||
    fail "plan -o - into a closed pipe: exit $rc, $(cat "$tmp/err")"
checks=$((checks + 1))
"$GOSSIP" export "$tmp/q8.json" --format msccl-xml 2>"$tmp/err" | true
rc=${PIPESTATUS[0]}
[ "$rc" = 3 ] && grep -q "Broken pipe" "$tmp/err" || fail "export into a closed pipe: exit $rc, $(cat "$tmp/err")"

# ---- a directory that cannot take the file: exit 2, the reason, nothing left behind ----
expect 2 plan allgather torus:3x3 -o "$tmp/no/such/x.json" && check 'grep -q "No such file or directory" "$tmp/err"' "missing directory"
expect 2 export "$tmp/t33.json" --format msccl-json -o "$tmp/no/such/x.json"
expect 2 draw torus:3x3 -o "$tmp/no/such/x.svg"
expect 2 scatter --plot "$tmp/no/such/x.svg" --sizes 8 --trials 20
expect 2 plan allgather torus:3x3 -o "$tmp" && check 'grep -q "Is a directory" "$tmp/err"' "-o DIRECTORY"
if [ "$(id -u)" != 0 ]; then # root writes anywhere
    mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
    expect 2 plan allgather torus:3x3 -o "$tmp/ro/x.json" && check 'grep -q "Permission denied" "$tmp/err"' "read-only directory"
    check '[ -z "$(ls -A "$tmp/ro")" ]' "a file left in the read-only directory"
    chmod 755 "$tmp/ro"
fi

# Regular files: replaced whole, no temporary file left anywhere.
check '[ -z "$(find "$tmp" -name "*.tmp*")" ]' "temporary files left: $(find "$tmp" -name '*.tmp*')"
cd / || exit 1
finish
