/*
 * hello.c - the autotools test project's program and its own test: calls
 * square() (in libsquare) exactly 12 times and add() exactly 5 times,
 * prints the sum, exits 0 if it is right.
 */
#include <stdio.h>

int square(int x);

volatile int sink;

__attribute__((noinline)) int add(int a, int b) { sink++; return a + b; }

int main(void)
{
	int i, sum = 0;

	for (i = 1; i <= 12; i++)
		sum += square(i);
	for (i = 0; i < 5; i++)
		sum = add(sum, 1);
	printf("sum %d\n", sum);
	return sum == 655 ? 0 : 1;
}
