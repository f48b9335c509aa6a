/*
 * init.c - the runtime's life: set up on the first instrumented call (not
 * in a constructor: instrumented constructors may run before ours, and a
 * libvigil.so whose hooks another copy of the runtime interposes must stay
 * dormant), follow fork, mark the file finished at exit, and the public API
 * of vigil.h.
 *
 * The runtime is a guest in the program: it never exits, never installs
 * signal handlers, never forks, and prints at most one line per process.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

#include "duration.h"
#include "rt.h"
#include "vigil.h"

#define RT __attribute__((no_instrument_function))
#define API __attribute__((no_instrument_function, visibility("default")))

#define DEFAULT_PATTERN "vigil.%e.%p.vgl"

struct rt vgl_rt = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.fd = -1,
};

uint64_t RT rt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * One line on stderr, once per process: the program's own output stays as
 * it was, and a program that cannot be profiled says so exactly once.
 */
void RT rt_warn(const char *what, const char *path, int err, const char *then)
{
	char line[RT_PATH_MAX + 256];
	int n;

	/* Threads (the interval thread, the slow path) may race here. */
	if (__atomic_exchange_n(&vgl_rt.warned, 1, __ATOMIC_RELAXED))
		return;
	n = snprintf(line, sizeof(line),
		     "vigil: %s '%s': %s; %s\n", what, path, strerror(err),
		     then ? then : "the program runs on without it");
	if (n > (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 1;
	if (n > 0 && write(STDERR_FILENO, line, (size_t)n) < 0)
		return; /* nowhere left to report to */
}

/* A bad setting is a problem of its own: it has its own line, and does
 * not silence the warning about the file. */
static void RT warn_setting(const char *name, const char *value)
{
	static int warned;
	char line[512];
	int n;

	if (warned)
		return;
	warned = 1;
	n = snprintf(line, sizeof(line), "vigil: %s='%.200s' is not valid; "
		     "ignoring it\n", name, value);
	if (n > 0 && write(STDERR_FILENO, line,
			   (size_t)(n < (int)sizeof(line) ? n : (int)sizeof(line) - 1)) < 0)
		return;
}

static void RT find_exe(struct rt *rt)
{
	ssize_t n = readlink("/proc/self/exe", rt->exe, sizeof(rt->exe) - 1);
	const char *fn;

	if (n > 0) {
		rt->exe[n] = 0;
		return;
	}
	/* No /proc: the name exec was given is the best there is. */
	fn = (const char *)getauxval(AT_EXECFN);
	snprintf(rt->exe, sizeof(rt->exe), "%s", fn ? fn : "unknown");
}

/*
 * exit() may be called from a signal handler that interrupted this very
 * thread in the slow path, holding the runtime's lock: so this takes no
 * lock.  It needs none: it writes META and reads blocks, which are
 * published before they are linked.
 */
static void RT at_exit(int status, void *arg)
{
	(void)arg;
	interval_stop_and_flush(&vgl_rt, status);
	store_finish(&vgl_rt, status);
}

/*
 * fork: hold the lock across it, so the child's copy of the arena and the
 * module table is consistent; unless fork is called from a signal handler
 * that interrupted this thread in the slow path, where the lock is this
 * thread's own already.
 */
static __thread int fork_locked;

static void RT before_fork(void)
{
	if (!thread_in_slow_path()) {
		rt_lock();
		fork_locked = 1;
	}
	vgl_rt.fork_used = arena_used(&vgl_rt.arena);
}

static void RT after_fork_parent(void)
{
	if (fork_locked) {
		fork_locked = 0;
		rt_unlock();
	}
}

/*
 * Runs in the child inside fork(), before the child returns to any
 * instrumented code: from here on the child counts into its own file, and
 * every count it inherited is zero there.
 */
static void RT after_fork_child(void)
{
	pthread_mutex_init(&vgl_rt.lock, NULL);
	vgl_rt.warned = 0;   /* a new process, with problems of its own */
	if (vgl_rt.state == RT_READY) {
		store_reopen(&vgl_rt, vgl_rt.pattern, 0, vgl_rt.fork_used);
		interval_after_fork(&vgl_rt);
	}
	if (fork_locked) {
		fork_locked = 0;
		rt_unbusy();
	}
}

/*
 * Sets the runtime up; called by the slow path with the lock held.
 * Returns 0 when counting can go on (into the file, or into memory when
 * the file cannot be written), negative when the runtime is off.
 */
int RT rt_ensure_init(void)
{
	struct rt *rt = &vgl_rt;
	const char *pattern, *interval;
	size_t len;

	if (rt->state == RT_READY)
		return 0;
	if (rt->state == RT_OFF)
		return -1;
	rt->start_ns = rt_now_ns();
	find_exe(rt);
	if (gethostname(rt->host, sizeof(rt->host) - 1) < 0)
		strcpy(rt->host, "unknown");

	/* vigil_set_file before the first call has set the pattern already. */
	if (!rt->pattern[0]) {
		pattern = getenv("VIGIL_FILE");
		if (!pattern || !*pattern)
			pattern = DEFAULT_PATTERN;
		len = strlen(pattern);
		if (len >= sizeof(rt->pattern))
			len = sizeof(rt->pattern) - 1;
		memcpy(rt->pattern, pattern, len);
		rt->pattern[len] = 0;
	}

	interval = getenv("VIGIL_INTERVAL");
	if (interval && *interval &&
	    (vgl_parse_duration(interval, &rt->interval_ns) < 0 ||
	     !rt->interval_ns)) {
		warn_setting("VIGIL_INTERVAL", interval);
		rt->interval_ns = 0;
	}

	if (thread_key_init() < 0) {
		rt->state = RT_OFF;
		return -1;
	}
	store_open(rt, rt->pattern);
	if (rt->state == RT_OFF)
		return -1;
	rt->state = RT_READY;
	on_exit(at_exit, NULL);
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
	if (rt->interval_ns && !rt->no_file)
		interval_start(rt);
	return 0;
}

int API vigil_snapshot(void)
{
	if (vgl_rt.state != RT_READY)
		return -ENODEV;
	return interval_snapshot(&vgl_rt);
}

int API vigil_reset(void)
{
	if (vgl_rt.state != RT_READY)
		return -ENODEV;
	/* Counts and the window shadow change together: a window cut in
	 * between would subtract old counts from zeroed ones. */
	interval_lock();
	rt_lock();
	store_zero_counts(&vgl_rt.arena);
	store_zero_counts(&vgl_rt.overflow);
	interval_forget(0);
	rt_unlock();
	interval_unlock();
	return 0;
}

int API vigil_set_file(const char *path)
{
	int ret;

	if (!path || !*path || strlen(path) >= sizeof(vgl_rt.pattern))
		return -EINVAL;
	interval_lock();
	rt_lock();
	if (vgl_rt.state == RT_UNINIT) {
		/* Nothing counted yet: the first file is simply this one. */
		memcpy(vgl_rt.pattern, path, strlen(path) + 1);
		ret = rt_ensure_init() < 0 ? -ENODEV : 0;
	} else if (vgl_rt.state == RT_READY) {
		memcpy(vgl_rt.pattern, path, strlen(path) + 1);
		ret = store_reopen(&vgl_rt, vgl_rt.pattern, 1,
				   arena_used(&vgl_rt.arena));
	} else {
		ret = -ENODEV;
	}
	interval_forget(1);
	rt_unlock();
	interval_unlock();
	return ret;
}
