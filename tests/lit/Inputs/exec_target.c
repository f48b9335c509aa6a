/* exec_target.c - what ending.c execs into: calls h exactly 5 times. */
volatile int sink;

__attribute__((noinline)) void h(void) { sink += 5; }

int main(void)
{
	for (int i = 0; i < 5; i++)
		h();
	return 0;
}
