#!/usr/bin/env bash
# OS package inventories at scale (bench/RESULTS.md, "OS packages"): the 100,000-image bench
# catalog with 1,000 packages per image (bench/gen_os_packages.sql stores them as a publish
# would), then through the API: publish latency of images with 1,000-package inventories, and
# the time to publish a distro advisory that hits 30 % of the catalog. Prints the storage
# against one (image, package) row per package. Bounded: ~10 minutes on 2 cores.
# Environment: BENCH_PG_PORT (56110), BENCH_PUBLISHES (200).
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build >/dev/null
dir=$(mktemp -d /tmp/imaxe-bench-os.XXXXXX)
chmod 755 "$dir"
url=$(tools/pg.sh start "$dir/pg" "${BENCH_PG_PORT:-56110}" fast)
pid=""
cleanup() {
    [ -n "$pid" ] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
    tools/pg.sh stop "$dir/pg"
    rm -rf "$dir"
}
trap cleanup EXIT
cc -O2 -std=c17 -Iserver bench/pkgkey.c server/domain/pkgver.c -o "$dir/pkgkey"
export IMAXE_DATABASE_URL=$url IMAXE_JWT_SECRET=bench-secret-0123456789abcdef0123456789
export IMAXE_ADMIN_EMAIL=bench@imaxe.local IMAXE_ADMIN_PASSWORD=bench-password-1
export IMAXE_MAX_BODY_BYTES=16777216 IMAXE_RATE_LIMIT_PER_MIN=0
build/imaxe-server migrate >/dev/null 2>&1
bench/gen_catalog.sh "$url"
{
    printf 'dpkg\t3.0.13-0ubuntu3.3\ndpkg\t3.0.13-0ubuntu3.5\n'
    for k in $(seq 0 6); do for e in $(seq 0 99); do printf 'dpkg\t1.%d-%d\n' "$k" "$e"; done; done
    for f in $(seq 0 499); do for e in $(seq 0 99); do printf 'dpkg\t2.%d-%d\n' "$f" "$e"; done; done
} | "$dir/pkgkey" > "$dir/keys.tsv"
start=$(date +%s.%N)
psql "$url" -XAq -v ON_ERROR_STOP=1 -c "CREATE UNLOGGED TABLE bench_pkg_keys (version text PRIMARY KEY, key text)" \
    -c "\\copy bench_pkg_keys FROM '$dir/keys.tsv'"
psql "$url" -XAq -v ON_ERROR_STOP=1 -f bench/gen_os_packages.sql
psql "$url" -XAq -c "DROP TABLE bench_pkg_keys"
printf 'inventories generated in %.1f s\n' "$(echo "$(date +%s.%N) - $start" | bc)"

echo '--- storage (100,000 images x 1,000 packages)'
psql "$url" -XAt -F ' ' -c "SELECT c.relname, c.reltuples::bigint || ' rows',
       pg_size_pretty(pg_total_relation_size(c.oid)) FROM pg_class c
       WHERE c.relname IN ('os_packages', 'os_package_chunks', 'image_packages') ORDER BY 1"
psql "$url" -XAt -c "SELECT 'inventories, all three tables with their indexes: '
       || pg_size_pretty(sum(pg_total_relation_size(c.oid))) FROM pg_class c
       WHERE c.relname IN ('os_packages', 'os_package_chunks', 'image_packages')"
# The plain layout for comparison: one (image_id, package_id) row per package with its primary
# key and a package index, built for 1,000 images (1,000,000 rows) and scaled by 100.
psql "$url" -XAq -c "CREATE TABLE bench_plain AS SELECT ip.image_id, m.id AS package_id
       FROM image_packages ip, unnest(ip.chunks) ch(id) JOIN os_package_chunks c ON c.id = ch.id,
       unnest(c.members) m(id) WHERE ip.image_id <= 1000" \
    -c "ALTER TABLE bench_plain ADD PRIMARY KEY (image_id, package_id)" \
    -c "CREATE INDEX ON bench_plain (package_id)"
psql "$url" -XAt -c "SELECT 'one row per (image, package), 1,000 images measured, x100: '
       || pg_size_pretty(pg_total_relation_size('bench_plain') * 100)
       || ' (' || (SELECT count(*) FROM bench_plain) || ' rows for 1,000 images)'"
psql "$url" -XAq -c "DROP TABLE bench_plain"

IMAXE_PORT=0 IMAXE_ACCESS_LOG=0 build/imaxe-server > "$dir/server.log" 2>&1 & pid=$!
for _ in $(seq 100); do grep -q 'listening on' "$dir/server.log" && break; sleep 0.1; done
port=$(grep -o 'listening on http://[0-9.]*:[0-9]*/' "$dir/server.log" | sed 's/.*://; s/\/$//')
token=$(curl -sf "http://127.0.0.1:$port/v1/auth/login" -H 'Content-Type: application/json' \
    -d "{\"email\":\"$IMAXE_ADMIN_EMAIL\",\"password\":\"$IMAXE_ADMIN_PASSWORD\"}" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')
BENCH_PORT=$port IMAXE_TOKEN=$token BENCH_DB=$url python3 bench/os_packages.py
psql "$url" -XAt -c "SELECT 'after: ' || pg_size_pretty(sum(pg_total_relation_size(c.oid)))
       || ' in the three tables' FROM pg_class c
       WHERE c.relname IN ('os_packages', 'os_package_chunks', 'image_packages')"
