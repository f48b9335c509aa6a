# rec_map.py ROUNDS - a recursive Python function for Debian's python3
# (tests/lit/attach/flame-python.test): rec(6) ROUNDS times, each level
# calling the next through map(), a C function, so that each level runs
# in a _PyEval_EvalFrameDefault of its own (Python 3.11 runs a plain
# Python-to-Python call inside its caller's), the deepest one spinning.
import sys


def spin(k):
    s = 0
    for i in range(k):
        s += i * i
    return s


def rec(n):
    if n == 0:
        return spin(20000)
    return max(map(rec, [n - 1]))


t = 0
for _ in range(int(sys.argv[1])):
    t += rec(6)
print(t > 0)
