#!/usr/bin/env bash
# Retakes the chart pictures of docs/charts/ from the demo catalog (tools/demo: publish dates
# spread over two years, the real NVIDIA bulletins) rather than the browser tests' same-day
# seed: a private PostgreSQL and the server, the demo loaded, demo-ml pins on older images and a
# few reporting nodes, then the exposure snapshot taken on five days (the server restarted with
# IMAXE_EXPOSURE_TODAY, a pin moved to its fix between two of them), then tools/chart-shots.mjs
# (playwright-core and Debian's chromium, as the browser tests) photographs each chart.
# About a minute. Needs build/imaxe-server and tools/npm-deps.sh once.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/imaxe-server ] || { echo "build first" >&2; exit 1; }
dir=$(mktemp -d /tmp/imaxe-shots.XXXXXX)
chmod 755 "$dir"
url=$(tools/pg.sh start "$dir/pg" "${SHOTS_PG_PORT:-55471}" fast)
pid=""
stop_server() { [ -n "$pid" ] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }; pid=""; }
cleanup() { stop_server; tools/pg.sh stop "$dir/pg"; rm -rf "$dir"; }
trap cleanup EXIT
export IMAXE_DATABASE_URL=$url IMAXE_JWT_SECRET=shots-secret-0123456789abcdef0123456789
export IMAXE_ADMIN_EMAIL=admin@imaxe.local IMAXE_ADMIN_PASSWORD=imaxe-demo-admin
export IMAXE_RATE_LIMIT_PER_MIN=0 IMAXE_WEBHOOK_WORKERS=0 IMAXE_ACCESS_LOG=0
export IMAXE_WEB_DIR=$PWD/web IMAXE_MIGRATIONS_DIR=$PWD/migrations IMAXE_PORT=${SHOTS_PORT:-18931}
build/imaxe-server migrate >/dev/null 2>&1
tools/demo.sh >/dev/null 2>&1
start() { # $1: the exposure job's day (YYYY-MM-DD)
    stop_server
    IMAXE_EXPOSURE_TODAY=$1 IMAXE_EXPOSURE_CHECK_S=3600 build/imaxe-server > "$dir/server.log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do curl -fsS -o /dev/null "http://127.0.0.1:$IMAXE_PORT/readyz" 2>/dev/null && break; sleep 0.1; done
    sleep 0.5
}
day() { date -u -d "+$1 days" +%F; }
start "$(day -28)"
psql "$url" -XAtq -v email="$IMAXE_ADMIN_EMAIL" -f tools/demo/admin_teams.sql >/dev/null
base=http://127.0.0.1:$IMAXE_PORT
token=$(curl -fsS "$base/v1/auth/login" -H 'Content-Type: application/json' \
    -d "{\"email\":\"$IMAXE_ADMIN_EMAIL\",\"password\":\"$IMAXE_ADMIN_PASSWORD\"}" | jq -r .access_token)
api() { curl -fsS "$base/v1$1" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' "${@:2}"; }
img() { psql "$url" -XAtc "SELECT id FROM images WHERE family = '$1' AND version = '$2'"; }
old=$(img dlami-base-ubuntu24.04 2025.09.15)
mid=$(img dlami-base-ubuntu24.04 2025.11.03)
new=$(img dlami-base-ubuntu24.04 2026.02.10)
rocky=$(img onprem-dgx-rocky9 2025.03.01)
api /pins -d "{\"team\":\"demo-ml\",\"name\":\"training\",\"image\":$old}" >/dev/null
api /pins -d "{\"team\":\"demo-ml\",\"name\":\"batch-inference\",\"image\":$mid}" >/dev/null
pin_rocky=$(api /pins -d "{\"team\":\"demo-ml\",\"name\":\"dgx-cluster\",\"image\":$rocky}" | jq -r .id)
ntok=$(api /tokens -d '{"name":"shots","team":"demo-ml","role":"member","scope":"node-report"}' | jq -r .token)
report() { # name image driver
    printf '{"name":"%s","image":{"id":%s},"instance_type":"p5.48xlarge","probe":{"architecture":"x86_64","os":{"name":"ubuntu","version":"24.04"},"gpus":["H100"],"components":[{"name":"nvidia-driver","version":"%s"}]}}\n' "$1" "$2" "$3"
}
nodes() { # count image driver prefix
    for i in $(seq "$1"); do report "$4-$i" "$2" "$3"; done |
        curl -fsS "$base/v1/nodes/reports" -H "Authorization: Bearer $ntok" -H 'Content-Type: application/x-ndjson' --data-binary @- >/dev/null
}
nodes 24 "$old" 580.82.07 train
nodes 16 "$mid" 580.95.05 infer
nodes 8 "$rocky" 550.127.05 dgx
start "$(day -21)"
start "$(day -14)"
# The DGX pin moves to its fix; its nodes follow.
api "/pins/$pin_rocky" -X PUT -d "{\"image\":$(img onprem-dgx-rocky9 2026.03.02)}" >/dev/null
nodes 8 "$(img onprem-dgx-rocky9 2026.03.02)" 580.126.09 dgx
start "$(day -9)"
# Half the training nodes move to the newest image.
nodes 12 "$new" 580.105.08 train
start "$(day -2)"
start "$(day 0)"
SHOTS_BASE=$base SHOTS_TOKEN=$token SHOTS_IMAGE="$(img onprem-dgx-rocky9 2025.11.20)" SHOTS_SEVERITY=$rocky \
SHOTS_COMPARE="$old,$mid,$new,$(img azure-hpc-ubuntu24.04 2026.01.15)" \
    node tools/chart-shots.mjs
