#!/usr/bin/env bash
# The web UI's browser tests (tests/web/web.test.mjs, admin.test.mjs, oidc.test.mjs, advisories.test.mjs and
# oidc-device.test.mjs) against the real server: a throwaway
# PostgreSQL cluster, build/imaxe-server on a free port and a catalog seeded through /v1
# (tests/web/real-server.mjs). playwright-core drives Debian's chromium headless; axe-core checks
# every screen; screenshots land in build/web-screenshots/. Installs chromium when root and it
# is missing; skips (exit 0, with a message) only when it cannot be had.
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
# Bounded: a hung browser or server fails the step instead of stalling make test: each file has
# 900 s and the whole step 1800 s (web.test.mjs, 36 tests, took 240 s of the step's 383 s in
# make test). Each file is its own process, server, PostgreSQL and log; two run at a time, the
# longest first, so the three short files run beside web.test.mjs instead of after it.
exec timeout -k 10 1800 node --test --test-concurrency=2 --test-timeout=900000 tests/web/web.test.mjs \
    tests/web/admin.test.mjs tests/web/oidc.test.mjs tests/web/oidc-device.test.mjs tests/web/advisories.test.mjs
