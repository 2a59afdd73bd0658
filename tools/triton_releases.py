#!/usr/bin/env python3
"""Triton Inference Server's own version <-> its NGC container release, read from the
triton-inference-server/server repository: each container release YY.MM is built from the
release branch rYY.MM, whose version file (VERSION, later TRITON_VERSION) holds the server's
version, and whose build.py (from 20.10) or README (to 20.08) states the pair.

    tools/triton_releases.py GIT_DIR > rows.csv   # GIT_DIR: a clone or mirror of the repository

A row is CONFIRMED when the branch itself states the pair (build.py's TRITON_VERSION_MAP,
DEFAULT_TRITON_VERSION_MAP or CONTAINER_VERSION_MAP, or the README's "The current release of
... is X and corresponds to the YY.MM release of the ... container") and it agrees with the
version file; SECONDARY when only the version file of the branch named after the release
pairs them. Development versions (1.13.0dev on r20.05: no release) are left out.
Standard library only; the output is the CSV tools/gen_knowledge.py --table version_alias_0370
reads (component, version, release, status, source, notes)."""
import csv
import re
import subprocess
import sys

REPO_URL = 'https://github.com/triton-inference-server/server'


def git(gd, *args):
    r = subprocess.run(['git', '--git-dir', gd] + list(args), capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def stated_by_build(src, release):
    """The server version build.py pairs with the container release, or None."""
    if not src:
        return None
    m = re.search(r'DEFAULT_TRITON_VERSION_MAP\s*=\s*\{(.*?)\n\}', src, re.S)
    if m:
        rv = re.search(r'"release_version":\s*"([^"]+)"', m.group(1))
        cv = re.search(r'"triton_container_version":\s*"([^"]+)"', m.group(1))
        return rv.group(1) if rv and cv and cv.group(1) == release else None
    m = re.search(r'TRITON_VERSION_MAP\s*=\s*\{(.*?)\n?\}', src, re.S)
    if m:
        for ver, rel in re.findall(r"['\"]([0-9][^'\"]*)['\"]\s*:\s*\(\s*['\"]([^'\"]+)['\"]",
                                   m.group(1)):
            if rel == release:
                return ver
    m = re.search(r"CONTAINER_VERSION_MAP\s*=\s*\{(.*?)\}", src, re.S)
    if m:
        for rel, ver in re.findall(r"['\"]([0-9.]+)['\"]\s*:\s*\([^)]*\),?\s*#\s*([0-9][0-9.]*)\b",
                                   m.group(1)):
            if rel == release:
                return ver
    return None


def stated_by_readme(text, release):
    m = re.search(r'current release of the [A-Za-z ]+ is ([0-9][0-9.a-z]*) and\s+corresponds\s+'
                  r'to\s+the\s+([0-9.]+)\s+release', text or '', re.S)
    return m.group(1) if m and m.group(2) == release else None


def main(gd):
    branches = sorted(b.strip() for b in git(gd, 'for-each-ref', '--format=%(refname:short)',
                                              'refs/heads/').split()
                      if re.fullmatch(r'r[0-9]{2}\.[0-9]{2}', b.strip()))
    w = csv.writer(sys.stdout, lineterminator='\n')
    w.writerow(['component', 'version', 'release', 'status', 'source', 'notes'])
    for b in branches:
        release = b[1:]
        sha = git(gd, 'rev-parse', b).strip()
        vfile = 'TRITON_VERSION' if git(gd, 'cat-file', '-e', '%s:TRITON_VERSION' % b) is not None \
            else 'VERSION'
        ver = (git(gd, 'show', '%s:%s' % (b, vfile)) or '').strip()
        if not re.fullmatch(r'[0-9]+\.[0-9]+\.[0-9]+', ver):
            print('left out %s: version file %r is not a release' % (b, ver), file=sys.stderr)
            continue
        by_build = stated_by_build(git(gd, 'show', '%s:build.py' % b), release)
        readme_name = 'README.md' if git(gd, 'cat-file', '-e', '%s:README.md' % b) is not None \
            else 'README.rst'
        by_readme = stated_by_readme(git(gd, 'show', '%s:%s' % (b, readme_name)), release)
        if by_build == ver:
            status, path = 'CONFIRMED', 'build.py'
            notes = ('release branch %s: build.py pairs Triton %s with container %s; %s says %s'
                     % (b, ver, release, vfile, ver))
        elif by_readme == ver:
            status, path = 'CONFIRMED', readme_name
            notes = ('release branch %s: the README says release %s corresponds to the %s '
                     'container; %s says %s' % (b, ver, release, vfile, ver))
        else:
            status, path = 'SECONDARY', vfile
            notes = ('release branch %s: only its %s (%s) pairs them, by the branch the %s '
                     'container is built from' % (b, vfile, ver, release))
            if by_readme:
                notes += ('; its README still names %s (not updated on the branch)' % by_readme)
        w.writerow(['triton-server', ver, release, status,
                    '%s/blob/%s/%s' % (REPO_URL, sha, path), notes])


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
