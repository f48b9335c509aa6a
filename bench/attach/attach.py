#!/usr/bin/python3
"""Measure the live sampler (`vigil attach`, sampler/) beside its baselines.

Part of `make bench`; a measurement, not a test: exits 0 whatever the
numbers, non-zero only if something could not be built or run.  Each
figure is printed with the baseline measured in the same run:

  stop latency     sampler_stop() at a 10 s interval, 200 stops: median,
                   p99, max; beside debugserver's old usleep loop (5 stops
                   at a 1 s interval: it waits out the rest of the sleep).
  scan cost        one threads scan, us per thread, at 1, 16 and 256
                   threads: descriptors kept open and re-read with pread,
                   beside reopening every /proc file each scan.
  first sample     from starting `vigil attach` to its first sample record,
                   beside starting `vigil --help` to its exit (the floor:
                   exec and dynamic linking of the same binary).
  stacks cost      the target's slow-down (percentage points of the CPU
                   time its fixed work takes) under `vigil attach --scan stacks` at 99,
                   999 and 4999 Hz, beside `perf record -g -F` at the same
                   rates, when perf is installed (linux-perf).

Environment: BENCH_RUNS (rounds of the stacks comparison, default 3).
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "bench", "attach")
OUT = os.path.join(ROOT, "build", "bench", "attach")
VIGIL = os.path.join(ROOT, "build", "vigil")
CC = os.environ.get("CC", "gcc")
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
SPIN_ITERS = "300000000"


def build():
    os.makedirs(OUT, exist_ok=True)
    srcs = [os.path.join(ROOT, d, f) for d in ("sampler", "lib")
            for f in sorted(os.listdir(os.path.join(ROOT, d)))
            if f.endswith(".c")]
    subprocess.run([CC, "-O2", "-g", "-D_GNU_SOURCE",
                    "-I" + os.path.join(ROOT, "sampler"),
                    "-I" + os.path.join(ROOT, "lib"),
                    os.path.join(HERE, "sampler.c"), *srcs,
                    *subprocess.run(
                        ["make", "-s", "--no-print-directory", "-C", ROOT,
                         "print-tool-libs"], stdout=subprocess.PIPE,
                        text=True, check=True).stdout.split(),
                    "-o", os.path.join(OUT, "sampler")], check=True)
    subprocess.run([CC, "-O1", "-fno-omit-frame-pointer",
                    "-mno-omit-leaf-frame-pointer",
                    os.path.join(HERE, "spin.c"),
                    "-o", os.path.join(OUT, "spin")], check=True)


def run_bench(*args):
    out = subprocess.run([os.path.join(OUT, "sampler"), *args], check=True,
                         capture_output=True, text=True, timeout=600).stdout
    return out.split()


def stop_latency():
    _, med, p99, mx = run_bench("stop", "200", "10000")
    _, omed, op99, omx = run_bench("usleep-stop", "5", "1000")
    print("stop latency, 200 stops at a 10 s interval (us):")
    print("  sampler_stop    median %9s  p99 %9s  max %9s" % (med, p99, mx))
    print("  usleep loop     median %9s  p99 %9s  max %9s  (1 s interval, 5 stops)"
          % (omed, op99, omx))
    print("  ratio (median, usleep loop / sampler): %.0fx; p99 target < 5000 us: %s"
          % (float(omed) / max(float(med), 0.001),
             "met" if float(p99) < 5000 else "NOT met"))


def scan_cost():
    print("threads scan, us per thread (kept open + pread / reopen each scan):")
    for n, reps in ((1, 2000), (16, 500), (256, 50)):
        _, _, kept, reopen = run_bench("scan", str(n), str(reps))
        print("  %4d threads  %7s  %7s   ratio %.2f; target < 5 us: %s"
              % (n, kept, reopen, float(kept) / float(reopen),
                 "met" if float(kept) < 5 else "NOT met"))


def first_sample(pid):
    """Seconds from Popen to the first sample record."""
    t0 = time.monotonic()
    p = subprocess.Popen([VIGIL, "attach", "-p", str(pid), "--interval", "1h"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    took = None
    for line in p.stdout:
        if line.startswith('{"type":"sample"'):
            took = time.monotonic() - t0
            break
    p.stdin.close()
    p.wait()
    return took


def help_time():
    t0 = time.monotonic()
    subprocess.run([VIGIL, "--help"], stdout=subprocess.DEVNULL, check=True)
    return time.monotonic() - t0


def attach_time():
    target = subprocess.Popen(["sleep", "60"])
    try:
        firsts = [first_sample(target.pid) for _ in range(20)]
        helps = [help_time() for _ in range(20)]
    finally:
        target.kill()
        target.wait()
    f, h = statistics.median(firsts) * 1e3, statistics.median(helps) * 1e3
    print("attach to first sample (median of 20): %.2f ms; vigil --help "
          "start to exit: %.2f ms; ratio %.1f; target < 50 ms: %s"
          % (f, h, f / h, "met" if f < 50 else "NOT met"))


def spin_once(how, hz, tmp):
    """The CPU time in ns of the spin target's work, under `how` at hz."""
    spin = subprocess.Popen([os.path.join(OUT, "spin"), SPIN_ITERS],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    watcher = None
    if how == "vigil":
        watcher = subprocess.Popen(
            [VIGIL, "attach", "-p", str(spin.pid), "--scan", "stacks",
             "--frequency", str(hz), "--interval", "1s"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        watcher.stdout.readline()           # attach
        watcher.stdout.readline()           # first sample: events are open
    elif how == "perf":
        watcher = subprocess.Popen(
            ["perf", "record", "-q", "-g", "-F", str(hz), "-p", str(spin.pid),
             "-o", os.path.join(tmp, "perf.data")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)                     # perf says nothing when ready
    out, _ = spin.communicate("go\n", timeout=120)
    if watcher:
        if how == "vigil":
            watcher.stdout.read()
            watcher.stdin.close()
        watcher.wait(timeout=60)
    return int(out.strip())


def stacks_cost():
    have_perf = shutil.which("perf") is not None
    configs = [("plain", 0)] + [("vigil", hz) for hz in (99, 999, 4999)]
    if have_perf:
        configs += [("perf", hz) for hz in (99, 999, 4999)]
    times = {c: [] for c in configs}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(RUNS):
            for c in configs:
                times[c].append(spin_once(c[0], c[1], tmp))
    base = statistics.median(times[("plain", 0)])
    print("target slow-down under stack sampling (median of %d, %% of its "
          "work's CPU time; plain %.0f ms):" % (RUNS, base / 1e6))
    for hz in (99, 999, 4999):
        v = (statistics.median(times[("vigil", hz)]) / base - 1) * 100
        line = "  %5d Hz  vigil attach %+6.2f%%" % (hz, v)
        if have_perf:
            p = (statistics.median(times[("perf", hz)]) / base - 1) * 100
            line += "   perf record %+6.2f%%   difference %+.2f points" % (p, v - p)
        print(line)
    if not have_perf:
        print("  (perf not installed: no perf record comparison)")


def main():
    try:
        build()
    except (subprocess.CalledProcessError, OSError) as e:
        print("bench/attach: cannot build: %s" % e, file=sys.stderr)
        return 1
    print("== live sampler (vigil attach) ==")
    stop_latency()
    scan_cost()
    attach_time()
    stacks_cost()
    return 0


if __name__ == "__main__":
    sys.exit(main())
