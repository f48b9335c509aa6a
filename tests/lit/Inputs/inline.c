/* inline.c - one function (work) inlined into two hosts: host_direct,
 * which main calls directly, and host_pointer, which main calls through a
 * function pointer (see inline.test). */
volatile int sink;

static inline __attribute__((always_inline)) void work(void)
{
	sink++;
}

__attribute__((noinline)) void host_direct(void)
{
	work();
	work();
}

__attribute__((noinline)) void host_pointer(void)
{
	work();
}

void (*volatile fp)(void) = host_pointer;

int main(void)
{
	int i;

	for (i = 0; i < 3; i++)
		host_direct();
	for (i = 0; i < 5; i++)
		fp();
	return 0;
}
