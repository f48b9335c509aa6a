/* c() calls a(), which ends in a tail call of b(): in entry mode b's
 * call is seen from c's call site (a's frame is gone). */
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) int b(int x) { return x * 3 + 1; }
__attribute__((noinline)) int a(int x) { return b(x + 1); }
__attribute__((noinline)) int c(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += a(i);
	return s;
}
int main(int argc, char **argv)
{
	printf("%d\n", c(argc > 1 ? atoi(argv[1]) : 10));
	return 0;
}
