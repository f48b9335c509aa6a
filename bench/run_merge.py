#!/usr/bin/python3
"""The benchmark of `vigil run` and `vigil merge` (issue 9).

1. A fork/exec-heavy command: a shell loop that runs a short instrumented
   program 1000 times, under `vigil run` (which waits for the tree and then
   merges the 1000 profiles into one) against the same loop run alone,
   with VIGIL_FILE pointing into a directory as vigil run would.  Runs
   alternate, BENCH_RUN_REPEAT times each (default 5); medians of wall
   time (target: within 5 %) and of CPU time, which the other load of a
   shared machine disturbs less.
2. `vigil merge` of 1000 profiles of one program with 10k edges each
   (tests/e2e/mergeprof.py writes them: each with its own load addresses,
   module ids and threads): wall seconds and peak resident memory, beside
   the floor of reading the same bytes (cat > /dev/null).  Targets: under
   2 s and under 256 MiB.

A measurement, not a test: it prints, and exits 0 whatever the numbers.
Files go to build/bench-run/ (never committed).  BENCH_MERGE_FILES and
BENCH_MERGE_EDGES change the merge's size.
3. A real test suite: xz-utils' `make check` (Debian 12's source package,
   through scripts/debian-source.sh, built with pkg-config's flags as
   tests/lit/run/xz.test built it before it took the default, shared
   configuration: static liblzma, -O1), under `vigil run` against the same
   `make check` alone with VIGIL_FILE pointing into a directory, runs
   alternating, BENCH_XZ_REPEAT times each (default 3); medians of wall
   and CPU time.  The build is kept in build/bench-run/xz/ and redone
   when build/libvigil.a changes.
"""
import glob
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "build", "bench-run")
VIGIL = os.path.join(ROOT, "build", "vigil")
REPEAT = int(os.environ.get("BENCH_RUN_REPEAT", "5"))
FILES = int(os.environ.get("BENCH_MERGE_FILES", "1000"))
EDGES = int(os.environ.get("BENCH_MERGE_EDGES", "10000"))

LOOP = 'i=0; while [ $i -lt 1000 ]; do "$0" exit 0; i=$((i + 1)); done'


def timed(argv, env=None):
    """(wall seconds, peak RSS in MiB, CPU seconds of it and of the
    descendants it waited for) of one run, output discarded."""
    t = time.monotonic()
    p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t
    if os.waitstatus_to_exitcode(status) != 0:
        print("bench: %s failed (status %d)" % (argv[:4], status),
              file=sys.stderr)
    return wall, ru.ru_maxrss / 1024.0, ru.ru_utime + ru.ru_stime


def bench_run():
    prog = os.path.join(OUT, "runkid")
    subprocess.run([os.path.join(ROOT, "tests", "e2e", "vcc"), "dynamic",
                    os.path.join(ROOT, "tests", "lit", "Inputs", "runkid.c"),
                    "-o", prog], check=True)
    alone, under, alone_cpu, under_cpu = [], [], [], []
    for r in range(REPEAT):
        d = os.path.join(OUT, "alone")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        env = dict(os.environ, VIGIL_FILE=os.path.join(d, "%e.%p.vgl"))
        w, _, c = timed(["sh", "-c", LOOP, prog], env)
        alone.append(w)
        alone_cpu.append(c)
        d = os.path.join(OUT, "under")
        shutil.rmtree(d, ignore_errors=True)
        env = dict(os.environ)
        env.pop("VIGIL_FILE", None)
        w, _, c = timed([VIGIL, "run", "-o", d, "--", "sh", "-c", LOOP,
                         prog], env)
        under.append(w)
        under_cpu.append(c)
    a, u = statistics.median(alone), statistics.median(under)
    if os.environ.get("BENCH_VERBOSE"):
        print("  alone %s\n  under %s" % (alone, under))
    print("vigil run: shell loop of 1000 instrumented programs: alone "
          "%.3f s, under vigil run %.3f s (merge included): ratio %.3f "
          "(target <= 1.05)" % (a, u, u / a))
    a, u = statistics.median(alone_cpu), statistics.median(under_cpu)
    print("vigil run: the same, CPU time (user + sys, every process): "
          "alone %.3f s, under vigil run %.3f s: ratio %.3f" % (a, u, u / a))


def bench_merge():
    d = os.path.join(OUT, "profiles")
    stamp = os.path.join(d, ".made-%d-%d" % (FILES, EDGES))
    if not os.path.exists(stamp):
        shutil.rmtree(d, ignore_errors=True)
        print("vigil merge: writing %d profiles of %d edges..."
              % (FILES, EDGES), flush=True)
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "e2e",
                                                     "mergeprof.py"),
                        "gen", d, "--files", str(FILES), "--edges",
                        str(EDGES)], check=True)
        open(stamp, "w").close()
    files = sorted(glob.glob(os.path.join(d, "*.vgl")))
    size = sum(os.path.getsize(f) for f in files) / 2**20
    # Warm the page cache once, so both runs read from memory.
    timed(["sh", "-c", 'cat "$@" > /dev/null', "cat"] + files)
    floor = timed(["sh", "-c", 'cat "$@" > /dev/null', "cat"] + files)[0]
    out = os.path.join(OUT, "merged.vgl")
    secs, rss, _ = timed([VIGIL, "merge", d, "-o", out])
    print("vigil merge: %d profiles x %d edges (%.0f MiB): %.2f s "
          "(target < 2 s), peak %.1f MiB (target < 256 MiB); reading the "
          "bytes alone (cat): %.2f s, ratio %.1f"
          % (FILES, EDGES, size, secs, rss, floor, secs / floor))


def bench_xz():
    d = os.path.join(OUT, "xz")
    src = os.path.join(d, "src")
    with open(os.path.join(ROOT, "build", "libvigil.a"), "rb") as f:
        runtime = hashlib.sha256(f.read()).hexdigest()
    stamp = os.path.join(d, ".built-" + runtime[:16])
    if not os.path.exists(stamp):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        print("vigil run: building xz-utils...", flush=True)
        quiet = dict(stdout=subprocess.DEVNULL, check=True)
        subprocess.run([os.path.join(ROOT, "scripts", "debian-source.sh"),
                        "xz-utils", src], **quiet)
        prefix = os.path.join(d, "prefix")
        subprocess.run(["make", "-s", "-C", ROOT, "-o", "all", "install",
                        "PREFIX=" + prefix], **quiet)
        env = dict(os.environ,
                   PKG_CONFIG_PATH=os.path.join(prefix, "lib", "pkgconfig"),
                   VIGIL_FILE=os.path.join(d, "conf", "%e.%p.vgl"))
        os.makedirs(os.path.join(d, "conf"))

        def pc(flag):
            return subprocess.run(["pkg-config", flag, "vigil"], env=env,
                                  check=True, capture_output=True,
                                  text=True).stdout.strip()
        subprocess.run(["./configure", "--disable-doc", "--disable-nls",
                        "--disable-shared", "CFLAGS=%s -O1" % pc("--cflags"),
                        "LIBS=" + pc("--libs")], cwd=src, env=env, **quiet)
        # The test programs too, so that every timed run only runs tests.
        subprocess.run(["make", "-j2", "check", "TESTS="], cwd=src, env=env,
                       **quiet)
        open(stamp, "w").close()
    alone, under, alone_cpu, under_cpu = [], [], [], []
    for r in range(int(os.environ.get("BENCH_XZ_REPEAT", "3"))):
        p = os.path.join(d, "alone")
        shutil.rmtree(p, ignore_errors=True)
        os.makedirs(p)
        env = dict(os.environ, VIGIL_FILE=os.path.join(p, "%e.%p.vgl"))
        w, _, c = timed(["make", "-C", src, "check"], env)
        alone.append(w)
        alone_cpu.append(c)
        p = os.path.join(d, "under")
        shutil.rmtree(p, ignore_errors=True)
        env = dict(os.environ)
        env.pop("VIGIL_FILE", None)
        w, _, c = timed([VIGIL, "run", "-o", p, "--", "make", "-C", src,
                         "check"], env)
        under.append(w)
        under_cpu.append(c)
    if os.environ.get("BENCH_VERBOSE"):
        print("  alone %s\n  under %s" % (alone, under))
    a, u = statistics.median(alone), statistics.median(under)
    print("vigil run: xz-utils' make check (%d processes): alone %.3f s, "
          "under vigil run %.3f s (merge included): ratio %.3f"
          % (len(os.listdir(os.path.join(d, "alone"))), a, u, u / a))
    a, u = statistics.median(alone_cpu), statistics.median(under_cpu)
    print("vigil run: the same, CPU time (user + sys, every process): "
          "alone %.3f s, under vigil run %.3f s: ratio %.3f" % (a, u, u / a))


def main():
    if not os.path.exists(VIGIL):
        print("bench: build/vigil is not built; run make first",
              file=sys.stderr)
        return 1
    os.makedirs(OUT, exist_ok=True)
    bench_run()
    bench_merge()
    bench_xz()
    return 0


if __name__ == "__main__":
    sys.exit(main())
