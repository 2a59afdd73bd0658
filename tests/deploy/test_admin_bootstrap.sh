#!/usr/bin/env bash
# imaxe-server admin create-user, the headless bootstrap every deploy/ recipe can run: on a
# migrated database with no users, it creates a global admin and a team membership; the admin then
# signs in through the API and sees the team; running it again changes nothing; bad input exits
# non-zero and writes nothing; --reset-password is the only way it changes a password.
set -euo pipefail

server=${IMX_TEST_SERVER:?}
pgdir=$(readlink -f "${IMX_TEST_PGDIR:?}")
tmp=${IMX_TEST_BUILD_DIR:?}/tmp/admin_bootstrap_$$
user=$(if [ "$(id -u)" = 0 ]; then echo postgres; else id -un; fi)
db=t_admin_bootstrap_$$
export PGOPTIONS="-c client_min_messages=warning"
conninfo="host=$pgdir port=55432 user=$user dbname=$db"
sql() { psql --no-psqlrc -X -Atq -v ON_ERROR_STOP=1 "$1" -c "$2"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

srv=""
cleanup() {
    [ -n "$srv" ] && kill -9 "$srv" 2>/dev/null
    sql "host=$pgdir port=55432 user=$user dbname=postgres" "DROP DATABASE IF EXISTS $db WITH (FORCE)" || true
}
trap cleanup EXIT
rm -rf "$tmp" && mkdir -p "$tmp"
sql "host=$pgdir port=55432 user=$user dbname=postgres" "CREATE DATABASE $db"
export IMAXE_DATABASE_URL=$conninfo
admin() { "$server" admin "$@" 2>"$tmp/admin.err"; }

printf 'first-admin-password\n' >"$tmp/pw"
out=$(admin create-user --email Ops@Example.com --password-file "$tmp/pw" --global-admin --team platform --role admin) ||
    { cat "$tmp/admin.err"; fail "create-user"; }
echo "$out" | grep -q '"created":true' || fail "not created: $out"
echo "$out" | grep -q '"team_created":true' || fail "team not created: $out"
again=$(admin create-user --email ops@example.com --password-file "$tmp/pw" --global-admin --team platform --role admin)
echo "$again" | grep -q '"created":false' || fail "second run created again: $again"
echo "$again" | grep -q '"membership_changed":false' || fail "second run changed the membership: $again"
[ "$(sql "$conninfo" "SELECT count(*) FROM users")" = 1 ] || fail "users after two runs"

# Refused input changes nothing: a bad email, a bad slug (the user is not created either), a
# short password, an unknown role.
printf 'short\n' >"$tmp/short"
admin create-user --email not-an-email --password-file "$tmp/pw" && fail "bad email accepted"
admin create-user --email new@example.com --password-file "$tmp/pw" --team 'Bad Slug' && fail "bad slug accepted"
admin create-user --email new@example.com --password-file "$tmp/short" && fail "short password accepted"
set +e
admin create-user --email new@example.com --password-file "$tmp/pw" --role owner
[ $? = 2 ] || fail "unknown role: not a usage error"
set -e
[ "$(sql "$conninfo" "SELECT count(*) FROM users")" = 1 ] || fail "a refused run wrote a user"
[ "$(sql "$conninfo" "SELECT count(*) FROM teams")" = 1 ] || fail "a refused run wrote a team"

# The server starts with that user present (IMAXE_ADMIN_* unset): the admin signs in.
: >"$tmp/server.log"
env IMAXE_PORT=0 IMAXE_BIND=127.0.0.1 IMAXE_DB_WAIT_S=10 IMAXE_ACCESS_LOG=0 \
    IMAXE_JWT_SECRET=admin-bootstrap-test-secret-0123456789abcdef \
    "$server" serve >"$tmp/server.log" 2>&1 &
srv=$!
port=""
for _ in $(seq 1 200); do
    port=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\)\/.*/\1/p' "$tmp/server.log" | head -1 || true)
    [ -n "$port" ] && break
    kill -0 "$srv" 2>/dev/null || { cat "$tmp/server.log"; fail "server exited"; }
    sleep 0.05
done
[ -n "$port" ] || fail "server did not listen"
login() {
    curl -s "http://127.0.0.1:$port/v1/auth/login" -H 'Content-Type: application/json' \
        -d "{\"email\":\"ops@example.com\",\"password\":\"$1\"}"
}
token=$(login first-admin-password | sed -n 's/.*"access_token" *: *"\([^"]*\)".*/\1/p')
[ -n "$token" ] || fail "the bootstrapped admin cannot sign in"
me=$(curl -sf "http://127.0.0.1:$port/v1/me" -H "Authorization: Bearer $token")
echo "$me" | grep -q '"platform"' || fail "the admin's team is missing from /v1/me: $me"
echo "$me" | grep -Eq '"admin" *: *true' || fail "not a global admin: $me"

# Without --reset-password the stored password stays; with it, the new one works.
printf 'second-admin-password\n' >"$tmp/pw2"
admin create-user --email ops@example.com --password-file "$tmp/pw2" >/dev/null
login second-admin-password | grep -q access_token && fail "password changed without --reset-password"
admin create-user --email ops@example.com --password-file "$tmp/pw2" --reset-password >/dev/null
login second-admin-password | grep -q access_token || fail "--reset-password did not take"
[ "$(sql "$conninfo" "SELECT count(*) FROM audit_log WHERE request_id = 'imaxe-server admin'")" = 4 ] ||
    fail "each successful run leaves one audit entry"
echo "admin bootstrap: ok"
