/* samename_a.c - a static helper whose name samename_b.c uses too: two
 * functions, one name (see samename.test). */
volatile int sink_a;

static __attribute__((noinline)) void helper(void) { sink_a++; }

void from_a(void)
{
	int i;

	for (i = 0; i < 3; i++)
		helper();
}
