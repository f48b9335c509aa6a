#!/usr/bin/python3
"""fdata_check.py BINARY FDATA - every line of a `vigil convert --to fdata`
file points at a call instruction: objdump (binutils, independent of
capstone) disassembles BINARY, and at CALLER's address plus OFFSET it must
find a `call`.  Names NAME/FILE/N are looked up as NAME.  Exits 1 with one
line per problem; 1 also when the file has no line."""

import re
import subprocess
import sys


def main():
    binary, fdata = sys.argv[1], sys.argv[2]
    syms = {}
    out = subprocess.run(["nm", "--defined-only", binary], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            syms.setdefault(parts[2], int(parts[0], 16))
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary],
                         check=True, capture_output=True, text=True).stdout
    insns = {}
    for line in dis.splitlines():
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)", line)
        if m:
            insns[int(m.group(1), 16)] = m.group(2)
    bad = 0
    lines = open(fdata).read().splitlines()
    for line in lines:
        f = line.split()
        if len(f) != 8 or f[0] != "1" or f[3] != "1" or f[5:7] != ["0", "0"]:
            print("malformed line: %r" % line)
            bad += 1
            continue
        name = f[1].split("/")[0]
        if name not in syms:
            print("no symbol %s for %r" % (name, line))
            bad += 1
            continue
        at = syms[name] + int(f[2], 16)
        if not insns.get(at, "").startswith("call"):
            print("no call at %#x (%s): %r" % (at, insns.get(at), line))
            bad += 1
    if not lines:
        print("%s: no edges" % fdata)
        bad += 1
    sys.exit(1 if bad else 0)


main()
