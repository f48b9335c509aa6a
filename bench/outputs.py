#!/usr/bin/python3
"""The output formats' benchmark (issue 10): `vigil convert --to FORMAT`
for every format, and `vigil flame`, on the generated program of 1M
distinct call edges (bench/gen_edges.py, built and run by
bench/readers.py's make_program, kept in build/bench-readers): seconds
(wall) and peak resident memory of each, and its ratio to `vigil report
--json` measured in the same run on the same profile: the cost of reading
the file, symbolizing and building the model, which every format pays.

The same for a sampled profile (vigil attach -o) of that program,
written by tests/corpus/mkcorpus.py: BENCH_STACKS (default 100000)
distinct stacks of 4 to 28 frames over its functions (1.6M frames), each
format's ratio to `report --json` of that file in the same run.
Then `vigil plot` of a long sampled profile (BENCH_PLOT_SAMPLES samples,
default 100000: 1000 s at a 10 ms interval, of 8 threads, made by
tests/e2e/mkplotsamples.py) beside `vigil report` of the same file.

A measurement, not a test: it prints, and exits 0 whatever the numbers
are.  BENCH_EDGES (default 1000000) picks other sizes (comma-separated).
"""
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests", "corpus"))
import readers  # noqa: E402
import mkcorpus  # noqa: E402

ROOT = readers.ROOT
VIGIL = os.path.join(ROOT, "build", "vigil")
SIZES = [int(x) for x in
         os.environ.get("BENCH_EDGES", "1000000").split(",") if x]
PLOT_SAMPLES = int(os.environ.get("BENCH_PLOT_SAMPLES", "100000"))
STACKS = int(os.environ.get("BENCH_STACKS", "100000"))
BIAS = 0x555555554000
RUNS = [
    ("report --json (baseline)", ["report", "--json"], None),
    ("convert --to json", ["convert", "--to", "json"], "json"),
    ("convert --to callgrind", ["convert", "--to", "callgrind"], "callgrind"),
    ("convert --to folded", ["convert", "--to", "folded"], "folded"),
    ("convert --to fdata", ["convert", "--to", "fdata"], "fdata"),
    ("convert --to pprof", ["convert", "--to", "pprof"], "pprof"),
    ("flame", ["flame"], "svg"),
]


def make_sampled(prof):
    """A sampled profile of the program beside prof (kept between runs):
    STACKS distinct stacks over its functions, random but the same in
    every run.  Written by a child process: the stacks it holds while
    writing would otherwise count in the peak memory of every command
    this process starts (a fork's ru_maxrss starts at its parent's)."""
    d = os.path.dirname(prof)
    out = os.path.join(d, "s%d.vgl" % STACKS)
    if not os.path.exists(out):
        subprocess.run([sys.executable, "-B", os.path.abspath(__file__),
                        "--write-sampled", os.path.join(d, "p"), out],
                       check=True)
    return out


def write_sampled(exe, out):
    nm = subprocess.run(["nm", "--defined-only", exe], check=True,
                        capture_output=True, text=True).stdout
    funcs = [int(a, 16) for a, t, _ in
             (line.split() for line in nm.splitlines()
              if len(line.split()) == 3) if t in "tT"]
    rnd = random.Random(1)
    recs = []
    for i in range(STACKS):
        depth = rnd.randint(4, 28)
        frames = [(BIAS + rnd.choice(funcs) + (4 if k == 0 else 8), 0)
                  for k in range(depth)]
        recs.append((1 + i % 8, rnd.randint(1, 100), frames))
    spec = mkcorpus.sampled_spec()
    bid = subprocess.run(["readelf", "-n", exe], capture_output=True,
                         text=True).stdout.split("Build ID: ")
    spec.update(exe=exe, argv=[exe], modules=[
        (0, BIAS, BIAS, BIAS + os.path.getsize(exe),
         bytes.fromhex(bid[1].split()[0]) if len(bid) > 1 else b"", exe)])
    spec["stacks"] = (0, 999, recs)
    with open(out + ".tmp", "wb") as f:
        f.write(bytes(mkcorpus.build(spec)[0]))
    os.rename(out + ".tmp", out)


def main():
    for edges in SIZES:
        prof = readers.make_program(edges)
        n = readers.edge_count(VIGIL, prof)
        print("outputs: %d edges (%s)" % (n, prof))
        measure(prof)
        sampled = make_sampled(prof)
        print("outputs: sampled, %d distinct stacks (%s)" % (STACKS, sampled))
        measure(sampled)


def measure(prof):
    """Every format of prof, each beside report --json of it."""
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


def bench_plot():
    import subprocess
    d = os.path.join(ROOT, "build", "bench-plot")
    os.makedirs(d, exist_ok=True)
    prof = os.path.join(d, "long.vgl")
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "e2e",
                                                 "mkplotsamples.py"),
                    "many", prof, str(PLOT_SAMPLES), "8"], check=True)
    print("plot: %d readings of 8 threads (%.1f MiB, %s)"
          % (PLOT_SAMPLES, os.path.getsize(prof) / 2**20, prof))
    base = None
    for name, args, ext in (("report (baseline)", ["report"], "report"),
                            ("plot", ["plot"], "svg")):
        out = os.path.join(d, "out." + ext)
        sec, rss, rc = run(args + [prof], out)
        if base is None:
            base = sec
        ratio = " %5.2fx" % (sec / base) if sec and base else ""
        print("  %-26s %s%s  %8.1f MiB out%s" % (
            name, readers.fmt(sec, rss), ratio, os.path.getsize(out) / 2**20,
            "" if rc == 0 else "  (exit %s)" % rc))


def run(args, out):
    import time
    t0 = time.time()
    with open(out, "wb") as f:
        p = subprocess.Popen([VIGIL] + args, stdout=f,
                             stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
    return (time.time() - t0, ru.ru_maxrss * 1024,
            os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--write-sampled"]:
        write_sampled(sys.argv[2], sys.argv[3])
    else:
        if os.environ.get("BENCH_PLOT_ONLY") != "1":
            main()
        bench_plot()
