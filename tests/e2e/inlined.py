#!/usr/bin/python3
"""inlined.py SOURCE DIR - inlined frames in sampled stacks, as perf shows
them (issue 16 point 2).

SOURCE (tests/lit/Inputs/inline_target.c) is built with -O2 -g and no
frame pointers and run for 1 s of CPU under `vigil run --scan stacks` at
999 Hz.  Its time is spent in burn_inner, forced inline into burn_outer,
itself forced inline into host_fn.  Checks, exiting 0 when all hold (else
one line per problem and exit 1):

- in the folded stacks, of the samples whose innermost out-of-line
  function is host_fn (at least 300), >= 99% end
  "host_fn;burn_outer (inlined);burn_inner (inlined)", and no stack has
  an inlined frame anywhere but right under its host or another inlined
  frame of it;
- pprof (decoded by the pprof-format package) has exactly the folded
  stacks; report --json names "burn_inner (inlined)" with the folded
  stacks' self and total samples, and "burn_outer (inlined)" with their
  total; the flame graph and the callgrind file name both frames so;
- live, `vigil attach` of the program names the frames alike: of the
  stacks whose innermost out-of-line frame is host_fn (at least 300
  samples), >= 99% begin "burn_inner (inlined)", "burn_outer (inlined)",
  "host_fn" (innermost first), and each sample's `top` gives
  "burn_inner (inlined)" the self samples of those stacks.
"""

import glob
import json
import os
import subprocess
import sys

VIGIL = os.environ["VIGIL"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
problems = []
HOST = "host_fn"
OUTER = "burn_outer (inlined)"
INNER = "burn_inner (inlined)"


def fail(msg):
    problems.append(msg)
    print("inlined: " + msg)


def run(*args):
    return subprocess.run(args, check=True, capture_output=True,
                          text=True).stdout


def main():
    source, d = sys.argv[1], sys.argv[2]
    prog = os.path.join(d, "inline")
    run("gcc", "-O2", "-g", "-fomit-frame-pointer", source, "-o", prog)
    run(VIGIL, "run", "-o", os.path.join(d, "run"), "--scan", "stacks",
        "--frequency", "999", "--", prog, "1")
    files = glob.glob(os.path.join(d, "run", "samples", "inline.*.vgl"))
    if len(files) != 1:
        fail("want one sampled profile, have %s" % files)
        return 1
    vgl = files[0]
    folded = {}
    for line in run(VIGIL, "convert", vgl, "--to", "folded").splitlines():
        stack, n = line.rsplit(" ", 1)
        folded[stack] = folded.get(stack, 0) + int(n)

    hosted = good = 0
    for stack, n in folded.items():
        f = stack.split(";")
        for i, name in enumerate(f):
            # Under a function: the workload's host, or any named one
            # (the loader's own inlined frames, seen with kernel time), or
            # another inlined frame; never a module, [kernel] or address.
            if name.endswith(" (inlined)") and \
                    (i == 0 or f[i - 1].startswith(("[", "0x")) or
                     (name in (OUTER, INNER) and
                      f[i - 1] not in (HOST, OUTER))):
                fail("%r: an inlined frame under no host" % stack)
        # Innermost out-of-line frame.
        out_of_line = [x for x in f if not x.endswith(" (inlined)")]
        if out_of_line and out_of_line[-1] == HOST:
            hosted += n
            if f[-3:] == [HOST, OUTER, INNER]:
                good += n
    if hosted < 300:
        fail("%d samples with host_fn innermost, want >= 300" % hosted)
    elif good < 0.99 * hosted:
        fail("%d of %d samples (%.1f%%) end %s;%s;%s, want >= 99%%: %s"
             % (good, hosted, 100.0 * good / hosted, HOST, OUTER, INNER,
                folded))
    print("inlined: %d of %d host_fn samples (%.2f%%) end in %s"
          % (good, hosted, 100.0 * good / max(hosted, 1), INNER))

    # Every output names the frames alike.
    pb = os.path.join(d, "s.pb.gz")
    run(VIGIL, "convert", vgl, "--to", "pprof", "-o", pb)
    pp = json.loads(run("node", os.path.join(ROOT, "tests", "e2e",
                                             "pprof_decode.js"), pb))
    if pp["stacks"] != folded:
        fail("pprof stacks differ from the folded ones:\n%s\n%s"
             % (pp["stacks"], folded))
    rep = json.loads(run(VIGIL, "report", "--json", vgl))
    funcs = {f["name"]: f for f in rep["sampled"]["functions"]}
    want = {
        INNER: (sum(n for s, n in folded.items() if s.endswith(";" + INNER)),
                sum(n for s, n in folded.items() if INNER in s.split(";"))),
        OUTER: (sum(n for s, n in folded.items() if s.endswith(";" + OUTER)),
                sum(n for s, n in folded.items() if OUTER in s.split(";"))),
    }
    for name, (self_n, total_n) in want.items():
        f = funcs.get(name)
        got = (f["self_samples"], f["total_samples"]) if f else None
        if got != (self_n, total_n):
            fail("report --json: %r self/total %s, want %s"
                 % (name, got, (self_n, total_n)))
    svg = run(VIGIL, "flame", vgl)
    grind = run(VIGIL, "convert", vgl, "--to", "callgrind")
    for name in (OUTER, INNER):
        if "<title>%s " % name not in svg:
            fail("flame: no frame titled %r" % name)
        if not any(line.endswith(" " + name) or line.endswith("=" + name)
                   for line in grind.splitlines()
                   if line.startswith(("fn=", "cfn="))):
            fail("callgrind: no fn= or cfn= line naming %r" % name)
    live(prog)
    return 1 if problems else 0


def live(prog):
    """The same frames in vigil attach's records, as they are sampled."""
    target = subprocess.Popen([prog, "1.5"])
    out = subprocess.run([VIGIL, "attach", "-p", str(target.pid), "--scan",
                          "stacks", "--frequency", "999", "--interval",
                          "250ms"], check=True, capture_output=True,
                         stdin=subprocess.DEVNULL, text=True).stdout
    target.wait()
    hosted = good = 0
    bad = {}
    for line in out.splitlines():
        rec = json.loads(line)
        if rec["type"] != "sample":
            continue
        inner_self = 0
        for st in rec["stacks"]:
            f = st["frames"]
            out_of_line = [x for x in f if not x.endswith(" (inlined)")]
            if out_of_line and out_of_line[0] == HOST:
                hosted += st["count"]
                if f[:3] == [INNER, OUTER, HOST]:
                    good += st["count"]
                else:
                    k = ";".join(f)
                    bad[k] = bad.get(k, 0) + st["count"]
            if f and f[0] == INNER:
                inner_self += st["count"]
        top = {t["function"]: t["self"] for t in rec["top"]}
        if inner_self and top.get(INNER) != inner_self:
            fail("attach: sample %d: top gives %r self %s, its stacks %d"
                 % (rec["seq"], INNER, top.get(INNER), inner_self))
    if hosted < 300:
        fail("attach: %d samples with host_fn innermost, want >= 300:\n%s"
             % (hosted, out[-3000:]))
    elif good < 0.99 * hosted:
        fail("attach: %d of %d samples (%.1f%%) begin %s, %s, %s, want "
             ">= 99%%; the others: %s" % (good, hosted, 100.0 * good / hosted,
                                         INNER, OUTER, HOST, bad))
    print("inlined: attach: %d of %d host_fn samples (%.2f%%) begin with %s"
          % (good, hosted, 100.0 * good / max(hosted, 1), INNER))


if __name__ == "__main__":
    sys.exit(main())
