#!/usr/bin/env bash
# `make bench-write`: the write path at real scale, everything through the API (see
# bench/write_path.py for what it measures and bench/RESULTS.md for the figures). Starts a
# private PostgreSQL, the server and a webhook receiver on loopback; bounded in count (about 6
# minutes on 2 cores with the defaults). Environment: BENCH_CATALOG (100000), BENCH_API_SHARE
# (0.1 of it through POST /v1/images), BENCH_PINS (10000), BENCH_SIZES (10,100,1000,5000),
# BENCH_SAMPLES (40).
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build >/dev/null
dir=$(mktemp -d /tmp/imaxe-bench-write.XXXXXX)
chmod 755 "$dir"
url=$(tools/pg.sh start "$dir/pg" "${BENCH_PG_PORT:-55452}" fast)
pid="" rpid=""
cleanup() {
    for p in $pid $rpid; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    tools/pg.sh stop "$dir/pg"
    rm -rf "$dir"
}
trap cleanup EXIT

rport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 bench/receiver.py "$rport" & rpid=$!
export IMAXE_DATABASE_URL=$url IMAXE_JWT_SECRET=bench-secret-0123456789abcdef0123456789
export IMAXE_ADMIN_EMAIL=bench@imaxe.local IMAXE_ADMIN_PASSWORD=bench-password-1
# One bench user makes far more than a person's 6,000 requests a minute: no rate limit here.
export IMAXE_WEBHOOK_ALLOW_HOSTS=127.0.0.1:$rport IMAXE_MAX_BODY_BYTES=16777216 IMAXE_RATE_LIMIT_PER_MIN=0
build/imaxe-server migrate >/dev/null 2>&1
IMAXE_PORT=0 IMAXE_ACCESS_LOG=0 build/imaxe-server > "$dir/server.log" 2>&1 & pid=$!
for _ in $(seq 100); do grep -q 'listening on' "$dir/server.log" && break; sleep 0.1; done
port=$(grep -o 'listening on http://[0-9.]*:[0-9]*/' "$dir/server.log" | sed 's/.*://; s/\/$//')
token=$(curl -sf "http://127.0.0.1:$port/v1/auth/login" -H 'Content-Type: application/json' \
    -d "{\"email\":\"$IMAXE_ADMIN_EMAIL\",\"password\":\"$IMAXE_ADMIN_PASSWORD\"}" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')
for t in bench-platform bench-ml; do
    curl -sf -o /dev/null "http://127.0.0.1:$port/v1/teams" -H "Authorization: Bearer $token" \
        -H 'Content-Type: application/json' -d "{\"slug\":\"$t\",\"name\":\"$t\"}"
done
BENCH_PORT=$port BENCH_RECEIVER=127.0.0.1:$rport IMAXE_TOKEN=$token python3 bench/write_path.py
printf '\nserver peak RSS: %s MB; database: %s\n' \
    "$(awk '/VmHWM/ {printf "%.1f", $2/1024}' /proc/$pid/status)" \
    "$(psql "$url" -XAtc "SELECT pg_size_pretty(pg_database_size(current_database()))")"
psql "$url" -XAtc "SELECT 'rows: ' || (SELECT count(*) FROM images) || ' images, '
    || (SELECT count(*) FROM image_advisories) || ' image_advisories, '
    || (SELECT count(*) FROM pin_advisories) || ' pin_advisories, '
    || (SELECT count(*) FROM webhook_events) || ' webhook_events, '
    || (SELECT count(*) FROM webhook_deliveries WHERE state = 'pending') || ' pending deliveries'"
