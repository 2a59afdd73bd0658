#!/usr/bin/env bash
# The reference data is single-sourced: each generated migration is what its generator makes of
# its CSVs today. migrations/0035_knowledge_facts.sql from tools/reference/knowledge_facts.csv and
# migrations/0056_nccl_rows.sql and 0058_dcgm_rows.sql from tools/reference/nccl.csv and dcgm.csv
# and 0101_nvidia_product_rows.sql from tools/reference/nvidia_products.csv (0300 from
# nvidia_products_0300.csv), 0261_eol_rows.sql from tools/reference/eol.csv and
# 0350_eol_rows_more.sql from tools/reference/eol_0350.csv (0371 from version_alias_0371.csv, 0372 from nvidia_products_0372.csv, 0411 from
# commit_release_0411.csv, 0412 from nvidia_products_0412.csv, 0440 from nvidia_products_0440.csv), 0111-0113, 0220-0221 and 0311-0313
# from tools/reference/sources/ (tools/gen_sources.py), and migrations/0003_reference.sql from
# tools/reference/csv/ (the stored copies of ../shared/data/reference). A difference fails, naming
# the file: regenerate and commit.
set -euo pipefail
cd "$(dirname "$0")/../.."
rc=0
check() { # FILE GENERATOR ARGS...
    local file=$1; shift
    local tmp
    tmp=$(mktemp)
    if ! "$@" --out - > "$tmp" 2> "$tmp.err"; then
        echo "FAIL: $2 failed:" >&2
        cat "$tmp.err" >&2
        rc=1
    elif ! diff -u "$file" "$tmp" > "$tmp.diff"; then
        echo "FAIL: $file differs from what $2 generates (regenerate and commit):" >&2
        head -40 "$tmp.diff" >&2
        rc=1
    else
        echo "ok: $file is what $2 generates"
    fi
    rm -f "$tmp" "$tmp.err" "$tmp.diff"
}
check migrations/0035_knowledge_facts.sql python3 tools/gen_knowledge.py
check migrations/0056_nccl_rows.sql python3 tools/gen_knowledge.py --table nccl
check migrations/0058_dcgm_rows.sql python3 tools/gen_knowledge.py --table dcgm
check migrations/0101_nvidia_product_rows.sql python3 tools/gen_knowledge.py --table nvidia_product
check migrations/0300_nvidia_product_rows_more.sql python3 tools/gen_knowledge.py --table nvidia_product_0300
check migrations/0261_eol_rows.sql python3 tools/gen_knowledge.py --table eol
check migrations/0350_eol_rows_more.sql python3 tools/gen_knowledge.py --table eol_0350
check migrations/0371_version_alias_rows.sql python3 tools/gen_knowledge.py --table version_alias_0371
check migrations/0372_nvidia_product_rows_more.sql python3 tools/gen_knowledge.py --table nvidia_product_0372
check migrations/0411_commit_release_rows.sql python3 tools/gen_knowledge.py --table commit_release_0411
check migrations/0412_nvidia_product_rows_commits.sql python3 tools/gen_knowledge.py --table nvidia_product_0412
check migrations/0440_nvidia_product_rows_more.sql python3 tools/gen_knowledge.py --table nvidia_product_0440
# The tables read whole from stored source copies (tools/reference/sources/).
check migrations/0111_gpu_rows.sql python3 tools/gen_sources.py --table gpu
check migrations/0112_pytorch_arch.sql python3 tools/gen_sources.py --table pytorch_arch
check migrations/0113_cudnn_cc.sql python3 tools/gen_sources.py --table cudnn_cc
check migrations/0115_jax_rows.sql python3 tools/gen_sources.py --table jax
check migrations/0220_pytorch_arch_more.sql python3 tools/gen_sources.py --table pytorch_arch_0220
check migrations/0221_cudnn_cc_more.sql python3 tools/gen_sources.py --table cudnn_cc_0221
check migrations/0311_cudnn_releases.sql python3 tools/gen_sources.py --table cudnn_releases
check migrations/0312_cudnn_cc_sets.sql python3 tools/gen_sources.py --table cudnn_cc_0312
check migrations/0313_cc_rows.sql python3 tools/gen_sources.py --table cuda_cc
# 0003 from the stored copies of the sourced CSVs (tools/reference/csv/): always compared.
check migrations/0003_reference.sql python3 tools/gen_reference.py
# The demo catalog's advisories from the stored copy of advisories.csv (the tool writes stdout).
if ! python3 tools/gen_advisories.py | diff -u tools/demo/advisories.sql - > /dev/null; then
    echo "FAIL: tools/demo/advisories.sql differs from what tools/gen_advisories.py generates" >&2
    rc=1
else
    echo "ok: tools/demo/advisories.sql is what tools/gen_advisories.py generates"
fi
# Its Container Toolkit ranges read NVIDIA's "<= X" as a CSAF import of the same bulletin stores
# it (X and its builds: "<1.16.2dev0"), so that the demo and an import of the real bulletin never
# disagree: each is the line of tests/data/csaf/feed/expected.txt for that bulletin.
seen=0
while IFS='|' read -r id range fixed; do
    seen=$((seen + 1))
    want="  nvidia-container-toolkit $range fixed $fixed"
    if ! awk -v id="$id" '/^NVIDIA-/ { on = ($1 == id) } on' tests/data/csaf/feed/expected.txt |
        grep -qxF -- "$want"; then
        echo "FAIL: tools/demo/advisories.sql has $id $range fixed $fixed; its CSAF import stores otherwise (tests/data/csaf/feed/expected.txt)" >&2
        rc=1
    fi
done < <(sed -nE "s/^  \('(NVIDIA-[0-9]+)', [0-9]+, 'nvidia-container-toolkit', '([^']+)', .*, '([^']+)'::text\),?$/\1|\2|\3/p" tools/demo/advisories.sql)
[ "$seen" -gt 0 ] || { echo "FAIL: no Container Toolkit range found in tools/demo/advisories.sql" >&2; rc=1; }
exit $rc
