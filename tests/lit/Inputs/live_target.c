/*
 * live_target.c - a program to switch counting on and off in (issue 29,
 * point 3): "ready PID" on stdout, then for each line "N" on stdin calls
 * hot() N times and says "done N SUM"; "exit" (or the end of stdin) ends
 * it.  "fork N": a child calls hot() N times, counts the descriptors it
 * has open past stderr, and exits with that count, which the parent says
 * ("child N status S").  "close": closes every descriptor past stderr, as
 * a daemon does.  "exec": execs itself again (a new image, which says
 * "ready PID" again).  Built with vigil-ondemand and started idle, it is switched on and
 * off by `vigil attach --scan counts` between its lines, when no call is
 * under way: the counts of each window are then exactly the calls asked
 * for in it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long hot(unsigned long i)
{
	sink += i;
	return i * 3 + 1;
}

int main(void)
{
	char line[64];
	unsigned long sum = 0;

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) && strncmp(line, "exit", 4)) {
		unsigned long n = strtoul(line, NULL, 10), i;
		int fd, st, open_fds = 0;
		pid_t pid;

		if (!strncmp(line, "exec", 4)) {
			fflush(stdout);
			execl("/proc/self/exe", "live_target", (char *)NULL);
			return 3;
		}
		if (!strncmp(line, "close", 5)) {
			for (fd = 3; fd < 1024; fd++)
				close(fd);
			printf("closed\n");
			fflush(stdout);
			continue;
		}
		if (!strncmp(line, "fork ", 5)) {
			n = strtoul(line + 5, NULL, 10);
			pid = fork();
			if (pid == 0) {
				for (i = 0; i < n; i++)
					sum += hot(i);
				for (fd = 3; fd < 1024; fd++)
					open_fds += fcntl(fd, F_GETFD) >= 0;
				_exit(open_fds);
			}
			waitpid(pid, &st, 0);
			printf("child %lu status %d\n", n, WEXITSTATUS(st));
			fflush(stdout);
			continue;
		}

		for (i = 0; i < n; i++)
			sum += hot(i);
		printf("done %lu %lu\n", n, sum);
		fflush(stdout);
	}
	return 0;
}
