/*
 * fork.c - g 5 times before fork; then the child calls f 1000 times and
 * the parent 10 times.  Prints "parent PID" and "child PID" at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

volatile int sink;

__attribute__((noinline)) void f(void) { sink += 1; }
__attribute__((noinline)) void g(void) { sink += 2; }

int main(void)
{
	int i, status;
	pid_t child;

	for (i = 0; i < 5; i++)
		g();
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		for (i = 0; i < 1000; i++)
			f();
		exit(0);
	}
	for (i = 0; i < 10; i++)
		f();
	if (waitpid(child, &status, 0) != child || status != 0)
		return 2;
	printf("parent %d\nchild %d\n", (int)getpid(), (int)child);
	return 0;
}
