#!/usr/bin/env bash
# `make run`: start a private PostgreSQL under ./var (unless IMAXE_DATABASE_URL is set), migrate,
# load the demo catalog, and serve in the foreground. Ctrl-C stops the server and PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
mkdir -p var

pg_started=""
if [ -z "${IMAXE_DATABASE_URL:-}" ]; then
    port=${IMAXE_PG_PORT:-55439}
    IMAXE_DATABASE_URL=$(tools/pg.sh start "$top/var/pg" "$port")
    export IMAXE_DATABASE_URL
    pg_started=1
fi
cleanup() {
    if [ -n "$pg_started" ]; then tools/pg.sh stop "$top/var/pg"; fi
}
trap cleanup EXIT

# Secrets for the local demo, generated once and kept in ./var.
if [ -z "${IMAXE_JWT_SECRET:-}" ] && [ -z "${IMAXE_JWT_SECRET_FILE:-}" ]; then
    [ -s var/jwt-secret ] || (umask 077; head -c 48 /dev/urandom | base64 -w0 > var/jwt-secret)
    export IMAXE_JWT_SECRET_FILE="$top/var/jwt-secret"
fi
export IMAXE_ADMIN_EMAIL=${IMAXE_ADMIN_EMAIL:-admin@imaxe.local}
export IMAXE_ADMIN_PASSWORD=${IMAXE_ADMIN_PASSWORD:-imaxe-demo-admin}
export IMAXE_PORT=${IMAXE_PORT:-8080}
# A webhook receiver on this machine, for trying webhooks out (README.md, "First steps").
export IMAXE_WEBHOOK_ALLOW_HOSTS=${IMAXE_WEBHOOK_ALLOW_HOSTS:-127.0.0.1:9000}
export IMAXE_WEB_DIR=${IMAXE_WEB_DIR:-$top/web}
export IMAXE_MIGRATIONS_DIR=${IMAXE_MIGRATIONS_DIR:-$top/migrations}

build/imaxe-server migrate
if [ -x tools/demo.sh ]; then tools/demo.sh; fi

cat <<MSG

  imaxe is starting on http://127.0.0.1:${IMAXE_PORT}/
    web catalog  http://127.0.0.1:${IMAXE_PORT}/
    API docs     http://127.0.0.1:${IMAXE_PORT}/docs   (the contract: /openapi.json)
    command line $top/build/imaxe   (imaxe login --url http://127.0.0.1:${IMAXE_PORT})
  demo admin: ${IMAXE_ADMIN_EMAIL} / ${IMAXE_ADMIN_PASSWORD} (owner of the demo teams)
  Ctrl-C stops it (and its private PostgreSQL).

MSG
# Not exec: the trap must stop PostgreSQL after the server exits.
build/imaxe-server serve &
server=$!
# The server creates the demo admin on its first start; make it an owner (admin) of the demo teams
# so that Pins, Webhooks and "Pin this image" work on the first screen.
for _ in $(seq 1 100); do
    if curl -fsS -o /dev/null "http://127.0.0.1:${IMAXE_PORT}/readyz" 2>/dev/null; then
        psql "$IMAXE_DATABASE_URL" -XAtq -v ON_ERROR_STOP=1 -v email="$IMAXE_ADMIN_EMAIL" \
            -f tools/demo/admin_teams.sql >/dev/null || true
        break
    fi
    kill -0 $server 2>/dev/null || break
    sleep 0.2
done
trap 'kill -TERM $server 2>/dev/null' INT TERM
wait $server || true
wait $server 2>/dev/null || true
