#!/usr/bin/python3
"""stacks_check.py VIGIL PROFILE WORKDIR - do a counting profile's stack
views account for every call?  Writes each view of PROFILE into WORKDIR
and prints one line per figure, for FileCheck to pin:

  total_calls N          from `vigil report --json`
  folded N               the sum of `convert --to folded`'s counts
  pprof N TYPE           the total of `convert --to pprof`, decoded by the
                         npm pprof-format package (pprof_decode.js)
  flame N                the root frame of `vigil flame` (its data-total,
                         and the "all" frame's value, which must agree)
  callgrind main P%      main's inclusive share in `callgrind_annotate
                         --inclusive=yes` of `convert --to callgrind`
  cycles C members M exact E
                         the cycles that pprof's comments and the flame
                         graph's tooltips list, their members, and how
                         many members have there, in both, the exact calls
                         that `vigil report --json` gives the function

Exits 1 with a line on stderr when a view cannot be read."""

import json
import os
import re
import subprocess
import sys


def run(*args):
    return subprocess.run(args, check=True, stdout=subprocess.PIPE,
                          universal_newlines=True).stdout


def main():
    vigil, prof, work = sys.argv[1:4]
    here = os.path.dirname(os.path.abspath(__file__))
    rep = json.loads(run(vigil, "report", "--json", prof))
    print("total_calls", rep["total_calls"])

    folded = os.path.join(work, "s.folded")
    run(vigil, "convert", prof, "--to", "folded", "-o", folded)
    with open(folded) as f:
        print("folded", sum(int(line.rsplit(" ", 1)[1]) for line in f))

    pb = os.path.join(work, "s.pb.gz")
    run(vigil, "convert", prof, "--to", "pprof", "-o", pb)
    d = json.loads(run("node", os.path.join(here, "pprof_decode.js"), pb))
    print("pprof", d["total"], *d["sample_types"])

    svg = os.path.join(work, "s.svg")
    run(vigil, "flame", prof, "-o", svg)
    with open(svg) as f:
        text = f.read()
    total = re.search(r'data-total="(\d+)"', text).group(1)
    root = re.search(r'data-name="all" data-value="(\d+)"', text).group(1)
    if total != root:
        sys.exit("stacks_check: flame total %s, root frame %s" % (total, root))
    print("flame", total)

    cg = os.path.join(work, "s.callgrind")
    run(vigil, "convert", prof, "--to", "callgrind", "-o", cg)
    out = run("callgrind_annotate", "--auto=no", "--inclusive=yes", cg)
    m = re.search(r"^\s*[\d,]+ \(\s*([\d.]+)%\)\s+\S*:main ", out, re.M)
    if not m:
        sys.exit("stacks_check: no main in callgrind_annotate's output")
    print("callgrind main %s%%" % m.group(1))

    # Each cycle's members with their calls, as pprof's comments and the
    # flame graph's tooltips give them, against the report's functions.
    calls = {f["label"]: f["calls"] for f in rep["functions"]}
    member = re.compile(r"^(<cycle \d+: .*>) members: (.*); calls from outside: \d+$")
    pp = {}
    for c in d["comments"]:
        m = member.match(c)
        if m:
            pp[m.group(1)] = m.group(2)
    fl = {}
    for m in re.finditer(r"<title>(&lt;cycle \d+: [^<]*?&gt;) \([^;]*; members: (.*?); "
                         r"calls from outside: \d+\)</title>", text):
        fl[m.group(1).replace("&lt;", "<").replace("&gt;", ">")] = m.group(2)
    nmembers = exact = 0
    for name, members in sorted(pp.items()):
        if fl.get(name) != members:
            sys.exit("stacks_check: %s: pprof lists %s, the flame graph %s"
                     % (name, members, fl.get(name)))
        for mem in members.split(", "):
            label, n = mem.rsplit(" ", 1)
            nmembers += 1
            exact += calls.get(label) == int(n)
    if set(fl) != set(pp):
        sys.exit("stacks_check: the flame graph's cycles differ from pprof's")
    print("cycles %d members %d exact %d" % (len(pp), nmembers, exact))


if __name__ == "__main__":
    main()
