#!/usr/bin/env bash
# tools/pg.sh test-start / test-stop: the test cluster of a build directory belongs to one ctest
# run at a time. A second live run is refused with a message, its pg.stop leaves the first run's
# cluster running, and a run that died (killed, crashed) hands the cluster to the next one.
# Two sleeping processes stand for two ctest runs (IMX_PG_RUN_PID).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
pgsh=$src/tools/pg.sh
tmp=$(mktemp -d)
chmod 755 "$tmp" # as root, pg.sh hands the cluster to `postgres`, who must reach it
dir=$tmp/testpg
port=$((20000 + RANDOM % 20000))
sleep 600 & run_a=$!
sleep 600 & run_b=$!
cleanup() {
    kill "$run_a" "$run_b" 2>/dev/null || true
    "$pgsh" stop "$dir" >/dev/null 2>&1 || true
    real=$(readlink -f "$dir" 2>/dev/null || true)
    [ -n "$real" ] && [ "$real" != "$dir" ] && rm -rf "$real"
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
up() { "$pgsh" url "$dir" "$port" >/dev/null && psql "$("$pgsh" url "$dir" "$port")" -XAtqc 'SELECT 1' 2>/dev/null | grep -qx 1; }
as_run() { local pid=$1; shift; IMX_PG_RUN_PID=$pid "$pgsh" "$@"; }

as_run "$run_a" test-start "$dir" "$port" >/dev/null || fail "run A could not start the cluster"
up || fail "run A's cluster does not answer"
echo "ok: run A started the cluster"

if as_run "$run_b" test-start "$dir" "$port" >/dev/null 2>"$tmp/refused"; then
    fail "run B started while run A holds the cluster"
fi
grep -q "another ctest run" "$tmp/refused" || fail "run B's refusal does not say why: $(cat "$tmp/refused")"
echo "ok: run B refused: $(head -1 "$tmp/refused")"

as_run "$run_b" test-stop "$dir" 2>/dev/null
up || fail "run B's pg.stop stopped run A's cluster"
echo "ok: run B's pg.stop left run A's cluster running"

as_run "$run_a" test-start "$dir" "$port" >/dev/null || fail "run A's second pg.start was refused"
echo "ok: run A may start again (ctest --repeat)"

kill "$run_a"
wait "$run_a" 2>/dev/null || true
as_run "$run_b" test-start "$dir" "$port" >/dev/null || fail "run B refused though run A is gone"
up || fail "run B's cluster does not answer"
echo "ok: run A gone, run B takes the cluster over"

as_run "$run_b" test-stop "$dir"
if up; then fail "run B's pg.stop left its own cluster running"; fi
echo "ok: run B's pg.stop stopped it"
