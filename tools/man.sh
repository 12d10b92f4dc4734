#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# man.sh — man pages for gossip and each of its commands, made from the tool's own --help so
# that the two never disagree. Usage: man.sh GOSSIP VERSION OUTDIR COMMAND...
# or man.sh --mpi GOSSIP-MPI VERSION OUTDIR: gossip-mpi(1) and gossip-mpi-calibrate(1) (its help
# needs no MPI: it is answered before MPI_Init).
# A --help text is cut into the sections man(7) readers look for: its usage lines are the
# SYNOPSIS, its option lines ("  --name ...", with their indented continuations) the OPTIONS, what
# follows "example:" the EXAMPLES, the rest the DESCRIPTION. The ENVIRONMENT is written here:
# the variables each tool reads.
set -euo pipefail
mpi=
if [ "$1" = --mpi ]; then mpi=1; shift; fi
g=$1 version=$2 out=$3
shift 3
mkdir -p "$out"
esc() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

# Prints the part of a --help text (stdin) that is section $1: synopsis, options, examples or
# description.
part() {
    awk -v want="$1" '
        NR == 1 { sub(/^usage: +/, "") }
        state == "" && /^$/ { state = "body"; next }
        state == "" { if (want == "synopsis") { sub(/^ +/, ""); if (NR > 1 && $1 !~ /^(gossip|gossip-mpi|mpirun)$/) printf "    "; print }; next }
        /^example:/ || /^examples:/ { state = "example"; next }
        state == "example" { if (want == "examples") { sub(/^  /, ""); print }; next }
        /^  +-/ { opt = 1; if (want == "options") print; next }
        opt && /^    / { if (want == "options") print; next }
        { opt = 0; if (want == "description") print }' |
        awk 'NF { blank = 0; print; next } !blank++ && NR > 1 { print }' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

environment() { # the variables a page's tool reads
    if [ -n "$mpi" ]; then
        cat <<'EOF'
GOSSIP_TOPOLOGY     the topology of the ranks (a spec), for the PMPI drop-in library
GOSSIP_METHOD       the allgather or broadcast construction the runtime's algorithms use
GOSSIP_ALGORITHM    force runtime algorithms: allreduce=rs-ag,bcast=tree,...
GOSSIP_ALPHA, GOSSIP_BETA, GOSSIP_GAMMA, GOSSIP_HOP, GOSSIP_OVERHEAD
                    the cost model (seconds per message, per byte on a link, per byte
                    combined, per further link, per further message)
GOSSIP_SEGMENT      bytes per pipelined segment (a size: 64K; 0: whole blocks)
GOSSIP_SHARED_MEMORY  1 or 0: the shared-memory model or the link model
GOSSIP_TUNING       the tuning file (none: no file), else
                    $XDG_CONFIG_HOME/gossip/tuning.json or ~/.config/gossip/tuning.json
GOSSIP_VERBOSE      1: the tuning file used and each collective's algorithm; 2: also why
GOSSIP_MEMORY_LIMIT the bytes a topology may plan for (default: half the physical memory)
EOF
    else
        cat <<'EOF'
GOSSIP_MEMORY_LIMIT the bytes a topology may plan for (a size: 512M, 2G; default: half the
                    physical memory); larger work is refused before it starts (exit 2)
EOF
    fi
}

page() { # NAME SECTION-TITLE SUMMARY HELP-TEXT SEEALSO
    local syn desc opts ex
    syn=$(part synopsis <<<"$4") desc=$(part description <<<"$4") opts=$(part options <<<"$4") ex=$(part examples <<<"$4")
    {
        echo ".TH \"$2\" 1 \"\" \"gossip $version\" \"User Commands\""
        echo ".SH NAME"
        echo "$1 \\- $3"
        echo ".SH SYNOPSIS"
        echo ".nf"
        esc <<<"$syn"
        echo ".fi"
        if [ -n "$desc" ]; then
            echo ".SH DESCRIPTION"
            echo ".nf"
            esc <<<"$desc"
            echo ".fi"
        fi
        if [ -n "$opts" ]; then
            echo ".SH OPTIONS"
            echo ".nf"
            esc <<<"$opts"
            echo ".fi"
        fi
        echo ".SH ENVIRONMENT"
        echo ".nf"
        environment | esc
        echo ".fi"
        if [ -n "$ex" ]; then
            echo ".SH EXAMPLES"
            echo ".nf"
            esc <<<"$ex"
            echo ".fi"
        fi
        echo ".SH FILES"
        echo "The documents the help cites (docs/NAME.md) are installed in share/doc/gossip/docs."
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
