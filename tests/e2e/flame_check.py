#!/usr/bin/python3
"""flame_check.py SVG WORKDIR NAME... - check a `vigil flame` SVG in
headless Chromium (issue 10, point 4):

  1. opened as is, the rendered DOM holds a frame for each NAME;
  2. its screenshot is not blank: it holds the colour of NAME[0]'s frame
     (read from the SVG) and several others;
  3. inlined in a page whose script plays a user: a mouseover on NAME[1]
     fills the details line with its name, calls and share; a click on it
     zooms (its frame spans the whole width, the frames outside it are
     hidden); search(NAME[0]) highlights every frame of NAME[0].

With --fills first (for differential graphs), the result also holds
"fills": each frame's path ("main;eval;lex") and the fill of its
rectangle as the browser has it, and the screenshot must hold the fill
of every frame wider than 20 pixels.

Prints what it found as one JSON line; exits 1 with a line per problem."""

import json
import os
import re
import sys

from headless import Browser, png_counts  # noqa: E402


PAGE = """<!DOCTYPE html><html><body>%s
<pre id="result"></pre>
<script>
var out = {}, svg = document.querySelector('svg');
function frame(n) { return svg.querySelector('g.f[data-name="' + n + '"]'); }
var g = frame(%s);
g.dispatchEvent(new MouseEvent('mouseover', {bubbles: true}));
out.details = svg.querySelector('#details').textContent;
g.dispatchEvent(new MouseEvent('click', {bubbles: true}));
out.zoomed = svg.getAttribute('data-zoomed');
out.zoomed_width = +g.querySelector('rect').getAttribute('width');
out.hidden = Array.prototype.filter.call(svg.querySelectorAll('g.f'),
  function (f) { return f.style.display === 'none'; })
  .map(function (f) { return f.getAttribute('data-name'); }).sort();
out.matches = window.vigilFlame.search(%s);
out.highlighted = svg.querySelectorAll('g.match').length;
out.matched = svg.querySelector('#matched').textContent;
if (%s) {
  window.vigilFlame.search('');
  window.vigilFlame.unzoom();
  var all = Array.prototype.slice.call(svg.querySelectorAll('g.f'));
  out.fills = {};
  all.forEach(function (f) {
    var x = +f.getAttribute('data-x'), d = +f.getAttribute('data-depth');
    if (!d) return;
    var path = all.filter(function (g) {
      var gx = +g.getAttribute('data-x'), gw = +g.getAttribute('data-w');
      var gd = +g.getAttribute('data-depth');
      return gd > 0 && gd < d && gx <= x + 1e-9 && x < gx + gw - 1e-9;
    }).sort(function (a, b) { return a.getAttribute('data-depth') - b.getAttribute('data-depth'); })
      .map(function (g) { return g.getAttribute('data-name'); });
    path.push(f.getAttribute('data-name'));
    out.fills[path.join(';')] = getComputedStyle(f.querySelector('rect')).fill;
  });
}
document.getElementById('result').textContent = JSON.stringify(out);
</script></body></html>"""


def main():
    fills = sys.argv[1] == "--fills"
    if fills:
        del sys.argv[1]
    svg, work, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    text = open(svg).read()
    bad = []
    browser = Browser()
    url = "file://" + os.path.abspath(svg)
    tab = browser.open(url)
    dom = tab.settled()
    for n in names:
        if 'data-name="%s"' % n not in dom:
            bad.append("no frame %s in the rendered DOM" % n)
    m = re.search(r'data-name="%s"[^>]*>.*?fill="rgb\((\d+),(\d+),(\d+)\)"'
                  % re.escape(names[0]), text)
    tab = browser.open(url, (1200, 400))
    tab.settled()
    shot = tab.screenshot(os.path.join(work, "shot.png"))
    colours = set(png_counts(shot))
    if not m or tuple(int(x) for x in m.groups()) not in colours:
        bad.append("the screenshot lacks %s's colour" % names[0])
    if len(colours) < 5:
        bad.append("the screenshot is blank (%d colours)" % len(colours))
    body = text[text.index("<svg"):]
    page = os.path.join(work, "page.html")
    with open(page, "w") as f:
        f.write(PAGE % (body, json.dumps(names[1]), json.dumps(names[0]),
                        "true" if fills else "false"))
    tab = browser.open("file://" + os.path.abspath(page))
    out = tab.result()
    browser.close()
    result = json.loads(out) if out else None
    print(json.dumps(result, sort_keys=True))
    if result is None:
        bad.append("the page's script gave no result")
    if fills:
        for g in re.finditer(r'data-pw="([0-9.]+)"[^>]*>.*?fill="rgb\((\d+),(\d+),(\d+)\)"', text):
            rgb = tuple(int(x) for x in g.groups()[1:])
            if float(g.group(1)) > 20 and rgb not in colours:
                bad.append("the screenshot lacks the fill rgb%s" % (rgb,))
    for b in bad:
        print(b)
    sys.exit(1 if bad else 0)


main()
