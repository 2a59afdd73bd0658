# Sourced by bench/fleet.sh and bench/nodes.sh (from the repository root, under set -euo pipefail):
# the set-up both measure on. bench_fleet_start NAME PORT starts a private PostgreSQL on
# BENCH_PG_PORT (default PORT) in a temporary directory ($dir, its URL $url), migrates it and
# starts the server on a free port ($port, $pid), all stopped and removed on exit; signs in the
# admin ($token, and api PATH [CURL_ARGS...] calls the API as it). bench_fleet_images COMPONENTS
# makes team "fleet" (the admin its admin) with images gpu-node 1, 2 and 3 carrying COMPONENTS (a
# JSON array): their ids in the array ids.

bench_fleet_start() {
    [ -x build/imaxe-server ] || { echo "build first (cmake --build build)" >&2; exit 1; }
    dir=$(mktemp -d "/tmp/imaxe-bench-$1.XXXXXX")
    chmod 755 "$dir"
    url=$(tools/pg.sh start "$dir/pg" "${BENCH_PG_PORT:-$2}" fast)
    pid=""
    trap bench_fleet_cleanup EXIT
    export IMAXE_DATABASE_URL=$url IMAXE_JWT_SECRET=bench-secret-0123456789abcdef0123456789
    export IMAXE_ADMIN_EMAIL=bench@imaxe.local IMAXE_ADMIN_PASSWORD=bench-password-1
    export IMAXE_RATE_LIMIT_PER_MIN=0 IMAXE_WEBHOOK_WORKERS=0
    build/imaxe-server migrate >/dev/null 2>&1
    IMAXE_PORT=0 IMAXE_ACCESS_LOG=0 build/imaxe-server > "$dir/server.log" 2>&1 & pid=$!
    for _ in $(seq 100); do grep -q 'listening on' "$dir/server.log" && break; sleep 0.1; done
    port=$(grep -o 'listening on http://[0-9.]*:[0-9]*/' "$dir/server.log" | sed 's/.*://; s/\/$//')
    token=$(curl -sf "http://127.0.0.1:$port/v1/auth/login" -H 'Content-Type: application/json' \
        -d "{\"email\":\"$IMAXE_ADMIN_EMAIL\",\"password\":\"$IMAXE_ADMIN_PASSWORD\"}" | jq -r .access_token)
}

bench_fleet_cleanup() {
    [ -n "$pid" ] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
    tools/pg.sh stop "$dir/pg"
    rm -rf "$dir"
}

api() { curl -sf "http://127.0.0.1:$port$1" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' "${@:2}"; }

bench_fleet_images() {
    api /v1/teams -d '{"slug":"fleet","name":"fleet"}' >/dev/null
    api /v1/teams/fleet/members/bench@imaxe.local -X PUT -d '{"role":"admin"}' >/dev/null
    ids=()
    for v in 1 2 3; do
        ids+=("$(api /v1/images -d "{\"team\":\"fleet\",\"family\":\"gpu-node\",\"version\":\"$v\",
          \"provider\":\"aws\",\"architecture\":\"x86_64\",\"os\":{\"name\":\"ubuntu\",\"version\":\"24.04\"},
          \"kernel\":\"6.8.0-1015-aws\",\"layer\":\"platform\",\"gpus\":[\"H100\"],
          \"artifacts\":[{\"region\":\"us-east-1\",\"id\":\"ami-$v\"}],
          \"components\":$1}" | jq -r .id)")
    done
}
