#!/usr/bin/env python3
"""Generate the reference rows that come straight from stored copies of their sources.

Each source is a text file under tools/reference/sources/: the fragment of the vendor's page or
file as it was read, with its URL, one fact a line. This generator turns each into a migration,
and fails naming the line when a fact cannot be read, so the tables are a function of the stored
sources: after a source changes, regenerate and commit (tests/reference/test_generated.sh fails
until you do).

Usage:  tools/gen_sources.py --table gpu|pytorch_arch|cudnn_cc|jax [--out FILE]  ('-': stdout)
        tools/gen_sources.py --all           (every table, each to its migration)
        tools/gen_sources.py --count TABLE   (the number of facts the source lists)

  gpu           sources/cuda-gpus.txt and sources/gpus-outside-nvidia-list.txt
                -> migrations/0111_gpu_rows.sql: every GPU NVIDIA lists, as a ref_gpu row
                   (inserted when no row resolves its name) or an alias of the row that does;
                   the migration then checks that every listed name resolves to a row with the
                   listed compute capability.
  pytorch_arch  sources/pytorch-cuda-arch.txt -> migrations/0112_pytorch_arch.sql: the
                   architectures each PyTorch wheel variant is built for
                   (ref_pytorch_build.cuda_archs).
  cudnn_cc      sources/cudnn-cc.txt -> migrations/0113_cudnn_cc.sql: the compute capabilities
                   each cuDNN release's support matrix lists, as a set (ref_cudnn.cc_list).
  jax           sources/jax-cuda.txt -> migrations/0115_jax_rows.sql: JAX's CUDA wheel variants
                   (ref_jax, schema in 0114).
  pytorch_arch_0220, cudnn_cc_0221
                sources/pytorch-cuda-arch-0220.txt and cudnn-cc-0221.txt -> 0220 / 0221: the
                   lists read after 0112 / 0113 were applied (same formats and rules).
  cudnn_releases
                sources/cudnn-releases.txt -> 0311: every cuDNN 8.9.x / 9.x release (NVIDIA's
                   redistributable manifests); a release with no ref_cudnn row becomes one.
  cudnn_cc_0312 sources/cudnn-cc-0312.txt -> 0312: every release's compute-capability set, with
                   its status (CONFIRMED where the release's own matrix was read, UNCONFIRMED where
                   DERIVED from the neighbouring ones) in ref_cudnn.cc_list_status.
  cuda_cc       sources/cuda-cc.txt -> 0313: every compute capability NVIDIA lists, with the first
                   CUDA toolkit that builds for it and the first that no longer does
                   (ref_compute_capability).

Deterministic (same sources, byte-identical SQL); the header carries each source's sha256.
Values reach the SQL through tools/gen_reference.py's quoting functions.
"""

import argparse
import hashlib
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_reference import DataError, sql_text  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = os.path.join(REPO, 'tools', 'reference', 'sources')

TABLES = {
    'gpu': (['cuda-gpus.txt', 'gpus-outside-nvidia-list.txt'], '0111_gpu_rows.sql'),
    'pytorch_arch': (['pytorch-cuda-arch.txt'], '0112_pytorch_arch.sql'),
    'cudnn_cc': (['cudnn-cc.txt'], '0113_cudnn_cc.sql'),
    'jax': (['jax-cuda.txt'], '0115_jax_rows.sql'),
    # Lists read after a migration was applied go to a new source file and migration (editing an
    # applied one would change its checksum); a later line for the same row wins.
    'pytorch_arch_0220': (['pytorch-cuda-arch-0220.txt'], '0220_pytorch_arch_more.sql'),
    'cudnn_cc_0221': (['cudnn-cc-0221.txt'], '0221_cudnn_cc_more.sql'),
    # Issue 31: each list whole, so coverage is a count (tests/reference/test_coverage.py).
    'cudnn_releases': (['cudnn-releases.txt'], '0311_cudnn_releases.sql'),
    'cudnn_cc_0312': (['cudnn-cc-0312.txt'], '0312_cudnn_cc_sets.sql'),
    'cuda_cc': (['cuda-cc.txt'], '0313_cc_rows.sql'),
}

CC = re.compile(r'^[0-9]{1,2}[.][0-9]$')
ARCHS = re.compile(r'^[0-9]{1,2}[.][0-9](\+PTX)?(;[0-9]{1,2}[.][0-9](\+PTX)?){0,31}$')
VERSION = re.compile(r'^[0-9]{1,9}([.][0-9]{1,9}){0,5}$')
STATUSES = ('CONFIRMED', 'SECONDARY', 'UNCONFIRMED')
SEGMENTS = ('datacenter', 'workstation', 'consumer', 'jetson')


def fail(where, msg):
    raise DataError('%s: %s' % (where, msg))


def read_source(name):
    """(urls, [(where, fields)], sha256) of one source file: '#' lines are comments, '@url' lines
    name the page, every other line is '|'-separated fields."""
    path = os.path.join(SOURCES, name)
    raw = open(path, 'rb').read()
    urls, facts = [], []
    for n, line in enumerate(raw.decode('utf-8').splitlines(), start=1):
        where = '%s:%d' % (name, n)
        if not line.strip() or line.startswith('#'):
            continue
        if line.startswith('@url '):
            urls.append(line[5:].strip())
            continue
        facts.append((where, [f.strip() for f in line.split('|')]))
    if not urls:
        fail(name, 'no @url line names the source')
    return urls, facts, hashlib.sha256(raw).hexdigest()


def header(table, sha, *text):
    """The opening lines of a one-source migration: what made it, from which source (its sha256),
    then text, lines whose first goes on from 'Do not edit: ...'; a blank line ends it."""
    return ['-- GENERATED by tools/gen_sources.py --table %s from' % table,
            '-- tools/reference/sources/%s (sha256 %s).' % (TABLES[table][0][0], sha),
            '-- Do not edit: change the source and regenerate. ' + text[0]] + \
        ['-- ' + t for t in text[1:]] + ['']


def must_exist(where, row, statement):
    """A DO block running statement (an UPDATE or PERFORM of one row, its lines ending in newlines)
    that fails naming the source line when the row is not there."""
    return ('DO $$ BEGIN\n' + statement +
            "  IF NOT FOUND THEN RAISE EXCEPTION '%s: no %s'; END IF;\n" % (where, row) +
            'END $$;')


def need_https(where, source):
    if not source.startswith('https://'):
        fail(where, 'source must be an https URL')


def architecture(cc, where):
    """NVIDIA's architecture of a compute capability (the architecture matrix's CC lists, with
    7.2 Volta (Xavier), 6.2 Pascal (TX2) and 8.7 Ampere (Orin) as NVIDIA's Jetson pages name
    them)."""
    major, minor = (int(x) for x in cc.split('.'))
    if major == 3:
        return 'Kepler'
    if major == 5:
        return 'Maxwell'
    if major == 6:
        return 'Pascal'
    if major == 7:
        return 'Turing' if minor == 5 else 'Volta'
    if major == 8:
        return 'Ada' if minor == 9 else 'Ampere'
    if major == 9:
        return 'Hopper'
    if major in (10, 11, 12):
        return 'Blackwell'
    fail(where, 'no architecture known for compute capability %s' % cc)


def norm(name):
    """Like SQL imx_ref_gpu_norm() and compat.c gpu_norm(): lower-case alphanumerics, without a
    leading nvidia and then tesla."""
    s = re.sub(r'[^a-z0-9]', '', name.lower())
    for p in ('nvidia', 'tesla'):
        if s.startswith(p) and len(s) > len(p):
            s = s[len(p):]
    return s


# Listed name -> the existing ref_gpu row it is (rows of 0003/0016 whose name differs from what
# the rule below would make of the listed one).
EXISTING = {
    'NVIDIA GB10 (DGX Spark)': 'GB10',
    'NVIDIA RTX PRO 6000 Blackwell Server Edition': 'RTX PRO 6000',
    'NVIDIA RTX PRO 4500 Blackwell Server Edition': 'RTX PRO 4500',
    'NVIDIA RTX PRO 6000 Blackwell Workstation Edition': 'RTX PRO 6000 Workstation',
    'NVIDIA RTX PRO 4500 Blackwell': 'RTX PRO 4500 Workstation',
    'NVIDIA RTX PRO 5000 Blackwell': 'RTX PRO 5000',
    'NVIDIA RTX PRO 4000 Blackwell': 'RTX PRO 4000',
    'NVIDIA RTX PRO 2000 Blackwell': 'RTX PRO 2000',
}


def gpu_model(name):
    """The canonical ref_gpu name of a listed GPU: the name without the brand words ("NVIDIA",
    "GeForce", "Tesla"), "QUADRO" as "Quadro", and no punctuation (the column allows letters,
    digits and spaces)."""
    if name in EXISTING:
        return EXISTING[name]
    words = [w for w in name.replace('-', ' ').split() if w not in ('NVIDIA', 'GeForce', 'Tesla')]
    words = ['Quadro' if w == 'QUADRO' else w for w in words]
    model = ' '.join(words)
    model = model.replace(' Blackwell', '').replace(' Workstation Edition', ' Workstation')
    model = model.replace(' SFF Edition', ' SFF')
    return re.sub(r'[^A-Za-z0-9 ]', '', model)


def gpu_facts():
    out, shas = [], []
    for name in TABLES['gpu'][0]:
        urls, facts, sha = read_source(name)
        shas.append('%s sha256 %s' % (name, sha))
        for where, f in facts:
            if len(f) != 4:
                fail(where, 'want cc|segment|name|how read')
            cc, segment, listed, how = f
            if not CC.match(cc):
                fail(where, 'not a compute capability: %r' % cc)
            if segment not in SEGMENTS:
                fail(where, 'segment must be one of ' + ', '.join(SEGMENTS))
            if how in ('nvidia', 'nvidia-legacy'):
                status = 'CONFIRMED'
                source = urls[0] if how == 'nvidia' else urls[-1]
            elif how.startswith('secondary '):
                status = 'SECONDARY'
                source = how[len('secondary '):]
                if not source.startswith('https://'):
                    fail(where, 'a secondary row names its https source')
                source = '%s ; %s' % (urls[0], source)
            else:
                fail(where, 'how read must be nvidia, nvidia-legacy or "secondary <url>"')
            out.append(dict(where=where, cc=cc, segment=segment, listed=listed, status=status,
                            source=source, model=gpu_model(listed),
                            arch=architecture(cc, where)))
    seen = {}
    for g in out:
        k = norm(g['listed'])
        if k in seen:
            fail(g['where'], '%r is listed twice (also %s)' % (g['listed'], seen[k]))
        seen[k] = g['where']
    return out, shas


def generate_gpu():
    facts, shas = gpu_facts()
    lines = [
        '-- GENERATED by tools/gen_sources.py --table gpu from tools/reference/sources/',
        '-- (%s).' % '; '.join(shas),
        '-- Do not edit: change the sources and regenerate. Every GPU on NVIDIA\'s compute-capability',
        '-- lists (%d names): a ref_gpu row when no row resolves the name yet, else an alias of' % len(facts),
        '-- the row that is meant; then a check that every name resolves to its compute capability.',
        '',
    ]
    for g in facts:
        sm = 'sm_' + g['cc'].replace('.', '')
        note = 'listed by NVIDIA as %s (%s, compute capability %s)' % (g['listed'], g['segment'],
                                                                        g['cc'])
        lines.append(
            'INSERT INTO ref_gpu (gpu_model, full_name, architecture, compute_capability, '
            'sm_target, aliases, status, status_detail, source, notes)\n'
            '  SELECT %s, %s, %s, %s, %s, ARRAY[%s]::text[], %s, %s, %s, %s\n'
            '  WHERE imx_ref_gpu_canonical(%s) IS NULL AND imx_ref_gpu_canonical(%s) IS NULL\n'
            '  ON CONFLICT (gpu_model) DO NOTHING;' % (
                sql_text(g['model']), sql_text(g['listed']), sql_text(g['arch']), g['cc'],
                sql_text(sm), sql_text(g['listed']), sql_text(g['status']),
                sql_text('segment ' + g['segment']), sql_text(g['source']), sql_text(note),
                sql_text(g['listed']), sql_text(g['model'])))
        lines.append(
            'UPDATE ref_gpu SET aliases = aliases || %s::text\n'
            '  WHERE gpu_model = %s AND imx_ref_gpu_canonical(%s) IS NULL;' % (
                sql_text(g['listed']), sql_text(g['model']), sql_text(g['listed'])))
    lines += ['', 'DO $$', 'DECLARE', '  r record;', '  got numeric;', 'BEGIN',
              '  FOR r IN SELECT * FROM (VALUES']
    lines.append(',\n'.join('    (%s, %s, %s)' % (sql_text(g['listed']), g['cc'],
                                                   sql_text(g['where'])) for g in facts))
    lines += ['  ) AS t(listed, cc, src) LOOP',
              '    SELECT compute_capability INTO got FROM ref_gpu',
              '     WHERE gpu_model = imx_ref_gpu_canonical(r.listed);',
              '    IF got IS DISTINCT FROM r.cc THEN',
              "      RAISE EXCEPTION '%: % resolves to compute capability %, not %', r.src, r.listed, got, r.cc;",
              '    END IF;', '  END LOOP;', 'END $$;', '']
    return '\n'.join(lines)


def pytorch_arch_facts(table='pytorch_arch'):
    urls, facts, sha = read_source(TABLES[table][0][0])
    out = []
    keys = set()
    for where, f in facts:
        if len(f) != 5:
            fail(where, 'want release|cuda|archs|status|source')
        rel, cuda, archs, status, source = f
        if not re.fullmatch(r'[0-9]+[.][0-9]+', rel) or not re.fullmatch(r'[0-9]+[.][0-9]+',
                                                                          cuda):
            fail(where, 'release and cuda are major.minor')
        if not ARCHS.match(archs):
            fail(where, 'architectures must be like 7.5;8.0;12.0+PTX: %r' % archs)
        if status not in STATUSES or status == 'UNCONFIRMED':
            fail(where, 'status must be CONFIRMED or SECONDARY (leave an unknown list out)')
        need_https(where, source)
        if (rel, cuda) in keys:
            fail(where, 'a second line for %s cu%s' % (rel, cuda))
        keys.add((rel, cuda))
        out.append(dict(where=where, rel=rel, cuda=cuda, archs=archs, status=status,
                        source=source))
    return out, sha


def generate_pytorch_arch(table='pytorch_arch'):
    facts, sha = pytorch_arch_facts(table)
    lines = header(table, sha, 'The CUDA architectures each PyTorch',
                   'wheel variant is built for (%d release/variant pairs); the row must exist.'
                   % len(facts))
    for p in facts:
        lines.append(must_exist(
            p['where'], 'ref_pytorch_build row %s cu%s' % (p['rel'], p['cuda']),
            '  UPDATE ref_pytorch_build SET cuda_archs = %s, cuda_archs_status = %s,\n'
            '    cuda_archs_source = %s\n'
            '   WHERE pytorch_version = %s AND cuda_version = %s;\n'
            % (sql_text(p['archs']), sql_text(p['status']), sql_text(p['source']),
               sql_text(p['rel']), sql_text(p['cuda']))))
    return '\n'.join(lines) + '\n'


def cudnn_cc_facts(table='cudnn_cc'):
    urls, facts, sha = read_source(TABLES[table][0][0])
    out = []
    for where, f in facts:
        if len(f) != 4:
            fail(where, 'want cudnn|ccs|status|source')
        ver, ccs, status, source = f
        if not VERSION.match(ver):
            fail(where, 'not a dotted version: %r' % ver)
        cl = ccs.split(';')
        if not cl or not all(CC.match(c) for c in cl):
            fail(where, 'compute capabilities must be like 7.5;8.0;12.0: %r' % ccs)
        if status not in ('CONFIRMED', 'SECONDARY'):
            fail(where, 'status must be CONFIRMED or SECONDARY')
        need_https(where, source)
        out.append(dict(where=where, ver=ver, ccs=sorted(cl, key=lambda c: float(c)),
                        status=status, source=source))
    return out, sha


def generate_cudnn_cc(table='cudnn_cc'):
    facts, sha = cudnn_cc_facts(table)
    lines = header(table, sha, 'The compute capabilities each cuDNN',
                   'release\'s support matrix lists, as a set (%d releases); the row must exist.'
                   % len(facts))
    for c in facts:
        note = 'cc_list = {%s} (%s, %s)' % (','.join(c['ccs']), c['status'], c['source'])
        lines.append(must_exist(
            c['where'], 'ref_cudnn row %s' % c['ver'],
            '  UPDATE ref_cudnn SET cc_list = ARRAY[%s]::numeric[],\n'
            '    cc_min = %s, cc_max = %s,\n'
            '    notes = concat_ws(\'; \', notes, %s)\n'
            '   WHERE cudnn_version = %s;\n'
            % (', '.join(c['ccs']), c['ccs'][0], c['ccs'][-1], sql_text(note),
               sql_text(c['ver']))))
    return '\n'.join(lines) + '\n'


DATE = re.compile(r'^[0-9]{4}-[0-9]{2}-[0-9]{2}$')
MVC_FLOOR = {11: '450.80.02', 12: '525.60.13', 13: '580.65.06'}


def cudnn_release_facts():
    urls, facts, sha = read_source(TABLES['cudnn_releases'][0][0])
    out, seen = [], set()
    for where, f in facts:
        if len(f) != 5:
            fail(where, 'want cudnn|release date or -|CUDA majors or -|status|source')
        ver, date, majors, status, source = f
        if not VERSION.match(ver) or not ver.split('.')[0] in ('8', '9'):
            fail(where, 'not a cuDNN 8/9 version: %r' % ver)
        if ver in seen:
            fail(where, 'a second line for %s' % ver)
        seen.add(ver)
        if date != '-' and not DATE.match(date):
            fail(where, 'release date must be YYYY-MM-DD or -')
        if majors == '-':
            ml = None
        else:
            ml = [int(m) for m in majors.split(';') if re.fullmatch(r'1[1-3]', m)]
            if len(ml) != len(majors.split(';')):
                fail(where, 'CUDA majors must be like 12;13 (11, 12 or 13)')
        if status not in STATUSES:
            fail(where, 'status must be one of ' + ', '.join(STATUSES))
        if status != 'UNCONFIRMED' and ml is None:
            fail(where, 'a CONFIRMED release names its CUDA majors')
        need_https(where, source)
        out.append(dict(where=where, ver=ver, date=None if date == '-' else date, majors=ml,
                        status=status, source=source))
    return out, sha


def generate_cudnn_releases():
    facts, sha = cudnn_release_facts()
    lines = header(
        'cudnn_releases', sha, 'Every cuDNN 8.9.x / 9.x release (%d): a' % len(facts),
        'release NVIDIA\'s manifest names and no row holds becomes a row (PARTIAL: its CUDA minors',
        'and support matrix not read, its driver floors the CUDA majors\' minor-version-compatibility',
        'floors); an UNCONFIRMED row gains what the manifest says; other rows stay as they are.')
    for c in facts:
        if c['status'] == 'UNCONFIRMED':
            lines.append(must_exist(
                c['where'], 'ref_cudnn row %s' % c['ver'],
                '  PERFORM 1 FROM ref_cudnn WHERE cudnn_version = %s;\n' % sql_text(c['ver'])))
            continue
        m = c['majors']
        floors = [MVC_FLOOR[k] if k in m else None for k in (11, 12, 13)]
        min_driver = '; '.join('>=%s (CUDA %d.x builds)' % (MVC_FLOOR[k], k) for k in m)
        lines.append(
            'INSERT INTO ref_cudnn (cudnn_version, release_date, cuda_majors, driver_min_cuda11,\n'
            '    driver_min_cuda12, driver_min_cuda13, min_driver, status, status_detail, source, notes)\n'
            '  VALUES (%s, %s, ARRAY[%s]::int[], %s, %s, %s, %s, \'PARTIAL\',\n'
            '    \'existence, release date and CUDA builds CONFIRMED (NVIDIA redistributable manifest); CUDA minors and support matrix not read\',\n'
            '    %s, \'driver floors assumed from the CUDA minor-version-compatibility floors, not read from a cuDNN matrix\')\n'
            '  ON CONFLICT (cudnn_version) DO UPDATE SET release_date = EXCLUDED.release_date,\n'
            '    cuda_majors = EXCLUDED.cuda_majors, driver_min_cuda11 = EXCLUDED.driver_min_cuda11,\n'
            '    driver_min_cuda12 = EXCLUDED.driver_min_cuda12,\n'
            '    driver_min_cuda13 = EXCLUDED.driver_min_cuda13, min_driver = EXCLUDED.min_driver,\n'
            '    status = EXCLUDED.status, status_detail = EXCLUDED.status_detail,\n'
            '    source = EXCLUDED.source, notes = concat_ws(\'; \', ref_cudnn.notes, EXCLUDED.notes)\n'
            "  WHERE ref_cudnn.status = 'UNCONFIRMED';" % (
                sql_text(c['ver']),
                "DATE '%s'" % c['date'] if c['date'] else 'NULL',
                ', '.join(str(k) for k in m),
                *(sql_text(x) for x in floors), sql_text(min_driver), sql_text(c['source'])))
    return '\n'.join(lines) + '\n'


def cudnn_set_facts():
    urls, facts, sha = read_source(TABLES['cudnn_cc_0312'][0][0])
    out, seen = [], set()
    for where, f in facts:
        if len(f) != 4:
            fail(where, 'want cudnn|ccs|status|source')
        ver, ccs, status, source = f
        if not VERSION.match(ver):
            fail(where, 'not a dotted version: %r' % ver)
        if ver in seen:
            fail(where, 'a second line for %s' % ver)
        seen.add(ver)
        cl = ccs.split(';')
        if not all(CC.match(c) for c in cl) or len(set(cl)) != len(cl):
            fail(where, 'compute capabilities must be like 7.5;8.0;12.0, each once: %r' % ccs)
        if status not in STATUSES:
            fail(where, 'status must be one of ' + ', '.join(STATUSES))
        if status == 'UNCONFIRMED' and not source.startswith('DERIVED'):
            fail(where, 'an UNCONFIRMED set says how it was DERIVED')
        if 'https://' not in source or (status != 'UNCONFIRMED' and not source.startswith('https://')):
            fail(where, 'the source names an https URL')
        out.append(dict(where=where, ver=ver, ccs=sorted(cl, key=lambda c: float(c)),
                        status=status, source=source))
    return out, sha


def generate_cudnn_sets():
    facts, sha = cudnn_set_facts()
    lines = header(
        'cudnn_cc_0312', sha, 'The compute-capability set of every cuDNN',
        'release (%d; %d read from the release\'s own matrix, the rest UNCONFIRMED: DERIVED from the'
        % (len(facts), sum(1 for c in facts if c['status'] != 'UNCONFIRMED')),
        'matrices around them; cc_min/cc_max change only with a read set). The row must exist.')
    for c in facts:
        span = ''
        if c['status'] != 'UNCONFIRMED':
            span = '    cc_min = %s, cc_max = %s,\n' % (c['ccs'][0], c['ccs'][-1])
        lines.append(must_exist(
            c['where'], 'ref_cudnn row %s' % c['ver'],
            '  UPDATE ref_cudnn SET cc_list = ARRAY[%s]::numeric[], cc_list_status = %s,\n'
            '%s'
            '    cc_list_source = %s\n'
            '   WHERE cudnn_version = %s;\n'
            % (', '.join(c['ccs']), sql_text(c['status']), span, sql_text(c['source']),
               sql_text(c['ver']))))
    return '\n'.join(lines) + '\n'


ARCHES = ('Kepler', 'Maxwell', 'Pascal', 'Volta', 'Turing', 'Ampere', 'Ada', 'Hopper', 'Blackwell')
CC_STATUSES = ('CONFIRMED', 'SECONDARY', 'PARTIAL', 'UNCONFIRMED')


def cuda_cc_facts():
    urls, facts, sha = read_source(TABLES['cuda_cc'][0][0])
    out, seen = [], set()
    for where, f in facts:
        if len(f) != 7:
            fail(where, 'want cc|architecture|first CUDA|dropped CUDA or -|status|source|note')
        cc, arch, first, dropped, status, source, note = f
        if not CC.match(cc) or cc in seen:
            fail(where, 'a compute capability, once: %r' % cc)
        seen.add(cc)
        if arch not in ARCHES or arch != architecture(cc, where):
            fail(where, 'architecture of %s is %s' % (cc, architecture(cc, where)))
        if not re.fullmatch(r'[0-9]+[.][0-9]+', first):
            fail(where, 'first CUDA is major.minor')
        if dropped != '-' and (not re.fullmatch(r'[0-9]+[.][0-9]+', dropped) or
                               [int(x) for x in dropped.split('.')] <= [int(x) for x in first.split('.')]):
            fail(where, 'dropped CUDA is major.minor, after the first')
        if status not in CC_STATUSES:
            fail(where, 'status must be one of ' + ', '.join(CC_STATUSES))
        need_https(where, source)
        out.append(dict(where=where, cc=cc, arch=arch, first=first,
                        dropped=None if dropped == '-' else dropped, status=status,
                        source=source, note=note or None))
    return out, sha


def generate_cuda_cc():
    facts, sha = cuda_cc_facts()
    lines = header(
        'cuda_cc', sha, 'Every compute capability NVIDIA lists (%d):' % len(facts),
        'the first CUDA toolkit that builds for it and the first that no longer does.') + [
        'INSERT INTO ref_compute_capability (compute_capability, architecture, sm_target, first_cuda,',
        '    dropped_cuda, status, status_detail, source, notes) VALUES']
    vals = []
    for c in facts:
        vals.append('  (%s, %s, %s, %s, %s, %s, NULL, %s, %s)' % (
            c['cc'], sql_text(c['arch']), sql_text('sm_' + c['cc'].replace('.', '')),
            sql_text(c['first']), sql_text(c['dropped']), sql_text(c['status']),
            sql_text(c['source']), sql_text(c['note'])))
    lines.append(',\n'.join(vals))
    lines += [
        '  ON CONFLICT (compute_capability) DO UPDATE SET architecture = EXCLUDED.architecture,',
        '    sm_target = EXCLUDED.sm_target, first_cuda = EXCLUDED.first_cuda,',
        '    dropped_cuda = EXCLUDED.dropped_cuda, status = EXCLUDED.status,',
        '    status_detail = EXCLUDED.status_detail, source = EXCLUDED.source, notes = EXCLUDED.notes;',
        '']
    return '\n'.join(lines)


JAX_COLS = ['variant', 'cuda_built', 'cuda_min', 'cudnn_built', 'cudnn_min', 'cudnn_below',
            'nccl_min', 'driver_branch_min', 'cc_min', 'status', 'source']


def jax_facts():
    urls, facts, sha = read_source(TABLES['jax'][0][0])
    out = []
    for where, f in facts:
        if len(f) != len(JAX_COLS):
            fail(where, 'want ' + '|'.join(JAX_COLS))
        r = dict(zip(JAX_COLS, f))
        if not re.fullmatch(r'cuda[0-9]{2}', r['variant']):
            fail(where, 'variant must be like cuda12: %r' % r['variant'])
        for c in ('cuda_built', 'cuda_min', 'cudnn_built', 'cudnn_min', 'cudnn_below', 'nccl_min'):
            if not VERSION.match(r[c]):
                fail(where, '%s is not a dotted version: %r' % (c, r[c]))
        major = r['variant'][4:]
        if r['cuda_built'].split('.')[0] != major or r['cuda_min'].split('.')[0] != major:
            fail(where, 'the CUDA versions must be of the variant\'s major %s' % major)
        if not re.fullmatch(r'[0-9]{3,4}', r['driver_branch_min']):
            fail(where, 'driver_branch_min must be a branch number')
        if not CC.match(r['cc_min']):
            fail(where, 'cc_min must be a compute capability')
        if r['status'] not in ('CONFIRMED', 'SECONDARY'):
            fail(where, 'status must be CONFIRMED or SECONDARY')
        need_https(where, r['source'])
        r['where'] = where
        r['cuda_major'] = str(int(major))
        out.append(r)
    return out, sha


def generate_jax():
    facts, sha = jax_facts()
    cols = ['variant', 'cuda_major', 'cuda_built', 'cuda_min', 'cudnn_built', 'cudnn_min',
            'cudnn_below', 'nccl_min', 'driver_branch_min', 'cc_min', 'status', 'source']
    lines = header('jax', sha, 'JAX\'s CUDA wheel variants (%d), schema in' % len(facts),
                   '0114.') + ['INSERT INTO ref_jax (%s) VALUES' % ', '.join(cols)]
    vals = []
    for r in facts:
        vals.append('  (%s)' % ', '.join(
            r[c] if c in ('cuda_major', 'driver_branch_min', 'cc_min') else sql_text(r[c])
            for c in cols))
    return '\n'.join(lines) + '\n' + ',\n'.join(vals) + ';\n'


# Each table's reader of its facts and writer of its migration.
READERS = {'gpu': (gpu_facts, generate_gpu),
           'pytorch_arch': (pytorch_arch_facts, generate_pytorch_arch),
           'cudnn_cc': (cudnn_cc_facts, generate_cudnn_cc), 'jax': (jax_facts, generate_jax),
           'pytorch_arch_0220': (lambda: pytorch_arch_facts('pytorch_arch_0220'),
                                 lambda: generate_pytorch_arch('pytorch_arch_0220')),
           'cudnn_cc_0221': (lambda: cudnn_cc_facts('cudnn_cc_0221'),
                             lambda: generate_cudnn_cc('cudnn_cc_0221')),
           'cudnn_releases': (cudnn_release_facts, generate_cudnn_releases),
           'cudnn_cc_0312': (cudnn_set_facts, generate_cudnn_sets),
           'cuda_cc': (cuda_cc_facts, generate_cuda_cc)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--table', choices=sorted(TABLES))
    ap.add_argument('--all', action='store_true')
    ap.add_argument('--count', choices=sorted(TABLES))
    ap.add_argument('--out')
    a = ap.parse_args(argv)
    try:
        if a.count:
            print(len(READERS[a.count][0]()[0]))
            return 0
        names = sorted(TABLES) if a.all else [a.table] if a.table else []
        if not names:
            ap.error('--table, --all or --count')
        for name in names:
            sql = READERS[name][1]()
            out = a.out if a.out and not a.all else os.path.join(REPO, 'migrations',
                                                                 TABLES[name][1])
            if out == '-':
                sys.stdout.write(sql)
            else:
                with open(out, 'w') as f:
                    f.write(sql)
    except (DataError, OSError) as e:
        print('gen_sources: %s' % e, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
