#!/usr/bin/python3
"""Convert api/openapi.yaml to JSON (build step for /openapi.json). Uses Debian's python3-yaml."""
import json
import sys

import yaml


def main() -> int:
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    with open(dst, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=False, default=str)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
