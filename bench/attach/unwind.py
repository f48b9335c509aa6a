#!/usr/bin/python3
"""Stacks of programs built without frame pointers: `vigil attach --scan
stacks` beside `perf record --call-graph dwarf`, both on the same target
at the same time (issue 16).

Part of `make bench`; a measurement, not a test: exits 0 whatever the
numbers, non-zero only if something could not be built or run.  For each
target (a 4-level call tree built -O2 -fomit-frame-pointer; Debian's
python3 running a recursive function; Debian's xz -9), both tools sample
at 999 Hz for BENCH_SECONDS (default 5) and the script prints, per tool:

  samples        stack samples taken
  reach          % of samples whose chain reaches the program's entry
                 (__libc_start_call_main is in it)
  depth          mean frames per sample
  CPU            the tool's CPU time (user + system), in % of the
                 target's; for perf, `perf record` plus the `perf script`
                 that unwinds its samples (where perf's DWARF work is done)

With --unwind fp for vigil as a third row: the frame-pointer chain, the
old way.  Needs perf (linux-perf, `scripts/install-deps.sh bench`).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VIGIL = os.path.join(ROOT, "build", "vigil")
SECONDS = float(os.environ.get("BENCH_SECONDS", "5"))


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rusage_cpu(before, after):
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def vigil_stats(out):
    n = depth = reach = 0
    for line in out.splitlines():
        r = json.loads(line)
        if r["type"] != "sample":
            continue
        for s in r["stacks"]:
            n += s["count"]
            depth += len(s["frames"]) * s["count"]
            if "__libc_start_call_main" in s["frames"]:
                reach += s["count"]
    return n, reach, depth


def perf_stats(text):
    n = depth = reach = 0
    frames = None
    for line in text.splitlines() + [""]:
        if not line.strip():
            if frames is not None:
                n += 1
                depth += len(frames)
                if "__libc_start_call_main" in frames:
                    reach += 1
            frames = None
        elif not line[0].isspace():
            frames = []
        elif frames is not None:
            parts = line.split()
            frames.append(parts[1].split("+")[0] if len(parts) > 1 else "?")
    return n, reach, depth


def measure(name, pid, tmp):
    """Both tools on pid at once; their outputs and CPU seconds."""
    perf_data = os.path.join(tmp, name + ".perf.data")
    t0 = cpu_s(pid)
    perf = subprocess.Popen(["perf", "record", "-q", "--call-graph", "dwarf",
                             "-F", "999", "-p", str(pid), "-o", perf_data],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    vig = subprocess.Popen([VIGIL, "attach", "-p", str(pid), "--scan", "stacks",
                            "--frequency", "999", "--interval", "1s",
                            "--duration", "%gs" % SECONDS],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           text=True)
    vout = vig.stdout.read()
    _, _, vru = os.wait4(vig.pid, 0)
    vig.returncode = 0
    target_cpu = cpu_s(pid) - t0
    perf.send_signal(2)
    _, _, pru = os.wait4(perf.pid, 0)
    perf.returncode = 0
    t1 = os.times()
    script = subprocess.run(["perf", "script", "-i", perf_data, "-F",
                             "comm,tid,ip,sym"], capture_output=True,
                            text=True)
    t2 = os.times()
    script_cpu = (t2.children_user - t1.children_user) + \
        (t2.children_system - t1.children_system)
    return (vout, script.stdout, target_cpu,
            vru.ru_utime + vru.ru_stime, pru.ru_utime + pru.ru_stime,
            script_cpu)


def main():
    if not shutil.which("perf"):
        print("unwind: perf not installed (scripts/install-deps.sh bench)")
        return 1
    tmp = tempfile.mkdtemp()
    tree = os.path.join(tmp, "tree")
    subprocess.run(["gcc", "-g", "-O2", "-fomit-frame-pointer", "-pthread",
                    os.path.join(ROOT, "tests", "lit", "Inputs",
                                 "stacks_target.c"), "-o", tree], check=True)
    script = os.path.join(tmp, "rec.py")
    with open(script, "w") as f:
        f.write("def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
                "while True:\n    fib(20)\n")
    targets = [
        ("tree -O2 -fomit-frame-pointer", [tree, "tree"], None),
        ("Debian python3", ["/usr/bin/python3", script], None),
        ("Debian xz -9", ["/usr/bin/xz", "-9", "-c"], "/dev/urandom"),
    ]
    print("stacks at 999 Hz for %gs, vigil attach and perf record "
          "--call-graph dwarf on the same target at once" % SECONDS)
    print("%-30s %-12s %8s %8s %7s %10s" % ("target", "tool", "samples",
                                            "reach%", "depth", "CPU%target"))
    for name, cmd, stdin in targets:
        p = subprocess.Popen(cmd, stdin=open(stdin, "rb") if stdin else
                             subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        time.sleep(0.5)
        vout, pout, tcpu, vcpu, rcpu, scpu = measure(
            cmd[0].split("/")[-1], p.pid, tmp)
        p.kill()
        p.wait()
        vn, vr, vd = vigil_stats(vout)
        pn, pr, pd = perf_stats(pout)
        print("%-30s %-12s %8d %8.1f %7.2f %10.2f" % (
            name, "vigil dwarf", vn, 100.0 * vr / max(vn, 1),
            vd / max(vn, 1), 100.0 * vcpu / max(tcpu, 0.001)))
        print("%-30s %-12s %8d %8.1f %7.2f %10.2f" % (
            "", "perf dwarf", pn, 100.0 * pr / max(pn, 1), pd / max(pn, 1),
            100.0 * (rcpu + scpu) / max(tcpu, 0.001)))
        print("%-30s %-12s (vigil %.2f s; perf record %.2f s + perf script "
              "%.2f s; target %.2f s of CPU)" % ("", "", vcpu, rcpu, scpu, tcpu))
    return 0


if __name__ == "__main__":
    sys.exit(main())
