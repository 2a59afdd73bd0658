#!/usr/bin/env bash
# Manage a private PostgreSQL cluster for development and tests.
#   tools/pg.sh start DIR PORT [fast]  initdb on first use, start, print the connection URL
#                                      (PG_SHARED_BUFFERS=1GB sizes its buffer cache; the benches
#                                      set it so that the catalog they load fits, as in production)
#   tools/pg.sh stop DIR               stop it (fast shutdown)
#   tools/pg.sh url DIR PORT           print the connection URL
#   tools/pg.sh test-start DIR PORT    start for one ctest run (tests/CMakeLists.txt's pg.start),
#                                      refused while another run that is still alive holds DIR
#   tools/pg.sh test-stop DIR          stop it, if this ctest run holds it (pg.stop)
# A ctest run is the nearest ctest process above pg.sh (IMX_PG_RUN_PID names another: the test of
# this, tests/pg/test_run_lock.sh). Two runs in one build directory share its cluster, and the one
# that ends first would stop it under the other (and their tests share database and directory
# names): the second is refused at pg.start, with a message saying why.
# PostgreSQL refuses to run as root, so as root the cluster belongs to the `postgres` user.
set -euo pipefail

cmd=${1:?usage: pg.sh start|stop|url|test-start|test-stop DIR [PORT]}
dir=${2:?cluster directory}

pgbin=""
for d in /usr/lib/postgresql/15/bin /usr/lib/postgresql/*/bin; do
    if [ -x "$d/pg_ctl" ]; then pgbin=$d; break; fi
done
[ -n "$pgbin" ] || { echo "pg.sh: PostgreSQL server binaries not found (apt-get install postgresql-15)" >&2; exit 1; }

as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# The cluster must be reachable by its owner: a checkout under /root is not, for `postgres`.
# Then keep it under /var/tmp and leave a symlink where it was asked for.
resolve_dir() {
    mkdir -p "$(dirname "$dir")"
    if [ -L "$dir" ]; then dir=$(readlink -f "$dir"); return; fi
    if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- sh -c 'cd "$1"' _ "$(readlink -f "$(dirname "$dir")")" 2>/dev/null; then
        local real
        real=/var/tmp/imaxe-pg-$(printf '%s' "$(readlink -f "$(dirname "$dir")")" | sha256sum | cut -c1-12)
        mkdir -p "$real"
        ln -sfn "$real" "$dir"
        dir=$real
    fi
    mkdir -p "$dir"
    dir=$(readlink -f "$dir")
    if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
    chmod 700 "$dir"
}

url() {
    printf 'postgresql://%s@/imaxe?host=%s&port=%s\n' "$(if [ "$(id -u)" = 0 ]; then echo postgres; else id -un; fi)" "$dir" "$1"
}

# "PID STARTTIME" of process $1 (the start time tells a reused process id apart), or nothing.
proc_id() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
    # Fields after the command name, which may hold spaces: state ppid ... starttime (the 20th).
    set -- ${stat##*) }
    printf '%s %s\n' "$1" "${20}"
}

# The ctest run this pg.sh serves: the nearest ctest process above it, else its parent.
run_pid() {
    if [ -n "${IMX_PG_RUN_PID:-}" ]; then echo "$IMX_PG_RUN_PID"; return; fi
    local p=$PPID stat
    while [ "$p" -gt 1 ]; do
        if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = ctest ]; then echo "$p"; return; fi
        stat=$(cat "/proc/$p/stat" 2>/dev/null) || break
        set -- ${stat##*) }
        p=$2
    done
    echo "$PPID"
}

# The holder file names the run that owns the cluster: "PID STARTTIME". Alive when that process
# still runs with that start time.
holder_alive() {
    local pid start
    read -r pid start <"$1" 2>/dev/null || return 1
    [ -n "$pid" ] && [ "$(proc_id "$pid" | cut -d' ' -f2)" = "$start" ]
}

case "$cmd" in
test-start)
    port=${3:?port}
    resolve_dir
    me=$(run_pid)
    mine="$me $(proc_id "$me" | cut -d' ' -f2)"
    exec 9>"$dir/holder.lock"
    flock 9
    if [ -f "$dir/holder" ] && [ "$(cat "$dir/holder")" != "$mine" ] && holder_alive "$dir/holder"; then
        read -r other _ <"$dir/holder"
        echo "pg.sh: $dir is the PostgreSQL cluster of another ctest run in this build directory" \
            "(ctest process $other, $(ps -o args= -p "$other" 2>/dev/null | cut -c1-80))." >&2
        echo "       Two runs in one build directory would stop each other's cluster and share" \
            "their tests' databases: wait for that run to end, or build and test in another" \
            "directory (cmake -S . -B build-2)." >&2
        exit 1
    fi
    echo "$mine" >"$dir/holder"
    flock -u 9
    exec "$0" start "$dir" "$port" fast
    ;;
test-stop)
    [ -L "$dir" ] && dir=$(readlink -f "$dir")
    if [ -f "$dir/holder" ]; then
        me=$(run_pid)
        mine="$me $(proc_id "$me" | cut -d' ' -f2)"
        exec 9>"$dir/holder.lock"
        flock 9
        if [ "$(cat "$dir/holder")" != "$mine" ] && holder_alive "$dir/holder"; then
            echo "pg.sh: $dir left running: another ctest run holds it" >&2
            exit 0
        fi
        rm -f "$dir/holder"
    fi
    exec "$0" stop "$dir"
    ;;
start)
    port=${3:?port}
    fast=${4:-}
    resolve_dir
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        as_owner "$pgbin/initdb" -D "$dir/data" -A trust -U "$(if [ "$(id -u)" = 0 ]; then echo postgres; else id -un; fi)" -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
            { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    opts="-k $dir -p $port -c listen_addresses='' -c max_connections=200"
    if [ "$fast" = fast ]; then opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"; fi
    if [ -n "${PG_SHARED_BUFFERS:-}" ]; then opts="$opts -c shared_buffers=$PG_SHARED_BUFFERS"; fi
    if ! as_owner "$pgbin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
        as_owner "$pgbin/pg_ctl" -D "$dir/data" -o "$opts" -l "$dir/postgres.log" -w -t 60 start >/dev/null ||
            { tail -20 "$dir/postgres.log" >&2; exit 1; }
    fi
    # The application database.
    if ! as_owner "$pgbin/psql" -h "$dir" -p "$port" -d postgres -Atqc "SELECT 1 FROM pg_database WHERE datname='imaxe'" | grep -q 1; then
        as_owner "$pgbin/psql" -h "$dir" -p "$port" -d postgres -qc "CREATE DATABASE imaxe" >/dev/null
    fi
    url "$port"
    ;;
stop)
    [ -L "$dir" ] && dir=$(readlink -f "$dir")
    if [ -f "$dir/data/PG_VERSION" ]; then
        as_owner "$pgbin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    ;;
url)
    [ -L "$dir" ] && dir=$(readlink -f "$dir")
    url "${3:?port}"
    ;;
*)
    echo "pg.sh: unknown command $cmd" >&2
    exit 2
    ;;
esac
