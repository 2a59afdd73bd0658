#!/usr/bin/env bash
# Restores a backup.sh dump into an EMPTY database (create it first: createdb imaxe_restored),
# in one transaction: either everything is restored or nothing is. A database that already
# holds tables, types or functions is refused, so a restore never mixes into live data.
#   IMAXE_DATABASE_URL=postgresql://.../imaxe_restored restore.sh /var/backups/imaxe.dump
# The URL may instead be in the file named by IMAXE_DATABASE_URL_FILE, as for the server.
set -euo pipefail

usage() { echo "usage: restore.sh FILE   (IMAXE_DATABASE_URL or IMAXE_DATABASE_URL_FILE set: an empty database)" >&2; exit 2; }
[ $# -eq 1 ] && [ -n "$1" ] || usage
in=$1
[ -r "$in" ] || { echo "restore.sh: cannot read $in" >&2; exit 1; }

url=${IMAXE_DATABASE_URL:-}
if [ -z "$url" ] && [ -n "${IMAXE_DATABASE_URL_FILE:-}" ]; then
    url=$(head -c 8192 "$IMAXE_DATABASE_URL_FILE" | tr -d '\r\n')
fi
[ -n "$url" ] || usage
command -v pg_restore >/dev/null || { echo "restore.sh: pg_restore not found (apt-get install postgresql-client-15)" >&2; exit 1; }

# Objects that belong to someone: anything outside the system schemas, other than the empty
# public schema itself and plpgsql.
objects=$(psql --no-psqlrc --no-password --dbname="$url" -Atq -v ON_ERROR_STOP=1 <<'SQL'
SELECT (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
           AND n.nspname NOT LIKE 'pg\_toast%' AND n.nspname NOT LIKE 'pg\_temp%')
     + (SELECT count(*) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
         WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
           AND n.nspname NOT LIKE 'pg\_toast%' AND n.nspname NOT LIKE 'pg\_temp%')
     + (SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
         WHERE n.nspname NOT IN ('pg_catalog', 'information_schema'))
     + (SELECT count(*) FROM pg_namespace
         WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'public')
           AND nspname NOT LIKE 'pg\_toast%' AND nspname NOT LIKE 'pg\_temp%')
     + (SELECT count(*) FROM pg_extension WHERE extname <> 'plpgsql');
SQL
)
if [ "$objects" != 0 ]; then
    echo "restore.sh: refusing to restore: the target database is not empty ($objects objects)." >&2
    echo "restore.sh: create an empty one (createdb NAME) and point IMAXE_DATABASE_URL at it." >&2
    exit 1
fi

# --no-owner/--no-acl: the restored objects belong to the role restore.sh connects as, which
# need not be the role that owned them where the backup was taken.
pg_restore --single-transaction --exit-on-error --no-owner --no-acl --no-password \
    --dbname="$url" "$in"
# A new identity for the restored catalog: a server that kept a search index of the database
# the backup came from reloads it instead of catching up (migrations/0010_search_index.sql).
psql --no-psqlrc --no-password --dbname="$url" -q -v ON_ERROR_STOP=1 -c \
    "DO \$\$ BEGIN IF to_regclass('image_index_state') IS NOT NULL THEN
       UPDATE image_index_state SET instance = gen_random_uuid(); END IF; END \$\$"
echo "restore.sh: restored $in"
