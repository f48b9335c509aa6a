/*
 * sampler.c - `make bench` measurements of the live sampler (sampler/),
 * each beside the baseline it replaces, measured in the same run:
 *
 *   stop N INTERVAL_MS   N starts and stops of a sampler at INTERVAL_MS on
 *                        a sleeping child, each stopped 1-5 ms after its
 *                        start (inside the wait): sampler_stop()'s median,
 *                        p99 and max in us.
 *   usleep-stop N INTERVAL_MS  the same for debugserver's old loop (sample,
 *                        usleep(interval), then look at the stop flag).
 *   scan NTHREADS REPS   cost of one threads scan per thread, in us: with
 *                        descriptors kept open and re-read with pread (the
 *                        sampler's way), and reopening every /proc file
 *                        each scan (the baseline), on a child with
 *                        NTHREADS sleeping threads.
 *
 * Prints one line of numbers per measurement for bench/attach.py.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *sleeper(void *arg)
{
	pause();
	return arg;
}

/* A child with n threads (its main one included) that sleep for ever. */
static pid_t spawn(int n)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe(p))
		exit(1);
	pid = fork();
	if (pid == 0) {
		pthread_t t;
		int i;

		for (i = 1; i < n; i++)
			pthread_create(&t, NULL, sleeper, NULL);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	if (read(p[0], &c, 1) != 1)
		exit(1);
	close(p[0]);
	close(p[1]);
	return pid;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static void print_dist(const char *what, uint64_t *ns, int n)
{
	qsort(ns, (size_t)n, sizeof(*ns), cmp_u64);
	printf("%s %.1f %.1f %.1f\n", what, (double)ns[n / 2] / 1e3,
	       (double)ns[(n * 99 + 99) / 100 - 1] / 1e3,
	       (double)ns[n - 1] / 1e3);
}

static void on_sample(const struct sampler_sample *s, void *arg)
{
	(void)s;
	(void)arg;
}

static int bench_stop(int n, uint64_t interval_ns)
{
	uint64_t *ns = calloc((size_t)n, sizeof(*ns)), t0;
	char err[SAMPLER_ERR_LEN];
	pid_t child = spawn(1);
	int i;

	for (i = 0; i < n; i++) {
		struct sampler_config cfg = {
			.pid = child, .interval_ns = interval_ns,
			.scan = SAMPLER_SCAN_DEFAULT, .fn = on_sample,
		};
		struct sampler *s;

		if (sampler_start(&s, &cfg, err, sizeof(err))) {
			fprintf(stderr, "sampler_start: %s\n", err);
			return 1;
		}
		usleep((useconds_t)(1000 + rand() % 4000));
		t0 = mono_ns();
		sampler_stop(s);
		ns[i] = mono_ns() - t0;
	}
	kill(child, SIGKILL);
	print_dist("stop", ns, n);
	return 0;
}

/* debugserver's old profile thread: sample, sleep an interval, look. */
static atomic_int old_stop;
static uint64_t old_interval_us;

static void *old_loop(void *arg)
{
	while (!old_stop)
		usleep((useconds_t)old_interval_us);
	return arg;
}

static int bench_usleep_stop(int n, uint64_t interval_ns)
{
	uint64_t *ns = calloc((size_t)n, sizeof(*ns)), t0;
	pthread_t t;
	int i;

	old_interval_us = interval_ns / 1000;
	for (i = 0; i < n; i++) {
		old_stop = 0;
		pthread_create(&t, NULL, old_loop, NULL);
		usleep((useconds_t)(1000 + rand() % 4000));
		t0 = mono_ns();
		old_stop = 1;
		pthread_join(t, NULL);
		ns[i] = mono_ns() - t0;
	}
	print_dist("usleep-stop", ns, n);
	return 0;
}

/* The baseline scan: every file opened, read and closed each time. */
static void scan_reopen(pid_t pid)
{
	char path[320], buf[1024], comm[16], *f[16];
	struct dirent *de;
	DIR *d;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", (int)pid,
			 de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (proc_pread(fd, buf, sizeof(buf)) > 0)
				proc_split_stat(buf, comm, sizeof(comm), f, 16);
			close(fd);
		}
		snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat",
			 (int)pid, de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			proc_pread(fd, buf, sizeof(buf));
			close(fd);
		}
	}
	closedir(d);
}

static int bench_scan(int nthreads, int reps)
{
	struct threads_state t;
	struct sampler_sample s;
	char path[64];
	pid_t child = spawn(nthreads);
	uint64_t t0, kept, reopen;
	int procfd, i;

	snprintf(path, sizeof(path), "/proc/%d", (int)child);
	procfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0 || threads_init(&t, procfd, child))
		return 1;
	memset(&s, 0, sizeof(s));
	threads_scan(&t, &s);       /* opens the descriptors */
	if (s.nthreads != (size_t)nthreads) {
		fprintf(stderr, "scan: %zu threads, want %d\n", s.nthreads,
			nthreads);
		return 1;
	}
	t0 = mono_ns();
	for (i = 0; i < reps; i++)
		threads_scan(&t, &s);
	kept = mono_ns() - t0;
	t0 = mono_ns();
	for (i = 0; i < reps; i++)
		scan_reopen(child);
	reopen = mono_ns() - t0;
	threads_release(&t);
	close(procfd);
	kill(child, SIGKILL);
	printf("scan %d %.2f %.2f\n", nthreads,
	       (double)kept / 1e3 / reps / nthreads,
	       (double)reopen / 1e3 / reps / nthreads);
	return 0;
}

int main(int argc, char **argv)
{
	srand((unsigned)getpid());
	if (argc == 4 && !strcmp(argv[1], "stop"))
		return bench_stop(atoi(argv[2]), strtoull(argv[3], NULL, 10) * 1000000ull);
	if (argc == 4 && !strcmp(argv[1], "usleep-stop"))
		return bench_usleep_stop(atoi(argv[2]),
					 strtoull(argv[3], NULL, 10) * 1000000ull);
	if (argc == 4 && !strcmp(argv[1], "scan"))
		return bench_scan(atoi(argv[2]), atoi(argv[3]));
	fprintf(stderr, "usage: sampler stop|usleep-stop N INTERVAL_MS | scan NTHREADS REPS\n");
	return 2;
}
