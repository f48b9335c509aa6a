/*
 * review.c - programs that broke the runtime once (each a regression
 * test; fns[] comes from genfuncs.py).
 *
 * "forksig": a 100 us SIGALRM whose handler takes a new call edge each
 * time, while the program forks 100 times.  The handler runs while fork
 * holds the runtime's lock; it must defer, not wait for that lock.
 *
 * "window": 3000 new edges, then vigil_snapshot(): the window holds all
 * of them (its buffer once lost what it had collected when it grew).
 *
 * "resetrace": one thread cuts 200 windows while another counts and calls
 * vigil_reset(): no window count is ever more than the calls made, and
 * no window file replaces another.
 *
 * "bigtls": a program with 58000 bytes of static TLS and VIGIL_INTERVAL
 * (the interval thread's stack once held no room for it).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vigil.h>

typedef void (*fp)(void);
extern fp fns[];
extern int nfns;

static volatile sig_atomic_t k;
static volatile int stop;
__thread char big[58000];

__attribute__((noinline)) void work(void) { big[0]++; }

__attribute__((no_instrument_function)) static void on_alarm(int sig)
{
	(void)sig;
	if (k < nfns)
		fns[k++]();
}

static void *cut_windows(void *arg)
{
	int i;

	for (i = 0; i < 200; i++)
		vigil_snapshot();
	stop = 1;
	return arg;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	int i;

	if (!strcmp(what, "forksig")) {
		struct itimerval it = { { 0, 100 }, { 0, 100 } }, off = { 0 };
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_alarm;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &it, NULL);
		for (i = 0; i < 100; i++) {
			pid_t p = fork();

			if (!p)
				_exit(0);
			while (waitpid(p, NULL, 0) < 0)
				;
		}
		setitimer(ITIMER_REAL, &off, NULL);
		printf("forked 100\n");
		return 0;
	}
	if (!strcmp(what, "window")) {
		for (i = 0; i < nfns; i++)
			fns[i]();
		printf("snapshot %d\n", vigil_snapshot());
		return 0;
	}
	if (!strcmp(what, "resetrace")) {
		pthread_t t;
		long n = 0;

		pthread_create(&t, NULL, cut_windows, NULL);
		while (!stop) {
			work();
			if (++n % 1000 == 0)
				vigil_reset();
		}
		pthread_join(t, NULL);
		printf("raced\n");
		return 0;
	}
	if (!strcmp(what, "bigtls")) {
		for (i = 0; i < 20; i++) {
			work();
			usleep(5000);
		}
		printf("bigtls %d\n", big[0]);
		return 0;
	}
	return 2;
}
