#!/usr/bin/env python3
"""Generate migrations/0035_knowledge_facts.sql from tools/reference/knowledge_facts.csv.

knowledge_facts.csv is frozen with 0035 (applied history: any change to the CSV changes the
generated file, whose header carries the CSV's sha256). Facts found later go to a new CSV,
tools/reference/knowledge_facts_NNNN.csv, generated with --src and --out into the next
migration, migrations/NNNN_knowledge_facts.sql, and listed in tests/reference/test_generated.sh.

Usage:  tools/gen_knowledge.py [--src CSV] [--out FILE]   ('-' writes to standard output)
        tools/gen_knowledge.py --table nccl|dcgm|nvidia_product|nvidia_product_0300|eol|eol_0350|
                                  version_alias_0371|nvidia_product_0372|commit_release_0411|
                                  nvidia_product_0412|nvidia_product_0440
                                  [--src CSV] [--out FILE]
                                  (migrations/0056_nccl_rows.sql from tools/reference/nccl.csv,
                                   migrations/0058_dcgm_rows.sql from tools/reference/dcgm.csv,
                                   migrations/0101_nvidia_product_rows.sql from
                                   tools/reference/nvidia_products.csv,
                                   migrations/0300_nvidia_product_rows_more.sql from
                                   tools/reference/nvidia_products_0300.csv (new keys only),
                                   migrations/0261_eol_rows.sql from tools/reference/eol.csv,
                                   migrations/0350_eol_rows_more.sql from
                                   tools/reference/eol_0350.csv: rows new or replacing,
                                   migrations/0371_version_alias_rows.sql from
                                   tools/reference/version_alias_0371.csv,
                                   migrations/0372_nvidia_product_rows_more.sql from
                                   tools/reference/nvidia_products_0372.csv (new keys only),
                                   migrations/0411_commit_release_rows.sql from
                                   tools/reference/commit_release_0411.csv,
                                   migrations/0412_nvidia_product_rows_commits.sql from
                                   tools/reference/nvidia_products_0412.csv (new keys only),
                                   migrations/0440_nvidia_product_rows_more.sql from
                                   tools/reference/nvidia_products_0440.csv (new keys only))

Facts added after migration 0016, one cell a line: table, key (the row's primary key), column,
value, status (CONFIRMED / SECONDARY / UNCONFIRMED), source (an https URL) and notes. A
CONFIRMED or SECONDARY fact sets the cell and appends its source and a note naming the column,
the value and its status to the row's source and notes; an UNCONFIRMED fact (no value) changes
nothing and is listed in the migration header, so what is not known stays visible without being
guessed. Rows must exist (the UPDATE says how many it changed through a check). Deterministic:
the same CSV gives byte-identical SQL; tests (reference.generated) compare it with the committed
file. Values reach the SQL through tools/gen_reference.py's quoting functions. See
tools/README-reference.md.
"""

import argparse
import csv
import datetime
import hashlib
import io
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_reference import DataError, sql_date, sql_text  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SRC = os.path.join(REPO, 'tools', 'reference', 'knowledge_facts.csv')
DEFAULT_OUT = os.path.join(REPO, 'migrations', '0035_knowledge_facts.sql')

VERSION = re.compile(r'^[0-9]{1,9}([.][0-9]{1,9}){0,5}$')
DATE = re.compile(r'^[0-9]{4}-[0-9]{2}-[0-9]{2}$')

# table -> (key column, key parser, {column: value kind}): only these cells can be set.
TABLES = {
    'ref_driver_branch': ('branch', 'int', {
        'latest_version': 'version', 'latest_version_date': 'date', 'native_cuda': 'version',
        'first_release': 'date'}),
    'ref_cudnn': ('cudnn_version', 'version', {
        'cc_min': 'version', 'cc_max': 'version', 'cuda12_max': 'version',
        'cuda13_max': 'version'}),
}
STATUSES = ('CONFIRMED', 'SECONDARY', 'UNCONFIRMED')

# Whole tables added after 0035 (0035 is applied history, so it is never regenerated with more):
# name -> (CSV, migration, the ref_ table, its columns in the CSV's order, as in the import's
# and `imaxe-server reference export`'s files). Each row is one INSERT; the schema is the
# hand-written migration before it.
ROW_TABLES = {
    'nccl': ('nccl.csv', '0056_nccl_rows.sql', 'ref_nccl',
             ['nccl_version', 'cuda_majors', 'cuda_builds', 'status', 'source', 'notes']),
    'dcgm': ('dcgm.csv', '0058_dcgm_rows.sql', 'ref_dcgm',
             ['dcgm_version', 'driver_branch_min', 'driver_min', 'status', 'source', 'notes']),
    'nvidia_product': ('nvidia_products.csv', '0101_nvidia_product_rows.sql', 'ref_nvidia_product',
                       ['match', 'platform', 'component', 'branched', 'status', 'source', 'notes']),
    'eol': ('eol.csv', '0261_eol_rows.sql', 'ref_eol',
            ['kind', 'component', 'release', 'eol', 'basis', 'status', 'source', 'notes']),
    # Rows added after 0101 was applied (0101 is history: its CSV is frozen with it). Each key
    # is new (checked against the CSVs before it), and a row an admin's reference import already
    # holds is kept (ON CONFLICT DO NOTHING): that import was deliberate.
    'nvidia_product_0300': ('nvidia_products_0300.csv', '0300_nvidia_product_rows_more.sql',
                            'ref_nvidia_product',
                            ['match', 'platform', 'component', 'branched', 'status', 'source',
                             'notes']),
    # Components named by commit (webdataset, nvtabular, transformers4rec, bionemo-framework) where
    # an image carries them, Apex and Isaac Launchable left out for a stated reason, and the vGPU
    # manager and guest driver on the platforms 0101 left without a row (new keys only).
    'nvidia_product_0412': ('nvidia_products_0412.csv', '0412_nvidia_product_rows_commits.sql',
                            'ref_nvidia_product',
                            ['match', 'platform', 'component', 'branched', 'status', 'source',
                             'notes']),
    # eol.csv is frozen with 0261 (applied history); dates read later go here, each row new or
    # replacing its key's row of an earlier file (RHEL and Rocky 9, undated in 0261).
    'eol_0350': ('eol_0350.csv', '0350_eol_rows_more.sql', 'ref_eol',
                 ['kind', 'component', 'release', 'eol', 'basis', 'status', 'source', 'notes']),
    # A component's own version -> the release the catalog records (Triton server 2.40.0 = NGC
    # container 23.11), read by the CSAF import; the CSV is what tools/triton_releases.py reads
    # from the server repository's release branches (schema in 0370).
    # nvJPEG2000, nvTIFF and NemoClaw on the platforms an image carries them (new keys: their
    # 'any' rows of 0300 keep answering for Windows and macOS).
    'nvidia_product_0372': ('nvidia_products_0372.csv', '0372_nvidia_product_rows_more.sql',
                            'ref_nvidia_product',
                            ['match', 'platform', 'component', 'branched', 'status', 'source',
                             'notes']),
    # Products a GPU image or NGC container carries that no bulletin of the 2022-2026 feed named
    # yet (NCCL, cuDNN, cuBLAS, Nsight, NeMo Guardrails, cuOpt, DeepStream, Fabric Manager, NIM
    # for LLMs, Megatron Core, libnvidia-container), and the cluster parts beside them, so a new
    # bulletin about one maps or is left out for a stated reason (tools/csaf_generalise.py).
    'nvidia_product_0440': ('nvidia_products_0440.csv', '0440_nvidia_product_rows_more.sql',
                            'ref_nvidia_product',
                            ['match', 'platform', 'component', 'branched', 'status', 'source',
                             'notes']),
    'version_alias_0371': ('version_alias_0371.csv', '0371_version_alias_rows.sql',
                           'ref_version_alias',
                           ['component', 'version', 'release', 'status', 'source', 'notes']),
    # A component's code commit -> the first release containing it (none: as of the snapshot date),
    # for bulletins that name their fix by commit; the CSV is what tools/commit_releases.py reads
    # from the component's repository (schema in 0410).
    'commit_release_0411': ('commit_release_0411.csv', '0411_commit_release_rows.sql',
                            'ref_commit_release',
                            ['component', 'commit', 'release', 'as_of', 'status', 'source',
                             'notes']),
}
# Tables whose rows continue another's: name -> the earlier CSVs, whose keys they may not repeat.
CONTINUES = {'nvidia_product_0300': ['nvidia_products.csv'],
             'nvidia_product_0372': ['nvidia_products.csv', 'nvidia_products_0300.csv'],
             'nvidia_product_0412': ['nvidia_products.csv', 'nvidia_products_0300.csv',
                                     'nvidia_products_0372.csv'],
             'nvidia_product_0440': ['nvidia_products.csv', 'nvidia_products_0300.csv',
                                     'nvidia_products_0372.csv']}
# Tables keyed by more than their first column: how many leading columns make the key.
KEY_WIDTH = {'nvidia_product': 2, 'eol': 3, 'nvidia_product_0300': 2, 'eol_0350': 3,
             'version_alias_0371': 2, 'nvidia_product_0372': 2, 'nvidia_product_0440': 2,
             'commit_release_0411': 2, 'nvidia_product_0412': 2}
# Tables whose rows replace an earlier migration's row of the same key (an upsert), rather than
# only adding rows.
UPSERT = {'eol_0350'}
MATCH = re.compile(r'^(cpe|cpe-prefix|name):[a-z0-9_ .+-]{1,120}$')
PLATFORMS = ('any', 'linux', 'windows', 'macos', 'vgpu-host', 'vgpu-guest', 'cloud-gaming',
             'jetson')
COMPONENT = re.compile(r'^[a-z0-9][a-z0-9._+-]{0,63}$')
MAJORS = re.compile(r'^[{]([0-9]{1,2})(,[0-9]{1,2}){0,3}[}]$')
BUILDS = re.compile(r'^[0-9]{1,3}[.][0-9]{1,3}(, [0-9]{1,3}[.][0-9]{1,3}){0,15}$')
MAJOR_MINOR = re.compile(r'^[0-9]{1,3}[.][0-9]{1,3}$')


def nccl_values(r, where):
    """One ref_nccl row's SQL values (checked as the table's CHECKs would)."""
    if not VERSION.match(r['nccl_version']):
        fail(where, 'not a dotted version: %r' % r['nccl_version'])
    if not MAJORS.match(r['cuda_majors']):
        fail(where, 'cuda_majors must be like {11,12}: %r' % r['cuda_majors'])
    if not BUILDS.match(r['cuda_builds']):
        fail(where, 'cuda_builds must be like "12.9, 13.3": %r' % r['cuda_builds'])
    majors = set(int(x) for x in r['cuda_majors'].strip('{}').split(','))
    built = set(int(b.split('.')[0]) for b in r['cuda_builds'].split(', '))
    if majors != built:
        fail(where, 'cuda_majors %s are not the majors of cuda_builds %s' %
             (r['cuda_majors'], r['cuda_builds']))
    return [sql_text(r['nccl_version']), sql_text(r['cuda_majors']) + '::int[]',
            sql_text(r['cuda_builds'])]


def dcgm_values(r, where):
    """One ref_dcgm row's SQL values: a major.minor, a branch, and that branch's exact minimum
    when the notes give one."""
    if not MAJOR_MINOR.match(r['dcgm_version']):
        fail(where, 'dcgm_version must be a major.minor: %r' % r['dcgm_version'])
    if not re.fullmatch(r'[0-9]{1,4}', r['driver_branch_min']):
        fail(where, 'driver_branch_min must be a branch number: %r' % r['driver_branch_min'])
    if r['driver_min']:
        if not VERSION.match(r['driver_min']):
            fail(where, 'not a dotted version: %r' % r['driver_min'])
        if r['driver_min'].split('.')[0] != r['driver_branch_min']:
            fail(where, 'driver_min %s is not on branch R%s' % (r['driver_min'],
                                                               r['driver_branch_min']))
    return [sql_text(r['dcgm_version']), r['driver_branch_min'],
            sql_text(r['driver_min']) if r['driver_min'] else 'NULL']


def nvidia_product_values(r, where):
    """One ref_nvidia_product row: how the product is found, its platform, its component (empty:
    not tracked, the notes say why) and whether its ranges are bounded by their branch."""
    if not MATCH.match(r['match']):
        fail(where, 'match must be cpe:PRODUCT, cpe-prefix:PREFIX or name:NAME: %r' % r['match'])
    if r['platform'] not in PLATFORMS:
        fail(where, 'platform must be one of ' + ', '.join(PLATFORMS))
    if r['component'] and not COMPONENT.match(r['component']):
        fail(where, 'not a component name: %r' % r['component'])
    if r['branched'] not in ('true', 'false'):
        fail(where, 'branched must be true or false')
    if not r['notes']:
        fail(where, 'notes must say what the product is, or why it is not tracked')
    return [sql_text(r['match']), sql_text(r['platform']),
            sql_text(r['component']) if r['component'] else 'NULL', r['branched']]


def eol_values(r, where):
    """One ref_eol row: an OS release (os-release ID and VERSION_ID prefix) or a component's
    major.minor, its end of life and whose date it is; an UNCONFIRMED row has no date."""
    if r['kind'] not in ('os', 'component'):
        fail(where, 'kind must be os or component')
    if not COMPONENT.match(r['component']):
        fail(where, 'not a component or os-release ID: %r' % r['component'])
    if not VERSION.match(r['release']):
        fail(where, 'not a dotted release: %r' % r['release'])
    if r['basis'] not in ('upstream', 'endoflife.date', 'aws-dlc'):
        fail(where, 'basis must be upstream, endoflife.date or aws-dlc')
    if (r['status'] == 'UNCONFIRMED') != (r['eol'] == ''):
        fail(where, 'an UNCONFIRMED row has no date, and only it')
    if r['eol'] and not DATE.match(r['eol']):
        fail(where, 'eol must be YYYY-MM-DD: %r' % r['eol'])
    if not r['notes']:
        fail(where, 'notes must say what the date means')
    return [sql_text(r['kind']), sql_text(r['component']), sql_text(r['release']),
            sql_date(datetime.date.fromisoformat(r['eol'])) if r['eol'] else 'NULL', sql_text(r['basis'])]


def version_alias_values(r, where):
    """One ref_version_alias row: a component, its own version and the release standing for it."""
    if not COMPONENT.match(r['component']):
        fail(where, 'not a component name: %r' % r['component'])
    for col in ('version', 'release'):
        if not VERSION.match(r[col]):
            fail(where, '%s: not a dotted version: %r' % (col, r[col]))
    if not r['notes']:
        fail(where, 'notes must say where the pair was read')
    return [sql_text(r['component']), sql_text(r['version']), sql_text(r['release'])]


def commit_release_values(r, where):
    """One ref_commit_release row: a component, a full commit id, the first release containing it
    (empty: none as of as_of) and the date the repository was read."""
    if not COMPONENT.match(r['component']):
        fail(where, 'not a component name: %r' % r['component'])
    if not re.fullmatch(r'[0-9a-f]{40}', r['commit']):
        fail(where, 'commit must be a full 40-digit commit id: %r' % r['commit'])
    if r['release'] and not VERSION.match(r['release']):
        fail(where, 'release: not a dotted version: %r' % r['release'])
    if not DATE.match(r['as_of']):
        fail(where, 'as_of: not a YYYY-MM-DD date: %r' % r['as_of'])
    if not r['notes']:
        fail(where, 'notes must say how the release was read')
    return [sql_text(r['component']), sql_text(r['commit']),
            sql_text(r['release']) if r['release'] else 'NULL',
            sql_date(datetime.date.fromisoformat(r['as_of']))]


ROW_VALUES = {'commit_release_0411': commit_release_values,
              'nvidia_product_0412': nvidia_product_values,
              'version_alias_0371': version_alias_values, 'nccl': nccl_values, 'dcgm': dcgm_values, 'nvidia_product': nvidia_product_values,
              'eol': eol_values, 'nvidia_product_0300': nvidia_product_values,
              'nvidia_product_0372': nvidia_product_values,
              'nvidia_product_0440': nvidia_product_values,
              'eol_0350': eol_values}


def fail(where, msg):
    raise DataError('%s: %s' % (where, msg))


def literal(kind, v, where):
    if kind == 'version':
        if not VERSION.match(v):
            fail(where, 'not a dotted version: %r' % v)
        return sql_text(v)
    if kind == 'date':
        if not DATE.match(v):
            fail(where, 'not a YYYY-MM-DD date: %r' % v)
        return sql_date(datetime.date.fromisoformat(v))
    if kind == 'int':
        if not re.fullmatch(r'[0-9]{1,9}', v):
            fail(where, 'not an integer: %r' % v)
        return v
    fail(where, 'unknown kind %r' % kind)


def generate(src):
    raw = open(src, 'rb').read()
    rows = list(csv.DictReader(io.StringIO(raw.decode('utf-8'))))
    want = ['table', 'key', 'column', 'value', 'status', 'source', 'notes']
    if not rows or list(rows[0].keys()) != want:
        fail(src, 'columns must be ' + ','.join(want))
    applied, left_out = [], []
    for n, r in enumerate(rows, start=2):
        where = '%s:%d' % (os.path.basename(src), n)
        if r['table'] not in TABLES:
            fail(where, 'unknown table %r' % r['table'])
        key_col, key_kind, cols = TABLES[r['table']]
        if r['column'] not in cols:
            fail(where, '%s.%s cannot be set here' % (r['table'], r['column']))
        if r['status'] not in STATUSES:
            fail(where, 'status must be one of ' + ', '.join(STATUSES))
        if not r['source'].startswith('https://'):
            fail(where, 'source must be an https URL')
        key = literal(key_kind, r['key'], where)
        if r['status'] == 'UNCONFIRMED':
            if r['value']:
                fail(where, 'an UNCONFIRMED fact has no value')
            left_out.append('%s %s %s: %s (%s)' % (r['table'], r['key'], r['column'],
                                                  r['notes'], r['source']))
            continue
        value = literal(cols[r['column']], r['value'], where)
        note = '%s = %s (%s, %s): %s' % (r['column'], r['value'], r['status'], r['source'],
                                         r['notes'])
        applied.append(
            'DO $$ BEGIN\n'
            '  UPDATE %s SET %s = %s,\n'
            '    source = CASE WHEN position(%s IN source) > 0 THEN source ELSE source || \' ; \' || %s END,\n'
            '    notes = concat_ws(\'; \', notes, %s)\n'
            '   WHERE %s = %s;\n'
            '  IF NOT FOUND THEN RAISE EXCEPTION \'%s: no %s row %s\'; END IF;\n'
            'END $$;\n' % (r['table'], r['column'], value, sql_text(r['source']),
                           sql_text(r['source']), sql_text(note), key_col, key, where,
                           r['table'], r['key'].replace("'", "")))
    out = ['-- GENERATED by tools/gen_knowledge.py from tools/reference/%s' % os.path.basename(src),
           '-- (sha256 %s). Do not edit: change the CSV and regenerate.' % hashlib.sha256(raw).hexdigest(),
           '-- Facts found after migration 0016, each from its source with its status; the',
           '-- validator never turns a stack into an error on an unconfirmed fact.',
           '--',
           '-- Left out (UNCONFIRMED: no primary source gave a value):']
    out += ['--   ' + x for x in left_out] or ['--   none']
    out.append('')
    return '\n'.join(out) + '\n' + '\n'.join(applied)


def generate_rows(name, src):
    """The INSERTs of a ROW_TABLES table from its CSV, each row's values checked here as the
    table's CHECKs would, so a bad cell stops the generator naming its line."""
    _, out_name, table, cols = ROW_TABLES[name]
    raw = open(src, 'rb').read()
    rows = list(csv.DictReader(io.StringIO(raw.decode('utf-8'))))
    if not rows or list(rows[0].keys()) != cols:
        fail(src, 'columns must be ' + ','.join(cols))
    seen = set()
    for earlier in CONTINUES.get(name, []):
        with open(os.path.join(REPO, 'tools', 'reference', earlier), encoding='utf-8') as f:
            for r in csv.DictReader(f):
                seen.add(tuple(r[c] for c in cols[:KEY_WIDTH.get(name, 1)]))
    values = []
    for n, r in enumerate(rows, start=2):
        where = '%s:%d' % (os.path.basename(src), n)
        key = tuple(r[c] for c in cols[:KEY_WIDTH.get(name, 1)])
        if key in seen:
            fail(where, 'a second row for %s' % '/'.join(key))
        seen.add(key)
        own = ROW_VALUES[name](r, where)
        if r['status'] not in STATUSES:
            fail(where, 'status must be one of ' + ', '.join(STATUSES))
        if not r['source'].startswith('https://'):
            fail(where, 'source must be an https URL')
        values.append('  (%s)' % ', '.join(
            own + [sql_text(r['status']), sql_text(r['source']),
                   sql_text(r['notes']) if r['notes'] else 'NULL']))
    out = ['-- GENERATED by tools/gen_knowledge.py --table %s from tools/reference/%s' %
           (name, os.path.basename(src)),
           '-- (sha256 %s). Do not edit: change the CSV and regenerate.' % hashlib.sha256(raw).hexdigest(),
           ('-- More rows of %s, each new or replacing an earlier row of its key, with its source' % table
            if name in UPSERT else
            '-- More rows of %s (schema in 0100; the first rows in 0101), each with its source' % table
            if name in CONTINUES else
            '-- The rows of %s (schema in the migration before this one), each with its source' % table),
           '-- and status; the validator never turns a stack into an error on an unconfirmed row.',
           '',
           'INSERT INTO %s (%s) VALUES' % (table, ', '.join(cols)),
           ',\n'.join(values) + (
               '\nON CONFLICT DO NOTHING;' if name in CONTINUES else '' if name in UPSERT else ';')]
    if name in UPSERT:
        width = KEY_WIDTH.get(name, 1)
        out.append('ON CONFLICT (%s) DO UPDATE SET %s;' % (
            ', '.join(cols[:width]),
            ', '.join('%s = EXCLUDED.%s' % (c, c) for c in cols[width:])))
    out.append('')
    return '\n'.join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--table', choices=sorted(ROW_TABLES))
    ap.add_argument('--src')
    ap.add_argument('--out')
    a = ap.parse_args(argv)
    try:
        if a.table:
            csv_name, out_name = ROW_TABLES[a.table][0], ROW_TABLES[a.table][1]
            a.src = a.src or os.path.join(REPO, 'tools', 'reference', csv_name)
            a.out = a.out or os.path.join(REPO, 'migrations', out_name)
            sql = generate_rows(a.table, a.src)
        else:
            a.src = a.src or DEFAULT_SRC
            a.out = a.out or DEFAULT_OUT
            sql = generate(a.src)
    except DataError as e:
        print('gen_knowledge: %s' % e, file=sys.stderr)
        return 1
    if a.out == '-':
        sys.stdout.write(sql)
    else:
        with open(a.out, 'w') as f:
            f.write(sql)
    return 0


if __name__ == '__main__':
    sys.exit(main())
