#!/usr/bin/python3
"""runtest.py - `vigil run` as harnesses see it: under Python's
Popen(stdout=PIPE, stderr=PIPE).communicate(), and on a terminal.

    runtest.py same --dir DIR --expect RC -- CMD...
        runs CMD alone, then `vigil run -o DIR -- CMD`, both under
        communicate(); checks that both exit RC (a number, or 128+N for
        signal N under vigil), that stdout is byte-identical, that vigil's
        stderr is CMD's plus vigil's own lines (each "vigil"), and that
        vigil returned within 0.5 s of CMD's own time.  Prints "same
        stdout, exit RC".
    runtest.py linger --dir DIR --linger D --pidfile F -- CMD...
        CMD leaves a daemon behind (its pid in F): vigil run must return
        within D + 0.5 s, name it in one warning and leave it running.
        The daemon is killed at the end.  Prints vigil's stderr.
    runtest.py sigint --dir DIR -- CMD...
        CMD prints "ready"; SIGINT is sent to vigil run (not its group);
        prints CMD's stdout and vigil's exit status.
    runtest.py samples VIGIL DIR EXE
        reads the sampled profiles DIR/EXE.PID.vgl of `vigil run --scan`
        with `VIGIL report --json`: checks each names its pid and EXE, and
        prints how many there are and how many hold samples of their one
        thread.
    runtest.py tty --dir DIR -- CMD...
        the same on a pseudo-terminal: Ctrl-C typed once reaches the
        whole foreground process group, vigil and CMD; CMD must get it
        once.  Prints the lines CMD printed and vigil's exit status.
"""
import argparse
import os
import pty
import select
import signal
import subprocess
import sys
import time

VIGIL = os.environ.get("VIGIL", "vigil")
problems = []


def fail(msg):
    problems.append(msg)
    print("runtest: " + msg, file=sys.stderr)


def rc_of(returncode):
    return 128 - returncode if returncode < 0 else returncode


def timed(argv, env=None, **kw):
    t = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env, **kw)
    out, err = p.communicate(timeout=60)
    return p.returncode, out, err, time.monotonic() - t


def cmd_same(a):
    env = dict(os.environ)
    env["VIGIL_FILE"] = os.path.join(os.path.abspath(a.dir + ".alone"),
                                     "%e.%p.vgl")
    os.makedirs(a.dir + ".alone", exist_ok=True)
    rc0, out0, err0, t0 = timed(a.cmd, env)
    env.pop("VIGIL_FILE")
    rc1, out1, err1, t1 = timed([VIGIL, "run", "-o", a.dir, "--"] + a.cmd,
                                env)
    if rc_of(rc0) != a.expect:
        fail("%s alone: exit %d, want %d" % (a.cmd[0], rc_of(rc0), a.expect))
    if rc1 != a.expect:
        fail("vigil run: exit %d, want %d" % (rc1, a.expect))
    if out0 != out1:
        fail("stdout differs: alone %r, under vigil run %r" % (out0, out1))
    theirs = [l for l in err1.decode().splitlines()
              if not l.startswith("vigil")]
    if theirs != err0.decode().splitlines():
        fail("stderr: %r, want CMD's %r and vigil lines"
             % (err1.decode(), err0.decode()))
    if t1 > t0 + 0.5:
        fail("vigil run took %.2f s, CMD alone %.2f s" % (t1, t0))
    if not problems:
        print("same stdout, exit %d" % rc1)
    sys.stdout.write(err1.decode())


def cmd_linger(a):
    if os.path.exists(a.pidfile):
        os.unlink(a.pidfile)
    rc, out, err, t = timed([VIGIL, "run", "-o", a.dir, "--linger",
                             a.linger, "--"] + a.cmd)
    with open(a.pidfile) as f:
        pid = int(f.read())
    try:
        limit = float(a.linger.rstrip("s")) + 0.5
        if t > limit:
            fail("vigil run returned after %.2f s, want <= %.2f s"
                 % (t, limit))
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            fail("the daemon %d was not left running" % pid)
        if ("%d (runkid)" % pid) not in err.decode():
            fail("the warning does not name %d (runkid): %r"
                 % (pid, err.decode()))
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    print("exit %d" % rc)
    sys.stdout.write(err.decode().replace(str(pid), "PID"))


def cmd_sigint(a):
    p = subprocess.Popen([VIGIL, "run", "-o", a.dir, "--"] + a.cmd,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True)
    lines = []
    while True:
        line = p.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line == b"ready\n":
            break
    os.kill(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=30)
    sys.stdout.write((b"".join(lines) + out).decode())
    print("vigil run: exit %d" % p.returncode)
    sys.stderr.write(err.decode())


def cmd_tty(a):
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(VIGIL, [VIGIL, "run", "-o", a.dir, "--"] + a.cmd)
    buf = b""
    deadline = time.monotonic() + 30
    sent = False
    while time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], 0.1)
        if not r:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        buf += chunk
        if not sent and b"ready" in buf:
            os.write(fd, b"\x03")
            sent = True
    _, status = os.waitpid(pid, 0)
    for line in buf.decode(errors="replace").splitlines():
        line = line.replace("^C", "").strip()
        if line.startswith("SIGINT") or line.startswith("runkid"):
            print(line)
    print("vigil run: exit %d" % os.waitstatus_to_exitcode(status))


def cmd_samples(a):
    """The sampled profiles vigil run --scan wrote for processes of EXE."""
    import json
    files = sorted(f for f in os.listdir(a.dir)
                   if f.startswith(a.exe + ".") and f.endswith(".vgl"))
    sampled = 0
    for f in files:
        path = os.path.join(a.dir, f)
        r = subprocess.run([a.vigil, "report", "--json", path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode:
            fail("%s: report failed: %s" % (path, r.stderr.decode()))
            continue
        doc = json.loads(r.stdout)
        pid = int(f[len(a.exe) + 1:-len(".vgl")])
        if doc["pid"] != pid or not doc["command"][0].endswith(a.exe):
            fail("%s: pid %r command %r" % (path, doc["pid"],
                                            doc["command"]))
        if doc["sampled"]["samples"] >= 1 and \
                [t["name"] for t in doc["sampled"]["threads"]] == [a.exe]:
            sampled += 1
    print("%s processes: %d, with samples of their one thread: %d"
          % (a.exe, len(files), sampled))


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="sub", required=True)
    c = sub.add_parser("samples")
    c.add_argument("vigil")
    c.add_argument("dir")
    c.add_argument("exe")
    for name in ("same", "linger", "sigint", "tty"):  # samples: above
        c = sub.add_parser(name)
        c.add_argument("--dir", required=True)
        if name == "same":
            c.add_argument("--expect", type=int, required=True)
        if name == "linger":
            c.add_argument("--linger", required=True)
            c.add_argument("--pidfile", required=True)
        c.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    if getattr(a, "cmd", None) and a.cmd[0] == "--":
        a.cmd = a.cmd[1:]
    {"same": cmd_same, "linger": cmd_linger, "sigint": cmd_sigint,
     "tty": cmd_tty, "samples": cmd_samples}[a.sub](a)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
