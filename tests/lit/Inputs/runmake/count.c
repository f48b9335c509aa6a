/* count.c N - calls step() N times and prints N. */
#include <stdio.h>
#include <stdlib.h>

volatile int sink;

__attribute__((noinline)) void step(int i) { sink = i; }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	for (int i = 0; i < n; i++)
		step(i);
	printf("count %d\n", n);
	return 0;
}
