#!/usr/bin/env bash
# Lints api/openapi.yaml with @redocly/cli (installed from npm into tests/node_modules).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/npm-deps.sh
tests/node_modules/.bin/redocly lint --config api/redocly.yaml api/openapi.yaml
