#!/usr/bin/env python3
"""Node reports at scale, on loopback (bench/nodes.sh starts the server): BENCH_NODES nodes
report twice (the second time unchanged, as a fleet does every five minutes) one report a
request over BENCH_CLIENTS keep-alive connections, then once more as NDJSON batches of 100;
then the fleet list is read BENCH_READS times (first pages, filtered pages, deep pages). Prints
reports/s, storage per node and per history row, and the list's latencies.

BENCH_NDJSON=1 (the bounded run at 100,000 nodes): every pass as NDJSON batches of 100 (new
nodes, then unchanged twice), no one-report-a-request pass; BENCH_DEADLINE_S (default none)
ends a pass early, saying how many reports it got through."""
import http.client
import json
import os
import statistics
import threading
import time

PORT = int(os.environ["BENCH_PORT"])
TOKEN = os.environ["NODE_TOKEN"]
USER = os.environ["IMAXE_TOKEN"]
NODES = int(os.environ.get("BENCH_NODES", "20000"))
CLIENTS = int(os.environ.get("BENCH_CLIENTS", "8"))
READS = int(os.environ.get("BENCH_READS", "300"))
IMAGES = [int(x) for x in os.environ["BENCH_IMAGES"].split(",")]
NDJSON_ONLY = os.environ.get("BENCH_NDJSON") == "1"
DEADLINE = time.monotonic() + float(os.environ.get("BENCH_DEADLINE_S", "1e9"))


def report(i, driver):
    img = IMAGES[i % len(IMAGES)]
    return {"name": f"ip-10-{i // 65536}-{i // 256 % 256}-{i % 256}.ec2.internal",
            "image": {"id": img}, "instance_type": "p5.48xlarge",
            "probe": {"architecture": "x86_64", "os": {"name": "ubuntu", "version": "24.04"},
                      "kernel": "6.8.0-1015-aws", "gpus": ["H100"],
                      "node": {"gpu_count": 8, "instance_type": "p5.48xlarge"},
                      "components": [{"name": "nvidia-driver", "version": driver},
                                     {"name": "cuda", "version": "13.0"},
                                     {"name": "cudnn", "version": "9.13.0"},
                                     {"name": "nccl", "version": "2.27.7"},
                                     {"name": "python", "version": "3.12.3"},
                                     {"name": "pytorch", "version": "2.9.0"}]}}


def post_all(bodies, ctype):
    """POSTs every body over CLIENTS connections; returns (seconds, latencies in ms)."""
    lat, lock, idx = [], threading.Lock(), [0]

    def worker():
        c = http.client.HTTPConnection("127.0.0.1", PORT)
        h = {"Authorization": "Bearer " + TOKEN, "Content-Type": ctype}
        while True:
            with lock:
                k = idx[0]
                idx[0] += 1
            if k >= len(bodies) or time.monotonic() > DEADLINE:
                break
            t = time.perf_counter()
            c.request("POST", "/v1/nodes/reports", bodies[k], h)
            r = c.getresponse()
            r.read()
            if r.status != 200:
                raise SystemExit(f"report {k}: {r.status}")
            with lock:
                lat.append((time.perf_counter() - t) * 1000)

    t0 = time.perf_counter()
    ts = [threading.Thread(target=worker) for _ in range(CLIENTS)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if len(lat) < len(bodies):
        print(f"  (deadline: {len(lat)} of {len(bodies)} requests sent)")
    return time.perf_counter() - t0, lat


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))]


def main():
    # 1 in 50 nodes runs a driver its image does not list.
    first = [json.dumps(report(i, "580.82.07" if i % 50 == 0 else "580.95.05")) for i in range(NODES)]
    batches = ["\n".join(first[k:k + 100]) + "\n" for k in range(0, NODES, 100)]
    if NDJSON_ONLY:
        for what in ("new nodes", "unchanged (every 5 min)", "unchanged again"):
            secs, lat = post_all(batches, "application/x-ndjson")
            n = min(NODES, len(lat) * 100)
            print(f"NDJSON batches of 100, {what}: {n} in {secs:.1f} s = {n / secs:.0f} reports/s, "
                  f"p50 {statistics.median(lat):.1f} ms, p99 {pct(lat, 0.99):.1f} ms a batch")
        return reads()
    secs, lat = post_all(first, "application/json")
    print(f"first reports (new nodes): {NODES} in {secs:.1f} s = {NODES / secs:.0f} reports/s, "
          f"p50 {statistics.median(lat):.1f} ms, p99 {pct(lat, 0.99):.1f} ms")
    secs, lat = post_all(first, "application/json")
    print(f"unchanged reports (every 5 min): {NODES} in {secs:.1f} s = {NODES / secs:.0f} reports/s, "
          f"p50 {statistics.median(lat):.1f} ms, p99 {pct(lat, 0.99):.1f} ms")
    secs, lat = post_all(batches, "application/x-ndjson")
    print(f"NDJSON batches of 100: {NODES} in {secs:.1f} s = {NODES / secs:.0f} reports/s, "
          f"p99 {pct(lat, 0.99):.1f} ms a batch")
    reads()


def reads():
    # The fleet list: first pages, filtered, deep.
    c = http.client.HTTPConnection("127.0.0.1", PORT)
    h = {"Authorization": "Bearer " + USER}
    cursor, kinds = None, {"first page": "/v1/nodes?limit=50",
                           "drift=true": "/v1/nodes?drift=true&limit=50",
                           "stale=true (none)": "/v1/nodes?stale=true&limit=50",
                           "gpu=H100&image": f"/v1/nodes?gpu=H100&image={IMAGES[0]}&limit=50"}
    for name, path in kinds.items():
        lat = []
        for _ in range(READS // len(kinds)):
            t = time.perf_counter()
            c.request("GET", path, headers=h)
            r = c.getresponse()
            body = r.read()
            lat.append((time.perf_counter() - t) * 1000)
            if r.status != 200:
                raise SystemExit(f"{path}: {r.status}")
        print(f"GET {path}: p50 {statistics.median(lat):.1f} ms, p99 {pct(lat, 0.99):.1f} ms")
    lat, pages = [], 0
    path = "/v1/nodes?limit=200"
    while path and pages < 100:
        t = time.perf_counter()
        c.request("GET", path, headers=h)
        r = c.getresponse()
        doc = json.loads(r.read())
        lat.append((time.perf_counter() - t) * 1000)
        pages += 1
        nxt = doc.get("next_cursor")
        path = f"/v1/nodes?limit=200&cursor={nxt}" if nxt else None
    print(f"walking pages of 200 by cursor: {pages} pages, p50 {statistics.median(lat):.1f} ms, "
          f"p99 {pct(lat, 0.99):.1f} ms")
    lat = []
    for _ in range(20):
        t = time.perf_counter()
        c.request("GET", "/v1/fleet", headers=h)
        r = c.getresponse()
        r.read()
        lat.append((time.perf_counter() - t) * 1000)
    print(f"GET /v1/fleet (counts over {NODES} nodes): p50 {statistics.median(lat):.1f} ms, "
          f"max {max(lat):.1f} ms")
    # The patch status counts the running nodes of the image when read (about NODES / 3 here).
    lat = []
    for _ in range(50):
        t = time.perf_counter()
        c.request("GET", f"/v1/images/{IMAGES[0]}/patch", headers=h)
        r = c.getresponse()
        r.read()
        lat.append((time.perf_counter() - t) * 1000)
    print(f"GET /v1/images/{{id}}/patch (counting ~{NODES // len(IMAGES)} running nodes): "
          f"p50 {statistics.median(lat):.1f} ms, p99 {pct(lat, 0.99):.1f} ms")


main()
