"""genfuncs.py N - prints C for N distinct instrumented functions and a
table of them (fp fns[N]; int nfns), so a test can make N new call edges
from one place, one at a time."""
import sys

n = int(sys.argv[1])
print("typedef void (*fp)(void);")
print("volatile long gen_sink;")
for i in range(n):
    print("__attribute__((noinline)) static void fn%d(void) { gen_sink += %d; }" % (i, i))
print("fp fns[] = {" + ", ".join("fn%d" % i for i in range(n)) + "};")
print("int nfns = %d;" % n)
