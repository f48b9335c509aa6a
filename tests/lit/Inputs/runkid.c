/*
 * runkid.c MODE [ARG] - one process of a tree run under `vigil run`.
 * Every mode first calls f() exactly 10 times and prints "runkid MODE".
 *
 *   exit N    then exits with status N
 *   thread    two threads call g() 5 times each, joined; exit 0
 *   _exit     then _exit(0): the runtime sees no exit
 *   kill      then SIGKILLs itself
 *   daemon F  forks a grandchild that leaves the session, closes its
 *             stdio, writes its pid to file F, calls g() once and stays
 *             30 s; the middle child and main exit at once
 *   sigint    prints "ready", then counts SIGINTs for 300 ms after the
 *             first one (a second delivery would show), prints
 *             "SIGINT N" and exits 3
 *   signals   prints "ready", then waits until it has caught SIGUSR1,
 *             SIGUSR2, SIGALRM and SIGCONT, waits 300 ms more (a second
 *             delivery would show), prints how many of each it caught
 *             and exits 4
 *   sigs      prints "ready", then a line "got SIGNAME" for each of
 *             SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM and
 *             SIGTERM it catches, as it comes; 300 ms after the first
 *             SIGINT or SIGTERM (a second delivery would show) exits 5;
 *             after 5 s without one prints "timed out" and exits 6
 *   raise N   resets signal N to its default action and raises it
 *   kids N    forks N children one after the other, each calling g()
 *             once and exiting after 2 ms, waits for each and 1 ms
 *             more; exit 0
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

volatile long sink;
static volatile sig_atomic_t nsigint;

__attribute__((noinline)) void f(long i) { sink = i; }
__attribute__((noinline)) void g(long i) { sink = i; }

static void *worker(void *arg)
{
	for (long i = 0; i < 5; i++)
		g(i);
	return arg;
}

static void on_int(int sig)
{
	(void)sig;
	nsigint++;
}

static volatile sig_atomic_t caught[NSIG];

static void on_sig(int sig)
{
	caught[sig]++;
}

static void daemonize(const char *pidfile)
{
	pid_t p = fork();
	FILE *pf;
	int fd;

	if (p != 0) {
		if (p > 0)
			waitpid(p, NULL, 0);
		return;
	}
	if (fork() != 0)
		_exit(0);
	setsid();
	fd = open("/dev/null", O_RDWR);
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	pf = fopen(pidfile, "w");
	fprintf(pf, "%d\n", (int)getpid());
	fclose(pf);
	g(0);
	sleep(30);
	exit(0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "exit";
	pthread_t t[2];

	for (long i = 0; i < 10; i++)
		f(i);
	printf("runkid %s\n", mode);
	fflush(stdout);
	if (!strcmp(mode, "exit"))
		return argc > 2 ? atoi(argv[2]) : 0;
	if (!strcmp(mode, "thread")) {
		pthread_create(&t[0], NULL, worker, NULL);
		pthread_create(&t[1], NULL, worker, NULL);
		pthread_join(t[0], NULL);
		pthread_join(t[1], NULL);
		return 0;
	}
	if (!strcmp(mode, "kids") && argc > 2) {
		struct timespec ms = { 0, 1000000 };
		int n = atoi(argv[2]);

		while (n-- > 0) {
			pid_t p = fork();

			if (p == 0) {
				g(0);
				nanosleep(&ms, NULL);
				nanosleep(&ms, NULL);
				exit(0);
			}
			if (p > 0)
				waitpid(p, NULL, 0);
			nanosleep(&ms, NULL);
		}
		return 0;
	}
	if (!strcmp(mode, "_exit"))
		_exit(0);
	if (!strcmp(mode, "kill"))
		raise(SIGKILL);
	if (!strcmp(mode, "daemon") && argc > 2) {
		daemonize(argv[2]);
		return 0;
	}
	if (!strcmp(mode, "sigint")) {
		struct timespec ms = { 0, 1000000 };
		int n;

		signal(SIGINT, on_int);
		printf("ready\n");
		fflush(stdout);
		while (!nsigint)
			nanosleep(&ms, NULL);
		for (n = 0; n < 300; n++)
			nanosleep(&ms, NULL);
		printf("SIGINT %d\n", (int)nsigint);
		return 3;
	}
	if (!strcmp(mode, "signals")) {
		static const int sigs[] = { SIGUSR1, SIGUSR2, SIGALRM, SIGCONT };
		struct timespec ms = { 0, 1000000 };
		int n, k;

		for (k = 0; k < 4; k++)
			signal(sigs[k], on_sig);
		printf("ready\n");
		fflush(stdout);
		for (;;) {
			for (k = 0; k < 4 && caught[sigs[k]]; k++)
				;
			if (k == 4)
				break;
			nanosleep(&ms, NULL);
		}
		for (n = 0; n < 300; n++)
			nanosleep(&ms, NULL);
		printf("USR1 %d USR2 %d ALRM %d CONT %d\n", (int)caught[SIGUSR1],
		       (int)caught[SIGUSR2], (int)caught[SIGALRM],
		       (int)caught[SIGCONT]);
		return 4;
	}
	if (!strcmp(mode, "sigs")) {
		static const struct { int sig; const char *name; } sigs[] = {
			{ SIGHUP, "SIGHUP" }, { SIGINT, "SIGINT" },
			{ SIGQUIT, "SIGQUIT" }, { SIGUSR1, "SIGUSR1" },
			{ SIGUSR2, "SIGUSR2" }, { SIGALRM, "SIGALRM" },
			{ SIGTERM, "SIGTERM" },
		};
		int printed[NSIG] = { 0 }, k, left = -1, ms_left = 5000;
		struct timespec ms = { 0, 1000000 };

		for (k = 0; k < 7; k++)
			signal(sigs[k].sig, on_sig);
		printf("ready\n");
		fflush(stdout);
		while (left != 0 && ms_left-- > 0) {
			for (k = 0; k < 7; k++)
				while (printed[sigs[k].sig] <
				       caught[sigs[k].sig]) {
					printed[sigs[k].sig]++;
					printf("got %s\n", sigs[k].name);
					fflush(stdout);
				}
			if (left < 0 && (caught[SIGINT] || caught[SIGTERM]))
				left = 300;
			if (left > 0)
				left--;
			nanosleep(&ms, NULL);
		}
		if (left != 0) {
			printf("timed out\n");
			return 6;
		}
		return 5;
	}
	if (!strcmp(mode, "raise") && argc > 2) {
		/* The default, whatever the harness left: lit ignores SIGINT. */
		signal(atoi(argv[2]), SIG_DFL);
		raise(atoi(argv[2]));
		return 1;
	}
	fprintf(stderr, "runkid: bad mode\n");
	return 2;
}
