#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""regress-diff.py A B: compare two benchmarks/regress.sh output directories.

Prints, per run, every field that differs (but wall_s and peak_rss_bytes,
which depend on the machine), and the `events` change on its own line.
Exit 0 when nothing but `events` differs, 1 otherwise."""
import json, os, sys

# hockney_version: the commit the build was configured at.
IGNORED = {"wall_s", "peak_rss_bytes", "wall_time_s", "elapsed_s", "hockney_version"}

def load(path):
    with open(path) as f:
        text = f.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return [json.loads(l) for l in text.splitlines() if l.strip()]

def walk(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k in IGNORED:
                continue
            walk(a.get(k), b.get(k), f"{path}.{k}", out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, f"{path}[{i}]", out)
    elif a != b:
        out.append((path, a, b))

def main():
    a_dir, b_dir = sys.argv[1], sys.argv[2]
    differs = False
    for name in sorted(os.listdir(a_dir)):
        if not name.endswith(".json"):
            continue
        pa, pb = os.path.join(a_dir, name), os.path.join(b_dir, name)
        if not os.path.exists(pb):
            print(f"{name}: missing in {b_dir}"); differs = True; continue
        out = []
        walk(load(pa), load(pb), "", out)
        for path, x, y in out:
            kind = "events" if path.endswith(".events") else "DIFF"
            if kind == "DIFF":
                differs = True
            print(f"{name}: {kind} {path}: {x} -> {y}")
    sys.exit(1 if differs else 0)

if __name__ == "__main__":
    main()
