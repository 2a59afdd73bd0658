#!/usr/bin/env bash
# Installs the pinned npm packages the tests use (tests/package-lock.json) once.
set -euo pipefail
cd "$(dirname "$0")/../tests"
if [ ! -f node_modules/.installed ] || [ package-lock.json -nt node_modules/.installed ]; then
    npm ci --no-audit --no-fund --loglevel=error >/dev/null
    touch node_modules/.installed
fi
