#!/bin/sh
# unit.csaf_ranges: every product_status entry of the feed's products that map
# (tests/data/csaf/feed), with the grammar's parse and the range the import stores, against the
# reviewed table tests/data/csaf/feed/ranges.txt. IMX_CSAF_RANGES=write rewrites the table from
# what the import gives, to be reviewed as a diff.
#   tests/csaf/test_ranges.sh BUILD/tests/csaf_ranges SOURCE_DIR
set -eu
tool=$1
src=$2
feed=$src/tests/data/csaf/feed
map=$src/tools/reference/nvidia_products.csv,$src/tools/reference/nvidia_products_0300.csv
map=$map,$src/tools/reference/nvidia_products_0372.csv,$src/tools/reference/nvidia_products_0440.csv
map=$map,$src/tools/reference/version_alias_0371.csv
map=$map,$src/tools/reference/nvidia_products_0412.csv,$src/tools/reference/commit_release_0411.csv
got=$(mktemp)
trap 'rm -f "$got"' EXIT
# shellcheck disable=SC2046 # the bulletins' paths have no blanks
"$tool" --tracked "$map" $(find "$feed" -name '[0-9]*.json' | LC_ALL=C sort) >"$got"
if [ "${IMX_CSAF_RANGES:-}" = write ]; then
    cat "$got" >"$feed/ranges.txt"
fi
if ! diff -u "$feed/ranges.txt" "$got"; then
    echo "ranges.txt differs from what the import stores (IMX_CSAF_RANGES=write rewrites it)" >&2
    exit 1
fi
echo "$(wc -l <"$got") product_status entries of products that map, as ranges.txt reviews them"
