"""The Python workload of bench/bolt.py's CPython case: small
pyperformance-like kernels (objects and method calls, floats, recursion,
dicts and strings, generators, closures, exceptions), using only modules
built into the interpreter binary (`make python` builds no shared
extension modules).  Prints one checksum line per kernel, the same on
every build; BOLT_WORK_SCALE (default 5) multiplies the work."""

import os
import sys

SCALE = int(os.environ.get("BOLT_WORK_SCALE", "5"))


class Task:
    __slots__ = ("prio", "count", "next")

    def __init__(self, prio, nxt):
        self.prio = prio
        self.count = 0
        self.next = nxt

    def run(self, v):
        self.count += 1
        return (v * 31 + self.prio) & 0xFFFF


def tasks(n):
    """A ring of objects, method calls and attribute updates."""
    head = None
    for p in range(50):
        head = Task(p, head)
    v, t = 1, head
    for _ in range(n):
        v = t.run(v)
        t = t.next or head
    return v


def nbody(steps):
    """Floating point on lists (the nbody kernel, 3 bodies)."""
    b = [[0.0, 0.0, 0.0, 0.01, 0.0, 0.0, 10.0],
         [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.1],
         [0.0, 2.0, 0.0, -0.7, 0.0, 0.1, 0.05]]
    dt = 0.001
    for _ in range(steps):
        for i in range(3):
            bi = b[i]
            for j in range(i + 1, 3):
                bj = b[j]
                dx, dy, dz = bi[0] - bj[0], bi[1] - bj[1], bi[2] - bj[2]
                d2 = dx * dx + dy * dy + dz * dz + 0.01
                mag = dt / (d2 * d2 ** 0.5)
                bi[3] -= dx * bj[6] * mag
                bi[4] -= dy * bj[6] * mag
                bi[5] -= dz * bj[6] * mag
                bj[3] += dx * bi[6] * mag
                bj[4] += dy * bi[6] * mag
                bj[5] += dz * bi[6] * mag
        for bi in b:
            bi[0] += dt * bi[3]
            bi[1] += dt * bi[4]
            bi[2] += dt * bi[5]
    return round(sum(bi[0] + bi[1] + bi[2] for bi in b), 6)


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def words(n):
    """Strings, dicts, sorting."""
    counts = {}
    text = " ".join("w%d" % ((i * 7919) % 997) for i in range(2000))
    for _ in range(n):
        for w in text.split():
            counts[w] = counts.get(w, 0) + 1
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    return ",".join("%s:%d" % kv for kv in top)


def gens(n):
    """Generators, closures, comprehensions, exceptions."""
    def squares(k):
        for i in range(k):
            yield i * i

    def adder(a):
        return lambda x: x + a

    total = 0
    for r in range(n):
        add = adder(r)
        total += sum(add(x) for x in squares(100))
        try:
            {}[r]
        except KeyError:
            total += 1
        total += len([c for c in str(r) if c != "0"])
    return total


def main():
    s = SCALE
    print("tasks", tasks(400000 * s))
    print("nbody", nbody(40000 * s))
    print("fib", sum(fib(22) for _ in range(6 * s)))
    print("words", words(30 * s))
    print("gens", gens(5000 * s))
    sys.stdout.flush()


main()
