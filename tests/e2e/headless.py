"""headless.py - what the browser checks share: one headless Chromium per
check, driven over the DevTools protocol (`Browser`), and the pixels of
the PNG screenshots it takes (`png_counts`), read here without a library
so the checks need nothing but Debian's chromium and Python.

A check used to start a fresh `chromium --headless --dump-dom` (or
--screenshot) per page, each ~2.3 s of CPU; it now starts one browser
(--remote-debugging-pipe: commands on its fd 3, replies on its fd 4, JSON
messages ended by a NUL) and shows each page in turn in one tab.  What
--virtual-time-budget gave (the page's scripts done before it is read) is
waited for here instead: the load event, then, for pages whose scripts
finish later, the element they write their result to (`Tab.wait_for`),
then a DOM that no longer changes (`Tab.settled`).  Every wait has a
deadline; past it, or if Chromium dies, the check exits with one line.
Chromium runs in a process group of its own, killed when the check ends
whatever way it ends, so that no browser outlives it."""

import atexit
import base64
import fcntl
import json
import os
import select
import shutil
import signal
import struct
import sys
import tempfile
import time
import zlib
from collections import Counter
from itertools import accumulate

CHROME = ["chromium", "--headless", "--no-sandbox", "--disable-gpu",
          "--allow-file-access-from-files", "--remote-debugging-pipe",
          "--no-first-run", "--no-default-browser-check",
          "--disable-extensions", "--disable-background-networking",
          "--disable-sync", "--mute-audio", "--hide-scrollbars"]

# Generous: the suite runs its tests CPUs + 1 at a time on a loaded
# machine, and a browser start there has been seen to take 20 s.
# VIGIL_HEADLESS_TIMEOUT: shorter, for the test of the deadline itself.
TIMEOUT = int(os.environ.get("VIGIL_HEADLESS_TIMEOUT") or 90)


def fail(msg):
    """One line on stderr and exit 1 (the atexit hook ends Chromium)."""
    sys.stderr.write("headless: %s\n" % msg)
    sys.exit(1)


class Browser:
    """One headless Chromium, for the life of the check (or a with)."""

    def __init__(self, timeout=TIMEOUT):
        self.timeout = timeout
        self.next_id = 0
        self.buf = b""
        self.events = []
        self.tab = None
        self.err = tempfile.TemporaryFile()
        self.profile = tempfile.mkdtemp(prefix="headless.")
        to_r, to_w = os.pipe()      # our commands -> its fd 3
        from_r, from_w = os.pipe()  # its fd 4 -> our replies
        # Copies above fds 3 and 4, which the child's dup2s overwrite.
        hi = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
              for fd in (to_r, from_w)]
        null = os.open(os.devnull, os.O_RDWR)
        try:
            # posix_spawn, not fork+exec with a preexec_fn: some checks
            # run an HTTP server thread; setpgroup: its own group, so
            # that the renderers and the zygote die with it (close()).
            self.pid = os.posix_spawnp(
                CHROME[0], CHROME + ["--user-data-dir=" + self.profile,
                                     "about:blank"], os.environ,
                file_actions=[(os.POSIX_SPAWN_DUP2, null, 0),
                              (os.POSIX_SPAWN_DUP2, null, 1),
                              (os.POSIX_SPAWN_DUP2, self.err.fileno(), 2),
                              (os.POSIX_SPAWN_DUP2, hi[0], 3),
                              (os.POSIX_SPAWN_DUP2, hi[1], 4)],
                setpgroup=0)
        except OSError as e:
            shutil.rmtree(self.profile, ignore_errors=True)
            fail("cannot start chromium: %s" % e)
        finally:
            for fd in [to_r, from_w, null] + hi:
                os.close(fd)
        self.wfd, self.rfd = to_w, from_r
        self.status = None
        atexit.register(self.close)
        # lit's timeout, or a ^C: still no browser left behind.
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, lambda s, f: sys.exit(128 + s))
        self.call("Target.setDiscoverTargets", {"discover": False})

    def died(self, what):
        """Chromium has gone: fail with its status and last stderr line."""
        # Its pipe closes a moment before it exits: its status, if it
        # comes within a few seconds.
        end = time.monotonic() + 5
        while self.status is None and time.monotonic() < end:
            pid, st = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(st)
            else:
                time.sleep(0.05)
        self.err.seek(0)
        lines = [l for l in self.err.read().decode(errors="replace")
                 .splitlines() if l.strip()]
        fail("chromium %s (%s)%s" % (
            what, "still running" if self.status is None else
            "exit status %d" % self.status,
            ": " + lines[-1][-300:] if lines else ""))

    def close(self):
        """Kill Chromium's process group: nothing to save in its
        throw-away profile, and a polite Browser.close costs CPU and
        up to seconds of waiting."""
        if self.pid is None:
            return
        for fd in (self.wfd, self.rfd):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if self.status is None:
            os.waitpid(self.pid, 0)
        self.pid = None
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read(self, deadline, what):
        """The next message from Chromium, or fail at the deadline."""
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                fail("no answer from chromium to %s within %d s"
                     % (what, self.timeout))
            r, _, _ = select.select([self.rfd], [], [], left)
            if r:
                chunk = os.read(self.rfd, 1 << 20)
                if not chunk:
                    self.died("exited while waiting for %s" % what)
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        m = json.loads(msg)
        # An alert() holds its page (and our evaluations in it) for ever.
        if m.get("method") == "Page.javascriptDialogOpening":
            fail("a page stopped at a %s while waiting for %s: %s" % (
                m["params"].get("type"), what, m["params"].get("message")))
        return m

    def call(self, method, params=None, session=None, timeout=None):
        """Send a command, return its result (fail on an error reply)."""
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        try:
            os.write(self.wfd, json.dumps(msg).encode() + b"\0")
        except BrokenPipeError:
            # Gone before the write or after it: which one is a race
            # (the suite under load saw both), so one message for both.
            self.died("exited while waiting for %s" % method)
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            m = self._read(deadline, method)
            if m.get("id") == self.next_id:
                if "error" in m:
                    fail("chromium: %s: %s" % (method, m["error"].get("message")))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def event(self, method, session, match=lambda p: True, timeout=None):
        """Wait for an event of the session whose params match (kept
        ones first)."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for i, m in enumerate(self.events):
                if m["method"] == method and m.get("sessionId") == session \
                        and match(m["params"]):
                    return self.events.pop(i)
            m = self._read(deadline, "the event " + method)
            if "method" in m:
                self.events.append(m)

    def open(self, url, size=None):
        """The browser's tab, showing url, loaded; size (width, height):
        its viewport, as --window-size gave it (else the default one).
        One tab for every page: a new one costs a renderer process
        (~0.6 s of CPU), a navigation in it ~0.2 s."""
        if self.tab is None:
            target = self.call("Target.createTarget",
                               {"url": "about:blank"})["targetId"]
            session = self.call("Target.attachToTarget",
                                {"targetId": target, "flatten": True})["sessionId"]
            self.tab = Tab(self, target, session)
            self.tab.call("Page.enable")
            self.tab.call("Page.setLifecycleEventsEnabled", {"enabled": True})
        if size:
            self.tab.call("Emulation.setDeviceMetricsOverride",
                          {"width": size[0], "height": size[1],
                           "deviceScaleFactor": 1, "mobile": False})
        else:
            self.tab.call("Emulation.clearDeviceMetricsOverride")
        # A URL that differs from the one shown only after its '#' would
        # not load the page again (a same-document navigation).
        if self.tab.url.split("#")[0] == url.split("#")[0] != url:
            self.tab.navigate("about:blank")
        self.tab.navigate(url)
        return self.tab


class Tab:
    """A page in the browser, attached to in flat mode (sessionId)."""

    def __init__(self, browser, target, session):
        self.b, self.target, self.session = browser, target, session
        self.url = "about:blank"

    def call(self, method, params=None, timeout=None):
        return self.b.call(method, params, self.session, timeout)

    def navigate(self, url):
        r = self.call("Page.navigate", {"url": url})
        if r.get("errorText"):
            fail("chromium cannot open %s: %s" % (url, r["errorText"]))
        # The load event of this navigation, not of the tab's about:blank.
        self.b.event("Page.lifecycleEvent", self.session,
                     lambda p: p["name"] == "load"
                     and p["loaderId"] == r["loaderId"])
        self.b.events = [m for m in self.b.events
                         if m.get("sessionId") != self.session]
        self.url = url

    def eval(self, expr, timeout=None):
        """The value of a JavaScript expression in the page (awaited
        if it is a promise); fails on an exception."""
        r = self.call("Runtime.evaluate", {"expression": expr,
                                           "returnByValue": True,
                                           "awaitPromise": True}, timeout)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            fail("the page's script failed: %s" % d.get("exception", {})
                 .get("description", d.get("text")).splitlines()[0])
        return r["result"].get("value")

    def wait_for(self, expr, timeout=None):
        """Poll until expr is true in the page, as the old virtual time
        budget waited for late scripts; False at the deadline (the
        caller says what is missing)."""
        deadline = time.monotonic() + (timeout or self.b.timeout)
        while True:
            if self.eval("!!(%s)" % expr):
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)

    def result(self, timeout=30):
        """The text a check's page writes into its <pre id="result">
        when its script is done, waited for; "" if it never does."""
        expr = "document.getElementById('result').textContent"
        self.wait_for(expr, timeout)
        return self.eval(expr)

    def settled(self, quiet=0.3):
        """Wait until the DOM has not changed for quiet seconds (what was
        drawn after the load has been drawn), then return it as
        --dump-dom printed it."""
        dom = self.eval("document.documentElement.outerHTML")
        deadline = time.monotonic() + self.b.timeout
        while time.monotonic() < deadline:
            time.sleep(quiet)
            again = self.eval("document.documentElement.outerHTML")
            if again == dom:
                return dom
            dom = again
        fail("the page at %s kept changing for %d s" % (
            self.eval("location.href"), self.b.timeout))

    def stable_screenshot(self, path, tries=20):
        """A screenshot taken once it is the same as the one before
        (what a canvas draws on animation frames has been drawn), after
        two animation frames (draws already asked for run first)."""
        self.eval("new Promise(function (r) { requestAnimationFrame("
                  "function () { requestAnimationFrame(r); }); })")
        last = None
        for _ in range(tries):
            png = self.call("Page.captureScreenshot", {"format": "png"})["data"]
            if png == last:
                break
            last = png
            time.sleep(0.5)
        else:
            fail("the page at %s kept changing for %d screenshots"
                 % (self.eval("location.href"), tries))
        with open(path, "wb") as f:
            f.write(base64.b64decode(png))
        return path

    def screenshot(self, path):
        """The viewport as a PNG file (what --screenshot wrote)."""
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        return path


def png_counts(path):
    """{(r, g, b): pixels} of an 8-bit non-interlaced RGB(A) PNG.

    The filters are undone a row at a time where they allow it: Up (the
    one Chromium picks for most rows) adds the row above byte by byte,
    done here on the row as one big integer without carries between
    bytes; Sub is a running sum along each channel (accumulate).  Only
    Average and Paeth, which depend on the byte just decoded in a way
    no bytes operation does, go byte by byte.  The pixels are then
    counted as 32-bit integers (Counter's loop is C).  A 1200x400
    screenshot of a flame graph: 0.33 s of CPU byte by byte, 0.08 s so
    (4 rows in 5 Up, the rest mostly Paeth)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w, h, bpp = 8, [], 0, 0, 3
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and not interlace
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    assert len(raw) >= h * (stride + 1), "PNG data too short"
    # Bytes of a row as a little-endian integer: the low 7 bits of each
    # byte add without reaching the next byte, the top bits by xor.
    low = int.from_bytes(b"\x7f" * stride, "little")
    top = int.from_bytes(b"\x80" * stride, "little")
    prev = bytes(stride)
    rows = []
    for y in range(h):
        i = y * (stride + 1)
        ftype = raw[i]
        line = raw[i + 1:i + 1 + stride]
        if ftype == 2:
            a, b = int.from_bytes(line, "little"), int.from_bytes(prev, "little")
            line = (((a & low) + (b & low)) ^ ((a ^ b) & top)).to_bytes(stride, "little")
        elif ftype == 1:
            line = bytearray(line)
            for c in range(bpp):
                line[c::bpp] = bytes(map((255).__and__, accumulate(line[c::bpp])))
            line = bytes(line)
        elif ftype in (3, 4):
            line = bytearray(line)
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b = prev[x]
                if ftype == 3:
                    line[x] = (line[x] + (a + b) // 2) & 255
                    continue
                c = prev[x - bpp] if x >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pr) & 255
            line = bytes(line)
        else:
            assert ftype == 0, "PNG filter type %d" % ftype
        rows.append(line)
        prev = line
    img = b"".join(rows)
    quad = bytearray(w * h * 4)
    for c in range(3):
        quad[c::4] = img[c::bpp]
    counts = Counter(memoryview(quad).cast("I"))
    return {tuple(k.to_bytes(4, sys.byteorder)[:3]): n
            for k, n in counts.items()}
