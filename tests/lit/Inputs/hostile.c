/*
 * hostile.c - programs that treat the runtime the way real hosts do:
 * signal handlers that take new edges or siglongjmp out of the runtime,
 * dl_iterate_phdr callbacks that call instrumented code, programs that
 * count their descriptors.  Linked with funcs.c from genfuncs.py (fns[],
 * nfns).  Each mode prints one line that the test checks.
 *
 *   sigedges   a 20 us itimer handler calls fresh functions while the main
 *              thread calls one hot function
 *   loader     one thread's dl_iterate_phdr callback takes new edges while
 *              another thread takes new edges
 *   longjmp    a SIGALRM handler siglongjmps back into a loop over nfns
 *              fresh functions; then a new thread makes a call
 *   fds        prints the number its first open() returns
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "sigjump.h"

typedef void (*fp)(void);
extern fp fns[];
extern int nfns;

static volatile int next_fn;
static volatile long sink;

__attribute__((noinline)) static void hot(void) { sink++; }

static void fresh_handler(int sig)
{
	(void)sig;
	if (next_fn < nfns)
		fns[next_fn++]();
}

static int sigedges(void)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 20 }, { 0, 20 } };
	long i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fresh_handler;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; next_fn < nfns; i++)
		hot();
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	printf("sigedges %d\n", next_fn);
	return 0;
}

/* ---- loader ---- */
static volatile int cb_next, th_next;
#define HALF (nfns / 2)

static int callback(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)info;
	(void)size;
	(void)arg;
	if (cb_next < HALF)
		fns[cb_next++]();
	return 0;
}

static void *iterate(void *arg)
{
	(void)arg;
	while (cb_next < HALF)
		dl_iterate_phdr(callback, NULL);
	return NULL;
}

static int loader(void)
{
	pthread_t th;

	pthread_create(&th, NULL, iterate, NULL);
	for (th_next = HALF; th_next < nfns; th_next++)
		fns[th_next]();
	pthread_join(th, NULL);
	printf("loader %d\n", nfns);
	return 0;
}

/* ---- longjmp ---- */

static void *one_call(void *arg)
{
	(void)arg;
	hot();
	return NULL;
}

static int longjump(void)
{
	sigjump_run(fns, nfns, 50, one_call);
	printf("longjmp %d\n", nfns);
	return 0;
}

/* Not inlined: entry mode counts real calls only. */
__attribute__((noinline)) static int fds(void)
{
	int fd = open("/dev/null", O_RDONLY);

	printf("fd %d\n", fd);
	return fd < 0 ? 7 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "sigedges"))
		return sigedges();
	if (!strcmp(argv[1], "loader"))
		return loader();
	if (!strcmp(argv[1], "longjmp"))
		return longjump();
	if (!strcmp(argv[1], "fds"))
		return fds();
	return 2;
}
