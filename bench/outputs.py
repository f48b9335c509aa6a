#!/usr/bin/python3
"""The output formats' benchmark (issue 10): `vigil convert --to FORMAT`
for every format, and `vigil flame`, on the generated program of 1M
distinct call edges (bench/gen_edges.py, built and run by
bench/readers.py's make_program, kept in build/bench-readers): seconds
(wall) and peak resident memory of each, and its ratio to `vigil report
--json` measured in the same run on the same profile: the cost of reading
the file, symbolizing and building the model, which every format pays.

A measurement, not a test: it prints, and exits 0 whatever the numbers
are.  BENCH_EDGES (default 1000000) picks other sizes (comma-separated).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import readers  # noqa: E402

ROOT = readers.ROOT
VIGIL = os.path.join(ROOT, "build", "vigil")
SIZES = [int(x) for x in
         os.environ.get("BENCH_EDGES", "1000000").split(",") if x]
RUNS = [
    ("report --json (baseline)", ["report", "--json"], None),
    ("convert --to json", ["convert", "--to", "json"], "json"),
    ("convert --to callgrind", ["convert", "--to", "callgrind"], "callgrind"),
    ("convert --to folded", ["convert", "--to", "folded"], "folded"),
    ("convert --to fdata", ["convert", "--to", "fdata"], "fdata"),
    ("convert --to pprof", ["convert", "--to", "pprof"], "pprof"),
    ("flame", ["flame"], "svg"),
]


def main():
    for edges in SIZES:
        prof = readers.make_program(edges)
        n = readers.edge_count(VIGIL, prof)
        print("outputs: %d edges (%s)" % (n, prof))
        base = None
        for name, args, ext in RUNS:
            out = os.path.join(os.path.dirname(prof), "out." + (ext or "report"))
            # run_report prepends "report": call the command directly.
            sec, rss, rc = run(args + [prof], out)
            size = os.path.getsize(out) if os.path.exists(out) else 0
            if base is None:
                base = sec
            ratio = " %5.2fx" % (sec / base) if sec and base else ""
            print("  %-26s %s%s  %8.1f MiB out%s" % (
                name, readers.fmt(sec, rss), ratio, size / 2**20,
                "" if rc == 0 else "  (exit %s)" % rc))


def run(args, out):
    import subprocess
    import time
    t0 = time.time()
    with open(out, "wb") as f:
        p = subprocess.Popen([VIGIL] + args, stdout=f,
                             stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
    return (time.time() - t0, ru.ru_maxrss * 1024,
            os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main()
