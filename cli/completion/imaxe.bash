# bash completion for imaxe: nouns and verbs come from `imaxe help commands`, options from the
# command's own --help, so they never fall behind the binary.
_imaxe()
{
    local cur=${COMP_WORDS[COMP_CWORD]} words=() i noun="" verb=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        -*) ;;
        *) if [ -z "$noun" ]; then noun=${COMP_WORDS[i]}; elif [ -z "$verb" ]; then verb=${COMP_WORDS[i]}; fi ;;
        esac
    done
    # Values from the server the stored sign-in reaches (nothing when it reaches none): team
    # slugs, family names, and pins as TEAM/NAME.
    local prev=${COMP_WORDS[COMP_CWORD - 1]}
    case $prev in
    --team | -t)
        COMPREPLY=($(compgen -W "$(imaxe teams list -f slug --timeout 3 2>/dev/null)" -- "$cur"))
        return ;;
    --family)
        COMPREPLY=($(compgen -W "$(imaxe images search -n 200 -f family --timeout 3 2>/dev/null | sort -u)" -- "$cur"))
        return ;;
    --pin)
        if [[ $cur == */* ]]; then
            local team=${cur%%/*}
            COMPREPLY=($(compgen -P "$team/" -W "$(imaxe pins list --team "$team" -f name --timeout 3 2>/dev/null)" -- "${cur#*/}"))
        else
            COMPREPLY=($(compgen -S / -W "$(imaxe teams list -f slug --timeout 3 2>/dev/null)" -- "$cur"))
            compopt -o nospace 2>/dev/null
        fi
        return ;;
    esac
    local cmds
    cmds=$(imaxe help commands 2>/dev/null) || return
    if [[ $cur == -* ]]; then
        local opts
        opts=$(imaxe $noun $verb --help 2>/dev/null | grep -oE -- '--[a-z0-9-]+' | sort -u)
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    elif [ -z "$noun" ]; then
        COMPREPLY=($(compgen -W "$(cut -d' ' -f1 <<<"$cmds" | sort -u) version help" -- "$cur"))
    elif [ -z "$verb" ]; then
        COMPREPLY=($(compgen -W "$(awk -v n="$noun" '$1 == n && NF > 1 {print $2}' <<<"$cmds")" -- "$cur"))
        [ ${#COMPREPLY[@]} -eq 0 ] && COMPREPLY=($(compgen -f -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -F _imaxe imaxe
