#!/usr/bin/python3
"""vtest.py - end-to-end checks for vigil's lit tests.

Each subcommand runs real processes the way a harness does and exits 0 when
what it checks holds, or prints one line per problem and exits 1.  Profiles
are read with the real `vigil` command ($VIGIL, else build/vigil):

  check FILE [--state S] [--exit N] [--calls FN=N]... [--edge A B N]...
        [--absent FN]... [--site A B FILE:LINE]...
      `vigil report --json FILE` and `vigil show FILE`: the file is valid,
      in state S (finished | cut short | running), with exit status N, FN
      called exactly N times, edge A -> B taken exactly N times (and its
      call site symbolized as FILE:LINE).
  status EXPECT -- CMD...
      run CMD; its exit status must be EXPECT (a number, or a signal name
      such as SIGSEGV when it must die of that signal).
  killready -- CMD...
      start CMD, wait for a line "ready" on its stdout, SIGKILL it.
  harmless --inst BIN --plain BIN [--env K=V]... [--fsize BYTES] [-- ARGS]
      run both builds with ARGS: stdout and exit status byte-identical, the
      instrumented build's stderr exactly one line starting "vigil:".
  popen --runs N --slack S [--max-wall W] [--env K=V]... --profile P
        [--calls FN=N]... -- CMD...
      run CMD N times under subprocess.Popen(stdout=PIPE,
      stderr=PIPE).communicate(); each must return within S seconds of the
      program's exit (its last stdout line is "end NS", CLOCK_MONOTONIC),
      and the profile P read at once must be final and exact.
  merged-windows --inputs DIR --merged OUT.vgl
      the window snapshots vigil merge wrote next to OUT.vgl are slots of
      one length from the earliest start of DIR's windows, each holding
      exactly the calls of the input windows whose middle it holds.
  windows --profile P [--calls FN]... [--min N] [--cut]
      window snapshots NAME.wNNNNNN.vgl next to P add up to P's counts;
      with --cut, P was cut short, and the windows plus the calls that
      `vigil show` says are in no window add up to P's calls.
  wait-test --profile P [--mode exit|kill|zombie] -- CMD...
      `vigil wait P` blocks while CMD runs and returns promptly after it
      exits, is SIGKILLed, or has exited but is not reaped yet.
  handled --profile P --out OUT --func FN [--min N]
      a signal handler counted its own runs ("handled N" in OUT) and
      called FN each time: FN has exactly N calls, and none was lost.
  background [--ready LINE] [--env K=V]... -- CMD... -- CHECK...
      start CMD, wait for LINE on its stdout, run CHECK (exit 0) while
      it runs, close its stdin; it must then exit 0.
  race --runs N --profile P -- CMD...
      read P with `vigil show` over and over while CMD writes it and
      finishes: never "cut short", and "finished" at the end.
  nofork [--env K=V]... -- CMD...
      while CMD runs (after its "ready" line) it has no child process and
      at most one thread besides its own.
"""

import argparse
import glob
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
VIGIL = os.environ.get("VIGIL") or os.path.join(ROOT, "build", "vigil")

problems = []


def fail(msg):
    problems.append(msg)
    print("vtest: FAIL: " + msg, file=sys.stderr)


def no_core():
    """preexec_fn: crashing workloads leave no core file behind."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run_vigil(*args, timeout=30):
    return subprocess.run([VIGIL, *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=timeout)


# ---- reading `vigil report --json` ---------------------------------------

class Profile:
    """What the checks need from one `vigil report --json` document."""

    def __init__(self, path):
        self.path = path
        r = run_vigil("report", "--json", path)
        self.rc = r.returncode
        self.stderr = r.stderr
        self.raw = r.stdout
        self.doc = None
        if r.returncode != 0:
            return
        try:
            self.doc = json.loads(r.stdout)
        except ValueError as e:
            self.stderr += "\nbad JSON: %s" % e

    @property
    def ok(self):
        return self.doc is not None

    # One schema, docs/report-json.md: exactly these keys, no other
    # spelling accepted, so a schema change fails here.
    def state(self):
        return self.doc["state"]

    def exit_status(self):
        return self.doc["exit_status"]

    def functions(self):
        """{name: calls}, functions of the same name added up."""
        out = {}
        for f in self.doc["functions"]:
            out[f["name"]] = out.get(f["name"], 0) + f["calls"]
        return out

    def edges(self):
        """{(caller, callee): calls}, all call sites added up."""
        out = {}
        for e in self.doc["edges"]:
            key = (e["caller"], e["callee"])
            out[key] = out.get(key, 0) + e["calls"]
        return out

    def dump(self):
        return self.raw if len(self.raw) < 4000 else self.raw[:4000] + "..."


def parse_kv(items, sep="="):
    out = []
    for it in items or []:
        k, _, v = it.rpartition(sep)
        out.append((k, int(v)))
    return out


def check_profile(path, state=None, exit_status=None, calls=(), edges=(),
                  absent=(), sites=()):
    """Check one profile; return the Profile (or None) and record problems."""
    before = len(problems)
    if not os.path.exists(path):
        fail("%s: no such file" % path)
        return None
    s = run_vigil("show", path)
    if s.returncode != 0 or not re.search(r"(?m)^\s*valid:\s*yes", s.stdout):
        fail("%s: vigil show: rc %d, not valid: %s%s"
             % (path, s.returncode, s.stdout, s.stderr))
    p = Profile(path)
    if not p.ok:
        fail("%s: vigil report --json failed (rc %d): %s"
             % (path, p.rc, p.stderr.strip()))
        return None
    if state is not None and p.state() != state:
        fail("%s: state %r, want %r" % (path, p.state(), state))
    if exit_status is not None and p.exit_status() != exit_status:
        fail("%s: exit status %r, want %r"
             % (path, p.exit_status(), exit_status))
    fns = p.functions()
    for name, n in calls:
        if fns.get(name, 0) != n:
            fail("%s: %s called %d times, want %d"
                 % (path, name, fns.get(name, 0), n))
    eds = p.edges()
    for caller, callee, n in edges:
        n = int(n)
        got = eds.get((caller, callee), 0)
        if got != n:
            fail("%s: edge %s -> %s taken %d times, want %d"
                 % (path, caller, callee, got, n))
    for caller, callee, site in sites:
        got = sorted(str(e["site"]) for e in p.doc["edges"]
                     if e.get("caller") == caller and e.get("callee") == callee)
        if site not in got:
            fail("%s: edge %s -> %s has call sites %s, want %s"
                 % (path, caller, callee, got, site))
    for name in absent:
        if fns.get(name, 0) != 0:
            fail("%s: %s counted %d times, want none"
                 % (path, name, fns.get(name)))
    if len(problems) > before:
        print("vtest: report --json of %s:\n%s" % (path, p.dump()),
              file=sys.stderr)
    return p


# ---- subcommands ----------------------------------------------------------

def cmd_check(a):
    check_profile(a.file, a.state, a.exit, parse_kv(a.calls),
                  a.edge or (), a.absent or (), a.site or ())


def expect_status(rc, expect):
    if expect.startswith("SIG"):
        want = -int(getattr(signal, expect))
        return rc == want
    return rc == int(expect)


def describe(rc):
    if rc < 0:
        return "killed by %s" % signal.Signals(-rc).name
    return "exit %d" % rc


def cmd_status(a):
    r = subprocess.run(a.cmd, preexec_fn=no_core)
    if not expect_status(r.returncode, a.expect):
        fail("%s: %s, want %s" % (a.cmd[0], describe(r.returncode), a.expect))


def cmd_killready(a):
    p = subprocess.Popen(a.cmd, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if line.strip() != "ready":
        fail("%s: first line %r, want 'ready'" % (a.cmd[0], line))
    p.send_signal(signal.SIGKILL)
    p.stdout.close()
    rc = p.wait(timeout=30)
    if rc != -signal.SIGKILL:
        fail("%s: %s, want SIGKILL" % (a.cmd[0], describe(rc)))


def env_with(pairs):
    env = dict(os.environ)
    for kv in pairs or []:
        k, _, v = kv.partition("=")
        env[k] = v
    return env


def cmd_harmless(a):
    env = env_with(a.env)

    def limits():
        no_core()
        if a.fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (a.fsize, a.fsize))

    def go(binary, e):
        return subprocess.run([binary, *a.args], env=e, preexec_fn=limits,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=60)

    plain_env = {k: v for k, v in env.items() if not k.startswith("VIGIL_")}
    ref = go(a.plain, plain_env)
    got = go(a.inst, env)
    if got.stdout != ref.stdout:
        fail("stdout differs from the uninstrumented build's:\n"
             "--- plain\n%r\n--- instrumented\n%r" % (ref.stdout, got.stdout))
    if got.returncode != ref.returncode:
        fail("status %s, uninstrumented %s"
             % (describe(got.returncode), describe(ref.returncode)))
    lines = got.stderr.decode(errors="replace").splitlines()
    if len(lines) != 1 or not lines[0].startswith("vigil:"):
        fail("stderr must be one line starting 'vigil:', got %r" % lines)
    else:
        print(lines[0])
    if ref.stderr:
        fail("uninstrumented build wrote to stderr: %r" % ref.stderr)


def cmd_popen(a):
    env = env_with(a.env)
    calls = parse_kv(a.calls)
    for i in range(a.runs):
        if os.path.exists(a.profile):
            os.unlink(a.profile)
        t0 = time.monotonic()
        p = subprocess.Popen(a.cmd, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        try:
            out, err = p.communicate(timeout=a.hang)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            fail("run %d: communicate() still waiting after %.1f s (hang)"
                 % (i, a.hang))
            continue
        t1 = time.monotonic()
        m = re.search(rb"(?m)^end (\d+)$", out)
        if p.returncode != 0 or not m:
            fail("run %d: %s, stdout %r, stderr %r"
                 % (i, describe(p.returncode), out, err))
            continue
        end = int(m.group(1)) / 1e9
        lag = t1 - end
        if lag > a.slack:
            fail("run %d: communicate() returned %.3f s after the program's "
                 "last line (limit %.3f s)" % (i, lag, a.slack))
        if a.max_wall is not None and t1 - t0 > a.max_wall:
            fail("run %d: took %.3f s (limit %.3f s)"
                 % (i, t1 - t0, a.max_wall))
        if err:
            fail("run %d: stderr %r" % (i, err))
        check_profile(a.profile, "finished", 0, calls)
        if problems:
            break
        print("run %d: wall %.3f s, returned %.3f s after the last line"
              % (i, t1 - t0, lag))


def window_files(profile):
    base = profile[:-4] if profile.endswith(".vgl") else profile
    return sorted(glob.glob(glob.escape(base) + ".w[0-9][0-9][0-9][0-9][0-9][0-9].vgl"))


def cmd_windows(a):
    if a.cut:
        return windows_cut(a)
    total = check_profile(a.profile, "finished", 0)
    if total is None:
        return
    wins = window_files(a.profile)
    if len(wins) < a.min:
        fail("%d window files next to %s, want at least %d"
             % (len(wins), a.profile, a.min))
    sums = {}
    for w in wins:
        p = check_profile(w)
        if p is None:
            continue
        for name, n in p.functions().items():
            sums[name] = sums.get(name, 0) + n
        if a.verbose:
            print("%s: %s" % (os.path.basename(w),
                              {k: p.functions().get(k, 0) for k in a.calls}))
    tf = total.functions()
    names = a.calls or sorted(tf)
    for name in names:
        if sums.get(name, 0) != tf.get(name, 0):
            fail("windows add up to %d calls of %s, the profile has %d"
                 % (sums.get(name, 0), name, tf.get(name, 0)))
    print("%d windows add up to %s" % (len(wins),
                                        {k: sums.get(k, 0) for k in names}))


def window_meta(path):
    """(window_start_ns, window_end_ns, window_seq) from META, read raw."""
    import struct
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack_from("<I", data, 20)[0]
    for i in range(n):
        kind, _, off, _ = struct.unpack_from("<IIQQ", data, 32 + 24 * i)
        if kind == 1:
            return struct.unpack_from("<QQQ", data, off + 48)
    fail("%s: no META section" % path)
    return (0, 0, 0)


def cmd_merged_windows(a):
    """vigil merge's windows of --merged: slots of one length from the
    earliest input window's start, slot N numbered N, each holding exactly
    the calls of the input windows whose middle falls in it."""
    ins = sorted(glob.glob(os.path.join(a.inputs, "*.w[0-9]*.vgl")))
    outs = window_files(a.merged)
    if not ins or not outs:
        fail("%d input windows in %s, %d merged next to %s"
             % (len(ins), a.inputs, len(outs), a.merged))
        return
    t0 = min(window_meta(w)[0] for w in ins)
    slots = {}
    for w in outs:
        start, end, seq = window_meta(w)
        slots[seq] = (start, end, check_profile(w).doc["total_calls"])
    length = {e - s for s, e, _ in slots.values()}
    if len(length) != 1:
        fail("merged windows of different lengths: %s" % sorted(length))
        return
    step = length.pop()
    for seq, (start, end, _) in slots.items():
        if start != t0 + (seq - 1) * step:
            fail("merged window %d starts at %d, want %d"
                 % (seq, start, t0 + (seq - 1) * step))
    want = {}
    for w in ins:
        start, end, _ = window_meta(w)
        seq = (start - t0 + (end - start) // 2) // step + 1
        want[seq] = want.get(seq, 0) + check_profile(w).doc["total_calls"]
    got = {seq: c for seq, (_, _, c) in slots.items()}
    if got != want:
        fail("merged windows hold %s calls, their inputs %s" % (got, want))
    print("%d input windows in %d merged windows, each the sum of those "
          "whose middle it holds" % (len(ins), len(outs)))


def windows_cut(a):
    """A profile cut short after some windows: the windows and the calls
    `vigil show` says are in no window add up to the profile's calls."""
    total = check_profile(a.profile, "cut short")
    if total is None:
        return
    wins = window_files(a.profile)
    if len(wins) < a.min:
        fail("%d window files next to %s, want at least %d"
             % (len(wins), a.profile, a.min))
    windowed = 0
    for w in wins:
        p = check_profile(w)
        if p is not None:
            windowed += sum(p.functions().values())
    m = re.search(r"^calls in no window: (\d+) ",
                  run_vigil("show", a.profile).stdout, re.M)
    rest = int(m.group(1)) if m else 0
    whole = sum(total.functions().values())
    if not m or rest <= 0:
        fail("vigil show says no 'calls in no window: N' (N > 0)")
    if windowed + rest != whole:
        fail("windows hold %d calls and %d are in no window, the profile "
             "has %d" % (windowed, rest, whole))
    print("%d windows hold %d calls, %d in no window" % (len(wins),
                                                        windowed, rest))


def proc_state(pid):
    """The one-letter state of pid from /proc (Z for a zombie), or None."""
    try:
        with open("/proc/%d/stat" % pid) as fh:
            return fh.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def cmd_wait_test(a):
    """--mode exit: the program ends by itself and is reaped at once;
    kill: the test SIGKILLs it while vigil wait blocks; zombie: it ends by
    itself but is not reaped until vigil wait has returned."""
    if os.path.exists(a.profile):
        os.unlink(a.profile)
    prog = subprocess.Popen(a.cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    line = prog.stdout.readline()
    if line.strip() != "ready":
        fail("first line %r, want 'ready'" % line)
    s = run_vigil("show", a.profile)
    if not re.search(r"(?m)^\s*state:\s*running", s.stdout):
        fail("while the program runs, vigil show says: %s%s"
             % (s.stdout, s.stderr))
    w = subprocess.Popen([VIGIL, "wait", a.profile, "--timeout", "10s"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    time.sleep(0.3)
    if w.poll() is not None:
        fail("vigil wait returned (rc %d) while the program still runs: %s"
             % (w.returncode, w.stderr.read()))
    end = None
    if a.mode == "kill":
        prog.kill()
        end = time.monotonic()
        prog.communicate(timeout=30)
    elif a.mode == "zombie":
        # Read to EOF (the program has exited then) but do not reap it.
        out = prog.stdout.read()
        m = re.search(r"(?m)^end (\d+)$", out)
        end = int(m.group(1)) / 1e9 if m else None
    else:
        out, err = prog.communicate(timeout=30)
        m = re.search(r"(?m)^end (\d+)$", out)
        end = int(m.group(1)) / 1e9 if m else None
    try:
        wout, werr = w.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        w.kill()
        w.communicate()
        fail("vigil wait still blocked 5 s after the program ended (%s)"
             % a.mode)
        prog.wait()
        return
    t1 = time.monotonic()
    if a.mode == "zombie":
        st = proc_state(prog.pid)
        if st != "Z":
            fail("the program was not a zombie when vigil wait returned "
                 "(state %r)" % st)
        prog.wait()
    if w.returncode != 0:
        fail("vigil wait: rc %d: %s" % (w.returncode, werr))
    if end is None:
        fail("the program printed no 'end' line")
    else:
        lag = t1 - end
        if lag > 0.5:
            fail("vigil wait returned %.3f s after the program ended" % lag)
        print("%s: vigil wait returned %.3f s after the program ended"
              % (a.mode, lag))
    if a.mode == "kill":
        check_profile(a.profile, "cut short", None, ())
    else:
        check_profile(a.profile, "finished", 0, parse_kv(a.calls))


def cmd_nofork(a):
    env = env_with(a.env)
    p = subprocess.Popen(a.cmd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if line.strip() != "ready":
        fail("first line %r, want 'ready'" % line)
    time.sleep(0.2)
    children = []
    for task in glob.glob("/proc/%d/task/*/children" % p.pid):
        with open(task) as fh:
            children += fh.read().split()
    threads = len(os.listdir("/proc/%d/task" % p.pid))
    out, err = p.communicate(timeout=30)
    if children:
        fail("the profiled process has child processes %s" % children)
    if threads > 2:
        fail("the profiled process has %d threads, want at most 2" % threads)
    if p.returncode != 0 or err:
        fail("%s, stderr %r" % (describe(p.returncode), err))
    print("children: %d, threads: %d" % (len(children), threads))


def cmd_handled(a):
    """The handler's own count (a line "handled N" in OUT) equals the
    profile's calls of FN, and the runtime lost no call."""
    with open(a.out) as f:
        m = re.search(r"^handled (\d+)$", f.read(), re.M)
    if not m:
        fail("%s: no line 'handled N'" % a.out)
        return
    handled = int(m.group(1))
    p = Profile(a.profile)
    if not p.ok:
        fail("%s: %s" % (a.profile, p.stderr.strip()))
        return
    calls = p.functions().get(a.func, 0)
    lost = p.doc["lost_calls"]
    if handled < a.min:
        fail("the handler ran %d times, want at least %d" % (handled, a.min))
    if calls != handled or lost:
        fail("%s: %d calls and %d lost, the handler counted %d"
             % (a.func, calls, lost, handled))
    print("handled %d: %s %d, lost %d" % (handled, a.func, calls, lost))


def cmd_background(a):
    """Start CMD (stdin and stdout pipes), wait for its READY line, run
    CHECK with sh while it runs (CHECK must exit 0), then close CMD's stdin:
    it must exit 0."""
    try:
        i = a.cmd.index("--")
    except ValueError:
        fail("background: want -- CMD... -- CHECK...")
        return
    cmd, check = a.cmd[:i], a.cmd[i + 1:]
    p = subprocess.Popen(cmd, env=env_with(a.env), stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if line.strip() != a.ready:
        fail("first line %r, want %r" % (line, a.ready))
    r = subprocess.run(check, timeout=60)
    if r.returncode != 0:
        fail("%s while %s ran: %s" % (check, cmd[0], describe(r.returncode)))
    p.stdin.close()
    p.stdout.read()
    rc = p.wait(timeout=60)
    if rc != 0:
        fail("%s: %s" % (cmd[0], describe(rc)))


def cmd_race(a):
    """RUNS times: start CMD writing PROFILE and read the profile with
    `vigil show` over and over while it runs and finishes; no reading may
    call it cut short, and the last must say finished."""
    states = {}
    for _ in range(a.runs):
        try:
            os.unlink(a.profile)
        except FileNotFoundError:
            pass
        env = env_with(["VIGIL_FILE=" + a.profile])
        p = subprocess.Popen(a.cmd, env=env, stdout=subprocess.DEVNULL)
        last = None
        while True:
            done = p.poll() is not None
            r = run_vigil("show", a.profile)
            m = re.search(r"^state: (.*)$", r.stdout, re.M)
            if m:
                last = m.group(1)
                key = last.split(" (")[0]
                states[key] = states.get(key, 0) + 1
                if key == "cut short":
                    fail("a reading said 'cut short' for a program that "
                         "finishes cleanly")
            if done:
                break
        if p.returncode != 0:
            fail("%s: %s" % (a.cmd[0], describe(p.returncode)))
        if not last or not last.startswith("finished"):
            fail("last reading %r, want finished" % last)
        if problems:
            break
    print("states seen: %s" % states)


def main():
    ap = argparse.ArgumentParser(prog="vtest.py")
    sub = ap.add_subparsers(dest="cmd_name", required=True)

    c = sub.add_parser("check")
    c.add_argument("file")
    c.add_argument("--state")
    c.add_argument("--exit", type=int)
    c.add_argument("--calls", action="append")
    c.add_argument("--edge", action="append", nargs=3,
                   metavar=("CALLER", "CALLEE", "N"))
    c.add_argument("--absent", action="append")
    c.add_argument("--site", action="append", nargs=3,
                   metavar=("CALLER", "CALLEE", "FILE:LINE"))
    c.set_defaults(fn=cmd_check)

    c = sub.add_parser("status")
    c.add_argument("expect")
    c.add_argument("cmd", nargs=argparse.REMAINDER)
    c.set_defaults(fn=cmd_status)

    c = sub.add_parser("killready")
    c.add_argument("cmd", nargs=argparse.REMAINDER)
    c.set_defaults(fn=cmd_killready)

    c = sub.add_parser("harmless")
    c.add_argument("--inst", required=True)
    c.add_argument("--plain", required=True)
    c.add_argument("--env", action="append")
    c.add_argument("--fsize", type=int)
    c.add_argument("args", nargs=argparse.REMAINDER)
    c.set_defaults(fn=cmd_harmless)

    c = sub.add_parser("popen")
    c.add_argument("--runs", type=int, default=20)
    c.add_argument("--slack", type=float, default=0.5)
    c.add_argument("--hang", type=float, default=20.0)
    c.add_argument("--max-wall", type=float)
    c.add_argument("--env", action="append")
    c.add_argument("--profile", required=True)
    c.add_argument("--calls", action="append")
    c.add_argument("cmd", nargs=argparse.REMAINDER)
    c.set_defaults(fn=cmd_popen)

    c = sub.add_parser("windows")
    c.add_argument("--profile", required=True)
    c.add_argument("--calls", action="append", default=[])
    c.add_argument("--min", type=int, default=1)
    c.add_argument("--cut", action="store_true")
    c.add_argument("-v", "--verbose", action="store_true")
    c.set_defaults(fn=cmd_windows)

    c = sub.add_parser("merged-windows")
    c.add_argument("--inputs", required=True)
    c.add_argument("--merged", required=True)
    c.set_defaults(fn=cmd_merged_windows)

    c = sub.add_parser("wait-test")
    c.add_argument("--profile", required=True)
    c.add_argument("--mode", choices=("exit", "kill", "zombie"),
                   default="exit")
    c.add_argument("--calls", action="append")
    c.add_argument("cmd", nargs=argparse.REMAINDER)
    c.set_defaults(fn=cmd_wait_test)

    c = sub.add_parser("nofork")
    c.add_argument("--env", action="append")
    c.add_argument("cmd", nargs=argparse.REMAINDER)
    c.set_defaults(fn=cmd_nofork)

    c = sub.add_parser("handled")
    c.add_argument("--profile", required=True)
    c.add_argument("--out", required=True)
    c.add_argument("--func", required=True)
    c.add_argument("--min", type=int, default=1)
    c.set_defaults(fn=cmd_handled)

    c = sub.add_parser("background")
    c.add_argument("--ready", default="ready")
    c.add_argument("--env", action="append")
    c.add_argument("cmd", nargs=argparse.REMAINDER)
    c.set_defaults(fn=cmd_background)

    c = sub.add_parser("race")
    c.add_argument("--runs", type=int, default=100)
    c.add_argument("--profile", required=True)
    c.add_argument("cmd", nargs=argparse.REMAINDER)
    c.set_defaults(fn=cmd_race)

    a = ap.parse_args()
    for attr in ("cmd", "args"):
        v = getattr(a, attr, None)
        if v and v[0] == "--":
            setattr(a, attr, v[1:])
    a.fn(a)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
