/*
 * limit_clone.c - a thread made by a raw clone() without CLONE_SETTLS
 * (docs/limits.md): it runs on its creator's TLS.  The thread and
 * main each call work() once, which calls leaf() 1000 times; main waits
 * for the thread's end (CLONE_CHILD_CLEARTID clears the word and wakes
 * it) before its own call.  Not at the same time: two threads on one TLS
 * share the runtime's "in the slow path" word, and a call made while the
 * other thread is in the slow path is counted as lost (seen once in a
 * full run: thread_main 0 calls, 1 lost).
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

volatile int sink;
static volatile pid_t child_tid = 1;

__attribute__((noinline)) void leaf(void) { sink++; }

__attribute__((noinline)) void work(void)
{
	for (int i = 0; i < 1000; i++)
		leaf();
}

static int thread_main(void *arg)
{
	(void)arg;
	work();
	return 0;
}

int main(void)
{
	size_t size = 1 << 20;
	char *stack = malloc(size);
	pid_t tid;

	if (clone(thread_main, stack + size,
		  CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
			  CLONE_THREAD | CLONE_SYSVSEM | CLONE_CHILD_CLEARTID,
		  NULL, NULL, NULL, &child_tid) < 0)
		return 2;
	while ((tid = child_tid) != 0)
		syscall(SYS_futex, &child_tid, FUTEX_WAIT, tid, NULL, NULL, 0);
	work();
	printf("both done\n");
	return 0;
}
