#!/usr/bin/env bash
# Builds the Debian package the way a release would (build-pkg/, installed-path defaults,
# prefix /usr) with `cpack -G DEB`, then checks its contents, its dependencies and that the
# server inside looks for its data under /usr/share/imaxe. Part of `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
fail=0
bad() { echo "package-check: FAIL: $*" >&2; fail=1; }

# No tests in a release build: the package holds the server, the CLI and their data only.
cmake -S . -B build-pkg -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
    -DIMX_INSTALL_LAYOUT=ON -DIMX_BUILD_TESTS=OFF >/dev/null
cmake --build build-pkg -j"$JOBS" >/dev/null
rm -f build-pkg/imaxe_*.deb
out=$(cd build-pkg && cpack -G DEB 2>&1) || { printf '%s\n' "$out" >&2; exit 1; }
deb=$(ls build-pkg/imaxe_*.deb)
echo "package: $deb"

contents=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|')
want=(
    /usr/bin/imaxe-server
    /usr/bin/imaxe
    /usr/share/man/man1/imaxe.1
    /usr/share/bash-completion/completions/imaxe
    /usr/share/zsh/vendor-completions/_imaxe
    /usr/lib/systemd/system/imaxe.service
    /usr/lib/systemd/system/imaxe-advisories.service
    /usr/lib/systemd/system/imaxe-advisories.timer
    /usr/share/imaxe/openapi.json
    /usr/share/imaxe/backup.sh
    /usr/share/imaxe/restore.sh
    /usr/share/doc/imaxe/imaxe.env.example
    /usr/share/doc/imaxe/README.md
)
# The re-applied SQL files and the former checksums too: a server without them cannot migrate.
for m in migrations/*.sql migrations/functions/*.sql migrations/procedures/*.sql \
    migrations/former_checksums; do want+=("/usr/share/imaxe/$m"); done
if [ -d web ]; then
    while IFS= read -r f; do want+=("/usr/share/imaxe/$f"); done < <(git ls-files web)
fi
for f in "${want[@]}"; do
    grep -qxF "$f" <<<"$contents" || bad "$f is not in the package"
done
# Nothing from the build or source tree leaks in.
if grep -E '/(build|tests|server)/|\.c$|\.o$' <<<"$contents"; then bad "build or source files in the package"; fi

depends=$(dpkg-deb -f "$deb" Depends)
for lib in libmicrohttpd12 libpq5 libjansson4 libsystemd0 libcurl4; do
    grep -q "$lib" <<<"$depends" || bad "Depends lacks $lib ($depends)"
done

# The packaged server finds its data where the package puts it, not in this checkout.
x=$(mktemp -d)
trap 'rm -rf "$x"' EXIT
dpkg-deb -x "$deb" "$x"
for p in /usr/share/imaxe/migrations /usr/share/imaxe/web /usr/share/imaxe/openapi.json; do
    grep -qaF "$p" "$x/usr/bin/imaxe-server" || bad "imaxe-server does not default to $p"
done
grep -qaF "$PWD" "$x/usr/bin/imaxe-server" && bad "imaxe-server refers to the build checkout $PWD"
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$x/usr/share/imaxe/openapi.json" ||
    bad "openapi.json does not parse"
"$x/usr/bin/imaxe-server" version | grep -q '^imaxe-server ' || bad "imaxe-server version"
"$x/usr/bin/imaxe" version | grep -q '^imaxe ' || bad "imaxe version"
grep -q '^\.SH EXIT STATUS' "$x/usr/share/man/man1/imaxe.1" || bad "the man page has no EXIT STATUS"

if [ $fail -eq 0 ]; then
    echo "package: $(wc -l <<<"$contents") entries, ${#want[@]} expected files present; Depends: $depends"
fi
exit $fail
