/*
 * spinmain.c - calls spin() of libspin.so, 100 times, each about 3 ms of
 * CPU (both-shlib.test).
 */
#include <stdio.h>

unsigned long spin(unsigned long n);

int main(void)
{
	unsigned long x = 0;
	int i;

	for (i = 0; i < 100; i++)
		x ^= spin(3000000);
	printf("spun %d\n", i);
	return x == 1;
}
