/*
 * demo.c - a tiny recursive-descent calculator, profiled by `make demo`.
 *
 * It evaluates a fixed list of integer expressions (+ - * / and
 * parentheses), each many times, so the profile shows a small, exact call
 * graph: expr -> term -> factor -> number, with factor calling expr again
 * for parentheses.  Deterministic: the same counts on every run.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

struct parser {
	const char *p;
};

static long expr(struct parser *ps);

static void skip_space(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static long number(struct parser *ps)
{
	long v = 0;

	while (isdigit((unsigned char)*ps->p))
		v = v * 10 + (*ps->p++ - '0');
	return v;
}

static long factor(struct parser *ps)
{
	long v;

	skip_space(ps);
	if (*ps->p == '(') {
		ps->p++;
		v = expr(ps);
		skip_space(ps);
		if (*ps->p == ')')
			ps->p++;
		return v;
	}
	if (*ps->p == '-') {
		ps->p++;
		return -factor(ps);
	}
	return number(ps);
}

static long term(struct parser *ps)
{
	long v = factor(ps);

	for (;;) {
		skip_space(ps);
		if (*ps->p == '*') {
			ps->p++;
			v *= factor(ps);
		} else if (*ps->p == '/') {
			long d;

			ps->p++;
			d = factor(ps);
			v = d ? v / d : 0;
		} else {
			return v;
		}
	}
}

static long expr(struct parser *ps)
{
	long v = term(ps);

	for (;;) {
		skip_space(ps);
		if (*ps->p == '+') {
			ps->p++;
			v += term(ps);
		} else if (*ps->p == '-') {
			ps->p++;
			v -= term(ps);
		} else {
			return v;
		}
	}
}

static long eval(const char *text)
{
	struct parser ps = { text };

	return expr(&ps);
}

/* demo [ROUNDS]: 1000 rounds by default; `make demo` asks for more, so
 * that the stack samples have time to see where the time goes. */
int main(int argc, char **argv)
{
	static const char *const exprs[] = {
		"1 + 2 * 3",
		"(1 + 2) * 3",
		"2 * (3 + 4) * (5 - 1) / 7",
		"-(8 - 10) * ((2 + 3) * (4 + 5))",
		"((((1))))",
	};
	int rounds = argc > 1 ? atoi(argv[1]) : 1000;
	long sum = 0;

	for (int r = 0; r < rounds; r++)
		for (unsigned i = 0; i < sizeof exprs / sizeof exprs[0]; i++)
			sum += eval(exprs[i]);
	for (unsigned i = 0; i < sizeof exprs / sizeof exprs[0]; i++)
		printf("%-34s = %ld\n", exprs[i], eval(exprs[i]));
	printf("sum of %d rounds = %ld\n", rounds, sum);
	return 0;
}
