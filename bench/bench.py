#!/usr/bin/python3
"""Time vigil and its peers side by side on call-heavy C workloads.

Builds every workload (bench/*.c) in every variant into build/bench/, runs
them interleaved (round r runs every workload x variant once before round
r+1 starts, so drift in machine load hits all variants alike), and prints
median wall-time ratios to the uninstrumented build, CPU-time ratios for the
threaded workload, callgrind instruction ratios, and vigil's cost per call
above the empty-hook floor.  Each run gets a fresh temporary directory and
must leave its profile there; a run whose output differs from the plain
build's, or that leaves no profile, is reported.

This is a measurement, not a test: it exits 0 whatever the numbers are, and
non-zero only if something could not be built or run at all.

Environment: BENCH_RUNS (default 5), BENCH_TIMEOUT (seconds per run,
default 60), BENCH_ONLY (comma-separated variant names, for development),
BENCH_NO_CALLGRIND=1, CC (default gcc), CLANG (default clang).
"""

import glob
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
OUT = os.path.join(ROOT, "build", "bench")
LIBVIGIL = os.path.join(ROOT, "build", "libvigil.a")
# Entry-only counting's compile flags, as vigil-entry.pc gives them (the
# template has no placeholder to fill in).
ENTRY_CC = "-specs=" + os.path.join(ROOT, "vigil-entry-cc.specs.in")
BOLT = "/usr/lib/llvm-19/bin/llvm-bolt"  # the llvm-bolt-19 link misses its runtime
CC = os.environ.get("CC", "gcc")
CLANG = os.environ.get("CLANG", "clang")
RUNS = int(os.environ.get("BENCH_RUNS", "5"))
TIMEOUT = float(os.environ.get("BENCH_TIMEOUT", "60"))
ONLY = [v for v in os.environ.get("BENCH_ONLY", "").split(",") if v]

# name -> (source, arguments at full size, at reduced size, under callgrind).
# Full size runs ~0.3 s uninstrumented on a 2020s x86-64 core; reduced size
# is 16-120x less work, for variants too slow to run at full size (the plain
# build then takes only milliseconds, so process start-up weighs in and
# those ratios understate the overhead).
THREAD_ITERS, THREAD_ITERS_SMALL = "120000000", "1000000"
WORKLOADS = {
    "fib": ("fib", ["39"], ["30"], ["27"]),
    "table": ("table", ["30000000"], ["1000000"], ["1000000"]),
    "threads-1": ("threads", ["1", THREAD_ITERS], ["1", THREAD_ITERS_SMALL], None),
    "threads-2": ("threads", ["2", THREAD_ITERS], ["2", THREAD_ITERS_SMALL], None),
    "threads-4": ("threads", ["4", THREAD_ITERS], ["4", THREAD_ITERS_SMALL], None),
    "app": ("app", ["400000"], ["25000"], ["20000"]),
}
SOURCES = ["fib", "table", "threads", "app"]
THREADED = [w for w in WORKLOADS if w.startswith("threads-")]


class Variant:
    """One way of building and running a workload.

    small: workloads (or "all") run at reduced size, ratio taken against the
    plain build at that same size.  only: workloads this variant runs at all.
    """

    def __init__(self, name, note, small=(), only=None, callgrind=False):
        self.name = name
        self.note = note
        self.small = small
        self.only = only
        self.callgrind = callgrind

    def runs(self, workload):
        return self.only is None or workload in self.only

    def is_small(self, workload):
        return self.small == "all" or workload in self.small

    def binary(self, src):
        return os.path.join(OUT, self.name, src)


VARIANTS = [
    Variant("base", "gcc -O2, uninstrumented", callgrind=True),
    Variant("floor", "gcc -O2 -finstrument-functions, empty hooks linked in "
            "(bench/emptyhooks.c)", callgrind=True),
    Variant("floor-plt", "the same empty hooks in a shared library, "
            "reached through the PLT", callgrind=True),
    Variant("vigil", "gcc -O2 -finstrument-functions + build/libvigil.a",
            callgrind=True),
    Variant("floor-entry", "gcc -O2, -pg -mfentry -fno-optimize-sibling-calls "
            "to cc1 (vigil-entry-cc.specs), an empty __fentry__ linked in "
            "(bench/emptyfentry.S)", callgrind=True),
    Variant("vigil-entry", "the same flags + build/libvigil.a: entry-only "
            "counting (vigil-entry.pc)", callgrind=True),
    Variant("gprof", "gcc -O2 -pg (glibc mcount, gmon.out; threads reduced: "
            "one shared atomic state word per call)", small=THREADED),
    Variant("gcov", "gcc -O2 --coverage -fprofile-update=single"),
    Variant("gcov-atomic", "gcc -O2 --coverage -fprofile-update=atomic "
            "(what -pthread selects by default; reduced: shared atomics)",
            only=THREADED, small=THREADED),
    Variant("clang", "clang -O2, uninstrumented: the compiler difference "
            "inside clang-instr's ratio", callgrind=True),
    Variant("clang-instr", "clang -O2 -fprofile-instr-generate", callgrind=True),
    Variant("uftrace", "gcc -O2 -pg run under `uftrace record` (it takes -pg "
            "or -finstrument-functions builds; -pg here; all sizes reduced)",
            small="all"),
    Variant("bolt", "llvm-bolt 19 -instrument of the base build linked with "
            "--emit-relocs (threads reduced: its counters are shared atomics)",
            small=THREADED, callgrind=True),
]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def sh(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError("command failed: %s\n%s" % (" ".join(cmd), r.stdout))
    return r.stdout


# ---- build ---------------------------------------------------------------

def build(v, src):
    """Build bench/SRC.c as variant v; return the binary's path."""
    c = os.path.join(BENCH, src + ".c")
    out = v.binary(src)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    base = [CC, "-O2", "-pthread"]
    if v.name == "base":
        sh(base + [c, "-o", out])
    elif v.name == "floor":
        hooks = os.path.join(OUT, "emptyhooks.o")
        sh(base + ["-finstrument-functions", c, hooks, "-o", out])
    elif v.name == "floor-plt":
        sh(base + ["-finstrument-functions", c, "-L" + OUT, "-lemptyhooks",
                   "-Wl,-rpath," + OUT, "-o", out])
    elif v.name == "vigil":
        sh(base + ["-finstrument-functions", "-I" + os.path.join(ROOT, "include"),
                   c, LIBVIGIL,
                   "-Wl,--export-dynamic-symbol=__cyg_profile_func_enter",
                   "-Wl,--export-dynamic-symbol=__cyg_profile_func_exit",
                   "-Wl,--wrap=__cyg_profile_func_enter",
                   "-o", out])
    elif v.name == "floor-entry":
        sh(base + [ENTRY_CC, c, os.path.join(OUT, "emptyfentry.o"), "-o", out])
    elif v.name == "vigil-entry":
        sh(base + [ENTRY_CC, "-I" + os.path.join(ROOT, "include"),
                   c, LIBVIGIL,
                   "-Wl,--export-dynamic-symbol=__fentry__",
                   "-Wl,--export-dynamic-symbol=__cyg_profile_func_enter",
                   "-Wl,--export-dynamic-symbol=__cyg_profile_func_exit",
                   "-Wl,--wrap=__fentry__",
                   "-Wl,--wrap=__cyg_profile_func_enter",
                   "-o", out])
    elif v.name == "gprof":
        sh(base + ["-pg", c, "-o", out])
    elif v.name == "gcov":
        sh(base + ["--coverage", "-fprofile-update=single", c, "-o", out])
    elif v.name == "gcov-atomic":
        sh(base + ["--coverage", "-fprofile-update=atomic", c, "-o", out])
    elif v.name == "clang":
        sh([CLANG, "-O2", "-pthread", c, "-o", out])
    elif v.name == "clang-instr":
        sh([CLANG, "-O2", "-pthread", "-fprofile-instr-generate", c, "-o", out])
    elif v.name == "uftrace":
        sh(base + ["-pg", c, "-o", out])
    elif v.name == "bolt":
        plain = out + ".relocs"
        sh(base + ["-Wl,--emit-relocs", c, "-o", plain])
        # The profile path is fixed at instrumentation time; the runner
        # points it into each run's temporary directory through a symlink.
        sh([BOLT, plain, "-instrument", "-o", out,
            "--instrumentation-file=" + os.path.join(OUT, "bolt", src + ".run",
                                                     "prof.fdata")])
    else:
        raise ValueError(v.name)
    return out


def build_all(variants):
    os.makedirs(OUT, exist_ok=True)
    hooks = os.path.join(BENCH, "emptyhooks.c")
    sh([CC, "-O2", "-c", hooks, "-o", os.path.join(OUT, "emptyhooks.o")])
    sh([CC, "-c", os.path.join(BENCH, "emptyfentry.S"), "-o",
        os.path.join(OUT, "emptyfentry.o")])
    sh([CC, "-O2", "-fPIC", "-shared", hooks, "-o",
        os.path.join(OUT, "libemptyhooks.so")])
    for v in variants:
        for src in SOURCES:
            if any(v.runs(w) for w, spec in WORKLOADS.items() if spec[0] == src):
                build(v, src)


# ---- run -----------------------------------------------------------------

class Result:
    def __init__(self):
        self.wall = []
        self.cpu = []
        self.calls = None
        self.failed = None      # a reason, once a run failed or timed out
        self.problems = []


def profile_files(vname, tmp):
    """The profile files a run of variant vname left in tmp."""
    pattern = {
        "vigil": "*.vgl", "vigil-entry": "*.vgl", "gprof": "gmon.out", "gcov": "*.gcda",
        "gcov-atomic": "*.gcda", "clang-instr": "*.profraw",
        "uftrace": "uftrace.data/*.dat", "bolt": "prof.fdata",
    }.get(vname)
    if pattern is None:
        return None
    return glob.glob(os.path.join(tmp, pattern))


def bolt_run(src):
    """The path BOLT wrote into the instrumented binary: a link to the
    run's own directory (the profile path is fixed at instrumentation)."""
    return os.path.join(OUT, "bolt", src + ".run")


def unlink_bolt_run(src):
    if os.path.lexists(bolt_run(src)):
        os.unlink(bolt_run(src))


def release_run(v, src, tmp):
    """Removes what one run of variant v on workload src left behind."""
    if v.name == "bolt":
        unlink_bolt_run(src)
    shutil.rmtree(tmp, ignore_errors=True)


def command(v, src, args, tmp):
    """argv and environment for one run of variant v in directory tmp."""
    env = dict(os.environ)
    argv = [v.binary(src)] + args
    if v.name in ("vigil", "vigil-entry"):
        env["VIGIL_FILE"] = os.path.join(tmp, "%e.%p.vgl")
    elif v.name in ("gcov", "gcov-atomic"):
        # Strip the whole build path so the .gcda lands in tmp itself.
        env["GCOV_PREFIX"] = tmp
        env["GCOV_PREFIX_STRIP"] = "64"
    elif v.name == "clang-instr":
        env["LLVM_PROFILE_FILE"] = os.path.join(tmp, "%p.profraw")
    elif v.name == "uftrace":
        argv = ["uftrace", "record", "-d", os.path.join(tmp, "uftrace.data")] + argv
    elif v.name == "bolt":
        unlink_bolt_run(src)
        os.symlink(tmp, bolt_run(src))
    return argv, env


def check_vgl(wname, files, res):
    """On a workload's first vigil run: `vigil show` must find the file
    finished and valid, with every call counted (the workload's calls plus
    the one to main)."""
    tool = os.path.join(ROOT, "build", "vigil")
    if not os.access(tool, os.X_OK):
        return
    r = subprocess.run([tool, "show"] + files[:1], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    info = dict(l.split(":", 1) for l in r.stdout.splitlines() if ":" in l)
    calls = info.get("calls", "").strip()
    bad = []
    if r.returncode != 0:
        bad.append("exit %d" % r.returncode)
    if info.get("valid", "").strip() != "yes":
        bad.append("not valid")
    if not info.get("state", "").strip().startswith("finished"):
        bad.append("state %r" % info.get("state", "").strip())
    if res.calls is not None and calls != str(res.calls + 1):
        bad.append("calls %s, expected %d" % (calls or "?", res.calls + 1))
    if bad:
        res.problems.append("%s/vigil*: `vigil show` on the profile: %s" %
                            (wname, "; ".join(bad)))


def run_once(v, wname, small_size, res, expect_out):
    src, full, small, _ = WORKLOADS[wname]
    args = small if small_size else full
    tmp = tempfile.mkdtemp(prefix="vigil-bench-")
    try:
        argv, env = command(v, src, args, tmp)
        errf = open(os.path.join(tmp, ".stderr"), "w+")
        outf = open(os.path.join(tmp, ".stdout"), "w+")
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, cwd=tmp, env=env, stdout=outf, stderr=errf)
        # Block in wait4 (no polling, which would blur short runs); a timer
        # kills a run that takes too long.
        timer = threading.Timer(TIMEOUT, p.kill)
        timer.start()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        timer.cancel()
        p.returncode = 0  # reaped here, not by Popen
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == 9 and \
                wall >= TIMEOUT:
            res.failed = "timeout"
            res.problems.append("%s/%s: killed after %.0f s (BENCH_TIMEOUT)" %
                                (wname, v.name, TIMEOUT))
            return None
        outf.seek(0)
        errf.seek(0)
        out, err = outf.read(), errf.read()
        outf.close()
        errf.close()
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            res.failed = "exit %d" % code
            res.problems.append("%s/%s: exit status %d: %s" %
                                (wname, v.name, code, err.strip()[-300:]))
            return None
        for line in err.splitlines():
            if line.startswith("calls="):
                res.calls = int(line[6:])
        if expect_out is not None and out != expect_out:
            msg = "%s/%s: output differs from base: %r" % (wname, v.name,
                                                           out.strip())
            if msg not in res.problems:
                res.problems.append(msg)
        files = profile_files(v.name, tmp)
        if files is not None and not files:
            msg = "%s/%s: PROFILE MISSING (no %s written)" % (wname, v.name, {
                "vigil": ".vgl", "vigil-entry": ".vgl", "gprof": "gmon.out", "gcov": ".gcda",
                "gcov-atomic": ".gcda", "clang-instr": ".profraw",
                "uftrace": "uftrace.data", "bolt": ".fdata"}[v.name])
            if msg not in res.problems:
                res.problems.append(msg)
        elif v.name in ("vigil", "vigil-entry") and not res.wall:
            check_vgl(wname, files, res)
        res.wall.append(wall)
        res.cpu.append(ru.ru_utime + ru.ru_stime)
        return out
    finally:
        release_run(v, src, tmp)


def measure(variants):
    """results[(workload, variant name, small?)] = Result."""
    base = next(v for v in VARIANTS if v.name == "base")
    cells = []
    for w in WORKLOADS:
        smalls = sorted({v.is_small(w) for v in variants if v.runs(w)})
        for s in smalls:  # the plain build at every size a peer needs
            cells.append((w, base, s))
        for v in variants:
            if v.name != "base" and v.runs(w):
                cells.append((w, v, v.is_small(w)))
    results = {(w, v.name, s): Result() for w, v, s in cells}
    expect = {}
    for r in range(RUNS):
        t0 = time.time()
        for w, v, s in cells:
            res = results[(w, v.name, s)]
            if res.failed:
                continue
            out = run_once(v, w, s, res, expect.get((w, s)))
            if v.name == "base" and out is not None:
                expect.setdefault((w, s), out)
        log("bench: round %d/%d done in %.0f s" % (r + 1, RUNS, time.time() - t0))
    spent = {}
    for (w, n, s), res in results.items():
        spent[n] = spent.get(n, 0) + sum(res.wall)
    log("bench: seconds spent per variant: " + ", ".join(
        "%s %.0f" % kv for kv in sorted(spent.items(), key=lambda kv: -kv[1])))
    return results


# ---- callgrind -----------------------------------------------------------

def callgrind(variants):
    """cg[(workload, variant)] = (instructions, calls) or a failure string."""
    cg = {}
    if os.environ.get("BENCH_NO_CALLGRIND") or not shutil.which("valgrind"):
        return cg
    for w, (src, _, _, args) in WORKLOADS.items():
        if args is None:
            continue
        for v in variants:
            if not v.callgrind:
                continue
            tmp = tempfile.mkdtemp(prefix="vigil-bench-cg-")
            try:
                argv, env = command(v, src, args, tmp)
                cgout = os.path.join(tmp, "cg.out")
                r = subprocess.run(["valgrind", "--tool=callgrind",
                                    "--callgrind-out-file=" + cgout] + argv,
                                   cwd=tmp, env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True,
                                   timeout=TIMEOUT * 4)
                calls = None
                for line in r.stderr.splitlines():
                    if line.startswith("calls="):
                        calls = int(line[6:])
                total = None
                if os.path.exists(cgout):
                    with open(cgout) as f:
                        for line in f:
                            if line.startswith(("summary:", "totals:")):
                                total = int(line.split()[1])
                if r.returncode != 0 or total is None:
                    cg[(w, v.name)] = "failed (exit %d)" % r.returncode
                else:
                    cg[(w, v.name)] = (total, calls)
            except subprocess.TimeoutExpired:
                cg[(w, v.name)] = "timeout"
            finally:
                release_run(v, src, tmp)
    return cg


# ---- report --------------------------------------------------------------

def med(xs):
    return statistics.median(xs) if xs else None


def table(title, rows, cols, cell, colw=13, roww=10):
    print()
    print(title)
    print("%-*s" % (roww, "") + "".join("%*s" % (colw, c) for c in cols))
    for r in rows:
        print("%-*s" % (roww, r) + "".join("%*s" % (colw, cell(r, c)) for c in cols))


def report(variants, results, cg):
    names = [v.name for v in variants]
    byname = {v.name: v for v in variants}

    def ratio(w, n, what):
        v = byname[n]
        if not v.runs(w):
            return "-"
        s = v.is_small(w)
        res, b = results[(w, n, s)], results[(w, "base", s)]
        if res.failed:
            return res.failed
        x, y = med(getattr(res, what)), med(getattr(b, what))
        if x is None or not y:
            return "?"
        return "%.2fx%s" % (x / y, "s" if s else "")

    table("Wall time, median of %d runs, as a ratio to base "
          "(s = reduced size, against base at that size):" % RUNS,
          list(WORKLOADS), names, lambda w, n: ratio(w, n, "wall"))

    def spread(xs):
        return (max(xs) - min(xs)) / med(xs) * 100 if xs else 0

    print()
    print("base wall time, full size: median (spread max-min over median; "
          "a ratio closer to 1.00x than that is noise):")
    print("  " + ", ".join(
        "%s %.3f s (%.0f%%)" % (w, med(results[(w, "base", False)].wall) or 0,
                                spread(results[(w, "base", False)].wall))
        for w in WORKLOADS))

    table("CPU time (user+sys), threaded workload, ratio to base:",
          THREADED, names, lambda w, n: ratio(w, n, "cpu"))

    def per_call_ratio(n, t):
        # CPU per call with t threads / with 1 thread, each at its own size.
        v = byname[n]
        w1, wt = "threads-1", "threads-%d" % t
        if not (v.runs(w1) and v.runs(wt)):
            return "-"
        r1 = results[(w1, n, v.is_small(w1))]
        rt = results[(wt, n, v.is_small(wt))]
        if r1.failed or rt.failed or not r1.calls or not rt.calls:
            return "?"
        c1 = med(r1.cpu) / r1.calls
        ct = med(rt.cpu) / rt.calls
        return "%.2f" % (ct / c1)

    table("CPU per call, T threads / 1 thread (1.00 = no slowdown from "
          "sharing; %d cores here):" % os.cpu_count(),
          ["2 / 1", "4 / 1"], names,
          lambda r, n: per_call_ratio(n, int(r[0])))

    # vigil minus floor, per call
    print()
    print("vigil minus floor, per call (full size, median wall / calls):")
    for w in WORKLOADS:
        rv, rf = results.get((w, "vigil", False)), results.get((w, "floor", False))
        rb = results.get((w, "base", False))
        if not rv or not rf or rv.failed or rf.failed or not rv.calls:
            print("  %-10s n/a" % w)
            continue
        ns = (med(rv.wall) - med(rf.wall)) / rv.calls * 1e9
        fl = (med(rf.wall) - med(rb.wall)) / rv.calls * 1e9
        line = "  %-10s %6.2f ns/call wall (floor itself %5.2f ns/call over base)" % (
            w, ns, fl)
        if w in THREADED:
            cns = (med(rv.cpu) - med(rf.cpu)) / rv.calls * 1e9
            line += ", %6.2f ns/call CPU" % cns
        print(line)

    if cg:
        cgvars = [n for n in names if byname[n].callgrind]
        cgw = [w for w in WORKLOADS if WORKLOADS[w][3]]

        def cgcell(w, n):
            x, b = cg.get((w, n)), cg.get((w, "base"))
            if x is None:
                return "-"
            if isinstance(x, str):
                return x.split()[0]
            if not isinstance(b, tuple):
                return "?"
            return "%.2fx" % (x[0] / b[0])

        table("Instructions (callgrind Ir, reduced size: %s), ratio to base:" %
              ", ".join("%s %s" % (w, " ".join(WORKLOADS[w][3])) for w in cgw),
              cgw, cgvars, cgcell)
        print()
        print("vigil minus floor, per call, instructions (callgrind):")
        for w in cgw:
            x, f = cg.get((w, "vigil")), cg.get((w, "floor"))
            b = cg.get((w, "base"))
            if not isinstance(x, tuple) or not isinstance(f, tuple) or not x[1]:
                print("  %-10s n/a" % w)
                continue
            line = "  %-10s %6.1f instructions/call" % (w, (x[0] - f[0]) / x[1])
            if isinstance(b, tuple):
                line += " (floor itself %.1f over base)" % ((f[0] - b[0]) / x[1])
            print(line)
        # Issue 17's figure: each counting mode's instructions per call
        # over the plain build, and its floor's (the empty hooks).
        print()
        print("instructions per call over base (callgrind): inline mode "
              "(vigil, floor) vs entry-only counting (vigil-entry, "
              "floor-entry):")
        for w in cgw:
            b = cg.get((w, "base"))
            cells = []
            for n in ("vigil", "floor", "vigil-entry", "floor-entry"):
                x = cg.get((w, n))
                if isinstance(x, tuple) and isinstance(b, tuple) and x[1]:
                    cells.append("%s %+.1f" % (n, (x[0] - b[0]) / x[1]))
                else:
                    cells.append("%s n/a" % n)
            print("  %-10s %s" % (w, ", ".join(cells)))

    problems = [p for r in results.values() for p in r.problems]
    print()
    if problems:
        print("Problems:")
        for p in problems:
            print("  " + p)
    else:
        print("Every run's output matched base and every profiler left its "
              "profile.")


def machine():
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return model


def main():
    variants = [v for v in VARIANTS if not ONLY or v.name in ONLY or v.name == "base"]
    if any(v.name in ("vigil", "vigil-entry") for v in variants) and \
            not os.path.exists(LIBVIGIL):
        log("bench: %s is missing; run `make` first (make bench does)" % LIBVIGIL)
        return 1
    log("bench: building %d variants into %s" % (len(variants), OUT))
    try:
        build_all(variants)
    except RuntimeError as e:
        log("bench: build failed: %s" % e)
        return 1
    log("bench: %d rounds of %d workloads x %d variants, interleaved" %
        (RUNS, len(WORKLOADS), len(variants)))
    results = measure(variants)
    log("bench: callgrind")
    cg = callgrind(variants)

    print("vigil bench: %s, %d CPUs (nproc), %s, kernel %s" %
          (machine(), os.cpu_count(), sh([CC, "--version"]).splitlines()[0],
           platform.release()))
    print("All numbers come from this one run, every variant side by side "
          "(runs interleaved);")
    print("compare ratios within this run, not across machines or runs.")
    print()
    print("Variants:")
    for v in variants:
        print("  %-12s %s" % (v.name, v.note))
    print("Workloads (full size / reduced size): " + "; ".join(
        "%s %s / %s" % (w, " ".join(s[1]), " ".join(s[2]))
        for w, s in WORKLOADS.items()))
    print("Threads: each thread does the same work, so on >= T free cores the "
          "ideal wall ratio stays constant; with %d cores threads-4 runs two "
          "threads per core." % os.cpu_count())
    report(variants, results, cg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
