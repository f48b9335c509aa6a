#!/usr/bin/python3
"""mkplotsamples.py KIND OUT [N T] - write a made-up sampled profile (the
layout of tests/corpus/mkcorpus.py) whose values are known, for `vigil
plot`'s tests and benchmark:

  empty OUT        a sampled file without samples
  many OUT N T     N samples 10 ms apart of T threads: thread k (tid
                   1000 + k, name "t<k>") gains (k + 1) * 100 us of run
                   time per interval, (k + 1) % of one CPU, and the
                   process the sum of its threads' user time; RSS (i % 7
                   + 1) MiB at sample i; host user 1 us, system 1 us,
                   iowait 0, idle 2 us per interval (25 % user, 25 %
                   system)
  memory OUT N     N samples of memory alone (no threads, no host CPU)
  backwards OUT    3 samples, the third 5 ms before the second
  ticks OUT [old]  one thread ("spin", tid 2000) on a CPU all the time,
                   sampled every 5 ms for 1 s (201 samples), then every
                   20 ms for 0.5 s (25 more): its run time (schedstat) and
                   the process's CPU clock as a kernel with 4 ms ticks
                   keeps them (floor(t / 4 ms) * 4 ms: 4 or 8 ms per 5 ms
                   interval), its user time in 10 ms clock ticks
                   (floor(t / 10 ms): 0 or 10 ms per interval); records
                   of 128 bytes with interval_ns and cpu_run_ns, or with
                   old, of 112 bytes without them
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "corpus"))
import mkcorpus  # noqa: E402


MIB = 1 << 20
T0 = 1700000000000000000


def samples(n, t, scan):
    out = []
    for i in range(n):
        threads = [(1000 + k, "t%d" % k, 0, 0, (k + 1) * 100000 * i)
                   for k in range(t)] if scan & 0x4 else []
        cpu = sum((k + 1) * 100 * i for k in range(t)) if scan & 0x2 else 0
        out.append((T0 + i * 10000000, i * 10000000, scan, (cpu, 0),
                    ((i % 7 + 1) * MIB, MIB, 0, 0),
                    (1, 1, 2, 0) if i else (99, 99, 99, 99), 0, threads))
    return out


def build_samples(samples, e="<"):
    """mkcorpus.build_samples, joined once: its += is quadratic, which a
    long run makes slow."""
    new = any(len(x) > 8 and x[8] for x in samples)
    out = [struct.pack(e + mkcorpus.SAMPLES_HDR, len(samples),
                       128 if new else 112, 48, 0, 0)]
    for (t, el, scan, cpu, mem, host, ss, threads, *more) in samples:
        out.append(struct.pack(e + mkcorpus.SAMPLE, t, el, scan, len(threads),
                               *cpu, *mem, *host, ss))
        if new:
            # interval_ns, cpu_run_ns: the fields after the first 112 bytes.
            out.append(struct.pack(e + "QQ", *more[0]))
        for (tid, name, u, sy, run) in threads:
            out.append(struct.pack(e + mkcorpus.THREAD, tid, 0, name.encode(),
                                   u, sy, run))
    return b"".join(out)


def main():
    kind, path = sys.argv[1], sys.argv[2]
    s = mkcorpus.sampled_spec()
    s["stacks"] = None
    if kind == "empty":
        s["samples"] = []
    elif kind == "many":
        s["samples"] = samples(int(sys.argv[3]), int(sys.argv[4]), 0x47)
    elif kind == "backwards":
        s["samples"] = samples(3, 1, 0x47)
        t, _, *rest = s["samples"][2]
        s["samples"][2] = (t, 5000000, *rest)
    elif kind == "ticks":
        old = len(sys.argv) > 3 and sys.argv[3] == "old"
        times = [(i * 5000000, 5000000) for i in range(201)] + \
            [(1000000000 + i * 20000000, 20000000) for i in range(1, 26)]
        s["samples"] = []
        for el, interval in times:
            run = el // 4000000 * 4000000
            ticks = el // 10000000 * 10000
            s["samples"].append(
                (T0 + el, el, 0x46, (ticks, 0), (MIB, MIB, 0, 0),
                 (0, 0, 0, 0), 0, [(2000, "spin", ticks, 0, run)],
                 None if old else (interval, run)))
    elif kind == "memory":
        s["samples"] = samples(int(sys.argv[3]), 0, 0x40)
    else:
        sys.exit("mksampled.py: unknown kind %r" % kind)
    with open(path, "wb") as f:
        f.write(bytes(mkcorpus.build(s)[0]))


mkcorpus.build_samples = build_samples
main()
