/*
 * main.c - prints the WANT its Makefile defines (so a test sees that the
 * project's own -D flag reached the compiler), then calls step 100 times
 * and twice 25 times.
 */
#include <stdio.h>

#include "calc.h"

#ifndef WANT
#define WANT 0
#endif

int main(void)
{
	int i, s = 0;

	for (i = 0; i < 100; i++)
		s = step(s);
	for (i = 0; i < 25; i++)
		s = twice(s) % 1000;
	printf("WANT=%d sum=%d\n", WANT, s);
	return 0;
}
