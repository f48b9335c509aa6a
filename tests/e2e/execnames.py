#!/usr/bin/python3
"""execnames.py SOURCE DIR - samples taken before an exec are named
against the image that ran them (issue 16 point 6).

SOURCE (tests/lit/Inputs/exec_names.c) is built twice, non-PIE,
-fomit-frame-pointer: A, and B with -DSWAP, where spin_a has the address
spin_b has in A and the other way round.  `vigil attach -o` at 99 Hz
with a 10 s interval (so the samples A takes are still waiting in the
kernel's buffers when it execs) samples A spinning in spin_a for 0.4 s,
then the exec'd B spinning in spin_c; when B says "done", a "sample"
request hands out the stacks while B is alive, then B exits.  Neither image ever runs spin_b,
so every sample named spin_b is one of A named against B.  In the live
records and in report --json of the file: spin_a and spin_c have samples
(at least 10 each: 0.4 s at 99 Hz gives 40), spin_b none.  Exits 0 when
all holds, else prints one line per problem and exits 1.
"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attach  # noqa: E402
from attach import Attach, Target, fail, now  # noqa: E402


def main():
    source, d = sys.argv[1], sys.argv[2]
    a_bin, b_bin = os.path.join(d, "image_a"), os.path.join(d, "image_b")
    for out, extra in ((a_bin, []), (b_bin, ["-DSWAP"])):
        subprocess.run(["gcc", "-O2", "-g", "-fomit-frame-pointer",
                        "-fno-PIE", "-no-pie", *extra, source, "-o", out],
                       check=True)
    nm = {}
    for b in (a_bin, b_bin):
        for line in subprocess.run(["nm", b], capture_output=True, text=True,
                                   check=True).stdout.splitlines():
            w = line.split()
            if len(w) == 3 and w[2].startswith("spin_"):
                nm[(b, w[2])] = w[0]
    if nm[(a_bin, "spin_a")] != nm[(b_bin, "spin_b")]:
        fail("spin_a of A at %s, spin_b of B at %s: the test needs one "
             "address" % (nm[(a_bin, "spin_a")], nm[(b_bin, "spin_b")]))
    vgl = os.path.join(d, "run.vgl")
    tg = Target(a_bin, b_bin)
    tg.expect("ready")
    at = Attach(tg.p.pid, "--interval", "10s", "--scan", "stacks",
                "--frequency", "99", "-o", vgl)
    at.next()
    tg.send("go")
    tg.expect("done", timeout=60)
    at.send("sample")
    at.next()
    tg.send("end")
    t_end, end = at.next("end", timeout=30)
    at.exit_within(t_end or now(), 2.0, "exec")
    tg.kill()
    live = {}
    for r in at.rec.all:
        for s in r.get("stacks", []) if r["type"] == "sample" else []:
            if s["frames"]:
                leaf = s["frames"][0]
                live[leaf] = live.get(leaf, 0) + s["count"]
    out = subprocess.run([attach.VIGIL, "report", "--json", vgl],
                         capture_output=True, text=True)
    rep = json.loads(out.stdout) if out.returncode == 0 else {}
    infile = {f["name"]: f["self_samples"]
              for f in rep.get("sampled", {}).get("functions", [])}
    for what, got in (("live", live), ("file", infile)):
        if got.get("spin_b", 0):
            fail("%s: %d samples named spin_b, which never ran (samples of "
                 "spin_a named against the new image): %s"
                 % (what, got["spin_b"], got))
        for name in ("spin_a", "spin_c"):
            if got.get(name, 0) < 10:
                fail("%s: %d samples in %s, want >= 10: %s"
                     % (what, got.get(name, 0), name, got))
    print("execnames: live %s; file %s" % (
        {k: v for k, v in live.items() if k.startswith("spin_")},
        {k: v for k, v in infile.items() if k.startswith("spin_")}))
    return 1 if attach.problems else 0


if __name__ == "__main__":
    sys.exit(main())
