#!/usr/bin/env bash
# Backs up the imaxe database to FILE with pg_dump's custom format (one consistent snapshot, so
# it is safe while the servers keep writing). Restore with restore.sh.
#   IMAXE_DATABASE_URL=postgresql://... backup.sh /var/backups/imaxe-$(date +%F).dump
# The URL may instead be in the file named by IMAXE_DATABASE_URL_FILE, as for the server.
set -euo pipefail

usage() { echo "usage: backup.sh FILE   (IMAXE_DATABASE_URL or IMAXE_DATABASE_URL_FILE set)" >&2; exit 2; }
[ $# -eq 1 ] && [ -n "$1" ] || usage
out=$1

url=${IMAXE_DATABASE_URL:-}
if [ -z "$url" ] && [ -n "${IMAXE_DATABASE_URL_FILE:-}" ]; then
    url=$(head -c 8192 "$IMAXE_DATABASE_URL_FILE" | tr -d '\r\n')
fi
[ -n "$url" ] || usage
command -v pg_dump >/dev/null || { echo "backup.sh: pg_dump not found (apt-get install postgresql-client-15)" >&2; exit 1; }

# Written next to the target and renamed when complete: FILE is never a partial dump.
tmp=$(mktemp "$(dirname -- "$out")/.imaxe-backup.XXXXXX")
trap 'rm -f -- "$tmp"' EXIT
pg_dump --format=custom --compress=6 --no-password --dbname="$url" --file="$tmp"
# A dump pg_restore cannot list is not a backup.
pg_restore --list "$tmp" >/dev/null
chmod 600 "$tmp"
mv -f -- "$tmp" "$out"
trap - EXIT
echo "backup.sh: wrote $out ($(stat -c %s -- "$out") bytes)"
