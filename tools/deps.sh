#!/usr/bin/env bash
# Installs the Debian 12 packages imaxe needs to build, run and test (when root), or prints the
# exact apt-get line to run (when not). `tools/deps.sh run` checks only what `make run` needs.
set -euo pipefail

run_pkgs=(cmake make gcc pkg-config python3 python3-yaml
    libmicrohttpd-dev libjansson-dev libjwt-dev libcurl4-openssl-dev libpq-dev libssl-dev
    libsodium-dev libsystemd-dev postgresql-15 postgresql-client-15 curl ca-certificates)
# systemd: systemd-analyze checks deploy/imaxe.service; dpkg-dev: cpack's dpkg-shlibdeps.
test_pkgs=(libcmocka-dev clang-format prometheus npm systemd dpkg-dev)

want=("${run_pkgs[@]}")
if [ "${1:-}" != run ]; then want+=("${test_pkgs[@]}"); fi

missing=()
for p in "${want[@]}"; do
    # npm may come with a Node.js installed outside Debian's packages.
    if [ "$p" = npm ] && command -v npm >/dev/null 2>&1; then continue; fi
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
    echo "imaxe needs these Debian packages; install them, then run make again:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
echo "Installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
