#!/usr/bin/env bash
# The feed import with pins (bench/RESULTS.md, "Feed import with 1,000 pins"): what a bulletin's
# publish pays for the stored pin documents (imx_pin_docs_refresh_families), old code against new
# on the same data, alternating. Set up once: a private PostgreSQL, BENCH_IMAGES (10000) images of
# the bench catalog plus the demo, BENCH_PINS (1000) pins in 5 teams (every fourth try with a
# constraint, skipped where the image does not meet it; made through the API, so each has its
# stored document) and a webhook a team;
# kept as template A. Template B is A plus the whole feed but NVIDIA-5755 (the 2026 driver
# bulletin, reaching every image). Then BENCH_ROUNDS (3) rounds, each running for every MIGDIR in
# turn (a migrations directory: this checkout's, or another's for the "before"):
#   feed:  a fresh copy of A, migrated with MIGDIR, `imaxe advisories import FEED` (bounded by
#          BENCH_TIMEOUT, 110 s);
#   5755:  a fresh copy of B, migrated with MIGDIR, the one POST /v1/advisories of 5755.
# Wall time and the cluster's CPU (every PostgreSQL process, counted by a cpuacct cgroup, which
# the machine's load does not inflate the way it does wall time); the load average beside each.
#   bench/feed_import_pins.sh FEED MIGDIR [MIGDIR...]
set -euo pipefail
feed=$(realpath "${1:?usage: feed_import_pins.sh FEED MIGDIR [MIGDIR...]}")
shift
migdirs=()
for m in "${@:?at least one migrations directory}"; do migdirs+=("$(realpath "$m")"); done
cd "$(dirname "$0")/.."
[ -x build/imaxe-server ] && [ -x build/imaxe ] || { echo "build first (cmake --build build)" >&2; exit 1; }
cg=/sys/fs/cgroup/cpuacct/imx_bench_pins_$$
mkdir -p "$cg"
dir=$(mktemp -d /tmp/imaxe-bench-pins.XXXXXX)
chmod 755 "$dir"
# The cluster starts inside the cgroup: every process it forks is counted there.
url=$(bash -c 'echo $$ > "$1/tasks"; exec tools/pg.sh start "$2" "$3" fast' _ "$cg" "$dir/pg" \
    "${BENCH_PG_PORT:-55474}")
pid=""
stop_server() { [ -n "$pid" ] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }; pid=""; }
cleanup() {
    stop_server
    tools/pg.sh stop "$dir/pg"
    rm -rf "$dir"
    rmdir "$cg" 2>/dev/null || true
}
trap cleanup EXIT
export IMAXE_JWT_SECRET=bench-secret-0123456789abcdef0123456789
export IMAXE_ADMIN_EMAIL=bench@imaxe.local IMAXE_ADMIN_PASSWORD=bench-password-1
export IMAXE_RATE_LIMIT_PER_MIN=0 IMAXE_WEBHOOK_WORKERS=0 IMAXE_ACCESS_LOG=0 IMAXE_WEBHOOK_ALLOW_HOSTS=127.0.0.1:9
db_url() { echo "$url" | sed "s|/imaxe?|/$1?|"; }
admin=$(db_url postgres)
start_server() {
    rm -f "$dir/server.log"
    IMAXE_DATABASE_URL=$(db_url "$1") IMAXE_MIGRATIONS_DIR=$mig IMAXE_PORT=0 \
        build/imaxe-server > "$dir/server.log" 2>&1 &
    pid=$!
    for _ in $(seq 300); do grep -qs "listening on" "$dir/server.log" && break; sleep 0.1; done
    port=$(grep -o 'listening on http://[0-9.]*:[0-9]*/' "$dir/server.log" | sed 's/.*://; s/\/$//')
    export IMAXE_URL=http://127.0.0.1:$port
    IMAXE_TOKEN=$(curl -sf "$IMAXE_URL/v1/auth/login" -H 'Content-Type: application/json' \
        -d "{\"email\":\"$IMAXE_ADMIN_EMAIL\",\"password\":\"$IMAXE_ADMIN_PASSWORD\"}" | jq -r .access_token)
    export IMAXE_TOKEN
}
api() { # PATH [CURL_ARGS...]: the answer's body; a 4xx or 5xx is printed and fails
    local out code
    out=$(curl -s -w '\n%{http_code}' "$IMAXE_URL$1" -H "Authorization: Bearer $IMAXE_TOKEN" \
        -H 'Content-Type: application/json' "${@:2}")
    code=${out##*$'\n'}
    out=${out%$'\n'*}
    [ "$code" -lt 400 ] || { echo "$1: $code $out" >&2; return 1; }
    printf '%s\n' "$out"
}
copy_db() {
    psql "$admin" -XAqc "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1 TEMPLATE $2"
}

# The server migrates on start too: every start names the migrations (the set-up: the first's).
mig=${migdirs[0]}
t0=$(date +%s)
IMAXE_DATABASE_URL=$url IMAXE_MIGRATIONS_DIR=$mig build/imaxe-server migrate >/dev/null 2>&1
BENCH_IMAGES=${BENCH_IMAGES:-10000} bench/gen_catalog.sh "$url"
IMAXE_DATABASE_URL=$url tools/demo.sh >/dev/null 2>&1
start_server imaxe
npins=${BENCH_PINS:-1000}
for t in 0 1 2 3 4; do
    api /v1/teams -d "{\"slug\":\"pins$t\",\"name\":\"pins $t\"}" >/dev/null
    api /v1/teams/pins$t/members/bench@imaxe.local -X PUT -d '{"role":"admin"}' >/dev/null
    api /v1/webhooks -d "{\"team\":\"pins$t\",\"url\":\"http://127.0.0.1:9/hook$t\",
      \"events\":[\"patch.available\",\"advisory.published\"]}" >/dev/null
done
# Pins on bench images (not revoked) that have a newer version (a candidate), spread over the families
# in a fixed order; every fourth asks for a toolkit >= 1.16 (an image that has not is skipped).
made=0
k=0
: > "$dir/pins.err"
for img in $(psql "$url" -XAtc "SELECT i.id FROM images i WHERE i.status <> 'revoked'
               AND i.family ~ '^(platform|model)-[0-9]{3}$' AND EXISTS (SELECT 1 FROM images n WHERE n.family = i.family
                            AND n.published_at > i.published_at)
             ORDER BY (i.id * 7919) % 10007, i.id"); do
    [ "$made" -ge "$npins" ] && break
    c=""
    [ $((k % 4)) = 0 ] && c=',"constraints":[{"component":"nvidia-container-toolkit","range":">=1.16"}]'
    k=$((k + 1))
    api /v1/pins -d "{\"team\":\"pins$((made % 5))\",\"name\":\"p$made\",\"image\":$img$c}" \
        >/dev/null 2>>"$dir/pins.err" && made=$((made + 1))
done
psql "$url" -XAtc "SELECT format('catalog: %s images, %s advisories, %s pins (%s stored documents)',
  (SELECT count(*) FROM images), (SELECT count(*) FROM advisories), (SELECT count(*) FROM pins),
  (SELECT count(*) FROM pin_docs))"
sort "$dir/pins.err" 2>/dev/null | cut -c1-160 | uniq -c | sort -rn | head -3
stop_server
copy_db tpl_a imaxe
rest=$dir/feed-but-5755
mkdir -p "$rest" "$dir/only-5755"
cp -r "$feed"/. "$rest/"
rm -rf "$rest"/*/5755
start_server imaxe
build/imaxe advisories import "$rest" -o ndjson >/dev/null 2>&1 || true
stop_server
copy_db tpl_b imaxe
printf 'set up in %s s\n' "$(($(date +%s) - t0))"

cpu() { cat "$cg/cpuacct.usage"; }
measure() { # LABEL CMD...: one line: wall, cluster CPU, load average, and CMD's last line
    local c0 c1 s e rc=0 out
    c0=$(cpu); s=$(date +%s.%N)
    out=$("${@:2}" 2>&1 | tail -1) || rc=$?
    e=$(date +%s.%N); c1=$(cpu)
    printf '%-40s wall %6.1f s  PostgreSQL CPU %6.2f s  load %s  rc %s  %s\n' "$1" \
        "$(echo "$e - $s" | bc)" "$(echo "($c1 - $c0) / 1000000000" | bc -l)" \
        "$(cut -d' ' -f1 /proc/loadavg)" "$rc" "$out"
}
import_feed() { build/imaxe advisories import "$feed" -o ndjson >/dev/null; } # its summary: stderr
post_5755() { api /v1/advisories --data-binary @"$feed/2026/5755/5755.json" | jq -c '{id, affected: .affected_images}'; }
for round in $(seq "${BENCH_ROUNDS:-3}"); do
    for m in "${migdirs[@]}"; do
        name=$(basename "$(dirname "$m")")/$(basename "$m")
        mig=$m
        copy_db imaxe tpl_a
        IMAXE_DATABASE_URL=$url IMAXE_MIGRATIONS_DIR=$m build/imaxe-server migrate >/dev/null
        start_server imaxe
        measure "round $round feed  $name" timeout "${BENCH_TIMEOUT:-110}" bash -c \
            "$(declare -f import_feed); feed=$feed; import_feed"
        stop_server
        copy_db imaxe tpl_b
        IMAXE_DATABASE_URL=$url IMAXE_MIGRATIONS_DIR=$m build/imaxe-server migrate >/dev/null
        start_server imaxe
        measure "round $round 5755  $name" post_5755
        stop_server
    done
done
