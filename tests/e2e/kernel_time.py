#!/usr/bin/python3
"""kernel_time.py - kernel time charged to its user caller (issue 16,
point 3), for tests/lit/attach/stacks-kernel.test.

  kernel_time.py TARGET DIR

TARGET (tests/lit/Inputs/kernel_target.c) alternates a loop in user space
(do_spin) with reads of /dev/zero (do_reads: the kernel clears the
buffer) and prints the CPU time of each at the end.  Run under `vigil run
--scan stacks` at 999 Hz:

  - as it is (root, or kernel.perf_event_paranoid <= 1): nothing on
    stderr; the samples whose chain goes through main -> do_reads and end
    in a [kernel] frame are the share of its CPU time spent in do_reads,
    reads / (spin + reads), within 10 points, and at least half of it; [kernel] is
    the leaf in the folded stacks, the report (text and JSON), the flame
    graph, and in `vigil attach`'s live stacks;
  - with every capability dropped (setpriv), where the system does not
    allow a plain process to sample kernel time (perf_event_paranoid > 1):
    exactly one line on stderr saying so, and no [kernel] frame; where it
    does, the same as above.

Exits 0 when all holds, else prints one line per problem and exits 1.
"""

import glob
import json
import os
import subprocess
import sys

VIGIL = os.environ.get("VIGIL", "vigil")
problems = 0
KERNEL = "[kernel]"


def fail(msg):
    global problems
    problems += 1
    print("kernel_time: " + msg)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def sampled_run(target, outdir, rounds, prefix=()):
    p = run(list(prefix) + [VIGIL, "run", "--scan", "stacks", "--frequency",
                            "999", "-o", outdir, "--", target, rounds])
    if p.returncode:
        fail("vigil run: exit %d: %s" % (p.returncode, p.stderr.strip()))
    # Its own summary lines aside.
    p.stderr = [x for x in p.stderr.splitlines()
                if not x.startswith("vigil run: ")]
    words = p.stdout.split()
    try:
        ut, st = int(words[1]), int(words[3])
    except (IndexError, ValueError):
        fail("target printed %r" % p.stdout)
        ut, st = 1, 0
    files = glob.glob(os.path.join(outdir, "samples", "*.vgl"))
    if len(files) != 1:
        fail("%s: sampled files %s" % (outdir, files))
        return p, None, ut, st
    return p, files[0], ut, st


def folded(path):
    out = run([VIGIL, "convert", "--to", "folded", path])
    if out.returncode:
        fail("convert --to folded %s: %s" % (path, out.stderr.strip()))
    rows = []
    for line in out.stdout.splitlines():
        chain, n = line.rsplit(" ", 1)
        rows.append((chain.split(";"), int(n)))
    return rows


def reads_in_kernel(rows):
    """Samples under main -> do_reads that end in the kernel, and all."""
    total = sum(n for _, n in rows)
    k = sum(n for f, n in rows
            if f[-1] == KERNEL and "do_reads" in f and
            f[f.index("do_reads") - 1] == "main")
    return k, total


def check_allowed(what, path, ut, st, stderr, least=300):
    if stderr:
        fail("%s: stderr %r, want nothing" % (what, stderr))
    rows = folded(path)
    k, total = reads_in_kernel(rows)
    want = st / float(ut + st)     # do_reads' share of the CPU time
    got = k / float(total) if total else 0.0
    print("%s: [kernel] under do_reads %d of %d samples (%.1f%%), "
          "do_reads' CPU share %.1f%%" % (what, k, total, 100 * got, 100 * want))
    if total < least:
        fail("%s: %d stack samples, want >= %d" % (what, total, least))
    if abs(got - want) > 0.10 or got < want / 2:
        fail("%s: [kernel] under main -> do_reads in %.1f%% of the samples, "
             "do_reads is %.1f%% of its CPU time"
             % (what, 100 * got, 100 * want))
    bad = [f for f, _ in rows if KERNEL in f[:-1]]
    if bad:
        fail("%s: [kernel] not the leaf: %s" % (what, bad[:3]))
    return rows


def check_outputs(path, outdir):
    rep = run([VIGIL, "report", "--json", path])
    funcs = json.loads(rep.stdout)["sampled"]["functions"] \
        if rep.returncode == 0 else []
    ks = [f for f in funcs if f["name"] == KERNEL]
    if len(ks) != 1 or ks[0]["self_samples"] != ks[0]["total_samples"] or \
            "module" in ks[0] and ks[0]["module"] is not None:
        fail("report --json: %s rows %s, want one, all self, no module"
             % (KERNEL, ks))
    text = run([VIGIL, "report", path]).stdout
    if not any(line.split()[-1:] == [KERNEL] for line in text.splitlines()):
        fail("report: no %s row:\n%s" % (KERNEL, text))
    svg = os.path.join(outdir, "flame.svg")
    fl = run([VIGIL, "flame", "-o", svg, path])
    if fl.returncode or "<title>%s " % KERNEL not in open(svg).read():
        fail("flame: no %s frame (%s)" % (KERNEL, fl.stderr.strip()))


def check_live(target):
    tg = subprocess.Popen([target, "100000"], stdout=subprocess.DEVNULL)
    p = run([VIGIL, "attach", "-p", str(tg.pid), "--scan", "stacks",
             "--frequency", "999", "--interval", "300ms", "--duration",
             "600ms"], stdin=subprocess.DEVNULL)
    tg.kill()
    tg.wait()
    leaves = {}
    for line in p.stdout.splitlines():
        r = json.loads(line)
        for s in r.get("stacks", []):
            f = s["frames"]
            if f and f[0] == KERNEL:
                leaves[tuple(f[:4])] = leaves.get(tuple(f[:4]), 0) + \
                    s["count"]
    if not any("do_reads" in f for f in leaves):
        fail("attach: no live stack [kernel] <- ... <- do_reads: %s (%s)"
             % (sorted(leaves.items(), key=lambda x: -x[1])[:3],
                p.stderr.strip()))


def paranoid():
    with open("/proc/sys/kernel/perf_event_paranoid") as f:
        return int(f.read())


def main():
    target, outdir = sys.argv[1], sys.argv[2]
    what = "allowed"
    p, path, ut, st = sampled_run(target, os.path.join(outdir, "allowed"),
                                  "250")
    if path:
        check_allowed(what, path, ut, st, p.stderr)
        check_outputs(path, outdir)
    check_live(target)

    what = "no capabilities"
    p, path, ut, st = sampled_run(
        target, os.path.join(outdir, "nocap"), "100",
        ["setpriv", "--inh-caps=-all", "--ambient-caps=-all",
         "--bounding-set=-all"])
    if path and paranoid() <= 1:
        check_allowed(what, path, ut, st, p.stderr, 100)
    elif path:
        want = ("vigil: warning: stack sampling: user time only: "
                "kernel.perf_event_paranoid is %d (kernel time needs <= 1, "
                "or CAP_PERFMON)" % paranoid())
        if p.stderr != [want]:
            fail("%s: stderr %r, want the one line %r"
                 % (what, p.stderr, want))
        rows = folded(path)
        if any(KERNEL in f for f, _ in rows):
            fail("%s: %s frames" % (what, KERNEL))
        if sum(n for _, n in rows) < 100:
            fail("%s: %d stack samples, want >= 100"
                 % (what, sum(n for _, n in rows)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
