#!/usr/bin/python3
"""callgrind_match.py VIGIL PROFILE CALLGRIND_OUT MODULE... - are a
counting profile's calls callgrind's, function for function and caller
for caller, for the same run?  (Issue 17: entry-only counting counts real
calls, as callgrind does; the inline mode counts inlined copies too.)

Run the instrumented program under
  valgrind --tool=callgrind --separate-recs=1 --compress-strings=no \
      --compress-pos=no --callgrind-out-file=CALLGRIND_OUT
with VIGIL_FILE=PROFILE: one run gives both.  MODULE... are the
instrumented objects (the program, its instrumented libraries).  Their
instrumented functions are the ones whose first instruction (after an
endbr64) calls __fentry__ (objdump), or is listed in
__patchable_function_entries (Clang's ondemand build); the runtime's own functions and the
C start-up code in the same file are not.  Prints, for FileCheck:

  functions N called C differ D    N instrumented functions, C of them
                                   called in the run, D whose calls in
                                   the profile are not callgrind's
  edges E differ D                 E caller -> callee pairs between
                                   instrumented functions (each pair's
                                   sites added up), D that differ
  then one line per difference (at most 20), most calls first.

A -static program under valgrind has no module in its profile (the
runtime finds none there, in either mode): its functions are raw
addresses (a callee's start, a caller's call site), which in a non-PIE
static program are its ELF addresses, so they are named from the first
MODULE's symbol table (the function holding the address).
Functions are matched by module base name and name, and same-named
functions of one module (two static helpers) are added up on both sides.
Edges whose caller is outside the modules (main's caller in the C
library, a qsort comparator's) are left out: callgrind names the C
library's internal functions from its debug information, which vigil
does not read.  Exits 1 with a line on stderr when an input cannot be read.
"""

import bisect
import collections
import json
import os
import re
import subprocess
import sys

FUNC = re.compile(r"^[0-9a-f]+ <(.+)>:$")
INSN = re.compile(r"^\s*[0-9a-f]+:\s+(.*)$")


def patchable(path):
    """The addresses listed in path's __patchable_function_entries: the
    sites of Clang's ondemand build (docs/ondemand.md, "Clang"), nops in
    the file that the runtime makes calls of __fentry__."""
    out = subprocess.run(["objdump", "-s", "-j",
                          "__patchable_function_entries", path],
                         capture_output=True, text=True).stdout
    data = b""
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 2 and re.fullmatch(r"[0-9a-f]+", f[0]) and \
                all(re.fullmatch(r"[0-9a-f]{1,8}", w) for w in f[1:5] if w):
            data += bytes.fromhex("".join(w for w in f[1:5]
                                          if re.fullmatch(r"[0-9a-f]{8}", w)))
    return {int.from_bytes(data[i:i + 8], "little")
            for i in range(0, len(data) - 7, 8)}


def instrumented(path):
    """Names of the functions of path whose entry calls __fentry__, or
    is one of Clang's listed sites."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path],
                         check=True, capture_output=True, text=True).stdout
    sites = patchable(path)
    names, cur, seen = set(), None, 0
    for line in out.splitlines():
        m = FUNC.match(line)
        if m:
            cur, seen = m.group(1), 0
            continue
        m = INSN.match(line)
        if not m or cur is None:
            continue
        insn = m.group(1)
        if seen == 0 and insn.startswith("endbr64"):
            continue
        seen += 1
        addr = int(line.split(":")[0], 16)
        if seen == 1 and (("call" in insn and "__fentry__" in insn) or
                          addr in sites):
            names.add(cur)
    return names


def symbols(path):
    """Sorted (address, name) of path's functions, from nm."""
    out = subprocess.run(["nm", "-n", "--defined-only", path], check=True,
                         capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "tTWi":
            syms.append((int(f[0], 16), f[2]))
    return syms


def callgrind(path, alias=None):
    """(object base name, function) -> calls into it, and
    ((object, caller), (object, callee)) -> calls.  alias renames objects:
    valgrind names a library by the file the loader opened
    (liblzma.so.5.4.1), vigil by the name it was loaded under
    (liblzma.so.5, a symlink)."""
    alias = alias or {}
    calls = collections.Counter()
    edges = collections.Counter()
    names = {"ob": {}, "fn": {}}
    ob = fn = cob = cfn = None

    def name(kind, v):
        v = v.strip()
        m = re.match(r"^\((\d+)\)\s*(.*)$", v)
        if not m:
            return v
        if m.group(2):
            names[kind][m.group(1)] = m.group(2)
        return names[kind][m.group(1)]

    with open(path) as f:
        for line in f:
            if line.startswith("ob="):
                ob = os.path.basename(name("ob", line[3:]))
                ob, cob = alias.get(ob, ob), None
            elif line.startswith("fn="):
                fn, cob = name("fn", line[3:]), None
            elif line.startswith("cob="):
                cob = os.path.basename(name("ob", line[4:]))
                cob = alias.get(cob, cob)
            elif line.startswith("cfn="):
                cfn = name("fn", line[4:])
            elif line.startswith("calls="):
                n = int(line[6:].split()[0])
                callee = (cob or ob, cfn)
                calls[callee] += n
                edges[((ob, fn), callee)] += n
                cob = None
    return calls, edges


def main():
    if len(sys.argv) < 5:
        print("usage: callgrind_match.py VIGIL PROFILE CALLGRIND_OUT MODULE...",
              file=sys.stderr)
        return 2
    vigil, profile, cgout, modules = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    inst = set()
    for m in modules:
        inst |= {(os.path.basename(m), n) for n in instrumented(m)}
    rep = json.loads(subprocess.run([vigil, "report", "--json", profile],
                                    check=True, capture_output=True,
                                    text=True).stdout)
    vcalls = collections.Counter()
    fmod = {}
    syms = None
    for f in rep["functions"]:
        if f["module"] is None and f["name"].startswith("0x"):
            if syms is None:
                syms = symbols(modules[0])
                addrs = [a for a, _ in syms]
            i = bisect.bisect_right(addrs, int(f["name"], 16)) - 1
            if i >= 0:
                f["module"], f["name"] = os.path.basename(modules[0]), syms[i][1]
        fmod[f["id"]] = (f["module"], f["name"])
        vcalls[(f["module"], f["name"])] += f["calls"]
    vedges = collections.Counter()
    for e in rep["edges"]:
        vedges[(fmod[e["caller_id"]], fmod[e["callee_id"]])] += e["calls"]
    ccalls, cedges = callgrind(cgout, {
        os.path.basename(os.path.realpath(m)): os.path.basename(m)
        for m in modules})

    diffs = []
    called = 0
    for k in sorted(inst):
        if vcalls[k] or ccalls[k]:
            called += 1
        if vcalls[k] != ccalls[k]:
            diffs.append((max(vcalls[k], ccalls[k]), "function %s %s: vigil %d callgrind %d"
                          % (k[0], k[1], vcalls[k], ccalls[k])))
    # Calls vigil counted into a function it should not see at all.
    for k, n in vcalls.items():
        if n and k not in inst:
            diffs.append((n, "function %s %s: vigil %d, not instrumented" % (k[0], k[1], n)))
    nfd = len(diffs)
    keys = {k for k in set(vedges) | set(cedges) if k[0] in inst and k[1] in inst}
    ediffs = []
    for k in sorted(keys):
        if vedges[k] != cedges[k]:
            ediffs.append((max(vedges[k], cedges[k]), "edge %s -> %s: vigil %d callgrind %d"
                           % (k[0][1], k[1][1], vedges[k], cedges[k])))
    print("functions %d called %d differ %d" % (len(inst), called, nfd))
    print("edges %d differ %d" % (len(keys), len(ediffs)))
    for _, line in sorted(diffs + ediffs, key=lambda d: -d[0])[:20]:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
