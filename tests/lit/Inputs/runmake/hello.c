/* hello.c - says hello through greet(), called once. */
#include <stdio.h>

__attribute__((noinline)) void greet(void) { puts("hello"); }

int main(void)
{
	greet();
	return 0;
}
