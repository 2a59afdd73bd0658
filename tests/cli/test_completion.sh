#!/usr/bin/env bash
# The bash completion of imaxe completes nouns, verbs and options from the binary it ships with,
# and the man page the build writes from the command table renders without warnings.
# usage: test_completion.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
export PATH="$build:$PATH"
fail=0
# shellcheck source=/dev/null
source "$src/cli/completion/imaxe.bash"
complete_line() { # words... (the last one is being completed)
    COMP_WORDS=(imaxe "$@")
    COMP_CWORD=$#
    COMPREPLY=()
    _imaxe
    printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
}
expect() { # what got want
    if [ "$2" != "$3" ]; then echo "completion of '$1': got '$2', want '$3'" >&2; fail=1; fi
}
expect "im" "$(complete_line im)" "images "
expect "images re" "$(complete_line images re)" "resolve restore revoke "
expect "webhooks v" "$(complete_line webhooks v)" "verify "
expect "log" "$(complete_line log)" "login logout "
expect "probe --ch" "$(complete_line probe --ch)" "--check "
expect "images search --pat" "$(complete_line images search --pat)" "--patch-status "
# Values come from the server through the real commands; here a stand-in answers those three
# commands (each is tested against the real server in test_cli_commands) and passes the rest on.
real_imaxe=$(command -v imaxe)
imaxe() {
    case "$*" in
    "teams list -f slug --timeout 3") printf 'ml-platform\nml-research\nvision\n' ;;
    "images search -n 200 -f family --timeout 3") printf 'pytorch-2.9\ndlami-base\npytorch-2.9\n' ;;
    "pins list --team ml-platform -f name --timeout 3") printf 'prod\nstaging\n' ;;
    *) "$real_imaxe" "$@" ;;
    esac
}
expect "pins list --team ml-" "$(complete_line pins list --team ml-)" "ml-platform ml-research "
expect "images search --family py" "$(complete_line images search --family py)" "pytorch-2.9 "
expect "images resolve --pin v" "$(complete_line images resolve --pin v)" "vision/ "
expect "images resolve --pin ml-platform/s" "$(complete_line images resolve --pin ml-platform/s)" "ml-platform/staging "
unset -f imaxe
# Every noun of the command table is offered.
nouns=$(imaxe help commands | cut -d' ' -f1 | sort -u | tr '\n' ' ')
got=$(complete_line "")
for n in $nouns; do
    grep -qw -- "$n" <<<"$got" || { echo "noun $n is not completed" >&2; fail=1; }
done
if command -v man >/dev/null; then
    warnings=$(LC_ALL=C.UTF-8 MANWIDTH=100 man --warnings -l "$build/imaxe.1" 2>&1 >/dev/null || true)
    if [ -n "$warnings" ]; then echo "man page: $warnings" >&2; fail=1; fi
    body=$(MANWIDTH=100 man -l "$build/imaxe.1" 2>/dev/null)
    for c in "images search" "webhooks verify" "probe" "EXIT STATUS"; do
        grep -q "$c" <<<"$body" || { echo "the man page lacks $c" >&2; fail=1; }
    done
fi
[ $fail -eq 0 ] && echo "completion and man page: ok"
exit $fail
