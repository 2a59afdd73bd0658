#!/usr/bin/env bash
# The migrations' layout (server/README.md, "Adding or changing a SQL function"): numbered
# migrations define no SQL function, every function is defined once across migrations/, each
# re-applied file opens with a comment that names the files calling it, and those files
# exist, and every `-- imaxe:load` line names a re-applied file that exists.
set -uo pipefail
cd "${1:-$(dirname "$0")/../..}"
fail=0
bad() { echo "migrations layout: $*" >&2; fail=1; }

def='CREATE[[:space:]]+(OR[[:space:]]+REPLACE[[:space:]]+)?FUNCTION[[:space:]]+[a-z_.]+'
for f in migrations/[0-9]*.sql; do
    grep -qiE "$def" "$f" && bad "$f defines a function (put it in migrations/functions/ or procedures/)"
done
dups=$(grep -rhoiE "$def" migrations | awk '{print tolower($NF)}' | sort | uniq -d)
[ -z "$dups" ] || bad "defined more than once: $(echo $dups)"

for f in migrations/functions/*.sql migrations/procedures/*.sql; do
    head=$(awk '/^--/ {print; next} {exit}' "$f")
    [ -n "$head" ] || { bad "$f has no opening comment"; continue; }
    named=$(printf '%s\n' "$head" | grep -oE '(server|tools|bench|tests)/[a-z_/]+\.(c|h|sh)' | sort -u)
    # _patch.sql is only called by the other procedures; every other file names its callers (C, or the scripts).
    [ -n "$named" ] || [ "$(basename "$f")" = _patch.sql ] || bad "$f: its opening comment names no server/, tools/, bench/ or tests/ file"
    for n in $named; do [ -f "$n" ] || bad "$f names $n, which does not exist"; done
done

grep -h '^-- imaxe:load ' migrations/[0-9]*.sql | awk '{print $3}' | sort -u | while read -r rel; do
    [ -f "migrations/$rel" ] || { echo "migrations layout: -- imaxe:load names missing $rel" >&2; exit 1; }
done || fail=1

[ $fail -eq 0 ] && echo "migrations layout: ok ($(ls migrations/functions/*.sql migrations/procedures/*.sql | wc -l) re-applied files, $(grep -rhoiE "$def" migrations | wc -l) functions)"
exit $fail
