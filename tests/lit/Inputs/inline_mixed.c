/* inline_mixed.c - functions counted in inlined copies (inlined.test):
 * step has real calls (4, through a function pointer from main) and
 * inlined copies (6: twice in host_a, called 2 times, and once in host_b,
 * called 2 times); only is never called, only inlined (3 copies in
 * host_b, 2 calls: 6).  GCC and Clang instrument the inlined copies
 * too, as calls of the inlined function. */
volatile int sink;

static inline __attribute__((always_inline)) void step(int x)
{
	sink += x;
}

static inline __attribute__((always_inline)) void only(void)
{
	sink--;
}

__attribute__((noinline)) void host_a(void)
{
	step(1);
	step(2);
}

__attribute__((noinline)) void host_b(void)
{
	step(3);
	only();
	only();
	only();
}

void (*volatile fp)(int) = step;

int main(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		host_a();
		host_b();
	}
	for (i = 0; i < 4; i++)
		fp(i);
	return 0;
}
