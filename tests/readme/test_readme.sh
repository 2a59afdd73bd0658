#!/usr/bin/env bash
# README.md and docs/ run as written: every ```sh example, in order (README.md, then the docs in
# the order of $docs below: state carries on from one file to the next), in one bash session
# with `set -euo pipefail`, against a freshly migrated server loaded with the demo catalog
# (tools/demo.sh), its demo admin the owner of the demo teams as `make run` makes it
# (tools/demo/admin_teams.sql). A docs/ file with a ```sh block that $docs does not list fails
# the test, so a new one is never silently left out. Any non-zero exit fails the test and names the
# file and line of the example. What the test changes, and why (nothing else is touched):
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
# The files whose examples run, in order.
docs=(README.md docs/cli.md docs/api.md docs/operations.md docs/configuration.md docs/design.md
      docs/development.md docs/web.md)
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

# Every docs/*.md with a shell example is in the list.
for f in "$src_dir"/docs/*.md; do
    rel=docs/${f##*/}
    if grep -q '^```sh' "$f" && ! printf '%s\n' "${docs[@]}" | grep -qx "$rel"; then
        fail "$rel holds shell examples but tests/readme/test_readme.sh does not run it (add it to docs=)"
    fi
done

# The Terraform snippet: its shape only.
python3 - "${docs[@]/#/$src_dir/}" <<'PY'
import re, sys
text = "".join(open(f, encoding="utf-8").read() for f in sys.argv[1:])
blocks = re.findall(r"^```hcl\n(.*?)^```", text, re.S | re.M)
assert blocks, "neither README.md nor docs/ has an hcl block"
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
# As make run does once the server has created the demo admin: the owner of the demo teams.
psql --no-psqlrc -X -Atq -v ON_ERROR_STOP=1 "$conninfo" -v email="$IMAXE_ADMIN_EMAIL" \
    -f "$src_dir/tools/demo/admin_teams.sql" >/dev/null || fail "tools/demo/admin_teams.sql"
owned=$(psql --no-psqlrc -X -Atq "$conninfo" -c "SELECT string_agg(t.slug || ':' || m.role, ' ' ORDER BY t.slug)
    FROM memberships m JOIN teams t ON t.id = m.team_id JOIN users u ON u.id = m.user_id
    WHERE u.email = '$IMAXE_ADMIN_EMAIL'")
[ "$owned" = "demo-ml:admin demo-platform:admin demo-research:admin" ] ||
    fail "the demo admin does not own the demo teams: '$owned'"

# The examples, one file each, named by the file and line they start on.
python3 - "$src_dir" "$tmp/blocks" "$port" "$rcv_port" "${docs[@]}" <<'PY'
import os, re, sys
src, out, port, rcv = sys.argv[1:5]
os.makedirs(out, exist_ok=True)
n = run = skipped = 0
for doc in sys.argv[5:]:
  lines = open(os.path.join(src, doc), encoding="utf-8").read().split("\n")
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
              name = doc.replace("/", "_")
              with open(os.path.join(out, f"{n:03d}@{name}@{start + 1}.sh"), "w") as f:
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
    at=${block##*/}; at=${at#*@}; at=${at%.sh}; file=${at%@*}; file=${file/docs_/docs\/}
    at="$file:${at##*@}"
    echo "== $at"
    trap 'echo "FAIL: the example at $at exited $? (command: $BASH_COMMAND)" >&2' ERR
    # shellcheck disable=SC1090
    . "$block"
done
echo "readme: every example ran"
SH
cd "$tmp/work"
env PATH="$build:$PATH" XDG_CONFIG_HOME="$tmp/config" BLOCKS="$tmp/blocks" \
    LD_LIBRARY_PATH="$build/tests/nvml-stub" timeout -k 5 300 bash "$tmp/driver.sh"
