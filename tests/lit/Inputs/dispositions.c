/*
 * dispositions.c - prints what the runtime must leave alone: every
 * signal's disposition and whether it is blocked, the process group and
 * session, and the open descriptors.  Run with and without vigil, the
 * output must be the same.  Calls f a few times first so that the runtime
 * has started (and, with VIGIL_INTERVAL, its thread runs).
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile int sink;

__attribute__((noinline)) void f(void) { sink++; }

int main(void)
{
	sigset_t blocked;
	struct dirent *d;
	DIR *dir;

	for (int i = 0; i < 10; i++)
		f();
	usleep(50000);
	sigprocmask(SIG_BLOCK, NULL, &blocked);
	for (int s = 1; s < NSIG; s++) {
		struct sigaction sa;

		if (sigaction(s, NULL, &sa) != 0)
			continue;
		printf("signal %d: %s%s\n", s,
		       sa.sa_handler == SIG_DFL ? "default" :
		       sa.sa_handler == SIG_IGN ? "ignored" : "handled",
		       sigismember(&blocked, s) ? ", blocked" : "");
	}
	printf("own process group: %s\n", getpgrp() == getpid() ? "yes" : "no");
	printf("parent's process group: %s\n",
	       getpgrp() == getpgid(getppid()) ? "yes" : "no");
	printf("parent's session: %s\n",
	       getsid(0) == getsid(getppid()) ? "yes" : "no");
	/* Descriptors the program can see that it did not open: stdin,
	 * stdout, stderr, and the one reading the directory; the profile's
	 * descriptor, if the runtime keeps one, is listed by number only. */
	dir = opendir("/proc/self/fd");
	if (!dir)
		return 1;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.' && atoi(d->d_name) <= 2)
			printf("fd %s open\n", d->d_name);
	closedir(dir);
	return 0;
}
