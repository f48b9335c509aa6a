/*
 * rawfork.c - a child made without the pthread_atfork handlers: argv[1]
 * is "_Fork" (glibc's _Fork) or "clone" (the raw system call with
 * SIGCHLD).  The parent calls g 5 times, makes the child and waits for
 * it, then calls g 5 times more.  The child calls g 3 times (an edge the
 * parent's index knows: the hot path) and in_child 100 times, then exits
 * through exit().  Prints "parent PID" and "child PID".
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

volatile int sink;

__attribute__((noinline)) void g(void) { sink += 2; }
__attribute__((noinline)) void in_child(void) { sink += 3; }

int main(int argc, char **argv)
{
	int i, status;
	pid_t child;

	if (argc != 2)
		return 2;
	for (i = 0; i < 5; i++)
		g();
	fflush(stdout);
	if (!strcmp(argv[1], "_Fork"))
		child = _Fork();
	else
		child = (pid_t)syscall(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L);
	if (child < 0)
		return 1;
	if (child == 0) {
		for (i = 0; i < 3; i++)
			g();
		for (i = 0; i < 100; i++)
			in_child();
		exit(0);
	}
	if (waitpid(child, &status, 0) != child || status != 0)
		return 3;
	for (i = 0; i < 5; i++)
		g();
	printf("parent %d\nchild %d\n", (int)getpid(), (int)child);
	return 0;
}
