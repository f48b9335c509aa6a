#!/usr/bin/python3
"""mergeprof.py - profiles of a made-up program for `vigil merge` tests
and its benchmark, and the exact check of what a merge of them holds.

    mergeprof.py gen DIR --files N --edges E [--build B] [--name NAME]
        [--cut-short K]... [--window K]...
        writes DIR/NAME.K.vgl for K in 0..N-1: N profiles of one program
        (build B: the main executable's build-id) that differ the way
        processes do: load addresses (ASLR), module ids (load order),
        threads, counts.  File K is cut short, or a window snapshot,
        when named so.
    mergeprof.py check MERGED --files N --edges E [--skip K]...
        reads `vigil report --json MERGED` and checks that every edge
        (caller, callee) holds exactly the sum over the files K (but the
        skipped ones) of what gen wrote, and nothing else.

Edge j of file K: callee in the executable (or, for every 5th edge, in
libx.so), called from a site in the executable, count (7K + j) % 13 + 1.
No symbols exist for the made-up paths, so the report names functions
"prog+0xOFF" (ELF offsets), which is what must survive the merge.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "corpus"))
import mkcorpus  # noqa: E402

EXE = "/nonexistent/prog"
LIB = "/nonexistent/libx.so"
LIB_ID = bytes(range(100, 120))


def exe_id(build):
    return bytes([build]) + bytes(range(1, 20))


def edge(k, j):
    """(callee module 'exe' or 'lib', callee offset, site offset, count)"""
    if j % 5 == 0:
        return "lib", 0x2000 + 0x10 * (j % 31), 0x5000 + 8 * j + 1, \
            (7 * k + j) % 13 + 1
    return "exe", 0x1000 + 0x10 * (j % 97), 0x5000 + 8 * j + 1, \
        (7 * k + j) % 13 + 1


def gen_one(k, nedges, build, path, cut=False, window=False):
    b0 = 0x555500000000 + k * 0x1000000     # every process its own ASLR
    b1 = 0x7F0000000000 + k * 0x2000000
    ids = (0, 1) if k % 2 == 0 else (1, 0)  # load order differs too
    spec = mkcorpus.default_spec()
    spec.update({
        "pid": 5000000 + k, "ppid": 1, "exe": EXE, "argv": ["prog", str(k)],
        "state": mkcorpus.CUT_SHORT if cut else mkcorpus.FINISHED,
        "exit_status": 0,
        "kind": mkcorpus.KIND_WINDOW if window else mkcorpus.KIND_LIVE,
        "window": (1, 2, 1) if window else (0, 0, 0),
        "start_ns": 1700000000000000000 + k * 1000,
        "end_ns": 1700000001000000000 + k * 1000,
        "extra_section": False, "arena_reserve": 0,
        "modules": [
            (ids[0], b0, b0, b0 + 0x100000, exe_id(build), EXE),
            (ids[1], b1, b1, b1 + 0x100000, LIB_ID, LIB),
        ],
    })
    # Two threads in every third file: an edge counted by both.
    rows_a, rows_b = [], []
    for j in range(nedges):
        mod, callee, site, n = edge(k, j)
        cm, cb = (ids[0], b0) if mod == "exe" else (ids[1], b1)
        if k % 3 == 0:
            rows_a.append((cb + callee, b0 + site, n // 2, cm, ids[0]))
            rows_b.append((cb + callee, b0 + site, n - n // 2, cm, ids[0]))
        else:
            rows_a.append((cb + callee, b0 + site, n, cm, ids[0]))
    spec["blocks"] = [(mkcorpus.BLOCK_EDGES, 100, len(rows_a), rows_a)]
    if rows_b:
        spec["blocks"].append((mkcorpus.BLOCK_EDGES, 101, len(rows_b),
                               rows_b))
    buf, _ = mkcorpus.build(spec)
    with open(path, "wb") as f:
        f.write(bytes(buf))


def cmd_gen(a):
    os.makedirs(a.dir, exist_ok=True)
    for k in range(a.files):
        gen_one(k, a.edges, a.build,
                os.path.join(a.dir, "%s.%d.vgl" % (a.name, k)),
                k in (a.cut_short or []), k in (a.window or []))


def expected(files, nedges, skip):
    out = {}
    for k in range(files):
        if k in skip:
            continue
        for j in range(nedges):
            mod, callee, site, n = edge(k, j)
            key = ("prog+%#x" % (site - 1),
                   ("prog" if mod == "exe" else "libx.so") + "+%#x" % callee)
            out[key] = out.get(key, 0) + n
    return out


def cmd_check(a):
    r = subprocess.run([os.environ.get("VIGIL", "vigil"), "report", "--json",
                        a.merged], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode != 0:
        print("mergeprof: vigil report failed: %s" % r.stderr,
              file=sys.stderr)
        return 1
    doc = json.loads(r.stdout)
    got = {}
    for e in doc["edges"]:
        key = (e["caller"], e["callee"])
        got[key] = got.get(key, 0) + e["calls"]
    want = expected(a.files, a.edges, set(a.skip or []))
    bad = 0
    for key in sorted(set(got) | set(want)):
        if got.get(key, 0) != want.get(key, 0):
            bad += 1
            if bad <= 10:
                print("mergeprof: %s -> %s: %d calls, want %d"
                      % (key[0], key[1], got.get(key, 0), want.get(key, 0)),
                      file=sys.stderr)
    total = sum(want.values())
    if doc["total_calls"] != total:
        print("mergeprof: total %d, want %d" % (doc["total_calls"], total),
              file=sys.stderr)
        bad += 1
    if bad:
        return 1
    print("merged: %d edges, %d calls, exact" % (len(want), total))
    return 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("dir")
    g.add_argument("--files", type=int, required=True)
    g.add_argument("--edges", type=int, required=True)
    g.add_argument("--build", type=int, default=1)
    g.add_argument("--name", default="prog")
    g.add_argument("--cut-short", type=int, action="append")
    g.add_argument("--window", type=int, action="append")
    c = sub.add_parser("check")
    c.add_argument("merged")
    c.add_argument("--files", type=int, required=True)
    c.add_argument("--edges", type=int, required=True)
    c.add_argument("--skip", type=int, action="append")
    a = p.parse_args()
    return cmd_gen(a) if a.cmd == "gen" else cmd_check(a)


if __name__ == "__main__":
    sys.exit(main())
