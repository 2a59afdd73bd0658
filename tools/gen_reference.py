#!/usr/bin/env python3
"""Generate migrations/0003_reference.sql from the sourced GPU-stack CSVs.

Usage:  tools/gen_reference.py [--src DIR] [--out FILE]

  --src  directory holding the reference CSVs
         (default: tools/reference/csv, the stored copies of ../shared/data/reference)
  --out  output file (default: migrations/0003_reference.sql in the repository);
         '-' writes to standard output

Python 3 standard library only.  The output is deterministic: running the
script twice over the same CSVs gives byte-identical SQL.

Every free-text CSV cell that feeds a typed column goes through a parser that
either returns a clean value, returns None for an UNCONFIRMED/absent value, or
raises.  Anything the parsers do not recognise stops the generator, so a
changed CSV cannot slip odd values into the migration silently.  Rows whose
status (or essential fact) is UNCONFIRMED are left out; the list of left-out
rows is printed on stderr and recorded in the migration header.

See tools/README-reference.md.
"""

import argparse
import csv
import datetime
import decimal
import hashlib
import io
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The stored copies of the sourced CSVs (copied from ../shared/data/reference, which is where they
# were gathered): the repository regenerates 0003 from its own copies, so the drift test always runs.
DEFAULT_SRC = os.path.join(REPO, 'tools', 'reference', 'csv')
DEFAULT_OUT = os.path.join(REPO, 'migrations', '0003_reference.sql')

INPUTS = ['cuda_driver.csv', 'gpu_arch_matrix.csv', 'gpu_arch.csv',
          'driver_branches.csv', 'cudnn_cuda.csv', 'pytorch_cuda.csv',
          'tensorflow_cuda.csv', 'aws_gpu_instances.csv']

STATUSES = ('CONFIRMED', 'SECONDARY', 'PARTIAL')
STATUS_RANK = {'CONFIRMED': 0, 'SECONDARY': 1, 'PARTIAL': 2}


class DataError(Exception):
    pass


def fail(where, msg):
    raise DataError('%s: %s' % (where, msg))


# ---------------------------------------------------------------------------
# SQL literals.  Never trust CSV text: every value is rendered by one of these.
# ---------------------------------------------------------------------------

def sql_text(v):
    if v is None:
        return 'NULL'
    if not isinstance(v, str):
        raise TypeError('sql_text wants str, got %r' % (v,))
    if '\x00' in v:
        raise DataError('NUL byte in text value %r' % (v,))
    body = v.replace("'", "''")
    if '\\' in body:
        # E'' form: correct whatever standard_conforming_strings says.
        return "E'" + body.replace('\\', '\\\\') + "'"
    return "'" + body + "'"


def sql_int(v):
    if v is None:
        return 'NULL'
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError('sql_int wants int, got %r' % (v,))
    return str(v)


def sql_num(v):
    if v is None:
        return 'NULL'
    if not isinstance(v, decimal.Decimal) or not v.is_finite():
        raise TypeError('sql_num wants a finite Decimal, got %r' % (v,))
    s = format(v, 'f')
    if not re.fullmatch(r'-?[0-9]+(\.[0-9]+)?', s):
        raise DataError('bad numeric %r' % (v,))
    return s


def sql_date(v):
    if v is None:
        return 'NULL'
    if not isinstance(v, datetime.date):
        raise TypeError('sql_date wants a date, got %r' % (v,))
    return "DATE '%s'" % v.isoformat()


def sql_bool(v):
    if v is None:
        return 'NULL'
    return 'true' if v else 'false'


def sql_array(values, elem, sqltype):
    if values is None:
        return 'NULL'
    if not values:
        return "'{}'::%s" % sqltype
    return 'ARRAY[%s]::%s' % (', '.join(elem(x) for x in values), sqltype)


def sql_text_array(values):
    return sql_array(values, sql_text, 'text[]')


def sql_int_array(values):
    return sql_array(values, sql_int, 'int[]')


def sql_num_array(values):
    return sql_array(values, sql_num, 'numeric[]')


# ---------------------------------------------------------------------------
# Value parsers
# ---------------------------------------------------------------------------

_VER_NUM = re.compile(r'^[vV]?([0-9]{1,9}(?:[.-][0-9]{1,9})*)(.*)$', re.S)


def version_key(v):
    """Python mirror of imx_version_key() in migrations/0001_foundation.sql."""
    m = _VER_NUM.match(v)
    if not m:
        return None
    parts = [int(p) for p in re.split(r'[.-]', m.group(1))]
    rest = m.group(2)
    if (len(v) > 64 or len(parts) > 6 or re.match(r'^[0-9]', rest)
            or not re.fullmatch(r'[A-Za-z0-9.+_~-]*', rest)):
        return None
    return parts + [0] * (6 - len(parts))


def is_unconfirmed(s):
    return s.strip().upper().startswith('UNCONFIRMED')


def clean(s):
    """Strip a cell; '' -> None."""
    s = (s or '').strip()
    return s or None


def ver(where, s, allow_none=True):
    """A plain version string ('12.4.1', '550.54.15'), or None when absent/UNCONFIRMED."""
    s = clean(s)
    if s is None or is_unconfirmed(s) or s.upper() in ('N/A', 'NONE', '-', '--'):
        if allow_none:
            return None
        fail(where, 'version missing')
    if not re.fullmatch(r'[0-9]+(\.[0-9]+)*', s) or version_key(s) is None:
        fail(where, 'not a plain version: %r' % s)
    return s


def lead_ver(where, s):
    """Leading version of a cell like '11.8 (also lists 12.0)'.
    Returns (version or None, remainder text or None)."""
    s = clean(s)
    if s is None or is_unconfirmed(s):
        return None, None
    m = re.match(r'^([0-9]+(?:\.[0-9]+)+)\b\s*(.*)$', s, re.S)
    if not m:
        fail(where, 'no leading version in %r' % s)
    return m.group(1), (m.group(2).strip() or None)


def int_cell(where, s, allow_none=False):
    s = clean(s)
    if s is None or is_unconfirmed(s):
        if allow_none:
            return None
        fail(where, 'integer missing')
    if not re.fullmatch(r'[0-9]+', s):
        fail(where, 'not an integer: %r' % s)
    return int(s)


def num_cell(where, s, allow_none=False):
    s = clean(s)
    if s is None or is_unconfirmed(s):
        if allow_none:
            return None
        fail(where, 'number missing')
    if not re.fullmatch(r'[0-9]+(\.[0-9]+)?', s):
        fail(where, 'not a number: %r' % s)
    return decimal.Decimal(s)


def date_cell(where, s):
    s = clean(s)
    if s is None or is_unconfirmed(s):
        return None
    try:
        return datetime.date.fromisoformat(s)
    except ValueError:
        fail(where, 'not an ISO date: %r' % s)


MONTHS = {m: i for i, m in enumerate(
    ['January', 'February', 'March', 'April', 'May', 'June', 'July',
     'August', 'September', 'October', 'November', 'December'], 1)}


def month_date(where, s):
    """'June 2026' -> 2026-06-01 (NVIDIA publishes month precision)."""
    m = re.fullmatch(r'([A-Z][a-z]+) ([0-9]{4})', s)
    if not m or m.group(1) not in MONTHS:
        fail(where, 'not a "Month YYYY" date: %r' % s)
    return datetime.date(int(m.group(2)), MONTHS[m.group(1)], 1)


def norm_status(where, raw):
    """CSV status -> (CONFIRMED|SECONDARY|PARTIAL, detail or None); None when UNCONFIRMED."""
    raw = clean(raw)
    if raw is None:
        fail(where, 'empty status')
    up = raw.upper()
    m = re.match(r'^(CONFIRMED|SECONDARY|PARTIAL|UNCONFIRMED)\b(.*)$', up, re.S)
    if not m:
        fail(where, 'unknown status %r' % raw)
    base, rest = m.group(1), m.group(2)
    if base == 'UNCONFIRMED':
        return None
    if base == 'CONFIRMED':
        if 'UNCONFIRMED' in rest:
            base = 'PARTIAL'
        elif 'SECONDARY' in rest:
            base = 'SECONDARY'
    return base, (None if raw == base else raw)


def worst(a, b):
    return a if STATUS_RANK[a] >= STATUS_RANK[b] else b


def join_notes(*parts):
    out = [p.strip() for p in parts if p and p.strip()]
    return '; '.join(out) if out else None


def cu_tag_to_version(where, tag):
    """'cu121' -> '12.1', 'cu130' -> '13.0', 'cu92' -> '9.2'."""
    m = re.fullmatch(r'cu([0-9])([0-9])([0-9])?', tag)
    if not m:
        fail(where, 'bad CUDA wheel tag %r' % tag)
    if m.group(3) is None:
        return '%s.%s' % (m.group(1), m.group(2))
    return '%s%s.%s' % (m.group(1), m.group(2), m.group(3))


def cu_tags(where, s):
    """'cu118, cu121' -> ['cu118', 'cu121']; 'None' / '--' / '' -> []."""
    s = clean(s)
    if s is None or s in ('None', '--', '-'):
        return []
    tags = [t.strip() for t in s.split(',')]
    for t in tags:
        if not re.fullmatch(r'cu[0-9]{2,3}', t):
            fail(where, 'bad CUDA wheel list %r' % s)
    return tags


# ---------------------------------------------------------------------------
# CSV loading
# ---------------------------------------------------------------------------

class Source:
    def __init__(self, src):
        self.src = src
        self.digests = {}
        self.dropped = []          # (table, key, reason)

    def rows(self, name, expect_cols):
        path = os.path.join(self.src, name)
        with open(path, 'rb') as f:
            data = f.read()
        self.digests[name] = hashlib.sha256(data).hexdigest()
        text = data.decode('utf-8')
        rd = csv.DictReader(io.StringIO(text, newline=''))
        if rd.fieldnames != expect_cols:
            fail(name, 'unexpected header %r' % (rd.fieldnames,))
        out = []
        for i, r in enumerate(rd, 2):
            if None in r or any(v is None for v in r.values()):
                fail('%s:%d' % (name, i), 'wrong number of fields')
            out.append(('%s:%d' % (name, i), r))
        return out

    def drop(self, table, key, reason):
        self.dropped.append((table, key, reason))


# ---------------------------------------------------------------------------
# cuda_driver.csv -> ref_cuda_mvc, ref_cuda_driver
# ---------------------------------------------------------------------------

def load_cuda(S):
    rows = S.rows('cuda_driver.csv', [
        'cuda_version', 'nvidia_label', 'cuda_major', 'linux_x86_64_toolkit_driver_min',
        'windows_x86_64_toolkit_driver_min', 'minor_version_compat_linux_min',
        'minor_version_compat_linux_max_exclusive', 'minor_version_compat_exact_floor_linux',
        'status', 'source', 'notes'])
    cuda, mvc = [], {}
    for where, r in rows:
        st = norm_status(where, r['status'])
        if st is None:
            S.drop('ref_cuda_driver', r['cuda_version'], 'status UNCONFIRMED'
                   + ('; Linux driver floor UNCONFIRMED'
                      if is_unconfirmed(r['linux_x86_64_toolkit_driver_min']) else ''))
            continue
        status, detail = st
        v = ver(where, r['cuda_version'], allow_none=False)
        if len(v.split('.')) == 2:          # '13.3' -> '13.3.0' (GA)
            v += '.0'
        if len(v.split('.')) != 3:
            fail(where, 'CUDA version must be X.Y.Z: %r' % v)
        major = int_cell(where, r['cuda_major'])
        if int(v.split('.')[0]) != major:
            fail(where, 'cuda_major disagrees with version')
        linux = ver(where, r['linux_x86_64_toolkit_driver_min'])
        if linux is None:
            S.drop('ref_cuda_driver', v, 'Linux Table-3 driver floor UNCONFIRMED')
            continue
        win = ver(where, r['windows_x86_64_toolkit_driver_min'])

        # Minor-version compatibility, identical for every row of a major.
        floor = ver(where, r['minor_version_compat_exact_floor_linux'], allow_none=False)
        m = re.match(r'^>=([0-9]+) \((.*)\)$', r['minor_version_compat_linux_min'].strip())
        if not m:
            fail(where, 'bad MVC min %r' % r['minor_version_compat_linux_min'])
        bmin, qual = int(m.group(1)), m.group(2)
        if int(floor.split('.')[0]) != bmin:
            fail(where, 'MVC floor outside its branch')
        wm = re.search(r'([0-9.]+) Windows', qual)
        win_floor = ver(where, wm.group(1)) if wm else None
        mx = r['minor_version_compat_linux_max_exclusive'].strip()
        if mx.startswith('N/A'):
            bmax = None
        else:
            mm = re.fullmatch(r'<([0-9]+)', mx)
            if not mm:
                fail(where, 'bad MVC max %r' % mx)
            bmax = int(mm.group(1))
        src = r['source'].strip()
        mvc_src = src.split('MVC: ', 1)[1].strip() if 'MVC: ' in src else None
        entry = dict(major=major, floor=floor, bmin=bmin, bmax=bmax, win_floor=win_floor,
                     range='>=%d' % bmin + ('' if bmax is None else ' & <%d' % bmax))
        if major in mvc:
            old = mvc[major]
            for k in entry:
                if old[k] != entry[k]:
                    fail(where, 'MVC %s differs between rows of CUDA %d' % (k, major))
        else:
            mvc[major] = entry
            entry.update(status=None, source=None)
        # MVC facts take the best-evidenced row of the major that cites the MVC sources.
        cand = mvc[major]
        if mvc_src and (cand['status'] is None
                        or STATUS_RANK[status] < STATUS_RANK[cand['status']]):
            cand.update(status=status, source=mvc_src)
        cuda.append(dict(v=v, label=clean(r['nvidia_label']), major=major, linux=linux,
                         win=win, mvc=floor, status=status, detail=detail,
                         source=src, notes=clean(r['notes'])))
    for e in mvc.values():
        if e['status'] is None:
            fail('cuda_driver.csv', 'no row of CUDA %d cites an MVC source' % e['major'])
        e['notes'] = join_notes(
            'Minor-version compatibility (NVIDIA Table 2): an app built with any CUDA %d.x '
            'runs on a driver >= %s with a limited feature set (PTX JIT of newer PTX and '
            'features needing a newer driver excluded)' % (e['major'], e['floor']),
            None if e['bmax'] is None else
            'the <%d bound is the MVC range only; newer drivers still run CUDA %d.x '
            'through ordinary backward compatibility' % (e['bmax'], e['major']),
            None if e['win_floor'] is None else
            'Windows exact floor %s (footnote)' % e['win_floor'])
    cuda.sort(key=lambda c: version_key(c['v']))
    return sorted(mvc.values(), key=lambda e: e['major']), cuda


# ---------------------------------------------------------------------------
# gpu_arch_matrix.csv -> ref_gpu_arch ; gpu_arch.csv -> ref_gpu
# ---------------------------------------------------------------------------

ARCH_MATRIX_SOURCE_STATUS = 'CONFIRMED'   # the file is NVIDIA's own matrix (README.txt)


def last_major(where, s):
    """'CUDA 12.x' / '12.x (...)' -> 12; 'Ongoing' -> None."""
    s = clean(s)
    if s is None or s.lower().startswith('ongoing'):
        return None
    m = re.match(r'^(?:CUDA )?([0-9]+)\.x\b', s)
    if not m:
        fail(where, 'bad last-CUDA value %r' % s)
    return int(m.group(1))


def last_branch(where, s):
    """'R580' / 'R580 (...)' -> 580; 'Ongoing' -> None."""
    s = clean(s)
    if s is None or s.lower().startswith('ongoing'):
        return None
    m = re.match(r'^R([0-9]{3})\b', s)
    if not m:
        fail(where, 'bad last-driver value %r' % s)
    return int(m.group(1))


def load_arch(S):
    rows = S.rows('gpu_arch_matrix.csv', [
        'architecture', 'compute_capabilities', 'first_cuda_toolkit', 'last_cuda_toolkit',
        'last_driver_branch', 'source'])
    out = []
    for where, r in rows:
        name = clean(r['architecture'])
        if not re.fullmatch(r'[A-Z][a-z]+', name or ''):
            fail(where, 'bad architecture name %r' % name)
        ccs_raw = r['compute_capabilities'].strip()
        ccs = sorted({decimal.Decimal(x) for x in re.findall(r'\b[0-9]+\.[0-9]\b', ccs_raw)})
        if not ccs:
            fail(where, 'no compute capabilities')
        first, first_rest = lead_ver(where, r['first_cuda_toolkit'])
        if first is None:
            fail(where, 'first CUDA missing')
        out.append(dict(
            name=name, ccs=ccs, first=first,
            last_major=last_major(where, r['last_cuda_toolkit']),
            last_branch=last_branch(where, r['last_driver_branch']),
            status=ARCH_MATRIX_SOURCE_STATUS, detail=None, source=r['source'].strip(),
            notes=join_notes(
                None if ccs_raw == ' / '.join(str(c) for c in ccs) else
                'compute capabilities as listed: ' + ccs_raw,
                None if first_rest is None else 'first CUDA as listed: ' + r['first_cuda_toolkit'].strip())))
    out.sort(key=lambda a: (version_key(a['first']), a['name']))
    return out


# gpu_arch.csv "gpu_model" cell -> the ref_gpu rows it becomes.
# canonical short name, full name, lookup aliases (matched case- and
# punctuation-insensitively by imx_ref_gpu_canonical()).
GPU_CURATION = {
    'Tesla V100 (SXM2/PCIe)': [
        ('V100', 'NVIDIA Tesla V100 (SXM2/PCIe)',
         ['NVIDIA V100', 'Tesla V100', 'V100 SXM2', 'V100 PCIe', 'V100 16GB', 'V100 32GB',
          'Tesla V100-SXM2-16GB', 'Tesla V100-SXM2-32GB', 'Tesla V100-PCIE-16GB',
          'Tesla V100-PCIE-32GB'])],
    'Tesla T4': [
        ('T4', 'NVIDIA Tesla T4', ['NVIDIA T4', 'Tesla T4', 'T4 16GB'])],
    'A10G (AWS-specific A10 variant)': [
        ('A10G', 'NVIDIA A10G (AWS-specific A10 variant)', ['NVIDIA A10G', 'A10G 24GB'])],
    'A10': [
        ('A10', 'NVIDIA A10', ['NVIDIA A10', 'A10 24GB'])],
    'A100 (40GB/80GB, SXM4/PCIe)': [
        ('A100', 'NVIDIA A100 (40GB/80GB, SXM4/PCIe)',
         ['NVIDIA A100', 'A100 40GB', 'A100 80GB', 'A100 SXM4', 'A100 PCIe',
          'NVIDIA A100-SXM4-40GB', 'NVIDIA A100-SXM4-80GB', 'NVIDIA A100-PCIE-40GB',
          'NVIDIA A100 80GB PCIe'])],
    'L4': [
        ('L4', 'NVIDIA L4', ['NVIDIA L4', 'L4 24GB'])],
    'L40S': [
        ('L40S', 'NVIDIA L40S', ['NVIDIA L40S', 'L40S 48GB'])],
    'H100 (SXM5/PCIe/NVL)': [
        ('H100', 'NVIDIA H100 (SXM5/PCIe/NVL)',
         ['NVIDIA H100', 'H100 80GB', 'H100 SXM', 'H100 SXM5', 'H100 PCIe', 'H100 NVL',
          'NVIDIA H100 80GB HBM3', 'NVIDIA H100 PCIe', 'NVIDIA H100 NVL'])],
    'H200 (SXM5 141GB / NVL)': [
        ('H200', 'NVIDIA H200 (SXM5 141GB / NVL)',
         ['NVIDIA H200', 'H200 141GB', 'H200 SXM5', 'H200 NVL', 'NVIDIA H200 NVL'])],
    'GH200': [
        ('GH200', 'NVIDIA GH200 Grace Hopper Superchip', ['NVIDIA GH200', 'GH200 Grace Hopper'])],
    'B200 (HGX)': [
        ('B200', 'NVIDIA B200 (HGX)', ['NVIDIA B200', 'HGX B200', 'B200 180GB'])],
    'GB200 (NVL72/NVL4)': [
        ('GB200', 'NVIDIA GB200 (NVL72/NVL4)', ['NVIDIA GB200', 'GB200 NVL72', 'GB200 NVL4'])],
    'B300 / GB300': [
        ('B300', 'NVIDIA B300 (Blackwell Ultra)', ['NVIDIA B300', 'HGX B300']),
        ('GB300', 'NVIDIA GB300 (Blackwell Ultra)', ['NVIDIA GB300', 'GB300 NVL72'])],
    'RTX PRO 6000 Blackwell Server Edition': [
        ('RTX PRO 6000', 'NVIDIA RTX PRO 6000 Blackwell Server Edition',
         ['NVIDIA RTX PRO 6000 Blackwell Server Edition', 'RTX PRO 6000 Blackwell Server Edition',
          'RTX PRO 6000 Blackwell', 'RTX PRO 6000 Server', 'RTX PRO Server 6000',
          'rtx-pro-server-6000'])],
    'RTX PRO 4500 Blackwell Server Edition': [
        ('RTX PRO 4500', 'NVIDIA RTX PRO 4500 Blackwell Server Edition',
         ['NVIDIA RTX PRO 4500 Blackwell Server Edition', 'RTX PRO 4500 Blackwell Server Edition',
          'RTX PRO 4500 Blackwell', 'RTX PRO 4500 Server', 'rtx-pro-4500'])],
}

# GPUs that appear in aws_gpu_instances.csv but have no gpu_arch.csv row of
# their own.  Facts derived from another row; status PARTIAL.
GPU_DERIVED = [
    dict(model='T4G', full='NVIDIA T4G (AWS Graviton T4 variant)', like='T4',
         aliases=['NVIDIA T4G', 'NVIDIA T4g'],
         notes='DERIVED: no row of its own in gpu_arch.csv; Turing per the Tesla T4 row '
               '("T4g (g5g, Graviton) is also Turing per EC2 API name t4g"); compute '
               'capability, first CUDA and driver floor copied from T4 (UNCONFIRMED for T4G)'),
]

ARCH_NAME = {'Ada Lovelace': 'Ada', 'Blackwell (Ultra)': 'Blackwell'}


def norm_gpu_name(s):
    """Lookup normal form; keep in sync with imx_ref_gpu_norm() in migrations/functions/reference.sql."""
    s = re.sub(r'[^a-z0-9]', '', s.lower())
    for p in ('nvidia', 'tesla'):
        if s.startswith(p) and len(s) > len(p):
            s = s[len(p):]
    return s


def load_gpus(S, archs):
    rows = S.rows('gpu_arch.csv', [
        'gpu_model', 'architecture', 'compute_capability', 'sm_target',
        'first_cuda_toolkit_supporting_cc', 'min_linux_driver_derived_from_first_cuda',
        'min_linux_driver_documented_for_model', 'last_cuda_supporting',
        'last_driver_branch_supporting', 'status', 'source', 'notes'])
    arch_by = {a['name']: a for a in archs}
    gpus = []
    seen_csv = set()
    for where, r in rows:
        key = r['gpu_model'].strip()
        if key not in GPU_CURATION:
            fail(where, 'gpu_model %r has no entry in GPU_CURATION' % key)
        seen_csv.add(key)
        st = norm_status(where, r['status'])
        if st is None:
            S.drop('ref_gpu', key, 'status UNCONFIRMED')
            continue
        status, detail = st
        arch_raw = r['architecture'].strip()
        arch = ARCH_NAME.get(arch_raw, arch_raw)
        if arch not in arch_by:
            fail(where, 'unknown architecture %r' % arch_raw)
        a = arch_by[arch]
        m = re.match(r'^([0-9]+\.[0-9])\b\s*(.*)$', r['compute_capability'].strip())
        if not m:
            fail(where, 'bad compute capability %r' % r['compute_capability'])
        cc, cc_rest = decimal.Decimal(m.group(1)), m.group(2) or None
        if cc not in a['ccs']:
            fail(where, 'CC %s not listed for %s' % (cc, arch))
        m = re.match(r'^(sm_[0-9]+[a-z]?)\s*(.*)$', r['sm_target'].strip())
        if not m:
            fail(where, 'bad sm target %r' % r['sm_target'])
        sm, sm_rest = m.group(1), m.group(2) or None
        first, first_rest = lead_ver(where, r['first_cuda_toolkit_supporting_cc'])
        drv, drv_rest = lead_ver(where, r['min_linux_driver_derived_from_first_cuda'])
        doc, doc_rest = lead_ver(where, r['min_linux_driver_documented_for_model'])
        # The per-model last CUDA / last branch must agree with the architecture row.
        lm = last_major(where, r['last_cuda_supporting'])
        lb = last_branch(where, r['last_driver_branch_supporting'])
        if (lm, lb) != (a['last_major'], a['last_branch']):
            fail(where, 'last CUDA/driver differ from architecture %s' % arch)
        notes = join_notes(
            None if arch_raw == arch else 'architecture listed as ' + arch_raw,
            None if cc_rest is None else 'compute capability: ' + r['compute_capability'].strip(),
            None if sm_rest is None else 'sm target: ' + r['sm_target'].strip(),
            'first CUDA UNCONFIRMED: ' + r['first_cuda_toolkit_supporting_cc'].strip()
            if first is None else
            None if first_rest is None else 'first CUDA: ' + r['first_cuda_toolkit_supporting_cc'].strip(),
            None if drv_rest is None else 'derived driver floor: '
            + r['min_linux_driver_derived_from_first_cuda'].strip(),
            None if doc is None else 'documented driver minimum: '
            + r['min_linux_driver_documented_for_model'].strip(),
            clean(r['notes']))
        for canon, full, aliases in GPU_CURATION[key]:
            gpus.append(dict(model=canon, full=full, arch=arch, cc=cc, sm=sm, first=first,
                             drv=drv, doc=doc, aliases=aliases, status=status, detail=detail,
                             source=r['source'].strip(),
                             notes=join_notes(None if len(GPU_CURATION[key]) == 1 else
                                              'CSV row "%s" split into one row per product' % key,
                                              notes)))
    missing = set(GPU_CURATION) - seen_csv
    if missing:
        fail('gpu_arch.csv', 'curated GPUs missing from CSV: %s' % sorted(missing))
    by = {g['model']: g for g in gpus}
    for d in GPU_DERIVED:
        base = by[d['like']]
        gpus.append(dict(base, model=d['model'], full=d['full'], aliases=d['aliases'],
                         status='PARTIAL', detail='DERIVED from the %s row (status %s)'
                         % (d['like'], base['status']), doc=None, notes=d['notes']))
    # Every spelling must resolve to exactly one GPU.
    owner = {}
    for g in gpus:
        for name in [g['model'], g['full']] + g['aliases']:
            n = norm_gpu_name(name)
            if owner.setdefault(n, g['model']) != g['model']:
                fail('gpu aliases', '%r names both %s and %s' % (name, owner[n], g['model']))
    gpus.sort(key=lambda g: (version_key(str(g['cc'])), g['model']))
    return gpus, owner


# ---------------------------------------------------------------------------
# driver_branches.csv -> ref_driver_branch
# ---------------------------------------------------------------------------

# Official-EOL cells that are not a bare "Month YYYY": (date or None, note).
EOL_OVERRIDES = {
    'August 2028 (older page) / June 2028 (615 and 620 pages)':
        (datetime.date(2028, 6, 1), 'official EOL conflict: older NVIDIA page says August 2028, '
                                    'the newer 615/620 pages say June 2028 (used)'),
    'August 2026 (615 page); 620 page says NFBs have no EOL date':
        (None, 'official EOL conflict: the 615 page says August 2026, the newer 620 page says '
               'NFBs have no EOL date (used: no official date)'),
}


def official_eol(where, raw):
    s = clean(raw)
    if s is None or is_unconfirmed(s):
        return None, None
    if s.startswith('listed as end-of-life') or s.startswith('not published for NFBs'):
        return None, None
    if s in EOL_OVERRIDES:
        return EOL_OVERRIDES[s]
    return month_date(where, s), None


def load_branches(S):
    rows = S.rows('driver_branches.csv', [
        'branch', 'type_releases_json', 'type_nvidia_support_page', 'linux_first_release_date',
        'official_eol', 'eol_endoflife_date', 'latest_linux_version_seen',
        'latest_linux_version_date', 'native_cuda_version_derived', 'source', 'notes'])
    out = []
    for where, r in rows:
        m = re.fullmatch(r'R([0-9]{3})', r['branch'].strip())
        if not m:
            fail(where, 'bad branch %r' % r['branch'])
        branch = int(m.group(1))
        t_json, t_page = clean(r['type_releases_json']), clean(r['type_nvidia_support_page'])
        unconfirmed = [k for k in ('type_releases_json', 'linux_first_release_date', 'official_eol',
                                   'native_cuda_version_derived')
                       if is_unconfirmed(r[k])]
        secondary = [k for k in r if k not in ('source', 'notes') and 'SECONDARY' in r[k]]
        if t_page:
            btype, basis = t_page, 'nvidia_support_page'
            if t_json and not is_unconfirmed(t_json) and t_json != t_page:
                fail(where, 'type conflict releases.json %s vs NVIDIA page %s' % (t_json, t_page))
        elif t_json and not is_unconfirmed(t_json):
            btype, basis = t_json, 'releases.json'
        else:
            S.drop('ref_driver_branch', 'R%d' % branch, 'branch type UNCONFIRMED (only secondary '
                   'mentions; not in releases.json or an NVIDIA support-page table)')
            continue
        if btype not in ('LTSB', 'PB', 'NFB'):
            fail(where, 'bad branch type %r' % btype)
        first = date_cell(where, r['linux_first_release_date'])
        off, off_note = official_eol(where, r['official_eol'])
        eol_eod = date_cell(where, r['eol_endoflife_date'])
        if off is not None:
            eol, eol_basis = off, 'nvidia'
        elif eol_eod is not None:
            eol, eol_basis = eol_eod, 'endoflife.date'
        else:
            eol, eol_basis = None, None
        latest = ver(where, r['latest_linux_version_seen'])
        if latest is not None and int(latest.split('.')[0]) != branch:
            fail(where, 'latest version %s outside branch' % latest)
        native, native_rest = lead_ver(where, r['native_cuda_version_derived'])
        # Status (the CSV has no status column): worst of the evidence.
        status = 'CONFIRMED' if basis == 'nvidia_support_page' else 'SECONDARY'
        detail = ['type from ' + ('NVIDIA support page' if basis == 'nvidia_support_page'
                                  else 'releases.json via endoflife.date')]
        if first is not None or eol_eod is not None:
            detail.append('release/latest dates from endoflife.date')
        if secondary:
            status = worst(status, 'SECONDARY')
            detail.append('SECONDARY: ' + ', '.join(secondary))
        if unconfirmed:
            status = worst(status, 'PARTIAL')
            detail.append('UNCONFIRMED: ' + ', '.join(unconfirmed))
        out.append(dict(
            branch=branch, type=btype, basis=basis, first=first, eol=eol, eol_basis=eol_basis,
            eol_official_text=clean(r['official_eol']), eol_eod=eol_eod, latest=latest,
            latest_date=date_cell(where, r['latest_linux_version_date']), native=native,
            status=status, detail='; '.join(detail), source=r['source'].strip(),
            notes=join_notes(off_note, None if native_rest is None else
                             'native CUDA ' + r['native_cuda_version_derived'].strip(),
                             clean(r['notes']))))
    out.sort(key=lambda b: b['branch'])
    return out


# ---------------------------------------------------------------------------
# cudnn_cuda.csv -> ref_cudnn
# ---------------------------------------------------------------------------

def cc_span(where, s, archs):
    """Architecture cell -> (cc_min, cc_max) or (None, None)."""
    s = clean(s)
    if s is None or is_unconfirmed(s):
        return None, None
    m = re.match(r'^([A-Z][a-z]+)\.\.([A-Z][a-z]+)\b', s)
    if m:
        by = {a['name']: a for a in archs}
        if m.group(1) not in by or m.group(2) not in by:
            fail(where, 'unknown architecture range %r' % s)
        return min(by[m.group(1)]['ccs']), max(by[m.group(2)]['ccs'])
    head = re.split(r'[;(]', s, 1)[0]
    nums = [decimal.Decimal(x) for x in re.findall(r'\b[0-9]+\.[0-9]\b', head)]
    if not nums:
        fail(where, 'no compute capabilities in %r' % s)
    return min(nums), max(nums)


def driver_floors(where, s):
    """'>=450.80.02 (CUDA 11.x builds); >=525.60.13 (CUDA 12 builds)...' -> {11: '450.80.02', ...}"""
    out = {}
    for v, major in re.findall(r'>=([0-9.]+) \(CUDA ([0-9]+)(?:\.x)? builds\)', s):
        out[int(major)] = ver(where, v, allow_none=False)
    if not out:
        fail(where, 'no driver floors in %r' % s)
    return out


def minors(s):
    s = clean(s)
    if s is None or is_unconfirmed(s) or s in ('-', 'DROPPED'):
        return None
    return s


def load_cudnn(S, archs):
    rows = S.rows('cudnn_cuda.csv', [
        'cudnn_version', 'release_date', 'cuda_major_variants', 'cuda13_minors', 'cuda12_minors',
        'cuda11_minors', 'min_linux_driver', 'gpu_arch_support', 'status', 'source', 'notes'])
    out = []
    for where, r in rows:
        v = ver(where, r['cudnn_version'], allow_none=False)
        st = norm_status(where, r['status'])
        if st is None:
            S.drop('ref_cudnn', v, 'status ' + r['status'].strip())
            continue
        status, detail = st
        mv = r['cuda_major_variants'].strip()
        if not re.fullmatch(r'[0-9]+(, [0-9]+)*', mv):
            S.drop('ref_cudnn', v, 'CUDA major builds UNCONFIRMED')
            continue
        majors = [int(x) for x in mv.split(', ')]
        raw_drv = r['min_linux_driver'].strip()
        floors = driver_floors(where, raw_drv)
        if sorted(k for k in floors) != sorted(majors):
            fail(where, 'driver floors %s do not match CUDA majors %s' % (sorted(floors), majors))
        arch_raw = clean(r['gpu_arch_support'])
        cmin, cmax = cc_span(where, arch_raw, archs)
        rel_raw = r['release_date'].strip()
        out.append(dict(
            v=v, date=date_cell(where, rel_raw), majors=majors,
            m11=minors(r['cuda11_minors']), m12=minors(r['cuda12_minors']),
            m13=minors(r['cuda13_minors']),
            d11=floors.get(11), d12=floors.get(12), d13=floors.get(13), drv=raw_drv,
            arch=None if arch_raw is None or is_unconfirmed(arch_raw) else arch_raw,
            cmin=cmin, cmax=cmax, status=status, detail=detail, source=r['source'].strip(),
            notes=join_notes(
                'release date: ' + rel_raw if is_unconfirmed(rel_raw) and rel_raw != 'UNCONFIRMED' else None,
                'driver floors assumed from the CUDA minor-version-compatibility floors, '
                'not re-read from a cuDNN matrix' if 'assumed' in raw_drv else None,
                clean(r['notes']))))
    out.sort(key=lambda c: version_key(c['v']))
    return out


# ---------------------------------------------------------------------------
# pytorch_cuda.csv -> ref_pytorch, ref_pytorch_build
# ---------------------------------------------------------------------------

def bundled(where, s):
    """'9.10.2.21 (cu126); 9.17.1.4 (cu128, cu130)' -> {'cu126': '9.10.2.21', ..., None: default}."""
    out = {}
    s = clean(s)
    if s is None or s == 'not stated':
        return out
    for m in re.finditer(r'([0-9]+(?:\.[0-9]+)+)(?:\s*\(([^)]*)\))?', s):
        v, paren = m.group(1), m.group(2)
        tags = re.findall(r'cu[0-9]{2,3}', paren.split(';')[0]) if paren else []
        for t in tags or [None]:
            if t in out and out[t] != v:
                fail(where, 'two bundled versions for %s in %r' % (t, s))
            out[t] = v
    if not out:
        fail(where, 'cannot read bundled versions %r' % s)
    return out


def python_range(where, s):
    s = s.strip()
    lo = re.match(r'^>=\s*([0-9]+\.[0-9]+)', s)
    hi = re.search(r'<=\s*\(?([0-9]+\.[0-9]+)\b', s)
    if not lo or not hi:
        m = re.fullmatch(r'([0-9]+\.[0-9]+)-([0-9]+\.[0-9]+)', s)
        if not m:
            fail(where, 'bad python range %r' % s)
        return m.group(1), m.group(2)
    return lo.group(1), hi.group(1)


def load_pytorch(S):
    rows = S.rows('pytorch_cuda.csv', [
        'pytorch_minor', 'release_month', 'python', 'stable_cuda_wheels',
        'experimental_cuda_wheels', 'cudnn_bundled_stable', 'cudnn_bundled_experimental',
        'nccl_bundled', 'wheel_variants_seen_in_index', 'status', 'source', 'notes'])
    rels, builds = [], []
    for where, r in rows:
        v = ver(where, r['pytorch_minor'], allow_none=False)
        st = norm_status(where, r['status'])
        if st is None:
            S.drop('ref_pytorch', v, 'status UNCONFIRMED')
            continue
        status, detail = st
        pmin, pmax = python_range(where, r['python'])
        stable = cu_tags(where, r['stable_cuda_wheels'])
        exp = cu_tags(where, r['experimental_cuda_wheels'])
        if not stable or set(stable) & set(exp):
            fail(where, 'bad stable/experimental split')
        idx_raw = r['wheel_variants_seen_in_index'].strip()
        if idx_raw.startswith('not in'):
            idx = None
        else:
            idx = sorted(set(re.findall(r'cu[0-9]{2,3}', re.sub(r'\([^)]*\)', '', idx_raw))),
                         key=lambda t: version_key(cu_tag_to_version(where, t)))
        cud_s, cud_e = bundled(where, r['cudnn_bundled_stable']), bundled(where, r['cudnn_bundled_experimental'])
        nccl = bundled(where, r['nccl_bundled'])
        release = clean(r['release_month'])
        src = r['source'].strip()
        rels.append(dict(
            v=v, release=None if release is None or is_unconfirmed(release) else release,
            python=r['python'].strip(), pmin=pmin, pmax=pmax,
            stable=[cu_tag_to_version(where, t) for t in stable],
            exp=[cu_tag_to_version(where, t) for t in exp],
            idx=None if idx is None else [cu_tag_to_version(where, t) for t in idx],
            cudnn_s=clean(r['cudnn_bundled_stable']), cudnn_e=clean(r['cudnn_bundled_experimental']),
            nccl=None if clean(r['nccl_bundled']) in (None, 'not stated') else r['nccl_bundled'].strip(),
            status=status, detail=detail, source=src,
            notes=join_notes(
                None if '(' not in idx_raw else 'index: ' + idx_raw,
                clean(r['notes']))))
        for channel, tags, own, other in (('stable', stable, cud_s, cud_e),
                                          ('experimental', exp, cud_e, cud_s)):
            for t in tags:
                cudnn = own.get(t) or other.get(t) or own.get(None)
                n = nccl.get(t) or nccl.get(None)
                builds.append(dict(
                    v=v, cuda=cu_tag_to_version(where, t), tag=t, channel=channel,
                    cudnn=cudnn, nccl=n, in_index=None if idx is None else t in idx,
                    status=status, source=src))
    rels.sort(key=lambda p: version_key(p['v']))
    builds.sort(key=lambda b: (version_key(b['v']), version_key(b['cuda'])))
    return rels, builds


# ---------------------------------------------------------------------------
# tensorflow_cuda.csv -> ref_tensorflow
# ---------------------------------------------------------------------------

def load_tensorflow(S):
    rows = S.rows('tensorflow_cuda.csv', [
        'tensorflow_version', 'python', 'compiler', 'build_tool', 'cudnn', 'cuda', 'platform',
        'status', 'source', 'notes'])
    out = []
    for where, r in rows:
        v = ver(where, r['tensorflow_version'], allow_none=False)
        st = norm_status(where, r['status'])
        if st is None:
            S.drop('ref_tensorflow', v, 'status UNCONFIRMED')
            continue
        pmin, pmax = python_range(where, r['python'])
        if r['platform'].strip() != 'Linux GPU':
            fail(where, 'unexpected platform %r' % r['platform'])
        out.append(dict(
            v=v, python=r['python'].strip(), pmin=pmin, pmax=pmax,
            compiler=clean(r['compiler']), build_tool=clean(r['build_tool']),
            cudnn=ver(where, r['cudnn'], allow_none=False), cuda=ver(where, r['cuda'], allow_none=False),
            platform='linux-gpu', status=st[0], detail=st[1], source=r['source'].strip(),
            notes=clean(r['notes'])))
    out.sort(key=lambda t: version_key(t['v']))
    return out


# ---------------------------------------------------------------------------
# aws_gpu_instances.csv -> ref_instance_type
# ---------------------------------------------------------------------------

HOST_ARCH = {'g5g': 'arm64'}      # every other family listed is x86_64


def marketed_gb(where, s, family):
    s = clean(s)
    if s is None or is_unconfirmed(s):
        return None
    if re.fullmatch(r'[0-9]+', s):
        return int(s)
    alts = dict((fam, int(n)) for n, fam in re.findall(r'([0-9]+) \(([a-z0-9-]+)\)', s))
    if family not in alts:
        fail(where, 'cannot pick marketed GB for %s from %r' % (family, s))
    return alts[family]


def load_instances(S, gpu_owner):
    rows = S.rows('aws_gpu_instances.csv', [
        'family', 'instance_type', 'gpu_model', 'gpus', 'gpu_mem_each_mib_ec2_api',
        'gpu_mem_each_gib_ec2_api', 'gpu_mem_each_gb_marketed', 'vcpus', 'memory_mib',
        'ondemand_usd_per_hour_us_east_1_linux', 'price_as_of', 'status', 'source', 'notes'])
    out = []
    for where, r in rows:
        it = r['instance_type'].strip()
        st = norm_status(where, r['status'])
        if st is None:
            S.drop('ref_instance_type', it, r['status'].strip())
            continue
        status, detail = st
        family = r['family'].strip()
        if not re.fullmatch(r'[a-z0-9-]+\.[a-z0-9]+', it) or it.split('.')[0] != family:
            fail(where, 'bad instance type %r for family %r' % (it, family))
        gm_raw = r['gpu_model'].strip()
        gm_paren = re.search(r'\(([^)]*)\)\s*$', gm_raw)
        gm = re.sub(r'\s*\([^)]*\)\s*$', '', gm_raw)
        canon = gpu_owner.get(norm_gpu_name(gm))
        if canon is None:
            fail(where, 'GPU %r does not resolve to a ref_gpu row' % gm_raw)
        price = num_cell(where, r['ondemand_usd_per_hour_us_east_1_linux'], allow_none=True)
        as_of = date_cell(where, r['price_as_of'])
        if (price is None) != (as_of is None):
            fail(where, 'price and price_as_of must both be present or absent')
        mib = int_cell(where, r['gpu_mem_each_mib_ec2_api'])
        gib = num_cell(where, r['gpu_mem_each_gib_ec2_api'])
        if abs(decimal.Decimal(mib) / 1024 - gib) > decimal.Decimal('0.05'):
            fail(where, 'GPU MiB and GiB disagree')
        out.append(dict(
            it=it, family=family, gpu=canon, count=int_cell(where, r['gpus']),
            mib=mib, gib=gib, gb=marketed_gb(where, r['gpu_mem_each_gb_marketed'], family),
            vcpus=int_cell(where, r['vcpus']), mem_mib=int_cell(where, r['memory_mib']),
            host_arch=HOST_ARCH.get(family, 'x86_64'), price=price, as_of=as_of,
            status=status, detail=detail, source=r['source'].strip(),
            notes=join_notes(
                None if gm_paren is None else 'GPU listed as ' + gm_raw,
                'on-demand price: ' + r['ondemand_usd_per_hour_us_east_1_linux'].strip()
                if price is None else None,
                'marketed per-GPU GB UNCONFIRMED' if is_unconfirmed(r['gpu_mem_each_gb_marketed']) else None,
                clean(r['notes']))))
    def ikey(i):
        size = i['it'].split('.', 1)[1]
        return (i['family'], i['count'], i['vcpus'], size)
    out.sort(key=ikey)
    return out


# ---------------------------------------------------------------------------
# SQL output
# ---------------------------------------------------------------------------

STATUS_COLS = """  status        text NOT NULL CHECK (status IN ('CONFIRMED','SECONDARY','PARTIAL')),
  status_detail text,
  source        text NOT NULL CHECK (source <> ''),
  notes         text"""


PLAIN_VERSION_RE = r'^[0-9]{1,9}([.][0-9]{1,9}){0,5}$'


def vcol(name, null=True):
    """A version text column plus its generated key and a validity check."""
    # Plain dotted numbers only (what the parsers produce), which also
    # guarantees a non-NULL key.
    if null:
        return ("  %s text CHECK (%s ~ '%s'),\n"
                "  %s_key int[] GENERATED ALWAYS AS (imx_version_key(%s)) STORED"
                % (name, name, PLAIN_VERSION_RE, name, name))
    return ("  %s text NOT NULL CHECK (%s ~ '%s'),\n"
            "  %s_key int[] GENERATED ALWAYS AS (imx_version_key(%s)) STORED"
            % (name, name, PLAIN_VERSION_RE, name, name))


SCHEMA = """
-- ---------------------------------------------------------------------------
-- CUDA minor-version compatibility floors, one row per CUDA major.
CREATE TABLE ref_cuda_mvc (
  cuda_major          int PRIMARY KEY CHECK (cuda_major BETWEEN 1 AND 99),
{driver_floor},
  branch_min          int NOT NULL CHECK (branch_min BETWEEN 100 AND 999),
  branch_max_exclusive int CHECK (branch_max_exclusive > branch_min),
  branch_range        text NOT NULL,
{windows_floor},
{status},
  CHECK ((imx_version_key(driver_floor))[1] = branch_min)
);
COMMENT ON TABLE ref_cuda_mvc IS
  'CUDA minor-version compatibility (NVIDIA release notes Table 2): within a CUDA major an application runs on any driver >= driver_floor with a limited feature set. branch_max_exclusive bounds the MVC range only; newer drivers still run older toolkits by ordinary backward compatibility.';
COMMENT ON COLUMN ref_cuda_mvc.driver_floor IS 'Exact Linux driver floor for MVC within this CUDA major.';

-- ---------------------------------------------------------------------------
CREATE TABLE ref_cuda_driver (
{cuda_version_pk},
  cuda_major          int NOT NULL REFERENCES ref_cuda_mvc (cuda_major),
  nvidia_label        text,
{linux_driver_min},
{windows_driver_min},
{mvc_driver_min},
{status},
  CHECK (cuda_version ~ '^[0-9]+[.][0-9]+[.][0-9]+$'),
  CHECK ((imx_version_key(cuda_version))[1] = cuda_major),
  CHECK ((imx_version_key(linux_driver_min))[1] >= 100)
);
COMMENT ON TABLE ref_cuda_driver IS
  'CUDA toolkit release -> minimum driver. linux/windows_driver_min: NVIDIA release notes Table 3 (driver bundled with / required by that exact toolkit; windows NULL where N/A). mvc_driver_min: minor-version-compatibility floor of the major (see ref_cuda_mvc). A binary built with CUDA X.Y.Z needs driver >= linux_driver_min, or >= mvc_driver_min under minor-version compatibility.';

-- ---------------------------------------------------------------------------
CREATE TABLE ref_gpu_arch (
  architecture        text PRIMARY KEY CHECK (architecture ~ '^[A-Z][a-z]+$'),
  compute_capabilities numeric(4,1)[] NOT NULL CHECK (cardinality(compute_capabilities) > 0),
{first_cuda},
  last_cuda_major     int CHECK (last_cuda_major BETWEEN 1 AND 99),
  last_driver_branch  int CHECK (last_driver_branch BETWEEN 100 AND 999),
{status}
);
COMMENT ON TABLE ref_gpu_arch IS
  'NVIDIA "CUDA Toolkit, Driver, and Architecture Matrix": architecture -> compute capabilities, first CUDA toolkit, newest CUDA major and last driver branch that still support it (NULL = ongoing).';

-- ---------------------------------------------------------------------------
CREATE TABLE ref_gpu (
  gpu_model           text PRIMARY KEY CHECK (gpu_model ~ '^[A-Z0-9][A-Za-z0-9 ]*$'),
  full_name           text NOT NULL,
  architecture        text NOT NULL REFERENCES ref_gpu_arch (architecture),
  compute_capability  numeric(4,1) NOT NULL CHECK (compute_capability > 0),
  sm_target           text NOT NULL CHECK (sm_target ~ '^sm_[0-9]+[a-z]?$'),
{first_cuda},
{min_driver_derived},
{min_driver_documented},
  aliases             text[] NOT NULL DEFAULT '{{}}',
{status}
);
COMMENT ON TABLE ref_gpu IS
  'GPU model (canonical short name as used in instance tables and by users) -> architecture and compute capability. min_driver_derived = Table-3 floor of first_cuda (DERIVED); min_driver_documented = a model-specific minimum where one was found. Resolve any spelling with imx_ref_gpu_canonical().';
COMMENT ON COLUMN ref_gpu.aliases IS 'Other spellings (marketing, nvidia-smi, EC2 API); matched case- and punctuation-insensitively by imx_ref_gpu_canonical().';

-- ---------------------------------------------------------------------------
CREATE TABLE ref_driver_branch (
  branch              int PRIMARY KEY CHECK (branch BETWEEN 100 AND 999),
  branch_type         text NOT NULL CHECK (branch_type IN ('LTSB','PB','NFB')),
  type_basis          text NOT NULL CHECK (type_basis IN ('nvidia_support_page','releases.json')),
  first_release       date,
  eol                 date,
  eol_basis           text CHECK (eol_basis IN ('nvidia','endoflife.date')),
  eol_official_text   text,
  eol_endoflife_date  date,
{latest_version},
  latest_version_date date,
{native_cuda},
{status},
  CHECK ((eol IS NULL) = (eol_basis IS NULL)),
  CHECK (latest_version IS NULL OR (imx_version_key(latest_version))[1] = branch)
);
COMMENT ON TABLE ref_driver_branch IS
  'Data-center driver branches: type (LTSB long-term support, PB production, NFB new-feature), first Linux release, end of life (eol: NVIDIA''s official month, stored as its 1st day, when published, else endoflife.date''s computed date; eol_basis says which), newest version seen, native_cuda = newest toolkit whose Table-3 floor is in this branch (DERIVED).';

-- ---------------------------------------------------------------------------
CREATE TABLE ref_cudnn (
{cudnn_version},
  release_date        date,
  cuda_majors         int[] NOT NULL CHECK (cardinality(cuda_majors) > 0),
  cuda11_minors       text,
  cuda12_minors       text,
  cuda13_minors       text,
{driver_min_cuda11},
{driver_min_cuda12},
{driver_min_cuda13},
  min_driver          text NOT NULL,
  architectures       text,
  cc_min              numeric(4,1),
  cc_max              numeric(4,1) CHECK (cc_max >= cc_min),
{status},
  CHECK ((driver_min_cuda11 IS NOT NULL) = (11 = ANY (cuda_majors))),
  CHECK ((driver_min_cuda12 IS NOT NULL) = (12 = ANY (cuda_majors))),
  CHECK ((driver_min_cuda13 IS NOT NULL) = (13 = ANY (cuda_majors)))
);
COMMENT ON TABLE ref_cudnn IS
  'cuDNN release -> CUDA major builds (redistrib manifests), supported CUDA minors as text (NULL when not read), Linux driver floor per CUDA-major build (min_driver keeps the source text), GPU architectures (text as listed; cc_min/cc_max = span of compute capabilities, NULL when not read).';

-- ---------------------------------------------------------------------------
CREATE TABLE ref_pytorch (
{pytorch_version},
  release             text,
  python              text NOT NULL,
{python_min},
{python_max},
  cuda_stable         text[] NOT NULL CHECK (cardinality(cuda_stable) > 0),
  cuda_experimental   text[] NOT NULL,
  cuda_in_index       text[],
  cudnn_bundled_stable text,
  cudnn_bundled_experimental text,
  nccl_bundled        text,
{status},
  CHECK (NOT (cuda_stable && cuda_experimental))
);
COMMENT ON TABLE ref_pytorch IS
  'PyTorch minor release (RELEASE.md "Release Compatibility Matrix"): Python range, CUDA versions of the stable and experimental wheel builds (cu124 -> 12.4), wheel variants seen in download.pytorch.org indexes (replicate/cog snapshot; NULL = not checked), bundled cuDNN/NCCL as listed. One row per build in ref_pytorch_build.';

CREATE TABLE ref_pytorch_build (
  pytorch_version     text NOT NULL REFERENCES ref_pytorch (pytorch_version),
  pytorch_version_key int[] GENERATED ALWAYS AS (imx_version_key(pytorch_version)) STORED,
{cuda_version},
  wheel_tag           text NOT NULL CHECK (wheel_tag ~ '^cu[0-9]{{2,3}}$'),
  channel             text NOT NULL CHECK (channel IN ('stable','experimental')),
{cudnn_version_n},
{nccl_version},
  seen_in_index       boolean,
{status_nodetail},
  PRIMARY KEY (pytorch_version, cuda_version)
);
COMMENT ON TABLE ref_pytorch_build IS
  'One PyTorch CUDA wheel build (pytorch_version, CUDA version): channel stable/experimental, bundled cuDNN and NCCL (NULL where the matrix does not state them), seen_in_index (NULL = index not checked). Derived from ref_pytorch; same source and status.';

-- ---------------------------------------------------------------------------
CREATE TABLE ref_tensorflow (
{tensorflow_version},
  python              text NOT NULL,
{python_min},
{python_max},
  compiler            text,
  build_tool          text,
{cudnn},
{cuda},
  platform            text NOT NULL CHECK (platform IN ('linux-gpu')),
{status}
);
COMMENT ON TABLE ref_tensorflow IS
  'TensorFlow "tested build configurations" (Linux GPU): Python range, compiler, Bazel, cuDNN and CUDA versions the release was built and tested with.';

-- ---------------------------------------------------------------------------
CREATE TABLE ref_instance_type (
  provider            text NOT NULL CHECK (provider IN ('aws','gcp','azure')),
  instance_type       text NOT NULL,
  family              text NOT NULL,
  gpu_model           text NOT NULL REFERENCES ref_gpu (gpu_model),
  gpu_count           int NOT NULL CHECK (gpu_count > 0),
  gpu_memory_mib      int NOT NULL CHECK (gpu_memory_mib > 0),
  gpu_memory_gib      numeric(8,1) NOT NULL CHECK (gpu_memory_gib > 0),
  gpu_memory_gb_marketed int CHECK (gpu_memory_gb_marketed > 0),
  vcpus               int NOT NULL CHECK (vcpus > 0),
  memory_mib          int NOT NULL CHECK (memory_mib > 0),
  memory_gib          numeric GENERATED ALWAYS AS (round(memory_mib / 1024.0, 3)) STORED,
  host_arch           text NOT NULL CHECK (host_arch IN ('x86_64','arm64')),
  price_per_hour      numeric(12,6) CHECK (price_per_hour >= 0),
  pricing_kind        text NOT NULL DEFAULT 'on-demand' CHECK (pricing_kind IN ('on-demand','spot','reserved')),
  currency            text NOT NULL DEFAULT 'USD' CHECK (currency IN ('USD')),
  price_region        text NOT NULL,
  price_os            text NOT NULL DEFAULT 'linux' CHECK (price_os IN ('linux')),
  price_as_of         date,
{status},
  PRIMARY KEY (provider, instance_type),
  CHECK (split_part(instance_type, '.', 1) = family),
  CHECK ((price_per_hour IS NULL) = (price_as_of IS NULL))
);
COMMENT ON TABLE ref_instance_type IS
  'Cloud GPU instance types: GPU model (ref_gpu) and count, per-GPU memory (EC2 DescribeInstanceTypes MiB/GiB, and marketed GB), vCPUs, memory, host CPU architecture, hourly list price (price_per_hour NULL when unknown) with its kind, currency, region, OS and date.';
COMMENT ON COLUMN ref_instance_type.price_per_hour IS 'Whole-instance price per hour; numeric(12,6) because AWS list prices carry up to six decimals.';

-- imaxe:load functions/reference.sql
"""


def render_schema():
    status_nodetail = STATUS_COLS.replace('  status_detail text,\n', '')
    return SCHEMA.format(
        status=STATUS_COLS,
        status_nodetail=status_nodetail,
        driver_floor=vcol('driver_floor', False),
        windows_floor=vcol('windows_floor'),
        cuda_version_pk=vcol('cuda_version', False).replace('NOT NULL CHECK', 'PRIMARY KEY CHECK'),
        cuda_version=vcol('cuda_version', False),
        linux_driver_min=vcol('linux_driver_min', False),
        windows_driver_min=vcol('windows_driver_min'),
        mvc_driver_min=vcol('mvc_driver_min', False),
        first_cuda=vcol('first_cuda'),
        min_driver_derived=vcol('min_driver_derived'),
        min_driver_documented=vcol('min_driver_documented'),
        latest_version=vcol('latest_version'),
        native_cuda=vcol('native_cuda'),
        cudnn_version=vcol('cudnn_version', False).replace(
            'NOT NULL CHECK', 'PRIMARY KEY CHECK'),
        driver_min_cuda11=vcol('driver_min_cuda11'),
        driver_min_cuda12=vcol('driver_min_cuda12'),
        driver_min_cuda13=vcol('driver_min_cuda13'),
        pytorch_version=vcol('pytorch_version', False).replace('NOT NULL CHECK', 'PRIMARY KEY CHECK'),
        python_min=vcol('python_min', False),
        python_max=vcol('python_max', False),
        cudnn_version_n=vcol('cudnn_version'),
        nccl_version=vcol('nccl_version'),
        tensorflow_version=vcol('tensorflow_version', False).replace('NOT NULL CHECK', 'PRIMARY KEY CHECK'),
        cudnn=vcol('cudnn', False),
        cuda=vcol('cuda', False),
    )


def insert(out, table, cols, rows):
    out.write('\nINSERT INTO %s (%s) VALUES\n' % (table, ', '.join(cols)))
    out.write(',\n'.join('  (' + ', '.join(r) + ')' for r in rows))
    out.write(';\n')


def generate(src):
    S = Source(src)
    mvc, cuda = load_cuda(S)
    archs = load_arch(S)
    gpus, gpu_owner = load_gpus(S, archs)
    branches = load_branches(S)
    cudnn = load_cudnn(S, archs)
    torch, torch_builds = load_pytorch(S)
    tf = load_tensorflow(S)
    inst = load_instances(S, gpu_owner)

    # cross-table checks
    mvc_majors = {m['major'] for m in mvc}
    for c in cuda:
        if c['major'] not in mvc_majors:
            raise DataError('CUDA %s has no MVC row' % c['v'])

    out = io.StringIO()
    out.write('-- Reference data for the compatibility validator: CUDA/driver, GPU architectures\n'
              '-- and models, driver branches, cuDNN, PyTorch, TensorFlow, cloud instance types.\n'
              '--\n'
              '-- GENERATED by tools/gen_reference.py from ../shared/data/reference -- do not edit\n'
              '-- by hand; change the CSVs or the generator and regenerate. See\n'
              '-- tools/README-reference.md. Input files (sha256):\n')
    for name in INPUTS:
        out.write('--   %s  %s\n' % (S.digests[name], name))
    out.write('-- Rows left out (UNCONFIRMED):\n')
    for table, key, reason in S.dropped:
        out.write('--   %s %s: %s\n' % (table, key, reason))
    out.write(render_schema())

    insert(out, 'ref_cuda_mvc',
           ['cuda_major', 'driver_floor', 'branch_min', 'branch_max_exclusive', 'branch_range',
            'windows_floor', 'status', 'status_detail', 'source', 'notes'],
           [[sql_int(m['major']), sql_text(m['floor']), sql_int(m['bmin']), sql_int(m['bmax']),
             sql_text(m['range']), sql_text(m['win_floor']), sql_text(m['status']), 'NULL',
             sql_text(m['source']), sql_text(m['notes'])] for m in mvc])
    insert(out, 'ref_cuda_driver',
           ['cuda_version', 'cuda_major', 'nvidia_label', 'linux_driver_min', 'windows_driver_min',
            'mvc_driver_min', 'status', 'status_detail', 'source', 'notes'],
           [[sql_text(c['v']), sql_int(c['major']), sql_text(c['label']), sql_text(c['linux']),
             sql_text(c['win']), sql_text(c['mvc']), sql_text(c['status']), sql_text(c['detail']),
             sql_text(c['source']), sql_text(c['notes'])] for c in cuda])
    insert(out, 'ref_gpu_arch',
           ['architecture', 'compute_capabilities', 'first_cuda', 'last_cuda_major',
            'last_driver_branch', 'status', 'status_detail', 'source', 'notes'],
           [[sql_text(a['name']), sql_num_array(a['ccs']),
             sql_text(a['first']), sql_int(a['last_major']), sql_int(a['last_branch']),
             sql_text(a['status']), sql_text(a['detail']), sql_text(a['source']),
             sql_text(a['notes'])] for a in archs])
    insert(out, 'ref_gpu',
           ['gpu_model', 'full_name', 'architecture', 'compute_capability', 'sm_target',
            'first_cuda', 'min_driver_derived', 'min_driver_documented', 'aliases',
            'status', 'status_detail', 'source', 'notes'],
           [[sql_text(g['model']), sql_text(g['full']), sql_text(g['arch']), sql_num(g['cc']),
             sql_text(g['sm']), sql_text(g['first']), sql_text(g['drv']), sql_text(g['doc']),
             sql_text_array(g['aliases']), sql_text(g['status']), sql_text(g['detail']),
             sql_text(g['source']), sql_text(g['notes'])] for g in gpus])
    insert(out, 'ref_driver_branch',
           ['branch', 'branch_type', 'type_basis', 'first_release', 'eol', 'eol_basis',
            'eol_official_text', 'eol_endoflife_date', 'latest_version', 'latest_version_date',
            'native_cuda', 'status', 'status_detail', 'source', 'notes'],
           [[sql_int(b['branch']), sql_text(b['type']), sql_text(b['basis']), sql_date(b['first']),
             sql_date(b['eol']), sql_text(b['eol_basis']), sql_text(b['eol_official_text']),
             sql_date(b['eol_eod']), sql_text(b['latest']), sql_date(b['latest_date']),
             sql_text(b['native']), sql_text(b['status']), sql_text(b['detail']),
             sql_text(b['source']), sql_text(b['notes'])] for b in branches])
    insert(out, 'ref_cudnn',
           ['cudnn_version', 'release_date', 'cuda_majors', 'cuda11_minors', 'cuda12_minors',
            'cuda13_minors', 'driver_min_cuda11', 'driver_min_cuda12', 'driver_min_cuda13',
            'min_driver', 'architectures', 'cc_min', 'cc_max', 'status', 'status_detail',
            'source', 'notes'],
           [[sql_text(c['v']), sql_date(c['date']), sql_int_array(c['majors']), sql_text(c['m11']),
             sql_text(c['m12']), sql_text(c['m13']), sql_text(c['d11']), sql_text(c['d12']),
             sql_text(c['d13']), sql_text(c['drv']), sql_text(c['arch']), sql_num(c['cmin']),
             sql_num(c['cmax']), sql_text(c['status']), sql_text(c['detail']),
             sql_text(c['source']), sql_text(c['notes'])] for c in cudnn])
    insert(out, 'ref_pytorch',
           ['pytorch_version', 'release', 'python', 'python_min', 'python_max', 'cuda_stable',
            'cuda_experimental', 'cuda_in_index', 'cudnn_bundled_stable',
            'cudnn_bundled_experimental', 'nccl_bundled', 'status', 'status_detail', 'source',
            'notes'],
           [[sql_text(p['v']), sql_text(p['release']), sql_text(p['python']), sql_text(p['pmin']),
             sql_text(p['pmax']), sql_text_array(p['stable']), sql_text_array(p['exp']),
             sql_text_array(p['idx']), sql_text(p['cudnn_s']), sql_text(p['cudnn_e']),
             sql_text(p['nccl']), sql_text(p['status']), sql_text(p['detail']),
             sql_text(p['source']), sql_text(p['notes'])] for p in torch])
    insert(out, 'ref_pytorch_build',
           ['pytorch_version', 'cuda_version', 'wheel_tag', 'channel', 'cudnn_version',
            'nccl_version', 'seen_in_index', 'status', 'source', 'notes'],
           [[sql_text(b['v']), sql_text(b['cuda']), sql_text(b['tag']), sql_text(b['channel']),
             sql_text(b['cudnn']), sql_text(b['nccl']), sql_bool(b['in_index']),
             sql_text(b['status']), sql_text(b['source']), 'NULL'] for b in torch_builds])
    insert(out, 'ref_tensorflow',
           ['tensorflow_version', 'python', 'python_min', 'python_max', 'compiler', 'build_tool',
            'cudnn', 'cuda', 'platform', 'status', 'status_detail', 'source', 'notes'],
           [[sql_text(t['v']), sql_text(t['python']), sql_text(t['pmin']), sql_text(t['pmax']),
             sql_text(t['compiler']), sql_text(t['build_tool']), sql_text(t['cudnn']),
             sql_text(t['cuda']), sql_text(t['platform']), sql_text(t['status']),
             sql_text(t['detail']), sql_text(t['source']), sql_text(t['notes'])] for t in tf])
    insert(out, 'ref_instance_type',
           ['provider', 'instance_type', 'family', 'gpu_model', 'gpu_count', 'gpu_memory_mib',
            'gpu_memory_gib', 'gpu_memory_gb_marketed', 'vcpus', 'memory_mib', 'host_arch',
            'price_per_hour', 'pricing_kind', 'currency', 'price_region', 'price_os',
            'price_as_of', 'status', 'status_detail', 'source', 'notes'],
           [[sql_text('aws'), sql_text(i['it']), sql_text(i['family']), sql_text(i['gpu']),
             sql_int(i['count']), sql_int(i['mib']), sql_num(i['gib']), sql_int(i['gb']),
             sql_int(i['vcpus']), sql_int(i['mem_mib']), sql_text(i['host_arch']),
             sql_num(i['price']), sql_text('on-demand'), sql_text('USD'), sql_text('us-east-1'),
             sql_text('linux'), sql_date(i['as_of']), sql_text(i['status']),
             sql_text(i['detail']), sql_text(i['source']), sql_text(i['notes'])] for i in inst])

    counts = [('ref_cuda_mvc', len(mvc)), ('ref_cuda_driver', len(cuda)),
              ('ref_gpu_arch', len(archs)), ('ref_gpu', len(gpus)),
              ('ref_driver_branch', len(branches)), ('ref_cudnn', len(cudnn)),
              ('ref_pytorch', len(torch)), ('ref_pytorch_build', len(torch_builds)),
              ('ref_tensorflow', len(tf)), ('ref_instance_type', len(inst))]
    return out.getvalue(), counts, S.dropped


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--src', default=DEFAULT_SRC, help='directory with the reference CSVs')
    ap.add_argument('--out', default=DEFAULT_OUT, help="output SQL file ('-' = stdout)")
    args = ap.parse_args(argv)
    try:
        sql, counts, dropped = generate(args.src)
    except (DataError, OSError, UnicodeDecodeError, csv.Error) as e:
        print('gen_reference: error: %s' % e, file=sys.stderr)
        return 1
    if args.out == '-':
        sys.stdout.write(sql)
    else:
        tmp = args.out + '.tmp'
        with open(tmp, 'w', encoding='utf-8', newline='\n') as f:
            f.write(sql)
        os.replace(tmp, args.out)
    for table, n in counts:
        print('%-20s %4d rows' % (table, n), file=sys.stderr)
    for table, key, reason in dropped:
        print('dropped %s %s: %s' % (table, key, reason), file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
