/*
 * entry_guest.c - programs that the entry hook (__fentry__) must leave
 * unchanged, as the plain and inline builds do (issue 28, points 11-15).
 * Linked with funcs.c from genfuncs.py (fns[], nfns) where a mode needs
 * fresh edges.  Each mode prints one line that the test checks.
 *
 *   key0      another library's thread-specific key, made before the first
 *             instrumented call, keeps its value
 *   jump [US] a SIGALRM handler every US (20) us siglongjmps out of wherever it
 *             lands (a loop over nfns fresh functions, so mostly the slow
 *             path); then a thread makes 1000 calls
 *   fresh     calls each of nfns fresh functions once, from one site
 *   vfork     a vfork child makes 50 calls before _exit (vfork-exec:
 *             then execs sh -c "exit 7"; vfork-thread: from a thread
 *             that made no counted call, then 5 calls in the parent)
 *   altstack [BYTES]  a signal handler on a sigaltstack of BYTES
 *             (MINSIGSTKSZ + 124), a page nobody may touch below it, makes
 *             calls (a fresh edge, then a known one)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sigjump.h"

typedef void (*fp)(void);
extern fp fns[];
extern int nfns;

static volatile long sink;

__attribute__((noinline)) static void hot(void) { sink++; }
__attribute__((noinline)) static void leaf(void) { sink += 2; }

/* ---- key0 ---- */
static pthread_key_t other_key;
static int other_value;
static int other_made;

/* Another library's start-up: uninstrumented (no_instrument_function
 * leaves out -pg's call too), run before main's first call of a hook. */
__attribute__((constructor, no_instrument_function)) static void
other_library_init(void)
{
	if (pthread_key_create(&other_key, NULL) == 0 &&
	    pthread_setspecific(other_key, &other_value) == 0)
		other_made = 1;
}

static int key0(void)
{
	hot();
	printf("key0 made %d key %u value %s\n", other_made,
	       (unsigned)other_key,
	       pthread_getspecific(other_key) == &other_value ? "kept"
							      : "replaced");
	return 0;
}

/* ---- jump ---- */

static void *thousand_calls(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 1000; i++)
		hot();
	return NULL;
}

static int jump(long us)
{
	sigjump_run(fns, nfns, us, thousand_calls);
	printf("jump %d\n", nfns);
	return 0;
}

/* Each of nfns fresh functions once, from one call site. */
static int fresh(void)
{
	int i;

	for (i = 0; i < nfns; i++)
		fns[i]();
	printf("fresh %d\n", nfns);
	return 0;
}

/* ---- vfork ---- */
static int do_vfork(int exec_after)
{
	int status, i;
	pid_t pid = vfork();

	if (pid == 0) {
		for (i = 0; i < 50; i++)
			leaf();
		if (exec_after)
			execl("/bin/sh", "sh", "-c", "exit 7", (char *)NULL);
		_exit(7);
	}
	waitpid(pid, &status, 0);
	printf("vfork exit %d\n", WEXITSTATUS(status));
	return 0;
}

/* The vfork from a thread that has made no counted call yet (its start
 * routine is not instrumented): its child's first call is the thread's
 * first slow path. */
static int child_status;

__attribute__((no_instrument_function)) static void *vfork_thread(void *arg)
{
	int status, i;
	pid_t pid;

	(void)arg;
	pid = vfork();
	if (pid == 0) {
		for (i = 0; i < 50; i++)
			leaf();
		_exit(7);
	}
	waitpid(pid, &status, 0);
	child_status = WEXITSTATUS(status);
	return NULL;
}

static int vfork_from_thread(void)
{
	pthread_t th;
	int i;

	hot();
	pthread_create(&th, NULL, vfork_thread, NULL);
	pthread_join(th, NULL);
	for (i = 0; i < 5; i++)
		hot();
	printf("vfork-thread exit %d\n", child_status);
	return 0;
}

/* ---- altstack ---- */
static volatile int handled;

static void alt_handler(int sig)
{
	(void)sig;
	leaf();
	hot();
	handled++;
}

static int altstack(size_t size)
{
	struct sigaction sa;
	stack_t ss;
	long page = sysconf(_SC_PAGESIZE);
	/* A page nobody may touch right below the stack: a handler that
	 * needs more dies of SIGSEGV instead of writing the heap. */
	size_t len = (size + page - 1) / page * page;
	char *p = mmap(NULL, page + len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	hot();
	if (p == MAP_FAILED || mprotect(p, page, PROT_NONE) < 0) {
		perror("mmap");
		return 1;
	}
	ss.ss_sp = p + page;
	ss.ss_size = size;
	ss.ss_flags = 0;
	if (sigaltstack(&ss, NULL) < 0) {
		perror("sigaltstack");
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = alt_handler;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	raise(SIGUSR1);
	printf("altstack %d\n", handled);
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (!strcmp(m, "key0"))
		return key0();
	if (!strcmp(m, "jump"))
		return jump(argc > 2 ? atol(argv[2]) : 20);
	if (!strcmp(m, "fresh"))
		return fresh();
	if (!strcmp(m, "vfork"))
		return do_vfork(0);
	if (!strcmp(m, "vfork-exec"))
		return do_vfork(1);
	if (!strcmp(m, "vfork-thread"))
		return vfork_from_thread();
	if (!strcmp(m, "altstack"))
		return altstack(argc > 2 ? (size_t)atol(argv[2])
					 : MINSIGSTKSZ + 124);
	fprintf(stderr, "usage: entry_guest key0|jump [US]|fresh|vfork|vfork-exec|vfork-thread|altstack [BYTES]\n");
	return 2;
}
