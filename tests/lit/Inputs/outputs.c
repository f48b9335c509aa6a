/* outputs.c - a small call graph with known exact counts, for the output
 * formats (convert.test, fdata.test, flame.test):
 *   main -> parse 2, parse -> lex 10 (5 per parse), main -> eval 3,
 *   eval -> lex 3, main -> fact 1, fact -> fact 4 (recursion),
 *   main -> cb 4 (through a function pointer), cb -> leaf 8.
 * Prints a checksum so that a rewritten binary can be compared. */
#include <stdio.h>

volatile int sink;

__attribute__((noinline)) int lex(int i)
{
	sink += i;
	return sink & 7;
}

__attribute__((noinline)) int parse(int n)
{
	int i, s = 0;

	for (i = 0; i < 5; i++)
		s += lex(n + i);
	return s;
}

__attribute__((noinline)) int eval(int n)
{
	return lex(n) * 2;
}

__attribute__((noinline)) int fact(int n)
{
	return n <= 1 ? 1 : n * fact(n - 1);
}

__attribute__((noinline)) static int leaf(int x)
{
	sink ^= x;
	return x + 1;
}

__attribute__((noinline)) static int cb(int x)
{
	return leaf(x) + leaf(x + 1);
}

int (*volatile fp)(int) = cb;

int main(void)
{
	int i, s = 0;

	for (i = 0; i < 2; i++)
		s += parse(i);
	for (i = 0; i < 3; i++)
		s += eval(i);
	s += fact(5);
	for (i = 0; i < 4; i++)
		s += fp(i);
	printf("checksum %d\n", s);
	return 0;
}
