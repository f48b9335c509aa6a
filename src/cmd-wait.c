/*
 * cmd-wait.c - `vigil wait FILE [--timeout D]`: block until the program
 * writing FILE is no longer running, then check the file and print its
 * state.  This is what a harness runs between starting a profiled program
 * it did not wait for itself and reading the profile.
 *
 * The live writer holds a write lock on byte 0 for as long as it runs, and
 * the kernel releases it however the process ends (even as an unreaped
 * zombie), so a blocking read lock on that byte returns exactly then.  No
 * pid is probed and nothing polls.
 *
 * Before that, with --timeout, a FILE that does not exist yet is waited
 * for by trying to open it every 10 ms: there is nothing to lock yet, and
 * a harness that starts a program and at once waits for its profile must
 * not lose that race.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "duration.h"
#include "vigil.h"

const char cmd_wait_usage[] =
	"usage: vigil wait FILE [--timeout DURATION]\n"
	"\n"
	"Blocks until the program writing FILE has ended (at once if it has),\n"
	"checks the file and prints its state line, e.g. 'state: finished\n"
	"(exit 0)' or 'state: cut short'.  DURATION is like 500ms, 10s, 2m;\n"
	"when it runs out first, prints 'vigil: FILE: still being written\n"
	"after DURATION' and exits 1.  Without --timeout, waits for ever.\n"
	"\n"
	"With --timeout, a FILE that does not exist yet is waited for too\n"
	"(a harness may start a program and wait for its profile before the\n"
	"program has made it); DURATION covers both waits, and when it runs\n"
	"out before FILE appears, prints 'vigil: FILE: did not appear within\n"
	"DURATION' and exits 1.  Without --timeout, a missing FILE is an\n"
	"error at once: a wrong name must not wait for ever.\n";

static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

/*
 * Arms SIGALRM without SA_RESTART so that it interrupts F_SETLKW.  The
 * timer repeats every 10 ms after the first expiry: a signal that lands
 * just before fcntl() blocks is then followed by one that lands inside it.
 */
static int arm(uint64_t ns)
{
	struct sigaction sa;
	struct itimerval it = { 0 };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) < 0)
		return -errno;
	if (ns < 1000)
		ns = 1000;
	it.it_value.tv_sec = (time_t)(ns / 1000000000ull);
	it.it_value.tv_usec = (suseconds_t)(ns % 1000000000ull / 1000);
	it.it_interval.tv_usec = 10000;
	if (setitimer(ITIMER_REAL, &it, NULL) < 0)
		return -errno;
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Opens path for reading; while it does not exist (ENOENT, also for a
 * directory not made yet), tries again every 10 ms until deadline (a
 * CLOCK_MONOTONIC time).  A writer's file appears whole, by a rename,
 * already locked, so once open() succeeds the lock wait below applies as
 * for a file that was there from the start.  Returns the descriptor, or
 * -ETIMEDOUT, or another negative errno.
 */
static int open_when_there(const char *path, uint64_t deadline)
{
	const struct timespec tick = { 0, 10000000 };
	int fd;

	for (;;) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			return fd;
		if (errno != ENOENT)
			return -errno;
		if (now_ns() >= deadline)
			return -ETIMEDOUT;
		nanosleep(&tick, NULL);
	}
}

static void disarm(void)
{
	struct itimerval it = { 0 };

	setitimer(ITIMER_REAL, &it, NULL);
	signal(SIGALRM, SIG_DFL);
}

int cmd_wait(int argc, char **argv)
{
	struct flock fl = {
		.l_type = F_RDLCK, .l_whence = SEEK_SET,
		.l_start = 0, .l_len = 1,
	};
	struct vgl_reader r;
	const char *path = NULL, *timeout = NULL;
	const struct option_spec specs[] = {
		{ "--timeout", &timeout, NULL },
		{ NULL, NULL, NULL },
	};
	char *files[argc];
	uint64_t ns = 0, start, waited;
	char state[128];
	int fd, nfiles, status = 0, err = 0, armed = 0;

	if (parse_options("wait", argc, argv, specs, files, &nfiles))
		return EXIT_USAGE;
	path = one_operand("wait", files, nfiles);
	if (!path)
		return EXIT_USAGE;
	if (timeout && vgl_parse_duration(timeout, &ns) < 0)
		return usage_error("wait", "'%s' is not a duration", timeout);

	start = now_ns();
	fd = timeout ? open_when_there(path, start + ns)
		     : open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -ETIMEDOUT) {
		fprintf(stderr, "vigil: %s: did not appear within %s\n", path,
			timeout);
		return EXIT_BAD_FILE;
	}
	if (fd < 0) {
		fprintf(stderr, "vigil: %s: %s\n", path,
			strerror(timeout ? -fd : errno));
		return EXIT_BAD_FILE;
	}
	if (timeout) {
		/* What is left of DURATION after waiting for the file. */
		waited = now_ns() - start;
		err = arm(waited < ns ? ns - waited : 0);
		armed = !err;
	}
	while (!err && fcntl(fd, F_SETLKW, &fl) < 0) {
		if (errno == EINTR && !timed_out)
			continue;
		err = errno == EINTR ? -ETIMEDOUT : -errno;
	}
	if (armed)
		disarm();
	if (!err) {
		/* We only needed to know the writer is gone; let others in. */
		fl.l_type = F_UNLCK;
		fcntl(fd, F_SETLK, &fl);
	}
	close(fd);
	if (err == -ETIMEDOUT) {
		fprintf(stderr, "vigil: %s: still being written after %s\n",
			path, timeout);
		return EXIT_BAD_FILE;
	}
	if (err) {
		fprintf(stderr, "vigil: %s: cannot wait for the writer: %s\n",
			path, strerror(-err));
		return EXIT_BAD_FILE;
	}
	if (vgl_reader_open(&r, path) < 0)
		return file_error(&r, path);
	printf("state: %s\n", vgl_reader_state(&r, state, sizeof(state)));
	vgl_reader_close(&r);
	return status;
}
