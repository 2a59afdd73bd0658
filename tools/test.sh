#!/usr/bin/env bash
# `make test`: every test of both builds (plain and ASan+UBSan), the format check, the
# OpenAPI lint, the deploy/ checks, the Debian package and the web UI's browser tests. Each
# ctest run makes its own throwaway PostgreSQL cluster.
set -uo pipefail
cd "$(dirname "$0")/.."
fail=0
step() { printf '\n== %s\n' "$*"; }

step "ctest (build)"
(cd build && ctest --output-on-failure -j2 --timeout 600) || fail=1

step "ctest (build-asan: AddressSanitizer + UndefinedBehaviorSanitizer)"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j2 --timeout 900) || fail=1

step "clang-format check"
tools/format.sh check || fail=1

step "OpenAPI lint (@redocly/cli)"
tools/openapi-lint.sh || fail=1

step "deploy/ checks (systemd unit, Dockerfile lint, compose, Kubernetes)"
tools/deploy-check.sh || fail=1

step "Debian package (cpack -G DEB in build-pkg)"
tools/package-check.sh || fail=1

step "web (browser tests: playwright-core + chromium + axe-core; screenshots in build/web-screenshots/)"
tools/test-web.sh || fail=1

if [ $fail -ne 0 ]; then
    echo; echo "make test: FAILED"; exit 1
fi
echo; echo "make test: all passed"
