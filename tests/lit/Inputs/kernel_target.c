/*
 * kernel_target.c - a program that spends a known share of its CPU time
 * in the kernel on its own behalf (issue 16, point 3), for
 * tests/e2e/kernel_time.py.  argv[1] times it alternates a loop in user
 * space (do_spin) with reads of 1 MiB from /dev/zero (do_reads: the
 * kernel clears the buffer, system time), then prints "spin_us U
 * reads_us S", the CPU time of each (CLOCK_PROCESS_CPUTIME_ID around
 * each call: exact, where getrusage's user/system split is ticks, and
 * once said 4.6% system for a run whose samples and later runs said
 * 18-21%), and exits 0.  A count of rounds, not a time: its CPU time is
 * the same however loaded the machine.
 * Built with -O2 -fomit-frame-pointer, as distributions build.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define CHUNK (1u << 20)

static volatile unsigned long sink;

static NOINLINE void do_spin(void)
{
	unsigned long i;

	for (i = 0; i < 2000000; i++)
		sink += i ^ (sink >> 3);
}

static NOINLINE void do_reads(int fd, char *buf)
{
	int i;

	for (i = 0; i < 32; i++)
		if (read(fd, buf, CHUNK) != (ssize_t)CHUNK)
			exit(2);
	sink += (unsigned char)buf[CHUNK - 1];
}

static long cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100, i;
	char *buf = malloc(CHUNK);
	int fd = open("/dev/zero", O_RDONLY);
	long spin_us = 0, reads_us = 0;

	if (!buf || fd < 0)
		return 2;
	for (i = 0; i < rounds; i++) {
		long t0 = cpu_us();

		do_spin();
		long t1 = cpu_us();

		do_reads(fd, buf);
		spin_us += t1 - t0;
		reads_us += cpu_us() - t1;
	}
	printf("spin_us %ld reads_us %ld\n", spin_us, reads_us);
	return 0;
}
