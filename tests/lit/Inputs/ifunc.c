/* ifunc.c - an ordinary GNU indirect function.  Built with
 * -finstrument-functions, its resolver is instrumented like any function
 * and runs during relocation, before main, before TLS may be set up. */
#include <stdio.h>

static int impl(void) { return 42; }

static int (*resolve_answer(void))(void) { return impl; }

int answer(void) __attribute__((ifunc("resolve_answer")));

int main(void)
{
	printf("answer %d\n", answer());
	return 0;
}
