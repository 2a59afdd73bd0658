#!/usr/bin/env bash
# `make test`: every test in the plain build and under ASan+UBSan (the longest in one of the two:
# tests/CMakeLists.txt), the integration tests of the
# event core under ThreadSanitizer, a bounded libFuzzer run of every parser, the format check, the
# OpenAPI lint, the deploy/ checks, the Debian package, the web UI's browser tests and, last,
# the API conformance check over every response those tests got. Each ctest run makes its own
# throwaway PostgreSQL cluster.
set -uo pipefail
cd "$(dirname "$0")/.."
fail=0
t0=$(date +%s)
step() { printf '\n== %s (at %d s)\n' "$*" $(($(date +%s) - t0)); }

# Every server the tests start logs its responses here (server/http/conformance.c).
conformance_dir="$PWD/build/conformance"
rm -rf "$conformance_dir" && mkdir -p "$conformance_dir"
export IMAXE_CONFORMANCE_LOG="$conformance_dir"

# Every test runs in the plain build and again under the sanitizers, but for the longest, which
# run in one build each (labels plain_only and asan_only: tests/CMakeLists.txt says which and why).
# The checks of the source tree alone (label "source": migrations layout, generated reference
# tables, include layers) run no sanitized code and give their answer in the plain run.
step "ctest (build)"
(cd build && ctest --output-on-failure -j2 --timeout 600 -LE asan_only) || fail=1

# The two ctest runs go one after the other: run side by side (tried: 2777dd0) each test took 2.5
# times as long and the pair ended later, the cores being busy with PostgreSQL.
step "ctest (build-asan: AddressSanitizer + UndefinedBehaviorSanitizer)"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j2 --timeout 900 \
    -LE 'source|plain_only') || fail=1

# The browser tests run beside the steps below (other build directories, no server of build/'s):
# two files at a time, the longest first (tools/test-web.sh); the browsers spend much of their
# time waiting, which the ThreadSanitizer, libFuzzer and package steps fill. Their output follows
# those steps.
step "web, started in the background (browser tests: playwright-core + chromium + axe-core)"
web_log=build/web-test.log
tools/test-web.sh >"$web_log" 2>&1 &
web_pid=$!

step "ctest (build-tsan: ThreadSanitizer, the event core's integration tests)"
tools/test-tsan.sh || fail=1

step "libFuzzer (build-fuzz: every parser's target, ${FUZZ_SECONDS:-10} s each)"
tools/fuzz.sh || fail=1

step "clang-format check"
tools/format.sh check || fail=1

step "OpenAPI lint (@redocly/cli)"
tools/openapi-lint.sh || fail=1

step "deploy/ checks (systemd unit, Dockerfile lint, compose, Kubernetes)"
tools/deploy-check.sh || fail=1

step "Debian package (cpack -G DEB in build-pkg)"
tools/package-check.sh || fail=1

step "web (browser tests: playwright-core + chromium + axe-core; screenshots in build/web-screenshots/)"
wait "$web_pid" || fail=1
cat "$web_log"

step "API conformance (every response above against api/openapi.yaml; every operation exercised)"
node tools/conformance.mjs build/openapi.json "$conformance_dir" || fail=1

if [ $fail -ne 0 ]; then
    echo; echo "make test: FAILED (after $(($(date +%s) - t0)) s)"; exit 1
fi
echo; echo "make test: all passed in $(($(date +%s) - t0)) s"
