#!/usr/bin/env bash
# The include graph of server/ against its layers (server/README.md):
#   main -> api -> {auth, webhooks, jobs} -> db -> domain -> util, http used by api only,
#   cli (a front like api, for the command line) -> {auth, jobs, db, domain, util}.
# Reads every #include "dir/..." line and fails on an edge the graph does not allow, and on a
# file outside server/db/ that includes db/internal.h or libpq. Edges still
# to be removed are listed in KNOWN, file by file; a listed edge that is gone fails too, so the
# list only shrinks.
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/../.." && pwd)}"
cd "$root/server"

allowed() { # from to
    case "$1" in
    main) return 0 ;;
    api) [[ " auth webhooks jobs db domain util http " == *" $2 "* ]] ;;
    cli) [[ " auth jobs db domain util " == *" $2 "* ]] ;;
    auth | webhooks | jobs) [[ " db domain util " == *" $2 "* ]] ;;
    db) [[ " domain util " == *" $2 "* ]] ;;
    domain | http) [[ "$2" == util ]] ;;
    *) return 1 ;;
    esac
}

# Edges against the graph that are still there (file -> layer), to be removed: none. An edge
# added here must say why and shrink again.
KNOWN=""

bad=0
seen=""
# One pass over every file (a process per file took 30 s on a loaded machine): "file:layer".
while IFS=: read -r f to; do
    from="${f%%/*}"
    [ "$f" = main.c ] && from=main
    [ "$to" = "$from" ] && continue
    allowed "$from" "$to" && continue
    edge="$f->$to"
    seen="$seen $edge"
    if [[ " $KNOWN " != *" $edge "* ]]; then
        echo "layering: server/$f includes $to/ ($from may include: see this script)" >&2
        bad=1
    fi
done < <(find . -name '*.[ch]' -print0 | xargs -0 grep -Ho '^#include "[a-z_]*/' |
    sed 's|^\./||; s|:#include "|:|; s|/$||' | sort -u)

# server/db/internal.h (libpq's types, the statement runner, the result helpers) is server/db/'s
# own: no file above it includes it, nor libpq itself.
while IFS= read -r f; do
    echo "layering: server/$f includes db/internal.h or libpq (only server/db/ may)" >&2
    bad=1
done < <(grep -rlE '^#include ("db/internal\.h"|<libpq-fe\.h>)' --include='*.[ch]' . |
    sed 's|^\./||' | grep -v '^db/' || true)

# The other headers of server/db/ are what the layers above see: no libpq type in them.
while IFS= read -r f; do
    echo "layering: server/$f names a libpq type (keep those in db/internal.h)" >&2
    bad=1
done < <(grep -lE 'PGresult|PGconn|PGcancel|libpq-fe' db/*.h | grep -v '^db/internal\.h$' || true)

for edge in $KNOWN; do
    if [[ " $seen " != *" $edge "* ]]; then
        echo "layering: $edge is gone: take it off KNOWN in $0" >&2
        bad=1
    fi
done
[ "$bad" = 0 ] && echo "layering: every include edge of server/ follows the layers ($(echo $KNOWN | wc -w) known to remove)"
exit "$bad"
