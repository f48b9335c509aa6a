#!/usr/bin/python3
"""speedscope_check.py PROFILE... - open each PROFILE (a `vigil convert
--to pprof` or `--to folded` file) in speedscope, the npm package that
scripts/install-deps.sh installs into build/npm, in headless Chromium
(issue 10, point 3), and print what speedscope shows of it.

speedscope fetches a profile named by its #profileURL= hash only over
http, so this serves speedscope's page and the profiles from a small HTTP
server on the loopback interface (a free port, ended before exit).  The
page opens in the Sandwich view (#view=sandwich), whose table is DOM,
not canvas: one row per function with its total and self values.

For each PROFILE, in order: the page's title (speedscope puts the
profile's name there once it has imported it) and each row of the table
as "total | self | name", in speedscope's order (most self first); then
how many frame colours a screenshot of the Left Heavy view (its flame
chart, drawn with WebGL) holds: one per function when it is drawn.  The
view is switched by a click on speedscope's own "Left Heavy" tab, as a
user would, not by loading the page again.  One browser for all of
them: its start and each load of speedscope's page are most of a
check's CPU (a load ~1.8 s of it on a 2-core VM).  Exits 1 when a table
is empty.  A profile speedscope cannot import stops its page at an
alert(): an error line naming it, exit 1 (tests/e2e/headless.py)."""

import functools
import html
import http.server
import os
import re
import shutil
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from headless import Browser, png_counts  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("VIGIL_BUILD") or os.path.join(ROOT, "build")
SPEEDSCOPE = os.path.join(BUILD, "npm", "node_modules", "speedscope", "dist",
                          "release")


def frame_colours(png):
    """The colours that fill at least 2000 pixels of the screenshot, but
    for greys (background, text, grid lines): speedscope's frames, one
    colour per function, in its flame chart (WebGL canvas) and minimap."""
    return len([c for c, n in png_counts(png).items()
                if n >= 2000 and not c[0] == c[1] == c[2]])


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def show(browser, base, name, shot):
    """What speedscope shows of the profile served as base + name: the
    Sandwich view's DOM, and the Left Heavy view's frame colours (its
    screenshot saved as shot)."""
    page = base + "index.html#profileURL=" + base + name
    # speedscope fetches the profile and draws the table after the load:
    # waited for (what --virtual-time-budget did), up to the browser's
    # deadline; without rows, said by the caller.
    tab = browser.open(page + "&view=sandwich")
    tab.wait_for("document.querySelector('tr[class]')")
    dom = tab.settled()
    # The flame chart (WebGL) of the Left Heavy view is drawn once the
    # profile is imported (the title then names it), on an animation
    # frame: shot until two shots are the same.  The tab is a <div> of
    # the toolbar whose text ends "Left Heavy" (after its emoji).
    tab.call("Emulation.setDeviceMetricsOverride",
             {"width": 1000, "height": 500, "deviceScaleFactor": 1,
              "mobile": False})
    tab.wait_for("document.title.indexOf(' - speedscope') > 0")
    if not tab.eval("""(function () {
        var tabs = Array.prototype.filter.call(
            document.querySelectorAll('div'), function (d) {
                return d.childElementCount === 1 &&
                    /Left Heavy$/.test(d.textContent);
            });
        if (tabs.length !== 1)
            return false;
        tabs[0].click();
        return true;
    })()"""):
        print("no Left Heavy tab in speedscope's toolbar")
        sys.exit(1)
    colours = frame_colours(tab.stable_screenshot(shot))
    return dom, colours


def main():
    profiles = sys.argv[1:]
    if not profiles:
        sys.exit("usage: speedscope_check.py PROFILE...")
    if not os.path.isfile(os.path.join(SPEEDSCOPE, "index.html")):
        sys.exit("speedscope is not installed in %s (scripts/install-deps.sh check)"
                 % SPEEDSCOPE)
    site = tempfile.mkdtemp(prefix="speedscope.")
    shown = []
    try:
        for name in os.listdir(SPEEDSCOPE):
            os.symlink(os.path.join(SPEEDSCOPE, name), os.path.join(site, name))
        names = []
        for i, profile in enumerate(profiles):
            # Each in a directory of its own: two profiles may share a
            # name, and the name is what the title shows.
            d = os.path.join(site, "p%d" % i)
            os.mkdir(d)
            shutil.copy(profile, d)
            names.append("p%d/%s" % (i, os.path.basename(profile)))
        server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Quiet, directory=site))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = "http://127.0.0.1:%d/" % server.server_address[1]
        try:
            browser = Browser()
            for name in names:
                shown.append(show(browser, base, name,
                                  os.path.join(site, "shot.png")))
            browser.close()
        finally:
            server.shutdown()
            server.server_close()
    finally:
        shutil.rmtree(site)
    empty = False
    for dom, colours in shown:
        title = re.search(r"<title>(.*?)</title>", dom, re.S)
        print("title:", html.unescape(title.group(1)) if title else None)
        rows = 0
        for tr in re.findall(r"<tr class[^>]*>(.*?)</tr>", dom, re.S):
            cells = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip()
                     for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
            print(" | ".join(cells))
            rows += 1
        print("flame chart frame colours:", colours)
        if not rows:
            print("no table rows in speedscope's page")
            empty = True
    if empty:
        sys.exit(1)


main()
