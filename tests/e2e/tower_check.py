#!/usr/bin/python3
"""tower_check.py SVG WORKDIR NAME LEVELS SHARE - a recursion drawn as a
tower in a `vigil flame` SVG, checked in headless Chromium (issue 16).

The SVG, inlined in a page, is laid out by the browser (its own script
included); a script then reads the boxes the browser gives the frames
named NAME and, for each, the longest chain of them it tops in which each
one is drawn above the one before (its bottom at or above the other's
top) and within its horizontal extent: one recursion level on top of the
other.  It holds when a chain of at least LEVELS frames has a top at
least SHARE (0..1) of the width of the graph's root, and a screenshot of
the SVG shows NAME's colour (the tower is painted, not only in the DOM).

Prints the tallest chain and the widest top of one of >= LEVELS frames
as one line "tower N share S"; exits 1 with a line per problem."""

import json
import os
import re
import sys

from headless import Browser, png_counts  # noqa: E402

PAGE = """<!DOCTYPE html><html><body style="margin:0">%s
<pre id="result"></pre>
<script>
// After the SVG's own script has laid the frames out (at load).
window.addEventListener('load', function () { setTimeout(function () {
var svg = document.querySelector('svg');
function box(g) { return g.querySelector('rect').getBoundingClientRect(); }
var root = box(svg.querySelector('g.f[data-depth="0"]'));
var fs = Array.prototype.map.call(
  svg.querySelectorAll('g.f[data-name=' + JSON.stringify(%s) + ']'), box)
  .filter(function (b) { return b.width > 0 && b.height > 0; });
// Lowest first; best[i]: the longest chain ending at fs[i].
fs.sort(function (a, b) { return b.top - a.top; });
var best = fs.map(function () { return 1; });
for (var i = 0; i < fs.length; i++)
  for (var j = 0; j < i; j++) {
    var a = fs[j], b = fs[i];
    if (b.bottom <= a.top + 0.5 && b.left >= a.left - 0.5 &&
        b.right <= a.right + 0.5 && best[j] + 1 > best[i])
      best[i] = best[j] + 1;
  }
// Each frame: the levels of the tallest tower it tops, its share of the
// root's width.
document.getElementById('result').textContent = JSON.stringify(
  fs.map(function (f, i) { return [best[i], f.width / root.width]; }));
}, 0); });
</script></body></html>"""


def main():
    svg, work, name = sys.argv[1], sys.argv[2], sys.argv[3]
    levels, share = int(sys.argv[4]), float(sys.argv[5])
    text = open(svg).read()
    bad = []
    page = os.path.join(work, "tower.html")
    with open(page, "w") as f:
        f.write(PAGE % (text[text.index("<svg"):], json.dumps(name)))
    browser = Browser()
    tab = browser.open("file://" + os.path.abspath(page), (1200, 2000))
    # The script runs after the load (a timeout of 0): waited for.
    out = tab.result()
    res = json.loads(out) if out else []
    tall = max([lv for lv, _ in res] or [0])
    wide = max([w for lv, w in res if lv >= levels] or [0])
    print("tower %d share %.2f" % (tall, wide))
    if tall < levels:
        bad.append("%s: a tower of %d frames at most, want >= %d"
                   % (name, tall, levels))
    elif wide < share:
        bad.append("%s: the widest top of a tower of >= %d frames is %.2f "
                   "of the width, want >= %.2f" % (name, levels, wide, share))
    m = re.search(r'data-name="%s"[^>]*>.*?fill="rgb\((\d+),(\d+),(\d+)\)"'
                  % re.escape(name), text)
    tab = browser.open("file://" + os.path.abspath(svg), (1200, 2000))
    tab.settled()
    shot = tab.screenshot(os.path.join(work, "tower.png"))
    browser.close()
    if not m or tuple(int(x) for x in m.groups()) not in set(png_counts(shot)):
        bad.append("the screenshot lacks %s's colour" % name)
    for b in bad:
        print(b)
    sys.exit(1 if bad else 0)


main()
