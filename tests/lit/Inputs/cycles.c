/* cycles.c - mutual recursion for the stack unfolding (folded.test):
 * main -> ping 2, ping -> pong 4, pong -> ping 4, pong -> tick 4. */
volatile int sink;

void pong(int n);

__attribute__((noinline)) void tick(void)
{
	sink++;
}

__attribute__((noinline)) void ping(int n)
{
	if (n)
		pong(n);
}

__attribute__((noinline)) void pong(int n)
{
	tick();
	ping(n - 1);
}

int main(void)
{
	ping(3);
	ping(1);
	return 0;
}
