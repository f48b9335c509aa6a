/*
 * rt_winfail.c - a window that cannot be written: f 3 times,
 * vigil_snapshot(); f 5 times, then the next window made impossible,
 * vigil_snapshot() (fails), made possible again; f 2 times,
 * vigil_snapshot(); f once.  Prints "snapshot 0 failed 0".
 *
 *   rt_winfail dir PATH   a directory at the next window's name, PATH
 *   rt_winfail fsize      RLIMIT_FSIZE of 512 bytes (less than a window)
 *
 * The failed window's 5 calls must be in the next window (7 calls).
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
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
	struct rlimit old, low;
	int r1, r2, r3, dir;

	if (argc < 2)
		return 2;
	dir = !strcmp(argv[1], "dir");
	if (dir && argc < 3)
		return 2;
	calls(3);
	r1 = vigil_snapshot();
	calls(5);
	if (dir) {
		if (mkdir(argv[2], 0755) < 0)
			return 3;
	} else {
		getrlimit(RLIMIT_FSIZE, &old);
		low = old;
		low.rlim_cur = 512;
		if (setrlimit(RLIMIT_FSIZE, &low) < 0)
			return 3;
	}
	r2 = vigil_snapshot();
	if (dir)
		rmdir(argv[2]);
	else
		setrlimit(RLIMIT_FSIZE, &old);
	calls(2);
	r3 = vigil_snapshot();
	calls(1);
	printf("snapshot %d %s %d\n", r1, r2 < 0 ? "failed" : "written", r3);
	return 0;
}
