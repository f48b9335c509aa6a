#!/usr/bin/python3
"""speedscope_check.py PROFILE - open PROFILE (a `vigil convert --to
pprof` or `--to folded` file) in speedscope, the npm package that
scripts/install-deps.sh installs into build/npm, in headless Chromium
(issue 10, point 3), and print what speedscope shows of it.

speedscope fetches a profile named by its #profileURL= hash only over
http, so this serves speedscope's page and PROFILE from a small HTTP
server on the loopback interface (a free port, ended before exit).  The
page opens in the Sandwich view (#view=sandwich), whose table is DOM,
not canvas: one row per function with its total and self values.

Prints the page's title (speedscope puts the profile's name there once it
has imported it) and each row of the table as "total | self | name", in
speedscope's order (most self first); then how many frame colours a
screenshot of the Left Heavy view (its flame chart, drawn with WebGL)
holds: one per function when it is drawn.  Exits 1 when the table is
empty.  A profile speedscope cannot import stops its page at an alert():
an error line naming it, exit 1 (tests/e2e/headless.py)."""

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


def main():
    profile = sys.argv[1]
    if not os.path.isfile(os.path.join(SPEEDSCOPE, "index.html")):
        sys.exit("speedscope is not installed in %s (scripts/install-deps.sh check)"
                 % SPEEDSCOPE)
    site = tempfile.mkdtemp(prefix="speedscope.")
    try:
        for name in os.listdir(SPEEDSCOPE):
            os.symlink(os.path.join(SPEEDSCOPE, name), os.path.join(site, name))
        name = os.path.basename(profile)
        shutil.copy(profile, os.path.join(site, name))
        server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Quiet, directory=site))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = "http://127.0.0.1:%d/" % server.server_address[1]
        page = base + "index.html#profileURL=" + base + name
        try:
            browser = Browser()
            # speedscope fetches the profile and draws the table after
            # the load: waited for (what --virtual-time-budget did), up to
            # the browser's deadline; without rows, said below.
            tab = browser.open(page + "&view=sandwich")
            tab.wait_for("document.querySelector('tr[class]')")
            dom = tab.settled()
            # The flame chart (WebGL) of the Left Heavy view is drawn
            # once the profile is imported (the title then names it), on
            # an animation frame: shot until two shots are the same.
            tab = browser.open(page + "&view=left-heavy", (1000, 500))
            tab.wait_for("document.title.indexOf(' - speedscope') > 0")
            colours = frame_colours(tab.stable_screenshot(
                os.path.join(site, "shot.png")))
            browser.close()
        finally:
            server.shutdown()
            server.server_close()
    finally:
        shutil.rmtree(site)
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
        sys.exit(1)


main()
