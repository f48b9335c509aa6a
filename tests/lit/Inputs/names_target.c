/*
 * names_target.c - code for each source of names of a stripped binary
 * (tests/e2e/names.py; issue 15 point 4, issue 16 point 6).  Built with
 * -finstrument-functions and the runtime, so that one `vigil run --scan
 * stacks` gives a counting and a sampled profile of it.
 *
 *   exported_fn  in .dynsym (the link exports it): named by .dynsym
 *   hidden_fn    static: only .symtab, MiniDebugInfo or a debug file
 *                name it; else the start of its FDE
 *   nofde_fn     assembly without CFI: no FDE, so a stripped binary
 *                has nothing but the module to name it by
 *
 * Each spins for about 0.3 s of CPU time; main calls them in turn.
 */
#include <time.h>

/* noclone: built with -pg (entry mode), GCC made hidden_fn.constprop.0 */
#define NOINLINE __attribute__((noinline, noclone))
#define NOINST __attribute__((no_instrument_function))

static volatile unsigned long sink;

static NOINST double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

NOINLINE void exported_fn(double s)
{
	double end = cpu_now() + s;
	unsigned long i;

	while (cpu_now() < end)
		for (i = 0; i < 100000; i++)
			sink += i ^ (sink >> 3);
}

static NOINLINE void hidden_fn(double s)
{
	double end = cpu_now() + s;
	unsigned long i;

	while (cpu_now() < end)
		for (i = 0; i < 100000; i++)
			sink += i ^ (sink >> 5);
}

/* No .cfi_startproc: the assembler writes no FDE for it. */
void nofde_fn(unsigned long n);
__asm__(".text\n"
	".globl nofde_fn\n"
	".type nofde_fn, @function\n"
	"nofde_fn:\n"
	"1:	dec %rdi\n"
	"	jnz 1b\n"
	"	ret\n"
	".size nofde_fn, .-nofde_fn\n");

int main(void)
{
	double t;
	int k;

	exported_fn(0.3);
	hidden_fn(0.3);
	/* About 0.3 s however fast the machine: 1e8 turns at a time. */
	t = cpu_now();
	for (k = 0; k < 100 && cpu_now() - t < 0.3; k++)
		nofde_fn(100000000ul);
	return 0;
}
