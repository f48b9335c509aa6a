#!/usr/bin/python3
"""plot_check.py SVG REPORT_JSON WORKDIR BUSY IDLE - check a `vigil plot`
SVG in headless Chromium (issue 10, point 4), for a run in which thread
BUSY spun and thread IDLE slept:

  1. opened as is, the rendered DOM holds a CPU series and a legend entry
     for every thread of the profile (names from `vigil report --json`,
     REPORT_JSON), the RSS series and the host CPU series;
  2. each thread series' CPU time over the run (data-cpu-ns) is exactly
     the report's cpu_run_ns for that tid;
  3. its screenshot is not blank, and BUSY's colour covers more than ten
     times the pixels of IDLE's (whose only pixels may be its legend
     swatch): the busy thread's area is drawn much larger;
  4. inlined in a page whose script plays a user: a mousemove over BUSY's
     area shows the tooltip with its name, tid and value;
  5. a click in the middle of BUSY's area zooms every panel to a quarter
     of the run around the click's time (the svg's data-view), every time
     axis is ticked inside that window, the area is drawn 4 times wider,
     and the tooltip at the same point says the same; "Reset zoom" shows
     the whole run again, ticked as first drawn;
  6. "Search" (window.prompt answering BUSY) highlights BUSY's series and
     legend entry, dims every other thread's, and says how many matched;
     an empty search clears it.

Prints what it found, one fact a line (the tooltip's text last); exits 1
with a line per problem."""

import json
import os
import re
import sys

from headless import Browser, png_counts  # noqa: E402


PAGE = """<!DOCTYPE html><html><body style="margin:0">%s
<pre id="result"></pre>
<script>
var out = {}, svg = document.querySelector('svg'), busy = %s;
function click(el, e) { el.dispatchEvent(new MouseEvent('click', e || {bubbles: true})); }
function ticks() {
  return ['cpu', 'memory', 'host'].map(function (id) {
    return Array.prototype.map.call(svg.querySelectorAll('#' + id + ' g.taxis text'),
      function (t) { return t.textContent; }); });
}
function names(sel) {
  return Array.prototype.map.call(svg.querySelectorAll(sel),
    function (p) { return p.getAttribute('data-name'); }).sort();
}
var p = svg.querySelector('#cpu .series[data-name="' + busy + '"]');
var r = p.getBoundingClientRect();
var e = {bubbles: true, clientX: r.left + r.width / 2, clientY: r.top + r.height - 2};
p.dispatchEvent(new MouseEvent('mouseover', e));
p.dispatchEvent(new MouseEvent('mousemove', e));
var tip = svg.querySelector('#tip');
out.visible = tip.getAttribute('visibility');
out.text = tip.querySelector('text').textContent;
out.hover = svg.getAttribute('data-hover');
p.dispatchEvent(new MouseEvent('mouseout', e));
out.after = tip.getAttribute('visibility');
/* The time under the click, in the whole run's axis (x0 90, x1 920). */
var m = svg.getScreenCTM();
out.span_attr = svg.getAttribute('data-span');
out.span = +out.span_attr;
out.t_click = ((e.clientX - m.e) / m.a - 90) / 830 * out.span;
out.view0 = svg.getAttribute('data-view');
out.ticks0 = ticks();
out.width0 = p.getBoundingClientRect().width;
click(p, e);
out.view1 = svg.getAttribute('data-view');
out.ticks1 = ticks();
out.width1 = p.getBoundingClientRect().width;
p.dispatchEvent(new MouseEvent('mousemove', e));
out.text1 = tip.querySelector('text').textContent;
p.dispatchEvent(new MouseEvent('mouseout', e));
click(svg.querySelector('#unzoom'));
out.view2 = svg.getAttribute('data-view');
out.ticks2 = ticks();
out.width2 = p.getBoundingClientRect().width;
/* The user clicks "Search" and types the busy thread's name. */
window.prompt = function () { return busy; };
click(svg.querySelector('#search'));
out.match = names('#cpu path.match');
out.dim = names('#cpu path.dim');
out.legend_match = names('g.legend.match');
out.legend_dim = names('g.legend.dim');
out.opacity = {};
Array.prototype.forEach.call(svg.querySelectorAll('#cpu .series[data-tid]'), function (s) {
  out.opacity[s.getAttribute('data-name')] = getComputedStyle(s).opacity; });
out.matched = svg.querySelector('#matched').textContent;
window.prompt = function () { return ''; };
click(svg.querySelector('#search'));
out.cleared = svg.querySelectorAll('.match, .dim').length;
document.getElementById('result').textContent = JSON.stringify(out);
</script></body></html>"""


def check_zoom(res, busy, bad):
    """Prints what the click, the reset and the search did (from the
    page's RESult) one fact a line; appends what is wrong to bad."""
    span = res["span"]
    a, b = (float(x) for x in res["view1"].split(","))
    ok = res["view0"] == "0," + res["span_attr"] \
        and abs((b - a) - span / 4) < span * 1e-9 and a <= res["t_click"] <= b
    print("click: a quarter of the run around the click:", "yes" if ok else
          "no (%s -> %s, click at %g s)" % (res["view0"], res["view1"], res["t_click"]))
    if not ok:
        bad.append("the click did not zoom to a quarter of the run around it")
    t1 = [[float(x) for x in panel] for panel in res["ticks1"]]
    ok = t1[0] and len(t1[0]) >= 2 and all(p == t1[0] for p in t1) \
        and all(a - 1e-9 * span <= t <= b + 1e-9 * span for t in t1[0]) \
        and res["ticks1"] != res["ticks0"]
    print("click: every time axis ticks the window:", "yes" if ok else
          "no (%s in %g..%g)" % (res["ticks1"], a, b))
    if not ok:
        bad.append("the time axes after the click do not tick its window")
    ratio = res["width1"] / res["width0"] if res["width0"] else 0
    print("click: busy area drawn 4 x wider:", "yes" if abs(ratio - 4) < 0.01
          else "no (%.3f x)" % ratio)
    if abs(ratio - 4) >= 0.01:
        bad.append("the busy area is %.3f x as wide after the click" % ratio)
    same = res["text1"] == res["text"]
    print("click: tooltip under the pointer unchanged:", "yes" if same else
          "no (%s)" % res["text1"])
    if not same:
        bad.append("the tooltip at the click's point changed with the zoom")
    ok = res["view2"] == res["view0"] and res["ticks2"] == res["ticks0"] \
        and abs(res["width2"] - res["width0"]) < 0.01
    print("reset: the whole run, ticks as first drawn:", "yes" if ok else
          "no (%s, %s)" % (res["view2"], res["ticks2"]))
    if not ok:
        bad.append("Reset zoom did not show the whole run as first drawn")
    print("search %s: highlighted %s; dimmed %s" % (
        busy, " ".join(res["match"]), " ".join(res["dim"])))
    print("search legend: highlighted %s; dimmed %s" % (
        " ".join(res["legend_match"]), " ".join(res["legend_dim"])))
    print("search opacity:", " ".join("%s %s" % (k, res["opacity"][k])
                                      for k in sorted(res["opacity"])))
    print("search says:", res["matched"])
    print("search cleared: %d highlighted or dimmed" % res["cleared"])


def attrs(tag):
    return dict(re.findall(r'([\w-]+)="([^"]*)"', tag))


def main():
    svg, report, work, busy, idle = sys.argv[1:6]
    text = open(svg).read()
    rep = json.load(open(report))["sampled"]
    bad = []

    browser = Browser()
    url = "file://" + os.path.abspath(svg)
    dom = browser.open(url).settled()
    series = [attrs(m) for m in re.findall(r'<path class="series"[^>]*>', dom)]
    threads = {s["data-tid"]: s for s in series if s.get("data-tid")}
    legend = re.findall(r'<g class="legend"[^>]*>.*?<text[^>]*>(.*?)</text>', dom)
    print("thread series:", " ".join(sorted(s["data-name"] for s in threads.values())))
    print("other series:", " ".join(s["data-name"] for s in series
                                     if "data-tid" not in s))
    for t in rep["threads"]:
        s = threads.get(str(t["tid"]))
        if not s or s["data-name"] != t["name"]:
            bad.append("no series for thread %d %s" % (t["tid"], t["name"]))
            continue
        if int(s["data-cpu-ns"]) != t["cpu_run_ns"]:
            bad.append("thread %s: %s ns drawn, report says %d"
                       % (t["name"], s["data-cpu-ns"], t["cpu_run_ns"]))
        if not any(l.startswith("%s (tid %d) " % (t["name"], t["tid"]))
                   for l in legend):
            bad.append("no legend entry for %s (tid %d)" % (t["name"], t["tid"]))
    print("threads as in the report:", "no" if bad else "yes")

    named = {s["data-name"]: s for s in threads.values()}
    tab = browser.open(url, (1200, 900))
    tab.settled()
    counts = png_counts(tab.screenshot(os.path.join(work, "shot.png")))
    if len(counts) < 5:
        bad.append("the screenshot is blank (%d colours)" % len(counts))

    def pixels(name):
        c = named[name]["fill"]
        return counts.get(tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)), 0)
    if busy in named and idle in named:
        pb, pi = pixels(busy), pixels(idle)
        print("busy pixels > 10 x idle pixels:", "yes" if pb > 10 * pi else
              "no (%d, %d)" % (pb, pi))
        cb, ci = int(named[busy]["data-cpu-ns"]), int(named[idle]["data-cpu-ns"])
        print("busy cpu > 10 x idle cpu:", "yes" if cb > 10 * ci else
              "no (%d, %d)" % (cb, ci))

    body = text[text.index("<svg"):]
    page = os.path.join(work, "page.html")
    with open(page, "w") as f:
        f.write(PAGE % (body, json.dumps(busy)))
    tab = browser.open("file://" + os.path.abspath(page))
    out = tab.result()
    browser.close()
    result = json.loads(out) if out else None
    if result is None:
        bad.append("the page's script gave no result")
    else:
        print("tooltip:", result["visible"], "then", result["after"])
        print("hover:", result["hover"])
        print("tooltip text:", result["text"])
        check_zoom(result, busy, bad)
    for b in bad:
        print(b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
