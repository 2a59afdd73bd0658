#!/usr/bin/env bash
# Vendors the web UI's few libraries from the npm registry at pinned versions into
# web/vendor/<name>@<version>/ with their licences. The server gives web/vendor/ an immutable
# cache, so a new version must get a new folder: bump the pin, rerun, commit, fix the imports.
set -euo pipefail
cd "$(dirname "$0")/.."

# package  version  files to keep (relative to the package root)
PKGS=(
    "@picocss/pico 2.1.1 css/pico.min.css LICENSE.md"
    "uplot 1.6.32 dist/uPlot.esm.js dist/uPlot.min.css LICENSE"
    "redoc 2.5.2 bundles/redoc.standalone.js bundles/redoc.standalone.js.LICENSE.txt LICENSE"
)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for spec in "${PKGS[@]}"; do
    read -r name version files <<<"$spec"
    short=${name##*/}
    dest="web/vendor/${short}@${version}"
    echo "vendoring ${name}@${version} -> ${dest}"
    (cd "$tmp" && npm pack --silent "${name}@${version}" >/dev/null)
    tarball=$(ls "$tmp"/*.tgz)
    mkdir -p "$tmp/x" && tar -xzf "$tarball" -C "$tmp/x"
    rm -rf "$dest" && mkdir -p "$dest"
    for f in $files; do
        mkdir -p "$dest/$(dirname "$f")"
        cp "$tmp/x/package/$f" "$dest/$f"
    done
    printf '%s@%s from the npm registry (%s)\n' "$name" "$version" "$(sha256sum "$tarball" | cut -d' ' -f1)" >"$dest/VENDORED.txt"
    if [ "$name" = redoc ]; then
        # The one request Redoc makes off the origin (its footer logo, from a CDN) goes to a local
        # image instead: the reference works offline and under a CSP of 'self'.
        sed -i 's#https://cdn.redoc.ly/redoc/logo-mini.svg#/docs/renderer-mark.svg#' \
            "$dest/bundles/redoc.standalone.js"
        ! grep -q 'cdn\.redoc\.ly' "$dest/bundles/redoc.standalone.js"
        echo "patched: the footer logo URL https://cdn.redoc.ly/redoc/logo-mini.svg -> /docs/renderer-mark.svg" >>"$dest/VENDORED.txt"
    fi
    rm -rf "$tmp/x" "$tarball"
done
