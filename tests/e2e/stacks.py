#!/usr/bin/python3
"""stacks.py - checks of the sampler's stacks (issue 16) for the lit tests.

Each subcommand starts a target (tests/lit/Inputs/stacks_target.c, built
by the test with -O2 -fomit-frame-pointer) or a Debian binary, runs `vigil
attach` on it (with the helpers of attach.py), and exits 0 when what it
checks holds, else prints one line per problem and exits 1.

  only-target TARGET  the target forks (after the attach) a child that
                    spins; the target spins too.  Every stack sample is of the target's
                    own thread, none is in the child's child_spin, and
                    the target's parent_spin is sampled.
  every-end TARGET DIR  no stack sample thrown away: at a 10 s interval
                    (so the only periodic sample is the first), a run
                    ended by "stop", the end of stdin, SIGINT, --duration
                    or the target's exit still reports the stacks of its
                    last 1.5 s: at least 60% of what the target's CPU time
                    at 999 Hz gives, less 20 (ticks of 10 ms); with -o the file holds as many as the
                    records; `vigil run --scan stacks` of a program killed
                    after 1.5 s writes them (at least 10).
  dwarf TARGET      the 4-level tree built without frame pointers: with
                    the default unwinding (and --unwind dwarf), >= 99% of
                    the samples carry the whole chain down to main and
                    _start, none truncated; --unwind fp says "fp".
  debian            Debian's /usr/bin/python3 running a recursive
                    function and /usr/bin/xz -9 compressing: >= 99% of
                    the samples reach _start through the expected named
                    functions, and no frame is an address outside every
                    module.
  short DIR         `vigil run --scan stacks` of Debian's python3 for
                    ~0.4 s of CPU, five times: it ends before the first
                    interval, and its time is spent in modules it loads
                    after the sampler has read its mappings (_json,
                    _hashlib, libcrypto).  Each run holds at least 60% of
                    what its CPU time at 99 Hz gives, less 3, and its
                    folded stacks add up to that; >= 90% of them reach
                    _start through Py_BytesMain, and no frame is an
                    address outside every module.
  names SOURCE DIR  names without symbols: Debian's xz (stripped; its
                    liblzma too) sampled live and into -o: every frame of
                    liblzma without a symbol is named after the FDE
                    (.eh_frame) of its function, module+0xSTART, never an
                    address inside one; the file holds each module's
                    build-id; SOURCE (stacks_target.c) rebuilt after its
                    samples were taken is not named from the new file (a
                    warning).
"""

import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attach  # noqa: E402
from attach import Attach, Target, fail, now  # noqa: E402


def samples_of(a):
    return [r for r in a.rec.all if r["type"] == "sample"]


def stacks_of(a):
    return [s for r in samples_of(a) for s in r.get("stacks", [])]


def cmd_only_target(target):
    what = "only-target"
    tg = Target(target, "fork")
    tg.expect("ready")
    a = Attach(tg.p.pid, "--interval", "250ms", "--scan", "stacks",
               "--frequency", "999")
    a.next()
    tg.send("fork")
    _, line = tg.expect("child")
    child = int(line.split()[1]) if line else 0
    time.sleep(1.5)
    a.send("stop")
    a.exit_within(now(), 1.0, what)
    stacks = stacks_of(a)
    tids = sorted({s["tid"] for s in stacks})
    mine = sorted(int(t) for t in os.listdir("/proc/%d/task" % tg.p.pid))
    if not tids or set(tids) - set(mine):
        fail("%s: stacks of threads %s, want only the target's %s (child %d)"
             % (what, tids, mine, child))
    in_child = sum(s["count"] for s in stacks if "child_spin" in s["frames"])
    if in_child:
        fail("%s: %d samples in the child's child_spin" % (what, in_child))
    mine = sum(s["count"] for s in stacks if "parent_spin" in s["frames"])
    if mine < 20:
        fail("%s: %d samples in the target's parent_spin, want >= 20"
             % (what, mine))
    tg.p.stdin.close()
    tg.p.wait()


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def file_stack_samples(path):
    out = subprocess.run([attach.VIGIL, "report", "--json", path],
                         capture_output=True, text=True)
    if out.returncode:
        fail("vigil report --json %s: exit %d: %s"
             % (path, out.returncode, out.stderr.strip()))
        return None
    return json.loads(out.stdout)["sampled"]["stack_samples"]


def cmd_every_end(target, outdir):
    for how in ("stop", "eof", "sigint", "duration", "exit"):
        what = "every-end/" + how
        vgl = os.path.join(outdir, how + ".vgl")
        if how == "exit":
            tg = Target(target, "brief", "1500")
        else:
            tg = Target(target, "tree")
        tg.expect("ready")
        c0 = cpu_s(tg.p.pid)
        args = ["--interval", "10s", "--scan", "stacks", "--frequency",
                "999", "-o", vgl]
        if how == "duration":
            args += ["--duration", "1500ms"]
        a = Attach(tg.p.pid, *args)
        a.next()
        if how in ("stop", "eof", "sigint"):
            time.sleep(1.5)
            c1 = cpu_s(tg.p.pid)
            if how == "stop":
                a.send("stop")
            elif how == "eof":
                a.p.stdin.close()
            else:
                a.p.send_signal(signal.SIGINT)
        elif how == "duration":
            time.sleep(1.2)
            c1 = cpu_s(tg.p.pid)
        else:
            c1 = None
        t0 = now()
        end = a.exit_within(t0, 3.0, what)
        if how == "duration":
            c1 = cpu_s(tg.p.pid)
        if how == "exit":
            # Its CPU time, as it printed it on its way out.
            _, line = tg.expect("cpu_ms")
            c1 = c0 + (int(line.split()[1]) / 1000.0 if line else 0)
        want = {"stop": "stop", "eof": "eof", "sigint": "signal",
                "duration": "duration", "exit": "exited"}[how]
        if end and end.get("reason") != want:
            fail("%s: end reason %s, want %s" % (what, end.get("reason"), want))
        got = sum(r["stack_samples"] for r in samples_of(a))
        # The CPU time is read in 10 ms ticks, from before the attach
        # to after its end, on a machine that may be loaded.
        expect = 0.6 * 999 * (c1 - c0) - 20
        if got < expect or got < 20:
            fail("%s: %d stack samples, want >= %.0f (60%% of %.2f CPU s at "
                 "999 Hz, less 20) and >= 20" % (what, got, expect, c1 - c0))
        in_file = file_stack_samples(vgl)
        if in_file != got:
            fail("%s: %s has %s stack samples, the records %d"
                 % (what, vgl, in_file, got))
        tg.kill()
    # vigil run of a program killed mid-run: SIGKILLed once it has had
    # 0.5 s of CPU time (a wall-time `timeout -s KILL 1.5` left it 4
    # samples at load 15), 60 s at most.
    what = "every-end/run-killed"
    d = os.path.join(outdir, "run")
    p = subprocess.Popen([attach.VIGIL, "run", "-o", d, "--scan", "stacks",
                          "--frequency", "999", "--interval", "10s", "--",
                          "/bin/sh", "-c", "%s tree & echo pid $!; wait $!"
                          % target], stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    pid = None
    for line in p.stdout:
        if line.startswith("pid "):
            pid = int(line.split()[1])
            break
    t0 = now()
    while pid and now() - t0 < 60:
        try:
            if cpu_s(pid) >= 0.5:
                break
        except OSError:
            break
        time.sleep(0.05)
    if pid:
        os.kill(pid, signal.SIGKILL)
    _, err = p.communicate(timeout=120)
    sd = os.path.join(d, "samples")
    files = sorted(os.listdir(sd)) if os.path.isdir(sd) else []
    mine = [f for f in files if f.startswith(os.path.basename(target) + ".")]
    if len(mine) != 1:
        fail("%s: sampled files %s (exit %d, %s)"
             % (what, files, p.returncode, err.strip()))
    else:
        n = file_stack_samples(os.path.join(sd, mine[0]))
        # Its CPU time is unknown (killed): any is what was lost before.
        if n is None or n < 10:
            fail("%s: %s stack samples in %s, want >= 10" % (what, n, mine[0]))


def sample_run(pid, seconds, *args):
    """Stacks of pid for `seconds` at 999 Hz; the sample records."""
    a = Attach(pid, "--interval", "500ms", "--scan", "stacks", "--frequency",
               "999", *args)
    a.next()
    t0 = now()
    time.sleep(seconds)
    # The event is the target's CPU clock: on a loaded machine it has
    # less CPU time, so fewer samples a second (23 in 2 s at load 45).
    # Go on, 60 s at most, until there are the 30 that share() wants.
    while (sum(r["stack_samples"] for r in samples_of(a)) < 30
           and now() - t0 < 60):
        a.rec.next("sample", timeout=1.0)
    a.send("stop")
    a.exit_within(now(), 2.0, "sampling %d %s" % (pid, args))
    return samples_of(a)


def chains(samples):
    return [(s, s["count"]) for r in samples for s in r["stacks"]]


def share(what, samples, ok, label, need=0.99, at_least=30):
    """Fails unless ok(stack) holds for `need` of the samples."""
    cs = chains(samples)
    n = sum(c for _, c in cs)
    good = sum(c for s, c in cs if ok(s))
    if n < at_least:
        fail("%s: %d stack samples, want >= %d" % (what, n, at_least))
    elif good < need * n:
        bad = sorted(((c, s["frames"]) for s, c in cs if not ok(s)),
                     key=lambda x: -x[0])[:3]
        fail("%s: %d of %d samples (%.1f%%) %s, want >= %.0f%%; others: %s"
             % (what, good, n, 100.0 * good / n, label, need * 100, bad))


def unwinds(samples):
    return sorted({r.get("unwind") for r in samples})


TREE = ["level1", "main", "__libc_start_call_main"]


def tree_ok(s):
    f = s["frames"]
    if s.get("truncated", False) or not f or f[-1] != "_start":
        return False
    # Whatever the leaf, its callers down to main in order.
    for lvl in ("level4", "level3", "level2"):
        if lvl in f:
            i = f.index(lvl)
            want = ["level%d" % k for k in range(int(lvl[-1]) - 1, 0, -1)]
            return f[i + 1:i + 1 + len(want)] == want and \
                f[i + 1 + len(want):i + 3 + len(want)] == TREE[1:]
    return "level1" in f and f[f.index("level1") + 1:][:2] == TREE[1:]


def cmd_dwarf(target):
    tg = Target(target, "tree")
    tg.expect("ready")
    for args in ((), ("--unwind", "dwarf")):
        what = "dwarf %s" % " ".join(args or ("(default)",))
        smp = sample_run(tg.p.pid, 1.5, *args)
        if unwinds(smp) != ["dwarf"]:
            fail("%s: unwind %s, want dwarf" % (what, unwinds(smp)))
        share(what, smp, tree_ok, "reach main through every level")
    smp = sample_run(tg.p.pid, 0.5, "--unwind", "fp")
    if unwinds(smp) != ["fp"]:
        fail("--unwind fp: unwind %s" % unwinds(smp))
    tg.kill()


def cmd_debian():
    import tempfile
    d = tempfile.mkdtemp()
    script = os.path.join(d, "rec.py")
    with open(script, "w") as f:
        f.write("def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
                "print('ready', flush=True)\n"
                "while True:\n    fib(20)\n")
    py = subprocess.Popen(["/usr/bin/python3", script],
                          stdout=subprocess.PIPE, text=True)
    py.stdout.readline()
    smp = sample_run(py.pid, 2.0)
    py.kill()
    py.wait()

    def py_ok(s):
        f = s["frames"]
        return (not s.get("truncated", False) and len(f) > 3 and
                f[-3] == "__libc_start_call_main" and "Py_BytesMain" in f and
                "_PyEval_EvalFrameDefault" in f)
    share("python3", smp, py_ok,
          "reach the entry point (_start: __libc_start_call_main, "
          "__libc_start_main, it) through _PyEval_EvalFrameDefault and "
          "Py_BytesMain")
    share("python3", smp, lambda s: not any(x.startswith("0x")
                                            for x in s["frames"]),
          "with every frame in a module", need=1.0)

    xz = subprocess.Popen(["/usr/bin/xz", "-9", "-c"],
                          stdin=open("/dev/urandom", "rb"),
                          stdout=subprocess.DEVNULL)
    time.sleep(0.3)
    smp = sample_run(xz.pid, 2.0)
    xz.kill()
    xz.wait()

    # xz's own loop reads its input (io_read -> read(2), not under
    # liblzma): under load those samples were 1.0% of them, enough to
    # fail a share of lzma_code alone.  Either way the stack must reach
    # the entry point.
    def xz_ok(s):
        f = s["frames"]
        return (not s.get("truncated", False) and len(f) > 3 and
                f[-3] == "__libc_start_call_main" and
                ("lzma_code" in f or "__read" in f))
    share("xz", smp, xz_ok, "reach the entry point through lzma_code "
          "or read(2)")
    share("xz", smp, lambda s: not any(x.startswith("0x")
                                       for x in s["frames"]),
          "with every frame in a module", need=1.0)


SHORT_PY = """import hashlib, json, time
def work(n):
    s = 0
    for i in range(n):
        s += len(json.dumps({"a": i, "b": [i] * 5}))
        hashlib.sha256(str(i).encode()).hexdigest()
    return s
t = time.process_time()
while time.process_time() - t < 0.4:
    work(2000)
print("cpu", time.process_time())
"""


def cmd_short(outdir):
    script = os.path.join(outdir, "short.py")
    with open(script, "w") as f:
        f.write(SHORT_PY)
    for i in range(5):
        what = "short/%d" % i
        d = os.path.join(outdir, "r%d" % i)
        p = subprocess.run([attach.VIGIL, "run", "-o", d, "--scan", "stacks",
                            "--", "/usr/bin/python3", script],
                           stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=120)
        if p.returncode or not p.stdout.startswith("cpu "):
            fail("%s: exit %d: %s" % (what, p.returncode, p.stderr.strip()))
            continue
        cpu = float(p.stdout.split()[1])
        vgl = os.path.join(d, "python3.11.sampled.vgl")
        got = file_stack_samples(vgl)
        # The CPU time counts from the process's start, before the
        # sampler found it (every 20 ms): 60% of it, less 3 ticks.
        expect = 0.6 * 99 * cpu - 3
        if got is None or got < expect:
            fail("%s: %s stack samples, want >= %.0f (60%% of %.2f CPU s "
                 "at 99 Hz, less 3)" % (what, got, expect, cpu))
            continue
        out = subprocess.run([attach.VIGIL, "convert", vgl, "--to",
                              "folded", "-o", "-"], capture_output=True,
                             text=True)
        stacks = []
        for line in out.stdout.splitlines():
            frames, n = line.rsplit(" ", 1)
            stacks.append(({"frames": frames.split(";")[::-1]}, int(n)))
        if out.returncode or sum(n for _, n in stacks) != got:
            fail("%s: folded stacks add up to %d, the file says %d (%s)"
                 % (what, sum(n for _, n in stacks), got, out.stderr.strip()))
            continue
        rec = [{"stacks": [dict(st, count=n) for st, n in stacks]}]
        share(what, rec, lambda st: st["frames"][-1] == "_start" and
              "Py_BytesMain" in st["frames"],
              "reach _start through Py_BytesMain", need=0.9, at_least=1)
        share(what, rec, lambda st: not any(x.startswith("0x")
                                            for x in st["frames"]),
              "with every frame in a module", need=1.0, at_least=1)


LZMA = "/usr/lib/x86_64-linux-gnu/liblzma.so.5.4.1"


def fde_starts(path):
    out = subprocess.run(["readelf", "--debug-dump=frames", path],
                         capture_output=True, text=True).stdout
    return {int(w[3:].split("..")[0], 16) for line in out.splitlines()
            for w in line.split() if w.startswith("pc=")}


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        if "Build ID:" in line:
            return line.split("Build ID:")[1].strip()
    return None


def check_fde_names(what, names):
    starts = fde_starts(LZMA)
    base = os.path.basename(LZMA) + "+0x"
    lz = [n for n in names if n.startswith(base)]
    bad = [n for n in lz if int(n[len(base):], 16) not in starts]
    if not lz:
        fail("%s: no unnamed liblzma function sampled: %s" % (what, names[:10]))
    if bad:
        fail("%s: %d of %d liblzma names are not the start of a function "
             "(FDE): %s" % (what, len(bad), len(lz), bad[:5]))


def cmd_names(source, outdir):
    what = "names"
    vgl = os.path.join(outdir, "xz.vgl")
    xz = subprocess.Popen(["/usr/bin/xz", "-9", "-c"],
                          stdin=open("/dev/urandom", "rb"),
                          stdout=subprocess.DEVNULL)
    time.sleep(0.3)
    smp = sample_run(xz.pid, 1.5, "-o", vgl)
    xz.kill()
    xz.wait()
    names = sorted({f for s, _ in chains(smp) for f in s["frames"]})
    check_fde_names(what + " live", names)
    out = subprocess.run([attach.VIGIL, "report", "--json", vgl],
                         capture_output=True, text=True)
    rep = json.loads(out.stdout) if out.returncode == 0 else {}
    check_fde_names(what + " file",
                    [f["name"] for f in rep.get("sampled", {})
                     .get("functions", [])])
    mods = {m["path"]: m["build_id"] for m in rep.get("modules", [])}
    for path in ("/usr/bin/xz", LZMA):
        if mods.get(path) != build_id(path):
            fail("%s: %s build-id %r in the file, %r on disk"
                 % (what, path, mods.get(path), build_id(path)))

    # Rebuilt after the run: its new symbols must not name old samples.
    what = "names/rebuilt"
    prog = os.path.join(outdir, "prog")
    src = source
    subprocess.run(["gcc", "-g", "-O2", "-fomit-frame-pointer", "-pthread",
                    src, "-o", prog], check=True)
    tg = Target(prog, "tree")
    tg.expect("ready")
    vgl = os.path.join(outdir, "tree.vgl")
    sample_run(tg.p.pid, 1.0, "-o", vgl)
    tg.kill()
    subprocess.run(["gcc", "-g", "-O2", "-fomit-frame-pointer", "-pthread",
                    "-DREBUILT", src, "-o", prog], check=True)
    out = subprocess.run([attach.VIGIL, "report", vgl], capture_output=True,
                         text=True)
    want = "vigil: warning: %s: build-id differs from the profiled binary's; its " \
           "addresses are shown as offsets" % prog
    if want not in out.stderr.splitlines():
        fail("%s: stderr %r, want the line %r" % (what, out.stderr, want))
    if "level4" in out.stdout:
        fail("%s: the rebuilt binary's names in the report:\n%s"
             % (what, out.stdout))


def main():
    cmds = {"only-target": cmd_only_target, "every-end": cmd_every_end,
            "dwarf": cmd_dwarf, "debian": cmd_debian, "names": cmd_names,
            "short": cmd_short}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        print("usage: stacks.py {%s} ARGS..." % "|".join(cmds),
              file=sys.stderr)
        return 2
    cmds[sys.argv[1]](*sys.argv[2:])
    return 1 if attach.problems else 0


if __name__ == "__main__":
    sys.exit(main())
