#!/usr/bin/env bash
# NVIDIA's whole CSAF feed into a catalog of realistic size (bench/RESULTS.md, "Feed import"):
# a private PostgreSQL and the server; BENCH_IMAGES (10000) images of the bench catalog
# (bench/gen_catalog.sh) plus the demo catalog (tools/demo.sh); then `imaxe advisories import
# FEED` twice (the first load, then a run with nothing new), timed, with the server's and
# PostgreSQL's CPU. FEED: a checkout of https://github.com/NVIDIA/product-security (YEAR/ID/ID.json).
#   bench/feed_import.sh FEED
set -euo pipefail
feed=$(realpath "${1:?usage: feed_import.sh CHECKOUT_OF_NVIDIA_PRODUCT_SECURITY}")
cd "$(dirname "$0")/.."
[ -x build/imaxe-server ] && [ -x build/imaxe ] || { echo "build first (cmake --build build)" >&2; exit 1; }
dir=$(mktemp -d /tmp/imaxe-bench-feed.XXXXXX)
chmod 755 "$dir"
url=$(tools/pg.sh start "$dir/pg" "${BENCH_PG_PORT:-55464}" fast)
pid=""
cleanup() {
    [ -n "$pid" ] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
    tools/pg.sh stop "$dir/pg"
    rm -rf "$dir"
}
trap cleanup EXIT
export IMAXE_DATABASE_URL=$url IMAXE_JWT_SECRET=bench-secret-0123456789abcdef0123456789
export IMAXE_ADMIN_EMAIL=bench@imaxe.local IMAXE_ADMIN_PASSWORD=bench-password-1
export IMAXE_RATE_LIMIT_PER_MIN=0 IMAXE_WEBHOOK_WORKERS=0 IMAXE_ACCESS_LOG=0
build/imaxe-server migrate >/dev/null 2>&1
BENCH_IMAGES=${BENCH_IMAGES:-10000} bench/gen_catalog.sh "$url"
tools/demo.sh >/dev/null 2>&1
psql "$url" -XAtc "SELECT format('catalog: %s images, %s advisories', (SELECT count(*) FROM images), (SELECT count(*) FROM advisories))"
# BENCH_PROFILE=1: PostgreSQL logs every statement over 100 ms, and the slowest are printed.
if [ -n "${BENCH_PROFILE:-}" ]; then
    psql "$url" -XAqc "ALTER SYSTEM SET log_min_duration_statement = 100" -c "SELECT pg_reload_conf()"
fi
IMAXE_PORT=0 build/imaxe-server > "$dir/server.log" 2>&1 & pid=$!
for _ in $(seq 200); do grep -q 'listening on' "$dir/server.log" && break; sleep 0.1; done
port=$(grep -o 'listening on http://[0-9.]*:[0-9]*/' "$dir/server.log" | sed 's/.*://; s/\/$//')
export IMAXE_URL=http://127.0.0.1:$port
IMAXE_TOKEN=$(curl -sf "$IMAXE_URL/v1/auth/login" -H 'Content-Type: application/json' \
    -d "{\"email\":\"$IMAXE_ADMIN_EMAIL\",\"password\":\"$IMAXE_ADMIN_PASSWORD\"}" | jq -r .access_token)
export IMAXE_TOKEN
# CPU ticks of the server and of this cluster's PostgreSQL processes (the postmaster's children).
ticks() {
    local pg=0 p pm
    pm=$(head -1 "$dir/pg/data/postmaster.pid")
    for p in $pm $(pgrep -P "$pm" || true); do
        [ -r /proc/$p/stat ] && pg=$((pg + $(awk '{print $14 + $15}' /proc/$p/stat)))
    done
    echo "$(awk '{print $14 + $15}' /proc/$pid/stat) $pg"
}
for run in "first import" "again, nothing new"; do
    read -r s0 p0 < <(ticks)
    t0=$(date +%s.%N)
    build/imaxe advisories import "$feed" -o ndjson > "$dir/out.ndjson" 2> "$dir/err.txt" || true
    t1=$(date +%s.%N)
    read -r s1 p1 < <(ticks)
    hz=$(getconf CLK_TCK)
    printf '%s: %.1f s wall, server CPU %.1f s, PostgreSQL CPU %.1f s (backends alive at the end); %s\n' \
        "$run" "$(echo "$t1 - $t0" | bc)" "$(echo "($s1 - $s0) / $hz" | bc -l)" \
        "$(echo "($p1 - $p0) / $hz" | bc -l)" "$(tail -1 "$dir/err.txt")"
    jq -r .outcome "$dir/out.ndjson" | sort | uniq -c | tr '\n' ' '; echo
    cp "$dir/out.ndjson" "/tmp/feed-import-$(echo "$run" | tr -c 'a-z' '-').ndjson"
done
if [ -n "${BENCH_PROFILE:-}" ]; then
    log=$(ls "$dir"/pg/postgres.log "$(readlink -f "$dir/pg")"/postgres.log 2>/dev/null | head -1)
    echo "statements over 100 ms: $(grep -c 'duration:' "$log")"
    grep 'duration:' "$log" | sed 's/.*duration: \([0-9.]*\) ms *\(statement\|execute [^:]*\): */\1 /' |
        awk '{t=$1; $1=""; q=substr($0, 1, 90); n[q]++; s[q]+=t} END {for (q in s) printf "%9.0f ms %4d x %s\n", s[q], n[q], q}' |
        sort -rn | head -12
fi
