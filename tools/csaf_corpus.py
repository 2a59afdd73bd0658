#!/usr/bin/env python3
"""Builds imaxe's CSAF test corpus (tests/data/csaf/feed/) from a checkout of NVIDIA's security
feed (https://github.com/NVIDIA/product-security): every bulletin of the years given, trimmed to
what the import reads (document.tracking, title, publisher, csaf_version, aggregate_severity,
the "self" reference; the product tree; each vulnerability's cve, scores and product_status).
The prose (notes, remediations, acknowledgments, threats) is dropped.

  tools/csaf_corpus.py CHECKOUT [--years 2022,2023,2024,2025,2026] [--out tests/data/csaf/feed]

Writes YEAR/ID.json (the feed's own layout, so `imaxe advisories import` reads the corpus as it
reads a checkout) and prints one line per bulletin."""
import argparse
import json
import os
import sys


def trim(doc):
    d = doc.get("document", {})
    out_doc = {k: d[k] for k in ("csaf_version", "title", "category", "lang") if k in d}
    if "publisher" in d:
        out_doc["publisher"] = {k: d["publisher"][k] for k in ("name", "namespace", "category")
                                if k in d["publisher"]}
    if "aggregate_severity" in d:
        out_doc["aggregate_severity"] = d["aggregate_severity"]
    t = d.get("tracking", {})
    out_doc["tracking"] = {k: t[k] for k in ("id", "version", "status", "initial_release_date",
                                             "current_release_date") if k in t}
    refs = [r for r in d.get("references", []) if r.get("category") == "self"]
    if refs:
        out_doc["references"] = refs
    vulns = []
    for v in doc.get("vulnerabilities", []):
        nv = {k: v[k] for k in ("cve", "scores", "product_status") if k in v}
        for s in nv.get("scores", []):
            for key in ("cvss_v3", "cvss_v4"):
                if key in s:
                    s[key] = {k: s[key][k] for k in ("version", "baseScore", "baseSeverity",
                                                     "vectorString") if k in s[key]}
        vulns.append(nv)
    return {"document": out_doc, "product_tree": doc.get("product_tree", {}),
            "vulnerabilities": vulns}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkout")
    ap.add_argument("--years", default="2022,2023,2024,2025,2026")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "tests",
                                                  "data", "csaf", "feed"))
    a = ap.parse_args()
    n = 0
    for year in a.years.split(","):
        ydir = os.path.join(a.checkout, year)
        if not os.path.isdir(ydir):
            print(f"{ydir}: no such folder", file=sys.stderr)
            return 1
        for bid in sorted(os.listdir(ydir)):
            src = os.path.join(ydir, bid, bid + ".json")
            if not os.path.isfile(src):
                continue
            with open(src, encoding="utf-8") as f:
                doc = json.load(f)
            os.makedirs(os.path.join(a.out, year, bid), exist_ok=True)
            dst = os.path.join(a.out, year, bid, bid + ".json")
            with open(dst, "w", encoding="utf-8") as f:
                json.dump(trim(doc), f, ensure_ascii=False, separators=(",", ":"))
                f.write("\n")
            n += 1
            print(f"{year}/{bid} {doc['document']['tracking'].get('version')} "
                  f"{doc['document'].get('title')}")
    print(f"{n} bulletins", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
