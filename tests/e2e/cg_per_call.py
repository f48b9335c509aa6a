#!/usr/bin/python3
"""cg_per_call.py BASE.out BUILD.out CALLS MAX - callgrind's instructions
of BUILD over BASE's, per call, at most MAX.

Reads the "summary:" (or "totals:") line of two callgrind output files
(the whole run's instructions), prints "+X.XX instructions per call: at
most MAX" or "... over MAX", and exits 0 or 1.
"""
import sys


def total(path):
    with open(path) as f:
        for line in f:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise SystemExit("%s: no summary line" % path)


base, build = total(sys.argv[1]), total(sys.argv[2])
calls, most = int(sys.argv[3]), float(sys.argv[4])
per = (build - base) / calls
ok = per <= most
print("+%.2f instructions per call: %s %s" % (per, "at most" if ok else "over",
                                               sys.argv[4]))
sys.exit(0 if ok else 1)
