/*
 * attach_target.c - the processes `vigil attach` is tested on; argv[1]
 * picks one.  Each prints "ready" (with what the test needs to know) once
 * it is set up, and takes commands on stdin where the test must say when
 * something happens.  Built without instrumentation, with frame pointers
 * in every function (leaves too), so stacks can be walked.
 *
 *   loop          print "tick N" every second, for ever (debugserver's
 *                 regression test)
 *   zombie        fork a child that prints "child PID", waits for a line
 *                 on stdin and exits 7; the parent reaps it only 5 s later
 *   pthread-exit  the main thread calls pthread_exit; another prints
 *                 "ready", lives until a line on stdin, then exit(3)
 *   threads       4 busy threads "busy0".."busy3" burning 200, 400, 600,
 *                 800 ms of their own CPU time, one "sleeper"; prints
 *                 "done" when all four are; stdin: "late" starts a thread
 *                 "late", "endlate" ends it ("late started TID", "late
 *                 ended")
 *   hot           main -> outer -> middle -> hot, spinning; "go" on stdin
 *                 starts a thread "late" running late_worker -> middle ->
 *                 hot and prints "late TID"
 *   main-exit     a thread "spin" spins in hot() for ever; the main thread
 *                 prints "ready", and calls pthread_exit after a line on
 *                 stdin
 *   churn         start and join threads as fast as it can, for ever
 *   exec          after a line on stdin, exec ARGV[2..]
 *   many          100 threads asleep for ever (large thread records)
 *   spawn         a thread at a time that burns about 3 ms of CPU and
 *                 ends, one after another, for ever (CPU of threads
 *                 that end between two samples)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static void say(const char *fmt, long v)
{
	printf(fmt, v);
	putchar('\n');
	fflush(stdout);
}

static long gettid_(void)
{
	return (long)syscall(SYS_gettid);
}

static int read_line(char *buf, size_t len)
{
	return fgets(buf, (int)len, stdin) != NULL;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- loop ---------------------------------------------------------------- */
static __attribute__((noreturn)) int loop(void)
{
	long i;

	say("ready", 0);
	for (i = 0;; i++) {
		sleep(1);
		say("tick %ld", i);
	}
}

/* ---- zombie -------------------------------------------------------------- */
static int zombie(void)
{
	char line[64];
	pid_t c = fork();

	if (c == 0) {
		say("child %ld", (long)getpid());
		read_line(line, sizeof(line));
		say("exiting", 0);
		_exit(7);
	}
	/* The parent does not reap for 5 s after the child exits. */
	sleep(30);
	return 0;
}

/* ---- pthread-exit -------------------------------------------------------- */
static void *survivor(void *arg)
{
	char line[64];

	(void)arg;
	say("ready", 0);
	read_line(line, sizeof(line));
	exit(3);
}

static int pthread_exit_main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, survivor, NULL);
	pthread_exit(NULL);
}

/* ---- threads ------------------------------------------------------------- */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int busy_left = 4, late_stop;

static void *busy(void *arg)
{
	long i = (long)arg;
	char name[16];
	uint64_t want = (uint64_t)(i + 1) * 200000000ull;

	snprintf(name, sizeof(name), "busy%ld", i);
	pthread_setname_np(pthread_self(), name);
	while (thread_cpu_ns() < want)
		sink++;
	pthread_mutex_lock(&mu);
	if (--busy_left == 0)
		say("done", 0);
	pthread_mutex_unlock(&mu);
	pause();
	return NULL;
}

static void *sleeper(void *arg)
{
	pthread_setname_np(pthread_self(), "sleeper");
	pause();
	return arg;
}

static void *late(void *arg)
{
	pthread_setname_np(pthread_self(), "late");
	say("late started %ld", gettid_());
	pthread_mutex_lock(&mu);
	while (!late_stop)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return arg;
}

static int threads(void)
{
	pthread_t t;
	char line[64];
	long i;

	pthread_create(&t, NULL, sleeper, NULL);
	/* Started on "go", so the sampler sees them from their start. */
	say("ready", 0);
	read_line(line, sizeof(line));
	for (i = 0; i < 4; i++)
		pthread_create(&t, NULL, busy, (void *)i);
	while (read_line(line, sizeof(line))) {
		if (!strncmp(line, "late", 4) && line[4] == '\n') {
			pthread_create(&t, NULL, late, NULL);
		} else if (!strncmp(line, "endlate", 7)) {
			pthread_mutex_lock(&mu);
			late_stop = 1;
			pthread_cond_broadcast(&cv);
			pthread_mutex_unlock(&mu);
			pthread_join(t, NULL);
			say("late ended", 0);
		}
	}
	return 0;
}

/* ---- hot ----------------------------------------------------------------- */
__attribute__((noinline)) void hot(void)
{
	for (int i = 0; i < 100000; i++)
		sink += (unsigned long)i;
}

__attribute__((noinline)) void middle(void)
{
	for (int i = 0; i < 10; i++)
		hot();
	sink++;
}

__attribute__((noinline)) void outer(void)
{
	for (;;)
		middle();
}

__attribute__((noinline)) void *late_worker(void *arg)
{
	pthread_setname_np(pthread_self(), "late");
	say("late %ld", gettid_());
	for (;;)
		middle();
	return arg;
}

static void *go_reader(void *arg)
{
	char line[64];
	pthread_t t;

	while (read_line(line, sizeof(line)))
		if (!strcmp(line, "go\n"))
			pthread_create(&t, NULL, late_worker, NULL);
	return arg;
}

static int hot_main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, go_reader, NULL);
	say("ready", 0);
	outer();
	return 0;
}

/* ---- main-exit ----------------------------------------------------------- */
static void *spinner(void *arg)
{
	pthread_setname_np(pthread_self(), "spin");
	for (;;)
		hot();
	return arg;
}

static int main_exit(void)
{
	pthread_t t;
	char line[64];

	pthread_create(&t, NULL, spinner, NULL);
	say("ready", 0);
	read_line(line, sizeof(line));
	pthread_exit(NULL);
}

/* ---- churn --------------------------------------------------------------- */
static void *short_lived(void *arg)
{
	sink++;
	return arg;
}

static __attribute__((noreturn)) int churn(void)
{
	pthread_t t[8];
	int i;

	say("ready", 0);
	for (;;) {
		for (i = 0; i < 8; i++)
			pthread_create(&t[i], NULL, short_lived, NULL);
		for (i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
	}
}

/* ---- many, spawn --------------------------------------------------------- */
static void *asleep(void *arg)
{
	for (;;)
		pause();
	return arg;
}

static __attribute__((noreturn)) int many(void)
{
	pthread_t t;
	int i;

	for (i = 0; i < 100; i++)
		pthread_create(&t, NULL, asleep, NULL);
	say("ready", 0);
	for (;;)
		pause();
}

static void *burn3ms(void *arg)
{
	struct timespec ts, now;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	do {
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	} while ((now.tv_sec - ts.tv_sec) * 1000000000L +
		 (now.tv_nsec - ts.tv_nsec) < 3000000L);
	return arg;
}

static __attribute__((noreturn)) int spawn(void)
{
	pthread_t t;

	say("ready", 0);
	for (;;) {
		pthread_create(&t, NULL, burn3ms, NULL);
		pthread_join(t, NULL);
	}
}

/* ---- exec ---------------------------------------------------------------- */
static int exec_main(char **argv)
{
	char line[64];

	say("ready", 0);
	read_line(line, sizeof(line));
	execv(argv[0], argv);
	perror("execv");
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "loop"))
		return loop();
	if (!strcmp(argv[1], "zombie"))
		return zombie();
	if (!strcmp(argv[1], "pthread-exit"))
		return pthread_exit_main();
	if (!strcmp(argv[1], "threads"))
		return threads();
	if (!strcmp(argv[1], "hot"))
		return hot_main();
	if (!strcmp(argv[1], "main-exit"))
		return main_exit();
	if (!strcmp(argv[1], "churn"))
		return churn();
	if (!strcmp(argv[1], "many"))
		return many();
	if (!strcmp(argv[1], "spawn"))
		return spawn();
	if (!strcmp(argv[1], "exec") && argc > 2)
		return exec_main(argv + 2);
	return 2;
}
