/*
 * lowfd.c - the daemon idiom, over and over: close descriptor 0, open
 * /dev/null and count on getting 0 back ("the next open returns the lowest
 * free descriptor").  Runs for argv[1] milliseconds (at least 20,000
 * rounds), calling f once per round; prints "rounds N", "mismatches M"
 * (opens that returned another number) and "f N".  A runtime thread that
 * opens a file in the window between the close and the open steals 0.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

volatile int sink;

__attribute__((noinline)) void f(void) { sink++; }

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	long long until = now_ms() + (argc > 1 ? atoll(argv[1]) : 500);
	long rounds = 0, mismatches = 0;
	int fd;

	while (rounds < 20000 || now_ms() < until) {
		f();
		close(0);
		fd = open("/dev/null", O_RDONLY);
		if (fd != 0) {
			mismatches++;
			if (fd >= 0)
				close(fd);
		}
		rounds++;
	}
	printf("rounds %s\nmismatches %ld\nf %ld\n",
	       rounds >= 20000 ? "enough" : "too few", mismatches, rounds);
	return 0;
}
