#!/usr/bin/env bash
# The web UI's browser tests (tests/web/*.test.mjs: the catalog's five files by screen and flow,
# admin.test.mjs, advisories.test.mjs, oidc.test.mjs and oidc-device.test.mjs) against the real
# server: a throwaway PostgreSQL cluster, build/imaxe-server on a free port and a catalog seeded
# through /v1 (tests/web/real-server.mjs), one of each a file. playwright-core drives Debian's chromium
# headless; axe-core checks every screen; screenshots land in build/web-screenshots/. Installs
# chromium when root and it is missing; skips (exit 0, with a message) only when it cannot be had.
set -euo pipefail
cd "$(dirname "$0")/.."

CHROMIUM_PATH=${CHROMIUM_PATH:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM_PATH" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "web: installing Debian's chromium for the browser tests"
        export DEBIAN_FRONTEND=noninteractive
        { apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 ||
            { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium >/dev/null; }; } || true
    fi
fi
if [ ! -x "$CHROMIUM_PATH" ]; then
    echo "web: SKIPPED: no chromium at $CHROMIUM_PATH and it could not be installed" >&2
    echo "     (as root: apt-get install -y chromium; or set CHROMIUM_PATH)" >&2
    exit 0
fi
[ -x build/imaxe-server ] || { echo "web: build/imaxe-server is missing: run make build" >&2; exit 1; }
tools/npm-deps.sh
export CHROMIUM_PATH
# Bounded: a hung browser or server fails the step instead of stalling make test: each test has
# 900 s and the whole step 1800 s. Each file is its own process, server, PostgreSQL and log; two
# run at a time in the order listed, the longest first (tests/web/run.mjs: `node --test` would
# sort them by name). The catalog's 36 tests were one file, web.test.mjs, which sorted last and
# ran alone after the short files (a 2026-12-06 run at load 10-16: 956 s, the last 770 s of it
# web.test.mjs alone); by screen and flow, the longest, team.test.mjs, is a third of the whole.
exec timeout -k 10 1800 node tests/web/run.mjs \
    tests/web/team.test.mjs tests/web/images.test.mjs tests/web/risk.test.mjs \
    tests/web/publish.test.mjs tests/web/catalog.test.mjs tests/web/admin.test.mjs \
    tests/web/oidc.test.mjs tests/web/oidc-device.test.mjs tests/web/advisories.test.mjs
