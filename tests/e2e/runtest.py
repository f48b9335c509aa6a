#!/usr/bin/python3
"""runtest.py - `vigil run` as harnesses see it: under Python's
Popen(stdout=PIPE, stderr=PIPE).communicate(), and on a terminal.

    runtest.py same --dir DIR --expect RC -- CMD...
        runs CMD alone, then `vigil run -o DIR -- CMD`, both under
        communicate(); checks that both exit RC (a number, or 128+N when
        killed by signal N: vigil then dies of N too), that stdout is byte-identical, that vigil's
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
    runtest.py signals --dir DIR -- CMD...
        CMD prints "ready" and waits for SIGUSR1, SIGUSR2, SIGALRM and
        SIGCONT; each is sent to vigil run alone (kill(PID), from another
        process group of the session), SIGTSTP between ALRM and CONT: vigil and CMD must
        both stop, as a job stops under a shell, and go on after SIGCONT.
        Prints what it saw, CMD's stdout and vigil's exit status.  CMD is
        killed at the end if vigil left it running.
    runtest.py group --dir DIR -- CMD...
        a process in vigil's own process group (as `timeout` is, or a
        script that runs `kill -INT 0`) sends SIGINT to the whole group
        once CMD printed "ready": CMD must get it once.  Prints CMD's
        stdout and vigil's exit status.
    runtest.py killed --dir DIR -- CMD...
        `vigil run --scan stacks --frequency 999 -o DIR -- CMD`, CMD
        printing "ready PID" and running on: once DIR/samples/EXE.PID.vgl
        reads a sample and a stack sample (a commit was made), vigil run
        is SIGKILLed, then CMD.  Prints the names in DIR/samples (the pid as PID) and what
        `report --json` reads of the file: pid, state, command, the
        frequency, whether it has samples and stack samples.
    runtest.py tty --dir DIR -- CMD...
        the same on a pseudo-terminal: Ctrl-C typed once reaches the
        whole foreground process group, vigil and CMD; CMD must get it
        once.  Prints the lines CMD printed and vigil's exit status.
    runtest.py ttyjob --dir DIR -- CMD...
        on a pseudo-terminal, as a job-control shell runs a job (vigil
        leads its session): once CMD printed "ready", Ctrl-Z; vigil and
        CMD must stop and vigil's group get the terminal back; then
        SIGCONT to vigil's group (`fg`): CMD goes on with the terminal;
        then Ctrl-C.  Prints what it saw at each step, the lines CMD
        printed ("runkid", "ready", "got ...") and vigil's exit status.
    runtest.py ttyscript --dir DIR -- CMD...
        on a pseudo-terminal, a script (sh -c, no job control) runs
        `vigil run -o DIR -- CMD` and then `echo after`; CMD prints
        "ready"; Ctrl-C: CMD dies of it, and so must the script, as it
        would without vigil.  Prints the lines "ready" and "after" of
        the terminal and the script's exit status.
    runtest.py ttybg --dir DIR
        on a pseudo-terminal, an interactive bash runs `vigil run -o DIR
        -- cat &`: cat's read from the background stops the job (bash's
        `jobs` says Stopped); `fg`, a line typed is read by cat; Ctrl-Z
        stops the job again, `fg` resumes it; Ctrl-D ends it, exit 0.
        Prints what it saw at each step.
"""
import argparse
import json
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
    # Killed by N: vigil must die of N too, not merely exit 128+N.
    if rc1 != (128 - a.expect if a.expect > 128 else a.expect):
        fail("vigil run: returncode %d, want %d (exit %d)"
             % (rc1, 128 - a.expect if a.expect > 128 else a.expect,
                a.expect))
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
        print("same stdout, exit %d" % rc_of(rc1))
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


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def state(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def wait_state(pid, want, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if state(pid) in want:
            return True
        time.sleep(0.01)
    return False


def read_ready(p):
    """CMD's stdout up to its "ready" line."""
    lines = b""
    while not lines.endswith(b"ready\n"):
        line = p.stdout.readline()
        if not line:
            break
        lines += line
    return lines


def cmd_signals(a):
    # A process group of its own in our session, as a shell makes for a
    # job: not orphaned, so that SIGTSTP stops its members.
    p = subprocess.Popen([VIGIL, "run", "-o", a.dir, "--"] + a.cmd,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=os.setpgrp)
    line = read_ready(p)
    kids = children(p.pid)
    try:
        for sig in (signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM):
            os.kill(p.pid, sig)
            time.sleep(0.05)
            if p.poll() is not None:
                print("vigil run died of %s" % signal.Signals(sig).name)
                for k in kids:  # orphaned: it would wait forever
                    os.kill(k, signal.SIGKILL)
                break
        else:
            os.kill(p.pid, signal.SIGTSTP)
            print("vigil stopped: %s" % wait_state(p.pid, "T"))
            print("CMD stopped: %s" % (len(kids) == 1 and
                                       wait_state(kids[0], "T")))
            os.kill(p.pid, signal.SIGCONT)
            print("CMD going on: %s" % (len(kids) == 1 and
                                        wait_state(kids[0], "RSD")))
        out, err = p.communicate(timeout=30)
    finally:
        for k in kids:
            try:
                os.kill(k, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if p.poll() is None:
            p.kill()
    sys.stdout.write((line + out).decode())
    print("vigil run: exit %d" % p.returncode)
    sys.stderr.write(err.decode())


def cmd_group(a):
    if not os.environ.get("RUNTEST_GROUP_LEADER"):
        # A new session of our own, so the signal to "the group" reaches
        # only this leader, vigil and CMD.
        env = dict(os.environ, RUNTEST_GROUP_LEADER="1")
        r = subprocess.run([sys.executable] + sys.argv, env=env,
                           start_new_session=True)
        return r.returncode
    # A handler, not SIG_IGN: vigil must start with SIGINT's default.
    signal.signal(signal.SIGINT, lambda s, f: None)
    p = subprocess.Popen([VIGIL, "run", "-o", a.dir, "--"] + a.cmd,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = read_ready(p)
    os.kill(0, signal.SIGINT)
    out, err = p.communicate(timeout=30)
    sys.stdout.write((line + out).decode())
    print("vigil run: exit %d" % p.returncode)
    sys.stderr.write(err.decode())


def cmd_tty(a):
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(VIGIL, [VIGIL, "run", "-o", a.dir, "--"] + a.cmd)
    buf = pty_until(fd, b"", b"ready", 30)
    if b"ready" in buf:
        os.write(fd, b"\x03")
        buf = pty_until(fd, buf, None, 30)
    _, status = os.waitpid(pid, 0)
    for line in buf.decode(errors="replace").splitlines():
        line = line.replace("^C", "").strip()
        if line.startswith("SIGINT") or line.startswith("runkid"):
            print(line)
    print("vigil run: exit %d" % os.waitstatus_to_exitcode(status))


def pty_until(fd, buf, want, timeout=20):
    """Reads fd (a pty master) into buf until it holds want (None: never)
    or ends."""
    deadline = time.monotonic() + timeout
    while (want is None or want not in buf) and \
            time.monotonic() < deadline:
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
    return buf


def wait_true(f, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if f():
            return True
        time.sleep(0.01)
    return False


def cmd_ttyjob(a):
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(VIGIL, [VIGIL, "run", "-o", a.dir, "--"] + a.cmd)
    buf = pty_until(fd, b"", b"ready")
    kids = children(pid)
    cmd = kids[0] if len(kids) == 1 else -1
    print("CMD's group has the terminal: %s" %
          wait_true(lambda: os.tcgetpgrp(fd) == cmd, 2))
    os.write(fd, b"\x1a")
    print("vigil stopped: %s" % wait_state(pid, "T"))
    print("CMD stopped: %s" % wait_state(cmd, "T"))
    print("vigil's group has the terminal: %s" %
          wait_true(lambda: os.tcgetpgrp(fd) == pid, 2))
    os.kill(-pid, signal.SIGCONT)
    print("CMD going on: %s" % wait_state(cmd, "RSD"))
    print("CMD's group has the terminal: %s" %
          wait_true(lambda: os.tcgetpgrp(fd) == cmd, 2))
    os.write(fd, b"\x03")
    buf = pty_until(fd, buf, b"no such line")
    for k in kids:
        try:
            os.kill(k, signal.SIGKILL)
        except ProcessLookupError:
            pass
    _, status = os.waitpid(pid, 0)
    for line in buf.decode(errors="replace").splitlines():
        line = line.replace("^C", "").replace("^Z", "").strip()
        if line.split(" ")[0] in ("runkid", "ready", "got", "timed"):
            print(line)
    print("vigil run: exit %d" % os.waitstatus_to_exitcode(status))


def cmd_ttyscript(a):
    pid, fd = pty.fork()
    if pid == 0:
        script = 'v=$0 d=$1; shift; "$v" run -o "$d" -- "$@"; echo after'
        # As on a terminal: lit runs us with SIGINT ignored.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.execvp("sh", ["sh", "-c", script, VIGIL, a.dir] + a.cmd)
    buf = pty_until(fd, b"", b"ready")
    # The foreground leaves the script's group once vigil runs CMD (the
    # old vigil never moved it: then a moment for CMD to wait).
    wait_true(lambda: os.tcgetpgrp(fd) != pid, 1)
    os.write(fd, b"\x03")
    buf = pty_until(fd, buf, b"no such line")
    _, status = os.waitpid(pid, 0)
    for line in buf.decode(errors="replace").splitlines():
        line = line.replace("^C", "").strip()
        if line in ("ready", "after"):
            print(line)
    print("script: exit %d" % os.waitstatus_to_exitcode(status))


def cmd_ttybg(a):
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["PS1"] = "$ "
        os.environ.pop("PROMPT_COMMAND", None)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.execvp("bash", ["bash", "--norc", "--noprofile", "-i"])
    def upto(want, timeout=10):
        """True once the terminal shows want (what it showed before
        counts not)."""
        return want in pty_until(fd, b"", want, timeout)

    upto(b"$ ")
    os.write(fd, b"'%s' run -o '%s' -- cat &\n" % (VIGIL.encode(),
                                                  a.dir.encode()))
    upto(b"$ ")
    stopped = False
    deadline = time.monotonic() + 10
    while not stopped and time.monotonic() < deadline:
        os.write(fd, b"jobs\n")
        stopped = upto(b"Stopped", 0.3)
    print("stopped in the background: %s" % stopped)
    os.write(fd, b"fg\n")
    time.sleep(0.2)
    os.write(fd, b"hello\n")
    print("cat read the line: %s" % upto(b"hello\r\nhello\r\n"))
    os.write(fd, b"\x1a")
    print("Ctrl-Z stopped it: %s" % upto(b"Stopped"))
    os.write(fd, b"fg\n")
    time.sleep(0.2)
    os.write(fd, b"again\n")
    print("cat read on: %s" % upto(b"again\r\nagain\r\n"))
    os.write(fd, b"\x04")
    os.write(fd, b"echo status $?; exit\n")
    print("ended: %s" % upto(b"status 0"))
    # bash gone, a job left stopped gets SIGHUP (its group orphaned).
    if not wait_true(lambda: os.waitpid(pid, os.WNOHANG)[0] == pid, 5):
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


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
        if doc["pid"] != pid or not doc["command"] or \
                not doc["command"][0].endswith(a.exe):
            fail("%s: pid %r command %r" % (path, doc["pid"],
                                            doc["command"]))
        if doc["sampled"]["samples"] >= 1 and \
                [t["name"] for t in doc["sampled"]["threads"]] == [a.exe]:
            sampled += 1
    print("%s processes: %d, with samples of their one thread: %d"
          % (a.exe, len(files), sampled))


def cmd_killed(a):
    p = subprocess.Popen([VIGIL, "run", "--scan", "stacks", "--frequency",
                          "999", "-o", a.dir, "--"] + a.cmd,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    line = p.stdout.readline().split()
    if len(line) != 2 or line[0] != b"ready":
        p.kill()
        p.wait()
        fail("CMD said %r, not ready PID" % line)
        return 1
    pid = int(line[1])
    path = os.path.join(a.dir, "samples", "%s.%d.vgl"
                        % (os.path.basename(a.cmd[0]), pid))
    doc = None
    try:
        # Generous: the first commit comes a second after the start,
        # later on a loaded machine.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            r = subprocess.run([VIGIL, "report", "--json", path],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
            if r.returncode == 0:
                doc = json.loads(r.stdout)
                if doc["sampled"]["samples"] >= 1 and \
                        doc["sampled"]["stack_samples"] >= 1:
                    break
            time.sleep(0.1)
    finally:
        p.kill()
        p.wait()
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if p.returncode != -signal.SIGKILL:
        fail("vigil run ended by itself (%d) before it was killed"
             % p.returncode)
    for name in sorted(os.listdir(os.path.join(a.dir, "samples"))):
        print(name.replace(".%d." % pid, ".PID."))
    r = subprocess.run([VIGIL, "report", "--json", path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode:
        fail("report of %s after the kill: %s" % (path, r.stderr.decode()))
        return 1
    doc = json.loads(r.stdout)
    sm = doc["sampled"]
    print("pid: %s" % ("PID" if doc["pid"] == pid else doc["pid"]))
    print("state: %s" % doc["state"])
    print("command: %s" % " ".join(os.path.basename(c) if i == 0 else c
                                   for i, c in enumerate(doc["command"])))
    print("frequency: %s Hz" % sm["frequency_hz"])
    print("samples: %s" % ("some" if sm["samples"] >= 1 else sm["samples"]))
    print("stack samples: %s" % ("some" if sm["stack_samples"] >= 1
                                 else sm["stack_samples"]))
    return 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="sub", required=True)
    c = sub.add_parser("samples")
    c.add_argument("vigil")
    c.add_argument("dir")
    c.add_argument("exe")
    for name in ("same", "linger", "sigint", "tty", "signals", "group",
                 "killed", "ttyjob", "ttyscript", "ttybg"):
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
    rc = {"same": cmd_same, "linger": cmd_linger, "sigint": cmd_sigint,
          "tty": cmd_tty, "samples": cmd_samples, "signals": cmd_signals,
          "group": cmd_group, "killed": cmd_killed, "ttyjob": cmd_ttyjob,
          "ttyscript": cmd_ttyscript, "ttybg": cmd_ttybg}[a.sub](a)
    return rc or (1 if problems else 0)


if __name__ == "__main__":
    sys.exit(main())
