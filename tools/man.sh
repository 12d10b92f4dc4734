#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# man.sh — man pages for gossip and each of its commands, made from the tool's own --help so
# that the two never disagree. Usage: man.sh GOSSIP VERSION OUTDIR COMMAND...
# or man.sh --mpi GOSSIP-MPI VERSION OUTDIR: gossip-mpi(1) and gossip-mpi-calibrate(1) (its help
# needs no MPI: it is answered before MPI_Init).
set -euo pipefail
mpi=
if [ "$1" = --mpi ]; then mpi=1; shift; fi
g=$1 version=$2 out=$3
shift 3
mkdir -p "$out"
esc() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
page() { # NAME SECTION-TITLE SUMMARY HELP-TEXT SEEALSO
    {
        echo ".TH \"$2\" 1 \"\" \"gossip $version\" \"User Commands\""
        echo ".SH NAME"
        echo "$1 \\- $3"
        echo ".SH DESCRIPTION"
        echo ".nf"
        esc <<<"$4"
        echo ".fi"
        echo ".SH SEE ALSO"
        echo "$5"
    } >"$out/$1.1"
}
if [ -n "$mpi" ]; then
    page gossip-mpi GOSSIP-MPI "run and time gossip's collectives over MPI, against MPI's own" "$("$g" --help)" "gossip(1), gossip-mpi-calibrate(1)"
    page gossip-mpi-calibrate GOSSIP-MPI-CALIBRATE "measure the cost model of the running system and write a tuning file" \
        "$("$g" help calibrate)" "gossip-mpi(1), gossip-plan(1)"
    exit 0
fi
main=$("$g" --help)
see="gossip(1)"
for c in "$@"; do see="$see, gossip-$c(1)"; done
page gossip GOSSIP "plan, prove and simulate broadcast, gossip and global sum on interconnection networks" "$main" "$see"
for c in "$@"; do
    summary=$(awk -v c="$c" '$1 == c { $1 = ""; sub(/^ +/, ""); print; exit }' <<<"$main")
    [ -n "$summary" ] || { echo "man.sh: no summary for $c in gossip --help" >&2; exit 1; }
    page "gossip-$c" "GOSSIP-${c^^}" "$summary" "$("$g" "$c" --help)" "gossip(1)"
done
