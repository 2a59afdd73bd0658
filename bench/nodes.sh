#!/usr/bin/env bash
# Node reports at scale on loopback (bench/nodes.py says what it measures; bench/RESULTS.md has
# the figures): a private PostgreSQL and the server; BENCH_NODES nodes (20000) report over
# BENCH_CLIENTS (8) connections with a node-report token. About 2 minutes on 2 busy cores.
# At 100,000: BENCH_NODES=100000 BENCH_NDJSON=1 BENCH_DEADLINE_S=300 BENCH_READS=80 (bounded).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/fleet_setup.sh
bench_fleet_start nodes 55462
bench_fleet_images '[{"name":"nvidia-driver","version":"580.95.05"},{"name":"cuda","version":"13.0.2"},
  {"name":"cudnn","version":"9.13.0"},{"name":"nccl","version":"2.27.7"}]'
node_token=$(api /v1/tokens -d '{"name":"nodes","team":"fleet","role":"member","scope":"node-report"}' | jq -r .token)
BENCH_PORT=$port BENCH_IMAGES=$(IFS=,; echo "${ids[*]}") NODE_TOKEN=$node_token IMAXE_TOKEN=$token python3 bench/nodes.py
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
