#!/usr/bin/python3
"""view_timeline.py PAGE.html SAMPLED.vgl PROG [options] - the CPU
timeline of a `vigil view` page, driven in headless Chromium as a user
would (a drag across it, a click on its clear button, a thread chosen),
against the counts of the sampled profile's own readings, read without
vigil (tests/e2e/readings.py):

  timeline: N points, N readings in the file   (or "timeline: none";
                             with readings grouped, "N points of P
                             readings, N readings in the file")
  grouped: LABEL            (the page's words for it, when grouped)
  not selectable: HINT      (when its stacks are too many to select by
                             time: what the page says)
  bounds: at most N points, "rs" at most B bytes   (--bounds N,B; the
                             page's points and the text of its "rs")
  readings: N whose stacks add up to their stack_samples   (of the file)
  drag I..J: LABEL          (the points a drag over them selected, and
                             the label the page shows)
  calls head: TEXT          (the calls column's head then)
  selected F: self S total T of N; file: self S total T
  first phase: F dominates (P%), G P%   (--until NS: the drag is over
                             the readings taken before NS, CLOCK_REALTIME;
                             grouped, over the points that hold them)
  (--point K: the drag is over point K alone: its readings' counts)
  cleared: LABEL; N rows as before; calls head: TEXT
  thread TID: lines L       (--thread TID: the timeline's lines then)

--funcs F,G: the functions to count (the first is the one that should
dominate the selection).  --report FILE: `vigil report --json` of the
same files; the whole-run rows must have its numbers.  Every number
shown must be the file's: a line "problem: ..." for each that is not,
and exit 1."""

import argparse
import json
import os
import sys

from headless import Browser  # noqa: E402
from view_page import choose_thread, finish  # noqa: E402
import readings  # noqa: E402

ROWS = """(function () {
  var out = {};
  document.querySelectorAll('#flat tbody tr').forEach(function (r) {
    out[r.cells[0].textContent] = Array.prototype.map.call(r.cells, function (c) { return c.textContent; });
  });
  return out;
})()"""

DRAG = """(function (x0, x1) {
  var s = document.getElementById('timeline'), r = s.getBoundingClientRect(), y = r.top + r.height / 2;
  function ev(type, x, on) {
    on.dispatchEvent(new MouseEvent(type, {bubbles: true, clientX: r.left + x, clientY: y, buttons: 1}));
  }
  ev('mousedown', x0, s); ev('mousemove', (x0 + x1) / 2, s); ev('mousemove', x1, s); ev('mouseup', x1, s);
  return true;
})(%f, %f)"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("sampled")
    ap.add_argument("prog")
    ap.add_argument("--until", type=int)
    ap.add_argument("--funcs", default="")
    ap.add_argument("--report")
    ap.add_argument("--thread")
    ap.add_argument("--point", type=int)
    ap.add_argument("--bounds")
    a = ap.parse_args()
    bad = []
    prof = readings.load(a.sampled)
    count = readings.Counter(prof, a.prog)
    funcs = [f for f in a.funcs.split(",") if f]
    b = Browser()
    tab = b.open("file://" + os.path.abspath(a.page), (1200, 900))
    tab.call("Runtime.enable")
    if not tab.wait_for("document.body && document.body.getAttribute('data-ready')"):
        print("problem: the page's script never finished")
        sys.exit(1)
    tl = tab.eval("vigilView.timeline()")
    if not tl:
        print("timeline: none")
        shown = tab.eval("document.getElementById('timeline-box').hidden")
        if not shown:
            bad.append("no timeline, but its box is shown")
    else:
        circles = tab.eval("document.querySelectorAll('#timeline circle.reading').length")
        per, nr = tl.get("per", 1), len(prof["samples"])
        print("timeline: %d points%s, %d readings in the file" % (
            circles, " of %d readings" % per if per > 1 else "", nr))
        if circles != -(-nr // per) or len(tl["x"]) != circles or tl.get("readings", nr) != nr:
            bad.append("%d points, %d x, %d readings, %s a point" % (circles, len(tl["x"]), nr, per))
        if per > 1:
            print("grouped: %s" % tab.eval("document.getElementById('tl-group').textContent"))
        elif tab.eval("(function (g) { return !!g && !g.hidden; })(document.getElementById('tl-group'))"):
            bad.append("readings not grouped, but the page says they are")
        if not tl.get("selectable", True):
            print("not selectable: %s" % tab.eval("document.getElementById('tl-hint').textContent"))
        if a.bounds:
            npoints, nbytes = (int(x) for x in a.bounds.split(","))
            page = open(a.page).read()
            at = page.index('"rs":', page.index('"timeline":')) + 5
            rs = page[at:page.index("]", at) + 1] if page[at] == "[" else page[at:at + 4]
            print("bounds: at most %d points, \"rs\" at most %d bytes" % (npoints, nbytes))
            if circles > npoints or len(rs) > nbytes:
                bad.append("%d points, \"rs\" of %d bytes" % (circles, len(rs)))
        sums = [0] * len(prof["samples"])
        for r, _, c in prof["readings"] or []:
            sums[r] += c
        print("readings: %d whose stacks add up to their stack_samples" % sum(
            1 for s, n in zip(prof["samples"], sums) if s[2] == n))
    whole = tab.eval(ROWS)
    calls_head = lambda: tab.eval("document.querySelector('#flat th[data-key=calls]').textContent")
    if a.report:
        rep = {f["label"]: f for f in json.load(open(a.report))["functions"]}
        for f in funcs:
            r, j = whole.get(f), rep.get(f)
            if not r or not j or [r[2], r[4]] != [str(j.get("self_samples")), str(j.get("total_samples"))]:
                bad.append("whole run %s: the page shows %s, the report %s" % (
                    f, r, j and (j.get("self_samples"), j.get("total_samples"))))
    for f in funcs:
        own, tot = count.count(f)
        r = whole.get(f)
        if not r or [r[2], r[4]] != [str(own), str(tot)]:
            bad.append("whole run %s: the page shows %s, the file self %d total %d" % (f, r, own, tot))
    if tl and (a.until is not None or a.point is not None):
        per, nr = tl.get("per", 1), len(prof["samples"])
        if a.point is not None:
            lo = hi = a.point
        else:
            sel = readings.first_phase(prof, a.until)
            lo, hi = sel[0] // per, sel[-1] // per
        # The readings of points lo .. hi, which the page counts.
        chosen = set(range(lo * per, min((hi + 1) * per, nr)))
        x = tl["x"]
        tab.eval(DRAG % (x[lo] - 1, x[hi] + 1))
        got = tab.eval("vigilView.selection()")
        print("drag %d..%d: %s" % (got[0], got[1], tab.eval("document.getElementById('tl-label').textContent")))
        if got != [lo, hi]:
            bad.append("the drag over points %d..%d selected %s" % (lo, hi, got))
        print("calls head: %s" % calls_head())
        rows = tab.eval(ROWS)
        total = sum(c for r, s, c in prof["readings"] if r in chosen)
        shares = []
        for f in funcs:
            own, tot = count.count(f, chosen)
            r = rows.get(f)
            print("selected %s: self %s total %s of %d; file: self %d total %d" % (
                f, r[2] if r else "-", r[4] if r else "-", total, own, tot))
            if (r and [r[2], r[4]] != [str(own), str(tot)]) or (not r and tot):
                bad.append("selected %s: the page shows %s, the file's readings self %d total %d" % (f, r, own, tot))
            shares.append(100.0 * tot / total if total else 0)
        if len(funcs) >= 2 and a.until is not None:
            print("first phase: %s %s (%.0f%%), %s %s" % (
                funcs[0], "dominates" if shares[0] >= 80 else "does not dominate", shares[0],
                funcs[1], "vanishes" if shares[1] <= 5 else "stays (%.0f%%)" % shares[1]))
        tab.eval("document.getElementById('tl-clear').click()")
        again = tab.eval(ROWS)
        same = sum(1 for k in whole if again.get(k) == whole[k])
        print("cleared: %s; %d rows as before%s; calls head: %s" % (
            tab.eval("document.getElementById('tl-label').textContent") or "(no label)",
            same, "" if same == len(whole) and len(again) == len(whole) else " of %d" % len(whole),
            calls_head()))
        if again != whole:
            bad.append("clearing the selection did not give the whole run's rows back")
    if tl and a.thread:
        choose_thread(tab, a.thread, bad)
        print("thread %s: lines %s" % (a.thread, ", ".join(tab.eval(
            "Array.prototype.map.call(document.querySelectorAll('#timeline polyline'),"
            " function (p) { return p.getAttribute('data-line') + ' ' + p.getAttribute('points').trim().split(' ').length; })"))))
    finish(b, bad)


main()
