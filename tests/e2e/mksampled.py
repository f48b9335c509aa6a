#!/usr/bin/python3
"""mksampled.py PROG OUT.vgl [FREQ [BIAS]] [--readings N] < STACKS - write a sampled
profile (the kind `vigil attach -o` writes) of the ELF program PROG with
exactly the stacks given, so that the converters of sampled profiles can
be checked with exact values against a real binary's symbols, files and
lines.

Each line of STACKS is `TID COUNT FRAME;FRAME;...`, outermost frame
first, as folded stacks are written; a FRAME is FUNCTION or
FUNCTION+OFFSET (hexadecimal, default 4 for the innermost frame, where
the thread was, and 8 for the others, which are return addresses: a
reader looks those up at address - 1).  PROG is placed at the load bias
BIAS (hexadecimal, default 0x555555554000) and recorded with its path
and build-id; the file is laid out by tests/corpus/mkcorpus.py, written
independently of vigil's C writer.

--readings N: the file has N readings (SAMPLES records, as vigil attach
takes one each interval) and a STACK_READINGS section: each of a stack's
samples goes to a reading drawn by a generator seeded with 31, so every
run makes the same file.  A reading's stack_samples are its stacks'
samples; its process CPU time grows by a sample's period (1 s over
FREQ) for each, over a wall time of all samples' periods spread over
the stacks' threads, so the timeline's CPU line means something; each
of the stacks' threads is in every reading."""

import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "corpus"))
import mkcorpus  # noqa: E402

BIAS = 0x555555554000


def symbols(prog):
    out = subprocess.run(["nm", "--defined-only", prog], check=True,
                         capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            syms.setdefault(parts[2], int(parts[0], 16))
    return syms


def build_id(prog):
    out = subprocess.run(["readelf", "-n", prog], check=True,
                         capture_output=True, text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    return bytes.fromhex(m.group(1)) if m else b""


def readings(s, recs, n, freq):
    """N readings of recs' samples in spec s, as the docstring says."""
    rnd = random.Random(31)
    per = [dict() for _ in range(n)]
    for i, (_, count, _) in enumerate(recs):
        for _ in range(count):
            d = per[rnd.randrange(n)]
            d[i] = d.get(i, 0) + 1
    tids = sorted({r[0] for r in recs})
    period_us = 1e6 / freq
    wall_ns = int(sum(r[1] for r in recs) * period_us * 1000 / len(tids))
    step = max(wall_ns // n, 1000)
    s["readings"] = [(k, i, c) for k in range(n) for i, c in sorted(per[k].items())]
    s["samples"], cpu = [], 0
    run = {t: 0 for t in tids}
    for k in range(n):
        got = sum(per[k].values())
        cpu += int(got * period_us)
        for i, c in per[k].items():
            run[recs[i][0]] += int(c * period_us)
        el = (k + 1) * step
        # scan: process CPU, threads, stacks.
        s["samples"].append((s["start_ns"] + el, el, 0x206, (cpu, 0),
                             (0, 0, 0, 0), (0, 0, 0, 0), got,
                             [(t, "t%d" % t, run[t], 0, run[t] * 1000)
                              for t in tids]))
    s["end_ns"] = s["start_ns"] + n * step


def main():
    args = sys.argv[1:]
    nreadings = 0
    if "--readings" in args:
        at = args.index("--readings")
        nreadings = int(args[at + 1])
        del args[at:at + 2]
    prog, out = os.path.abspath(args[0]), args[1]
    freq = int(args[2]) if len(args) > 2 else 1000
    global BIAS
    if len(args) > 3:
        BIAS = int(args[3], 16)
    syms = symbols(prog)
    recs = []
    for line in sys.stdin:
        if not line.strip():
            continue
        tid, count, stack = line.split()
        frames = []
        names = stack.split(";")
        for depth, f in enumerate(reversed(names)):
            name, _, off = f.partition("+")
            off = int(off, 16) if off else (4 if depth == 0 else 8)
            frames.append((BIAS + syms[name] + off, 0))
        recs.append((int(tid), int(count), frames))
    size = os.path.getsize(prog)
    s = mkcorpus.sampled_spec()
    s.update(exe=prog, argv=[prog], pid=4242,
             modules=[(0, BIAS, BIAS, BIAS + size + 0x10000, build_id(prog),
                       prog)])
    s["stacks"] = (0, freq, recs)
    if nreadings:
        readings(s, recs, nreadings, freq)
    with open(out, "wb") as f:
        f.write(bytes(mkcorpus.build(s)[0]))


main()
