#!/usr/bin/env bash
# deploy/backup.sh and restore.sh: back up a migrated database with rows in it while inserts
# keep arriving, restore into a fresh database, and serve from the restored one. Also: restore
# refuses a database that is not empty. The restored catalog answers searches exactly as the
# source did, and webhook events enqueued while no dispatcher ran (IMAXE_WEBHOOK_WORKERS=0 on the
# source) are delivered, once each and correctly signed, by a server on the restored database.
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
src_srv=""
rcv=""
cleanup() {
    [ -n "$loader" ] && kill "$loader" 2>/dev/null && wait "$loader" 2>/dev/null
    [ -n "$srv" ] && kill -9 "$srv" 2>/dev/null
    [ -n "$src_srv" ] && kill -9 "$src_srv" 2>/dev/null
    [ -n "$rcv" ] && kill "$rcv" 2>/dev/null
    sql postgres "DROP DATABASE IF EXISTS $src_db WITH (FORCE)" || true
    sql postgres "DROP DATABASE IF EXISTS $dst_db WITH (FORCE)" || true
}
trap cleanup EXIT
rm -rf "$tmp" && mkdir -p "$tmp"

sql postgres "DROP DATABASE IF EXISTS $src_db WITH (FORCE)"
sql postgres "DROP DATABASE IF EXISTS $dst_db WITH (FORCE)"
sql postgres "CREATE DATABASE $src_db"
sql postgres "CREATE DATABASE $dst_db"

# Starts imaxe-server on database $1 with extra NAME=value settings; sets $started_pid and $port.
serve() {
    local db=$1 log=$2
    shift 2
    : >"$log" # exists before the background job opens it, for the loop below
    env IMAXE_DATABASE_URL="$(conninfo "$db")" IMAXE_PORT=0 IMAXE_BIND=127.0.0.1 IMAXE_DB_WAIT_S=10 \
        IMAXE_JWT_SECRET=backup-restore-test-secret-0123456789abcdef \
        IMAXE_ADMIN_EMAIL=admin@restore.test IMAXE_ADMIN_PASSWORD=restore-admin-password-7 \
        IMAXE_ACCESS_LOG=0 "$@" "$server" serve >"$log" 2>&1 &
    started_pid=$!
    port=""
    for _ in $(seq 1 200); do
        port=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\)\/.*/\1/p' "$log" | head -1 || true)
        [ -n "$port" ] && break
        kill -0 "$started_pid" 2>/dev/null || { cat "$log"; fail "server exited"; }
        sleep 0.05
    done
    [ -n "$port" ] || { cat "$log"; fail "server did not listen"; }
}
# GET $2 from the server on port $1 as the bootstrap admin; the body on stdout.
get_as_admin() {
    local token
    token=$(curl -sf "http://127.0.0.1:$1/v1/auth/login" -H 'Content-Type: application/json' \
        -d '{"email":"admin@restore.test","password":"restore-admin-password-7"}' |
        sed -n 's/.*"access_token" *: *"\([^"]*\)".*/\1/p')
    [ -n "$token" ] || fail "no token from port $1"
    curl -sf "http://127.0.0.1:$1$2" -H "Authorization: Bearer $token"
}

echo "-- migrate the source and write rows"
IMAXE_DATABASE_URL=$(conninfo "$src_db") "$server" migrate >"$tmp/migrate.log" 2>&1 ||
    { cat "$tmp/migrate.log"; fail "migrate"; }
# Served with no dispatcher (events only queue up); it creates the admin while there are no users.
serve "$src_db" "$tmp/src-server.log" IMAXE_WEBHOOK_WORKERS=0
src_srv=$started_pid
src_port=$port
sql "$src_db" "INSERT INTO teams (slug, name) SELECT 'team-' || i, 'Team ' || i FROM generate_series(1, 50) i"
sql "$src_db" "INSERT INTO users (email, display_name, password_hash)
               SELECT 'user' || i || '@example.com', 'User ' || i, 'x' FROM generate_series(1, 50) i"
sql "$src_db" "INSERT INTO memberships (team_id, user_id, role)
               SELECT t.id, u.id, 'member' FROM teams t JOIN users u ON t.slug = 'team-' || split_part(split_part(u.email, '@', 1), 'user', 2)"

echo "-- a catalog with a webhook subscription; events queue up with no dispatcher running"
rcv_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
secret="whsec_$(head -c 32 /dev/urandom | base64 -w0)"
sql "$src_db" "WITH i AS (INSERT INTO images (family, version, team_id, provider, architecture,
                 os_name, os_version, layer, published_at)
               SELECT 'fam-' || (n % 5), 'v' || n, (SELECT id FROM teams WHERE slug = 'team-1'),
                 'aws', 'x86_64', 'ubuntu', '24.04', 'platform', now() - n * interval '1 hour'
               FROM generate_series(1, 40) n RETURNING id, version),
               c AS (INSERT INTO image_components (image_id, name, version)
                 SELECT i.id, 'nvidia-driver', '580.' || substr(i.version, 2) || '.01' FROM i RETURNING 1)
               INSERT INTO image_artifacts (image_id, region, artifact_id)
               SELECT i.id, 'us-east-1', 'ami-' || i.id FROM i"
sql "$src_db" "INSERT INTO webhooks (team_id, url, secret, event_types)
               SELECT id, 'http://127.0.0.1:$rcv_port/hook', '$secret', '{image.published}'
               FROM teams WHERE slug = 'team-2'"
sql "$src_db" "SELECT count(imx_image_event('image.published', id, id)) FROM images" >/dev/null

echo "-- back up while inserts (each with a webhook event) keep arriving"
(
    i=0
    while :; do
        i=$((i + 1))
        sql "$src_db" "INSERT INTO teams (slug, name) VALUES ('load-$i', 'Load $i');
                       SELECT imx_image_event('image.published', min(id), NULL) FROM images" >/dev/null || exit 0
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
[ "$(sql "$dst_db" "SELECT count(*) FROM users WHERE email LIKE 'user%'")" = 50 ] || fail "users"
[ "$(sql "$dst_db" "SELECT count(*) FROM memberships")" = 50 ] || fail "memberships"
loaded=$(sql "$dst_db" "SELECT count(*) FROM teams WHERE slug LIKE 'load-%'")
maxload=$(sql "$dst_db" "SELECT coalesce(max(split_part(slug, '-', 2)::int), 0) FROM teams WHERE slug LIKE 'load-%'")
total=$(sql "$src_db" "SELECT count(*) FROM teams WHERE slug LIKE 'load-%'")
echo "   $loaded of $total concurrent inserts were in the snapshot"
[ "$loaded" -gt 0 ] || fail "the backup did not overlap the inserts"
[ "$loaded" = "$maxload" ] || fail "restored inserts have gaps ($loaded rows, highest $maxload)"
[ "$(sql "$dst_db" "SELECT count(*) FROM schema_migrations")" = "$(sql "$src_db" "SELECT count(*) FROM schema_migrations")" ] ||
    fail "schema_migrations differ"
# A server holding a search index of the source must not take the restored catalog for it.
[ "$(sql "$dst_db" "SELECT instance FROM image_index_state")" != "$(sql "$src_db" "SELECT instance FROM image_index_state")" ] ||
    fail "the restored catalog kept the source's search-index identity"

pending=$(sql "$dst_db" "SELECT count(*) FROM webhook_deliveries WHERE state = 'pending'")
[ "$pending" -gt 40 ] || fail "only $pending undelivered events were in the backup"

echo "-- imaxe-server serves from the restored database and delivers the queued events"
(cd "$src_dir/tests" && exec node integration/webhook_receiver.js "$rcv_port" "$tmp/receiver.log") &
rcv=$!
for _ in $(seq 1 100); do [ -f "$tmp/receiver.log.ready" ] && break; sleep 0.05; done
[ -f "$tmp/receiver.log.ready" ] || fail "the receiver did not start"
curl -sf "http://127.0.0.1:$rcv_port/_control" -d "{\"secrets\":{\"/hook\":[\"$secret\"]}}" >/dev/null
serve "$dst_db" "$tmp/server.log" IMAXE_WEBHOOK_WORKERS=2 IMAXE_WEBHOOK_POLL_MS=100 \
    IMAXE_WEBHOOK_SCHEDULE=1,1 IMAXE_WEBHOOK_ALLOW_HOSTS="127.0.0.1:$rcv_port"
srv=$started_pid
grep -q "applied migration" "$tmp/server.log" && fail "the restored database needed migrations"
status=$(curl -s -o "$tmp/readyz.json" -w '%{http_code}' "http://127.0.0.1:$port/readyz")
[ "$status" = 200 ] || { cat "$tmp/readyz.json"; fail "/readyz answered $status"; }

echo "-- the restored catalog answers searches as the source did"
for q in "/v1/images?limit=200" "/v1/images?family=fam-3&facets=true" \
    "/v1/images?component=nvidia-driver:%3E%3D580.20&sort=family&limit=200"; do
    get_as_admin "$src_port" "$q" >"$tmp/search-src.json" || fail "source GET $q"
    get_as_admin "$port" "$q" >"$tmp/search-dst.json" || fail "restored GET $q"
    grep -q '"id"' "$tmp/search-src.json" || fail "GET $q found nothing"
    cmp -s "$tmp/search-src.json" "$tmp/search-dst.json" || fail "GET $q differs after the restore"
done

for _ in $(seq 1 200); do
    [ "$(sql "$dst_db" "SELECT count(*) FROM webhook_deliveries WHERE state <> 'delivered'")" = 0 ] && break
    sleep 0.1
done
[ "$(sql "$dst_db" "SELECT count(*) FROM webhook_deliveries WHERE state <> 'delivered'")" = 0 ] ||
    fail "queued events were not all delivered after the restore"
got=$(wc -l <"$tmp/receiver.log")
ids=$(sed -n 's/.*"id":"\(msg_[0-9]*\)".*/\1/p' "$tmp/receiver.log" | sort -u | wc -l)
[ "$got" = "$pending" ] && [ "$ids" = "$pending" ] ||
    fail "$pending queued events: $got requests, $ids distinct ids"
grep -q '"verified":\[false\]' "$tmp/receiver.log" && fail "a delivery failed signature verification"
echo "   $pending queued events delivered once each, signatures verified"
kill -TERM "$src_srv"
wait "$src_srv" || fail "source server exit status $?"
src_srv=""
kill -TERM "$srv"
wait "$srv" || fail "server exit status $?"
srv=""
echo "PASS"
