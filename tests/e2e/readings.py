#!/usr/bin/python3
"""readings.py - a small reader of a sampled profile's readings, written
apart from vigil's C reader (from docs/format.md), for the tests of what
a time selection shows: the SAMPLES records (the readings), the STACKS
records and STACK_READINGS, which says how many samples of each stack
each reading got; and a symbolizer of one program's frames by its
symbol table (nm), so that a function's samples in some readings can be
counted without vigil.

As a module: load(PATH) and Counter(PROFILE, PROG).  As a command:

  readings.py FILE.vgl PROG [--until NS] [--funcs F,G,...]

prints "readings: N", "first: I..J" (the readings whose time is at most
NS: the ones before it), and for each function F "F: self S total T" in
those readings, then "whole F: self S total T" over the run."""

import argparse
import os
import struct
import subprocess

SEC_ARENA, SEC_SAMPLES, SEC_STACKS, SEC_READINGS = 3, 4, 5, 7


def load(path):
    b = open(path, "rb").read()
    nsec = struct.unpack_from("<I", b, 20)[0]
    secs = {}
    for i in range(nsec):
        kind, _, off, size = struct.unpack_from("<IIQQ", b, 32 + 24 * i)
        secs[kind] = (off, size)
    p = {"samples": [], "stacks": [], "readings": None, "modules": {}}
    off, _ = secs[SEC_ARENA]
    used = struct.unpack_from("<Q", b, off)[0]
    at = 64
    while at + 32 <= used:
        kind, _, size = struct.unpack_from("<IIQ", b, off + at)
        if kind == 1:
            mid, _, bias = struct.unpack_from("<IIQ", b, off + at + 32)
            plen = struct.unpack_from("<I", b, off + at + 32 + 64)[0]
            mpath = b[off + at + 32 + 72:off + at + 32 + 72 + plen].decode()
            p["modules"][mid] = (bias, mpath)
        at += size
    off, _ = secs[SEC_SAMPLES]
    n, ssize, tsize = struct.unpack_from("<QII", b, off)
    at = off + 32
    for _ in range(n):
        t, el, _, nth = struct.unpack_from("<QQII", b, at)
        ss = struct.unpack_from("<Q", b, at + 104)[0]
        p["samples"].append((t, el, ss))
        at += ssize + nth * tsize
    off, _ = secs[SEC_STACKS]
    n = struct.unpack_from("<Q", b, off)[0]
    at = off + 32
    for _ in range(n):
        tid, nf, count = struct.unpack_from("<IIQ", b, at)
        frames = [struct.unpack_from("<QI", b, at + 16 + 16 * k)
                  for k in range(nf)]
        p["stacks"].append((tid, count, frames))
        at += 16 + 16 * nf
    if SEC_READINGS in secs:
        off, _ = secs[SEC_READINGS]
        n = struct.unpack_from("<Q", b, off)[0]
        p["readings"] = [struct.unpack_from("<IIQ", b, off + 16 + 16 * k)
                         for k in range(n)]
    return p


class Counter:
    """Self and total samples of PROG's functions in chosen readings."""

    def __init__(self, prof, prog):
        self.p = prof
        prog = os.path.realpath(prog)
        out = subprocess.run(["nm", "-S", "--defined-only", prog],
                             check=True, capture_output=True,
                             text=True).stdout
        self.syms = []
        for line in out.splitlines():
            f = line.split()
            if len(f) == 4 and f[2] in "tTwW":
                self.syms.append((int(f[0], 16), int(f[1], 16), f[3]))
        self.mods = {m for m, (_, path) in prof["modules"].items()
                     if os.path.realpath(path) == prog}

    def name(self, depth, frame):
        addr, mod = frame
        if mod not in self.mods:
            return None
        a = addr - self.p["modules"][mod][0] - (1 if depth else 0)
        for lo, size, name in self.syms:
            if lo <= a < lo + size:
                return name
        return None

    def count(self, func, readings=None):
        """(self, total) samples of func in the readings given (a set of
        indices; None: the whole run, from STACKS alone)."""
        weight = [0] * len(self.p["stacks"])
        if readings is None:
            weight = [s[1] for s in self.p["stacks"]]
        else:
            for r, s, c in self.p["readings"]:
                if r in readings:
                    weight[s] += c
        own = tot = 0
        # Each stack's functions once: a profile of 10^5 stacks is
        # counted for several functions.
        if not hasattr(self, "names"):
            self.names = [[self.name(d, f) for d, f in enumerate(frames)]
                          for _, _, frames in self.p["stacks"]]
        for names, w in zip(self.names, weight):
            if names and names[0] == func:
                own += w
            if func in names:
                tot += w
        return own, tot


def first_phase(prof, until):
    """The readings taken before `until` (CLOCK_REALTIME ns)."""
    return [i for i, s in enumerate(prof["samples"]) if s[0] <= until]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("prog")
    ap.add_argument("--until", type=int)
    ap.add_argument("--funcs", default="")
    a = ap.parse_args()
    p = load(a.file)
    c = Counter(p, a.prog)
    print("readings: %d" % len(p["samples"]))
    funcs = [f for f in a.funcs.split(",") if f]
    if a.until is not None:
        sel = first_phase(p, a.until)
        print("first: %d..%d" % (sel[0], sel[-1]) if sel else "first: none")
        for f in funcs:
            print("%s: self %d total %d" % ((f,) + c.count(f, set(sel))))
    for f in funcs:
        print("whole %s: self %d total %d" % ((f,) + c.count(f)))


if __name__ == "__main__":
    main()
