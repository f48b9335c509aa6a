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
    out = [struct.pack(e + mkcorpus.SAMPLES_HDR, len(samples), 112, 48, 0, 0)]
    for (t, el, scan, cpu, mem, host, ss, threads) in samples:
        out.append(struct.pack(e + mkcorpus.SAMPLE, t, el, scan, len(threads),
                               *cpu, *mem, *host, ss))
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
    elif kind == "memory":
        s["samples"] = samples(int(sys.argv[3]), 0, 0x40)
    else:
        sys.exit("mksampled.py: unknown kind %r" % kind)
    with open(path, "wb") as f:
        f.write(bytes(mkcorpus.build(s)[0]))


mkcorpus.build_samples = build_samples
main()
