/*
 * snap.c - windows cut by the API: f 3 times, vigil_snapshot(), f 5 times,
 * vigil_snapshot(), f 2 times.  Windows 1 and 2 hold 3 and 5; the profile
 * holds 10.
 */
#include <stdio.h>
#include <vigil.h>

volatile int sink;

__attribute__((noinline)) void f(void) { sink += 1; }

int main(void)
{
	int i, r1, r2;

	for (i = 0; i < 3; i++)
		f();
	r1 = vigil_snapshot();
	for (i = 0; i < 5; i++)
		f();
	r2 = vigil_snapshot();
	for (i = 0; i < 2; i++)
		f();
	printf("snapshot %d %d\n", r1, r2);
	return 0;
}
