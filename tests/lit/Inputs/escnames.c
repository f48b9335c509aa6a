/*
 * escnames.c - names that hold terminal control bytes, as a hostile
 * program can make them (issue 28, point 4): a function whose symbol (a
 * quoted asm label) is "evil" ESC "]0;pwned" BEL "name" (an xterm title
 * sequence), called 3 times by a thread that names itself "t" ESC "[2J"
 * (clear screen) with prctl(PR_SET_NAME); and one, "odd" DEL TAB U+009B
 * (the C1 control CSI) "end", called 2 times by main.  Given "spin
 * SECONDS", the thread then spins that long in the first function (for
 * stack samples) and main prints "ready PID" once it does.  Other
 * arguments are only recorded.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static volatile int stop, started;

/* gas takes any byte but a newline or a quote in a quoted symbol name. */
__attribute__((noinline)) void evil(int spin) __asm__("\"evil\x1b]0;pwned\x07name\"");
__attribute__((noinline)) void evil(int spin)
{
	volatile unsigned long n = 0;

	if (!spin)
		return;
	started = 1;
	while (!stop)
		n++;
}

__attribute__((noinline)) void odd(void) __asm__("\"odd\x7f\t\xc2\x9b" "end\"");
__attribute__((noinline)) void odd(void)
{
	__asm__ volatile("");
}

static double secs;

static void *worker(void *arg)
{
	int i;

	(void)arg;
	prctl(PR_SET_NAME, "t\x1b[2J", 0, 0, 0);
	for (i = 0; i < 3; i++)
		evil(i == 2 && secs > 0);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 2 && !strcmp(argv[1], "spin"))
		secs = atof(argv[2]);
	odd();
	odd();
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	if (secs > 0) {
		struct timespec ms = { 0, 1000000 };
		struct timespec ts = { (time_t)secs,
				       (long)((secs - (time_t)secs) * 1e9) };

		while (!started)
			nanosleep(&ms, NULL);
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		while (nanosleep(&ts, &ts))
			;
		stop = 1;
	}
	pthread_join(t, NULL);
	return 0;
}
