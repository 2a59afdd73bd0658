#!/usr/bin/env bash
# The web UI's browser tests (tests/web/web.test.mjs): playwright-core drives Debian's
# chromium headless; axe-core checks every screen; screenshots land in build/web-screenshots/.
# Installs chromium when root and it is missing; skips (exit 0, with a message) only when it
# cannot be had. IMX_WEB_BASE_URL=http://host:port runs against a real server instead of the
# fake API (see tests/web/README.md).
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
tools/npm-deps.sh
export CHROMIUM_PATH
exec node --test --test-concurrency=1 tests/web/web.test.mjs
