# SPDX-License-Identifier: GPL-3.0-or-later
# bash completion for gossip: commands, collectives, topology families, methods (asked of the
# installed tool, so they never go stale) and each command's options (from its --help).
_gossip() {
    local cur prev words cword
    _init_completion 2>/dev/null || { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
    local cmds="info plan verify list export draw scatter revolve route help version"
    if [ "$cword" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$cmds --help --version -V" -- "$cur"))
        return
    fi
    local cmd=${words[1]}
    case $prev in
    --method)
        COMPREPLY=($(compgen -W "auto $(gossip list --json 2>/dev/null | grep -o '"name": *"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/' | sort -u)" -- "$cur"))
        return ;;
    --algorithm)
        COMPREPLY=($(compgen -W "auto $(gossip list --runtime --json 2>/dev/null | grep -o '"name": *"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/' | sort -u)" -- "$cur"))
        return ;;
    -o | --output | --file | --tuning | --svg | --plot) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --ports) COMPREPLY=($(compgen -W "all 1" -- "$cur")); return ;;
    --duplex) COMPREPLY=($(compgen -W "full half" -- "$cur")); return ;;
    --format) COMPREPLY=($(compgen -W "msccl-json msccl-xml" -- "$cur")); return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(gossip "$cmd" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u)" -- "$cur"))
        return
    fi
    case $cmd in
    help) [ "$cword" -eq 2 ] && COMPREPLY=($(compgen -W "$cmds" -- "$cur")); return ;;
    plan | list)
        if [ "$cword" -eq 2 ]; then
            COMPREPLY=($(compgen -W "broadcast allgather allreduce reduce-scatter reduce" -- "$cur"))
            return
        fi ;;
    verify | export | draw)
        [ "$cword" -eq 2 ] && { COMPREPLY=($(compgen -f -- "$cur")); return; } ;;
    esac
    if [[ $cur == file:* ]]; then
        COMPREPLY=($(compgen -P file: -f -- "${cur#file:}"))
    else
        COMPREPLY=($(compgen -W "torus: hypercube: star: circulant: optcirc: cycle: complete: cayley: perm: product( file:" -- "$cur"))
        compopt -o nospace 2>/dev/null
    fi
}
complete -F _gossip gossip
