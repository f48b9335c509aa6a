/*
 * kernel_target.c - a program that spends a known share of its CPU time
 * in the kernel on its own behalf (issue 16, point 3), for
 * tests/e2e/kernel_time.py.  argv[1] times it alternates a loop in user
 * space (do_spin) with reads of 1 MiB from /dev/zero (do_reads: the
 * kernel clears the buffer, system time), then prints "utime_us U
 * stime_us S" from its own getrusage and exits 0.  A count of rounds, not
 * a time: its CPU time is the same however loaded the machine.
 * Built with -O2 -fomit-frame-pointer, as distributions build.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
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

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100, i;
	char *buf = malloc(CHUNK);
	int fd = open("/dev/zero", O_RDONLY);
	struct rusage ru;

	if (!buf || fd < 0)
		return 2;
	for (i = 0; i < rounds; i++) {
		do_spin();
		do_reads(fd, buf);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("utime_us %ld stime_us %ld\n",
	       ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec,
	       ru.ru_stime.tv_sec * 1000000L + ru.ru_stime.tv_usec);
	return 0;
}
