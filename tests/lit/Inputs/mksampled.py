#!/usr/bin/env python3
"""mksampled.py OUT NSAMPLES NTHREADS LIVE - write a sampled profile of a
churning target: NSAMPLES samples 1 ms apart, NTHREADS distinct threads
(tids 100000 ..), each alive in LIVE consecutive samples, the births spread
evenly over the run, each running 1 ms of user CPU per sample it is in.
The thread records (about NSAMPLES * LIVE) are what `vigil report` reads
per thread; the layout is tests/corpus/mkcorpus.py's."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "corpus"))
import mkcorpus  # noqa: E402

out, nsamples, nthreads, live = (sys.argv[1], int(sys.argv[2]),
                                 int(sys.argv[3]), int(sys.argv[4]))
spec = mkcorpus.sampled_spec()
born = [j * nsamples // nthreads for j in range(nthreads)]
samples = []
first = 0                       # the oldest thread that may be alive
for i in range(nsamples):
    while first < nthreads and born[first] + live <= i:
        first += 1
    threads = []
    j = first
    while j < nthreads and born[j] <= i:
        age = i - born[j] + 1   # samples it has been in, this one included
        threads.append((100000 + j, "t%d" % j, age * 1000, 0,
                        age * 1000000))
        j += 1
    samples.append((1700000000000000000 + i * 1000000, i * 1000000, 0x7,
                    (i * 1000, 0), (0, 0, 0, 0), (0, 0, 0, 0), 0, threads))
spec["samples"] = samples
spec["stacks"] = (0, 999, [])
with open(out, "wb") as f:
    f.write(bytes(mkcorpus.build(spec)[0]))
