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
"""

import os
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
    if tids != [tg.p.pid]:
        fail("%s: stacks of threads %s, want only the target's %d (child %d)"
             % (what, tids, tg.p.pid, child))
    in_child = sum(s["count"] for s in stacks if "child_spin" in s["frames"])
    if in_child:
        fail("%s: %d samples in the child's child_spin" % (what, in_child))
    mine = sum(s["count"] for s in stacks if "parent_spin" in s["frames"])
    if mine < 100:
        fail("%s: %d samples in the target's parent_spin, want >= 100"
             % (what, mine))
    tg.p.stdin.close()
    tg.p.wait()


def main():
    cmds = {"only-target": cmd_only_target}
    if len(sys.argv) < 3 or sys.argv[1] not in cmds:
        print("usage: stacks.py {%s} ARGS..." % "|".join(cmds),
              file=sys.stderr)
        return 2
    cmds[sys.argv[1]](*sys.argv[2:])
    return 1 if attach.problems else 0


if __name__ == "__main__":
    sys.exit(main())
