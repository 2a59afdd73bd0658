#!/usr/bin/env python3
"""How the CSAF import does on NVIDIA texts outside its test corpus (issue 30's held-out target).

The corpus (tests/data/csaf/feed) is the newest revision of every bulletin of NVIDIA's feed, so
what the grammar and the product map were written against. Two sources NVIDIA wrote the same way
that the corpus does not hold, both in a git checkout of https://github.com/NVIDIA/product-security:
  - the older revisions of its bulletins (every blob a bulletin's JSON had in the history, less
    the newest), read as the import reads a bulletin;
  - the CVE 5.x records beside each bulletin (YEAR/ID/CVE-*.json, containers.cna.affected:
    product, platforms, versions[].version text), each turned into a one-product CSAF document
    whose CPE is the product name as NVIDIA spells its CPEs (lower case, letters, digits and
    '_' only, '_' for blanks: "NVIDIA Container Toolkit" -> nvidia_container_toolkit as 5659 has it,
    "Hopper HGX 8-GPU" -> hopper_hgx_8gpu as 5561 has it).
Both go through tests/csaf_ranges (the import's own C: the grammar, imx_csaf_to_advisory and
the product map of tools/reference/, every nvidia_products*.csv and the release pairs). Prints:
texts seen, parsed and unparsed (each unparsed text, with the product), and the products that
map to nothing: neither a component nor a "not tracked" row (each with its count). Then two
probe sets written for the bulletins to come (the two sources above hold no text the corpus
lacks): PROBE_PRODUCTS, products a GPU image or NGC container carries as NVIDIA could name
them, each with the component it maps to or why not; PROBE_TEXTS, the feed's forms spelled
otherwise, each with its parse.

  tools/csaf_generalise.py [--mirror GIT_DIR] [--tool BUILD/tests/csaf_ranges] [--all]

GIT_DIR is a clone or the bare git directory of the feed (default: the session mirror
/work/.mirror/NVIDIA+product-security/repo). Needs the checkout, so it is not part of make test.
--all lists the unparsed texts of products that are not tracked as well (default: those of
products that map to a component or to nothing, the ones a held-out bulletin can lose)."""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def git(gdir, *args):
    return subprocess.run(["git", "--git-dir", gdir, *args], check=True, capture_output=True,
                          text=True).stdout


def git_dir(path):
    return os.path.join(path, ".git") if os.path.isdir(os.path.join(path, ".git")) else path


def maps():
    ref = os.path.join(ROOT, "tools", "reference")
    files = sorted(glob.glob(os.path.join(ref, "nvidia_products*.csv")))
    files += sorted(glob.glob(os.path.join(ref, "version_alias_*.csv")))
    return ",".join(files)


def bulletin_blobs(gdir):
    """{path: [blob, ...]} of every bulletin JSON (YEAR/ID/ID.json) in any commit; HEAD's blobs."""
    seen, head = {}, {}
    pat = re.compile(r"^(\d{4})/(\d+)/(\d+)\.json$")
    for commit in git(gdir, "rev-list", "--all").split():
        for line in git(gdir, "ls-tree", "-r", commit).splitlines():
            meta, path = line.split("\t", 1)
            m = pat.match(path)
            if m and m.group(2) == m.group(3):
                seen.setdefault(path, set()).add(meta.split()[2])
    for line in git(gdir, "ls-tree", "-r", "HEAD").splitlines():
        meta, path = line.split("\t", 1)
        if path in seen:
            head[path] = meta.split()[2]
    return seen, head


def cve_documents(gdir):
    """One CSAF document per CVE record of HEAD, its products as product_name > architecture >
    product_version, affected as known_affected and unaffected as fixed."""
    docs = []
    for line in git(gdir, "ls-tree", "-r", "HEAD").splitlines():
        meta, path = line.split("\t", 1)
        if not re.search(r"/CVE-\d+-\d+\.json$", path):
            continue
        rec = json.loads(git(gdir, "cat-file", "blob", meta.split()[2]))
        cve = rec.get("cveMetadata", {}).get("cveId", path)
        branches, affected, fixed = [], [], []
        for i, a in enumerate(rec.get("containers", {}).get("cna", {}).get("affected", [])):
            product = (a.get("product") or "").strip()
            if not product:
                continue
            cpe = "cpe:2.3:a:nvidia:" + "_".join(re.sub(r"[^a-z0-9_ ]", "", product.lower()).split())
            arch = ", ".join(a.get("platforms") or ["All"])
            leaves = []
            for j, v in enumerate(a.get("versions", [])):
                text = v.get("version")
                if not text:
                    continue
                pid = f"CVE-{i}-{j}"
                (affected if v.get("status") == "affected" else fixed).append(pid)
                leaves.append({"category": "product_version", "name": text,
                               "product": {"product_id": pid, "name": text,
                                           "product_identification_helper": {"cpe": cpe + ":*"}}})
            branches.append({"category": "product_name", "name": product, "branches": [
                {"category": "architecture", "name": arch, "branches": leaves}]})
        docs.append({"document": {"csaf_version": "2.0", "title": cve, "category": "csaf_vex",
                                  "aggregate_severity": {"text": "High"},
                                  "tracking": {"id": cve, "version": "1",
                                               "initial_release_date": "2025-01-01T00:00:00Z"}},
                     "product_tree": {"branches": [{"category": "vendor", "name": "NVIDIA",
                                                    "branches": branches}]},
                     "vulnerabilities": [{"cve": cve, "product_status": {
                         "known_affected": affected, "fixed": fixed}}]})
    return docs


# Products an image carries, as a bulletin could name them (with and without "NVIDIA", its CPE
# spelled from the name as NVIDIA spells CPEs), on the architecture a bulletin would give.
PROBE_PRODUCTS = [
    ("Linux(R580)", "Tesla", "580.126.09"), ("Linux(R580 vGPU 19)", "Guest driver", "580.126.09"),
    ("Linux(R580)", "NVIDIA Fabric Manager", "580.126.09"), ("All", "NVIDIA CUDA Toolkit"),
    ("All", "CUDA Toolkit"), ("Linux", "NVIDIA cuDNN"), ("Linux", "cuBLAS"), ("Linux", "NCCL"),
    ("Linux", "NVIDIA NCCL"), ("Linux", "NVIDIA Nsight Systems"), ("Linux", "Nsight Compute"),
    ("All", "NVIDIA Container Toolkit"), ("All", "Container Toolkit"),
    ("Linux", "libnvidia-container"), ("Linux", "NVIDIA GPU Operator"),
    ("Linux", "NVIDIA Kubernetes Device Plugin"), ("Linux", "DCGM"), ("Linux", "DCGM Exporter"),
    ("Linux", "NVIDIA Data Center GPU Manager (DCGM)"), ("Jetson Linux", "NVIDIA JetPack"),
    ("Linux", "NVIDIA Triton Inference Server"), ("Linux", "Triton Inference Server"),
    ("All", "TensorRT"), ("All", "NVIDIA TensorRT-LLM"), ("All", "NVIDIA NeMo Framework"),
    ("All", "NeMo Guardrails"), ("All", "NVIDIA NeMo Curator"), ("All", "NVIDIA DALI"),
    ("All", "NVIDIA Megatron-LM"), ("All", "Megatron Core"), ("All", "Megatron-Bridge"),
    ("Linux", "NVIDIA Dynamo"), ("Linux", "Dynamo"), ("Linux", "NVIDIA cuOpt"),
    ("Linux", "NVIDIA Riva"), ("Linux", "NIM for LLMs"), ("Linux", "NVIDIA NIM"),
    ("All", "NVIDIA Model Optimizer"), ("All", "RAPIDS cuDF and cuML"), ("Linux", "NVIDIA TAO"),
    ("Linux", "NVIDIA CUDA-Q"), ("Linux", "NVIDIA DeepStream SDK"),
    ("Jetson Linux(36)", "Jetson Orin Series", "36.4.4"),
    ("Jetson Linux(38)", "NVIDIA Jetson Thor Series", "38.2.1"),
    ("Linux(DOCA 2.9)", "NVIDIA DOCA-Host", "2.9.2-0.1.6"),
    ("Linux(OFED 5.8)", "Mellanox OFED", "5.8-7.0.6.1"), ("Linux", "nvJPEG2000"),
    ("All", "NVIDIA Isaac Sim"), ("All", "Isaac Lab"), ("Linux", "NVIDIA FLARE SDK"),
    ("Linux", "NVIDIA CV-CUDA"), ("All", "NVIDIA Resiliency Extension"),
]
# The feed's forms as a bulletin could spell them otherwise.
PROBE_TEXTS = [
    ("NVIDIA CUDA Toolkit", "All versions prior to CUDA Toolkit 13.1 Update 1"),
    ("NVIDIA CUDA Toolkit", "All versions up to CUDA Toolkit 13.0 Update 2"),
    ("NVIDIA Container Toolkit", "Versions prior to 1.17.8"),
    ("NVIDIA Container Toolkit", "All versions before 1.17.8"),
    ("NVIDIA Container Toolkit", "1.17.7 and prior"), ("NVIDIA Container Toolkit", "<= 1.17.7"),
    ("NVIDIA Container Toolkit", "All versions from 1.0 to 1.17.7"),
    ("NVIDIA Container Toolkit", "1.17.8 or later"),
    ("NVIDIA Container Toolkit", "versions earlier than 1.17.8"),
    ("NVIDIA Container Toolkit", "All versions through 1.17.7"),
    ("NVIDIA Container Toolkit", "All versions prior to 1.17.8 and 1.18.0"),
    ("NVIDIA Container Toolkit", "1.17.8, 1.18.1"), ("NVIDIA Container Toolkit", "1.17.8 / 1.18.1"),
    ("NVIDIA Container Toolkit", "1.17.8 or 1.18.1"),
    ("NVIDIA Triton Inference Server", "Up to r26.03"),
    ("NVIDIA Triton Inference Server", "25.10 and earlier"),
    ("NVIDIA Triton Inference Server", "All releases prior to 25.10"),
    ("NVIDIA Triton Inference Server", "Release 25.10"),
    ("Jetson Orin Series", "All versions prior to 36.4.4 (JetPack 6.2.1)"),
    ("Jetson Orin Series", "All JP6 versions prior to 36.4.4"),
    ("Jetson Orin Series", "All versions of Jetson Linux prior to 36.4.4"),
    ("Jetson Orin Series", "All 36.x versions prior to 36.4.4"),
    ("Tesla", "All R580 versions prior to 580.126.09"),
    ("Tesla", "All driver versions prior to and including 580.105.08"),
    ("NVIDIA TensorRT-LLM", "Prior to 1.3.0rc16"), ("NVIDIA TensorRT-LLM", "1.3.0-rc.16"),
    ("NVIDIA TensorRT-LLM", "v1.3.0 RC16"), ("DCGM", "0.0 through 4.8.2"),
    ("DCGM", "4.8.1 and below"), ("DCGM", "4.5.2 (latest)"), ("DCGM", "All 4.x versions prior to 4.5.2"),
    ("NVIDIA NeMo Framework", "All versions prior to NeMo 2.6.1"),
    ("NVIDIA Megatron-LM", "All versions prior to core_v0.12.1"),
    ("vGPU software (guest driver)", "All versions prior to 580.126.09 (vGPU 19.4)"),
]


def probe_documents():
    """PROBE_PRODUCTS as one CSAF document, each product "All versions prior to" its version (1.0
    unless the probe names one of its line)."""
    branches, ids = [], []
    for i, (arch, name, *ver) in enumerate(PROBE_PRODUCTS):
        text = "All versions prior to " + (ver[0] if ver else "1.0")
        cpe = "cpe:2.3:a:nvidia:" + "_".join(re.sub(r"[^a-z0-9_ ]", "", name.lower()).split())
        pid = f"P{i}"
        ids.append(pid)
        branches.append({"category": "product_name", "name": name, "branches": [
            {"category": "architecture", "name": arch, "branches": [
                {"category": "product_version", "name": text,
                 "product": {"product_id": pid, "name": text,
                             "product_identification_helper": {"cpe": cpe + ":*"}}}]}]})
    return {"document": {"csaf_version": "2.0", "title": "probe", "category": "csaf_vex",
                         "aggregate_severity": {"text": "High"},
                         "tracking": {"id": "probe", "version": "1",
                                      "initial_release_date": "2026-01-01T00:00:00Z"}},
            "product_tree": {"branches": [{"category": "vendor", "name": "NVIDIA",
                                           "branches": branches}]},
            "vulnerabilities": [{"cve": "CVE-2026-0000",
                                 "product_status": {"known_affected": ids}}]}


def probes(tool, mapping, tmp):
    f = os.path.join(tmp, "probe.json")
    with open(f, "w", encoding="utf-8") as out:
        json.dump(probe_documents(), out)
    mapped = unknown = 0
    print(f"== probes: {len(PROBE_PRODUCTS)} products an image carries")
    for status, product, text, comp, form, stored in read(tool, mapping, [f]):
        if comp != "-":
            mapped += 1
            print(f"  MAPS {product!r} -> {comp}")
        elif "no product mapping" in stored:
            unknown += 1
            print(f"  UNKNOWN {product!r}")
        else:
            print(f"  LEFT OUT {product!r}: {stored[3:-1][:110]}")
    res = subprocess.run([tool, "--forms"], input="".join(f"{p}\t{t}\n" for p, t in PROBE_TEXTS),
                         check=True, capture_output=True, text=True)
    bad = [line.split("\t")[2] for line in res.stdout.splitlines() if line.startswith("UNPARSED")]
    print(f"== probes: {len(PROBE_TEXTS)} spellings of the feed's forms; unparsed {len(bad)}")
    for t in bad:
        print(f"  UNPARSED {t!r}")
    return mapped, unknown, len(bad)


LINE = re.compile(r'^(\S+) (\S+) \| (.*?) \| "(.*)" \| (\S+) \| (\S+) \| (.*?)(?: \| (.*))?$')


def read(tool, mapping, files):
    """Entries of csaf_ranges's plain output: (status, product, text, component, form, stored)."""
    out = []
    for k in range(0, len(files), 200):
        res = subprocess.run([tool, mapping, *files[k:k + 200]], check=True, capture_output=True,
                             text=True)
        for line in res.stdout.splitlines():
            m = LINE.match(line)
            if m:
                out.append((m.group(2), m.group(3), m.group(4), m.group(6), m.group(7),
                            m.group(8) or ""))
    return out


def report(title, entries, corpus_texts, show_all):
    texts = {}
    unknown, elsewhere = {}, {}
    for status, product, text, comp, form, stored in entries:
        name = product.split(" > ", 1)[-1]
        t = texts.setdefault(text, {"unparsed": form == "UNPARSED", "products": set(),
                                    "tracked": False, "untracked": False})
        t["products"].add(name)
        if comp != "-":
            t["tracked"] = True
        if "no product mapping" in stored:
            unknown[name] = unknown.get(name, 0) + 1
            t["tracked"] = True  # nothing says it is not tracked: it counts
        elif stored.startswith("- (not tracked"):
            t["untracked"] = True
        elif stored.startswith("- (imaxe tracks this product as"):
            elsewhere[product] = elsewhere.get(product, 0) + 1
    unparsed = sorted(t for t, v in texts.items() if v["unparsed"])
    new = [t for t in texts if t not in corpus_texts]
    print(f"== {title}")
    print(f"version texts seen: {len(texts)} distinct ({len(new)} not in the corpus); "
          f"parsed {len(texts) - len(unparsed)}, unparsed {len(unparsed)}")
    risky = [t for t in unparsed if texts[t]["tracked"]]
    print(f"unparsed texts of products that map to a component or to nothing: {len(risky)}")
    for t in (unparsed if show_all else risky):
        v = texts[t]
        print(f"  UNPARSED {t!r}  [{'; '.join(sorted(v['products']))[:100]}]")
    print(f"products that map to nothing (no component, no 'not tracked' row): {len(unknown)}")
    for name in sorted(unknown, key=lambda n: (-unknown[n], n)):
        print(f"  UNKNOWN {name!r} ({unknown[name]} entries)")
    if elsewhere:
        print(f"products tracked on another platform only: {len(elsewhere)}")
        for p in sorted(elsewhere):
            print(f"  PLATFORM {p!r}")
    return len(texts), len(unparsed), len(risky), len(unknown)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", default="/work/.mirror/NVIDIA+product-security/repo")
    ap.add_argument("--tool", default=os.path.join(ROOT, "build", "tests", "csaf_ranges"))
    ap.add_argument("--all", action="store_true")
    a = ap.parse_args()
    gdir = git_dir(a.mirror)
    mapping = maps()
    corpus = sorted(glob.glob(os.path.join(ROOT, "tests", "data", "csaf", "feed", "*", "*",
                                           "*.json")))
    corpus_texts = {e[2] for e in read(a.tool, mapping, corpus)}
    seen, head = bulletin_blobs(gdir)
    with tempfile.TemporaryDirectory() as tmp:
        old = []
        for path, blobs in sorted(seen.items()):
            for blob in sorted(blobs - {head.get(path)}):
                f = os.path.join(tmp, f"{os.path.basename(path)[:-5]}_{blob[:8]}.json")
                with open(f, "w", encoding="utf-8") as out:
                    out.write(git(gdir, "cat-file", "blob", blob))
                old.append(f)
        nb = len({os.path.basename(f).split("_")[0] for f in old})
        r1 = report(f"older revisions: {len(old)} of {nb} bulletins", read(a.tool, mapping, old),
                    corpus_texts, a.all)
        docs = cve_documents(gdir)
        cves = []
        for i, d in enumerate(docs):
            f = os.path.join(tmp, f"cve{i}.json")
            with open(f, "w", encoding="utf-8") as out:
                json.dump(d, out)
            cves.append(f)
        r2 = report(f"CVE records: {len(docs)}", read(a.tool, mapping, cves), corpus_texts, a.all)
        r3 = probes(a.tool, mapping, tmp)
    print(f"summary: revisions {r1[1]} of {r1[0]} texts unparsed ({r1[2]} of products that "
          f"can map), {r1[3]} unknown products; CVE records {r2[1]} of {r2[0]} texts unparsed "
          f"({r2[2]} of products that can map), {r2[3]} unknown products; probes: "
          f"{r3[0]} of {len(PROBE_PRODUCTS)} products map, {r3[1]} unknown, "
          f"{r3[2]} of {len(PROBE_TEXTS)} spellings unparsed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
