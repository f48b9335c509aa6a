"""live_drive.py [--threads CYCLES] VIGIL PROG DIR - drives PROG (built
with vigil-ondemand, started idle) and `vigil attach --scan counts` through
pipes, as ondemand/live.test and ondemand/live-threads.test say, and prints
what the records showed.  PROG: live_target.c, or with --threads
live_threads.c, switched on and off CYCLES times while its threads run.
PROG's stdout goes to DIR/live.out.  Every wait has a deadline: a record
that never comes fails the run with what was seen."""
import json
import os
import subprocess
import sys
import time

args = sys.argv[1:]
cycles = 0
guest = args[0] == "--guest"
other = args[0] == "--other-user"
two = args[0] == "--two"
if guest or other or two:
    args = args[1:]
elif args[0] == "--threads":
    cycles = int(args[1])
    args = args[2:]
vigil, prog, out = args
DEADLINE = 30.0


def fail(why, seen=None):
    print("FAIL:", why)
    for r in (seen or [])[-8:]:
        print("  seen:", json.dumps(r)[:600])
    sys.exit(1)


class Attach:
    def __init__(self, pid, vgl=None):
        self.p = subprocess.Popen(
            [vigil, "attach", "-p", str(pid), "--scan", "counts",
             "--interval", "20ms"] + (["-o", vgl] if vgl else []),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.seen = []

    def record(self):
        line = self.p.stdout.readline()
        if not line:
            fail("attach ended early", self.seen)
        r = json.loads(line)
        self.seen.append(r)
        return r

    def sample_where(self, cond):
        """The first sample from now on for which cond holds."""
        end = time.monotonic() + DEADLINE
        while time.monotonic() < end:
            r = self.record()
            if r["type"] == "sample" and cond(r):
                return r
        fail("no such sample", self.seen)

    def next_sample(self):
        return self.sample_where(lambda r: True)

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def stop(self):
        self.send("stop")
        while self.record()["type"] != "end":
            pass
        self.p.wait(timeout=DEADLINE)

    def hot(self, samples):
        return sum(e["delta"] for r in samples for e in r.get("edges", [])
                   if e["callee"] == "hot")


prog_p = subprocess.Popen([prog], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True, cwd=out)
log = open(os.path.join(out, "live.out"), "w")


def ask(n):
    prog_p.stdin.write("%s\n" % n)
    prog_p.stdin.flush()
    line = prog_p.stdout.readline()
    log.write(line)
    return line


ready = prog_p.stdout.readline()
pid = int(ready.split()[1])


def finish():
    """Ends the program (its "exit" line), keeps the rest of its output
    in live.out and says how it ended."""
    prog_p.stdin.write("exit\n")
    prog_p.stdin.close()
    log.write(prog_p.stdout.read())
    log.close()
    print("exit status:", prog_p.wait(timeout=DEADLINE))


def threads():
    """CYCLES on/off switches while 16 threads run; then detached, no
    count grows; a second attach counts again."""
    a = Attach(pid)
    for _ in range(cycles):
        a.sample_where(lambda r: r.get("counts_live") is True)
        a.send("scan cpu")
        a.sample_where(lambda r: r.get("counts_live") is False)
        a.send("scan counts")
    a.sample_where(lambda r: r.get("counts_live") is True)
    a.sample_where(lambda r: r.get("calls_delta", 0) > 0)
    a.stop()
    samples = [r for r in a.seen if r["type"] == "sample"]
    last = [r["calls_total"] for r in samples if "calls_total" in r][-1]
    grew = sum(1 for r in samples if r.get("calls_delta", 0) > 0)
    ons = sum(1 for i, r in enumerate(samples) if r.get("counts_live") and
              (i == 0 or not samples[i - 1].get("counts_live")))
    print("attach 1: windows %d; switches %d; readings with calls %s" % (
        ons, samples[-1]["counts_live_switches"], grew >= cycles))
    time.sleep(0.3)           # the threads run on, detached
    b = Attach(pid)
    first = b.sample_where(lambda r: "calls_total" in r)
    b.sample_where(lambda r: r.get("calls_delta", 0) > 0)
    b.stop()
    print("attach 2: first total equal: %s; counting again: True" % (
        first["calls_total"] == last))
    finish()
    sys.exit(0)


if cycles:
    threads()

if two:
    # Two attaches at once (G10): A and B both switch counting on; A
    # detaches, switching the sites off under B, which ends its window
    # there and switches them on again: each reading's deltas stay the
    # calls since the one before (none counted twice), no exec is made up.
    a = Attach(pid, os.path.join(out, "two-a.vgl"))
    a.sample_where(lambda r: r.get("counts_live") is True)
    b = Attach(pid, os.path.join(out, "two-b.vgl"))
    b.sample_where(lambda r: r.get("counts_live") is True)
    ask(10)
    a.sample_where(lambda r: "calls_total" in r)
    b.sample_where(lambda r: r.get("calls_total") == 10)
    a.stop()
    b.sample_where(lambda r: r.get("counts_window") == 1)
    b.sample_where(lambda r: r.get("counts_live") is True)
    ask(5)
    b.sample_where(lambda r: r.get("calls_total") == 15)
    b.stop()
    bs = [r for r in b.seen if r["type"] == "sample"]
    print("A: hot %d; B: hot %d, windows %s, execs %d" % (
        a.hot(a.seen), b.hot(bs),
        ", ".join("%d %d" % (r["counts_window"], r["counts_window_calls"])
                  for r in bs if "counts_window" in r),
        sum(1 for r in bs if r.get("exe_changed"))))
    finish()
    sys.exit(0)

if other:
    # Another user (nobody) may not switch the program's counting: one
    # line, exit 1, and nothing changed in it: its calls since are not
    # counted (a later attach by its own user finds no memfd).
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534",
                        "--clear-groups", vigil, "attach", "-p", str(pid),
                        "--scan", "counts", "--count", "2", "--interval",
                        "20ms"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=DEADLINE)
    print("other user: exit %d, %d stderr line(s), %d record(s)" % (
        r.returncode, len(r.stderr.splitlines()), len(r.stdout.splitlines())))
    print(r.stderr.strip().replace(str(pid), "PID"))
    ask(5)
    a = Attach(pid)
    first = a.sample_where(lambda r: True)
    a.stop()
    print("own user's first reading:", first.get("counts_error"))
    finish()
    sys.exit(0)

if guest:
    # Counting on: a fork child's calls are not its parent's, and the
    # child holds no descriptor of the runtime's; a program that closes
    # every descriptor goes on being counted (vigil holds its own); the
    # program ends while on: the final reading ends the window, whose
    # file has every call.
    a = Attach(pid, os.path.join(out, "guest.vgl"))
    a.sample_where(lambda r: r.get("counts_live") is True)
    ask(10)
    a.sample_where(lambda r: "calls_total" in r)
    print(ask("fork 100").strip())
    print(ask("close").strip())
    ask(5)
    a.next_sample()
    # An exec while on: the old image's window ends with its last calls,
    # the new image (idle, as the program started) is switched on in turn.
    print(ask("exec").split()[0])
    a.sample_where(lambda r: r.get("counts_window") == 1 and
                   r.get("exe_changed") is True)
    a.sample_where(lambda r: r.get("counts_live") is True)
    ask(3)
    a.next_sample()
    finish()
    while a.record()["type"] != "end":
        pass
    a.p.wait(timeout=DEADLINE)
    samples = [r for r in a.seen if r["type"] == "sample"]
    counted = [i for i, r in enumerate(samples) if "calls_total" in r]
    end = [r for r in a.seen if r["type"] == "end"][0]
    print("hot %d; errors after the first count %s" % (
        a.hot(samples), sorted(set(r.get("counts_error", "")
                                   for r in samples[counted[0]:]
                                   if not r.get("counts_window")))))
    print("ended: %s; last reading final %s; window %s" % (
        end["reason"], samples[-1].get("counts_final"),
        ", ".join("%d %d %s" % (r["counts_window"], r["counts_window_calls"],
                                os.path.basename(r["counts_window_file"]))
                  for r in samples if "counts_window" in r)))
    print("files:", sorted(f for f in os.listdir(out) if f.endswith(".vgl") and
                           not f.startswith(("att", "guest"))))
    sys.exit(0)

def check():
    """vigil check -p PID: the state of its sites, read from outside."""
    r = subprocess.run([vigil, "check", "-p", str(pid)],
                       stdout=subprocess.PIPE, text=True, timeout=DEADLINE)
    return r.stdout.strip().replace(str(pid), "PID")


# Attach 1: on, 1000 calls; off (counts leave the scan set), 500 calls;
# on again, 7 calls; then detach.
checks = [check()]
a = Attach(pid, os.path.join(out, "att1.vgl"))
a.sample_where(lambda r: r.get("counts_live") is True)
ask(1000)
checks.append(check())
a.next_sample()               # read after the calls were made
a.send("scan cpu")
a.sample_where(lambda r: r.get("counts_live") is False)
ask(500)
a.next_sample()
a.send("scan counts")
a.sample_where(lambda r: r.get("counts_live") is True)
ask(7)
a.next_sample()
a.stop()
checks.append(check())
samples = [r for r in a.seen if r["type"] == "sample"]
runs = []
for r in samples:
    state = "on" if r.get("counts_live") else "off"
    if not runs or runs[-1][0] != state:
        runs.append([state, []])
    runs[-1][1].append(r)
# The last run is the reading after the stop switched it off.
# A window's last calls are read by the reading that switched it off,
# the first of the next run: count each off run's first reading in the
# window before it.
per_window = []
for i, (st, rs) in enumerate(runs):
    if st == "on":
        after = runs[i + 1][1][:1] if i + 1 < len(runs) else []
        per_window.append(a.hot(rs + after))
sites = sorted(set(r["counts_live_sites"] for r in samples
                   if "counts_live_sites" in r))
print("attach 1: hot %s; windows %s; sites %s; switches %d" % (
    " ".join(str(n) for n in per_window),
    ",".join(st for st, _ in runs),
    " ".join(str(s) for s in sites),
    samples[-1].get("counts_live_switches", 0)))
print("attach 1 windows: %s" % ", ".join(
    "%d %d %s" % (r["counts_window"], r["counts_window_calls"],
                  os.path.basename(r["counts_window_file"]))
    for r in samples if "counts_window" in r))

for c in checks:
    print(c)

# Detached: these calls are not counted.
ask(33)
b = Attach(pid, os.path.join(out, "att2.vgl"))
first = b.sample_where(lambda r: "calls_total" in r)
ask(11)
b.next_sample()
b.stop()
print("attach 2: first total %d; hot %d; windows %s" % (
    first["calls_total"],
    b.hot([r for r in b.seen if r["type"] == "sample" and r is not first]),
    ", ".join("%d %d" % (r["counts_window"], r["counts_window_calls"])
              for r in b.seen if "counts_window" in r)))

finish()
print("files:", sorted(f for f in os.listdir(out) if f.endswith(".vgl") and
                       not f.startswith("att")))
