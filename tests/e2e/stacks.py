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
                    last 1.5 s: at least 80% of what the target's CPU time
                    at 999 Hz gives; with -o the file holds as many as the
                    records; `vigil run --scan stacks` of a program killed
                    after 1.5 s writes them.
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
    if mine < 100:
        fail("%s: %d samples in the target's parent_spin, want >= 100"
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
        expect = 0.8 * 999 * (c1 - c0)
        if got < expect or got < 100:
            fail("%s: %d stack samples, want >= %.0f (80%% of %.2f CPU s at "
                 "999 Hz) and >= 100" % (what, got, expect, c1 - c0))
        in_file = file_stack_samples(vgl)
        if in_file != got:
            fail("%s: %s has %s stack samples, the records %d"
                 % (what, vgl, in_file, got))
        tg.kill()
    # vigil run of a program killed mid-run.
    what = "every-end/run-killed"
    d = os.path.join(outdir, "run")
    p = subprocess.run([attach.VIGIL, "run", "-o", d, "--scan", "stacks",
                        "--frequency", "999", "--interval", "10s", "--",
                        "/bin/sh", "-c", "exec timeout -s KILL 1.5 %s tree"
                        % target], capture_output=True, text=True)
    sd = os.path.join(d, "samples")
    files = sorted(os.listdir(sd)) if os.path.isdir(sd) else []
    mine = [f for f in files if f.startswith(os.path.basename(target) + ".")]
    if len(mine) != 1:
        fail("%s: sampled files %s (exit %d, %s)"
             % (what, files, p.returncode, p.stderr.strip()))
    else:
        n = file_stack_samples(os.path.join(sd, mine[0]))
        if n is None or n < 100:
            fail("%s: %s stack samples in %s, want >= 100" % (what, n, mine[0]))


def main():
    cmds = {"only-target": cmd_only_target, "every-end": cmd_every_end}
    if len(sys.argv) < 3 or sys.argv[1] not in cmds:
        print("usage: stacks.py {%s} ARGS..." % "|".join(cmds),
              file=sys.stderr)
        return 2
    cmds[sys.argv[1]](*sys.argv[2:])
    return 1 if attach.problems else 0


if __name__ == "__main__":
    sys.exit(main())
