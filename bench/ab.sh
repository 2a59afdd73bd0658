#!/usr/bin/env bash
# A short A/B bench of two server builds on one small catalog: the point reads (get, resolve by
# family and by pin, a pin, lineage) or the write (publish through POST /v1/images), each build
# measured in turn, round after round, on the same PostgreSQL, so that a shared machine whose
# speed drifts moves both alike. Prints every run and, per endpoint, B's req/s over A's (the
# median of the rounds), and the CPU a request cost the server and PostgreSQL (only one server
# runs at a time, so PostgreSQL's backends work for it): the figure a busy machine moves least.
# Bounded: with the defaults about 3 minutes for reads, 1.5 for writes.
# Usage: bench/ab.sh reads|writes A_SERVER [B_SERVER (build/imaxe-server)]
# Environment: BENCH_IMAGES (5000), DURATION (seconds a run, 4), ROUNDS (3), CONNS (16 reads,
# 4 writes), AB_ONLY (names of the endpoints to run; all when unset), BENCH_PG_PORT (55453).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: bench/ab.sh reads|writes A_SERVER [B_SERVER]}
srv_a=$(readlink -f "${2:?A_SERVER}")
srv_b=$(readlink -f "${3:-build/imaxe-server}")
secs=${DURATION:-4}
rounds=${ROUNDS:-3}
export BENCH_IMAGES=${BENCH_IMAGES:-5000}
command -v wrk >/dev/null || { echo "install wrk (apt-get install wrk)"; exit 1; }
dir=$(mktemp -d /tmp/imaxe-bench-ab.XXXXXX)
chmod 755 "$dir"
url=$(PG_SHARED_BUFFERS=${PG_SHARED_BUFFERS:-256MB} tools/pg.sh start "$dir/pg" "${BENCH_PG_PORT:-55453}" fast)
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    tools/pg.sh stop "$dir/pg"
    rm -rf "$dir"
}
trap cleanup EXIT

export IMAXE_DATABASE_URL=$url IMAXE_JWT_SECRET=bench-secret-0123456789abcdef0123456789
export IMAXE_ADMIN_EMAIL=bench@imaxe.local IMAXE_ADMIN_PASSWORD=bench-password-1
"$srv_a" migrate >/dev/null 2>&1
"$srv_b" migrate >/dev/null 2>&1
bench/gen_catalog.sh "$url" | grep 'loaded in'
psql "$url" -qc "VACUUM (ANALYZE) images, image_components, image_artifacts, image_gpus, image_tags" \
    -c CHECKPOINT

start_server() { # NAME BINARY -> the port; the pid goes to NAME.pid
    local log=$dir/$1.log
    IMAXE_PORT=0 IMAXE_ACCESS_LOG=0 IMAXE_RATE_LIMIT_PER_MIN=0 "$2" > "$log" 2>&1 &
    echo $! > "$dir/$1.pid"
    for _ in $(seq 100); do grep -q 'listening on' "$log" && break; sleep 0.1; done
    for _ in $(seq 600); do grep -q 'search index loaded' "$log" && break; sleep 0.1; done
    grep -o 'listening on http://[0-9.]*:[0-9]*/' "$log" | sed 's/.*://; s/\/$//'
}
port_a=$(start_server a "$srv_a")
port_b=$(start_server b "$srv_b")
pids="$(cat "$dir/a.pid") $(cat "$dir/b.pid")"
postmaster=$(head -1 "$(readlink -f "$dir/pg")/data/postmaster.pid")
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# one awk over every backend: a fork each would cost more than a run on a loaded machine
pg_ticks() { pgrep -P "$postmaster" | sed 's|.*|/proc/&/stat|' | xargs cat 2>/dev/null | awk '{t += $14 + $15} END {print t + 0}'; }
hz=$(getconf CLK_TCK)
base=http://127.0.0.1:$port_a
IMAXE_TOKEN=$(curl -sf "$base/v1/auth/login" -H 'Content-Type: application/json' \
    -d "{\"email\":\"$IMAXE_ADMIN_EMAIL\",\"password\":\"$IMAXE_ADMIN_PASSWORD\"}" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')
export IMAXE_TOKEN

if [ "$mode" = reads ]; then
    conns=${CONNS:-16}
    awk -v n="$BENCH_IMAGES" 'BEGIN { srand(7); for (i = 0; i < 5000; i++) printf "/v1/images/%d\n", 1 + int(rand() * n) }' > "$dir/get.paths"
    awk '{ sub(/^\/v1\/images\//, ""); printf "/v1/images/%s/lineage\n", $0 }' "$dir/get.paths" > "$dir/lineage.paths"
    resolve='/v1/images/resolve?family=platform-002&region=us-east-1&component=nvidia-driver:~570&component=cuda:12.8.*'
    pin_image=$(curl -sf -H "Authorization: Bearer $IMAXE_TOKEN" "$base$resolve" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["image"]["id"])')
    curl -sf -o /dev/null -H "Authorization: Bearer $IMAXE_TOKEN" -H 'Content-Type: application/json' \
        -d "{\"team\":\"bench-platform\",\"name\":\"prod\",\"image\":$pin_image}" "$base/v1/pins"
    pin_id=$(curl -sf -H "Authorization: Bearer $IMAXE_TOKEN" "$base/v1/pins?team=bench-platform" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["items"][0]["id"])')
    names=(get resolve resolve_pin pin lineage)
    paths=("" "$resolve" "/v1/images/resolve?pin=bench-platform/prod&region=us-east-1" "/v1/pins/$pin_id" "")
    files=("$dir/get.paths" "" "" "" "$dir/lineage.paths")
else
    conns=${CONNS:-4}
    names=(publish)
    paths=(/v1/images)
    files=("")
fi

# run SERVER_PORT I ROUND PID -> "req/s p50 p99 errors srv_us pg_us"
run() {
    local path=${paths[$2]} file=${files[$2]} script=bench/lua/auth.lua
    [ -n "$path" ] || path=$(head -1 "$file")
    if [ "${names[$2]}" = publish ]; then
        script=bench/lua/publish.lua
        export AB_FAMILY=ab-$1-$3 # a new family a run: every run publishes into one as small
    fi
    WRK_PATHS=$file wrk -t2 -c"$conns" -d1s -s "$script" "http://127.0.0.1:$1$path" >/dev/null
    [ "${names[$2]}" = publish ] && export AB_FAMILY=ab-$1-$3-m
    local out s0 g0 s1 g1 reqs
    s0=$(ticks "$4") g0=$(pg_ticks)
    out=$(WRK_PATHS=$file wrk -t2 -c"$conns" -d"${secs}s" --latency -s "$script" "http://127.0.0.1:$1$path")
    s1=$(ticks "$4") g1=$(pg_ticks)
    reqs=$(awk '/requests in/ {print $1}' <<<"$out")
    printf '%s %s %s %s %s %s\n' "$(awk '/Requests\/sec/ {print $2}' <<<"$out")" \
        "$(awk '$1=="50%" {print $2}' <<<"$out")" "$(awk '$1=="99%" {print $2}' <<<"$out")" \
        "$(grep -o 'Non-2xx or 3xx responses: [0-9]*' <<<"$out" | awk '{print $NF}' | grep . || echo 0)" \
        "$(awk -v a="$s0" -v b="$s1" -v n="$reqs" -v hz="$hz" 'BEGIN { if (n > 0) printf "%.1f", (b - a) * 1e6 / hz / n }')" \
        "$(awk -v a="$g0" -v b="$g1" -v n="$reqs" -v hz="$hz" 'BEGIN { if (n > 0) printf "%.1f", (b - a) * 1e6 / hz / n }')"
}

echo "A: $srv_a"
echo "B: $srv_b"
printf '%s: %s images, %s connections, %ss a run, %s rounds (A then B, then B then A, ...)\n' \
    "$mode" "$BENCH_IMAGES" "$conns" "$secs" "$rounds"
median() { sort -n "$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
printf '%-12s %5s %4s | %9s %9s %9s %6s | %7s %7s\n' endpoint round srv "req/s" p50 p99 non2xx srv_us pg_us
for i in "${!names[@]}"; do
    # AB_ONLY="get resolve_pin": only these endpoints
    [ -z "${AB_ONLY:-}" ] || [[ " $AB_ONLY " == *" ${names[$i]} "* ]] || continue
    : > "$dir/ratios"
    : > "$dir/cpu_ratios"
    for r in $(seq "$rounds"); do
        # The order alternates, so neither build always runs second on a warmer cache.
        if [ $((r % 2)) = 1 ]; then order="a b"; else order="b a"; fi
        declare -A rps=() cpu=()
        for s in $order; do
            port=$port_a; [ "$s" = b ] && port=$port_b
            read -r q p50 p99 errs su pu <<<"$(run "$port" "$i" "$r" "$(cat "$dir/$s.pid")")"
            rps[$s]=$q
            cpu[$s]=$(awk -v a="$su" -v b="$pu" 'BEGIN { print a + b }')
            printf '%-12s %5s %4s | %9s %9s %9s %6s | %7s %7s\n' "${names[$i]}" "$r" "$s" "$q" "$p50" \
                "$p99" "$errs" "$su" "$pu"
        done
        awk -v a="${rps[a]}" -v b="${rps[b]}" 'BEGIN { if (a > 0) printf "%.3f\n", b / a }' >> "$dir/ratios"
        awk -v a="${cpu[a]}" -v b="${cpu[b]}" 'BEGIN { if (a > 0) printf "%.3f\n", b / a }' >> "$dir/cpu_ratios"
    done
    printf '%-12s B/A req/s: %s(median %s); B/A CPU a request (server + PostgreSQL): %s(median %s)\n' \
        "${names[$i]}" "$(tr '\n' ' ' < "$dir/ratios")" "$(median "$dir/ratios")" \
        "$(tr '\n' ' ' < "$dir/cpu_ratios")" "$(median "$dir/cpu_ratios")"
done
