#!/usr/bin/env bash
# deploy/backup.sh and restore.sh: back up a migrated database with rows in it while inserts
# keep arriving, restore into a fresh database, and serve from the restored one. Also: restore
# refuses a database that is not empty.
set -euo pipefail

src_dir=${IMX_TEST_SOURCE_DIR:?}
server=${IMX_TEST_SERVER:?}
pgdir=$(readlink -f "${IMX_TEST_PGDIR:?}")
tmp=${IMX_TEST_BUILD_DIR:?}/tmp/backup_restore_$$
user=$(if [ "$(id -u)" = 0 ]; then echo postgres; else id -un; fi)
src_db=t_backup_src_$$
dst_db=t_backup_dst_$$
export PGOPTIONS="-c client_min_messages=warning"
conninfo() { printf 'host=%s port=55432 user=%s dbname=%s' "$pgdir" "$user" "$1"; }
sql() { psql --no-psqlrc -X -Atq -v ON_ERROR_STOP=1 "$(conninfo "$1")" -c "$2"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

loader=""
srv=""
cleanup() {
    [ -n "$loader" ] && kill "$loader" 2>/dev/null && wait "$loader" 2>/dev/null
    [ -n "$srv" ] && kill -9 "$srv" 2>/dev/null
    sql postgres "DROP DATABASE IF EXISTS $src_db WITH (FORCE)" || true
    sql postgres "DROP DATABASE IF EXISTS $dst_db WITH (FORCE)" || true
}
trap cleanup EXIT
rm -rf "$tmp" && mkdir -p "$tmp"

sql postgres "DROP DATABASE IF EXISTS $src_db WITH (FORCE)"
sql postgres "DROP DATABASE IF EXISTS $dst_db WITH (FORCE)"
sql postgres "CREATE DATABASE $src_db"
sql postgres "CREATE DATABASE $dst_db"

echo "-- migrate the source and write rows"
IMAXE_DATABASE_URL=$(conninfo "$src_db") "$server" migrate >"$tmp/migrate.log" 2>&1 ||
    { cat "$tmp/migrate.log"; fail "migrate"; }
sql "$src_db" "INSERT INTO teams (slug, name) SELECT 'team-' || i, 'Team ' || i FROM generate_series(1, 50) i"
sql "$src_db" "INSERT INTO users (email, display_name, password_hash)
               SELECT 'user' || i || '@example.com', 'User ' || i, 'x' FROM generate_series(1, 50) i"
sql "$src_db" "INSERT INTO memberships (team_id, user_id, role)
               SELECT t.id, u.id, 'member' FROM teams t JOIN users u ON t.slug = 'team-' || split_part(split_part(u.email, '@', 1), 'user', 2)"

echo "-- back up while inserts keep arriving"
(
    i=0
    while :; do
        i=$((i + 1))
        sql "$src_db" "INSERT INTO teams (slug, name) VALUES ('load-$i', 'Load $i')" || exit 0
    done
) &
loader=$!
sleep 0.5
IMAXE_DATABASE_URL=$(conninfo "$src_db") "$src_dir/deploy/backup.sh" "$tmp/imaxe.dump"
sleep 0.3
kill "$loader"; wait "$loader" 2>/dev/null || true
loader=""
[ -s "$tmp/imaxe.dump" ] || fail "no dump written"
ls "$tmp"/.imaxe-backup.* >/dev/null 2>&1 && fail "a temporary dump was left behind"

echo "-- restore refuses a database that is not empty"
if IMAXE_DATABASE_URL=$(conninfo "$src_db") "$src_dir/deploy/restore.sh" "$tmp/imaxe.dump" 2>"$tmp/refused.err"; then
    fail "restore into a non-empty database succeeded"
fi
grep -q "not empty" "$tmp/refused.err" || { cat "$tmp/refused.err"; fail "no 'not empty' message"; }
sql "$dst_db" "CREATE TYPE leftover AS ENUM ('x')"
IMAXE_DATABASE_URL=$(conninfo "$dst_db") "$src_dir/deploy/restore.sh" "$tmp/imaxe.dump" 2>/dev/null &&
    fail "restore into a database holding a type succeeded"
sql "$dst_db" "DROP TYPE leftover"

echo "-- restore into the empty database"
IMAXE_DATABASE_URL=$(conninfo "$dst_db") "$src_dir/deploy/restore.sh" "$tmp/imaxe.dump"

echo "-- the restored rows are there, and the concurrent inserts form a consistent prefix"
[ "$(sql "$dst_db" "SELECT count(*) FROM teams WHERE slug LIKE 'team-%'")" = 50 ] || fail "teams"
[ "$(sql "$dst_db" "SELECT count(*) FROM users")" = 50 ] || fail "users"
[ "$(sql "$dst_db" "SELECT count(*) FROM memberships")" = 50 ] || fail "memberships"
loaded=$(sql "$dst_db" "SELECT count(*) FROM teams WHERE slug LIKE 'load-%'")
maxload=$(sql "$dst_db" "SELECT coalesce(max(split_part(slug, '-', 2)::int), 0) FROM teams WHERE slug LIKE 'load-%'")
total=$(sql "$src_db" "SELECT count(*) FROM teams WHERE slug LIKE 'load-%'")
echo "   $loaded of $total concurrent inserts were in the snapshot"
[ "$loaded" -gt 0 ] || fail "the backup did not overlap the inserts"
[ "$loaded" = "$maxload" ] || fail "restored inserts have gaps ($loaded rows, highest $maxload)"
[ "$(sql "$dst_db" "SELECT count(*) FROM schema_migrations")" = "$(sql "$src_db" "SELECT count(*) FROM schema_migrations")" ] ||
    fail "schema_migrations differ"

echo "-- imaxe-server serves from the restored database"
: >"$tmp/server.log" # exists before the background job opens it, for the loop below
IMAXE_DATABASE_URL=$(conninfo "$dst_db") IMAXE_PORT=0 IMAXE_BIND=127.0.0.1 IMAXE_DB_WAIT_S=10 \
    IMAXE_JWT_SECRET=backup-restore-test-secret-0123456789abcdef \
    "$server" serve >"$tmp/server.log" 2>&1 &
srv=$!
port=""
for _ in $(seq 1 200); do
    port=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\)\/.*/\1/p' "$tmp/server.log" | head -1 || true)
    [ -n "$port" ] && break
    kill -0 "$srv" 2>/dev/null || { cat "$tmp/server.log"; fail "server exited"; }
    sleep 0.05
done
[ -n "$port" ] || { cat "$tmp/server.log"; fail "server did not listen"; }
grep -q "applied migration" "$tmp/server.log" && fail "the restored database needed migrations"
status=$(curl -s -o "$tmp/readyz.json" -w '%{http_code}' "http://127.0.0.1:$port/readyz")
[ "$status" = 200 ] || { cat "$tmp/readyz.json"; fail "/readyz answered $status"; }
kill -TERM "$srv"
wait "$srv" || fail "server exit status $?"
srv=""
echo "PASS"
