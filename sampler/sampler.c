/*
 * sampler.c - the sampler thread and its controls (see sampler.h).
 *
 * The thread waits in poll() on an eventfd (stop, a new interval or scan
 * set, a sample asked for now), a timerfd (the interval), the target's
 * pidfd (its end) and the stack rings (a sixteenth full).  Nothing ever sleeps
 * for an interval: debugserver's profile thread did (usleep, then look at
 * the stop flag), so a detach waited up to one interval - 4.8 s median at
 * 10 s, measured for the issue - where this wait returns in about 0.05 ms.
 *
 * Controls take the sampler's lock, which the thread holds while it takes
 * a sample (a few milliseconds; 0.1 s to over a second for 3,000 threads),
 * so a change is never half seen.  A stop takes no lock: it sets a time
 * after which a threads scan in progress is cut short, and the thread
 * looks at it after its wait (issue 28).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "image.h"
#include "internal.h"

#define MAX_RINGS 256
/* How long a scan may go on once a stop is asked for, before it is cut
 * short: the scans of a process of a few hundred threads end well within
 * it, so their last sample is whole; 3,000 threads take 0.1 s to over a
 * second (issue 28). */
#define STOP_GRACE_NS 20000000ull

static const struct {
	const char *name;
	unsigned bit;
} scan_names[] = {
	{ "host-cpu", SAMPLER_SCAN_HOST_CPU },
	{ "cpu", SAMPLER_SCAN_CPU },
	{ "threads", SAMPLER_SCAN_THREADS },
	{ "host-memory", SAMPLER_SCAN_HOST_MEMORY },
	{ "memory", SAMPLER_SCAN_MEMORY },
	{ "io", SAMPLER_SCAN_IO },
	{ "stacks", SAMPLER_SCAN_STACKS },
	{ "counts", SAMPLER_SCAN_COUNTS },
};
#define NSCANS (sizeof(scan_names) / sizeof(scan_names[0]))

struct sampler {
	pid_t pid;
	struct proc_image *image;     /* its maps and exe (image.h) */
	int own_image;                /* opened here (cfg->image NULL) */
	int pidfd, evfd, tfd;
	uint64_t maps_ns;       /* the last SAMPLER_MAPS call (CLOCK_MONOTONIC) */
	pthread_t thread;
	pthread_mutex_t lock;
	/* Set without the lock (atomic): 0, or the time (CLOCK_MONOTONIC)
	 * after which a scan in progress is cut short since a stop was asked
	 * for.  Not under the lock, which the thread holds for a whole sample,
	 * and takes back at once after its wait when the timer is already due:
	 * a stop that waited for the lock waited for several samples of 3,000
	 * threads (0.7 s to 4 s, issue 28). */
	uint64_t stop_ns;
	/* Under lock: what the controls asked for. */
	int rearm, now;
	uint64_t interval_ns;
	unsigned scan, frequency;
	enum sampler_unwind unwind;
	unsigned stack_copy;          /* DWARF: bytes of stack per sample */
	struct stacks_state *stacks;  /* open while scan has STACKS */
	int stacks_closing;           /* stacks left to hand out after the
	                               * scan dropped STACKS */
	/* The thread's own. */
	uint64_t seq;
	uint64_t missed;              /* timer expirations with no sample */
	uint64_t end_missed;          /* those after the last sample, at the
	                               * end of the thread */
	struct process_state proc;
	struct threads_state threads;
	struct host_state host;
	struct counts_state counts;
	int ended;
	sampler_fn fn;
	void *arg;
};

int sampler_parse_hz(const char *s, unsigned *hz)
{
	unsigned long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < 1 || v > SAMPLER_FREQ_MAX)
		return -EINVAL;
	*hz = (unsigned)v;
	return 0;
}

int sampler_parse_unwind(const char *s, enum sampler_unwind *u,
			 unsigned *copy)
{
	if (!strncmp(s, "dwarf,", 6)) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(s + 6, &end, 10);
		if (errno || *end || end == s + 6 || s[6] == '-' ||
		    v < SAMPLER_STACK_COPY_MIN || v > SAMPLER_STACK_COPY_MAX ||
		    v % 8)
			return -EINVAL;
		*u = SAMPLER_UNWIND_DWARF;
		*copy = (unsigned)v;
		return 0;
	}
	if (!strcmp(s, "auto"))
		*u = SAMPLER_UNWIND_AUTO;
	else if (!strcmp(s, "dwarf"))
		*u = SAMPLER_UNWIND_DWARF;
	else if (!strcmp(s, "fp"))
		*u = SAMPLER_UNWIND_FP;
	else
		return -EINVAL;
	return 0;
}

const char *sampler_unwind_name(enum sampler_unwind u)
{
	return u == SAMPLER_UNWIND_DWARF ? "dwarf" :
	       u == SAMPLER_UNWIND_FP ? "fp" : "auto";
}

const char *sampler_scan_name(unsigned bit)
{
	size_t i;

	for (i = 0; i < NSCANS; i++)
		if (scan_names[i].bit == bit)
			return scan_names[i].name;
	return NULL;
}

int sampler_parse_scan(const char *s, unsigned *mask, char *err, size_t errlen)
{
	unsigned m = 0;
	const char *p, *end;
	char *num_end;
	unsigned long v;
	size_t i, len;

	if (!s || !*s)
		return sampler_err(err, errlen, -EINVAL, "empty scan list");
	if (s[0] >= '0' && s[0] <= '9') {
		errno = 0;
		v = strtoul(s, &num_end, 0);
		if (errno || *num_end)
			return sampler_err(err, errlen, -EINVAL,
					   "bad scan mask '%s'", s);
		if (v & ~(unsigned long)SAMPLER_SCAN_ALL)
			return sampler_err(err, errlen, -EINVAL,
					   "scan mask '%s' has unknown bits 0x%lx (known: 0x%x)",
					   s, v & ~(unsigned long)SAMPLER_SCAN_ALL,
					   SAMPLER_SCAN_ALL);
		if (!v)
			return sampler_err(err, errlen, -EINVAL,
					   "scan mask '%s' selects nothing", s);
		*mask = (unsigned)v;
		return 0;
	}
	for (p = s; *p; p = *end ? end + 1 : end) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		len = (size_t)(end - p);
		if (len == 3 && !strncmp(p, "all", 3)) {
			m |= SAMPLER_SCAN_ALL;
			continue;
		}
		for (i = 0; i < NSCANS; i++)
			if (strlen(scan_names[i].name) == len &&
			    !strncmp(p, scan_names[i].name, len))
				break;
		if (i == NSCANS)
			return sampler_err(err, errlen, -EINVAL,
					   "unknown scan '%.*s' (known: host-cpu, cpu, threads, memory, host-memory, io, stacks, counts, all)",
					   (int)len, p);
		m |= scan_names[i].bit;
	}
	if (!m)
		return sampler_err(err, errlen, -EINVAL, "empty scan list");
	*mask = m;
	return 0;
}

static int check_interval(uint64_t ns, char *err, size_t errlen)
{
	if (ns < SAMPLER_INTERVAL_MIN_NS || ns > SAMPLER_INTERVAL_MAX_NS)
		return sampler_err(err, errlen, -EINVAL,
				   "interval must be between 1ms and 24h");
	return 0;
}

static int check_frequency(unsigned hz, char *err, size_t errlen)
{
	if (hz < 1 || hz > SAMPLER_FREQ_MAX)
		return sampler_err(err, errlen, -EINVAL,
				   "frequency must be between 1 and %u Hz",
				   SAMPLER_FREQ_MAX);
	return 0;
}

/* Arms the timer: first expiry after one interval, then every interval. */
static void arm_timer(int tfd, uint64_t ns)
{
	struct itimerspec it;

	it.it_interval.tv_sec = (time_t)(ns / 1000000000ull);
	it.it_interval.tv_nsec = (long)(ns % 1000000000ull);
	it.it_value = it.it_interval;
	timerfd_settime(tfd, 0, &it, NULL);
}

/* The CPU of the threads that ended: the process's (/proc/PID/stat,
 * which keeps the time of its dead threads) minus its live threads'. */
static void ended_cpu(struct sampler_sample *smp)
{
	uint64_t user = 0, sys = 0;
	size_t i;

	for (i = 0; i < smp->nthreads; i++) {
		user += smp->threads[i].user_us;
		sys += smp->threads[i].sys_us;
	}
	smp->ended_user_us = smp->cpu_user_us > user ? smp->cpu_user_us - user : 0;
	smp->ended_sys_us = smp->cpu_sys_us > sys ? smp->cpu_sys_us - sys : 0;
}

/* Whether a stop was asked for (sampler_stop). */
static int stopping(struct sampler *s)
{
	return __atomic_load_n(&s->stop_ns, __ATOMIC_ACQUIRE) != 0;
}

/* Takes one sample with the scans in force; called with the lock held.
 * final: the target has ended (only counts and the stacks left in the
 * rings can still be read). */
static void take_sample(struct sampler *s, int final)
{
	int want_live, old_counts = 0, live;
	struct sampler_sample smp;
	struct stacks_state *closing = NULL;
	int exec_seen = 0;
	unsigned scan = s->scan;
	int stat_ok;

	memset(&smp, 0, sizeof(smp));
	smp.kind = SAMPLER_SAMPLE;
	smp.seq = ++s->seq;
	smp.time_ns = vgl_clock_ns(CLOCK_REALTIME);
	smp.mono_ns = vgl_clock_ns(CLOCK_MONOTONIC);
	smp.interval_ns = s->interval_ns;
	smp.missed_ticks = s->missed;
	s->missed = 0;
	smp.final = final;
	if (final)
		scan &= SAMPLER_SCAN_COUNTS | SAMPLER_SCAN_STACKS;
	/* A scan that fails (the target is ending under us) is left out of
	 * smp.scan rather than reported with zeros. */
	stat_ok = !process_scan_stat(&s->proc, &smp);
	if (!stat_ok)
		scan &= ~(unsigned)SAMPLER_SCAN_CPU;
	/* The main thread may have called pthread_exit: the process lives
	 * on in its other threads, and their state is its state. */
	if (smp.state == 'Z') {
		char st = threads_live_state(&s->threads);

		if (st) {
			smp.state = st;
			smp.stopped = st == 'T' || st == 't';
		}
	}
	process_scan_exe(&s->proc, &smp);
	/* An exec of the image switched on live, seen by /proc/PID/exe or
	 * (the same file exec'd) by its control block: the old image's last
	 * calls end its window (its memfd is ours to read still), and the
	 * new one, idle, is switched on after this reading. */
	live = smp.exe_changed ? LIVE_OURS : live_check(&s->counts.live);
	if (live == LIVE_REPLACED)
		smp.exe_changed = 1;
	if (smp.exe_changed) {
		if (s->counts.live.on && (scan & SAMPLER_SCAN_COUNTS)) {
			s->counts.window_closing = s->counts.in_window;
			if (counts_scan(&s->counts, &smp, 0) == 0)
				old_counts = 1;
		}
		counts_forget_file(&s->counts);
		proc_image_forget(s->image);
	} else if (live == LIVE_OFF_ELSEWHERE) {
		/* Another attach switched it off when it detached: this
		 * reading ends the window, and it is switched on again
		 * after. */
		scan |= SAMPLER_SCAN_COUNTS;
		s->counts.window_closing = s->counts.in_window;
	}
	if ((scan & SAMPLER_SCAN_MEMORY) && process_scan_memory(&s->proc, &smp))
		scan &= ~(unsigned)SAMPLER_SCAN_MEMORY;
	if (scan & SAMPLER_SCAN_IO)
		process_scan_io(&s->proc, &smp);
	if (scan & SAMPLER_SCAN_THREADS) {
		int r = threads_scan(&s->threads, &smp);

		if (r == -ECANCELED)
			smp.scan_cut |= SAMPLER_SCAN_THREADS;
		if (r)
			scan &= ~(unsigned)SAMPLER_SCAN_THREADS;
	}
	if ((scan & SAMPLER_SCAN_THREADS) && stat_ok)
		ended_cpu(&smp);
	if ((scan & SAMPLER_SCAN_HOST_CPU) && host_scan_cpu(&s->host, &smp))
		scan &= ~(unsigned)SAMPLER_SCAN_HOST_CPU;
	if ((scan & SAMPLER_SCAN_HOST_MEMORY) &&
	    host_scan_memory(&s->host, &smp))
		scan &= ~(unsigned)SAMPLER_SCAN_HOST_MEMORY;
	if (s->stacks_closing && s->stacks) {
		scan |= SAMPLER_SCAN_STACKS;
		closing = s->stacks;
		s->stacks = NULL;
		s->stacks_closing = 0;
		exec_seen = stacks_take(closing, &smp);
	} else if ((scan & SAMPLER_SCAN_STACKS) && s->stacks)
		exec_seen = stacks_take(s->stacks, &smp);
	else
		scan &= ~(unsigned)SAMPLER_SCAN_STACKS;
	/* An exec the rings saw, which /proc/PID/exe did not show (it came
	 * meanwhile, or the same file was exec'd). */
	if (exec_seen && !smp.exe_changed) {
		process_scan_exe(&s->proc, &smp);
		smp.exe_changed = 1;
		counts_forget_file(&s->counts);
	}
	/* The exec seen in the rings only once the process had ended (its
	 * exe link gone): the program is the file its records mapped. */
	if (exec_seen && smp.exe_stale &&
	    stacks_exec_file(closing ? closing : s->stacks))
		process_take_exe(&s->proc, &smp,
				 stacks_exec_file(closing ? closing :
						  s->stacks));
	/* An idle ondemand program counts while counts are scanned, and
	 * until the stop.  Switched off before this reading, which then has
	 * the window's last calls; switched on after it, so that each
	 * reading's deltas are the calls since the one before. */
	want_live = !final && (s->scan & SAMPLER_SCAN_COUNTS) && !stopping(s);
	if (!final && !want_live && s->counts.live.on) {
		live_set(&s->counts.live, 0);
		scan |= SAMPLER_SCAN_COUNTS;
		s->counts.window_closing = s->counts.in_window;
	}
	/* Ended while on: the final reading ends the window. */
	if (final && s->counts.live.on)
		s->counts.window_closing = s->counts.in_window;
	if (want_live)
		live_prepare(&s->counts.live);
	smp.counts_live = s->counts.live.on;
	smp.counts_live_sites = s->counts.live.sites;
	smp.counts_live_switches = s->counts.live.switches;
	smp.counts_live_switch_ns = s->counts.live.switch_ns;
	if ((scan & SAMPLER_SCAN_COUNTS) && !old_counts &&
	    counts_scan(&s->counts, &smp, final))
		scan &= ~(unsigned)SAMPLER_SCAN_COUNTS;
	if (want_live) {
		int was_on = s->counts.live.on;

		live_set(&s->counts.live, 1);
		if (!was_on && s->counts.live.on)
			window_begin(&s->counts, smp.time_ns);
		smp.counts_live = s->counts.live.on;
		smp.counts_live_sites = s->counts.live.sites;
		smp.counts_live_switches = s->counts.live.switches;
	smp.counts_live_switch_ns = s->counts.live.switch_ns;
	}
	smp.scan = scan;
	s->fn(&smp, s->arg);
	stacks_close(closing);
}

/* The timer's expirations not read yet: each is an interval that passed
 * without its sample. */
static uint64_t ticks_pending(struct sampler *s)
{
	uint64_t v;

	return read(s->tfd, &v, sizeof(v)) == sizeof(v) ? v : 0;
}

/* The thread ends: the intervals since the last sample that had none. */
static void count_end_missed(struct sampler *s)
{
	s->end_missed = s->missed + ticks_pending(s);
	s->missed = 0;
}

/* The target has ended: one last call with its exit status. */
static void report_end(struct sampler *s)
{
	struct sampler_sample smp;

	memset(&smp, 0, sizeof(smp));
	smp.kind = SAMPLER_ENDED;
	smp.time_ns = vgl_clock_ns(CLOCK_REALTIME);
	smp.mono_ns = vgl_clock_ns(CLOCK_MONOTONIC);
	smp.interval_ns = s->interval_ns;
	count_end_missed(s);
	smp.missed_ticks = s->end_missed;
	smp.state = 'Z';
	smp.exit_known = !process_exit_status(&s->proc, s->pidfd,
					       &smp.exit_status);
	s->ended = 1;
	s->fn(&smp, s->arg);
}

/* The target mapped new code (dlopen), seen among the stack samples
 * drained: a call now, while its maps can be read, for names that a
 * later sample, after its end, could no longer find. */
static void report_maps(struct sampler *s)
{
	struct sampler_sample smp;
	uint64_t now;

	if (!s->stacks || !stacks_maps_changed(s->stacks, 0))
		return;
	/* At most every 50 ms (each call reads every module's symbols
	 * again): a program that dlopens in a loop; the change waits for
	 * a later wake-up. */
	now = vgl_clock_ns(CLOCK_MONOTONIC);
	if (s->maps_ns && now - s->maps_ns < 50000000ull)
		return;
	stacks_maps_changed(s->stacks, 1);
	s->maps_ns = now;
	/* Read for every user of the image at once. */
	proc_image_refresh(s->image);
	memset(&smp, 0, sizeof(smp));
	smp.kind = SAMPLER_MAPS;
	smp.time_ns = vgl_clock_ns(CLOCK_REALTIME);
	smp.mono_ns = vgl_clock_ns(CLOCK_MONOTONIC);
	smp.interval_ns = s->interval_ns;
	s->fn(&smp, s->arg);
}

/* Whether stack samples (or an exec) wait in the rings or the table:
 * the run is ending, and they would be lost without one more sample. */
static int stacks_pending(struct sampler *s)
{
	if (!s->stacks ||
	    !((s->scan & SAMPLER_SCAN_STACKS) || s->stacks_closing))
		return 0;
	stacks_drain(s->stacks);
	/* An exec among the records is news too, samples or none: the
	 * file is to be named after the program it ran (scan-ended.test,
	 * a program that ran 300 ms between two samples at 10 Hz). */
	return stacks_waiting(s->stacks) || stacks_exec_waiting(s->stacks);
}

static void *run(void *arg)
{
	struct sampler *s = arg;
	struct pollfd pfd[3 + MAX_RINGS];
	int rings[MAX_RINGS];
	size_t nr, i, n;
	uint64_t v;

	pthread_mutex_lock(&s->lock);
	/* The intervals run from the first sample's start: when it is long
	 * (the first scan of 3,000 threads opens 6,000 files), the ticks it
	 * outlasts are missed ones, not unseen ones. */
	arm_timer(s->tfd, s->interval_ns);
	take_sample(s, 0);
	for (;;) {
		pfd[0] = (struct pollfd){ .fd = s->evfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = s->tfd, .events = POLLIN };
		pfd[2] = (struct pollfd){ .fd = s->pidfd, .events = POLLIN };
		nr = s->stacks ? stacks_fds(s->stacks, rings, MAX_RINGS) : 0;
		for (i = 0; i < nr; i++)
			pfd[3 + i] = (struct pollfd){ .fd = rings[i],
						      .events = POLLIN };
		n = 3 + nr;
		pthread_mutex_unlock(&s->lock);
		while (poll(pfd, n, -1) < 0 && errno == EINTR)
			;
		pthread_mutex_lock(&s->lock);
		if (pfd[0].revents & POLLIN) {
			if (read(s->evfd, &v, sizeof(v)) < 0)
				v = 0;
		}
		if (stopping(s)) {
			/* A target that has ended, though the wake-up for it
			 * was not seen yet, ends as ended, not cut short:
			 * vigil run stops its samplers once the tree has
			 * ended (6 of 10 files said "cut short"). */
			struct pollfd end = { .fd = s->pidfd, .events = POLLIN };

			if (s->pidfd >= 0 && poll(&end, 1, 0) == 1) {
				pfd[2].revents = end.revents;
			} else {
				/* No sample thrown away: those since the last
				 * one go out in one more (issue 16). */
				if (stacks_pending(s) || s->counts.live.on)
					take_sample(s, 0);
				count_end_missed(s);
				break;
			}
		}
		if (s->rearm) {
			/* A tick due under the old interval has its sample
			 * now; those before it were missed. */
			v = ticks_pending(s);
			if (v) {
				s->missed += v - 1;
				s->now = 1;
			}
			s->rearm = 0;
			arm_timer(s->tfd, s->interval_ns);
		}
		if (pfd[2].revents) {
			/* Its profile is final now: one last read; and the
			 * stacks still in the rings. */
			if ((s->scan & SAMPLER_SCAN_COUNTS) || stacks_pending(s))
				take_sample(s, 1);
			report_end(s);
			break;
		}
		for (i = 3; i < n && s->stacks; i++) {
			if (pfd[i].revents & (POLLHUP | POLLERR))
				stacks_hangup(s->stacks, pfd[i].fd);
			if (pfd[i].revents & POLLIN)
				stacks_drain(s->stacks);
		}
		report_maps(s);
		/* An exec among the stack samples: a sample now, while the
		 * new image can be read (its exe, its maps), not at the next
		 * interval, when a short program may be gone: a shell's child
		 * that exec'd one was sampled, named and merged as "dash". */
		if (s->stacks && stacks_exec_waiting(s->stacks))
			s->now = 1;
		if (pfd[1].revents & POLLIN) {
			/* v: expirations since the last read; all but one
			 * were missed. */
			if (read(s->tfd, &v, sizeof(v)) < 0)
				v = 0;
			if (v > 1)
				s->missed += v - 1;
			take_sample(s, 0);
		} else if (s->now) {
			take_sample(s, 0);
		}
		s->now = 0;
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static void release(struct sampler *s)
{
	stacks_close(s->stacks);
	if (s->own_image)
		proc_image_close(s->image);
	threads_release(&s->threads);
	counts_release(&s->counts);
	process_release(&s->proc);
	host_release(&s->host);
	if (s->tfd >= 0)
		close(s->tfd);
	if (s->evfd >= 0)
		close(s->evfd);
	if (s->pidfd >= 0)
		close(s->pidfd);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* Allocates s and opens everything but the thread.  Returns 0 or a
 * negative errno with err set. */
static int open_sampler(struct sampler **out, const struct sampler_config *cfg,
			char *err, size_t errlen)
{
	struct sampler *s;
	int ret;

	if (cfg->pid <= 0)
		return sampler_err(err, errlen, -EINVAL, "bad pid %d",
				   (int)cfg->pid);
	if (!cfg->scan || (cfg->scan & ~SAMPLER_SCAN_ALL))
		return sampler_err(err, errlen, -EINVAL, "bad scan set 0x%x",
				   cfg->scan);
	s = calloc(1, sizeof(*s));
	if (!s)
		return sampler_err(err, errlen, -ENOMEM, "out of memory");
	s->pidfd = s->evfd = s->tfd = -1;
	s->threads.taskfd = -1;
	s->proc.procfd = s->proc.statfd = s->proc.statusfd = s->proc.iofd = -1;
	s->host.statfd = s->host.meminfofd = -1;
	s->counts.mapsfd = -1;
	pthread_mutex_init(&s->lock, NULL);
	s->pid = cfg->pid;
	s->image = cfg->image;
	if (!s->image) {
		s->image = proc_image_open(cfg->pid);
		s->own_image = 1;
		if (!s->image) {
			release(s);
			return sampler_err(err, errlen, -ENOMEM,
					   "out of memory");
		}
	}
	s->interval_ns = cfg->interval_ns;
	s->scan = cfg->scan;
	s->frequency = cfg->frequency ? cfg->frequency : SAMPLER_FREQ_DEFAULT;
	s->unwind = cfg->unwind;
	s->stack_copy = cfg->stack_copy ? cfg->stack_copy :
			SAMPLER_STACK_COPY_DEFAULT;
	s->fn = cfg->fn;
	s->arg = cfg->arg;

	s->pidfd = (int)syscall(SYS_pidfd_open, cfg->pid, 0);
	if (s->pidfd < 0) {
		ret = -errno;
		if (ret == -ESRCH)
			ret = sampler_err(err, errlen, ret,
					  "pid %d: no such process", (int)cfg->pid);
		else if (ret == -EINVAL)
			ret = sampler_err(err, errlen, ret,
					  "pid %d: not a process (a thread of one?)",
					  (int)cfg->pid);
		else
			ret = sampler_err(err, errlen, ret, "pid %d: pidfd_open: %s",
					  (int)cfg->pid, strerror(-ret));
		goto fail;
	}
	ret = process_init(&s->proc, cfg->pid, err, errlen);
	if (ret)
		goto fail;
	/* The pid may have been reused between pidfd_open and opening
	 * /proc/PID: the pidfd still refers to the process we mean. */
	if (syscall(SYS_pidfd_send_signal, s->pidfd, 0, NULL, 0) < 0 &&
	    errno == ESRCH) {
		ret = sampler_err(err, errlen, -ESRCH, "pid %d: no such process",
				  (int)cfg->pid);
		goto fail;
	}
	ret = threads_init(&s->threads, s->proc.procfd, cfg->pid,
			   &s->stop_ns);
	if (ret) {
		sampler_err(err, errlen, ret, "pid %d: /proc/%d/task: %s",
			    (int)cfg->pid, (int)cfg->pid, strerror(-ret));
		goto fail;
	}
	ret = counts_init(&s->counts, cfg->pid, s->proc.procfd, s->pidfd,
			  s->threads.taskfd);
	s->counts.window_stem = cfg->windows;
	if (ret) {
		sampler_err(err, errlen, ret, "pid %d: /proc/%d/maps: %s",
			    (int)cfg->pid, (int)cfg->pid, strerror(-ret));
		goto fail;
	}
	ret = host_init(&s->host);
	if (ret) {
		sampler_err(err, errlen, ret, "/proc/stat: %s", strerror(-ret));
		goto fail;
	}
	s->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	s->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (s->evfd < 0 || s->tfd < 0) {
		ret = sampler_err(err, errlen, -errno, "eventfd/timerfd: %s",
				  strerror(errno));
		goto fail;
	}
	if (s->scan & SAMPLER_SCAN_STACKS) {
		ret = stacks_open(&s->stacks, s->image, s->threads.taskfd,
				  s->frequency, s->unwind, s->stack_copy, err,
				  errlen);
		if (ret)
			goto fail;
	}
	*out = s;
	return 0;
fail:
	release(s);
	return ret;
}

int sampler_start(struct sampler **out, const struct sampler_config *cfg,
		  char *err, size_t errlen)
{
	struct sampler *s;
	sigset_t all, old;
	int ret;

	ret = check_interval(cfg->interval_ns, err, errlen);
	if (!ret && cfg->frequency)
		ret = check_frequency(cfg->frequency, err, errlen);
	if (!ret)
		ret = open_sampler(&s, cfg, err, errlen);
	if (ret)
		return ret;
	/* The thread takes no signal of the caller's: they are the caller's
	 * to handle (SIGINT in `vigil attach`), and a handler running on our
	 * thread could call back into us. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&s->thread, NULL, run, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		release(s);
		return sampler_err(err, errlen, -ret, "pthread_create: %s",
				   strerror(ret));
	}
	*out = s;
	return 0;
}

static void wake(struct sampler *s)
{
	uint64_t one = 1;

	if (write(s->evfd, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is full, so a wake-up is pending. */
	}
}

int sampler_set_interval(struct sampler *s, uint64_t ns, char *err,
			 size_t errlen)
{
	int ret = check_interval(ns, err, errlen);

	if (ret)
		return ret;
	pthread_mutex_lock(&s->lock);
	s->interval_ns = ns;
	s->rearm = 1;
	pthread_mutex_unlock(&s->lock);
	wake(s);
	return 0;
}

int sampler_set_scan(struct sampler *s, unsigned scan, unsigned frequency,
		     char *err, size_t errlen)
{
	struct stacks_state *st = NULL, *old = NULL;
	int ret = 0;

	if (!scan || (scan & ~SAMPLER_SCAN_ALL))
		return sampler_err(err, errlen, -EINVAL, "bad scan set 0x%x",
				   scan);
	if (frequency && (ret = check_frequency(frequency, err, errlen)))
		return ret;
	pthread_mutex_lock(&s->lock);
	if (!frequency)
		frequency = s->frequency;
	if (s->ended) {
		ret = sampler_err(err, errlen, -ESRCH, "the target has ended");
		goto out;
	}
	/* New events when stacks start or their frequency changes; the old
	 * ones close after the switch. */
	if ((scan & SAMPLER_SCAN_STACKS) &&
	    (!s->stacks || frequency != s->frequency)) {
		ret = stacks_open(&st, s->image, s->threads.taskfd, frequency,
				  s->unwind, s->stack_copy, err, errlen);
		if (ret)
			goto out;
		old = s->stacks;
		/* No sample thrown away with the old events (issue 16). */
		if (old)
			stacks_adopt(st, old);
		s->stacks = st;
	} else if (!(scan & SAMPLER_SCAN_STACKS) && s->stacks) {
		/* Stacks off: those taken since the last sample still come,
		 * in the next one, which closes the events. */
		stacks_drain(s->stacks);
		if (stacks_waiting(s->stacks))
			s->stacks_closing = 1;
		else {
			old = s->stacks;
			s->stacks = NULL;
		}
	}
	if (scan & SAMPLER_SCAN_STACKS)
		s->stacks_closing = 0;
	s->scan = scan;
	s->frequency = frequency;
out:
	pthread_mutex_unlock(&s->lock);
	stacks_close(old);
	if (!ret)
		wake(s);
	return ret;
}

int sampler_sample_now(struct sampler *s)
{
	pthread_mutex_lock(&s->lock);
	s->now = 1;
	pthread_mutex_unlock(&s->lock);
	wake(s);
	return 0;
}

int sampler_stop_missed(struct sampler *s, uint64_t *missed_ticks)
{
	uint64_t cut = vgl_clock_ns(CLOCK_MONOTONIC) + STOP_GRACE_NS;

	/* Seen by the thread after its wait, and by a scan between two
	 * threads: no lock to wait for (see stop_ns). */
	__atomic_store_n(&s->stop_ns, cut ? cut : 1, __ATOMIC_RELEASE);
	wake(s);
	pthread_join(s->thread, NULL);
	if (missed_ticks)
		*missed_ticks = s->end_missed;
	release(s);
	return 0;
}

int sampler_stop(struct sampler *s)
{
	return sampler_stop_missed(s, NULL);
}

int sampler_sample_once(pid_t pid, unsigned scan, sampler_fn fn, void *arg,
			char *err, size_t errlen)
{
	struct sampler_config cfg = {
		.pid = pid, .interval_ns = SAMPLER_INTERVAL_MIN_NS,
		.scan = scan & ~(unsigned)SAMPLER_SCAN_STACKS,
		.fn = fn, .arg = arg,
	};
	struct sampler *s;
	int ret;

	if (!cfg.scan)
		return sampler_err(err, errlen, -EINVAL,
				   "stacks need a running sampler");
	ret = open_sampler(&s, &cfg, err, errlen);
	if (ret)
		return ret;
	take_sample(s, 0);
	release(s);
	return 0;
}
