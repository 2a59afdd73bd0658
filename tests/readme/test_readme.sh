#!/usr/bin/env bash
# README.md runs as written: every ```sh example, in order, in one bash session with
# `set -euo pipefail`, against a freshly migrated server loaded with the demo catalog
# (tools/demo.sh), signed in as the demo admin. Any non-zero exit fails the test and names the
# README line of the example. What the test changes, and why (nothing else is touched):
#   - http://127.0.0.1:8080 becomes this server's address (a free port), and the example's own
#     webhook receiver's 127.0.0.1:9000 a free port that the server allows through
#     IMAXE_WEBHOOK_ALLOW_HOSTS, as make run allows 9000;
#   - `imaxe` is build/imaxe, its config under a throwaway XDG_CONFIG_HOME, and `imaxe probe` reads
#     the stand-in NVML of the CLI tests (this machine has no GPU);
#   - examples run in a scratch directory that links the repository's examples/ and tests/data/.
# A block preceded by `<!-- readme-test: skip (why) -->` is not run (only `make run` / `make test`
# themselves and a receiver's snippet that needs a real delivery's headers). The Terraform
# snippet is not run either (Terraform is not installed): its shape is checked instead (balanced
# braces, an http data source with a postcondition on status_code).
set -euo pipefail

src_dir=${IMX_TEST_SOURCE_DIR:?}
server=${IMX_TEST_SERVER:?}
build=${IMX_TEST_BUILD_DIR:?}
pgdir=$(readlink -f "${IMX_TEST_PGDIR:?}")
tmp=$build/tmp/readme_$$
user=$(if [ "$(id -u)" = 0 ]; then echo postgres; else id -un; fi)
db=t_readme_$$
export PGOPTIONS="-c client_min_messages=warning"
conninfo="host=$pgdir port=55432 user=$user dbname=$db"
sql() { psql --no-psqlrc -X -Atq -v ON_ERROR_STOP=1 "host=$pgdir port=55432 user=$user dbname=postgres" -c "$1"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

srv=""
cleanup() {
    [ -n "$srv" ] && kill -TERM "$srv" 2>/dev/null && wait "$srv" 2>/dev/null
    # The README's own receiver, when an example failed before it stopped it.
    [ -n "${rcv_port:-}" ] && pkill -f "127.0.0.1:$rcv_port\$" 2>/dev/null || true
    sql "DROP DATABASE IF EXISTS $db WITH (FORCE)" || true
}
trap cleanup EXIT
rm -rf "$tmp" && mkdir -p "$tmp/work" "$tmp/config"
sql "DROP DATABASE IF EXISTS $db WITH (FORCE)"
sql "CREATE DATABASE $db"

# The Terraform snippet: its shape only.
python3 - "$src_dir/README.md" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
blocks = re.findall(r"^```hcl\n(.*?)^```", text, re.S | re.M)
assert blocks, "README.md has no hcl block"
for b in blocks:
    depth = 0
    for ch in b:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0, "unbalanced braces in the Terraform snippet"
    assert depth == 0, "unbalanced braces in the Terraform snippet"
    assert re.search(r'data "http" "\w+"', b), "no http data source"
    assert re.search(r"postcondition\s*\{[^}]*status_code\s*==\s*200", b, re.S), \
        "the http data source has no postcondition on status_code == 200"
print("readme: Terraform snippet shape ok (not run: Terraform is not installed)")
PY

# The README's webhook example starts its own receiver on 127.0.0.1:9000, which make run allows;
# here it gets a free port instead, allowed the same way.
rcv_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

export IMAXE_DATABASE_URL=$conninfo
export IMAXE_JWT_SECRET=readme-test-secret-0123456789abcdef0123456789
export IMAXE_ADMIN_EMAIL=admin@imaxe.local IMAXE_ADMIN_PASSWORD=imaxe-demo-admin
export IMAXE_MIGRATIONS_DIR=$src_dir/migrations IMAXE_DB_WAIT_S=10 IMAXE_ACCESS_LOG=0
"$server" migrate >"$tmp/migrate.log" 2>&1 || { cat "$tmp/migrate.log"; fail "migrate"; }
IMAXE_SERVER=$server "$src_dir/tools/demo.sh" >"$tmp/demo.log" 2>&1 || { cat "$tmp/demo.log"; fail "demo.sh"; }

: >"$tmp/server.log"
env IMAXE_PORT=0 IMAXE_BIND=127.0.0.1 IMAXE_WEBHOOK_ALLOW_HOSTS="127.0.0.1:$rcv_port" \
    IMAXE_WEBHOOK_POLL_MS=100 "$server" serve >"$tmp/server.log" 2>&1 &
srv=$!
port=""
for _ in $(seq 1 200); do
    port=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\)\/.*/\1/p' "$tmp/server.log" | head -1 || true)
    [ -n "$port" ] && break
    kill -0 "$srv" 2>/dev/null || { cat "$tmp/server.log"; fail "server exited"; }
    sleep 0.05
done
[ -n "$port" ] || { cat "$tmp/server.log"; fail "server did not listen"; }

# The examples, one file each, with the README line they start on.
python3 - "$src_dir/README.md" "$tmp/blocks" "$port" "$rcv_port" <<'PY'
import os, re, sys
readme, out, port, rcv = sys.argv[1:5]
os.makedirs(out, exist_ok=True)
lines = open(readme, encoding="utf-8").read().split("\n")
n = run = skipped = 0
i = 0
while i < len(lines):
    if lines[i].strip() == "```sh":
        start = i + 1
        j = start
        while lines[j].strip() != "```":
            j += 1
        prev = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
        n += 1
        if prev.strip().startswith("<!-- readme-test: skip"):
            skipped += 1
        else:
            body = "\n".join(lines[start:j])
            body = body.replace("http://127.0.0.1:8080", f"http://127.0.0.1:{port}")
            body = body.replace("127.0.0.1:9000", f"127.0.0.1:{rcv}")
            body = body.replace("/dev/tcp/127.0.0.1/9000", f"/dev/tcp/127.0.0.1/{rcv}")
            with open(os.path.join(out, f"{n:03d}-{start + 1}.sh"), "w") as f:
                f.write(body + "\n")
            run += 1
        i = j
    i += 1
print(f"readme: {n} sh examples, {run} to run, {skipped} skipped")
PY

ln -s "$src_dir/examples" "$tmp/work/examples"
mkdir -p "$tmp/work/tests" && ln -s "$src_dir/tests/data" "$tmp/work/tests/data"
cat >"$tmp/driver.sh" <<'SH'
set -euo pipefail
for block in "$BLOCKS"/*.sh; do
    line=${block##*-}; line=${line%.sh}
    echo "== README.md:$line"
    trap 'echo "FAIL: the README example at README.md:$line exited $? (command: $BASH_COMMAND)" >&2' ERR
    # shellcheck disable=SC1090
    . "$block"
done
echo "readme: every example ran"
SH
cd "$tmp/work"
env PATH="$build:$PATH" XDG_CONFIG_HOME="$tmp/config" BLOCKS="$tmp/blocks" \
    LD_LIBRARY_PATH="$build/tests/nvml-stub" timeout -k 5 300 bash "$tmp/driver.sh"
