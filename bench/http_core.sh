#!/usr/bin/env bash
# Throughput of the HTTP core on this machine: /livez (no database) and /readyz (one prepared
# query on a pooled connection), keep-alive, at several connection counts. Prints req/s and
# latency percentiles from wrk and the server's peak RSS. Bounded: each run lasts DURATION.
# Then the isolation check: /livez under load while 32 /readyz requests sit blocked in
# PostgreSQL (a lock held for the whole run) -- they hold handler workers, not the event threads
# that answer /livez, unlike libmicrohttpd's pool mode with handlers run on its own threads
# (../shared/notes/performance.md).
# Usage: bench/http_core.sh [DURATION (default 10s)]
set -euo pipefail
cd "$(dirname "$0")/.."
dur=${1:-10s}
command -v wrk >/dev/null || { echo "install wrk (apt-get install wrk)"; exit 1; }
make -s build >/dev/null
dir=$(mktemp -d /tmp/imaxe-bench.XXXXXX)
url=$(tools/pg.sh start "$dir/pg" 55450 fast)
IMAXE_DATABASE_URL=$url IMAXE_PORT=0 IMAXE_ACCESS_LOG=0 IMAXE_DB_POOL_SIZE=16 \
    IMAXE_JWT_SECRET=bench-secret-0123456789abcdef0123456789 \
    build/imaxe-server > "$dir/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; tools/pg.sh stop "$dir/pg"; rm -rf "$dir"' EXIT
for _ in $(seq 100); do grep -q 'listening on' "$dir/server.log" && break; sleep 0.1; done
port=$(grep -o 'listening on http://[0-9.]*:[0-9]*/' "$dir/server.log" | sed 's/.*://; s/\/$//')
printf '%-10s %5s %10s %9s %9s %9s\n' endpoint conns req/s p50 p99 rss_mb
for path in /livez /readyz; do
    for c in 16 64 256; do
        out=$(wrk -t2 -c$c -d"$dur" --latency "http://127.0.0.1:$port$path")
        rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
        p50=$(awk '$1=="50%" {print $2}' <<<"$out")
        p99=$(awk '$1=="99%" {print $2}' <<<"$out")
        rss=$(awk '/VmHWM/ {printf "%.1f", $2/1024}' /proc/$pid/status)
        errs=$(grep -o 'Non-2xx or 3xx responses: [0-9]*' <<<"$out" || true)
        printf '%-10s %5s %10s %9s %9s %9s %s\n' "$path" "$c" "$rps" "$p50" "$p99" "$rss" "$errs"
    done
done

echo
echo "isolation: /livez at 32 connections while 32 /readyz requests wait on a lock in PostgreSQL"
base=$(wrk -t2 -c32 -d"$dur" --latency "http://127.0.0.1:$port/livez")
secs=${dur%s}
psql "$url" -qo /dev/null -c "BEGIN; LOCK TABLE schema_migrations IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep($secs + 3); COMMIT;" &
lock=$!
sleep 0.5
waiters=()
for _ in $(seq 32); do
    curl -s -o /dev/null --max-time $((secs + 10)) "http://127.0.0.1:$port/readyz" &
    waiters+=($!)
done
sleep 0.5
blocked=$(wrk -t2 -c32 -d"$dur" --latency "http://127.0.0.1:$port/livez")
wait "$lock" "${waiters[@]}"
for name in base blocked; do
    out=${!name}
    printf '%-8s req/s %10s  p50 %9s  p99 %9s\n' "$name" "$(awk '/Requests\/sec/ {print $2}' <<<"$out")" \
        "$(awk '$1=="50%" {print $2}' <<<"$out")" "$(awk '$1=="99%" {print $2}' <<<"$out")"
done
