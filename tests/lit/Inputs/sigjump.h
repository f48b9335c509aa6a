/*
 * sigjump.h - for hostile.c's longjmp mode and entry_guest.c's jump mode:
 * a loop over the nfns functions of funcs.c (fns[], from genfuncs.py)
 * that a SIGALRM handler siglongjmps out of every us microseconds,
 * wherever it lands (mostly inside the runtime's slow path: each function
 * is a new edge), then one thread that runs then().  What it proves: no
 * lock of the runtime is left held by a jump out of it, so the thread's
 * calls are counted and nothing hangs.  Prints "jumps N" on stderr.
 * Included once per program (its statics are the program's).
 *
 * The jump keeps the handler's mask (sigsetjmp(env, 0)), and SIGALRM is
 * unblocked only once the jump has landed: siglongjmp unblocked it
 * before it jumped, still on the handler's stack, and a tick within that
 * window (the timer's 10 us is shorter than a sigprocmask on a loaded
 * VM) ran the handler again there, and again, until the stack overflowed
 * (SIGSEGV in 10 to 15 of 20 runs of entry/jump-probe.test, with the
 * runtime of the last release as with today's).
 */
#ifndef VIGIL_TEST_SIGJUMP_H
#define VIGIL_TEST_SIGJUMP_H

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

static sigjmp_buf sigjump_env;
static sigset_t sigjump_alrm;
static volatile int sigjump_count;

static void sigjump_handler(int sig)
{
	(void)sig;
	sigjump_count++;
	siglongjmp(sigjump_env, 1);
}

static void sigjump_run(void (*const *fn)(void), int n, long us,
			void *(*then)(void *))
{
	struct sigaction sa;
	struct itimerval it = { { 0, us }, { 0, us } };
	volatile int i = 0;
	pthread_t th;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sigjump_handler;
	sigaction(SIGALRM, &sa, NULL);
	sigemptyset(&sigjump_alrm);
	sigaddset(&sigjump_alrm, SIGALRM);
	/* The jump target first, then the timer: armed first, a tick that
	 * came before sigsetjmp returned (a loaded machine) jumped to an
	 * empty env, and siglongjmp loaded a garbage stack pointer. */
	/* Resume after the function that was interrupted, counted before
	 * SIGALRM is unblocked: each jump moves on by one function, so the
	 * loop ends however often the timer fires.  Resumed at it, a loaded
	 * machine, where a jump took longer than the timer's 10 us, jumped
	 * back to the same function for as long as the load lasted
	 * (entry/jump-probe.test killed by its 60 s timeout beside two busy
	 * loops; hostile/longjmp.test 62 s). */
	if (!sigsetjmp(sigjump_env, 0)) {
		setitimer(ITIMER_REAL, &it, NULL);
	} else {
		i++;
		sigprocmask(SIG_UNBLOCK, &sigjump_alrm, NULL);
	}
	for (; i < n; i++)
		fn[i]();
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	pthread_create(&th, NULL, then, NULL);
	pthread_join(th, NULL);
	fprintf(stderr, "jumps %d\n", sigjump_count);
}

#endif
