/*
 * cmd-wait.c - `vigil wait FILE [--timeout D]`: block until the program
 * writing FILE is no longer running, then check the file and print its
 * state.  This is what a harness runs between starting a profiled program
 * it did not wait for itself and reading the profile.
 *
 * Whether the writer is there is vgl_writer_alive()'s answer: its lock
 * on the file, or its pid.  When the pid is this namespace's process, a
 * pidfd of it becomes readable the moment it exits, also while it is an
 * unreaped zombie: that is what we wait on.  A writer of another pid
 * namespace or host (a container writing into a host directory) is
 * there by its lock only, which no descriptor tells the end of: it is
 * looked at every 50 ms.
 *
 * Before that, with --timeout, a FILE that does not exist yet is waited
 * for by trying to open it every 10 ms: there is nothing to lock yet, and
 * a harness that starts a program and at once waits for its profile must
 * not lose that race.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "duration.h"
#include "message.h"
#include "profile-head.h"
#include "clock.h"
#include "cli.h"

const char cmd_wait_usage[] =
	"usage: vigil wait FILE [--timeout DURATION]\n"
	"\n"
	"Blocks until the program writing FILE has ended (at once if it has),\n"
	"checks the file and prints its state line, e.g. 'state: finished\n"
	"(exit 0)' or 'state: cut short' (a merge: then its 'merged:' line,\n"
	"as vigil show prints them).  DURATION is like 500ms, 10s, 2m;\n"
	"when it runs out first, prints 'vigil: FILE: still being written\n"
	"after DURATION' and exits 1.  Without --timeout, waits for ever.\n"
	"\n"
	"With --timeout, a FILE that does not exist yet is waited for too\n"
	"(a harness may start a program and wait for its profile before the\n"
	"program has made it); DURATION covers both waits, and when it runs\n"
	"out before FILE appears, prints 'vigil: FILE: did not appear within\n"
	"DURATION' and exits 1.  Without --timeout, a missing FILE is an\n"
	"error at once: a wrong name must not wait for ever.\n";

/*
 * Opens path for reading; while it does not exist (ENOENT, also for a
 * directory not made yet), tries again every 10 ms until deadline (a
 * CLOCK_MONOTONIC time).  A writer's file appears whole, by a rename,
 * naming its writer, so once open() succeeds the wait below applies as
 * for a file that was there from the start.  Returns the descriptor, or
 * -ETIMEDOUT, or another negative errno.
 */
static int open_when_there(const char *path, uint64_t deadline)
{
	const struct timespec tick = { 0, 10000000 };
	int fd;

	for (;;) {
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0)
			return fd;
		if (errno != ENOENT)
			return -errno;
		if (vgl_clock_ns(CLOCK_MONOTONIC) >= deadline)
			return -ETIMEDOUT;
		nanosleep(&tick, NULL);
	}
}

/*
 * Waits until the writer that META names is gone from the file open at fd
 * (see vgl_writer_alive()), or until deadline (CLOCK_MONOTONIC ns, 0 for
 * none).  A pidfd wakes us the moment the process exits, zombie or not;
 * the writer is also looked at every 100 ms, for an exec, which unmaps
 * the file but ends nothing.  A writer whose pid is not this namespace's
 * is looked at every 50 ms (its pid here is another process).  Returns 0,
 * -ETIMEDOUT, or a negative errno.
 */
static int wait_writer(const struct vgl_meta *m, int fd, uint64_t deadline)
{
	int pfd = -1, alive;
	uint64_t now, step;
	struct pollfd p;

	for (;;) {
		alive = vgl_writer_alive(m, fd);
		if (alive <= 0)
			break;
		if (alive == 1 && pfd < 0)
			pfd = (int)syscall(SYS_pidfd_open, (pid_t)m->pid, 0);
		now = vgl_clock_ns(CLOCK_MONOTONIC);
		if (deadline && now >= deadline) {
			alive = -ETIMEDOUT;
			break;
		}
		step = alive == 1 && pfd >= 0 ? 100000000ull : 50000000ull;
		if (deadline && deadline - now < step)
			step = deadline - now;
		if (alive == 1 && pfd >= 0) {
			p.fd = pfd;
			p.events = POLLIN;
			poll(&p, 1, (int)((step + 999999) / 1000000));
		} else {
			struct timespec ts = { 0, (long)step };

			nanosleep(&ts, NULL);
		}
	}
	if (pfd >= 0)
		close(pfd);
	return alive < 0 ? alive : 0;
}

int cmd_wait(int argc, char **argv)
{
	struct vgl_reader r;
	const char *path = NULL, *timeout = NULL;
	const struct option_spec specs[] = {
		{ "--timeout", &timeout, NULL },
		{ NULL, NULL, NULL },
	};
	char *files[argc];
	uint64_t ns = 0, start;
	struct vgl_meta meta;
	int fd, nfiles, err;

	if (parse_options("wait", argc, argv, specs, files, &nfiles))
		return EXIT_USAGE;
	path = one_operand("wait", files, nfiles);
	if (!path)
		return EXIT_USAGE;
	if (timeout && vgl_parse_duration(timeout, &ns) < 0)
		return usage_error("wait", "'%s' is not a duration", timeout);

	start = vgl_clock_ns(CLOCK_MONOTONIC);
	fd = timeout ? open_when_there(path, start + ns)
		     : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd == -ETIMEDOUT) {
		vgl_error("%s: did not appear within %s", path,
			timeout);
		return EXIT_BAD_FILE;
	}
	if (fd < 0) {
		vgl_error("%s: %s", path,
			strerror(timeout ? -fd : errno));
		return EXIT_BAD_FILE;
	}
	close(fd);
	for (;;) {
		if (vgl_reader_open(&r, path) < 0)
			return file_error(&r, path);
		if (r.liveness != VGL_LIVENESS_RUNNING &&
		    r.liveness != VGL_LIVENESS_EXITING)
			break;
		meta = r.meta;
		vgl_reader_close(&r);
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			vgl_error("%s: %s", path, strerror(errno));
			return EXIT_BAD_FILE;
		}
		err = wait_writer(&meta, fd, timeout ? start + ns : 0);
		close(fd);
		if (err == -ETIMEDOUT) {
			vgl_error("%s: still being written after %s",
				path, timeout);
			return EXIT_BAD_FILE;
		}
		if (err) {
			vgl_error("%s: cannot wait for the writer: %s",
				path, strerror(-err));
			return EXIT_BAD_FILE;
		}
	}
	print_state(&r);
	vgl_reader_close(&r);
	return 0;
}
