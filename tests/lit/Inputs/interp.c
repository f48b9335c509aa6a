/* interp.c - an interpreter-shaped program for the stack unfolding
 * (tests/lit/outputs/cycles.test), with the shape that made the old
 * proportional unfolding lose almost every call (Lua's luaV_execute ->
 * luaD_precall -> ... -> luaV_execute):
 *
 *   - a dispatch loop, execute, calling its opcodes through a table of
 *     function pointers; op_call calls precall, which runs a nested
 *     execute: the cycle execute -> op_call -> precall -> execute; and
 *     op_ccall calls a "C function", cfunc, which calls back into the
 *     interpreter through call: execute -> op_ccall -> cfunc -> call ->
 *     execute; main enters the cycle through pcall -> call, as Lua's
 *     main -> lua_pcallk -> luaD_call does;
 *   - mutual recursion: op_expr -> expr -> term -> expr -> ...;
 *   - a recursive function: op_fib -> fib -> fib;
 *   - a hot leaf called from many places (push);
 *   - main's cheap exit path, cleanup -> freeobj many times, which the
 *     old unfolding drew as the whole program.
 *
 * Counts are fixed: the program is deterministic. */
#include <stdio.h>

volatile int sink;

__attribute__((noinline)) void push(int v)
{
	sink += v;
}

__attribute__((noinline)) int fib(int n)
{
	push(n);
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int expr(int n);

__attribute__((noinline)) int term(int n)
{
	push(1);
	return n > 0 ? expr(n - 1) + 1 : 1;
}

__attribute__((noinline)) int expr(int n)
{
	return term(n) * 2;
}

void execute(int depth);

__attribute__((noinline)) void call(int depth)
{
	execute(depth);
}

__attribute__((noinline)) void pcall(int depth)
{
	call(depth);
}

__attribute__((noinline)) static void cfunc(int depth)
{
	push(depth);
	call(depth - 1);
}

__attribute__((noinline)) void precall(int depth)
{
	push(depth);
	execute(depth - 1);
}

__attribute__((noinline)) static void op_push(int depth)
{
	push(depth);
}

__attribute__((noinline)) static void op_call(int depth)
{
	if (depth > 0)
		precall(depth);
}

__attribute__((noinline)) static void op_ccall(int depth)
{
	if (depth > 0)
		cfunc(depth);
}

__attribute__((noinline)) static void op_fib(int depth)
{
	(void)depth;
	sink += fib(6);
}

__attribute__((noinline)) static void op_expr(int depth)
{
	(void)depth;
	sink += expr(3);
}

static void (*const volatile ops[])(int) = { op_push, op_call, op_fib,
					     op_expr, op_ccall };
static const unsigned char code[] = { 0, 4, 1, 2, 0, 3 };

__attribute__((noinline)) void execute(int depth)
{
	unsigned i;

	for (i = 0; i < sizeof(code); i++)
		ops[code[i]](depth);
}

__attribute__((noinline)) static void freeobj(int i)
{
	sink -= i;
}

__attribute__((noinline)) static void cleanup(void)
{
	int i;

	for (i = 0; i < 40; i++)
		freeobj(i);
}

int main(void)
{
	pcall(4);
	cleanup();
	printf("sink %d\n", sink);
	return 0;
}
