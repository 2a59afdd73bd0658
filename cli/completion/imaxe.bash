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
