#!/usr/bin/env bash
# Formats the C sources with the repo's .clang-format (`check` only reports).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files -co --exclude-standard -- '*.c' '*.h' | grep -v '^web/vendor/')
[ ${#files[@]} -gt 0 ] || exit 0
if [ "${1:-}" = check ]; then
    clang-format --dry-run --Werror "${files[@]}"
    echo "clang-format: ${#files[@]} files clean"
else
    clang-format -i "${files[@]}"
fi
