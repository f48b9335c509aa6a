#!/usr/bin/python3
"""Stacks of programs built without frame pointers: `vigil attach --scan
stacks` beside `perf record --call-graph dwarf`, both on the same target
at the same time (issue 16's figures).

Part of `make bench`; a measurement, not a test: exits 0 whatever the
numbers, non-zero only if something could not be built or run.  For each
target (a 4-level call tree built -O2 -fomit-frame-pointer; Debian's
python3 running a recursive function; Debian's xz -9 compressing 50 MB),
both tools sample at 999 Hz for BENCH_SECONDS (default 15) and the script
prints, per tool:

  samples        stack samples taken
  reach          % of samples whose chain reaches the program's entry or
                 a thread's start (__libc_start_call_main, start_thread)
  junk           % of samples with a frame outside every mapping (vigil:
                 a name 0xADDR; perf: dso [unknown])
  depth          mean frames per sample
  CPU            the tool's CPU time (user + system), in % of the
                 target's; for perf, `perf record` plus the `perf report`
                 of its data (where perf's DWARF unwinding is done)

then, per target, the top 10 functions by inclusive share (samples with
the function anywhere in the chain) of each tool: how many are in both
(of 10, or of as many as have names, when fewer do), and the largest
difference of share, in points, among those.

Then two costs, each beside perf --call-graph dwarf in the same run:

  sampler CPU    a 16-thread target (bench/threads.c, -O2 without frame
                 pointers) sampled at 999 Hz by both at once: vigil
                 attach's CPU time against perf record's plus perf
                 report's for the same samples
  slow-down      the CPU time of a fixed amount of work
                 (bench/attach/spin.c, -O2 -fomit-frame-pointer) alone,
                 under vigil attach at 999 Hz and under perf record
                 --call-graph dwarf at 999 Hz, median of BENCH_RUNS
                 (default 3); in % of the plain run, and the difference
                 in points

Then the stack copy's size (--unwind dwarf,SIZE; issue 31.7): vigil
attach alone on each target above and on Debian's cc1 compiling deeply
nested expressions, at 999 Hz for BENCH_SWEEP_SECONDS (default 5) per size, from
2 KiB to 64 KiB: reach, and vigil's CPU per 1000 samples as a ratio to
8 KiB's (perf's default) in the same run, then what the default (16 KiB)
reaches beside the largest copy.  BENCH_SWEEP_ONLY=1 runs only this part.

Needs perf (linux-perf, `scripts/install-deps.sh bench`).
"""

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VIGIL = os.path.join(ROOT, "build", "vigil")
# 15 s: ~10,000 samples per tool on a target with a core of its own.  A
# share's sampling error is then about 0.5 points, where at 5 s on a busy
# machine (500 samples) it was 2 to 3: the 3.1 points once measured on the
# tree were that noise, not a difference of the two unwinders.
SECONDS = float(os.environ.get("BENCH_SECONDS", "15"))


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rusage_cpu(before, after):
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def vigil_stacks(out):
    """[(frames innermost first, count)] of vigil attach's records."""
    st = []
    for line in out.splitlines():
        r = json.loads(line)
        if r["type"] == "sample":
            # __libc_start_main@@GLIBC_2.34: perf drops the version.
            st += [([f.split("@")[0] for f in s["frames"]], s["count"])
                   for s in r["stacks"]]
    return st


def perf_stacks(text):
    """[(frames innermost first, 1)] of `perf script -F comm,tid,ip,sym,dso`;
    a frame outside every mapping is JUNK."""
    st = []
    frames = None
    for line in text.splitlines() + [""]:
        if not line.strip():
            if frames is not None:
                st.append((frames, 1))
            frames = None
        elif not line[0].isspace():
            frames = []
        elif frames is not None:
            parts = line.split()
            dso = line.rstrip().rsplit("(", 1)[-1].rstrip(")")
            sym = parts[1].split("+0x")[0] if len(parts) > 2 else "?"
            if dso == "[unknown]":
                frames.append(JUNK)
            elif dso.startswith("[kernel"):
                # One frame for the kernel, as vigil has it.
                frames.append("[kernel]")
            elif sym == "[unknown]":
                frames.append(UNNAMED)
            else:
                frames.append(perf_name(sym, dso))
    return st


UNNAMED = "<no symbol>"
_aliases = {}


def perf_name(sym, dso):
    """perf names a function from the separate debug files (libc6-dbg's),
    vigil from the module's own symbols, and of the names at one address
    they may pick two (__libc_start_main_impl and __libc_start_main,
    __memmove_avx512_unaligned_erms and __memcpy_...): the names of every
    module perf saw are read here, and canon() gives one name for all the
    names at an address, the .dynsym one where there is one."""
    if dso not in _aliases:
        _aliases[dso] = 1
        out = subprocess.run(["readelf", "-n", dso], capture_output=True,
                             text=True).stdout
        bid = [x.split(":")[1].strip() for x in out.splitlines()
               if "Build ID:" in x]
        dbg = "/usr/lib/debug/.build-id/%s/%s.debug" % (bid[0][:2], bid[0][2:]) \
            if bid else ""

        def syms(args):
            out = subprocess.run(["nm", "--defined-only"] + args,
                                 capture_output=True, text=True).stdout
            return [(x.split()[0], x.split()[2].split("@")[0])
                    for x in out.splitlines() if len(x.split()) == 3
                    and x.split()[1] in "TtWwiI"]
        at = {}
        for a, n in syms(["-D", dso]):
            at.setdefault(a, n)
        rest = syms([dbg]) if os.path.exists(dbg) else []
        rest += syms([dso])
        for a, n in sorted(rest):
            at.setdefault(a, n)
        for a, n in rest + syms(["-D", dso]):
            _canon.setdefault(n, at[a])
    return sym.split("@")[0]


_canon = {}


def canon(f):
    return _canon.get(f.split("@")[0], f.split("@")[0])


def unnamed_vigil(f):
    """vigil's names for code without a symbol: module+0xSTART, [module]."""
    return "+0x" in f or (f.startswith("[") and f != "[kernel]")


JUNK = "<junk>"
ENTRIES = ("__libc_start_call_main", "start_thread")


def figures(stacks, junk):
    """samples, reach %, junk %, mean depth, {function: inclusive %}."""
    n = reach = bad = depth = 0
    incl = {}
    for frames, c in stacks:
        frames = [canon(f) for f in frames]
        n += c
        depth += len(frames) * c
        if any(e in frames for e in ENTRIES):
            reach += c
        if any(junk(f) for f in frames):
            bad += c
        for f in set(frames):
            incl[f] = incl.get(f, 0) + c
    m = max(n, 1)
    return n, 100.0 * reach / m, 100.0 * bad / m, depth / m, \
        {f: 100.0 * c / m for f, c in incl.items()}


def top10(incl):
    """The 10 named functions of most inclusive share (both tools name
    code without a symbol differently, which cannot be matched)."""
    named = [f for f in incl if f not in (UNNAMED, JUNK) and
             not unnamed_vigil(f)]
    return sorted(named, key=lambda f: (-incl[f], f))[:10]


def measure(name, pid, tmp, perf_lead=0.0):
    """Both tools on pid at once (perf first by perf_lead seconds); their
    outputs and CPU seconds."""
    perf_data = os.path.join(tmp, name + ".perf.data")
    t0 = cpu_s(pid)
    perf = subprocess.Popen(["perf", "record", "-q", "--call-graph", "dwarf",
                             "-F", "999", "-p", str(pid), "-o", perf_data],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(perf_lead)
    vig = subprocess.Popen([VIGIL, "attach", "-p", str(pid), "--scan", "stacks",
                            "--frequency", "999", "--interval", "1s",
                            "--duration", "%gs" % SECONDS],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           text=True)
    vout = vig.stdout.read()
    _, _, vru = os.wait4(vig.pid, 0)
    vig.returncode = 0
    target_cpu = cpu_s(pid) - t0
    perf.send_signal(2)
    _, _, pru = os.wait4(perf.pid, 0)
    perf.returncode = 0
    t1 = os.times()
    subprocess.run(["perf", "report", "-i", perf_data, "--stdio"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t2 = os.times()
    report_cpu = (t2.children_user - t1.children_user) + \
        (t2.children_system - t1.children_system)
    # Without inlined frames: vigil's chains are of real frames.
    script = subprocess.run(["perf", "script", "--no-inline", "-i", perf_data,
                             "-F", "comm,tid,ip,sym,dso"],
                            capture_output=True, text=True)
    return (vout, script.stdout, target_cpu,
            vru.ru_utime + vru.ru_stime, pru.ru_utime + pru.ru_stime,
            report_cpu)


def cc1_target(tmp):
    """Debian's gcc's compiler proper, cc1 -O2, on 1500 functions of loops
    and nested expressions (a minute of work, killed after each
    measurement)."""
    rnd = random.Random(1)

    def expr(d):
        if not d:
            return rnd.choice(["a", "b", "i", "3", "7"])
        return "(%s %s %s)" % (expr(d - 1), rnd.choice("+-*^|&"), expr(d - 1))
    src = os.path.join(tmp, "gen.c")
    with open(src, "w") as f:
        for k in range(1500):
            body = " ".join(
                "for (int i = 0; i < n; i++) { if (%s > %d) { for (int j = 0;"
                " j < i; j++) b += j + %s; } else a ^= %s; }"
                % (expr(3), s, expr(4), expr(3)) for s in range(6))
            f.write("int f%d(int n, int a, int b) { %s return a + b; }\n"
                    % (k, body))
    cc1 = subprocess.run(["gcc", "-print-prog-name=cc1"], capture_output=True,
                         text=True, check=True).stdout.strip()
    return ("Debian gcc's cc1 -O2", [cc1, "-quiet", "-O2", src, "-o",
                                     os.devnull], None)


def build(tmp, name, src, *extra):
    out = os.path.join(tmp, name)
    subprocess.run(["gcc", "-g", "-O2", "-fomit-frame-pointer", "-pthread",
                    os.path.join(ROOT, src), "-o", out] + list(extra),
                   check=True)
    return out


def sampler_cpu(tmp):
    """vigil attach's CPU beside perf record + report's, on 16 threads,
    per 1000 stack samples.  perf record -p of 16 threads took 13 s to
    take its first sample (of a 15 s run, all 428 samples came in the last
    1.8 s; measured on the 2-CPU bench machine), so it starts 15 s first
    and samples longer."""
    threads = build(tmp, "threads", "bench/threads.c")
    p = subprocess.Popen([threads, "16", "100000000000"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    vout, pout, tcpu, vcpu, rcpu, rep = measure("threads", p.pid, tmp,
                                                perf_lead=15.0)
    p.kill()
    p.wait()
    vn = sum(c for _, c in vigil_stacks(vout))
    pn = len(perf_stacks(pout))
    vk = 1e6 * vcpu / max(vn, 1)
    pk = 1e6 * (rcpu + rep) / max(pn, 1)
    print("sampler CPU at 999 Hz with stacks, 16 threads (vigil %gs, perf "
          "15 s longer):" % SECONDS)
    print("  vigil attach %.2f s for %d samples: %.1f ms per 1000"
          % (vcpu, vn, vk))
    print("  perf dwarf   %.2f s = record %.2f s + report %.2f s for %d "
          "samples: %.1f ms per 1000" % (rcpu + rep, rcpu, rep, pn, pk))
    print("  ratio vigil / perf dwarf %.3f; target <= 1: %s"
          % (vk / max(pk, 0.001), "met" if vk <= pk else "NOT met"))


# About 2 s of work: shorter runs measure the attach more than the sampling.
SPIN_ITERS = os.environ.get("BENCH_SPIN_ITERS", "1500000000")
RUNS = int(os.environ.get("BENCH_RUNS", "3"))


def spin_once(spin, how, tmp):
    """The CPU time in ns of spin's fixed work, under `how` at 999 Hz."""
    p = subprocess.Popen([spin, SPIN_ITERS], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    w = None
    if how == "vigil":
        w = subprocess.Popen(
            [VIGIL, "attach", "-p", str(p.pid), "--scan", "stacks",
             "--frequency", "999", "--interval", "1s"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        w.stdout.readline()           # attach
        w.stdout.readline()           # first sample: events are open
    elif how == "perf":
        w = subprocess.Popen(
            ["perf", "record", "-q", "--call-graph", "dwarf", "-F", "999",
             "-p", str(p.pid), "-o", os.path.join(tmp, "spin.perf.data")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)               # perf says nothing when ready
    out, _ = p.communicate("go\n", timeout=300)
    if w:
        if how == "vigil":
            w.stdout.read()
            w.stdin.close()
        w.wait(timeout=60)
    return int(out.strip())


def slowdown(tmp):
    spin = build(tmp, "spin", "bench/attach/spin.c")
    t = {"plain": [], "vigil": [], "perf": []}
    for _ in range(RUNS):
        for how in t:
            t[how].append(spin_once(spin, how, tmp))
    base = statistics.median(t["plain"])
    v = (statistics.median(t["vigil"]) / base - 1) * 100
    p = (statistics.median(t["perf"]) / base - 1) * 100
    print("target slow-down at 999 Hz (spin.c -O2 -fomit-frame-pointer, "
          "median of %d, %% of its work's CPU time; plain %.0f ms):"
          % (RUNS, base / 1e6))
    print("  vigil attach %+.2f%%   perf dwarf %+.2f%%   difference %+.2f "
          "points; target <= +1.5: %s" % (v, p, v - p,
                                          "met" if v - p <= 1.5 else "NOT met"))


SWEEP_SECONDS = float(os.environ.get("BENCH_SWEEP_SECONDS", "5"))
SWEEP_SIZES = (2048, 4096, 8192, 16384, 32768, 65528)
DEFAULT_COPY = 16384          # SAMPLER_STACK_COPY_DEFAULT


def attach_alone(pid, size, tmp):
    """vigil attach --unwind dwarf,size on pid: its stacks (from its .vgl
    file, which keeps every frame the sampler took; the JSON lines keep
    64), its CPU."""
    vgl = os.path.join(tmp, "sweep.vgl")
    vig = subprocess.Popen([VIGIL, "attach", "-p", str(pid), "--scan", "stacks",
                            "--frequency", "999", "--interval", "1s",
                            "--unwind", "dwarf,%d" % size, "-o", vgl,
                            "--duration", "%gs" % SWEEP_SECONDS],
                           stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    _, _, ru = os.wait4(vig.pid, 0)
    vig.returncode = 0
    folded = subprocess.run([VIGIL, "convert", vgl, "--to", "folded"],
                            capture_output=True, text=True, check=True).stdout
    st = []
    for line in folded.splitlines():
        chain, count = line.rsplit(" ", 1)
        st.append((chain.split(";")[::-1], int(count)))
    return st, ru.ru_utime + ru.ru_stime


def stack_copy_sweep(targets, tmp):
    print("stack copy size (vigil attach --unwind dwarf,SIZE at 999 Hz, "
          "%gs per size; ratios to 8192 in this run):" % SWEEP_SECONDS)
    print("%-30s %8s %8s %8s %12s %10s" % (
        "target", "SIZE", "samples", "reach%", "ms/1000", "CPU ratio"))
    best = {}
    for name, cmd, stdin in targets:
        rows = {}
        for size in SWEEP_SIZES:
            p = subprocess.Popen(cmd, stdin=open(stdin, "rb") if stdin else
                                 subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            time.sleep(0.5)
            st, cpu = attach_alone(p.pid, size, tmp)
            p.kill()
            p.wait()
            n, reach, _, _, _ = figures(st, lambda f: f.startswith("0x"))
            rows[size] = (n, reach, 1e6 * cpu / max(n, 1))
        base = rows[8192][2]
        for size in SWEEP_SIZES:
            n, reach, k = rows[size]
            print("%-30s %8d %8d %8.1f %12.1f %10.3f" % (
                name if size == SWEEP_SIZES[0] else "", size, n, reach, k,
                k / max(base, 0.001)))
        best[name] = (rows[DEFAULT_COPY][1], rows[SWEEP_SIZES[-1]][1])
    print("  the default copy (%d) reaches the start in: %s (65528: %s)" % (
        DEFAULT_COPY, ", ".join("%s %.1f%%" % (n, b[0])
                                for n, b in best.items()),
        ", ".join("%.1f%%" % b[1] for b in best.values())))


def main():
    if not shutil.which("perf"):
        print("unwind: perf not installed (scripts/install-deps.sh bench)")
        return 1
    tmp = tempfile.mkdtemp()
    tree = os.path.join(tmp, "tree")
    subprocess.run(["gcc", "-g", "-O2", "-fomit-frame-pointer", "-pthread",
                    os.path.join(ROOT, "tests", "lit", "Inputs",
                                 "stacks_target.c"), "-o", tree], check=True)
    script = os.path.join(tmp, "rec.py")
    with open(script, "w") as f:
        f.write("def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
                "while True:\n    fib(20)\n")
    data = os.path.join(tmp, "50mb")
    with open(data, "wb") as f:
        f.write(os.urandom(50 << 20))
    targets = [
        ("tree -O2 -fomit-frame-pointer", [tree, "tree"], None),
        ("Debian python3", ["/usr/bin/python3", script], None),
        ("Debian xz -9, 50 MB", ["/usr/bin/xz", "-9", "-c"], data),
    ]
    if os.environ.get("BENCH_SWEEP_ONLY") == "1":
        stack_copy_sweep(targets + [cc1_target(tmp)], tmp)
        shutil.rmtree(tmp, ignore_errors=True)
        return 0
    print("stacks at 999 Hz for %gs, vigil attach and perf record "
          "--call-graph dwarf on the same target at once" % SECONDS)
    print("%-30s %-12s %8s %8s %7s %7s %10s" % (
        "target", "tool", "samples", "reach%", "junk%", "depth", "CPU%target"))
    tops = []
    for name, cmd, stdin in targets:
        p = subprocess.Popen(cmd, stdin=open(stdin, "rb") if stdin else
                             subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        time.sleep(0.5)
        vout, pout, tcpu, vcpu, rcpu, scpu = measure(
            cmd[0].split("/")[-1], p.pid, tmp)
        p.kill()
        p.wait()
        pst = perf_stacks(pout)      # reads the modules' names first
        vn, vr, vj, vd, vi = figures(vigil_stacks(vout),
                                     lambda f: f.startswith("0x"))
        pn, pr, pj, pd, pi = figures(pst, lambda f: f == JUNK)
        print("%-30s %-12s %8d %8.1f %7.1f %7.2f %10.2f" % (
            name, "vigil dwarf", vn, vr, vj, vd,
            100.0 * vcpu / max(tcpu, 0.001)))
        print("%-30s %-12s %8d %8.1f %7.1f %7.2f %10.2f" % (
            "", "perf dwarf", pn, pr, pj, pd,
            100.0 * (rcpu + scpu) / max(tcpu, 0.001)))
        print("%-30s %-12s (vigil %.2f s; perf record %.2f s + perf report "
              "%.2f s; target %.2f s of CPU)" % ("", "", vcpu, rcpu, scpu, tcpu))
        tops.append((name, vi, pi))
    print("top 10 named functions by inclusive share, vigil vs perf dwarf "
          "(same run; kernel frames as one [kernel]):")
    for name, vi, pi in tops:
        vt, pt = top10(vi), top10(pi)
        both = [f for f in vt if f in pt]
        diff = max([abs(vi[f] - pi[f]) for f in both] or [0.0])
        # Of 10, or of fewer when fewer functions have names (a stripped
        # program): the two lists are to be the same.
        want = max(len(vt), len(pt))
        print("  %-30s %2d of %d in common, largest difference %.1f points; "
              "target all within 2: %s" % (
                  name, len(both), want, diff,
                  "met" if len(both) == want and diff <= 2 else "NOT met"))
        for f in vt:
            print("      vigil %5.1f%%  perf %5.1f%%  %s" % (
                vi[f], pi.get(f, 0.0), f))
        for f in pt:
            if f not in vt:
                print("      vigil %5.1f%%  perf %5.1f%%  %s (perf's top 10)"
                      % (vi.get(f, 0.0), pi[f], f))
    sampler_cpu(tmp)
    slowdown(tmp)
    stack_copy_sweep(targets + [cc1_target(tmp)], tmp)
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
