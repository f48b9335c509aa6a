#!/usr/bin/python3
"""manystacks.py PROG SAMPLES STACKS [PATHS [DEPTH]] - print the STACKS
of tests/e2e/mksampled.py for a large sampled profile of PROG: SAMPLES
stack samples over STACKS stacks of main, then 1 to DEPTH (default 38)
of PROG's functions named caller*, then one named leaf*, over 4
threads, drawn from a generator seeded with 31 so that every run prints
the same.  Long prefixes are shared by many stacks, as real programs
have (an interpreter's loop, a server's dispatch): each stack is one of
PATHS (default 200) paths cut at some depth.  The programs of
bench/gen_edges.py have such names (tests/e2e/view_big.py)."""

import random
import subprocess
import sys


def lines(prog, samples, stacks, paths=200, depth=38):
    syms = subprocess.run(["nm", "--defined-only", prog], check=True,
                          capture_output=True, text=True).stdout.split()
    callers = sorted(s for s in syms if s.startswith("caller"))
    leaves = sorted(s for s in syms if s.startswith("leaf"))
    rnd = random.Random(31)
    counts = [1] * stacks
    for _ in range(samples - stacks):
        counts[rnd.randrange(stacks)] += 1
    out = []
    for i in range(stacks):
        path = random.Random(rnd.randrange(paths))
        chain = ["main"] + [path.choice(callers)
                            for _ in range(rnd.randint(1, depth))]
        chain.append(rnd.choice(leaves))
        out.append("%d %d %s\n" % (1000 + i % 4, counts[i], ";".join(chain)))
    return out


if __name__ == "__main__":
    a = [int(x) for x in sys.argv[2:]]
    sys.stdout.writelines(lines(sys.argv[1], *a))
