#!/usr/bin/python3
"""view_check.py PAGE.html [options] - drive a `vigil view` page in
headless Chromium as a user would (clicks on column heads, rows and the
graph, typing into the search box, choosing a thread) and print what the
page shows, one fact a line, for FileCheck:

  load: MS ms, F frames, no errors     (or the errors the page threw)
  table: NAME | CALLS | SELF | SELF% | TOTAL | TOTAL% | TIME/CALL
  sort KEY: NAME NAME ...   (after a click on KEY's head; --sort KEY)
  sort KEY again: ...       (a second click: the other direction)
  selected: NAME            (after a click on NAME's row; --select NAME)
  callers: NAME | CALLS | SAMPLES | TIME
  callees: ...
  search TERM: MATCHED; highlighted: NAME NAME   (--search TERM)
  fill PATH: rgb(R,G,B)     (--fills: each frame's fill, by its path)
  hover NAME: DETAILS       (the line under the graph, the mouse on its
                             first frame)
  screenshot: NAME's colour drawn; several colours   (--shot PNG: the
                             pixels of the page's canvas, its frame's fill)
  zoom NAME: WIDTH of WIDTH; drawn: NAME ...     (a click on its frame)
  thread TID: then the graph's frames with their weights ("graph: all 8,
                             run_c 8, c 7"), the table, and the selected
                             function's callers and callees again, for
                             that thread (--thread TID)

  note: TEXT                (--note: the line under the graph that says
                             what it is not)
  dom: N scripts, N images, pwned: false   (--dom: what a name that got
                             out of its string would have added)

--top N: the first N rows of the table (default 8).  --report FILE: the
JSON of `vigil report --json` for the same files (calls beside time, or
one counting profile); every row shown must have that report's calls
(and self and total samples), and "report: N rows agree" is printed.
--edges FILE: a counting profile's `vigil report --json`; the callers'
and callees' calls must be its edges' calls added up per function
("edges: N callers and callees agree"); the JSON has no edges per
thread, so a thread's are pinned in the test.

Exits 1 with a line per problem."""

import argparse
import json
import os
import sys

from headless import Browser, png_counts  # noqa: E402
from view_page import choose_thread, finish  # noqa: E402

TABLE = """(function () {
  var rows = document.querySelectorAll('#flat tbody tr'), out = [];
  for (var i = 0; i < rows.length && i < %d; i++)
    out.push(Array.prototype.map.call(rows[i].cells, function (c) { return c.textContent; }));
  return out;
})()"""

SIDE = """(function (id) {
  return Array.prototype.map.call(document.querySelectorAll('#' + id + ' tbody tr'),
    function (r) { return Array.prototype.map.call(r.cells, function (c) { return c.textContent; }); });
})(%s)"""


def show(x):
    """A name as the check file can hold it: ASCII, else escaped."""
    return x.encode("ascii", "backslashreplace").decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("--sort", action="append", default=[])
    ap.add_argument("--select")
    ap.add_argument("--search")
    ap.add_argument("--thread")
    ap.add_argument("--report")
    ap.add_argument("--edges")
    ap.add_argument("--dom", action="store_true")
    ap.add_argument("--shot")
    ap.add_argument("--note", action="store_true")
    ap.add_argument("--fills", action="store_true")
    a = ap.parse_args()
    bad = []
    b = Browser()
    tab = b.open("file://" + os.path.abspath(a.page), (1200, 900))
    tab.call("Runtime.enable")
    if not tab.wait_for("document.body && document.body.getAttribute('data-ready')"):
        bad.append("the page's script never finished")
        print("\n".join(bad))
        sys.exit(1)
    errors = [m for m in b.events if m.get("method") == "Runtime.exceptionThrown"]
    frames = tab.eval("document.getElementById('flame-box').getAttribute('data-frames')")
    print("load: %s frames, %s" % (frames, "no errors" if not errors else
                                   "errors: %s" % errors[0]["params"]["exceptionDetails"].get("text")))
    if errors:
        bad.append("the page threw")

    def table():
        return tab.eval(TABLE % a.top)

    if a.note:
        print("note: %s" % tab.eval("document.getElementById('note').textContent"))
    if a.dom:
        print("dom: %d scripts, %d images, pwned: %s" % (
            tab.eval("document.scripts.length"),
            tab.eval("document.images.length"),
            json.dumps(tab.eval("'pwned' in window"))))

    def side(i):
        return tab.eval(SIDE % json.dumps(i))

    if a.fills:
        # Each frame by its path, outermost first, with its fill.
        fr = tab.eval("vigilView.frames()")
        path = {}
        for f in sorted(fr, key=lambda f: f["row"]):
            up = [g for g in fr if g["row"] == f["row"] - 1 and g["x"] <= f["x"] + 1e-6 < g["x"] + g["w"]]
            path[id(f)] = (path[id(up[0])] + ";" if up and up[0]["row"] else "") + f["name"]
            if f["row"]:
                print(show("fill %s: %s" % (path[id(f)], f["fill"])))
    rows = table()
    for r in rows:
        print("table: " + show(" | ".join(r)))
    if a.report:
        rep = json.load(open(a.report))
        funcs = rep["functions"]
        agree = 0
        for r in rows:
            f = [g for g in funcs if g["label"] == r[0]]
            if not f:
                bad.append("report has no function %s" % r[0])
                continue
            f = f[0]
            # null calls: an inlined copy (with its hosts), or a
            # function the counting profile has no calls of.
            want = [str(f["calls"]) if f["calls"] is not None else
                    "inlined" if "inlined_into" in f else "not counted"]
            got = [r[1]]
            if "self_samples" in f:
                want += [str(f["self_samples"]), str(f["total_samples"])]
                got += [r[2], r[4]]
            if want != got:
                bad.append("%s: the page shows %s, the report %s" % (r[0], got, want))
            else:
                agree += 1
        print("report: %d rows agree" % agree)
    for key in a.sort:
        for again in ("", " again"):
            tab.eval("document.querySelector('#flat th[data-key=%s]').click()" % json.dumps(key))
            order = [r[0] for r in table()]
            aria = tab.eval("document.querySelector('#flat th[data-key=%s]').getAttribute('aria-sort')" % json.dumps(key))
            print("sort %s%s: %s (%s)" % (key, again, show(" ".join(order)), aria))

    def show_side():
        for s in ("callers", "callees"):
            for r in side(s):
                print("%s: %s" % (s, show(" | ".join(r))))

    edges = json.load(open(a.edges))["edges"] if a.edges else None
    if a.select:
        ok = tab.eval("""(function (n) {
          var rows = document.querySelectorAll('#flat tbody tr');
          for (var i = 0; i < rows.length; i++)
            if (rows[i].cells[0].textContent === n) { rows[i].click(); return true; }
          return false; })(%s)""" % json.dumps(a.select))
        if not ok:
            bad.append("no row %s to click" % a.select)
        print("selected: %s" % show(tab.eval("document.getElementById('selected').textContent")))
        print("selected-stats: %s" % tab.eval("document.getElementById('selected-stats').textContent"))
        show_side()
        if edges is not None:
            agree = 0
            for s, mine, other in (("callers", "callee", "caller"), ("callees", "caller", "callee")):
                for r in side(s):
                    want = sum(e["calls"] for e in edges
                               if e[mine] == a.select and e[other] == r[0])
                    if str(want) != r[1]:
                        bad.append("%s %s: the page shows %s calls, the edges %d" % (s, r[0], r[1], want))
                    else:
                        agree += 1
            print("edges: %d callers and callees agree" % agree)
    if a.search:
        tab.eval("""(function (t) { var s = document.getElementById('search');
          s.value = t; s.dispatchEvent(new Event('input')); })(%s)""" % json.dumps(a.search))
        hl = sorted(set(f["name"] for f in tab.eval("vigilView.frames()") if f["match"]))
        rows_hl = [r[0] for r in table()]
        print(show("search %s: %s; highlighted: %s; table: %s" % (
            a.search, tab.eval("document.getElementById('matched').textContent"),
            " ".join(hl), " ".join(rows_hl))))
        tab.eval("""(function () { var s = document.getElementById('search');
          s.value = ''; s.dispatchEvent(new Event('input')); })()""")
    if a.select:
        # A click on the middle of the function's first frame.
        fr = [f for f in tab.eval("vigilView.frames()") if f["name"] == a.select]
        if fr:
            f = fr[0]
            r = tab.eval("(function () { var r = document.getElementById('flame').getBoundingClientRect();"
                         " return [r.left, r.top, r.width]; })()")
            x, y = r[0] + f["x"] + f["w"] / 2, r[1] + f["row"] * 16 + 8
            tab.eval("document.getElementById('flame').dispatchEvent(new MouseEvent('mousemove', "
                     "{bubbles: true, clientX: %f, clientY: %f}))" % (x, y))
            print(show("hover %s: %s" % (a.select, tab.eval("document.getElementById('details').textContent"))))
            if a.shot:
                png = tab.stable_screenshot(a.shot)
                colours = png_counts(png)
                # The frame's fill, as the page computes it (its name's hash).
                fill = tab.eval("(function (n) { var h = 2166136261 >>> 0;"
                                " for (var c = 0; c < n.length; c++) h = Math.imul(h ^ n.charCodeAt(c), 16777619) >>> 0;"
                                " return [205 + h %% 50, 80 + (h >>> 8) %% 150, (h >>> 16) %% 55]; })(%s)"
                                % json.dumps(a.select))
                print("screenshot: %s's colour %s; %s colours" % (
                    show(a.select), "drawn" if tuple(fill) in colours else "missing",
                    "several" if len(colours) >= 5 else "too few"))
            tab.eval("document.getElementById('flame').dispatchEvent(new MouseEvent('click', "
                     "{bubbles: true, clientX: %f, clientY: %f}))" % (x, y))
            z = [g for g in tab.eval("vigilView.frames()") if g["name"] == a.select]
            print(show("zoom %s: %s; width %d of %d; drawn: %s" % (
                a.select, tab.eval("document.getElementById('flame-box').getAttribute('data-zoomed')"),
                round(z[0]["w"]) if z else -1, round(r[2]),
                " ".join(sorted(set(g["name"] for g in tab.eval("vigilView.frames()")))))))
            tab.eval("document.getElementById('unzoom').click()")
        else:
            print("zoom %s: no frame" % a.select)
    if a.thread:
        choose_thread(tab, a.thread, bad)
        print("thread %s: %s" % (a.thread, tab.eval("document.getElementById('note').textContent")))
        print(show("graph: " + ", ".join("%s %g" % (f["name"], f["weight"]) for f in
                                         sorted(tab.eval("vigilView.frames()"), key=lambda f: (f["row"], f["x"])))))
        for r in table():
            print("table: " + show(" | ".join(r)))
        if a.select:
            print("selected-stats: %s" % tab.eval("document.getElementById('selected-stats').textContent"))
            show_side()
    finish(b, bad)


main()
