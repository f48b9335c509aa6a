/*
 * api.c - the public API of vigil.h.  "reset": f 3 times, vigil_reset(),
 * f 4 times (the profile holds 4).  "switch PATH": f 3 times,
 * vigil_set_file(PATH), f 5 times (the first file holds 3, the second 5).
 */
#include <stdio.h>
#include <string.h>
#include <vigil.h>

volatile int sink;

__attribute__((noinline)) void f(void) { sink += 1; }

/* Not inlined: its edge to f is then a real call in both counting modes
 * (the entry mode counts no inlined copy). */
static __attribute__((noinline)) void calls(int n)
{
	while (n--)
		f();
}

int main(int argc, char **argv)
{
	int r = -1;

	calls(3);
	if (argc > 1 && !strcmp(argv[1], "reset"))
		r = vigil_reset();
	else if (argc > 2 && !strcmp(argv[1], "switch"))
		r = vigil_set_file(argv[2]);
	calls(argc > 1 && !strcmp(argv[1], "reset") ? 4 : 5);
	printf("api %d\n", r);
	return 0;
}
