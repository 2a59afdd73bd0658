#!/usr/bin/env python3
"""The write-path bench's client (bench/write_path.sh starts PostgreSQL, the server and a
webhook receiver, then runs this). Everything goes through the API a user calls, and every
loop is bounded in count:

  1. publish latency at family sizes 10, 100, 1,000 and 5,000: the family is filled through
     POST /v1/images:import, every image affected by a driver advisory with no fix (so the
     rows waiting for a fix grow with the family), then SAMPLES single publishes through
     POST /v1/images, and last the one publish that fixes them all;
  2. publishes/s through POST /v1/images with 4 clients and images/s through
     POST /v1/images:import, loading the 100,000-image bench catalog (500 families x 200
     versions, 12 components, GPUs, regions, tags, as bench/gen_catalog.sql makes it);
  3. the time to publish an advisory that affects 30 % of that catalog;
  4. the time until the receiver has every patch.available of an advisory reaching 10,000 pins.
"""
import http.client
import json
import os
import statistics
import sys
import threading
import time

BASE_PORT = int(os.environ["BENCH_PORT"])
RECEIVER = os.environ["BENCH_RECEIVER"]  # host:port of the webhook receiver
TOKEN = os.environ["IMAXE_TOKEN"]
SAMPLES = int(os.environ.get("BENCH_SAMPLES", "40"))
CATALOG = int(os.environ.get("BENCH_CATALOG", "100000"))
API_SHARE = float(os.environ.get("BENCH_API_SHARE", "0.1"))  # of the catalog, through POST
PINS = int(os.environ.get("BENCH_PINS", "10000"))
SIZES = [int(x) for x in os.environ.get("BENCH_SIZES", "10,100,1000,5000").split(",")]

STACKS = [  # driver branch, cuda, cudnn, nccl, framework, gpus (bench/gen_catalog.sql)
    ("535.261.03", "12.2.2", "8.9.7.29", "2.18.5", ("pytorch", "2.3.1+cu121"), ["V100", "T4", "A10G"]),
    ("550.163.01", "12.4.1", "9.1.0.70", "2.21.5", ("pytorch", "2.5.1+cu124"), ["A100", "H100", "L4"]),
    ("570.172.08", "12.8.1", "9.8.0.87", "2.26.2", ("pytorch", "2.7.1+cu128"), ["H100", "H200", "B200"]),
    ("580.95.05", "13.0.2", "9.13.0.50", "2.27.7", ("pytorch", "2.9.0+cu130"), ["H100", "B200", "L40S"]),
    ("580.82.07", "12.9.1", "9.10.2.21", "2.27.3", ("pytorch", "2.8.0+cu129"), ["A100", "H100"]),
    ("525.147.05", "11.8.0", "8.9.7.29", "2.16.5", ("tensorflow", "2.14.1"), ["V100", "T4"]),
]
REGIONS = ["us-east-1", "us-west-2", "eu-west-1"]


class Client:
    """One keep-alive connection to the server."""

    def __init__(self, port=BASE_PORT):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def call(self, method, path, body=None, ctype="application/json", headers=None):
        h = {"Authorization": "Bearer " + TOKEN}
        if body is not None:
            h["Content-Type"] = ctype
        h.update(headers or {})
        data = body.encode() if isinstance(body, str) else body
        t = time.perf_counter()
        self.conn.request(method, path, body=data, headers=h)
        r = self.conn.getresponse()
        payload = r.read()
        return r.status, payload, time.perf_counter() - t


def manifest(team, family, version, stack, n=0, driver=None):
    s = STACKS[stack]
    comps = [
        ("nvidia-driver", driver or s[0]), ("cuda", s[1]), ("cudnn", s[2]), ("nccl", s[3]),
        (s[4][0], s[4][1]), ("python", "3.12.3"), ("nvidia-container-toolkit", "1.17.8"),
        ("dcgm", "3.3.9"), ("efa", "1.38.0"), ("linux-kernel", "6.8.0"),
        ("nvidia-fabricmanager", s[0]), ("gdrcopy", "2.4.4"),
    ]
    return json.dumps({
        "team": team, "family": family, "version": version, "provider": "aws",
        "architecture": "x86_64", "os": {"name": "ubuntu", "version": "24.04"},
        "layer": "platform", "boot_seconds": 60 + n % 90, "size_gb": 40 + n % 30,
        "artifacts": [{"region": r, "id": "ami-%s-%s-%d" % (family, version.replace(".", ""), i)}
                      for i, r in enumerate(REGIONS[: 1 + n % 3])],
        "components": [{"name": a, "version": b} for a, b in comps],
        "gpus": s[5], "tags": ["cis"] if n % 2 else ["cis", "boot-optimized"],
        "description": "bench image %s %s" % (family, version),
    }, separators=(",", ":"))


def must(status, payload, want, what):
    if status != want:
        sys.exit("%s: HTTP %d %s" % (what, status, payload[:300]))


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def import_lines(c, lines, chunk=500):
    t = time.perf_counter()
    for i in range(0, len(lines), chunk):
        st, body, _ = c.call("POST", "/v1/images:import", "\n".join(lines[i:i + chunk]) + "\n",
                             "application/x-ndjson")
        must(st, body, 201, "import")
    return time.perf_counter() - t


def family_sizes(c):
    print("\n1. publish latency by family size (POST /v1/images, one client, %d samples each;"
          " every image vulnerable to an unfixed advisory)" % SAMPLES)
    st, body, _ = c.call("POST", "/v1/advisories", json.dumps({
        "id": "BENCH-FAM", "title": "bench: every fam- image", "published": "2026-01-01",
        "severity": "high", "affected": [{"component": "nvidia-driver",
                                          "range": ">=580.82.07, <580.82.08"}]}))
    must(st, body, 201, "advisory")
    print("%-8s %10s %10s %10s %12s %14s" % ("family", "p50 ms", "p99 ms", "max ms",
                                            "fill s", "fix publish ms"))
    for size in SIZES:
        fam = "fam-%d" % size
        lines = [manifest("bench-platform", fam, "0.%d" % i, 4, i) for i in range(size)]
        fill = import_lines(c, lines)
        lat = []
        for i in range(SAMPLES):
            st, body, dt = c.call("POST", "/v1/images",
                                  manifest("bench-platform", fam, "1.%d" % i, 4, i))
            must(st, body, 201, "publish")
            lat.append(dt * 1000)
        st, body, dt = c.call("POST", "/v1/images",
                              manifest("bench-platform", fam, "2.0", 4, 0, driver="580.95.05"))
        must(st, body, 201, "fix publish")
        print("%-8d %10.1f %10.1f %10.1f %12.1f %14.1f" % (
            size, statistics.median(lat), pct(lat, 99), max(lat), fill, dt * 1000))


def load_catalog():
    n_api = int(CATALOG * API_SHARE)
    print("\n2. loading the %d-image bench catalog: %d through POST /v1/images with 4 clients,"
          " the rest through POST /v1/images:import (500 a request)" % (CATALOG, n_api))
    order = [(g % 500, g // 500) for g in range(CATALOG)]  # family, version: round robin

    def man(g):
        f, n = order[g]
        team = "bench-platform" if f < 250 else "bench-ml"
        return manifest(team, "platform-%03d" % f if f < 250 else "model-%03d" % (f - 250),
                        "1.%d" % n, f % 6, g)

    done = [0]
    lock = threading.Lock()
    rates = []

    def worker(ids):
        c = Client()
        for g in ids:
            st, body, _ = c.call("POST", "/v1/images", man(g))
            must(st, body, 201, "publish")
            with lock:
                done[0] += 1

    t0 = time.perf_counter()
    ths = [threading.Thread(target=worker, args=(range(k, n_api, 4),)) for k in range(4)]
    for t in ths:
        t.start()
    last, last_t = 0, t0
    while any(t.is_alive() for t in ths):
        time.sleep(2)
        now = time.perf_counter()
        with lock:
            d = done[0]
        rates.append((d, (d - last) / (now - last_t)))
        last, last_t = d, now
    for t in ths:
        t.join()
    api_s = time.perf_counter() - t0
    print("   POST /v1/images: %d images in %.1f s = %.0f publishes/s (first 2 s: %.0f/s, last"
          " 2 s: %.0f/s, at %d images)" % (n_api, api_s, n_api / api_s, rates[0][1],
                                           rates[-1][1] if len(rates) > 1 else 0, rates[-1][0]))
    # The rest through the import, first with one client, then the second half with two that
    # import disjoint families (an import locks the families it touches, so two clients on the
    # same families would take turns).
    t0 = time.perf_counter()
    lines = [(order[g][0], man(g)) for g in range(n_api, CATALOG)]
    gen_s = time.perf_counter() - t0
    half = len(lines) // 2
    step = 500

    def importer(part, rates):
        cc = Client()
        for i in range(0, len(part), step):
            t = time.perf_counter()
            st, body, _ = cc.call("POST", "/v1/images:import",
                                  "\n".join(part[i:i + step]) + "\n", "application/x-ndjson")
            must(st, body, 201, "import")
            rates.append(len(part[i:i + step]) / (time.perf_counter() - t))

    one = []
    t0 = time.perf_counter()
    importer([m for _, m in lines[:half]], one)
    one_s = time.perf_counter() - t0
    print("   POST /v1/images:import, 1 client: %d images in %.1f s = %.0f images/s (first request:"
          " %.0f/s, last: %.0f/s; generating the lines took %.1f s)" % (
              half, one_s, half / one_s, one[0], one[-1], gen_s))
    rest = lines[half:]
    parts = [[m for f, m in rest if f % 2 == k] for k in range(2)]
    rates = [[], []]
    t0 = time.perf_counter()
    ths = [threading.Thread(target=importer, args=(parts[k], rates[k])) for k in range(2)]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    two_s = time.perf_counter() - t0
    print("   POST /v1/images:import, 2 clients on disjoint families: %d images in %.1f s ="
          " %.0f images/s (catalog now %d images)" % (len(rest), two_s, len(rest) / two_s,
                                                       CATALOG))


def advisory_30pct(c):
    print("\n3. an advisory affecting 30 % of the catalog (driver branch R580: stacks 3 and 4"
          " of 6, 33 %)")
    t = time.perf_counter()
    st, body, _ = c.call("POST", "/v1/advisories", json.dumps({
        "id": "BENCH-30", "title": "bench: R580 before 580.126.09", "published": "2026-02-01",
        "severity": "critical", "affected": [{"component": "nvidia-driver",
                                              "range": ">=580, <580.126.09",
                                              "fixed": "580.126.09"}]}))
    dt = time.perf_counter() - t
    must(st, body, 201, "30 % advisory")
    print("   POST /v1/advisories: HTTP %d in %.2f s, %d images affected" % (
        st, dt, json.loads(body)["affected_images"]))
    t = time.perf_counter()
    st, body, _ = c.call("DELETE", "/v1/advisories/BENCH-30?reason=bench")
    must(st, body, 200, "withdraw")
    print("   DELETE (withdraw) it again: %.2f s" % (time.perf_counter() - t))


def fanout(c):
    print("\n4. patch.available fan-out to %d pins (one subscription, a receiver on loopback)"
          % PINS)
    st, body, _ = c.call("POST", "/v1/webhooks", json.dumps({
        "team": "bench-ml", "url": "http://%s/hook" % RECEIVER, "events": ["patch.available"]}))
    must(st, body, 201, "webhook")
    old = json.loads(c.call("POST", "/v1/images", manifest("bench-ml", "fanout", "1", 2, 0))[1])
    fix = json.loads(c.call("POST", "/v1/images", manifest("bench-ml", "fanout", "2", 2, 1,
                                                           driver="570.195.03"))[1])
    t = time.perf_counter()

    def pinner(ks):
        cc = Client()
        for k in ks:
            st, body, _ = cc.call("POST", "/v1/pins", json.dumps(
                {"team": "bench-ml", "name": "pin-%05d" % k, "image": old["id"]}))
            must(st, body, 201, "pin")

    ths = [threading.Thread(target=pinner, args=(range(k, PINS, 4),)) for k in range(4)]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    print("   %d pins created through POST /v1/pins in %.1f s" % (PINS, time.perf_counter() - t))
    rc = http.client.HTTPConnection(*RECEIVER.split(":"))
    rc.request("GET", "/count")
    base = int(rc.getresponse().read())
    c = Client()  # the first one sat idle while the pins were made
    t = time.perf_counter()
    st, body, dt = c.call("POST", "/v1/advisories", json.dumps({
        "id": "BENCH-PINS", "title": "bench: the pinned image", "published": "2026-03-01",
        "severity": "high", "affected": [{"component": "nvidia-driver",
                                          "range": "=570.172.08"}]}))
    must(st, body, 201, "fan-out advisory")
    got = 0
    deadline = t + 300
    while time.perf_counter() < deadline:
        rc.request("GET", "/count")
        got = int(rc.getresponse().read()) - base
        if got >= PINS:
            break
        time.sleep(0.25)
    print("   advisory published in %.2f s; receiver had %d of %d pin events after %.1f s" % (
        dt, got, PINS, time.perf_counter() - t))
    _ = fix


def main():
    # A fresh connection for each part: the server closes one idle for 30 s.
    family_sizes(Client())
    load_catalog()
    advisory_30pct(Client())
    fanout(Client())


if __name__ == "__main__":
    main()
