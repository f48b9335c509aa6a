"""gensites.py SITES CALLEES - prints C for CALLEES distinct instrumented
functions and a function that calls fns[j] from SITES distinct call sites:
main calls it for every j, making SITES * CALLEES distinct call edges,
each taken ROUNDS times (argv[1], default 1).  Many callees reached from
a few sites is what a dispatch table or an interpreter does."""
import sys

sites, callees = int(sys.argv[1]), int(sys.argv[2])
print("#include <stdio.h>\n#include <stdlib.h>")
print("typedef void (*fp)(void);")
print("volatile long sink;")
for i in range(callees):
    print("__attribute__((noinline)) static void fn%d(void) { sink += %d; }" % (i, i))
print("static fp fns[] = {" + ", ".join("fn%d" % i for i in range(callees)) + "};")
print("__attribute__((noinline)) static void sweep(fp f) {")
for s in range(sites):
    print("  f();")
print("}")
print("int main(int argc, char **argv) {")
print("  int r, j, rounds = argc > 1 ? atoi(argv[1]) : 1;")
print("  for (r = 0; r < rounds; r++)")
print("    for (j = 0; j < %d; j++) sweep(fns[j]);" % callees)
print('  printf("edges %d\\n");' % (sites * callees))
print("  return 0;\n}")
