#!/usr/bin/python3
"""Entry-only counting (issue 17) in real builds: the wider matrix beside
tests/lit/entry-lua.test, and its cost on Lua.

Installs vigil into build/entry-builds/prefix (`make install`), then builds
from Debian 12's source packages (scripts/debian-source.sh) with
vigil-entry.pc's flags only, the way each project's build takes them:

  lua 5.4    every .c compiled with CFLAGS (which reach the link too),
             linked with --libs: GCC and Clang, dynamic and -static
  xz-utils   ./configure CPPFLAGS=--cflags LIBS=--libs && make && make
             check: GCC and Clang (clang_cflags and, as Clang ignores
             GCC's -specs, shared_libs or exe_libs), each in its default
             configuration (shared liblzma.so, counted as its own
             module; Clang links libvigil.so into both, as libtool passes
             LIBS to the library's link too) and --disable-shared with
             LDFLAGS=-static
  sqlite3    speedtest1 from the amalgamation (as bench/bolt.py builds
             it), GCC and Clang, dynamic and -static

For each build: the program runs once under callgrind with VIGIL_FILE
set, and tests/e2e/callgrind_match.py compares the profile with
callgrind's counts for that same run, every instrumented function and
every caller -> callee pair; `find` looks for a gmon.out anywhere in the
source tree and the run directories; xz's `make check` must pass.

Then the cost on Lua (GCC -O2, dynamic): callgrind instructions of
tests/lit/Inputs/bench.lua, and the CPU time of `bench.lua 300` (0.2 s
plain) in BENCH_ENTRY_RUNS (default 11) interleaved rounds, the median of
each round's ratio to plain, for plain, plain with
-fno-optimize-sibling-calls, the inline mode (vigil-inline.pc), the entry
mode, and the entry mode's floor: its objects linked with a __fentry__
that only returns (what the calls alone cost, which no counting hook can
go below).

The cost part also measures bench/fib.c (fib 25 under callgrind,
instructions per call over its plain build, the floor's too).  With BENCH_ENTRY_BEFORE set
to the lib directory of another installed runtime (an older commit's
`make install PREFIX=...`), the same entry-mode objects of Lua and fib
are linked with that runtime too and measured in the same run: before
and after, side by side.

A measurement, not a test: it prints, and exits non-zero only if
something could not be built or run, or a check above failed.
The ondemand part (issue 29) builds Lua and fib with vigil-ondemand.pc and
prints, side by side in one run: plain, plain without sibling calls, the
ondemand build idle (no VIGIL_FILE) and on (VIGIL_FILE set), the ondemand
build with sibling calls kept, and the entry mode: fib's instructions per
call over plain, Lua's instructions and CPU ratios to plain (as above),
and the private dirty memory of each (the text pages the rewrite wrote
are the process's own).  The idle part builds xz-utils (its own
autotools and libtool: xz and liblzma.so; its make check must pass) and
SQLite's speedtest1 plain and ondemand, and compares them idle: CPU
(xz -3 of SQLite's amalgamation, speedtest1 --size 5) and callgrind
instructions.  The live part (issue 29, point 5) builds a
program of 20,000 functions ondemand (bench/live_stall.c) and runs it
alone (2 s) and switched on and off 20 times by `vigil attach --scan
counts`, interleaved, 5 rounds each, the program on CPU 0 and attach on
CPU 1: the program's longest stall in each, and how
long one switch's writes take.

Environment: BENCH_ENTRY_ONLY=lua,xz,sqlite,cost,ondemand,oncheck,idle,live (a subset), BENCH_ENTRY_OUT
(another directory than build/entry-builds, for a second run beside one),
BENCH_ENTRY_BEFORE (above).
"""

import glob
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.environ.get("BENCH_ENTRY_OUT") or os.path.join(ROOT, "build", "entry-builds")
PREFIX = os.path.join(OUT, "prefix")
VIGIL = os.path.join(ROOT, "build", "vigil")
MATCH = os.path.join(ROOT, "tests", "e2e", "callgrind_match.py")
INPUTS = os.path.join(ROOT, "tests", "lit", "Inputs")
RUNS = int(os.environ.get("BENCH_ENTRY_RUNS", "11"))
BEFORE = os.environ.get("BENCH_ENTRY_BEFORE", "")
ONLY = [x for x in os.environ.get("BENCH_ENTRY_ONLY", "").split(",") if x]
CALLGRIND = ["valgrind", "--tool=callgrind", "--separate-recs=1",
             "--compress-strings=no", "--compress-pos=no"]
failed = []


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def sh(cmd, **kw):
    if isinstance(cmd, str):
        kw["shell"] = True
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError("command failed: %s\n%s" % (cmd, r.stdout[-3000:]))
    return r.stdout


def env_pc():
    return dict(os.environ,
                PKG_CONFIG_PATH=os.path.join(PREFIX, "lib", "pkgconfig"))


def pc(*args):
    return sh(["pkg-config"] + list(args), env=env_pc()).strip()


def source(pkg, dest):
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    sh([os.path.join(ROOT, "scripts", "debian-source.sh"), pkg, dest])
    return dest


def install():
    shutil.rmtree(PREFIX, ignore_errors=True)
    sh(["make", "-s", "-C", ROOT, "-o", "all", "install", "PREFIX=" + PREFIX])


def check(name, argv, modules, cwd, env=None, expect_out=None):
    """One run of argv under callgrind, VIGIL_FILE set; prints the match."""
    run = os.path.join(OUT, "run", name)
    shutil.rmtree(run, ignore_errors=True)
    os.makedirs(run)
    vgl = os.path.join(run, "prof.vgl")
    cg = os.path.join(run, "cg.out")
    e = dict(env or os.environ, VIGIL_FILE=vgl)
    r = subprocess.run(CALLGRIND + ["--callgrind-out-file=" + cg] + argv,
                       cwd=cwd, env=e, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True,
                       errors="replace")
    if r.returncode != 0 or not os.path.exists(vgl):
        failed.append(name)
        print("  %-22s run failed (exit %d): %s" % (name, r.returncode,
                                                   r.stderr[-300:]))
        return
    out = sh([sys.executable, MATCH, VIGIL, vgl, cg] + modules).splitlines()
    ok = all(" differ 0" in l for l in out[:2])
    if not ok:
        failed.append(name)
    print("  %-22s %s%s" % (name, "; ".join(out[:2]), "" if ok else " MISMATCH"))
    for l in out[2:8]:
        print("      " + l)


def no_gmon(name, *dirs):
    found = [p for d in dirs for p in glob.glob(os.path.join(d, "**", "gmon.out"),
                                                recursive=True)]
    if found:
        failed.append(name + " gmon.out")
    print("  %-22s gmon.out: %s" % (name, ", ".join(found) or "none"))


# ---- Lua -------------------------------------------------------------------

def lua_build(src, cc, cflags, libs, name, static=False, exe_name=None):
    """Lua's interpreter from src/ with cc: objects once per name."""
    obj = os.path.join(OUT, "lua-obj", name)
    if not os.path.isdir(obj):
        os.makedirs(obj)
        files = [f for f in sorted(os.listdir(src))
                 if f.endswith(".c") and f != "luac.c"]
        procs = []
        for f in files:
            procs.append(subprocess.Popen(
                "%s %s -DLUA_USE_POSIX -DLUA_USE_DLOPEN -c %s -o %s" % (
                    cc, cflags, f, os.path.join(obj, f[:-2] + ".o")),
                shell=True, cwd=src))
            if len(procs) >= 2:
                if procs.pop(0).wait() != 0:
                    raise RuntimeError("compiling Lua (%s) failed" % name)
        if any(p.wait() != 0 for p in procs):
            raise RuntimeError("compiling Lua (%s) failed" % name)
    exe = os.path.join(OUT, exe_name or
                       "lua-" + name + ("-static" if static else ""))
    sh("%s %s %s/*.o %s %s -lm -ldl -o %s" % (cc, cflags, obj, libs,
                                            "-static" if static else "", exe),
       cwd=src)
    return exe


def lua_src():
    src = os.path.join(OUT, "lua")
    if not os.path.isdir(src):
        source("lua5.4", src)
        with open(os.path.join(src, "src", "lua5.4-deb-multiarch.h"), "w") as f:
            f.write('#define DEB_HOST_MULTIARCH "test"\n')
    return os.path.join(src, "src")


def lua():
    print("lua 5.4 (Debian source), calls.lua under callgrind:")
    src = lua_src()
    gcc_c = "-g -O2 " + pc("--cflags", "vigil-entry")
    gcc_l = pc("--libs", "vigil-entry")
    # DWARF 4: valgrind 3.19 gives up on Clang 14's default DWARF 5.
    clang_c = "-gdwarf-4 -O2 " + pc("--variable=clang_cflags", "vigil-entry")
    clang_l = pc("--variable=exe_libs", "vigil-entry")
    for cc, c, l, name in (("gcc", gcc_c, gcc_l, "gcc"),
                           ("clang", clang_c, clang_l, "clang")):
        for static in (False, True):
            exe = lua_build(src, cc, c, l, "entry-" + name, static)
            check("lua %s%s" % (name, " -static" if static else ""),
                  [exe, os.path.join(INPUTS, "calls.lua")], [exe], OUT)
    no_gmon("lua", os.path.join(OUT, "lua"), os.path.join(OUT, "run"), OUT)


# ---- xz-utils --------------------------------------------------------------

XZ_INPUT = os.path.join(ROOT, "README.md")


def make_check(d, env, name):
    """make, then make check of the tree d: its summary, and a failure
    noted when it does not pass."""
    sh(["make", "-j2"], cwd=d, env=env)
    r = subprocess.run(["make", "check"], cwd=d, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    summary = [l for l in r.stdout.splitlines() if l.startswith("# ")]
    if r.returncode != 0:
        failed.append(name.strip() + " make check")
    print("  %s make check: exit %d, %s" % (
        name, r.returncode, ", ".join(x[2:].replace(" ", "")
                                      for x in summary[:4])))


def xz():
    print("xz-utils (Debian source): make check, then xz -9 of README.md "
          "under callgrind:")
    e = env_pc()
    builds = [
        ("xz gcc shared", "gcc", [], "CPPFLAGS=" + pc("--cflags", "vigil-entry"),
         "LIBS=" + pc("--libs", "vigil-entry")),
        ("xz gcc -static", "gcc", ["--disable-shared", "LDFLAGS=-static"],
         "CPPFLAGS=" + pc("--cflags", "vigil-entry"),
         "LIBS=" + pc("--libs", "vigil-entry")),
        # libtool links liblzma.so with LIBS too: exe_libs (the archive)
        # cannot go there, shared_libs (libvigil.so) can.
        ("xz clang shared", "clang", [],
         "CPPFLAGS=" + pc("--variable=clang_cflags", "vigil-entry"),
         "CFLAGS=-gdwarf-4 -O2",
         "LIBS=" + pc("--variable=shared_libs", "vigil-entry")),
        ("xz clang -static", "clang", ["--disable-shared", "LDFLAGS=-static"],
         "CPPFLAGS=" + pc("--variable=clang_cflags", "vigil-entry"),
         "CFLAGS=-gdwarf-4 -O2",
         "LIBS=" + pc("--variable=exe_libs", "vigil-entry")),
    ]
    for name, cc, extra, cpp, libs, *more in builds:
        d = os.path.join(OUT, name.replace(" ", "-"))
        source("xz-utils", d)
        conf = os.path.join(OUT, "run", name + "-conf")
        os.makedirs(conf, exist_ok=True)
        be = dict(e, VIGIL_FILE=os.path.join(conf, "%e.%p.vgl"))
        log("entry-builds: building %s" % name)
        sh(["./configure", "CC=" + cc, "--disable-doc", "--disable-nls",
            cpp, libs] + more + extra, cwd=d, env=be)
        make_check(d, be, "%-22s" % name)
        libs_dir = os.path.join(d, "src", "liblzma", ".libs")
        xzbin = os.path.join(d, "src", "xz", ".libs", "xz")
        if not os.path.exists(xzbin):
            xzbin = os.path.join(d, "src", "xz", "xz")
        mods = [xzbin]
        runenv = dict(os.environ)
        if "shared" in name:
            mods.append(os.path.join(libs_dir, "liblzma.so.5"))
            runenv["LD_LIBRARY_PATH"] = libs_dir
        check(name, [xzbin, "-9", "-c", XZ_INPUT], mods, OUT, runenv)
        no_gmon(name, d, os.path.join(OUT, "run"))


# ---- SQLite ----------------------------------------------------------------

def sqlite_src():
    """SQLite's amalgamation from Debian's source, made once: its
    directory (sqlite3.c, test/speedtest1.c)."""
    src = os.path.join(OUT, "sqlite")
    if not os.path.exists(os.path.join(src, "sqlite3.c")):
        source("sqlite3", src)
        sh(["./configure", "--disable-tcl"], cwd=src)
        sh(["make", "sqlite3.c"], cwd=src)
    return src


def sqlite():
    print("sqlite3 (Debian source) speedtest1 --size 2 --memdb under callgrind:")
    src = sqlite_src()
    amalg = os.path.join(src, "sqlite3.c")
    test = os.path.join(src, "test", "speedtest1.c")
    for cc, c, l in (("gcc", pc("--cflags", "vigil-entry"), pc("--libs", "vigil-entry")),
                     ("clang", pc("--variable=clang_cflags", "vigil-entry"),
                      pc("--variable=exe_libs", "vigil-entry"))):
        for static in ("", "-static"):
            exe = os.path.join(OUT, "speedtest1-" + cc + static)
            log("entry-builds: building speedtest1 with %s %s" % (cc, static))
            sh("%s -gdwarf-4 -O2 %s -I%s %s %s %s %s -lpthread -ldl -lm -o %s" % (
                cc, c, src, test, amalg, l, static, exe), cwd=OUT)
            check("sqlite " + cc + (" " + static if static else ""),
                  [exe, "--size", "2", "--memdb"], [exe], OUT)
    no_gmon("sqlite", src, OUT)


# ---- ondemand, idle, on xz and SQLite (issue 29, point 5) ------------------

def xz_build(name, cpp, libs):
    """xz-utils through its own autotools and libtool (liblzma.so, xz),
    CPPFLAGS and LIBS as docs/build-recipes.md says; its make check must
    pass.  Returns (xz, its liblzma directory)."""
    d = os.path.join(OUT, "idle", name)
    source("xz-utils", d)
    log("entry-builds: building xz %s" % name)
    env = {k: v for k, v in env_pc().items() if k != "VIGIL_FILE"}
    sh(["./configure", "CC=gcc", "--disable-doc", "--disable-nls",
        "CFLAGS=-g -O2"] + ([cpp, libs] if cpp else []), cwd=d, env=env)
    make_check(d, env, "xz %-19s" % name)
    return (os.path.join(d, "src", "xz", ".libs", "xz"),
            os.path.join(d, "src", "liblzma", ".libs"))


def xz_sites(build):
    """How many sites xz and liblzma.so have (their __mcount_loc)."""
    xzbin, libdir = build
    n = []
    for f in (xzbin, os.path.join(libdir, "liblzma.so.5")):
        out = subprocess.run(["readelf", "-SW", f], stdout=subprocess.PIPE,
                             text=True, check=True).stdout
        for line in out.splitlines():
            x = line.replace("[ ", "[").split()
            if len(x) > 5 and x[1] == "__mcount_loc":
                n.append("%s %d" % (os.path.basename(f), int(x[5], 16) // 8))
    return ", ".join(n)


def ratio_rounds(cases, rounds):
    """CPU of each case's command, interleaved rounds; the median of each
    round's ratio to the first case, and the median CPU."""
    cpu = {name: [] for name, _, _ in cases}
    for _ in range(rounds):
        t = {name: cpu_run(argv, env) for name, argv, env in cases}
        for name, _, _ in cases:
            cpu[name].append((t[name] / t[cases[0][0]], t[name]))
    return {name: (statistics.median(x[0] for x in v),
                   statistics.median(x[1] for x in v))
            for name, v in cpu.items()}


def idle():
    """The ondemand build idle (no VIGIL_FILE) beside plain: xz (autotools
    and libtool: xz and liblzma.so) and SQLite's speedtest1, CPU and
    callgrind instructions, one run."""
    print("ondemand, idle, beside plain (gcc -g -O2), CPU median of %d "
          "interleaved rounds' ratios, and callgrind instructions:" % RUNS)
    tmp = os.path.join(OUT, "run", "idle")
    os.makedirs(tmp, exist_ok=True)
    off = {k: v for k, v in os.environ.items() if k != "VIGIL_FILE"}
    # xz -3 of SQLite's amalgamation (9 MB of C), the same input for both.
    amalg = os.path.join(sqlite_src(), "sqlite3.c")
    # The ondemand flags without -fno-optimize-sibling-calls, as the
    # ondemand part measures them on Lua.
    sib = os.path.join(tmp, "ondemand-sib.specs")
    with open(sib, "w") as f:
        f.write("*cc1:\n+ -p -mfentry -mrecord-mcount\n\n")
    xz = {"plain": xz_build("plain", "", ""),
          "ondemand, idle": xz_build(
              "ondemand", "CPPFLAGS=" + pc("--cflags", "vigil-ondemand"),
              "LIBS=" + pc("--libs", "vigil-ondemand")),
          "idle, sibling calls": xz_build(
              "ondemand-sib", "CPPFLAGS=-specs=" + sib,
              "LIBS=" + pc("--libs", "vigil-ondemand"))}
    cases = [(name, [x, "-3", "-c", "-T1", amalg],
              dict(off, LD_LIBRARY_PATH=lib)) for name, (x, lib) in xz.items()]
    outs = set()
    for name, argv, env in cases:
        outs.add(subprocess.run(argv, env=env, stdout=subprocess.PIPE,
                                check=True).stdout)
    r = ratio_rounds(cases, RUNS)
    # Instructions, which the machine's load does not move: xz -3 of the
    # amalgamation's first MiB under callgrind.
    mib = os.path.join(tmp, "sqlite3-1m.c")
    with open(amalg, "rb") as f, open(mib, "wb") as g:
        g.write(f.read(1 << 20))
    small = [(n, [a[0], "-3", "-c", "-T1", mib], e) for n, a, e in cases]
    ir = {n: callgrind_ir(a, e, tmp) for n, a, e in small}
    for name, _, _ in cases:
        print("  xz -3 of sqlite3.c, %-19s CPU %5.3fx (median %.3f s, "
              "ratio of medians %5.3fx)   instructions (its first MiB) "
              "%5.3fx" % (name, r[name][0], r[name][1],
                          r[name][1] / r[cases[0][0]][1],
                          ir[name] / ir[cases[0][0]]))
    print("  xz outputs the same: %s" % (len(outs) == 1))
    print("  xz's sites: %s" % xz_sites(xz["ondemand, idle"]))
    if len(outs) != 1:
        failed.append("xz idle output")

    src = os.path.join(OUT, "sqlite")
    test = os.path.join(src, "test", "speedtest1.c")
    exes = {}
    for name, c, l in (("plain", "", ""),
                       ("ondemand, idle", pc("--cflags", "vigil-ondemand"),
                        pc("--libs", "vigil-ondemand"))):
        exes[name] = os.path.join(tmp, "speedtest1-" + name.split(",")[0])
        sh("gcc -g -O2 %s -I%s %s %s %s -lpthread -ldl -lm -o %s" % (
            c, src, test, os.path.join(src, "sqlite3.c"), l, exes[name]))
    cases = [(name, [exe, "--size", "40", "--memdb"], off)
             for name, exe in exes.items()]
    r = ratio_rounds(cases, RUNS)
    small = [(n, [a[0], "--size", "5", "--memdb"], e) for n, a, e in cases]
    ir = {n: callgrind_ir(a, e, tmp) for n, a, e in small}
    for name, _, _ in cases:
        print("  speedtest1 --size 40, %-14s CPU %5.3fx (median %.3f s, "
              "ratio of medians %5.3fx)   instructions (--size 5) %5.3fx" % (
                  name, r[name][0], r[name][1],
                  r[name][1] / r[cases[0][0]][1],
                  ir[name] / ir[cases[0][0]]))


# ---- ondemand, counted: equal to callgrind (issue 29, point 2) -------------

def oncheck():
    """The ondemand build counted from its start (VIGIL_FILE), GCC and
    Clang: every function's calls and every edge equal to callgrind's, on
    Lua (calls.lua) and SQLite's speedtest1, dynamic and -static, and xz
    (xz -9 of README.md; its autotools build, liblzma.so included)."""
    print("ondemand, counted (VIGIL_FILE), under callgrind:")
    src = lua_src()
    gcc = ("gcc", "-g -O2 " + pc("--cflags", "vigil-ondemand"),
           pc("--libs", "vigil-ondemand"), pc("--libs", "vigil-ondemand"))
    clang = ("clang", "-gdwarf-4 -O2 " +
             pc("--variable=clang_cflags", "vigil-ondemand"),
             pc("--variable=dyn_exe_libs", "vigil-ondemand"),
             pc("--variable=exe_libs", "vigil-ondemand"))
    for cc, c, dyn, sta in (gcc, clang):
        for static in (False, True):
            exe = lua_build(src, cc, c, sta if static else dyn,
                            "ondemand-" + cc, static)
            check("lua od %s%s" % (cc, " -static" if static else ""),
                  [exe, os.path.join(INPUTS, "calls.lua")], [exe], OUT)
    sq = sqlite_src()
    amalg = os.path.join(sq, "sqlite3.c")
    test = os.path.join(sq, "test", "speedtest1.c")
    for cc, c, dyn, sta in (gcc, clang):
        for static in ("", "-static"):
            exe = os.path.join(OUT, "speedtest1-od-" + cc + static)
            log("entry-builds: building ondemand speedtest1 with %s %s" %
                (cc, static))
            sh("%s %s -I%s %s %s %s %s -lpthread -ldl -lm -o %s" % (
                cc, c.replace("-g ", "-gdwarf-4 "), sq, test, amalg,
                sta if static else dyn, static, exe), cwd=OUT)
            check("sqlite od " + cc + (" " + static if static else ""),
                  [exe, "--size", "2", "--memdb"], [exe], OUT)
    # xz through its autotools and libtool (xz and liblzma.so), GCC.
    xzbin, libdir = xz_build("ondemand-counted",
                             "CPPFLAGS=" + pc("--cflags", "vigil-ondemand"),
                             "LIBS=" + pc("--libs", "vigil-ondemand"))
    check("xz od gcc shared", [xzbin, "-9", "-c", XZ_INPUT],
          [xzbin, os.path.join(libdir, "liblzma.so.5")], OUT,
          dict(os.environ, LD_LIBRARY_PATH=libdir))


# ---- the cost on Lua --------------------------------------------------------

def cpu_run(argv, env):
    t0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=True)
    t1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (t1.ru_utime - t0.ru_utime) + (t1.ru_stime - t0.ru_stime)


def before_libs():
    """The runtime in BENCH_ENTRY_BEFORE, linked as exe_libs links ours."""
    return pc("--variable=exe_libs", "vigil-entry").replace(
        "-L" + os.path.join(PREFIX, "lib"), "-L" + BEFORE)


def callgrind_ir(argv, env, tmp):
    cg = os.path.join(tmp, "cg.out")
    subprocess.run(["valgrind", "--tool=callgrind",
                    "--callgrind-out-file=" + cg] + argv, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    with open(cg) as f:
        for line in f:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError("no totals in " + cg)


def fib_cost(env, tmp):
    """bench/fib.c, fib(25): instructions per call over plain."""
    fib = os.path.join(ROOT, "bench", "fib.c")
    plain = os.path.join(tmp, "fib-plain")
    obj = os.path.join(tmp, "fib-entry.o")
    sh(["gcc", "-O2", fib, "-o", plain])
    sh("gcc -O2 %s -c %s -o %s" % (pc("--cflags", "vigil-entry"), fib, obj))
    exes = [("entry (vigil-entry)", os.path.join(tmp, "fib-entry"),
             pc("--libs", "vigil-entry")),
            ("floor (__fentry__: ret)", os.path.join(tmp, "fib-floor"),
             floor_obj(tmp))]
    if BEFORE:
        exes.append(("entry, runtime BEFORE", os.path.join(tmp, "fib-before"),
                     before_libs()))
    calls = 242785  # fib(25): 1 + calls(24) + calls(23)
    base = callgrind_ir([plain, "25"], env, tmp)
    for name, exe, libs in exes:
        sh("gcc %s %s -o %s" % (obj, libs, exe))
        n = callgrind_ir([exe, "25"], env, tmp)
        print("  fib(25) %-24s %+6.2f instructions per call over plain "
              "(plain: %d)" % (name, (n - base) / calls, base))


def floor_obj(tmp):
    """bench/emptyfentry.S (a __fentry__ that only returns), the mode's
    floor, as bench.py's floor-entry variant links it."""
    obj = os.path.join(tmp, "emptyfentry.o")
    sh(["gcc", "-c", os.path.join(ROOT, "bench", "emptyfentry.S"), "-o", obj])
    return obj


def cost():
    print("cost on Lua 5.4 (gcc -g -O2, dynamic), tests/lit/Inputs/bench.lua:")
    src = lua_src()
    builds = [
        ("plain", "-g -O2", ""),
        ("plain, no sibling calls", "-g -O2 -fno-optimize-sibling-calls", ""),
        ("inline (vigil-inline)", "-g -O2 " + pc("--cflags", "vigil-inline"),
         pc("--libs", "vigil-inline")),
        ("entry (vigil-entry)", "-g -O2 " + pc("--cflags", "vigil-entry"),
         pc("--libs", "vigil-entry")),
    ]
    exes = []
    for (name, c, l), obj in zip(builds, ("plain", "plain-nosib", "inline",
                                          "entry-gcc")):
        exes.append((name, lua_build(src, "gcc", c, l, obj)))
    tmp = os.path.join(OUT, "run", "cost")
    os.makedirs(tmp, exist_ok=True)
    exes.append(("entry floor (__fentry__: ret)",
                 lua_build(src, "gcc", "-g -O2 " + pc("--cflags", "vigil-entry"),
                           floor_obj(tmp), "entry-gcc",
                           exe_name="lua-entry-floor")))
    if BEFORE:
        exes.append(("entry, runtime BEFORE",
                     lua_build(src, "gcc", "-g -O2 " +
                               pc("--cflags", "vigil-entry"), before_libs(),
                               "entry-gcc", exe_name="lua-entry-before")))
    work = os.path.join(INPUTS, "bench.lua")
    env = dict(os.environ, VIGIL_FILE=os.path.join(tmp, "%e.%p.vgl"))
    ir = {}
    for name, exe in exes:
        ir[name] = callgrind_ir([exe, work], env, tmp)
    fib_cost(env, tmp)
    # CPU of a run long enough (0.2 s) that start-up weighs little, each
    # round's ratio to plain: a machine whose speed drifts (another
    # tenant) moves a round's runs together.
    cpu = {name: [] for name, _ in exes}
    for r in range(RUNS):
        t = {name: cpu_run([exe, work, "300"], env) for name, exe in exes}
        for name, _ in exes:
            cpu[name].append((t[name] / t["plain"], t[name]))
    base_ir = ir["plain"]
    for name, _ in exes:
        ratio = statistics.median(x[0] for x in cpu[name])
        secs = statistics.median(x[1] for x in cpu[name])
        print("  %-30s instructions %6.2fx   CPU %6.2fx (bench.lua 300, "
              "median of %d rounds, %.3f s)" % (name, ir[name] / base_ir,
                                               ratio, RUNS, secs))


# ---- ondemand (issue 29) ---------------------------------------------------

# A Lua chunk that prints, from the process's own /proc/self/smaps, the
# private dirty kB of its executable mappings (the text pages the ondemand
# rewrite made the process's own), of all mappings, and its RSS.
SMAPS_LUA = r"""
local x, all, rss, perms = 0, 0, 0, ""
for line in io.lines("/proc/self/smaps") do
  local p = line:match("^%x+%-%x+ (%S+)")
  if p then perms = p end
  local k, v = line:match("^(%S+):%s+(%d+) kB")
  if k == "Private_Dirty" then
    all = all + v
    if perms:sub(3, 3) == "x" then x = x + v end
  elseif k == "Rss" then rss = rss + v end
end
print(x, all, rss)
"""


def ondemand():
    """Issue 29: plain, ondemand idle, ondemand on, entry, side by side."""
    print("ondemand (vigil-ondemand), Lua 5.4 (gcc -g -O2, dynamic) and "
          "fib(25), one run:")
    src = lua_src()
    tmp = os.path.join(OUT, "run", "ondemand")
    os.makedirs(tmp, exist_ok=True)
    # The ondemand flags without -fno-optimize-sibling-calls, to measure
    # what keeping sibling calls would save while idle.
    sib = os.path.join(tmp, "ondemand-sib.specs")
    with open(sib, "w") as f:
        f.write("*cc1:\n+ -p -mfentry -mrecord-mcount\n\n")
    od_c = "-g -O2 " + pc("--cflags", "vigil-ondemand")
    od_l = pc("--libs", "vigil-ondemand")
    exes = [
        ("plain", lua_build(src, "gcc", "-g -O2", "", "plain"), False),
        ("plain, no sibling calls",
         lua_build(src, "gcc", "-g -O2 -fno-optimize-sibling-calls", "",
                   "plain-nosib"), False),
        ("ondemand, idle", lua_build(src, "gcc", od_c, od_l, "ondemand-gcc"),
         False),
        ("ondemand, on (VIGIL_FILE)", os.path.join(OUT, "lua-ondemand-gcc"),
         True),
        ("ondemand, idle, sibling calls",
         lua_build(src, "gcc", "-g -O2 -specs=" + sib, od_l,
                   "ondemand-sib"), False),
        ("entry (vigil-entry)",
         lua_build(src, "gcc", "-g -O2 " + pc("--cflags", "vigil-entry"),
                   pc("--libs", "vigil-entry"), "entry-gcc"), True),
    ]
    on = dict(os.environ, VIGIL_FILE=os.path.join(tmp, "%e.%p.vgl"))
    off = {k: v for k, v in os.environ.items() if k != "VIGIL_FILE"}
    work = os.path.join(INPUTS, "bench.lua")

    # fib(25): instructions per call over plain, callgrind.
    fib = os.path.join(ROOT, "bench", "fib.c")
    fibs = {"plain": (os.path.join(tmp, "fib-plain"), "-O2", "")}
    fibs["ondemand"] = (os.path.join(tmp, "fib-ondemand"),
                        "-O2 " + pc("--cflags", "vigil-ondemand"), od_l)
    fibs["entry"] = (os.path.join(tmp, "fib-entry"),
                     "-O2 " + pc("--cflags", "vigil-entry"),
                     pc("--libs", "vigil-entry"))
    for exe, c, l in fibs.values():
        sh("gcc %s %s %s -o %s" % (c, fib, l, exe))
    calls = 242785  # fib(25)
    base = callgrind_ir([fibs["plain"][0], "25"], off, tmp)
    fib_ir = {"plain": 0.0}
    for name, key, env in (("ondemand, idle", "ondemand", off),
                           ("ondemand, on (VIGIL_FILE)", "ondemand", on),
                           ("entry (vigil-entry)", "entry", on)):
        fib_ir[name] = (callgrind_ir([fibs[key][0], "25"], env, tmp) -
                        base) / calls

    ir = {name: callgrind_ir([exe, work], on if counting else off, tmp)
          for name, exe, counting in exes}
    # A file just linked has its pages dirty in the page cache until they
    # are written back, and smaps counts them: write them first.
    os.sync()
    mem = {}
    for name, exe, counting in exes:
        r = subprocess.run([exe, "-e", SMAPS_LUA], env=on if counting else off,
                           stdout=subprocess.PIPE, text=True, check=True)
        mem[name] = [int(x) for x in r.stdout.split()]
    cpu = {name: [] for name, _, _ in exes}
    for r in range(RUNS):
        t = {name: cpu_run([exe, work, "300"], on if counting else off)
             for name, exe, counting in exes}
        for name, _, _ in exes:
            cpu[name].append((t[name] / t["plain"], t[name]))
    for name, exe, counting in exes:
        ratio = statistics.median(x[0] for x in cpu[name])
        secs = statistics.median(x[1] for x in cpu[name])
        f = ("fib %+6.2f/call" % fib_ir[name]) if name in fib_ir else " " * 15
        print("  %-30s %s   Lua instructions %5.3fx   CPU %5.3fx (bench.lua "
              "300, median of %d rounds, %.3f s)   private dirty: text %d kB, "
              "all %d kB, RSS %d kB" % (name, f, ir[name] / ir["plain"], ratio,
                                        RUNS, secs, *mem[name]))
    print("  fib(25) plain: %d instructions" % base)


LIVE_FUNCS = 20000
LIVE_SWITCHES = 20
LIVE_ROUNDS = 5
LIVE_SECONDS = 2.0


def live_round(exe, switch):
    """One run of live_stall.c: alone for LIVE_SECONDS, or switched on and
    off LIVE_SWITCHES times by vigil attach.  The program runs on CPU 0,
    attach and this script on CPU 1: what is measured is what the switch
    does to the program, not two processes sharing a core (attach's
    readings of 20,000 edges every 20 ms, and this script's parsing of
    them, took the program's core for whole 4 ms ticks when they shared
    it).  Returns the program's longest gap (us), its calls, and the
    attach's switch times (us)."""
    p = subprocess.Popen(["taskset", "-c", "0", exe], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    pid = int(p.stdout.readline().split()[1])
    times = []
    if switch:
        a = subprocess.Popen(["taskset", "-c", "1", VIGIL, "attach", "-p",
                              str(pid), "--scan", "counts", "--interval",
                              "20ms"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
        state, n = False, 0
        while n < LIVE_SWITCHES:
            r = json.loads(a.stdout.readline())
            if r["type"] != "sample" or "counts_live" not in r:
                continue
            if r["counts_live"] != state:
                state = r["counts_live"]
                times.append(r["counts_live_switch_us"])
                n += 1
                a.stdin.write("scan cpu\n" if state else "scan counts\n")
                a.stdin.flush()
        a.stdin.write("stop\n")
        a.stdin.flush()
        a.communicate(timeout=60)
    else:
        time.sleep(LIVE_SECONDS)
    out, _ = p.communicate("stop\n", timeout=60)
    f = out.split()
    return int(f[1]), int(f[3]), times


def live():
    """Issue 29, point 5: a program of 20,000 functions switched on and
    off live, its longest stall beside the same program left alone."""
    print("live switch (vigil attach --scan counts), a program of %d "
          "functions, one thread calling each in turn:" % LIVE_FUNCS)
    tmp = os.path.join(OUT, "run", "live")
    os.makedirs(tmp, exist_ok=True)
    gen = os.path.join(tmp, "funcs.c")
    with open(gen, "w") as f:
        subprocess.run([sys.executable, os.path.join(INPUTS, "genfuncs.py"),
                        str(LIVE_FUNCS)], stdout=f, check=True)
    exe = os.path.join(tmp, "stall")
    sh("gcc -O2 -g -pthread %s %s %s %s -o %s" % (
        pc("--cflags", "vigil-ondemand"), os.path.join(ROOT, "bench",
                                                       "live_stall.c"),
        gen, pc("--libs", "vigil-ondemand"), exe))
    alone, switched, times = [], [], []
    mine = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {1})
    for _ in range(LIVE_ROUNDS):
        alone.append(live_round(exe, False)[0])
        gap, _, t = live_round(exe, True)
        switched.append(gap)
        times += t
    os.sched_setaffinity(0, mine)
    print("  longest stall of the program (on CPU 0; attach on CPU 1), "
          "median of %d rounds: alone %d us, switched %d times %d us "
          "(worst round %d us; alone %d us)" % (
              LIVE_ROUNDS, statistics.median(alone), LIVE_SWITCHES,
              statistics.median(switched), max(switched), max(alone)))
    print("  one switch's writes (%d sites): median %d us, longest %d us; "
          "the program never stops for them" % (
              LIVE_FUNCS, statistics.median(times), max(times)))
    uprobes(tmp)


def fib_cpu(cmd, env):
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True, check=True)
    for line in r.stdout.splitlines():
        if line.startswith("fib("):
            return int(line.split()[-1])
    raise RuntimeError("no timing from %s" % cmd)


def uprobes(tmp):
    """Counting one hot function's calls: a uprobe (bpftrace) beside the
    entry mode and the ondemand build, idle and on; CPU per call over
    plain, fib(30), median of 5 interleaved rounds."""
    calls = 2692537  # fib(30)
    src = os.path.join(ROOT, "bench", "fib_cpu.c")
    exe = {}
    for name, c, l in (("plain", "", ""),
                       ("entry", pc("--cflags", "vigil-entry"),
                        pc("--libs", "vigil-entry")),
                       ("ondemand", pc("--cflags", "vigil-ondemand"),
                        pc("--libs", "vigil-ondemand"))):
        exe[name] = os.path.join(tmp, "fib-cpu-" + name)
        sh("gcc -O2 %s %s %s -o %s" % (c, src, l, exe[name]))
    on = dict(os.environ, VIGIL_FILE=os.path.join(tmp, "fib.%p.vgl"))
    off = {k: v for k, v in os.environ.items() if k != "VIGIL_FILE"}
    bpf = shutil.which("bpftrace")
    cases = [("plain", [exe["plain"], "30"], off),
             ("ondemand, idle", [exe["ondemand"], "30"], off),
             ("ondemand, on", [exe["ondemand"], "30"], on),
             ("entry", [exe["entry"], "30"], on)]
    if bpf:
        cases.append(("uprobe (bpftrace, fib only)",
                      [bpf, "-q", "-e", "uprobe:%s:fib { @n = count(); }" %
                       exe["plain"], "-c", "%s 30" % exe["plain"]], off))
    t = {name: [] for name, _, _ in cases}
    for _ in range(5):
        for name, cmd, env in cases:
            t[name].append(fib_cpu(cmd, env))
    base = statistics.median(t["plain"])
    print("  counting fib's calls, fib(30) (%d calls), CPU of the "
          "computation, median of 5 interleaved rounds:" % calls)
    for name, _, _ in cases:
        m = statistics.median(t[name])
        print("    %-30s %8.3f ms  %7.2fx plain  %+8.1f ns per call" % (
            name, m / 1e6, m / base, (m - base) / calls))
    if not bpf:
        print("    uprobe: bpftrace is not installed (make bench installs it)")


def main():
    os.makedirs(OUT, exist_ok=True)
    install()
    for part, fn in (("lua", lua), ("xz", xz), ("sqlite", sqlite),
                     ("cost", cost), ("ondemand", ondemand), ("oncheck", oncheck), ("idle", idle),
                     ("live", live)):
        if ONLY and part not in ONLY:
            continue
        try:
            fn()
        except RuntimeError as e:
            failed.append(part)
            print("  %s: %s" % (part, str(e)[:2000]))
    print("entry builds: %s" % ("all checks passed" if not failed else
                                "FAILED: " + ", ".join(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
