/* samename_b.c - the other static helper (see samename_a.c). */
volatile int sink_b;

static __attribute__((noinline)) void helper(void) { sink_b++; }

void from_b(void)
{
	int i;

	for (i = 0; i < 5; i++)
		helper();
}

void from_a(void);

int main(void)
{
	from_a();
	from_b();
	return 0;
}
