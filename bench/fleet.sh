#!/usr/bin/env bash
# Fleet reads at scale (bench/RESULTS.md, "Fleet reads at 100,000 nodes"): a private PostgreSQL
# and the server; BENCH_NODES nodes (100000) of one team on 3 images written straight into the
# nodes table (the triggers keep the counts as the report procedure's writes do; reports
# themselves are measured by bench/nodes.sh), 1 in 50 drifting, 1 in 20 silent for an hour
# (stale). Then, one client, BENCH_READS (20) requests each: GET /v1/fleet, GET /v1/nodes?stale=true,
# GET /v1/images/{id}/patch?nodes=true; and in psql the fleet document counted from every node
# (imx_fleet_counts before 0360, the "before") against the kept counts (the "after"), and the
# cost of an unchanged report with and without the node_seen trigger. About 2 minutes at 100,000
# on 2 busy cores.
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${BENCH_NODES:-100000} reads=${BENCH_READS:-20}
. bench/fleet_setup.sh
bench_fleet_start fleet 55463
bench_fleet_images '[{"name":"nvidia-driver","version":"580.95.05"}]'
api /v1/pins -d "{\"team\":\"fleet\",\"name\":\"prod\",\"image\":${ids[0]}}" >/dev/null
t0=$(date +%s.%N)
# A report the size bench/nodes.py sends (~700 bytes), the same for every node.
psql "$url" -XAq <<SQL
INSERT INTO nodes (team_id, name, image_id, booted, instance_type, gpus, gpu_count, drift,
                   drift_items, report, report_digest, first_seen, last_seen)
SELECT t.id, 'ip-10-' || g, (ARRAY[${ids[0]}, ${ids[1]}, ${ids[2]}])[1 + g % 3],
       jsonb_build_object('id', (ARRAY[${ids[0]}, ${ids[1]}, ${ids[2]}])[1 + g % 3]),
       'p5.48xlarge', '{H100}', 8, g % 50 = 0, '[]', r.rep, md5(r.rep::text),
       now() - interval '1 day', CASE WHEN g % 20 = 0 THEN now() - interval '1 hour' ELSE now() END
  FROM generate_series(1, $nodes) g
  CROSS JOIN LATERAL (SELECT jsonb_build_object('architecture', 'x86_64', 'kernel', '6.8.0-1015-aws',
      'gpus', '["H100"]'::jsonb,
      'components', '[{"name":"nvidia-driver","version":"580.95.05"},{"name":"cuda","version":"13.0"},{"name":"cudnn","version":"9.13.0"},{"name":"nccl","version":"2.27.7"},{"name":"python","version":"3.12.3"},{"name":"pytorch","version":"2.9.0"}]'::jsonb,
      'node', jsonb_build_object('gpu_count', 8, 'instance_type', 'p5.48xlarge', 'n', g)) AS rep) r,
  teams t WHERE t.slug = 'fleet';
VACUUM ANALYZE nodes, node_seen, fleet_counts;
SQL
printf 'loaded %s nodes in %.1f s (triggers on); fleet_counts rows: %s\n' "$nodes" \
    "$(echo "$(date +%s.%N) - $t0" | bc)" "$(psql "$url" -XAtc 'SELECT count(*) FROM fleet_counts')"
# p50 and max of $reads GETs of $1.
timed() {
    local f="$dir/t"
    : > "$f"
    for _ in $(seq "$reads"); do
        curl -sf -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$port$1" -H "Authorization: Bearer $token" >> "$f"
    done
    sort -n "$f" | awk -v p="$1" '{a[NR]=$1} END {printf "GET %s: p50 %.1f ms, max %.1f ms\n", p, a[int((NR+1)/2)]*1000, a[NR]*1000}'
}
timed /v1/fleet
timed "/v1/nodes?stale=true&limit=50"
timed "/v1/nodes?limit=50"
timed "/v1/images/${ids[0]}/patch?nodes=true"
api /v1/fleet | jq -c '{nodes, drifted, stale, unknown_image, by_image: [.by_image[] | [.image.id, .nodes, .drifted, .stale]], by_pin: [.by_pin[] | [.name, .nodes, .stale]]}'
uid=$(psql "$url" -XAtc "SELECT id FROM users WHERE email = '$IMAXE_ADMIN_EMAIL'")
if [ -n "${BENCH_EXPLAIN:-}" ]; then # the plans inside imx_fleet_counts, with their times
    psql "$url" -XA -c "LOAD 'auto_explain'" -c "SET auto_explain.log_min_duration = 0" \
        -c "SET auto_explain.log_nested_statements = on" -c "SET auto_explain.log_analyze = on" \
        -c "SET client_min_messages = log" -c "SELECT length(imx_fleet_counts($uid, NULL, NULL, 900, 100))" \
        -c "SELECT length(imx_fleet_counts($uid, NULL, NULL, 900, 100))" 2>&1 | tail -120
    exit 0
fi
# The same document counted from every node (the procedure before 0360) and from the kept
# counts, five times each, in one session; and that both give the same text.
sed "s/\$U/$uid/g; s/\$S/900/g" > "$dir/old.sql" <<'SQL'
WITH mine AS (
  SELECT n.team_id, n.image_id, n.drift, n.last_seen < now() - make_interval(secs => $S) AS stale
    FROM nodes n WHERE n.team_id IN (SELECT imx_caller_teams($U, NULL, NULL))),
by_image AS (
  SELECT m.image_id, count(*) AS nodes, count(*) FILTER (WHERE m.drift) AS drifted,
         count(*) FILTER (WHERE m.stale) AS stale FROM mine m GROUP BY m.image_id),
by_pin AS (
  SELECT p.id, p.name, p.team_id, p.image_id, count(m.*) AS nodes,
         count(*) FILTER (WHERE m.drift) AS drifted, count(*) FILTER (WHERE m.stale) AS stale
    FROM pins p JOIN mine m ON m.team_id = p.team_id AND m.image_id = p.image_id
   WHERE p.team_id IN (SELECT imx_caller_teams($U, NULL, NULL)) GROUP BY p.id)
SELECT json_build_object(
  'nodes', (SELECT count(*) FROM mine), 'drifted', (SELECT count(*) FROM mine WHERE drift),
  'stale', (SELECT count(*) FROM mine WHERE stale),
  'unknown_image', (SELECT count(*) FROM mine WHERE image_id IS NULL),
  'by_image', (SELECT coalesce(json_agg(x ORDER BY x.nodes DESC, (x.image->>'id')::bigint), '[]') FROM (
      SELECT json_build_object('id', i.id, 'family', i.family, 'version', i.version,
                               'patch_status', i.patch_status) AS image, b.nodes, b.drifted, b.stale
        FROM by_image b JOIN images i ON i.id = b.image_id ORDER BY b.nodes DESC, i.id LIMIT 100) x),
  'by_pin', (SELECT coalesce(json_agg(y ORDER BY y.nodes DESC, y.id), '[]') FROM (
      SELECT b.id, b.name, (SELECT t.slug FROM teams t WHERE t.id = b.team_id) AS team,
             b.image_id, b.nodes, b.drifted, b.stale
        FROM by_pin b ORDER BY b.nodes DESC, b.id LIMIT 100) y))::text
SQL
{
    echo '\timing on'
    for _ in 1 2 3 4 5; do echo '\o /dev/null'; cat "$dir/old.sql"; echo ';'; done
    for _ in 1 2 3 4 5; do echo "SELECT imx_fleet_counts($uid, NULL, NULL, 900, 100);"; done
    echo '\o'
    echo "SELECT (SELECT imx_fleet_counts($uid, NULL, NULL, 900, 100)) = ($(cat "$dir/old.sql")) AS same_document;"
} | psql "$url" -XA 2>&1 | awk '/^Time:/ {n++; t[n]=$2} /same_document|^t$|^f$/ {print} END {
    printf "fleet document, counted from every node (before): %s %s %s %s %s ms\n", t[1], t[2], t[3], t[4], t[5];
    printf "fleet document, kept counts (after):              %s %s %s %s %s ms\n", t[6], t[7], t[8], t[9], t[10] }'
# What node_seen costs an unchanged report: 2,000 reports of existing nodes with the trigger
# and without it (the report procedure as the API calls it).
cat > "$dir/rep.sql" <<SQL
SELECT count(imx_node_report(t.id, 'ip-10-' || g, ${ids[0]}, '{"id": ${ids[0]}}', 'p5.48xlarge', '{H100}', 8,
                             false, '[]', n.report, 30))
  FROM generate_series(3, 6000, 3) g, teams t, nodes n WHERE t.slug = 'fleet' AND n.team_id = t.id AND n.name = 'ip-10-' || g;
SQL
for round in 1 2; do
    for trig in on off; do
        [ $trig = off ] && psql "$url" -XAqc 'ALTER TABLE nodes DISABLE TRIGGER nodes_seen_update'
        ms=$( { echo '\timing on'; cat "$dir/rep.sql"; } | psql "$url" -XA | sed -n 's/^Time: \([0-9.]*\).*/\1/p')
        [ $trig = off ] && psql "$url" -XAqc 'ALTER TABLE nodes ENABLE TRIGGER nodes_seen_update'
        printf '2,000 unchanged reports, node_seen trigger %s (round %s): %.0f ms, %.1f us a report\n' $trig $round "$ms" "$(echo "$ms * 1000 / 2000" | bc -l)"
    done
done
psql "$url" -XAt -c "SELECT format('storage: node_seen %s, fleet_counts %s', pg_size_pretty(pg_total_relation_size('node_seen')), pg_size_pretty(pg_total_relation_size('fleet_counts')))"
