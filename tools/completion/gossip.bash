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
    # The collective a plan names (its first operand), to offer only that collective's methods
    # and algorithms; a plan with --bytes takes the allgather or broadcast construction its
    # runtime algorithms use, and draw the allgather's.
    local coll= bytes= w
    [ "$cmd" = plan ] && coll=${words[2]}
    [ "$cmd" = draw ] && coll=allgather
    for w in "${words[@]}"; do [[ $w == --bytes* ]] && bytes=1; done
    _gossip_names() { gossip list "$@" --json 2>/dev/null | grep -o '"name": *"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/'; }
    case $prev in
    --method)
        local m
        if [ -n "$bytes" ]; then
            m=$({ _gossip_names --collective allgather; _gossip_names --collective broadcast; } | sort -u)
        elif [ -n "$coll" ] && [ "$coll" != reduce ]; then
            m=$(_gossip_names --collective "$coll" | sort -u)
        else
            m=$(_gossip_names | sort -u)
        fi
        COMPREPLY=($(compgen -W "auto $m" -- "$cur"))
        return ;;
    --algorithm)
        local a
        if [ -n "$coll" ]; then a=$(_gossip_names --runtime --collective "$coll" | sort -u); else a=$(_gossip_names --runtime | sort -u); fi
        COMPREPLY=($(compgen -W "auto $a" -- "$cur"))
        return ;;
    --collective)
        local cs="broadcast allgather allreduce reduce-scatter"
        for w in "${words[@]}"; do [ "$w" = --runtime ] && cs="$cs reduce"; done
        COMPREPLY=($(compgen -W "$cs" -- "$cur"))
        return ;;
    --variant)
        [ "$cmd" = scatter ] && COMPREPLY=($(compgen -W "push push-async pull push-pull" -- "$cur"))
        [ "$cmd" = revolve ] && COMPREPLY=($(compgen -W "next snext snext2 bcnext" -- "$cur"))
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
    list) return ;; # no operands: --collective names the collective
    plan)
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
