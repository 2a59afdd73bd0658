#!/usr/bin/env bash
# `make bench`: the catalog endpoints on the 100,000-image bench catalog. Loads it
# (bench/gen_catalog.sh, timed), starts the server, then for each endpoint runs wrk (Lua scripts
# add the bearer token and rotate ids) and, beside it, pgbench with the endpoint's own SQL (taken
# from the PostgreSQL log of one request, parameters as literals) at the same concurrency.
# Prints req/s, p50/p99, the server's peak RSS and the CPU each request cost the server and
# PostgreSQL (the figure least moved by a busy machine). Beside every endpoint, the ceilings of issue 13:
# pgbench of a bare primary-key read of the stored document (SELECT head || tail, etag FROM
# image_docs WHERE image_id = $1, prepared, same concurrency), and /livez on the same server,
# both measured again right before each endpoint (half its duration each), so that the ratios
# compare runs seconds apart, not minutes on a shared machine whose speed drifts. Every endpoint
# is warmed for 2 s before it is measured. Bounded: DURATION per run (default 10s).
# Usage: bench/catalog.sh [DURATION]   (CONNS=32 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
dur=${1:-10s}
secs=${dur%s}
conns=${CONNS:-32}
command -v wrk >/dev/null || { echo "install wrk (apt-get install wrk)"; exit 1; }
command -v pgbench >/dev/null || { echo "install pgbench (postgresql-contrib)"; exit 1; }
make -s build >/dev/null
dir=$(mktemp -d /tmp/imaxe-bench-catalog.XXXXXX)
chmod 755 "$dir"
# A buffer cache that holds the catalog (images 450 MB, stored documents 170 MB), as a production
# PostgreSQL for a catalog this size would have; the default 128 MB made every read a copy from
# the kernel's page cache.
url=$(PG_SHARED_BUFFERS=${PG_SHARED_BUFFERS:-1GB} tools/pg.sh start "$dir/pg" "${BENCH_PG_PORT:-55451}" fast)
pglog=$(readlink -f "$dir/pg")/postgres.log
postmaster=$(head -1 "$(readlink -f "$dir/pg")/data/postmaster.pid")
# CPU ticks of a process, and of PostgreSQL's backends (the servers' pooled connections).
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
pg_ticks() { local t=0 p; for p in $(pgrep -P "$postmaster"); do t=$((t + $(ticks "$p" 2>/dev/null || echo 0))); done; echo "$t"; }
hz=$(getconf CLK_TCK)
pid=""
sql_pid=""
cleanup() {
    for p in $pid ${sql_pid:-}; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    tools/pg.sh stop "$dir/pg"
    rm -rf "$dir"
}
trap cleanup EXIT

export IMAXE_DATABASE_URL=$url IMAXE_JWT_SECRET=bench-secret-0123456789abcdef0123456789
export IMAXE_ADMIN_EMAIL=bench@imaxe.local IMAXE_ADMIN_PASSWORD=bench-password-1
build/imaxe-server migrate >/dev/null 2>&1
bench/gen_catalog.sh "$url" | grep 'loaded in'
# A checkpoint too: otherwise the load's dirty buffers (about 1 GB) are written out during the
# first endpoints' runs, which then measure a busier machine than the later ones.
psql "$url" -qc "VACUUM (ANALYZE) images, image_components, image_artifacts, image_gpus, image_tags" \
    -c CHECKPOINT

# Two servers on the catalog: the default one answers searches from its in-memory index
# (server/db/image_index.c); the second, with IMAXE_SEARCH_INDEX=0, runs every search in SQL
# (rows marked "(sql)"), so one run shows both. Both keep the defaults of the pool and the workers
# (16 each): until session 13 the pool was as large as the connections (32), from the days of a
# thread per connection.
start_server() { # LOG [ENV...] -> prints the port; the pid goes to the file LOG.pid
    local log=$1; shift
    env "$@" IMAXE_PORT=0 IMAXE_ACCESS_LOG=0 IMAXE_RATE_LIMIT_PER_MIN=0 \
        build/imaxe-server > "$log" 2>&1 &
    echo $! > "$log.pid"
    for _ in $(seq 100); do grep -q 'listening on' "$log" && break; sleep 0.1; done
    grep -o 'listening on http://[0-9.]*:[0-9]*/' "$log" | sed 's/.*://; s/\/$//'
}
port=$(start_server "$dir/server.log")
pid=$(cat "$dir/server.log.pid")
sql_port=$(start_server "$dir/server-sql.log" IMAXE_SEARCH_INDEX=0)
sql_pid=$(cat "$dir/server-sql.log.pid")
base=http://127.0.0.1:$port
sql_base=http://127.0.0.1:$sql_port
for _ in $(seq 600); do grep -q 'search index loaded' "$dir/server.log" && break; sleep 0.1; done
grep -o 'search index loaded[^"]*' "$dir/server.log" || echo "the search index did not load"
IMAXE_TOKEN=$(curl -sf "$base/v1/auth/login" -H 'Content-Type: application/json' \
    -d "{\"email\":\"$IMAXE_ADMIN_EMAIL\",\"password\":\"$IMAXE_ADMIN_PASSWORD\"}" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')
export IMAXE_TOKEN

# The endpoints: name, path (rotating paths in a file for get and compare).
awk 'BEGIN { srand(7); for (i = 0; i < 5000; i++) printf "/v1/images/%d\n", 1 + int(rand() * 100000) }' > "$dir/get.paths"
awk 'BEGIN { srand(11); for (i = 0; i < 2000; i++) { a = 1 + int(rand() * 98990); printf "/v1/compare?ids=%d,%d,%d,%d\n", a, a + 3, a + 500, a + 1000 } }' > "$dir/compare.paths"
# 3,000 different searches (GPU model or architecture, region, CUDA and driver constraints, OS,
# sort, limit): most pages are not in the server's summary cache, unlike the one repeated search.
awk 'BEGIN { srand(13)
  split("H100 A100 B200 L4 T4 H200 L40S hopper ampere blackwell ada", g, " ")
  split("us-east-1 us-west-2 eu-west-1", r, " ")
  split("cuda:%3E%3D12.4 cuda:12.8.* cuda:%3C13 cuda:11.8", c, " ")
  split("nvidia-driver:~580 nvidia-driver:~570 nvidia-driver:%3E%3D550 nvidia-driver:%3C535", d, " ")
  split("-published_at family boot_seconds size_gb", o, " ")
  for (i = 0; i < 3000; i++) {
    p = "/v1/images?gpu=" g[1 + int(rand() * 11)]
    if (rand() < 0.7) p = p "&region=" r[1 + int(rand() * 3)]
    if (rand() < 0.6) p = p "&component=" c[1 + int(rand() * 4)]
    if (rand() < 0.6) p = p "&component=" d[1 + int(rand() * 4)]
    if (rand() < 0.3) p = p "&os=ubuntu:24.04"
    printf "%s&sort=%s&limit=%d\n", p, o[1 + int(rand() * 4)], rand() < 0.5 ? 20 : 50
  } }' > "$dir/searches.paths"
search='/v1/images?gpu=H100&component=cuda:%3E%3D12.4&component=nvidia-driver:~580&region=us-west-2&arch=x86_64&limit=50'
facets='/v1/images?gpu=B200&os=ubuntu:24.04&limit=20&facets=true'
resolve='/v1/images/resolve?family=platform-002&region=us-east-1&component=nvidia-driver:~570&component=cuda:12.8.*'
# Pins of the bench team (through the API), for the pin reads.
pin_image=$(curl -sf -H "Authorization: Bearer $IMAXE_TOKEN" "$base$resolve" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["image"]["id"])')
for name in prod stage dev; do
    curl -sf -o /dev/null -H "Authorization: Bearer $IMAXE_TOKEN" -H 'Content-Type: application/json' \
        -d "{\"team\":\"bench-platform\",\"name\":\"$name\",\"image\":$pin_image}" "$base/v1/pins"
done
pin_id=$(curl -sf -H "Authorization: Bearer $IMAXE_TOKEN" "$base/v1/pins?team=bench-platform" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["items"][0]["id"])')
# get with If-None-Match: the current ETags of the rotating ids (bench/lua/auth.lua sends them)
while read -r p; do
    e=$(curl -sf -o /dev/null -D - -H "Authorization: Bearer $IMAXE_TOKEN" "$base$p" | tr -d '\r' |
        awk 'tolower($1) == "etag:" {print $2}')
    printf '%s %s\n' "$p" "$e"
done < <(head -500 "$dir/get.paths") > "$dir/get304.paths"
awk '{ sub(/^\/v1\/images\//, ""); printf "/v1/images/%s/lineage\n", $0 }' "$dir/get.paths" > "$dir/lineage.paths"
awk '{ sub(/^\/v1\/images\//, ""); printf "/v1/images/%s/patch\n", $0 }' "$dir/get.paths" > "$dir/patch.paths"
names=(livez get get304 search facets search_sql facets_sql searches searches_sql compare resolve
       resolve_pin lineage patch pins pin)
paths=(/livez "" "" "$search" "$facets" "$search" "$facets" "" "" "" "$resolve"
       "/v1/images/resolve?pin=bench-platform/prod&region=us-east-1" "" "" "/v1/pins?team=bench-platform"
       "/v1/pins/$pin_id")
files=("" "$dir/get.paths" "$dir/get304.paths" "" "" "" "" "$dir/searches.paths" "$dir/searches.paths"
       "$dir/compare.paths" "" "" "$dir/lineage.paths" "$dir/patch.paths" "" "")
servers=("$base" "$base" "$base" "$base" "$base" "$sql_base" "$sql_base" "$base" "$sql_base" "$base"
         "$base" "$base" "$base" "$base" "$base" "$base")
pids=("$pid" "$pid" "$pid" "$pid" "$pid" "$sql_pid" "$sql_pid" "$pid" "$sql_pid" "$pid" "$pid" "$pid"
      "$pid" "$pid" "$pid" "$pid")
# The statement each endpoint's pgbench runs: the one that request executed (for search and
# facets, and for lineage, the index's summaries statement on a cold summary cache; for "(sql)",
# the SQL search's page and facet statements; for the rotating searches, the first of them; for
# the coalesced reads, their statement with that one request's arrays); "" for none.
markers=("" "" "" "UNION ALL SELECT NULL" "UNION ALL SELECT NULL" "page AS (SELECT i.id"
         "m AS MATERIALIZED (SELECT i.os_name" "UNION ALL SELECT NULL" "page AS (SELECT i.id"
         "imx_compare_batch(" "image_index_state s CROSS JOIN unnest" "imx_pin_resolution(t.id"
         "UNION ALL SELECT NULL" "imx_image_patch_doc(q.id)" "LIMIT q.lim + 1"
         "q(pin_id, user_id, k)")

# One request per endpoint with every statement logged, for pgbench's scripts.
psql "$url" -qc "ALTER SYSTEM SET log_min_duration_statement = 0" -c "SELECT pg_reload_conf()" >/dev/null
sleep 0.5
for i in "${!names[@]}"; do
    [ -n "${markers[$i]}" ] || continue
    p=${paths[$i]}
    [ -n "$p" ] || p=$(head -1 "${files[$i]}" | cut -d' ' -f1)
    curl -sf -o /dev/null -H "Authorization: Bearer $IMAXE_TOKEN" "${servers[$i]}$p"
    sleep 0.3
    bench/extract_sql.py "$pglog" "${markers[$i]}" "$dir/${names[$i]}.sql" ||
        echo "no statement found for ${names[$i]}"
done
psql "$url" -qc "ALTER SYSTEM RESET log_min_duration_statement" -c "SELECT pg_reload_conf()" >/dev/null
# get's statement reads the documents of every request waiting at that moment (server/db/
# image_docs.c); pgbench reads one a statement, as the server does when requests come singly.
cat > "$dir/get.sql" <<'SQL'
\set id random(1, 100000)
SELECT * FROM imx_image_docs_read(ARRAY[:id]::bigint[], '{NULL}'::text[]);
SQL
# The ceiling of issue 13: a bare primary-key read of the stored document.
cat > "$dir/ceiling.sql" <<'SQL'
\set id random(1, 100000)
SELECT head || tail, etag FROM image_docs WHERE image_id = :id;
SQL
# ceiling SECONDS: the bare read's pgbench rate
ceiling() {
    pgbench -n -f "$dir/ceiling.sql" -M prepared -c "$conns" -j 2 -T "$1" "$url" 2>&1 |
        awk '/^tps/ {printf "%.0f", $3}'
}
# wrk_run SECONDS URL [PATHS]: wrk's report
wrk_run() {
    WRK_PATHS=${3:-} wrk -t2 -c"$conns" -d"$1s" --latency -s bench/lua/auth.lua "$2"
}
half=$(( secs > 3 ? secs / 2 : 2 ))
echo "ceiling: pgbench of the stored document's primary-key read, $conns connections: $(ceiling "$secs")/s"
echo "(/ceil and /livez below divide by the ceiling and /livez measured just before that endpoint, ${half}s each)"

printf '\n%-12s %5s | %9s %9s %9s %8s | %6s %6s | %9s %9s | %8s %6s %6s | %7s %7s\n' endpoint conns \
    "req/s" p50 p99 rss_mb srv_us pg_us "pgbench/s" "pg_lat" "/own_sql" "/ceil" "/livez" ceil/s livez/s
for i in "${!names[@]}"; do
    name=${names[$i]}
    path=${paths[$i]}
    [ -n "$path" ] || path=$(head -1 "${files[$i]}" | cut -d' ' -f1)
    ceiling=$(ceiling "$half")
    livez_rps=$(wrk_run "$half" "${servers[$i]}/livez" | awk '/Requests\/sec/ {printf "%.0f", $2}')
    wrk_run 2 "${servers[$i]}$path" "${files[$i]}" >/dev/null
    s0=$(ticks "${pids[$i]}") g0=$(pg_ticks)
    out=$(wrk_run "$secs" "${servers[$i]}$path" "${files[$i]}")
    s1=$(ticks "${pids[$i]}") g1=$(pg_ticks)
    reqs=$(awk '/requests in/ {print $1}' <<<"$out")
    srv_us=$(awk -v a="$s0" -v b="$s1" -v n="$reqs" -v hz="$hz" 'BEGIN { if (n > 0) printf "%.1f", (b - a) * 1e6 / hz / n }')
    pg_us=$(awk -v a="$g0" -v b="$g1" -v n="$reqs" -v hz="$hz" 'BEGIN { if (n > 0) printf "%.1f", (b - a) * 1e6 / hz / n }')
    rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
    p50=$(awk '$1=="50%" {print $2}' <<<"$out")
    p99=$(awk '$1=="99%" {print $2}' <<<"$out")
    rss=$(awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/${pids[$i]}/status")
    errs=$(grep -o 'Non-2xx or 3xx responses: [0-9]*' <<<"$out" || true)
    pg_tps="-" pg_lat="-" ratio="-"
    if [ -f "$dir/$name.sql" ]; then
        pgout=$(pgbench -n -f "$dir/$name.sql" -M prepared -c "$conns" -j 2 -T "$secs" "$url" 2>&1)
        pg_tps=$(awk '/^tps/ {printf "%.0f", $3}' <<<"$pgout")
        pg_lat=$(awk '/latency average/ {print $4 $5}' <<<"$pgout")
        ratio=$(awk -v a="$rps" -v b="$pg_tps" 'BEGIN { if (b > 0) printf "%.2f", a / b }')
    fi
    rceil=$(awk -v a="$rps" -v b="$ceiling" 'BEGIN { if (b > 0) printf "%.2f", a / b }')
    rlivez=$(awk -v a="$rps" -v b="$livez_rps" 'BEGIN { if (b > 0) printf "%.2f", a / b }')
    printf '%-12s %5s | %9s %9s %9s %8s | %6s %6s | %9s %9s | %8s %6s %6s | %7s %7s %s\n' "$name" \
        "$conns" "$rps" "$p50" "$p99" "$rss" "$srv_us" "$pg_us" "$pg_tps" "$pg_lat" "$ratio" \
        "$rceil" "$rlivez" "$ceiling" "$livez_rps" "$errs"
done
printf '\nimage_docs: %s for %s images\n' \
    "$(psql "$url" -XAtc "SELECT pg_size_pretty(pg_total_relation_size('image_docs'))")" \
    "$(psql "$url" -XAtc "SELECT count(*) FROM image_docs")"
