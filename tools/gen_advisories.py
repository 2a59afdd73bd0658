#!/usr/bin/env python3
"""Generates tools/demo/advisories.sql (the demo catalog's security advisories) from the NVIDIA
GPU Display Driver and Container Toolkit bulletins in ../shared/data/reference/advisories.csv.

    tools/gen_advisories.py [CSV] > tools/demo/advisories.sql

One advisory per bulletin (id NVIDIA-<bulletin>), one affected range per Linux row:
  driver rows   "all R<branch> versions prior to fixed version" -> nvidia-driver ">=BRANCH, <FIXED"
                (the datacenter fixed build, else the GeForce/RTX one when only that is listed)
  toolkit rows  "affected: <=X ..."                             -> nvidia-container-toolkit "<U"
                (U: X's builds bound, as a CSAF import of the same bulletin stores it: "<=1.16.1"
                fixed in 1.16.2 is "<1.16.2dev0"; see builds_bound)
Rows with no Linux driver (Windows-only bulletins) are skipped. Severity follows the highest
CVSS v3.1 score (>= 9 critical, >= 7 high, >= 4 medium, else low). Standard library only.
"""
import csv
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The stored copy of ../shared/data/reference/advisories.csv (as tools/gen_reference.py reads its
# CSVs from tools/reference/csv/); IMX_SHARED_DIR names a shared checkout to read instead.
SHARED = os.environ.get("IMX_SHARED_DIR")
DEFAULT_CSV = (os.path.join(SHARED, "data", "reference", "advisories.csv") if SHARED else
               os.path.join(REPO, "tools", "reference", "csv", "advisories.csv"))
VERSION = re.compile(r"v?(\d{1,9}(?:\.\d{1,9}){0,5})")


def q(s):
    """An SQL string literal, or NULL."""
    if s is None:
        return "NULL"
    return "'" + s.replace("'", "''") + "'"


def severity(cvss):
    if cvss >= 9.0:
        return "critical"
    if cvss >= 7.0:
        return "high"
    if cvss >= 4.0:
        return "medium"
    return "low"


def version_in(text):
    m = VERSION.search(text or "")
    return m.group(1) if m else None


def builds_bound(last, fixed):
    """The exclusive bound that stands for "X and its builds", as server/domain/csaf.c's
    imx_csaf_builds_bound computes it for a plain release X (the only kind these rows hold):
    X's last number plus one, below that version's pre-releases ("1.16.1" -> "1.16.2dev0", so a
    1.16.1-1 package is affected and 1.16.2rc1 is not), or the fix when it lies above X and
    below that. These rows are NVIDIA's Container Toolkit bulletins, whose CSAF documents
    (5582, 5585, 5599, 5616, 5659) a demo catalog may also import (imaxe advisories import):
    the demo advisory reads the bulletin's "<= X" as that import would, so the two never
    disagree on which images are affected and a re-import revises nothing. None when X is not
    a plain release (the bulletin's inclusive bound is kept)."""
    if not re.fullmatch(r"\d{1,9}(?:\.\d{1,9}){0,5}", last):
        return None
    parts = last.split(".")
    n = int(parts[-1]) + 1
    if n > 999999999:
        return None
    parts[-1] = "%0*d" % (len(parts[-1]), n)
    nxt = ".".join(parts)
    key = lambda v: tuple(int(x) for x in v.split(".")) + (0,) * (6 - len(v.split(".")))
    # "dev0" is a pre-release key only where the release, less trailing zeros, has at most four
    # parts (server/domain/version.h); past that the next version itself
    significant = len(parts)
    while significant > 2 and parts[significant - 1].strip("0") == "":
        significant -= 1
    bound = nxt + "dev0" if significant <= 4 else nxt
    if fixed and re.fullmatch(r"\d{1,9}(?:\.\d{1,9}){0,5}", fixed) and key(last) < key(fixed) < key(nxt):
        bound = fixed
    return bound


def affected_range(row):
    """(component, range, lo, lo_incl, hi, hi_incl, fixed) or None; lo/hi are version strings
    whose imx_version_key() is the bound (None: unbounded)."""
    branch = re.fullmatch(r"R(\d{3,4})", row["linux_branch"].strip())
    if branch:
        fixed = row["fixed_version_datacenter_tesla_or_package"].strip()
        if not version_in(fixed) or fixed.startswith("not"):
            fixed = row["fixed_version_geforce_rtx"].strip()
        fixed = version_in(fixed)
        if not fixed:
            return None
        b = branch.group(1)
        return ("nvidia-driver", ">=%s, <%s" % (b, fixed), b, True, fixed, False, fixed)
    rule = re.search(r"<=\s*v?([\d.]+\d)", row["affected_rule"])
    if "Container Toolkit" in row["product"] and rule:
        last = rule.group(1)
        fixed = version_in(row["fixed_version_datacenter_tesla_or_package"])
        bound = builds_bound(last, fixed)
        if bound is None:
            return ("nvidia-container-toolkit", "<=" + last, None, True, last, True, fixed)
        return ("nvidia-container-toolkit", "<" + bound, None, True, bound, False, fixed)
    return None


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_CSV
    advisories = {}
    order = []
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            rng = affected_range(row)
            if rng is None:
                continue
            aid = "NVIDIA-" + row["bulletin_id"].strip()
            if aid not in advisories:
                cvss = float(row["max_cvss_v3_1_all"])
                urls = [u.strip() for u in row["source"].split(";") if u.strip()]
                advisories[aid] = {
                    "title": row["title"].strip(),
                    "published": row["initial_publication"].strip(),
                    "cvss": cvss,
                    "severity": severity(cvss),
                    "cves": row["cve_ids_all"].split(),
                    "url": urls[0] if urls else None,
                    "ranges": [],
                }
                order.append(aid)
            advisories[aid]["ranges"].append(rng)

    out = sys.stdout
    out.write("-- Generated by tools/gen_advisories.py from ../shared/data/reference/advisories.csv;\n")
    out.write("-- do not edit. NVIDIA GPU Display Driver and Container Toolkit security bulletins.\n")
    out.write("-- Idempotent. Inserting the ranges fires the advisory_ranges trigger, which computes\n")
    out.write("-- image_advisories and patch_status for every family they affect.\n")
    out.write("BEGIN;\n")
    out.write("INSERT INTO advisories (id, title, published, severity, cvss, cves, url) VALUES\n")
    rows = []
    for aid in order:
        a = advisories[aid]
        cves = "ARRAY[%s]::text[]" % ", ".join(q(c) for c in a["cves"])
        rows.append("  (%s, %s, %s, %s, %.1f, %s, %s)" % (
            q(aid), q(a["title"]), q(a["published"]), q(a["severity"]), a["cvss"], cves,
            q(a["url"])))
    out.write(",\n".join(rows) + "\nON CONFLICT (id) DO NOTHING;\n\n")
    out.write("INSERT INTO advisory_ranges (advisory_id, ord, component, range, lo, lo_incl, hi,\n")
    out.write("                             hi_incl, fixed)\n")
    out.write("SELECT v.advisory_id, v.ord, v.component, v.range,\n")
    out.write("       coalesce(imx_version_key(v.lo), '{0,0,0,0,0,0}'), v.lo_incl,\n")
    out.write("       coalesce(imx_version_key(v.hi),\n")
    out.write("                '{999999999,999999999,999999999,999999999,999999999,999999999}'),\n")
    out.write("       v.hi_incl, v.fixed\n")
    out.write("FROM (VALUES\n")
    rows = []
    for aid in order:
        for i, (comp, rng, lo, lo_incl, hi, hi_incl, fixed) in enumerate(advisories[aid]["ranges"]):
            rows.append("  (%s, %d, %s, %s, %s, %s, %s, %s, %s)" % (
                q(aid), i, q(comp), q(rng), q(lo) + "::text", "true" if lo_incl else "false",
                q(hi) + "::text", "true" if hi_incl else "false", q(fixed) + "::text"))
    out.write(",\n".join(rows) + "\n")
    out.write(") AS v(advisory_id, ord, component, range, lo, lo_incl, hi, hi_incl, fixed)\n")
    out.write("WHERE NOT EXISTS (SELECT 1 FROM advisory_ranges r\n")
    out.write("                  WHERE r.advisory_id = v.advisory_id AND r.ord = v.ord);\n")
    out.write("COMMIT;\n")


if __name__ == "__main__":
    main()
