#!/usr/bin/env bash
# docs/configuration.md and the server agree: every IMAXE_* variable the server reads (a string
# literal under server/, util/config.c's table and the jobs' own getenv calls alike) has a row in
# the reference table, and every row names a variable the server or `make run` (tools/run.sh)
# reads, or the _FILE form of one. The README's production settings are rows of the table too.
set -euo pipefail
src=${IMX_TEST_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
doc=$src/docs/configuration.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

grep -rhoE '"IMAXE_[A-Z0-9_]+"' "$src/server" | tr -d '"' | sort -u >"$tmp/read"
# The table's rows: | `IMAXE_X` | default | meaning |
grep -oE '^\| `IMAXE_[A-Z0-9_]+`' "$doc" | tr -d '|` ' | sort -u >"$tmp/rows"
[ -s "$tmp/rows" ] || { echo "FAIL: no configuration rows in $doc" >&2; exit 1; }

fail=0
while read -r v; do
    grep -qx "$v" "$tmp/rows" || { echo "FAIL: the server reads $v, docs/configuration.md has no row for it" >&2; fail=1; }
done <"$tmp/read"
while read -r v; do
    base=${v%_FILE}
    if ! grep -qx "$base" "$tmp/read" && ! grep -q "$base" "$src/tools/run.sh"; then
        echo "FAIL: docs/configuration.md documents $v, which nothing reads" >&2
        fail=1
    fi
done <"$tmp/rows"
# The README's production settings exist.
grep -oE '`IMAXE_[A-Z0-9_]+`' "$src/README.md" | tr -d '`' | sort -u >"$tmp/readme"
while read -r v; do
    grep -qx "${v%_FILE}" "$tmp/rows" || { echo "FAIL: README.md names $v, docs/configuration.md has no row for it" >&2; fail=1; }
done <"$tmp/readme"
[ "$fail" = 0 ] && echo "config reference: $(wc -l <"$tmp/rows") rows, $(wc -l <"$tmp/read") variables read by the server, all documented"
exit "$fail"
