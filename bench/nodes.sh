#!/usr/bin/env bash
# Node reports at scale on loopback (bench/nodes.py says what it measures; bench/RESULTS.md has
# the figures): a private PostgreSQL and the server; BENCH_NODES nodes (20000) report over
# BENCH_CLIENTS (8) connections with a node-report token. About 2 minutes on 2 busy cores.
# At 100,000: BENCH_NODES=100000 BENCH_NDJSON=1 BENCH_DEADLINE_S=300 BENCH_READS=80 (bounded).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/imaxe-server ] || { echo "build first (cmake --build build)" >&2; exit 1; }
dir=$(mktemp -d /tmp/imaxe-bench-nodes.XXXXXX)
chmod 755 "$dir"
url=$(tools/pg.sh start "$dir/pg" "${BENCH_PG_PORT:-55462}" fast)
pid=""
cleanup() {
    [ -n "$pid" ] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
    tools/pg.sh stop "$dir/pg"
    rm -rf "$dir"
}
trap cleanup EXIT
export IMAXE_DATABASE_URL=$url IMAXE_JWT_SECRET=bench-secret-0123456789abcdef0123456789
export IMAXE_ADMIN_EMAIL=bench@imaxe.local IMAXE_ADMIN_PASSWORD=bench-password-1
export IMAXE_RATE_LIMIT_PER_MIN=0 IMAXE_WEBHOOK_WORKERS=0
build/imaxe-server migrate >/dev/null 2>&1
IMAXE_PORT=0 IMAXE_ACCESS_LOG=0 build/imaxe-server > "$dir/server.log" 2>&1 & pid=$!
for _ in $(seq 100); do grep -q 'listening on' "$dir/server.log" && break; sleep 0.1; done
port=$(grep -o 'listening on http://[0-9.]*:[0-9]*/' "$dir/server.log" | sed 's/.*://; s/\/$//')
api() { curl -sf "http://127.0.0.1:$port$1" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' "${@:2}"; }
token=$(curl -sf "http://127.0.0.1:$port/v1/auth/login" -H 'Content-Type: application/json' \
    -d "{\"email\":\"$IMAXE_ADMIN_EMAIL\",\"password\":\"$IMAXE_ADMIN_PASSWORD\"}" | jq -r .access_token)
api /v1/teams -d '{"slug":"fleet","name":"fleet"}' >/dev/null
api /v1/teams/fleet/members/bench@imaxe.local -X PUT -d '{"role":"admin"}' >/dev/null
ids=""
for v in 1 2 3; do
    id=$(api /v1/images -d "{\"team\":\"fleet\",\"family\":\"gpu-node\",\"version\":\"$v\",
      \"provider\":\"aws\",\"architecture\":\"x86_64\",\"os\":{\"name\":\"ubuntu\",\"version\":\"24.04\"},
      \"kernel\":\"6.8.0-1015-aws\",\"layer\":\"platform\",\"gpus\":[\"H100\"],
      \"artifacts\":[{\"region\":\"us-east-1\",\"id\":\"ami-$v\"}],
      \"components\":[{\"name\":\"nvidia-driver\",\"version\":\"580.95.05\"},{\"name\":\"cuda\",\"version\":\"13.0.2\"},
      {\"name\":\"cudnn\",\"version\":\"9.13.0\"},{\"name\":\"nccl\",\"version\":\"2.27.7\"}]}" | jq -r .id)
    ids=${ids:+$ids,}$id
done
node_token=$(api /v1/tokens -d '{"name":"nodes","team":"fleet","role":"member","scope":"node-report"}' | jq -r .token)
BENCH_PORT=$port BENCH_IMAGES=$ids NODE_TOKEN=$node_token IMAXE_TOKEN=$token python3 bench/nodes.py
psql "$url" -XAtc "VACUUM ANALYZE nodes, node_reports" >/dev/null
psql "$url" -XAt <<'SQL'
SELECT format('storage: nodes %s (%s bytes a node, %s rows), node_reports %s (%s rows, %s bytes a row)',
  pg_size_pretty(pg_total_relation_size('nodes')),
  pg_total_relation_size('nodes') / greatest(count(*), 1), count(*),
  pg_size_pretty(pg_total_relation_size('node_reports')),
  (SELECT count(*) FROM node_reports),
  pg_total_relation_size('node_reports') / greatest((SELECT count(*) FROM node_reports), 1))
FROM nodes;
SQL
# The daily exposure snapshot over the whole fleet (server/jobs/exposure.c runs it hourly).
psql "$url" -XAt -c '\timing on' -c "SELECT imx_exposure_snapshot(current_date, 365)" | sed -n 's/^Time: /exposure snapshot: /p'
printf 'server peak RSS: %s MB\n' "$(awk '/VmHWM/ {printf "%.1f", $2/1024}' /proc/$pid/status)"
