# SPDX-License-Identifier: GPL-3.0-or-later
# bash completion for gossip-mpi: commands, collectives, topology families, runtime algorithms and
# construction methods (asked of the installed gossip, so they never go stale) and the options
# (from gossip-mpi's own --help, which needs no MPI).
_gossip_mpi() {
    local cur prev words cword
    _init_completion 2>/dev/null || { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
    local cmds="run bench calibrate help version"
    if [ "$cword" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$cmds --help --version -V" -- "$cur"))
        return
    fi
    local cmd=${words[1]} coll= approx= w
    [ "$cmd" = run ] || [ "$cmd" = bench ] && coll=${words[2]}
    [ "$cword" -gt 2 ] || coll=
    for w in "${words[@]}"; do [ "$w" = --approximate ] && approx=1; done
    _gm_names() { gossip list "$@" --json 2>/dev/null | grep -o '"name": *"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/'; }
    case $prev in
    --algorithm) # the runtime algorithms of the collective run names
        local a
        if [ -n "$coll" ]; then a=$(_gm_names --runtime --collective "$coll" | sort -u); else a=$(_gm_names --runtime | sort -u); fi
        COMPREPLY=($(compgen -W "auto $a" -- "$cur"))
        return ;;
    --method) # the allgather or broadcast construction; with --approximate a register allreduce's
        local m
        if [ -n "$approx" ]; then m=$(_gm_names --collective allreduce | sort -u)
        else m=$({ _gm_names --collective allgather; _gm_names --collective broadcast; } | sort -u); fi
        COMPREPLY=($(compgen -W "auto $m" -- "$cur"))
        return ;;
    --type) COMPREPLY=($(compgen -W "double float int int16 int8" -- "$cur")); return ;;
    --op) COMPREPLY=($(compgen -W "sum max prod" -- "$cur")); return ;;
    -o | --output | --tuning) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac
    if [[ $cur == -* ]]; then
        local help
        if [ "$cmd" = calibrate ]; then help=$(gossip-mpi help calibrate 2>/dev/null); else help=$(gossip-mpi --help 2>/dev/null); fi
        COMPREPLY=($(compgen -W "$(grep -o -- '--[a-z][a-z-]*' <<<"$help" | sort -u)" -- "$cur"))
        return
    fi
    case $cmd in
    help) [ "$cword" -eq 2 ] && COMPREPLY=($(compgen -W "run bench calibrate" -- "$cur")); return ;;
    run | bench)
        if [ "$cword" -eq 2 ]; then
            COMPREPLY=($(compgen -W "broadcast allgather allreduce reduce-scatter reduce" -- "$cur"))
            return
        fi ;;
    *) return ;;
    esac
    if [[ $cur == file:* ]]; then
        COMPREPLY=($(compgen -P file: -f -- "${cur#file:}"))
    else
        COMPREPLY=($(compgen -W "torus: hypercube: star: circulant: optcirc: cycle: complete: cayley: perm: product( file:" -- "$cur"))
        compopt -o nospace 2>/dev/null
    fi
}
complete -F _gossip_mpi gossip-mpi
