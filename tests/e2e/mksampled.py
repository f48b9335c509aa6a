#!/usr/bin/python3
"""mksampled.py PROG OUT.vgl [FREQ [BIAS]] < STACKS - write a sampled
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
independently of vigil's C writer."""

import os
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


def main():
    prog, out = os.path.abspath(sys.argv[1]), sys.argv[2]
    freq = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    global BIAS
    if len(sys.argv) > 4:
        BIAS = int(sys.argv[4], 16)
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
    with open(out, "wb") as f:
        f.write(bytes(mkcorpus.build(s)[0]))


main()
