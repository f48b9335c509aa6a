/*
 * init.c - the runtime's life: set up on the first instrumented call (not
 * in a constructor: instrumented constructors may run before ours, and a
 * libvigil.so whose hooks another copy of the runtime interposes must stay
 * dormant), follow fork, mark the file finished after the program's last
 * destructor, and the public API of vigil.h.  Only the exit handler is
 * registered before main (from .preinit_array, or libvigil.so's
 * constructor), so that it runs late; it does nothing in a dormant copy.
 *
 * The runtime is a guest in the program: it never exits, never installs
 * signal handlers, never forks, and prints at most one line per process.
 * It blocks signals only for the moment of its slow path, and restores the
 * program's mask.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "duration.h"
#include "init.h"
#include "interval.h"
#include "lock.h"
#include "module.h"
#include "ondemand.h"
#include "state.h"
#include "store.h"
#include "text.h"
#include "thread.h"
#include "vigil.h"

#define API __attribute__((no_instrument_function, visibility("default")))

#define DEFAULT_PATTERN "vigil.%e.%p.vgl"

/*
 * The end of the program: the last window and the "finished" state are
 * written as late as the program's own code can run, so that calls made
 * in exit handlers registered before ours, in destructors, or by other
 * threads meanwhile are in the profile and in its windows.  Two points
 * are late: an on_exit handler registered before main (from
 * .preinit_array, or libvigil.so's constructor) runs after every
 * destructor in a dynamic program, and a destructor of the lowest
 * priority runs after every other destructor in a static one, where the
 * handlers run first.  Whichever comes second finishes the file.
 *
 * It takes no lock it could already hold: exit() cannot run inside the
 * slow path (signals are blocked there).
 */
static int exit_status, exit_points;

static void RT finish(void)
{
	if (__atomic_add_fetch(&exit_points, 1, __ATOMIC_ACQ_REL) != 2)
		return;
	/* A fork child that never counted: the file is its parent's.  So is
	 * it in a child made without fork's handlers that never counted (its
	 * pid is not the runtime's). */
	if (vgl_rt.fork_pending || vgl_rt.state != RT_READY ||
	    (uint32_t)syscall(SYS_getpid) != vgl_rt.pid)
		return;
	interval_stop_and_flush(&vgl_rt, exit_status);
	store_finish(&vgl_rt, exit_status);
}

static void RT at_exit(int status, void *arg)
{
	(void)arg;
	exit_status = status;
	finish();
}

__attribute__((destructor(101))) static void RT at_fini(void)
{
	finish();
}

/*
 * A program in secure-execution mode (rt_secure, below) hands no VIGIL_*
 * setting to the programs it runs: one that became root wholly runs them
 * without secure execution, and they would honour the user's settings as
 * root.  So they leave its environment before any of its code runs, as
 * the loader's LD_* do (in place, as unsetenv does; no thread runs yet).
 * A libvigil.so loaded later by dlopen comes too late for that: its
 * constructor does it then.
 */
static void RT drop_settings(char **envp)
{
	char **r, **w;

	if (!getauxval(AT_SECURE) || !envp)
		return;
	for (r = w = envp; *r; r++)
		if (strncmp(*r, "VIGIL_", 6))
			*w++ = *r;
	*w = NULL;
}

/* Called as the ELF initialisers are, with the process's arguments and
 * environment (libc's environ is not set yet this early in a dynamic
 * program; envp is the array it will point to). */
static void RT register_exit(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	drop_settings(envp);
	on_exit(at_exit, NULL);
}

#ifdef VGL_RT_SHARED
__attribute__((constructor(101))) static void RT at_load(int argc,
							  char **argv,
							  char **envp)
{
	register_exit(argc, argv, envp);
}
#else
__attribute__((section(".preinit_array"), used))
static void (*const vgl_preinit)(int, char **, char **) = register_exit;
#endif

/*
 * fork: hold the lock across it (with signals blocked), so the child's
 * copy of the arena and the module table is consistent.  The mask to
 * restore is the forking thread's own.
 */
static __thread uint64_t fork_mask;

static void RT before_fork(void)
{
	rt_lock(&fork_mask);
	vgl_rt.fork_used = arena_used(&vgl_rt.arena);
}

static void RT after_fork_parent(void)
{
	rt_unlock(&fork_mask);
}

/*
 * Runs in the child inside fork().  It only notes that the file mapped is
 * still the parent's: the child takes a file of its own at its first
 * call, so a child that execs or exits without counting (a shell, make,
 * a test runner) costs nothing and leaves no file.  Until then its hooks
 * take the slow path, and the exit handler leaves the parent's file alone.
 */
static void RT after_fork_child(void)
{
	thread_after_fork_child();
	vgl_rt.warned = 0;   /* a new process, with problems of its own */
	if (vgl_rt.state == RT_READY) {
		vgl_rt.fork_pending = 1;
		thread_detach_index();
		interval_after_fork(&vgl_rt);
	}
	rt_restore_signals(&fork_mask);
}

/*
 * A child that the kernel made without fork's handlers (_Fork, clone with
 * SIGCHLD) still has its parent's file mapped, shared.  Its indexes are
 * wiped (hooks.c), so it comes here before it counts anything: it is
 * then made what after_fork_child makes a fork child (its lock, which a
 * parent's thread may have held, made anew; a file of its own at its
 * first count, with the parent's structure as it is now).  Called with
 * every signal blocked and without the runtime's lock; costs a getpid.
 */
void RT rt_check_fork(void)
{
	struct rt *rt = &vgl_rt;

	/* A vfork child shares the runtime with its parent (thread.c). */
	if (__atomic_load_n(&rt->state, __ATOMIC_ACQUIRE) != RT_READY ||
	    rt->fork_pending || (uint32_t)syscall(SYS_getpid) == rt->pid ||
	    thread_shares_parent_vm())
		return;
	thread_after_fork_child();
	rt->warned = 0;
	rt->fork_used = arena_used(&rt->arena);
	rt->fork_pending = 1;
	thread_detach_index();
	interval_after_fork(rt);
}

/* A fork child's first call: counting moves to a file of its own, with
 * the structure the parent had at fork and every count zero. */
static void RT take_over(struct rt *rt)
{
	rt->fork_pending = 0;
	if (ondemand_forked)
		ondemand_forked();
	store_reopen(rt, rt->pattern, 0, rt->fork_used);
	if (rt->interval_ns && !rt->no_file && rt->state == RT_READY)
		rt->start_interval = 1;
}

/* Starts the interval thread if rt_ensure_init asked for it; called
 * without the runtime's lock. */
void RT rt_start_interval(void)
{
	struct rt *rt = &vgl_rt;

	if (__atomic_exchange_n(&rt->start_interval, 0, __ATOMIC_ACQ_REL))
		interval_start(rt);
}

/*
 * Secure-execution mode: the kernel ran this program with more rights than
 * its user has (setuid, setgid, file capabilities, or an LSM's say so;
 * AT_SECURE, as secure_getenv and the loader's LD_* follow).  Then no
 * VIGIL_* setting is honoured (the user would choose which file a
 * privileged process creates or replaces) and no profile is written at
 * all, not even the default one: its modules and load addresses are what
 * the kernel hides from the user (/proc/PID/maps of a non-dumpable
 * process), its counts what the program did with its rights, and every
 * file operation would have to be made with the user's rights in every
 * thread that may make one.  The program counts into memory, runs on, and
 * one line says so.
 */
static int RT rt_secure(void)
{
	return getauxval(AT_SECURE) != 0;
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

	if (rt->state == RT_READY) {
		if (rt->fork_pending)
			take_over(rt);
		return rt->state == RT_READY ? 0 : -1;
	}
	if (rt->state == RT_OFF)
		return -1;
	rt->start_ns = rt_now_ns();
	rt->pid = (uint32_t)getpid();
	module_find_exe();
	if (gethostname(rt->host, sizeof(rt->host) - 1) < 0)
		strcpy(rt->host, "unknown");

	if (rt_secure()) {
		rt_say_once(&rt->warned, "secure-execution mode (setuid, setgid "
			    "or capabilities): VIGIL_* settings are ignored "
			    "and no profile is written; the program runs on "
			    "without it");
		rt->pattern[0] = 0;
	} else if (!rt->pattern[0] && ondemand_idle && ondemand_idle()) {
		/* An ondemand program not asked to count: its sites are
		 * idle, and the calls of any site left a call (a module whose
		 * code could not be made writable, a plugin dlopened later)
		 * go into memory, not into a file nobody asked for. */
	} else if (!rt->pattern[0]) {
		/* vigil_set_file before the first call has set it already. */
		pattern = getenv("VIGIL_FILE");
		if (!pattern || !*pattern)
			pattern = DEFAULT_PATTERN;
		len = strlen(pattern);
		if (len >= sizeof(rt->pattern)) {
			/* Cut, it would name another file: none at all. */
			rt_warn("VIGIL_FILE is longer than the path limit:",
				pattern, ENAMETOOLONG, NULL);
			len = 0;
		}
		memcpy(rt->pattern, pattern, len);
		rt->pattern[len] = 0;
	}

	interval = rt_secure() ? NULL : getenv("VIGIL_INTERVAL");
	if (interval && *interval &&
	    (vgl_parse_duration(interval, &rt->interval_ns) < 0 ||
	     !rt->interval_ns)) {
		rt_warn_setting("VIGIL_INTERVAL", interval);
		rt->interval_ns = 0;
	}

	if (thread_key_init() < 0) {
		rt->state = RT_OFF;
		return -1;
	}
	if (rt->pattern[0])
		store_open(rt, rt->pattern);
	else
		store_anonymous(rt);
	if (rt->state == RT_OFF)
		return -1;
	rt->state = RT_READY;
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
	/* Started once the lock is released (thread creation takes locks of
	 * its own). */
	if (rt->interval_ns && !rt->no_file)
		rt->start_interval = 1;
	return 0;
}

/* The API's calls in a fork child that has not counted yet must not
 * touch its parent's file: they take the child's own first. */
static void RT api_take_over(void)
{
	uint64_t mask;

	rt_block_signals(&mask);
	rt_check_fork();
	rt_restore_signals(&mask);
	if (!vgl_rt.fork_pending)
		return;
	rt_lock(&mask);
	rt_ensure_init();
	rt_unlock(&mask);
	rt_start_interval();
}

int API vigil_snapshot(void)
{
	if (vgl_rt.state != RT_READY)
		return -ENODEV;
	api_take_over();
	return interval_snapshot(&vgl_rt);
}

int API vigil_reset(void)
{
	uint64_t mask;

	if (vgl_rt.state != RT_READY)
		return -ENODEV;
	api_take_over();
	/* Counts and the window shadow change together: a window cut in
	 * between would subtract old counts from zeroed ones. */
	interval_lock();
	rt_lock(&mask);
	store_zero_counts(&vgl_rt.arena);
	store_zero_counts(&vgl_rt.overflow);
	interval_forget(0);
	rt_unlock(&mask);
	interval_unlock();
	return 0;
}

int API vigil_set_file(const char *path)
{
	uint64_t mask;
	int ret;

	if (!path || !*path || strlen(path) >= sizeof(vgl_rt.pattern))
		return -EINVAL;
	if (rt_secure())
		return -EPERM;   /* no profile at all (rt_secure) */
	api_take_over();
	interval_lock();
	rt_lock(&mask);
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
	rt_unlock(&mask);
	interval_unlock();
	rt_start_interval();
	return ret;
}
