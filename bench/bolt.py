#!/usr/bin/python3
"""BOLT fed by vigil against BOLT fed by its own instrumentation (issue 10,
"Speed and value"), on SQLite's speedtest1 (Debian's sqlite3 3.40.1 source
package) and, with BENCH_BOLT_CPYTHON=1 (`make bench-bolt-cpython`), on
CPython (Debian's python3.11 source package) running bench/bolt_work.py.

For each program, all in one run:

1. Builds (a) the plain binary, -O2 -Wl,-q: the one llvm-bolt rewrites;
   (b) the same sources with -finstrument-functions and libvigil.a, the
   training build of vigil (for CPython also a second one with
   -finstrument-functions-exclude-file-list=/Include/: no hooks in the
   static inline functions of its headers, which are inlined everywhere
   and so are calls in neither build, yet each inlined copy of them calls
   the hooks); (c) llvm-bolt -instrument of (a).
2. Training cost: (a), (b) and (c) run the training workload in
   interleaved rounds; their CPU-time ratios to (a).
3. Profiles: vigil's (`vigil convert --to fdata` of (b)'s profile, then
   moved onto (a), see below), BOLT's own (from (c)), and BOLT's own
   reduced to its call edges (the lines whose source is a call
   instruction, or a jump to another function: what vigil's profile
   holds).
4. Optimized binaries, each from (a): llvm-bolt -reorder-functions=cdsort
   with vigil's profile, BOLT's, BOLT's call edges and no profile, and
   BOLT's full pipeline (-reorder-blocks=ext-tsp -split-functions too) with
   its own profile, which vigil's profile cannot feed (it has no block
   counts).  Each is timed against (a) in interleaved rounds (each round
   runs every binary once, in a rotated order); the ratios are per round,
   printed as median [min-max].  Every binary must print what (a) prints
   (timings taken out).

Why vigil's profile is moved: `vigil convert --to fdata` names each call
by its caller and the offset of the call instruction in the binary that
ran, the instrumented build (b).  Those offsets mean nothing in (a), whose
code has no hooks: llvm-bolt finds no call at most of them and drops those
functions' profiles as invalid (the run prints what llvm-bolt says of the
unmoved profile, and of the profile on (b) itself).  Optimizing (b) instead
is no answer: its hooks would stay in the optimized binary.  What function
ordering uses is the edges (caller, callee, count), so each is moved onto
(a) by symbol.  (b)'s instruction at the offset is classified (a direct
call or jump to the callee, or an indirect call), and the edge goes to a
call of that kind to that callee in (a)'s caller or its clones
(NAME.part.N, NAME.constprop.N, NAME.isra.N): GCC's inlining and cloning
differ between the builds, since the hooks change the functions' sizes.
When (a)'s caller has as many such calls as (b)'s, the same-ranked one;
else the first (its site uncertain: the counts of one caller-callee pair
add up in the call graph whichever of its sites holds them).  A function
that (a) inlined into some of its callers (no call to it there) runs its
calls from those callers' code, in proportion to the calls into it: they
are moved there.  A call whose callee (a) inlined everywhere, or inlined
into that caller, is not a call in (a): it is rightly dropped.
Every call is accounted for in the output
(moved, or dropped and why).  Names stay as vigil writes them (NAME/FILE/N
for locals: the same in both builds) or as (a) names a clone.

A measurement, not a test: it prints, and exits non-zero only if
something could not be built or run.  Environment: BENCH_BOLT_ROUNDS
(timing rounds, default 7), BENCH_BOLT_TRAIN_ROUNDS (default 9),
BENCH_BOLT_CPYTHON=1 (also CPython: three interpreter builds, ~20 min
more on 2 busy cores the first time, ~8 min after),
BENCH_BOLT_SKIP_SQLITE=1, CC (default gcc).
"""

import bisect
import collections
import difflib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "build", "bench-bolt")
VIGIL = os.path.join(ROOT, "build", "vigil")
LIBVIGIL = os.path.join(ROOT, "build", "libvigil.a")
LLVM = "/usr/lib/llvm-19/bin"
BOLT = os.path.join(LLVM, "llvm-bolt")  # the llvm-bolt-19 link misses its runtime
CC = os.environ.get("CC", "gcc")
ROUNDS = int(os.environ.get("BENCH_BOLT_ROUNDS", "7"))
TRAIN_ROUNDS = int(os.environ.get("BENCH_BOLT_TRAIN_ROUNDS", "9"))
VIGIL_CFLAGS = ["-finstrument-functions", "-I" + os.path.join(ROOT, "include")]
VIGIL_LIBS = [LIBVIGIL,
              "-Wl,--export-dynamic-symbol=__cyg_profile_func_enter",
              "-Wl,--export-dynamic-symbol=__cyg_profile_func_exit"]
# Entry-only counting (issue 17, vigil-entry.pc): -pg -mfentry
# -fno-optimize-sibling-calls given to the compiler proper by GCC's specs
# file (no placeholder in the template), the __fentry__ hook linked in.
ENTRY_CFLAGS = ["-specs=" + os.path.join(ROOT, "vigil-entry-cc.specs.in"),
                "-I" + os.path.join(ROOT, "include")]
ENTRY_LIBS = [LIBVIGIL,
              "-Wl,--export-dynamic-symbol=__fentry__",
              "-Wl,--export-dynamic-symbol=__cyg_profile_func_enter",
              "-Wl,--export-dynamic-symbol=__cyg_profile_func_exit",
              "-Wl,--wrap=__fentry__", "-Wl,--wrap=__cyg_profile_func_enter"]
JOBS = str(os.cpu_count() or 1)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def sh(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError("command failed: %s\n%s" %
                           (" ".join(cmd), r.stdout[-3000:]))
    return r.stdout


def newer(target, sources):
    """True if target exists and is newer than every existing source."""
    if not os.path.exists(target):
        return False
    t = os.path.getmtime(target)
    return all(os.path.getmtime(s) < t for s in sources if os.path.exists(s))


def source(pkg, dest):
    """Debian's source package pkg unpacked in dest (once)."""
    if not os.path.isdir(dest):
        if os.path.lexists(dest + ".part"):
            shutil.rmtree(dest + ".part")
        sh([os.path.join(ROOT, "scripts", "debian-source.sh"), pkg,
            dest + ".part"])
        os.rename(dest + ".part", dest)
    return dest


# ---- the programs ----------------------------------------------------------

class Program:
    """name; build() -> (plain, vigil) paths; argv(binary) -> the
    workload's command line (training and timing); normalize(stdout) ->
    what must be equal across binaries."""


class Sqlite(Program):
    name = "sqlite speedtest1"
    ARGS = ["--size", "50", "--memdb"]

    def __init__(self):
        self.dir = os.path.join(OUT, "sqlite")

    def build(self):
        src = source("sqlite3", os.path.join(self.dir, "src"))
        amalg = os.path.join(src, "sqlite3.c")
        if not os.path.exists(amalg):
            log("bolt: generating the sqlite3.c amalgamation")
            sh(["./configure", "--disable-tcl"], cwd=src)
            sh(["make", "sqlite3.c"], cwd=src)
        test = os.path.join(src, "test", "speedtest1.c")
        plain = os.path.join(self.dir, "speedtest1")
        vig = os.path.join(self.dir, "speedtest1.vigil")
        ent = os.path.join(self.dir, "speedtest1.vigil-entry")
        base = [CC, "-O2", "-I" + src, test, amalg]
        libs = ["-Wl,-q", "-lpthread", "-ldl", "-lm"]
        procs = []
        if not newer(plain, [amalg, test]):
            log("bolt: building speedtest1 (plain, -O2 -Wl,-q)")
            procs.append(subprocess.Popen(base + libs + ["-o", plain]))
        if not newer(vig, [amalg, test, LIBVIGIL]):
            log("bolt: building speedtest1 (-finstrument-functions + vigil)")
            procs.append(subprocess.Popen(
                base + VIGIL_CFLAGS + VIGIL_LIBS + libs + ["-o", vig]))
        if not newer(ent, [amalg, test, LIBVIGIL]):
            log("bolt: building speedtest1 (entry-only counting + vigil)")
            procs.append(subprocess.Popen(
                base + ENTRY_CFLAGS + ENTRY_LIBS + libs + ["-o", ent]))
        if any(p.wait() != 0 for p in procs):
            raise RuntimeError("building speedtest1 failed")
        return plain, [("vigil", vig), ("vigil entry", ent)]

    def argv(self, binary):
        return [binary] + self.ARGS

    def normalize(self, out):
        # "  100 - 50000 INSERTs into table with no index......  0.085s"
        return re.sub(r"\s*[0-9.]+s$", "", out, flags=re.M)


class Cpython(Program):
    name = "cpython 3.11"

    def __init__(self):
        self.dir = os.path.join(OUT, "cpython")
        self.work = os.path.join(ROOT, "bench", "bolt_work.py")

    def one(self, build, extra_cflags, extra_libs):
        src = source("python3.11", os.path.join(self.dir, "src"))
        bdir = os.path.join(self.dir, build)
        exe = os.path.join(bdir, "python")
        if os.path.exists(exe) and newer(exe, [LIBVIGIL] if extra_libs
                                         else []):
            return exe
        shutil.rmtree(bdir, ignore_errors=True)
        os.makedirs(bdir)
        log("bolt: building cpython (%s): minutes" % build)
        # Out of tree, static libpython (the default), no PGO or LTO: -O2
        # like the other builds.  Only the interpreter binary (`make
        # python`: the built-in modules, no shared extension modules).  The
        # instrumented build's own runs (configure's tests, the freezing
        # tools) write their profiles into the build directory.
        env = dict(os.environ)
        env["CFLAGS"] = " ".join(["-O2"] + extra_cflags)
        env["LDFLAGS"] = "-Wl,-q"
        env["LIBS"] = " ".join(extra_libs + ["-lpthread"])
        env["VIGIL_FILE"] = os.path.join(bdir, "vgl", "%e.%p.vgl")
        os.makedirs(os.path.join(bdir, "vgl"))
        sh([os.path.join(src, "configure"), "--without-ensurepip"],
           cwd=bdir, env=env)
        sh(["make", "-j" + JOBS, "python"], cwd=bdir, env=env)
        return exe

    def build(self):
        plain = self.one("plain", [], [])
        vig = self.one("vigil", VIGIL_CFLAGS, VIGIL_LIBS)
        # The same without hooks in the functions of CPython's headers
        # (Py_INCREF and the other static inline helpers): inlined
        # everywhere, they are calls in neither build, yet with
        # -finstrument-functions each inlined copy calls the hooks.
        noinc = self.one("vigil-noinc", VIGIL_CFLAGS + [
            "-finstrument-functions-exclude-file-list=/Include/"],
            VIGIL_LIBS)
        entry = self.one("vigil-entry", ENTRY_CFLAGS, ENTRY_LIBS)
        return plain, [("vigil", vig), ("vigil, /Include/ excluded", noinc),
                       ("vigil entry", entry)]

    def argv(self, binary):
        # -S -E: no site, no PYTHON* variables: the run depends on the
        # binary and bolt_work.py only (a build directory's interpreter
        # finds the source tree's Lib/ itself).
        return [binary, "-S", "-E", self.work]

    def normalize(self, out):
        return out


# ---- symbols and call instructions ----------------------------------------

class Binary:
    """An ELF executable's functions: names as BOLT and vigil write them
    (global NAME; local NAME/N, N its rank by address among the local
    functions named NAME; local NAME/FILE/N, N its rank among those of
    FILE), and each function's call instructions, from objdump."""

    def __init__(self, path):
        self.path = path
        self.addr = {}              # name form -> address
        starts = {}                 # address -> size
        locals_ = collections.defaultdict(list)   # NAME -> [(addr, file)]
        fname = None
        for line in sh(["readelf", "-sW", path]).splitlines():
            f = line.split()
            if len(f) < 7 or not f[0].endswith(":"):
                continue
            if f[3] == "FILE":
                # An empty name (hidden symbols follow one) ends the file.
                fname = f[7] if len(f) > 7 else None
                continue
            if len(f) < 8:
                continue
            if f[3] != "FUNC" or f[6] == "UND":
                continue
            a, size, name = int(f[1], 16), int(f[2]), f[7].split("@")[0]
            if size == 0:
                continue
            starts[a] = max(size, starts.get(a, 0))
            if f[4] == "LOCAL":
                locals_[name].append((a, fname))
            else:
                self.addr.setdefault(name, a)
        for name, lst in locals_.items():
            lst.sort()
            perfile = collections.Counter()
            for i, (a, fl) in enumerate(lst, 1):
                self.addr["%s/%d" % (name, i)] = a
                if fl:
                    perfile[fl] += 1
                    self.addr["%s/%s/%d" % (name, fl, perfile[fl])] = a
        self.starts = sorted(starts)
        self.size = starts
        # addr -> [(offset, kind, target)]: kind "direct" (a call, or a
        # jump out of the function: a tail call) with its target address,
        # or "indirect" with None.
        self.calls = collections.defaultdict(list)
        ins = re.compile(r"^\s*([0-9a-f]+):\s+(?:notrack\s+|bnd\s+)?"
                         r"(call|jmp)\w*\s+(\S+)")
        for line in sh(["objdump", "-d", "--no-show-raw-insn", "-w",
                        path]).splitlines():
            m = ins.match(line)
            if not m:
                continue
            at, op, arg = int(m.group(1), 16), m.group(2), m.group(3)
            fn = self.function(at)
            if fn is None:
                continue
            if arg.startswith("*"):
                if op == "call":
                    self.calls[fn].append((at - fn, "indirect", None))
                continue
            try:
                target = int(arg, 16)
            except ValueError:
                continue
            if op == "jmp" and fn <= target < fn + self.size[fn]:
                continue            # a branch within the function
            self.calls[fn].append((at - fn, "direct", target))

    def function(self, at):
        """The start of the function holding address at, or None."""
        i = bisect.bisect_right(self.starts, at) - 1
        if i < 0:
            return None
        fn = self.starts[i]
        return fn if at < fn + self.size[fn] else None

    def names(self):
        """name_of: addr -> the name BOLT takes for it (a global name, else
        NAME/FILE/N, else NAME/N); and what lookup() reads."""
        if hasattr(self, "name_of"):
            return
        pref = {0: 0, 2: 1, 1: 2}       # by the number of slashes
        self.name_of = {}
        self.by_key = collections.defaultdict(set)
        self.clones = collections.defaultdict(set)
        self.locals = collections.defaultdict(set)
        for name, a in self.addr.items():
            old = self.name_of.get(a)
            if old is None or pref[name.count("/")] < pref[old.count("/")]:
                self.name_of[a] = name
        for name, a in self.addr.items():
            parts = name.split("/")
            if len(parts) == 2 and self.name_of[a].count("/") != 1:
                continue                # NAME/N of a NAME/FILE/N
            key = base(name), parts[1] if len(parts) == 3 else None
            self.by_key[key].add(a)
            if CLONE.search(parts[0]):
                self.clones[key[0]].add(a)
            if len(parts) == 3:
                self.locals[key[0]].add(a)

    def lookup(self, name):
        """The functions of this binary that are name (as vigil names it
        in another build) or its clones: NAME/FILE/N -> the locals of
        FILE with that base name; NAME/N -> the locals of that base name;
        a global NAME -> itself and the clones (locals, in any file) of
        NAME."""
        self.names()
        parts = name.split("/")
        b = base(name)
        if len(parts) == 3:
            return sorted(self.by_key.get((b, parts[1]), ()))
        if len(parts) == 2:
            # NAME/N: a local without a FILE symbol before it in one build
            # (a hidden function, sorted after the last FILE), which may
            # have one in the other.
            return sorted(self.by_key.get((b, None), set()) |
                          self.locals.get(b, set()))
        return sorted(self.by_key.get((b, None), set()) |
                      self.clones.get(b, set()))

    def site(self, name, off):
        """(kind, target, rank among the function's sites of that kind and
        target, exact?) of the call at name+off, or None if there is none.
        exact is False when off falls inside a call instruction rather than
        at its start (see the docstring: a misdecoded site)."""
        fn = self.addr.get(name)
        if fn is None:
            return None
        seen = collections.Counter()
        best = None
        for o, kind, target in self.calls.get(fn, []):
            seen[(kind, target)] += 1
            if o == off:
                return kind, target, seen[(kind, target)], True
            if o < off < o + 8:
                best = kind, target, seen[(kind, target)], False
        return best

    def sites(self, name, kind, target):
        fn = self.addr.get(name)
        return [o for o, k, t in self.calls.get(fn, [])
                if k == kind and t == target]


CLONE = re.compile(r"\.(part|constprop|isra|cold|lto_priv)\.\d+")


def base(name):
    """NAME of NAME/FILE/N, NAME/N or NAME, without clone suffixes."""
    return CLONE.sub("", name.split("/")[0])


def read_fdata(path):
    rows = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) == 8:
                rows.append(p)
    return rows


def inlined_edges(vgl, vbin):
    """[(host, callee, calls)]: the calls vigil counted in inlined copies
    (`vigil convert --to json`, edges with inlined_in), the callee's code
    having run inside the host in the instrumented build vbin; names as
    vbin's fdata spells them.  The fdata leaves them out, as they ran no
    call instruction in vbin; in the plain build some are real calls."""
    vbin.names()
    j = json.loads(sh([VIGIL, "convert", vgl, "--to", "json"]))
    mod = os.path.basename(vbin.path)
    name = {}
    for f in j["functions"]:
        if f["module"] == mod:
            name[f["id"]] = vbin.name_of.get(int(f["address"], 16))
    out = []
    for e in j["edges"]:
        h, c = name.get(e["inlined_in_id"]), name.get(e["callee_id"])
        if e["inlined_in_id"] is not None and h and c:
            out.append((h, c, e["calls"]))
    return out


def move_vigil_fdata(vfdata, vbin, pbin, out, inlined=()):
    """Writes vigil's fdata (offsets in the instrumented binary vbin) with
    offsets in the plain binary pbin (see the docstring); returns a
    Counter of calls by fate."""
    pbin.names()
    fate = collections.Counter()
    edges, into = [], collections.defaultdict(list)
    for p in read_fdata(vfdata):
        caller, off, callee, count = p[1], int(p[2], 16), p[4], int(p[7])
        s = vbin.site(caller, off)
        fate["calls"] += count
        if s is None:
            fate["no call instruction at vigil's offset"] += count
            continue
        if not s[3]:
            fate["note: of them, at an offset inside the call instruction "
                 "(misdecoded by lib/callsite.c)"] += count
        if s[0] == "direct" and s[1] != vbin.addr.get(callee):
            fate["no call instruction at vigil's offset"] += count
            continue
        edges.append((caller, callee, s[0], s[2], count))
        into[callee].append((caller, count, s[0]))
    moved = collections.Counter()

    def sites(hosts, callee, kind):
        """The calls of kind to callee in the plain functions hosts:
        [(function, offset, target)]."""
        pt = pbin.lookup(callee)
        if kind == "direct":
            return [(fn, o, t) for fn in hosts for o, k, t in pbin.calls[fn]
                    if k == "direct" and t in pt]
        return [(fn, o, pt[0]) for fn in hosts if pt
                for o, k, t in pbin.calls[fn] if k == "indirect"]

    memo = {}

    def hosts(fn, busy=()):
        """Where fn's code runs in the plain build: {tuple of plain
        functions (fn and its clones, or a host that inlined fn): share}.
        Its own body, for the calls into it that are calls in the plain
        build too; for those that are not (it was inlined there), its
        caller's hosts, in proportion to those calls."""
        if fn in memo:
            return memo[fn]
        own = tuple(pbin.lookup(fn))
        total = sum(n for _, n, _ in into.get(fn, []))
        h = collections.Counter()
        if not total or fn in busy:
            if own:
                h[own] = 1.0
            if not total:
                memo[fn] = h
            return h
        for up, n, kind in into[fn]:
            uh = hosts(up, busy + (fn,)) if up != fn else {}
            if own and (up == fn or
                        sites([f for k in uh for f in k], fn, kind)):
                h[own] += n / total
            else:
                for k, w in uh.items():
                    h[k] += n / total * w
        memo[fn] = h
        return h

    edges = [e + ("",) for e in edges] + [
        (h, c, "direct", 0, n, "inlined copies: ") for h, c, n in inlined]
    for caller, callee, kind, rank, count, tag in edges:
        if tag:
            fate[tag + "calls"] += count
        if not pbin.lookup(callee):
            fate[tag + "dropped: callee inlined everywhere in the plain "
                 "build"] += count
            continue
        h = hosts(caller)
        if not h:
            fate[tag + "dropped: caller's code not found in the plain "
                 "build"] += count
            continue
        left = count
        own = tuple(pbin.lookup(caller))
        nv = len(vbin.sites(caller, kind, vbin.addr.get(callee)
                            if kind == "direct" else None))
        for i, (k, w) in enumerate(sorted(h.items())):
            n = left if i == len(h) - 1 else int(round(count * w))
            n = min(n, left)
            left -= n
            if not n:
                continue
            ss = sites(k, callee, kind)
            if not ss:
                fate[tag + "dropped: no such call in the plain build (the "
                     "callee inlined there)"] += n
                continue
            if k == own and len(ss) == nv:
                fn, o, t = ss[rank - 1]
                how = "moved"
            else:
                # Fewer or more such calls in the plain build (some inlined
                # there, or the caller itself inlined): which one ran is
                # unknown; the pair's count is what the call graph uses.
                fn, o, t = ss[0]
                how = "moved to a call of the same pair, its site uncertain"
            moved[(pbin.name_of[fn], o, pbin.name_of[t])] += n
            fate[tag + how + ("" if k == own else
                        " (where the plain build inlined the caller)")] += n

    with open(out, "w") as f:
        for (caller, off, callee), n in sorted(moved.items()):
            f.write("1 %s %x 1 %s 0 0 %d\n" % (caller, off, callee, n))
    return fate


def call_edges(bfdata, pbin, out):
    """Writes the lines of BOLT's fdata whose source is a call (or a jump
    to another function) in pbin; returns (lines kept, lines)."""
    rows = read_fdata(bfdata)
    kept = 0
    with open(out, "w") as f:
        for p in rows:
            if p[0] != "1" or p[3] != "1" or p[5] != "0":
                continue
            fn = pbin.addr.get(p[1])
            if fn is None:
                continue
            off = int(p[2], 16)
            if any(o == off for o, _, _ in pbin.calls.get(fn, [])):
                f.write(" ".join(p) + "\n")
                kept += 1
    return kept, len(rows)


def pairs(fdata, pbin):
    """{(caller address, callee address): calls} of an fdata's lines about
    functions of pbin (names in any of BOLT's spellings)."""
    out = collections.Counter()
    for p in read_fdata(fdata):
        a, b = pbin.addr.get(p[1]), pbin.addr.get(p[4])
        if a is not None and b is not None:
            out[(a, b)] += int(p[7])
    return out


# ---- running ---------------------------------------------------------------

def run(argv, env=None, cwd=None):
    """(wall seconds, CPU seconds (user + system), stdout) of one run;
    raises if it fails."""
    e = dict(os.environ)
    e.update(env or {})
    with tempfile.TemporaryFile("w+") as out, \
            tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=out, stderr=err, env=e, cwd=cwd)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = 0    # reaped here
        out.seek(0)
        err.seek(0)
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            raise RuntimeError("%s: exit %d: %s" % (" ".join(argv), code,
                                                    err.read().strip()[-500:]))
        return wall, ru.ru_utime + ru.ru_stime, out.read()


SKIP = []      # functions llvm-bolt cannot rewrite, found as it says so


def bolt(inp, out, args, logf=None):
    """llvm-bolt inp -o out ARGS --skip-funcs=SKIP; returns its profile
    lines.  When llvm-bolt stops at a function it cannot rewrite ("unable
    to get new address ... in function NAME": CPython's computed-goto
    interpreter loop and regex matchers), NAME joins SKIP, for every later
    run too, and it runs again."""
    for _ in range(20):
        skip = ["--skip-funcs=" + ",".join(SKIP)] if SKIP else []
        r = subprocess.run([BOLT, inp, "-o", out] + args + skip,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        m = re.search(r"unable to get new address corresponding to input "
                      r"address \S+ in function (\S+?)(\(\*\d+\))?\.",
                      r.stdout)
        if r.returncode == 0 or not m or m.group(1) in SKIP:
            break
        SKIP.append(m.group(1))
        log("bolt: llvm-bolt skips %s from now on" % m.group(1))
    if r.returncode != 0:
        raise RuntimeError("command failed: %s\n%s" % (
            " ".join([BOLT, inp, "-o", out] + args + skip), r.stdout[-3000:]))
    if logf:
        with open(logf, "w") as f:
            f.write(r.stdout)
    keep = ("have non-empty execution profile", "have invalid (possibly",
            "belong to functions with invalid", "was ignored")
    return [l.strip().replace(" Use -report-stale to see the list.", "")
            for l in r.stdout.splitlines() if any(k in l for k in keep)]


def differ(a, b):
    """The first lines of a unified diff of a and b."""
    return "".join(list(difflib.unified_diff(
        a.splitlines(True), b.splitlines(True), "plain", "this"))[:12])


def spread(xs):
    return "%.3f [%.3f-%.3f]" % (statistics.median(xs), min(xs), max(xs))


def bench(prog):
    print("bolt: %s" % prog.name, flush=True)
    plain, vigs = prog.build()
    # Beside the plain binary: CPython's interpreter finds its Lib/ from
    # its build directory only.
    wdir = os.path.dirname(plain)
    del SKIP[:]
    tmp = tempfile.mkdtemp(prefix="vigil-bolt-")
    try:
        # (c): BOLT's instrumentation of the plain binary; the profile path
        # is fixed in it, so it points into tmp.
        binst = os.path.join(wdir, "prog.bolt-instr")
        bfdata = os.path.join(tmp, "bolt.fdata")
        bolt(plain, binst, ["-instrument",
                            "--instrumentation-file=" + bfdata])

        # ---- training cost
        runs = [("plain", plain, {}, None)]
        for i, (name, b) in enumerate(vigs):
            vgl = os.path.join(tmp, "vigil%d.vgl" % i)
            runs.append((name, b, {"VIGIL_FILE": vgl}, vgl))
        runs.append(("bolt-instrument", binst, {}, bfdata))
        train = collections.defaultdict(list)
        expect = None
        for r in range(TRAIN_ROUNDS):
            for name, b, env, prof in runs:
                if prof and os.path.exists(prof):
                    os.unlink(prof)     # each round writes it anew
                wall, cpu, out = run(prog.argv(b), env, tmp)
                train[name].append((wall, cpu))
                out = prog.normalize(out)
                if expect is None:
                    expect = out
                elif out != expect:
                    raise RuntimeError("%s: output differs from plain's:\n%s"
                                       % (name, differ(expect, out)))
        # This machine's CPU time is bimodal (a run takes 1x or ~1.6x,
        # for stretches of seconds), so a median of three rounds could
        # give SQLite's entry build 1.84x one run and 1.19x the next.  Each
        # ratio is given two ways: the median of the rounds' own ratios
        # to plain (each round's runs close in time), and the fastest run
        # of each against plain's fastest (noise only adds time).
        print("  training run (CPU time, %d interleaved rounds; ratio to "
              "plain: median of the rounds' ratios, and fastest against "
              "fastest):" % TRAIN_ROUNDS)
        cpu = {n: [x[1] for x in train[n]] for n in train}
        p0 = cpu["plain"]
        ratio = {n: statistics.median(c / p for c, p in zip(cpu[n], p0))
                 for n in cpu}
        fast = {n: min(cpu[n]) / min(p0) for n in cpu}
        for name, _, _, _ in runs:
            print("    %-26s median %7.3f s  %5.2fx   fastest %7.3f s  %5.2fx"
                  % (name, statistics.median(cpu[name]), ratio[name],
                     min(cpu[name]), fast[name]))
        for name, _ in vigs:
            print("    %s's cost / BOLT's cost (CPU time above plain's): "
                  "%.2f (median), %.2f (fastest)"
                  % (name, (ratio[name] - 1) / (ratio["bolt-instrument"] - 1),
                     (fast[name] - 1) / (fast["bolt-instrument"] - 1)))

        # ---- profiles
        log("bolt: reading the call instructions of the builds")
        pbin = Binary(plain)
        vfdatas = []
        for i, (name, b) in enumerate(vigs):
            vraw = os.path.join(tmp, "vigil%d.raw.fdata" % i)
            sh([VIGIL, "convert", runs[1 + i][3], "--to", "fdata",
                "-o", vraw])
            vfdata = os.path.join(tmp, "vigil%d.fdata" % i)
            vfdatas.append(vfdata)
            vbin = Binary(b)
            fate = move_vigil_fdata(vraw, vbin, pbin, vfdata,
                                    inlined_edges(runs[1 + i][3], vbin))
            ct = fate.pop("calls")
            ci = fate.pop("inlined copies: calls", 0)
            print("  %s's profile: %d calls on %d call edges; moved onto the "
                  "plain binary by symbol:" % (name, ct,
                                               len(read_fdata(vraw))))
            for why, n in sorted(fate.items(), key=lambda x: (
                    x[0].startswith("note"), -x[1])):
                if not why.startswith("inlined copies: "):
                    print("    %5.1f%%  %s" % (100.0 * n / max(ct, 1), why))
            print("  and %d calls it counted in inlined copies (in no fdata: "
                  "no call instruction ran), moved from their host:" % ci)
            for why, n in sorted(fate.items(), key=lambda x: -x[1]):
                if why.startswith("inlined copies: "):
                    print("    %5.1f%%  %s" % (100.0 * n / max(ci, 1),
                                              why[len("inlined copies: "):]))
            print("  llvm-bolt with %s's profile as converted:" % name)
            for what, bb in (("on the instrumented build it describes", b),
                             ("on the plain build (offsets not moved)",
                              plain)):
                lines = bolt(bb, os.path.join(tmp, "raw"),
                             ["-data=" + vraw, "-reorder-functions=cdsort"])
                print("    %s: %s" % (what, "; ".join(
                    re.sub(r"^BOLT-\w+: ", "", l) for l in lines) or "-"))
        bcalls = os.path.join(tmp, "bolt.calls.fdata")
        ckept, clines = call_edges(bfdata, pbin, bcalls)
        print("  BOLT's profile: %d lines, %d of them call edges" %
              (clines, ckept))
        bpairs = pairs(bcalls, pbin)
        for (name, _), vfdata in zip(vigs, vfdatas):
            vpairs = pairs(vfdata, pbin)
            both = set(vpairs) & set(bpairs)
            vt, bt = sum(vpairs.values()), sum(bpairs.values())
            print("  %s's moved call graph against BOLT's call edges "
                  "(caller-callee pairs of the plain binary): %d and %d "
                  "pairs, %d in both, %d of them with equal counts; "
                  "weight in common %.1f%%" % (
                      name, len(vpairs), len(bpairs), len(both),
                      sum(vpairs[k] == bpairs[k] for k in both),
                      100.0 * sum(min(vpairs[k] / vt, bpairs[k] / bt)
                                  for k in both)))
            if SKIP:
                # BOLT's instrumentation counts no call from the functions
                # it skipped; vigil's does.
                gone = {pbin.addr.get(f) for f in SKIP}
                vx = {k: n for k, n in vpairs.items() if k[0] not in gone}
                vt = sum(vx.values())
                print("    without the calls from the functions llvm-bolt "
                      "skipped (%.1f%% of %s's moved calls): weight in "
                      "common %.1f%%" % (
                          100.0 - 100.0 * vt / sum(vpairs.values()), name,
                          100.0 * sum(min(vx[k] / vt, bpairs[k] / bt)
                                      for k in set(vx) & set(bpairs))))

        # ---- optimized binaries
        cd = ["-reorder-functions=cdsort"]
        variants = [("original", None, None), ("BOLT, no profile", cd, "none")]
        for i, (name, _) in enumerate(vigs):
            variants.append(("%s, cdsort" % name, ["-data=" + vfdatas[i]] + cd,
                             "vigil%d" % i))
        variants += [
            ("BOLT's profile, cdsort", ["-data=" + bfdata] + cd, "bolt"),
            ("BOLT's call edges, cdsort", ["-data=" + bcalls] + cd,
             "bolt-calls"),
            ("BOLT's profile, full pipeline",
             ["-data=" + bfdata, "-reorder-blocks=ext-tsp",
              "-split-functions"] + cd, "bolt-full"),
        ]
        bins, orders = [], {}
        print("  llvm-bolt -o prog.X (the profile lines it prints):")
        for name, args, tag in variants:
            if args is None:
                bins.append((name, plain))
                continue
            out = os.path.join(wdir, "prog." + tag)
            if tag != "none":
                args = args + ["-generate-function-order=" + out + ".order"]
            lines = bolt(plain, out, args, out + ".log")
            print("    %s: %s" % (name, "; ".join(
                re.sub(r"^BOLT-\w+: ", "", l) for l in lines) or "-"))
            bins.append((name, out))
            if tag != "none":
                with open(out + ".order") as f:
                    orders[name] = [l.strip() for l in f if l.strip()]
        if SKIP:
            print("  llvm-bolt cannot rewrite (so neither instruments nor "
                  "moves) and skipped, in every run: %s" % ", ".join(SKIP))
        print("  function order (-generate-function-order): functions "
              "ordered; of the first 50 / 200, how many are in BOLT's "
              "call edges' first 50 / 200:")
        ref = orders["BOLT's call edges, cdsort"]
        for name, order in orders.items():
            print("    %-32s %5d   %3d / %3d" % (
                name, len(order), len(set(order[:50]) & set(ref[:50])),
                len(set(order[:200]) & set(ref[:200]))))
        times = collections.defaultdict(list)
        for r in range(ROUNDS):
            order = bins[r % len(bins):] + bins[:r % len(bins)]
            for name, b in order:
                wall, cpu, out = run(prog.argv(b), None, tmp)
                if prog.normalize(out) != expect:
                    raise RuntimeError("%s: output differs from plain's:\n%s"
                                       % (name, differ(expect,
                                                       prog.normalize(out))))
                times[name].append((wall, cpu))
        print("  optimized binaries: ratio to the original in the same round,"
              " median [min-max] of %d interleaved rounds:" % ROUNDS)
        print("    %-32s %-26s %s" % ("", "CPU time (user+sys)", "wall time"))
        for name, _ in bins:
            cols = []
            for i in (1, 0):
                ratios = [t[i] / o[i] for t, o in
                          zip(times[name], times["original"])]
                cols.append("%.3fs %s" % (statistics.median(
                    t[i] for t in times[name]), spread(ratios)))
            print("    %-32s %-26s %s" % (name, cols[0], cols[1]))
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    progs = []
    if os.environ.get("BENCH_BOLT_SKIP_SQLITE") != "1":
        progs.append(Sqlite())
    if os.environ.get("BENCH_BOLT_CPYTHON") == "1":
        progs.append(Cpython())
    status = 0
    for p in progs:
        try:
            bench(p)
        except (RuntimeError, OSError) as e:
            print("bolt: %s: %s" % (p.name, e), flush=True)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
