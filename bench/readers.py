#!/usr/bin/python3
"""The reader benchmark: `vigil report` and `vigil report --json` on
generated programs of 20k, 200k and 1M distinct call edges, and the
symbolization rate, for this tree and for a baseline built in the same run
from another revision (the code before issue 7), side by side.

For each size, bench/gen_edges.py writes the C sources (into build/, never
committed), they are compiled with -finstrument-functions, linked with
build/libvigil.a and run once for a profile.  Each report runs with its
output to a file; seconds are wall time, memory is the peak resident set
(wait4's ru_maxrss).  Where both finish, their outputs are compared.  The
symbolization rate is bench/symbolize.c: every distinct call site of the
profile symbolized to name and file:line once the module is loaded.

A measurement, not a test: it prints, and exits 0 whatever the numbers
are.  Targets (issue 7): 20k edges under 0.5 s; 1M edges under 10 s and
1 GiB; above 1,000,000 addresses/s.

Environment: BENCH_BASE (git revision of the baseline, default the last
commit before the readers' rewrite; empty to skip it), BENCH_EDGES (default 20000,200000,1000000),
BENCH_READER_TIMEOUT (seconds per report, default 120: the baseline is
quadratic and would take hours on 1M edges), BENCH_SYM_SECONDS (default 5).
"""
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "build", "bench-readers")
CC = os.environ.get("CC", "gcc")
# The baseline: the last commit before the readers were rebuilt on the
# profile model and the symbolizer (issue 7), so the comparison stays
# meaningful once this work is merged into main.
BASE = os.environ.get("BENCH_BASE", "8fbc1450d8f228bafbe1e34006633caa8aae14c9")
SIZES = [int(x) for x in
         os.environ.get("BENCH_EDGES", "20000,200000,1000000").split(",") if x]
TIMEOUT = float(os.environ.get("BENCH_READER_TIMEOUT", "120"))
SYM_SECONDS = os.environ.get("BENCH_SYM_SECONDS", "5")
JOBS = str(os.cpu_count() or 1)
# The tools' link flags, from the Makefile (the baseline's lib/ needs no
# more than today's).
TOOL_LIBS = subprocess.run(
    ["make", "-s", "--no-print-directory", "-C", ROOT, "print-tool-libs"],
    stdout=subprocess.PIPE, text=True, check=True).stdout.split()


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def build_base():
    """Builds the baseline's vigil and symbolize; returns its directory or
    None when there is no baseline."""
    if not BASE:
        return None
    d = os.path.join(OUT, "base")
    rev = subprocess.run(["git", "-C", ROOT, "rev-parse", BASE],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True)
    if rev.returncode != 0:
        print("bench: no baseline (git revision %r not found)" % BASE)
        return None
    stamp = os.path.join(d, "REV")
    if not (os.path.exists(stamp) and open(stamp).read() == rev.stdout):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        archive = subprocess.run(["git", "-C", ROOT, "archive", BASE],
                                 stdout=subprocess.PIPE, check=True).stdout
        sh(["tar", "-x", "-C", d], input=archive)
        sh(["make", "-s", "-C", d, "-j" + JOBS, "build/vigil"])
        with open(stamp, "w") as f:
            f.write(rev.stdout)
    lib = sorted(glob.glob(os.path.join(d, "build", "tool", "lib", "*.o")))
    sh([CC, "-O2", "-DBASE", "-I" + os.path.join(d, "lib"),
        os.path.join(ROOT, "bench", "symbolize.c")] + lib + TOOL_LIBS +
       ["-o", os.path.join(d, "symbolize")])
    return d


def build_new():
    lib = sorted(glob.glob(os.path.join(ROOT, "build", "tool", "lib", "*.o")))
    out = os.path.join(OUT, "symbolize")
    sh([CC, "-O2", "-I" + os.path.join(ROOT, "lib"),
        os.path.join(ROOT, "bench", "symbolize.c")] + lib + TOOL_LIBS +
       ["-o", out])
    return out


def make_program(edges):
    """Generates, builds and runs the program of `edges` edges once;
    returns its profile.  Kept between runs while the generator and the
    runtime are unchanged."""
    gen = os.path.join(ROOT, "bench", "gen_edges.py")
    key = hashlib.sha256(open(gen, "rb").read() +
                         open(os.path.join(ROOT, "build", "libvigil.a"),
                              "rb").read()).hexdigest()[:16]
    d = os.path.join(OUT, "e%d-%s" % (edges, key))
    prof = os.path.join(d, "p.vgl")
    if os.path.exists(prof):
        return prof
    shutil.rmtree(d, ignore_errors=True)
    src = os.path.join(d, "src")
    t0 = time.time()
    files = sh([sys.executable, gen, str(edges), src], stdout=subprocess.PIPE,
               text=True).stdout.split()
    objs = [os.path.join(src, f + ".o") for f in files]
    # Compiled in parallel by xargs; the sources are many small files.
    lines = "".join("%s\n" % os.path.join(src, f) for f in files)
    sh(["xargs", "-P", JOBS, "-I{}", CC, "-g", "-O1",
        "-finstrument-functions", "-fPIE", "-c", "{}", "-o", "{}.o"],
       input=lines, text=True)
    exe = os.path.join(d, "p")
    sh([CC, "-pie"] + objs + [os.path.join(ROOT, "build", "libvigil.a"),
       "-pthread", "-Wl,--export-dynamic-symbol=__cyg_profile_func_enter",
       "-Wl,--export-dynamic-symbol=__cyg_profile_func_exit",
       "-Wl,--wrap=__cyg_profile_func_enter", "-ldl",
       "-o", exe])
    sh([exe], env=dict(os.environ, VIGIL_FILE=prof), stdout=subprocess.DEVNULL)
    print("bench: built and ran the %d-edge program in %.0f s"
          % (edges, time.time() - t0))
    return prof


def run_report(vigil, args, out):
    """(seconds, peak RSS in bytes, exit status); None seconds on timeout."""
    t0 = time.time()
    with open(out, "wb") as f:
        p = subprocess.Popen([vigil, "report"] + args, stdout=f,
                             stderr=subprocess.DEVNULL)
        deadline = t0 + TIMEOUT
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                p.returncode = os.waitstatus_to_exitcode(status)
                return time.time() - t0, ru.ru_maxrss * 1024, p.returncode
            if time.time() > deadline:
                p.kill()
                _, status, ru = os.wait4(p.pid, 0)
                p.returncode = -9
                return None, ru.ru_maxrss * 1024, None
            time.sleep(0.01)


def edge_count(vigil, prof):
    show = subprocess.run([vigil, "show", prof], stdout=subprocess.PIPE,
                          text=True).stdout
    for line in show.splitlines():
        if line.startswith("edges:"):
            return int(line.split()[1])
    return 0


def fmt(sec, rss):
    if sec is None:
        return "> %.0f s (stopped)" % TIMEOUT
    return "%7.2f s %6.0f MiB" % (sec, rss / 2**20)


def sym_rate(prog, prof):
    r = subprocess.run([prog, prof, SYM_SECONDS], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    n, sec = r.stdout.split()
    return int(n) / float(sec) if float(sec) > 0 else 0.0


def main():
    os.makedirs(OUT, exist_ok=True)
    vigil = os.path.join(ROOT, "build", "vigil")
    base = build_base()
    base_vigil = os.path.join(base, "build", "vigil") if base else None
    sym_new = build_new()
    print()
    print("Reader benchmark: vigil report on generated programs "
          "(wall seconds, peak RSS)")
    print("baseline: %s" % (BASE[:12] if base else "none"))
    print("%-9s %-14s %-26s %-26s %s" % ("edges", "command", "baseline",
                                         "this tree", "speed-up"))
    rates = []
    for size in SIZES:
        prof = make_program(size)
        n = edge_count(vigil, prof)
        for name, args in (("report", []), ("report --json", ["--json"])):
            out_new = os.path.join(OUT, "new.out")
            sec, rss, rc = run_report(vigil, args + [prof], out_new)
            if base_vigil:
                out_old = os.path.join(OUT, "old.out")
                bsec, brss, brc = run_report(base_vigil, args + [prof], out_old)
            else:
                bsec = brss = brc = None
            ratio = ""
            if sec and bsec:
                ratio = "%.1fx" % (bsec / sec)
            elif sec and base_vigil:
                ratio = "> %.0fx" % (TIMEOUT / sec)
            same = ""
            if rc == 0 and brc == 0 and name == "report":
                same = ("  output identical" if
                        open(out_new, "rb").read() == open(out_old, "rb").read()
                        else "  output differs")
            print("%-9d %-14s %-26s %-26s %s%s" % (
                n, name, fmt(bsec, brss) if base_vigil else "-",
                fmt(sec, rss), ratio, same))
        new_rate = sym_rate(sym_new, prof)
        old_rate = sym_rate(os.path.join(base, "symbolize"), prof) if base else 0
        rates.append((n, old_rate, new_rate))
    print()
    print("Symbolization (distinct call sites to name and file:line, "
          "module loaded), addresses/s:")
    for n, old, new in rates:
        print("%-9d baseline %12.0f   this tree %12.0f   %s" % (
            n, old, new, "%.0fx" % (new / old) if old else ""))
    print()
    print("targets: 20k edges < 0.5 s; 1M edges < 10 s and < 1 GiB; "
          "> 1,000,000 addresses/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
