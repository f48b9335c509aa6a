#!/usr/bin/python3
"""view_big.py WORKDIR [EDGES [SAMPLES [STACKS [READINGS]]]] - how `vigil view` does
on a large profile: its time, the page's size, and how long headless
Chromium takes to open the page (from the navigation to the end of the
page's first drawing, the page's own performance.now() when it is
done).  A measurement, not a test: its figures are in docs/view.md.

The counting profile is the program of bench/gen_edges.py with about
EDGES call edges (default 200000), built instrumented and run once
(kept in WORKDIR for the next run).  The sampled profile, of the same
binary, is made by tests/e2e/mksampled.py: SAMPLES stack samples
(default 1000000) over STACKS distinct stacks (default 100000) of 3 to
40 frames, main then callers then a leaf, over 4 threads, drawn from a
seeded random generator (tests/e2e/manystacks.py) so that every run
makes the same file; with
READINGS, in that many readings (mksampled.py --readings: a timeline),
and the counting page alone is not measured (the timeline is the
sampled profile's).

Prints one line per page: its kind, vigil view's wall time and peak RSS,
the file's size, the page's open time."""

import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from headless import Browser  # noqa: E402
import manystacks  # noqa: E402

VIGIL = os.environ.get("VIGIL") or os.path.join(ROOT, "build", "vigil")


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def counting(work, edges):
    """The profile of gen_edges' program: made once, kept."""
    d = os.path.join(work, "e%d" % edges)
    prof, exe = os.path.join(d, "p.vgl"), os.path.join(d, "p")
    if os.path.exists(prof):
        return exe, prof
    src = os.path.join(d, "src")
    files = sh([sys.executable, os.path.join(ROOT, "bench", "gen_edges.py"),
                str(edges), src], stdout=subprocess.PIPE,
               text=True).stdout.split()
    sh(["xargs", "-P", "2", "-I{}", "gcc", "-g", "-O1",
        "-finstrument-functions", "-fPIE", "-c", "{}", "-o", "{}.o"],
       input="".join(os.path.join(src, f) + "\n" for f in files), text=True)
    sh(["gcc", "-pie"] + [os.path.join(src, f + ".o") for f in files] +
       [os.path.join(ROOT, "build", "libvigil.a"), "-pthread",
        "-Wl,--export-dynamic-symbol=__cyg_profile_func_enter",
        "-Wl,--export-dynamic-symbol=__cyg_profile_func_exit",
        "-Wl,--wrap=__cyg_profile_func_enter", "-o", exe])
    sh([exe], env=dict(os.environ, VIGIL_FILE=prof), stdout=subprocess.DEVNULL)
    return exe, prof


def sampled(work, exe, samples, stacks, nreadings):
    out = os.path.join(work, "s%d-%d-%d.vgl" % (samples, stacks, nreadings))
    if os.path.exists(out):
        return out
    sh([sys.executable, os.path.join(HERE, "mksampled.py"), exe, out, "999"] +
       (["--readings", str(nreadings)] if nreadings else []),
       input="".join(manystacks.lines(exe, samples, stacks)), text=True)
    return out


def view(args, out):
    """vigil view's wall time and peak RSS (its own, from wait4)."""
    t0 = time.time()
    p = subprocess.Popen([VIGIL, "view"] + args + ["-o", out])
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        sys.exit("view_big: vigil view exited %d" % p.returncode)
    return time.time() - t0, ru.ru_maxrss


def main():
    work = sys.argv[1]
    edges = int(sys.argv[2]) if len(sys.argv) > 2 else 200000
    samples = int(sys.argv[3]) if len(sys.argv) > 3 else 1000000
    stacks = int(sys.argv[4]) if len(sys.argv) > 4 else 100000
    nreadings = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    os.makedirs(work, exist_ok=True)
    exe, prof = counting(work, edges)
    sprof = sampled(work, exe, samples, stacks, nreadings)
    b = Browser()
    kinds = [("sampled", [sprof]), ("both", [prof, sprof])]
    if not nreadings:
        kinds = [("counting", [prof])] + kinds
    for kind, args in kinds:
        page = os.path.join(work, kind + ".html")
        secs, rss = view(args, page)
        t0 = time.time()
        tab = b.open("file://" + page, (1200, 900))
        tab.wait_for("document.body && document.body.getAttribute('data-ready')")
        wall = time.time() - t0
        ready = tab.eval("vigilView.ready")
        frames = tab.eval("document.getElementById('flame-box').getAttribute('data-frames')")
        points = tab.eval("document.querySelectorAll('#timeline circle.reading').length")
        print("%-8s vigil view %.2f s (peak RSS %d MiB), "
              "page %.2f MB, opened in %.0f ms (ready at %.0f ms after "
              "navigation; %s frames drawn, %d timeline points)" % (
                  kind, secs, rss // 1024, os.path.getsize(page) / 1e6,
                  wall * 1000, ready, frames, points))
    b.close()


main()
