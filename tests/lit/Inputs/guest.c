/*
 * guest.c - the runtime is a guest.
 *
 * "errno": errno set by the program survives the first call of a function
 * (which takes the runtime's slow path: set-up, opening the file).
 *
 * "signals": a SIGPROF timer interrupts the program every 200 us of CPU
 * time while threads come and go and take new edges (the slow path); the
 * handler calls g() and counts itself.  Every call of g is counted, also
 * those that interrupted the runtime's own slow path: g's count equals the
 * handler's.
 *
 * "spin N": calls f N times; its system calls must not depend on N.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

volatile long sink;
static volatile sig_atomic_t handled;

__attribute__((noinline)) int read_errno(void) { return errno; }
__attribute__((noinline)) void f(void) { sink++; }
__attribute__((noinline)) void g(void) { sink--; }

#define E(i) __attribute__((noinline)) static void e##i(void) { sink += i; }
#define E10(i) E(i##0) E(i##1) E(i##2) E(i##3) E(i##4) E(i##5) E(i##6) \
	E(i##7) E(i##8) E(i##9)
E10(1) E10(2) E10(3) E10(4) E10(5)
#define C(i) e##i();
#define C10(i) C(i##0) C(i##1) C(i##2) C(i##3) C(i##4) C(i##5) C(i##6) \
	C(i##7) C(i##8) C(i##9)

static void *worker(void *arg)
{
	long spin;

	C10(1) C10(2) C10(3) C10(4) C10(5)
	for (spin = 0; spin < 100000; spin++)
		f();
	return arg;
}

/* Not instrumented, so that g is the only call a signal adds. */
__attribute__((no_instrument_function)) static void on_prof(int sig)
{
	(void)sig;
	handled++;
	g();
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "errno")) {
		errno = EDOM;
		printf("errno %s\n", read_errno() == EDOM ? "kept" : "changed");
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "spin")) {
		long i, n = atol(argv[2]);

		for (i = 0; i < n; i++)
			f();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "signals")) {
		struct itimerval it = { { 0, 200 }, { 0, 200 } }, off = { 0 };
		struct sigaction sa;
		pthread_t t;
		int i;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_prof;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGPROF, &sa, NULL);
		setitimer(ITIMER_PROF, &it, NULL);
		/* At least 300 threads, and on until the timer has fired 20
		 * times (a loaded machine gives the program less CPU time). */
		for (i = 0; i < 300 || (handled < 20 && i < 100000); i++) {
			if (pthread_create(&t, NULL, worker, NULL))
				return 1;
			pthread_join(t, NULL);
		}
		setitimer(ITIMER_PROF, &off, NULL);
		printf("handled %d\n", (int)handled);
		return 0;
	}
	return 2;
}
