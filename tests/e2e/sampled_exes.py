#!/usr/bin/python3
"""sampled_exes.py VIGIL DIR - checks the sampled files that `vigil run
--scan stacks -o DIR` wrote to DIR/samples: each one's exe (the program
its name and command are of) is among its modules, by real path, when it
has modules; no module is a file of data (not ELF); and no stack sample
of it is in the program of another file (by real path: a file named xz
with the stacks of the bash script that exec'd xz); and no file is
named after a shared library (libc.so.6.PID.vgl: its exe taken from the
wrong mapping).  Prints one line of counts, then the first few files
that fail any."""
import glob
import json
import os
import re
import subprocess
import sys


def main():
    vigil, d = sys.argv[1], sys.argv[2]
    files = withmods = wrong = data = mixed = libs = 0
    bad = []
    seen = []
    for f in sorted(glob.glob(os.path.join(d, "samples", "*.vgl"))):
        files += 1
        rep = json.loads(subprocess.run([vigil, "report", "--json", f],
                                        stdout=subprocess.PIPE,
                                        check=True, text=True).stdout)
        show = subprocess.run([vigil, "show", f], stdout=subprocess.PIPE,
                              check=True, text=True).stdout
        exe = [l[5:] for l in show.splitlines() if l.startswith("exe: ")][0]
        if re.match(r"(lib.*\.so(\.[0-9.]+)?|ld-linux.*)$",
                    os.path.basename(exe)):
            libs += 1
            bad.append("%s: exe %s, a shared library" % (f, exe))
        # The modules its stack samples fell in, by real path.
        paths = {m["path"].rsplit("/", 1)[-1]: m["path"]
                 for m in rep["modules"]}
        sampled = {os.path.realpath(paths[fn["module"]])
                   for fn in rep["sampled"]["functions"]
                   if fn["module"] in paths and
                   paths[fn["module"]].startswith("/")}
        seen.append((f, os.path.realpath(exe), sampled))
        mods = [m["path"] for m in rep["modules"] if m["path"].startswith("/")]
        for m in mods:
            try:
                with open(m, "rb") as fh:
                    if fh.read(4) != b"\x7fELF":
                        data += 1
                        bad.append("%s: module %s is not ELF" % (f, m))
            except OSError:
                pass
        if not mods:
            continue
        withmods += 1
        if os.path.realpath(exe) not in [os.path.realpath(m) for m in mods]:
            wrong += 1
            bad.append("%s: exe %s, modules %s" % (f, exe, mods[:2]))
    exes = {e for _, e, _ in seen}
    for f, exe, sampled in seen:
        other = sorted(p for p in sampled if p in exes and p != exe)
        if other:
            mixed += 1
            bad.append("%s: exe %s, stack samples in %s" % (f, exe, other))
    print("files %d, with modules %d, exe not among them %d, data modules %d, "
          "stack samples of another program %d, named after a library %d"
          % (files, withmods, wrong, data, mixed, libs))
    for b in bad[:5]:
        print(b)


main()
