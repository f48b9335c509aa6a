/*
 * limit_strict.c - seccomp strict mode (docs/limits.md): a program
 * that enters strict mode in the middle of a loop and goes on calling
 * tick() from the same call site (an edge counted before), then, with an
 * argument, calls fresh() (a new edge), then ends with _exit, all strict
 * mode allows.  The loop bounds come from the command line, so the
 * compiler keeps one call site.
 */
#include <linux/seccomp.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

volatile int sink;

__attribute__((noinline)) void tick(void) { sink++; }
__attribute__((noinline)) void fresh(void) { sink++; }

int main(int argc, char **argv)
{
	int n = atoi(argv[1]), strict_at = atoi(argv[2]);

	for (int i = 0; i < n; i++) {
		if (i == strict_at)
			prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT);
		tick();
	}
	write(1, "known edges counted\n", 20);
	if (argc > 3)
		fresh();
	write(1, "new edge counted\n", 17);
	syscall(SYS_exit, 0);
	return 0;
}
