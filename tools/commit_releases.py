#!/usr/bin/env python3
"""The first release of a component that contains a code commit, read from the component's own
repository, for the bulletins that name their fix by commit ("All versions that do not include
code commit 9e95f50", "Any code branch that includes commit 5dd11f4"; migration 0410).

    tools/commit_releases.py COMPONENT GIT_DIR URL COMMIT... [--version-file PATH] > rows.csv

GIT_DIR is a clone or mirror of the repository at URL (https://github.com/OWNER/NAME). For each
commit: the release tags (v1.2.3, 23.08.00, 25.07: a dotted number, optional leading "v") that
contain it (`git tag --contains`), the lowest by version order, is CONFIRMED. With no such tag
and --version-file (pyproject.toml, setup.py), the first commit on the line after it that
changes the version written in that file, and contains the commit, gives a SECONDARY release (the
repository bumps versions without tagging them). Otherwise the row has no release: no release
contains the commit as of the newest commit of the snapshot (as_of), which the import states as
the reason it leaves the product out. Standard library only; the output is the CSV
tools/gen_knowledge.py --table commit_release_0411 reads (component, commit, release, as_of,
status, source, notes)."""
import csv
import re
import subprocess
import sys

TAG = re.compile(r'^v?([0-9]+(?:[.][0-9]+)*)$')
VERSION_LINE = re.compile(r'''^\+\s*version\s*=\s*["']([0-9]+(?:[.][0-9]+)*)["']''', re.M)


def git(gd, *args):
    r = subprocess.run(['git', '--git-dir', gd] + list(args), capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def key(v):
    return tuple(int(x) for x in v.split('.'))


def bump_after(gd, full, path):
    """(version, commit) of the first change of path's version after commit full, or None."""
    log = git(gd, 'log', '--reverse', '--ancestry-path', '--format=%H', '%s..HEAD' % full, '--', path)
    for c in (log or '').split():
        m = VERSION_LINE.search(git(gd, 'show', '--format=', c, '--', path) or '')
        if m:
            return m.group(1), c
    return None


def main(argv):
    vfile = None
    if '--version-file' in argv:
        i = argv.index('--version-file')
        vfile = argv[i + 1]
        del argv[i:i + 2]
    if len(argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    component, gd, url = argv[:3]
    as_of = (git(gd, 'log', '-1', '--all', '--format=%cs') or '').strip()
    w = csv.writer(sys.stdout, lineterminator='\n')
    w.writerow(['component', 'commit', 'release', 'as_of', 'status', 'source', 'notes'])
    for short in argv[3:]:
        full = (git(gd, 'rev-parse', '--verify', '--quiet', short + '^{commit}') or '').strip()
        if not full:
            sys.stderr.write('%s: no such commit in %s\n' % (short, gd))
            return 1
        tags = [t for t in (git(gd, 'tag', '--contains', full) or '').split() if TAG.match(t)]
        tags.sort(key=lambda t: key(TAG.match(t).group(1)))
        if tags:
            t = tags[0]
            w.writerow([component, full, TAG.match(t).group(1), as_of, 'CONFIRMED',
                        '%s/releases/tag/%s' % (url, t),
                        'git tag --contains %s: %s is the lowest release tag holding it' % (short, t)])
            continue
        bump = bump_after(gd, full, vfile) if vfile else None
        if bump:
            w.writerow([component, full, bump[0], as_of, 'SECONDARY',
                        '%s/blob/%s/%s' % (url, bump[1], vfile),
                        'no release tag holds %s; %s, the first change of the version in %s after '
                        'it, sets %s and contains it' % (short, bump[1][:7], vfile, bump[0])])
            continue
        w.writerow([component, full, '', as_of, 'CONFIRMED', '%s/commit/%s' % (url, full),
                    'git tag --contains %s: no release tag holds it (snapshot of %s)' % (short, as_of)])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
