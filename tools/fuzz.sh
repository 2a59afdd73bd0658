#!/usr/bin/env bash
# `make test`'s libFuzzer step (and `make fuzz`): builds the parsers' fuzz targets with clang
# -fsanitize=fuzzer plus ASan and UBSan in build-fuzz/ and runs each for FUZZ_SECONDS seconds
# (default 10) from its seed corpus, tests/fuzz/corpus/NAME. What a run adds to the corpus stays
# in build-fuzz/corpus/NAME (kept between runs, so each run starts where the last one stopped);
# a crash, leak, timeout or failed invariant leaves its input in build-fuzz/crashes/ and fails.
# The same targets also run as bounded deterministic loops in every ctest run (unit.fuzz_*).
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-10}
# Every target in tests/fuzz (each fuzz_NAME.c is one; tests/CMakeLists.txt refuses to configure
# when one is not built), or the ones named.
mapfile -t targets < <(cd tests/fuzz && ls fuzz_*.c | sed 's/\.c$//')
if [ $# -gt 0 ]; then targets=("$@"); fi

command -v clang >/dev/null || { echo "fuzz: clang is missing (tools/deps.sh installs it)" >&2; exit 1; }
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DIMX_LIBFUZZER=ON -DIMX_WERROR=OFF -DIMX_BUILD_TESTS=ON >/dev/null || exit 1
cmake --build build-fuzz -j"${JOBS:-2}" --target "${targets[@]}" >build-fuzz/build.log 2>&1 ||
    { tail -40 build-fuzz/build.log >&2; exit 1; }

mkdir -p build-fuzz/crashes
# One target: its libFuzzer run, then its line; exit non-zero when it found something.
fuzz_one() {
    local t=$1 log="build-fuzz/$1.log" rc runs cov
    mkdir -p "build-fuzz/corpus/$t"
    # -timeout: one input over 10 s is a hang; -rss_limit_mb: a leak or blow-up fails the run.
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "build-fuzz/tests/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="build-fuzz/crashes/$t-" \
        "build-fuzz/corpus/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1
    rc=$?
    runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$')
    cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1)
    if [ $rc -ne 0 ]; then
        { echo "FAIL: $t (exit $rc; input in build-fuzz/crashes/):"
          grep -E 'ERROR|invariant|SUMMARY|Test unit written' "$log" | head -10; } >&2
        return 1
    fi
    echo "ok: $t: ${runs:-?} inputs in ${secs} s, ${cov:-cov: ?} edges, corpus $(ls "build-fuzz/corpus/$t" | wc -l) files"
}

# A libFuzzer run is one process on one core: the targets run FUZZ_JOBS (the cores, at most 2 by
# default) at a time, each for its full FUZZ_SECONDS.
jobs=${FUZZ_JOBS:-$(($(nproc) < 2 ? 1 : 2))}
fail=0
running=0
for t in "${targets[@]}"; do
    if [ $running -ge "$jobs" ]; then
        wait -n || fail=1
        running=$((running - 1))
    fi
    fuzz_one "$t" &
    running=$((running + 1))
done
while [ $running -gt 0 ]; do
    wait -n || fail=1
    running=$((running - 1))
done
exit $fail
