#!/usr/bin/env bash
# Loads the demo catalog (tools/demo/catalog.sql) into $IMAXE_DATABASE_URL once; run by
# tools/run.sh after the server has migrated, then has the server compute the images'
# compatibility reports. Safe to run again: it skips a loaded catalog.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${IMAXE_DATABASE_URL:?IMAXE_DATABASE_URL is not set}"
# The catalog tables appear when the server first migrates; wait a little for them.
for _ in $(seq 1 50); do
    if [ "$(psql "$IMAXE_DATABASE_URL" -XAtqc "SELECT to_regclass('public.images') IS NOT NULL" 2>/dev/null)" = t ]; then
        psql "$IMAXE_DATABASE_URL" -Xq -v ON_ERROR_STOP=1 -f tools/demo/catalog.sql
        # The SQL leaves reports empty; the server computes them with the real validator.
        "${IMAXE_SERVER:-build/imaxe-server}" recompute-compat
        exit 0
    fi
    sleep 0.2
done
echo "demo.sh: the images table did not appear; demo catalog not loaded" >&2
exit 0
