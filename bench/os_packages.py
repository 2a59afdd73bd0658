#!/usr/bin/env python3
"""The OS-packages bench's client (bench/os_packages.sh loads the catalog and its inventories,
starts the server, then runs this). Through the API, bounded in count:

  1. publish latency (POST /v1/images) of new builds carrying 1,000-package inventories, beside
     the same publishes without one;
  2. GET /v1/images/{id} of images whose inventory an advisory hits (imx_image_os_json);
  3. the time to publish a distro advisory (openssl < 3.0.13-0ubuntu3.4 in Ubuntu:24.04:LTS)
     that hits 30 % of the catalog, and how many images it marked.
"""
import http.client
import json
import os
import statistics
import time

PORT = int(os.environ["BENCH_PORT"])
TOKEN = os.environ["IMAXE_TOKEN"]
PUBLISHES = int(os.environ.get("BENCH_PUBLISHES", "200"))


def call(conn, method, path, body=None):
    h = {"Authorization": "Bearer " + TOKEN}
    if body is not None:
        h["Content-Type"] = "application/json"
    t = time.perf_counter()
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=h)
    r = conn.getresponse()
    payload = r.read()
    return r.status, payload, time.perf_counter() - t


def version(f, n, p, period):
    """bench/gen_os_packages.sql's bench_version."""
    if p == 0:
        return "3.0.13-0ubuntu3.3" if n < 60 else "3.0.13-0ubuntu3.5"
    if p % 10 == 1:
        return "2.%d-%d" % (f, n // period)
    return "1.%d-%d" % (f % 7, n // period)


def period(p):
    return 200 if p == 0 else 2 if p % 200 == 7 else 10 if p % 20 == 3 else 200


def inventory(f, n):
    return [{"name": "openssl" if p == 0 else "pkg-%03d" % p, "version": version(f, n, p, period(p))}
            for p in range(1000)]


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main():
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=300)
    # The manifests of 20 families' first images, to publish new builds of.
    bases = []
    for f in range(20):
        st, body, _ = call(conn, "GET", "/v1/images/%d" % (f + 1))
        assert st == 200, body
        bases.append((f, json.loads(body)))

    def manifest(f, img, ver, with_packages, n):
        m = {"team": img["team"], "family": img["family"], "version": ver,
             "provider": img["provider"], "architecture": img["architecture"],
             "os": img["os"], "layer": img["layer"],
             "artifacts": [{"region": "us-east-1", "id": "ami-bench%011d" % n}],
             "components": [{"name": k, "version": v} for k, v in img["components"].items()],
             "gpus": img["gpus"]}
        if img.get("parent_id"):
            m["parent"] = img["parent_id"]
        if with_packages:
            m["packages"] = inventory(f, n)
        return m

    lat = {True: [], False: []}
    for i in range(PUBLISHES + PUBLISHES // 4):
        with_packages = i < PUBLISHES
        f, img = bases[i % len(bases)]
        n = 200 + i // len(bases)
        m = manifest(f, img, "9.%d%s" % (n, "" if with_packages else "-nopkg"), with_packages, n)
        st, body, dt = call(conn, "POST", "/v1/images", m)
        assert st == 201, body
        lat[with_packages].append(dt * 1000)
    for k, name in ((True, "with 1,000 packages"), (False, "without packages")):
        xs = lat[k]
        print("publish %s: %d publishes, p50 %.1f ms, p99 %.1f ms, max %.1f ms"
              % (name, len(xs), statistics.median(xs), pct(xs, 0.99), max(xs)))

    adv = {"id": "USN-BENCH-1", "title": "OpenSSL vulnerability (bench)", "published": "2026-12-01",
           "severity": "high", "cves": ["CVE-2024-6119"],
           "affected": [{"ecosystem": "Ubuntu:24.04:LTS", "package": "openssl",
                         "range": "<3.0.13-0ubuntu3.4", "fixed": "3.0.13-0ubuntu3.4"}]}
    st, body, dt = call(conn, "POST", "/v1/advisories", adv)
    assert st == 201, body
    doc = json.loads(body)
    print("distro advisory hitting %d images (%.1f %% of %d): published in %.2f s"
          % (doc["affected_images"], 100.0 * doc["affected_images"] / 100000, 100000, dt))

    gets = []
    for i in range(100):
        st, body, dt = call(conn, "GET", "/v1/images/%d" % (1 + (i * 500) % 30000))
        assert st == 200, body
        gets.append(dt * 1000)
    d = json.loads(body)
    assert d["os_packages"]["patch_status"] == "patch_available", d["os_packages"]
    print("GET /v1/images/{id} of an affected image (with os_packages): p50 %.1f ms, p99 %.1f ms"
          % (statistics.median(gets), pct(gets, 0.99)))
    sample = []
    for i in range(20):
        f, img = bases[i % len(bases)]
        n = 300 + i
        st, body, dt = call(conn, "POST", "/v1/images",
                            manifest(f, img, "9.%d-after" % n, True, n))
        assert st == 201, body
        sample.append(dt * 1000)
    print("publish with 1,000 packages after the advisory: p50 %.1f ms, max %.1f ms"
          % (statistics.median(sample), max(sample)))


if __name__ == "__main__":
    main()
