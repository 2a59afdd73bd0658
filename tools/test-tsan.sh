#!/usr/bin/env bash
# `make test`'s ThreadSanitizer step: the integration tests that drive the server's threads,
# run against build-tsan (gcc -fsanitize=thread: the server, the tests). Every report, from the
# server or a test, is written to build-tsan/tsan-reports/ (TSAN_OPTIONS log_path) and fails
# the step, printed here; known reports of code imaxe does not own are suppressed, each with its
# reason, in tools/tsan.supp.
#
# Not the whole suite: under TSan the server runs 5-15 times slower, and the whole suite would
# take most of an hour on 2 cores. The set (TSAN_TESTS overrides it) covers every thread the
# server has: the event threads, the worker pool and fast handlers with their coalesced reads
# (test_event_loop, test_http_core, test_etags), the read pools (test_db_read_replica), the
# webhook dispatchers (test_webhooks), the in-memory search index with its catch-up
# (test_search_index) and the idempotent replays across requests (test_idempotency).
set -uo pipefail
cd "$(dirname "$0")/.."
tests=${TSAN_TESTS:-test_event_loop|test_http_core|test_etags|test_db_read_replica|test_webhooks|test_search_index|test_idempotency}
reports="$PWD/build-tsan/tsan-reports"
rm -rf "$reports" && mkdir -p "$reports"
export TSAN_OPTIONS="log_path=$reports/tsan suppressions=$PWD/tools/tsan.supp second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
start=$(date +%s)
(cd build-tsan && ctest --output-on-failure -j"${JOBS:-2}" --timeout 1500 -R "integration\.($tests)\$") 
rc=$?
echo "ThreadSanitizer: $(($(date +%s) - start)) s for ${tests//|/, }"
if compgen -G "$reports/tsan.*" >/dev/null; then
    echo "ThreadSanitizer reported (build-tsan/tsan-reports/):" >&2
    for f in "$reports"/tsan.*; do
        echo "--- $f" >&2
        head -60 "$f" >&2
    done
    rc=1
fi
exit $rc
