#!/usr/bin/python3
"""names.py SOURCE DIR - names of code without a symbol (issue 15 point 4,
issue 16 point 6), in a counting and a sampled profile alike.

SOURCE (tests/lit/Inputs/names_target.c) is built instrumented, with
exported_fn in .dynsym, and run once under `vigil run --scan stacks`,
which writes both profiles.  Then the file at the path that ran is
replaced, in turn, by copies with the same build-id and code but other
sections, and each time `vigil report --json` and `vigil convert --to
folded` of both profiles must name the program's functions exactly so:

  full       .symtab:                     exported_fn hidden_fn nofde_fn main
  stripped   .dynsym only:                exported_fn names+0xH [names] names+0xM
  mini       .dynsym + .gnu_debugdata:    exported_fn hidden_fn nofde_fn main
  debugdir   .dynsym + a debug file under VIGIL_DEBUG_DIR/.build-id/
  nodebugdir the same without VIGIL_DEBUG_DIR: as stripped

where H and M are the ELF addresses of hidden_fn and main (their FDEs
start there); nofde_fn has no FDE, so only the module names it.  No name
of the program's module may be an address inside a function.  Exits 0
when all holds, else prints one line per problem and exits 1.
"""

import glob
import json
import os
import shutil
import subprocess
import sys

VIGIL = os.environ["VIGIL"]
VCC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vcc")
problems = []


def fail(msg):
    problems.append(msg)
    print("names: " + msg)


def run(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True,
                          **kw).stdout


def func_addrs(path):
    """Function symbols of path's .symtab: name -> address."""
    out = {}
    for line in run("nm", "--defined-only", path).splitlines():
        w = line.split()
        if len(w) == 3 and w[1] in "tTwW":
            out[w[2]] = int(w[0], 16)
    return out


def fde_starts(path):
    out = run("readelf", "--debug-dump=frames", path)
    return {int(w[3:].split("..")[0], 16) for line in out.splitlines()
            for w in line.split() if w.startswith("pc=")}


def build_id(path):
    for line in run("readelf", "-n", path).splitlines():
        if "Build ID:" in line:
            return line.split("Build ID:")[1].strip()
    return None


def make_variants(d, full):
    v = {"full": full}
    stripped = os.path.join(d, "names.stripped")
    run("strip", "--strip-all", "-R", ".comment", full, "-o", stripped)
    v["stripped"] = stripped
    # MiniDebugInfo, by Fedora's recipe: the function symbols that
    # .dynsym lacks, in an xz-compressed ELF file of their own.
    dyn = {line.split()[0] for line in
           run("nm", "-D", "--format=posix", "--defined-only", full).splitlines()}
    funcs = {line.split()[0] for line in
             run("nm", "--format=posix", "--defined-only", full).splitlines()
             if line.split()[1] in "tT"}
    keep = os.path.join(d, "keep_symbols")
    with open(keep, "w") as f:
        f.write("".join(s + "\n" for s in sorted(funcs - dyn)))
    dbg = os.path.join(d, "names.debug")
    run("objcopy", "--only-keep-debug", full, dbg)
    mini = os.path.join(d, "mini_debuginfo")
    run("objcopy", "-S", "--remove-section", ".gdb_index", "--remove-section",
        ".comment", "--keep-symbols=" + keep, dbg, mini)
    run("xz", "-f", mini)
    v["mini"] = os.path.join(d, "names.mini")
    run("objcopy", "--add-section", ".gnu_debugdata=" + mini + ".xz", stripped,
        v["mini"])
    # A separate debug file where the build-id says, under a root of our own.
    bid = build_id(full)
    where = os.path.join(d, "debug", ".build-id", bid[:2])
    os.makedirs(where)
    shutil.copy(dbg, os.path.join(where, bid[2:] + ".debug"))
    return v


def folded_names(path, env):
    out = run(VIGIL, "convert", path, "--to", "folded", env=env)
    names = set()
    for line in out.splitlines():
        stack = line.rsplit(" ", 1)[0]
        names.update(stack.split(";"))
    return out, names


def check_sampled(what, path, env, want, starts):
    """want: exported_fn's, hidden_fn's, nofde_fn's and main's names."""
    rep = json.loads(run(VIGIL, "report", "--json", path, env=env))
    mine = sorted({f["name"] for f in rep["sampled"]["functions"]
                   if f.get("module") == "names"})
    folded, fnames = folded_names(path, env)
    for name in want:
        if name not in mine:
            fail("%s sampled: no function %r in the report; its functions in "
                 "names: %s" % (what, name, mine))
        if name not in fnames:
            fail("%s sampled: no frame %r in the folded stacks" % (what, name))
    for name in mine:
        if name.startswith("names+0x") and int(name[8:], 16) not in starts:
            fail("%s sampled: %r is no function's start" % (what, name))
    # Where it spun: each of the three is a leaf.
    leaves = {line.rsplit(" ", 1)[0].split(";")[-1]
              for line in folded.splitlines()}
    for name in want[:3]:
        if name not in leaves:
            fail("%s sampled: %r is no leaf of the folded stacks" %
                 (what, name))


def main():
    source, d = sys.argv[1], sys.argv[2]
    full = os.path.join(d, "names.full")
    subprocess.run([VCC, "dynamic", "-O2", "-fomit-frame-pointer",
                    "-Wl,--export-dynamic-symbol=exported_fn", source, "-o",
                    full], check=True)
    addrs = func_addrs(full)
    # Where a function starts: its symbol or its FDE (.plt has one of
    # its own); no name may be an address inside a function.
    starts = set(addrs.values()) | fde_starts(full)
    variants = make_variants(d, full)
    prog = os.path.join(d, "names")
    shutil.copy(full, prog)
    env = dict(os.environ)
    env.pop("VIGIL_DEBUG_DIR", None)
    run(VIGIL, "run", "-o", os.path.join(d, "run"), "--scan", "stacks",
        "--frequency", "999", "--", prog, env=env)
    counting = os.path.join(d, "run", "names.vgl")
    sampled = glob.glob(os.path.join(d, "run", "samples", "names.*.vgl"))
    if len(sampled) != 1:
        fail("want one sampled profile, have %s" % sampled)
        return 1
    named = ["exported_fn", "hidden_fn", "nofde_fn", "main"]
    bare = ["exported_fn", "names+0x%x" % addrs["hidden_fn"], "[names]",
            "names+0x%x" % addrs["main"]]
    cases = [("full", "full", None, named),
             ("stripped", "stripped", None, bare),
             ("mini", "mini", None, named),
             ("debugdir", "stripped", os.path.join(d, "debug"), named),
             ("nodebugdir", "stripped", None, bare)]
    for what, variant, debug_dir, want in cases:
        shutil.copy(variants[variant], prog)
        e = dict(env)
        if debug_dir:
            e["VIGIL_DEBUG_DIR"] = debug_dir
        check_sampled(what, sampled[0], e, want, starts)
        # nofde_fn is not instrumented, and no counted call has its
        # site in it: the counting profile never names it.
        check_counting(what, counting, e, want[:2] + want[3:], starts)
    return 1 if problems else 0


def check_counting(what, path, env, want, starts):
    """want: exported_fn's, hidden_fn's and main's names."""
    rep = json.loads(run(VIGIL, "report", "--json", path, env=env))
    mine = sorted({f["name"] for f in rep["functions"]
                   if f.get("module") == "names"})
    folded, _ = folded_names(path, env)
    for name in want:
        if name not in mine:
            fail("%s counting: no function %r in the report; its functions "
                 "in names: %s" % (what, name, mine))
    for name in mine:
        if name.startswith("names+0x") and int(name[8:], 16) not in starts:
            fail("%s counting: %r is no function's start" % (what, name))
    edges = {(e["caller"], e["callee"]) for e in rep["edges"]}
    for callee in want[:2]:
        if (want[2], callee) not in edges:
            fail("%s counting: no edge %s -> %s; edges: %s"
                 % (what, want[2], callee, sorted(edges)))
        if not any(l.rsplit(" ", 1)[0].endswith("%s;%s" % (want[2], callee))
                   for l in folded.splitlines()):
            fail("%s counting: no folded stack ending %s;%s:\n%s"
                 % (what, want[2], callee, folded))


if __name__ == "__main__":
    sys.exit(main())
