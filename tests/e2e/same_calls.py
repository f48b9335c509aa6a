#!/usr/bin/python3
"""same_calls.py A.vgl B.vgl - two profiles count the same calls.

Reads both with `vigil report --json` ($VIGIL) and compares, exactly, the
calls of every function (by module base name and symbol name) and of every
caller -> callee edge with its call site.  Prints "same: F functions, E
edges, C calls" and exits 0, or one line per difference and exits 1.
"""
import json
import os
import subprocess
import sys


def load(path):
    vigil = os.environ.get("VIGIL", "vigil")
    out = subprocess.run([vigil, "report", "--json", path], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    r = json.loads(out)
    fns = {(f["module"], f["name"]): f["calls"] for f in r["functions"]}
    edges = {}
    for e in r["edges"]:
        key = (e["caller"], e["callee"], e["site"])
        edges[key] = edges.get(key, 0) + e["calls"]
    return fns, edges, r["total_calls"]


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
    bad = []
    for what, x, y in (("function", a[0], b[0]), ("edge", a[1], b[1])):
        for k in sorted(set(x) | set(y), key=repr):
            if x.get(k) != y.get(k):
                bad.append("%s %r: %s vs %s" % (what, k, x.get(k), y.get(k)))
    if a[2] != b[2]:
        bad.append("total calls: %d vs %d" % (a[2], b[2]))
    for line in bad:
        print(line)
    if bad:
        return 1
    print("same: %d functions, %d edges, %d calls" % (len(a[0]), len(a[1]),
                                                       a[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
