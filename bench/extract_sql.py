#!/usr/bin/env python3
"""Turns the last `execute` of each prepared statement in a PostgreSQL log (log_min_duration_statement=0)
into a pgbench script with the logged parameters as literals: the endpoint's own SQL, same values.
Usage: extract_sql.py postgres.log MARKER out.sql  (MARKER: a substring of the SQL to pick)."""
import re
import sys

log, marker, out = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(log, encoding="utf-8", errors="replace").read()
entries = re.split(r"\n(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)", text)
found = None
for i, e in enumerate(entries):
    m = re.search(r"execute [^:]+: (.*)", e, re.S)
    if not m or marker not in m.group(1):
        continue
    sql = m.group(1).strip()
    params = {}
    for nxt in entries[i:i + 2]:
        d = re.search(r"DETAIL:\s+[Pp]arameters: (.*)", nxt, re.S)
        if d:
            for pm in re.finditer(r"\$(\d+) = (NULL|'(?:[^']|'')*')", d.group(1)):
                params[int(pm.group(1))] = pm.group(2)
            break
    found = (sql, params)
if not found:
    sys.exit(f"no statement containing {marker!r} in {log}")
sql, params = found
for n in sorted(params, reverse=True):
    sql = re.sub(r"\$%d(?!\d)" % n, lambda _m: params[n], sql)
open(out, "w").write(sql.rstrip(";") + ";\n")
