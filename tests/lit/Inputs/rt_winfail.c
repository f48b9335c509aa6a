/*
 * rt_winfail.c - a window that cannot be written: f 3 times,
 * vigil_snapshot(); f 5 times, a directory at the next window's name
 * (argv[1]), vigil_snapshot() (fails), the directory removed; f 2 times,
 * vigil_snapshot(); f once.  Prints "snapshot 0 failed 0".  Windows 1 and
 * 2 must hold 3 and 7 (the failed window's calls carried into the next):
 * a failed window must lose no call and leave no gap in the numbering.
 */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vigil.h>

volatile int sink;

__attribute__((noinline)) void f(void) { sink += 1; }

static void calls(int n)
{
	while (n--)
		f();
}

int main(int argc, char **argv)
{
	int r1, r2, r3;

	if (argc < 2)
		return 2;
	calls(3);
	r1 = vigil_snapshot();
	calls(5);
	if (mkdir(argv[1], 0755) < 0)
		return 3;
	r2 = vigil_snapshot();
	rmdir(argv[1]);
	calls(2);
	r3 = vigil_snapshot();
	calls(1);
	printf("snapshot %d %s %d\n", r1, r2 < 0 ? "failed" : "written", r3);
	return 0;
}
