#!/usr/bin/env bash
# Loads the deterministic 100,000-image bench catalog into a migrated database:
#   bench/gen_catalog.sh "$IMAXE_DATABASE_URL"
# BENCH_IMAGES (100000) makes a smaller one for the short benches (the first N images of it).
set -euo pipefail
url=${1:?usage: gen_catalog.sh DATABASE_URL}
here=$(dirname "$0")
start=$(date +%s.%N)
# The imx_image_denorm triggers would rewrite every image once per child table: off while
# loading, then one imx_image_denorm_refresh() over all images.
triggers() {
    for t in image_components image_gpus image_artifacts image_tags; do
        echo "ALTER TABLE $t $1 TRIGGER ${t}_denorm_ins;"
    done
}
psql "$url" -v ON_ERROR_STOP=1 -q -c "$(triggers DISABLE)"
psql "$url" -v ON_ERROR_STOP=1 -q -v images="${BENCH_IMAGES:-100000}" -f "$here/gen_catalog.sql"
psql "$url" -v ON_ERROR_STOP=1 -q -v part=0 -f "$here/gen_catalog_components.sql" &
p0=$!
psql "$url" -v ON_ERROR_STOP=1 -q -v part=1 -f "$here/gen_catalog_components.sql"
wait $p0
psql "$url" -v ON_ERROR_STOP=1 -q -c "$(triggers ENABLE)" \
    -c "SELECT imx_image_denorm_refresh(ARRAY(SELECT id FROM images), NULL)" \
    -c "SELECT imx_image_docs_write(NULL)" \
    -c "ANALYZE images, image_components, image_docs" -c "DROP TABLE bench_stack"
printf 'bench catalog loaded in %.1f s\n' "$(echo "$(date +%s.%N) - $start" | bc)"
