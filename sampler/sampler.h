/*
 * sampler.h - a live sampler of any running process, the role lldb's
 * debugserver profile thread plays: a thread of the caller's process that
 * looks at a target pid every interval (host CPU, process CPU, per-thread
 * CPU and names, memory, I/O, CPU stack samples) and hands each sample to a
 * callback.  Meant to be embedded: `vigil attach` is one user, a debugger
 * stub, a test harness or a daemon can be others.
 *
 * Guarantees (DESIGN.md G6): sampler_stop() returns within milliseconds
 * whatever the interval, since the sampler thread waits in poll() on an
 * eventfd that a stop or a change wakes, never in a sleep of the interval;
 * a new interval or scan set takes effect at once; the target's end is
 * noticed through a pidfd, so also while its parent has not reaped it,
 * and a target whose main thread called pthread_exit() while others run
 * is not ended.  The target is only read (/proc, perf_event_open): never
 * stopped, ptraced or written to.
 *
 * Threading: every function but the callback may be called from any
 * thread of the caller, one at a time per sampler.  The callback runs on
 * the sampler thread and must not call sampler functions on its own
 * sampler (it runs with the sampler's lock held).  Nor may it wait for a
 * consumer (a write to a pipe a reader may not read): sampler_stop() waits
 * for a callback running, so it is as prompt as the callback.  Hand the
 * data to a bounded queue, as `vigil attach` does (record/out-queue.h).
 */
#ifndef VIGIL_SAMPLER_H
#define VIGIL_SAMPLER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Scans, by bit.  Bits 0x1, 0x2, 0x4, 0x20 and 0x40 mean what they mean in
 * debugserver's scan_type (host CPU, process CPU, thread CPU, host memory,
 * process memory), so "0x5" asks for what it asks there. */
enum sampler_scan {
	SAMPLER_SCAN_HOST_CPU = 0x1,
	SAMPLER_SCAN_CPU = 0x2,
	SAMPLER_SCAN_THREADS = 0x4,
	SAMPLER_SCAN_HOST_MEMORY = 0x20,
	SAMPLER_SCAN_MEMORY = 0x40,
	SAMPLER_SCAN_IO = 0x100,
	SAMPLER_SCAN_STACKS = 0x200,
	SAMPLER_SCAN_COUNTS = 0x400,
};
#define SAMPLER_SCAN_ALL 0x767u
#define SAMPLER_SCAN_DEFAULT \
	(SAMPLER_SCAN_CPU | SAMPLER_SCAN_THREADS | SAMPLER_SCAN_MEMORY)

/* Limits of the interval and of the stack sampling frequency. */
#define SAMPLER_INTERVAL_MIN_NS 1000000ull                 /* 1 ms */
#define SAMPLER_INTERVAL_MAX_NS (24ull * 3600 * 1000000000ull) /* 24 h */
#define SAMPLER_FREQ_MAX 100000u
#define SAMPLER_FREQ_DEFAULT 99u

/* How stacks are unwound.  AUTO: from the binaries' unwind tables
 * (.eh_frame) with a copy of each sample's stack, as DWARF, where the
 * kernel and the architecture allow; else the frame-pointer chain the
 * kernel walks (FP), which loses frames of code built without frame
 * pointers - most of a distribution's. */
enum sampler_unwind {
	SAMPLER_UNWIND_AUTO,
	SAMPLER_UNWIND_DWARF,
	SAMPLER_UNWIND_FP,
};

/* Bytes of stack copied per sample for DWARF unwinding: the default and
 * the kernel's bounds (a sample's size is 16 bits; the copy is whole
 * 8-byte words).  16 KiB, not perf's 8: on Debian's cc1 -O2 (deep
 * recursion over trees) 74% of the samples reached the program's start
 * with 8 KiB, 86% with 16, 92% with 32 and 98% with 64, for 1.12, 1.14
 * and 1.29 times the sampler's CPU per sample of 8 KiB's; Debian's
 * python3 and xz reached it in 100% from 2 KiB up (bench/attach/
 * unwind.py, issue 31.7). */
#define SAMPLER_STACK_COPY_DEFAULT 16384u
#define SAMPLER_STACK_COPY_MIN 1024u
#define SAMPLER_STACK_COPY_MAX 65528u

/* Parses "auto", "dwarf", "dwarf,SIZE" (perf's --call-graph dwarf,SIZE:
 * SIZE bytes of stack copied per sample, a multiple of 8 within the
 * bounds above; *copy is left alone without it) or "fp"; returns 0 or
 * -EINVAL. */
int sampler_parse_unwind(const char *s, enum sampler_unwind *u,
			 unsigned *copy);
/* "dwarf" or "fp" ("auto" for AUTO). */
const char *sampler_unwind_name(enum sampler_unwind u);

/* Room for one error message; every message names its cause in one line
 * without the "vigil: " prefix, which the caller adds. */
#define SAMPLER_ERR_LEN 256

/*
 * Parses a scan set: a comma-separated list of names (host-cpu, cpu,
 * threads, memory, host-memory, io, stacks, counts; "all" for every one) or a
 * number (decimal or 0x hex) of the bits above.  Returns 0 with *mask set,
 * or -EINVAL with err saying which name or bit is unknown.
 */
int sampler_parse_scan(const char *s, unsigned *mask, char *err, size_t errlen);

/* The name of one scan bit, or NULL. */
const char *sampler_scan_name(unsigned bit);

/* Parses a stack-sampling frequency in Hz (1 .. SAMPLER_FREQ_MAX, decimal
 * digits only); returns 0 or -EINVAL. */
int sampler_parse_hz(const char *s, unsigned *hz);

/* The sampler's flags as given on a command line (NULL: not given). */
struct sampler_flags {
	const char *interval, *scan, *frequency, *unwind;
};

/*
 * Sets cfg's interval_ns, scan, frequency, unwind and stack_copy from f,
 * each flag not given to its default (1 s, SAMPLER_SCAN_DEFAULT,
 * SAMPLER_FREQ_DEFAULT, auto with the default copy); the rest of cfg is
 * left alone.  Returns 0, or -EINVAL with err "bad --FLAG 'VALUE' (what
 * it takes)", the same words for every command.  In flags.c.
 */
struct sampler_config;
int sampler_parse_flags(const struct sampler_flags *f,
			struct sampler_config *cfg, char *err, size_t errlen);

/* One thread of the target in a sample with SAMPLER_SCAN_THREADS. */
struct sampler_thread {
	pid_t tid;
	char name[16];        /* comm, as pthread_setname_np set it */
	char state;           /* /proc state letter: R S D T t Z ... */
	int is_new;           /* appeared since the previous sample */
	uint64_t user_us;     /* CPU time in user mode (clock ticks) */
	uint64_t sys_us;      /* CPU time in the kernel (clock ticks) */
	uint64_t run_ns;      /* time on a CPU (schedstat, nanoseconds) */
	uint64_t run_delta_ns; /* run_ns since the previous sample (all of it
	                        * when is_new) */
};

/* Frame 0 of a sample taken while the thread ran in the kernel on its own
 * behalf (a system call, a page fault): the user frames that entered it
 * follow.  perf's PERF_CONTEXT_KERNEL; no user address has the top bit. */
#define SAMPLER_KERNEL_IP 0xffffffffffffff80ull

/* One distinct user-space call chain seen since the previous sample:
 * ips[0] is where the thread was (SAMPLER_KERNEL_IP: in the kernel),
 * ips[1..] the return addresses, each in an executable mapping.  truncated: the chain stopped short of its
 * outermost frame (DWARF only: no unwind rule, the stack copy ended, an
 * address outside executable code); it is never made up. */
struct sampler_stack {
	pid_t tid;
	int truncated;
	/* Taken before an exec of the target that came since the previous
	 * sample (placed by the exec's record among the samples): its
	 * addresses are the old image's, to be named against it. */
	int before_exec;
	uint32_t nips;
	const uint64_t *ips;
	uint64_t count;
};

/* The calls of one edge of a target linked with vigil's runtime (its
 * .vgl profile): runtime addresses as the profile holds them. */
struct sampler_edge {
	uint64_t callee;      /* the entered function */
	uint64_t site;        /* the return address of the call */
	uint64_t delta;       /* calls since the previous sample */
	uint64_t total;       /* calls since the program started */
	/* The profile's module ids (VGL_NO_MODULE when unknown): the same
	 * addresses in two modules are two edges. */
	uint32_t callee_mod;
	uint32_t site_mod;
};

enum sampler_kind {
	SAMPLER_SAMPLE,     /* a sample: the fields of sample.scan are valid */
	SAMPLER_ENDED,      /* the target ended; the last call for this run */
	SAMPLER_MAPS,       /* the target mapped new code (dlopen): read its
	                     * modules now, while it lives; no sample */
};

struct sampler_sample {
	enum sampler_kind kind;
	uint64_t seq;              /* 1, 2, ... (samples only) */
	uint64_t time_ns;          /* CLOCK_REALTIME */
	uint64_t mono_ns;          /* CLOCK_MONOTONIC */
	uint64_t interval_ns;      /* the interval in force */
	uint64_t missed_ticks;     /* whole intervals since the previous
	                            * sample that passed with no sample (the
	                            * sampler was late: a scan longer than the
	                            * interval, a loaded machine, a stopped
	                            * vigil); the intervals run from the first
	                            * sample's start, so the samples after it
	                            * that the timer asked for plus the missed
	                            * ticks are the intervals passed.
	                            * SAMPLER_ENDED: those since the last
	                            * sample. */
	unsigned scan;             /* scans whose fields are filled */
	unsigned scan_cut;         /* scans asked for but cut short (a stop
	                            * came while they ran: SAMPLER_SCAN_THREADS
	                            * of many threads), left out of scan */

	/* Always: the process's state letter (of its first live thread), and
	 * whether it is stopped (SIGSTOP, a debugger). */
	char state;
	int stopped;
	const char *exe;           /* /proc/PID/exe now; NULL if never read */
	int exe_stale;             /* unreadable now (the process is
	                            * ending): exe is the one read last */
	int exe_changed;           /* differs from the previous sample's
	                            * (an exec); 0 on the first sample */

	/* SAMPLER_SCAN_CPU: whole process, live and ended threads: user and
	 * system time in clock ticks (10 ms), and time on a CPU in ns from
	 * the process's CPU clock (clock_getcpuclockid; as fine as the
	 * scheduler's accounting, where the ticks are far coarser than a
	 * short interval), user + system where that clock cannot be read. */
	uint64_t cpu_user_us, cpu_sys_us;
	uint64_t cpu_user_delta_us, cpu_sys_delta_us;
	uint64_t cpu_run_ns, cpu_run_delta_ns;

	/* SAMPLER_SCAN_HOST_CPU: every CPU of the host, since the previous
	 * sample (since boot on the first). */
	uint64_t host_user_us, host_sys_us, host_idle_us, host_iowait_us;

	/* SAMPLER_SCAN_MEMORY, in bytes. */
	uint64_t rss_bytes, anon_bytes, file_bytes, shmem_bytes, swap_bytes,
		 vsize_bytes;
	/* SAMPLER_SCAN_HOST_MEMORY, in bytes. */
	uint64_t host_mem_total_bytes, host_mem_available_bytes;

	/* SAMPLER_SCAN_IO; io_ok is 0 when the kernel refused (io_errno). */
	int io_ok, io_errno;
	uint64_t io_read_bytes, io_write_bytes, io_rchar, io_wchar;

	/* SAMPLER_SCAN_THREADS: live threads, and the tids that ended since
	 * the previous sample. */
	const struct sampler_thread *threads;
	size_t nthreads;
	const pid_t *ended;
	size_t nended;
	/* ... and the CPU time of every thread that has ended, since the
	 * process started (those that ended between two samples, never
	 * seen, included): the process's user and system time minus its
	 * live threads', in the same clock ticks; 0 when the process's
	 * could not be read. */
	uint64_t ended_user_us, ended_sys_us;

	/* SAMPLER_SCAN_STACKS: the distinct stacks since the previous sample,
	 * their total, and samples the kernel dropped (ring full). */
	const struct sampler_stack *stacks;
	size_t nstacks;
	uint64_t stack_samples, stack_lost;
	unsigned frequency;
	enum sampler_unwind unwind;  /* DWARF or FP, as in force */
	/* NULL when kernel time is sampled too (SAMPLER_KERNEL_IP);
	 * else why it is not, in one line without "vigil: ": where the
	 * system does not allow it, user time alone is sampled. */
	const char *stack_kernel_off;

	/* SAMPLER_SCAN_COUNTS: edges whose count grew since the previous
	 * sample; or counts_error (the target has no profile, or it cannot
	 * be read) and no edges. */
	const char *counts_error;
	const char *counts_file;
	/* An idle ondemand program's counting, switched from here: on now;
	 * sites changed by the last switch; switches so far (0: none);
	 * how long the last switch's writes took. */
	int counts_live;
	uint64_t counts_live_sites, counts_live_switches;
	uint64_t counts_live_switch_ns;  /* the last switch's writes */
	/* At the reading that ends a window (switched off, or the process
	 * ended while on): its number, its calls, and its file
	 * (cfg.windows set; NULL when none was written). */
	const char *counts_window_file;
	uint64_t counts_window_seq, counts_window_calls;
	const struct sampler_edge *edges;
	size_t nedges;
	uint64_t calls_delta, calls_total;
	int final;                 /* taken after the target ended */

	/* SAMPLER_ENDED: the target's wait status as the kernel showed it
	 * while it was a zombie (exit_known 0 if it was reaped first). */
	int exit_known;
	int exit_status;
};

typedef void (*sampler_fn)(const struct sampler_sample *s, void *arg);

struct proc_image;

struct sampler_config {
	pid_t pid;
	uint64_t interval_ns;      /* SAMPLER_INTERVAL_MIN_NS .. _MAX_NS */
	unsigned scan;             /* SAMPLER_SCAN_* bits */
	unsigned frequency;        /* stacks, Hz; 0 = SAMPLER_FREQ_DEFAULT */
	enum sampler_unwind unwind;
	unsigned stack_copy;       /* DWARF: bytes per sample; 0 = default */
	/* The process's image (image.h), shared with the caller's namer and
	 * writer and outliving the sampler; NULL: the sampler's own. */
	struct proc_image *image;
	/* An idle ondemand program switched on live: each window's counts
	 * go to WINDOWS.wNNNNNN.vgl (NULL: to no file). */
	const char *windows;
	sampler_fn fn;
	void *arg;
};

struct sampler;

/*
 * With SAMPLER_SCAN_COUNTS, one last sample (final = 1) comes after the
 * target has ended and before SAMPLER_ENDED: its profile is final then,
 * so the deltas of a whole run add up to it.  With SAMPLER_SCAN_STACKS,
 * no stack sample is thrown away: those taken since the last sample come
 * in that final sample, or, at sampler_stop(), in one more sample taken
 * before it returns.
 *
 * Checks that cfg->pid is a process the caller may read, opens its pidfd,
 * sets up the scans and starts the sampler thread; the first sample comes
 * at once, the next after one interval.  Returns 0 with *out set, or a
 * negative errno with err naming the cause: -ESRCH (no such process),
 * -EACCES (may not read it, or perf_event_paranoid refuses stacks),
 * -EINVAL (bad interval, scan or frequency), others from the kernel.
 */
int sampler_start(struct sampler **out, const struct sampler_config *cfg,
		  char *err, size_t errlen);

/* Sets a new interval; the next sample comes one new interval from now.
 * Returns 0 or -EINVAL (out of range; nothing changes). */
int sampler_set_interval(struct sampler *s, uint64_t ns, char *err,
			 size_t errlen);

/* Sets a new scan set (and stack frequency; 0 keeps it) at once.  Returns
 * 0, or a negative errno with err set and nothing changed. */
int sampler_set_scan(struct sampler *s, unsigned scan, unsigned frequency,
		     char *err, size_t errlen);

/* Asks for one sample now, outside the interval.  Returns 0. */
int sampler_sample_now(struct sampler *s);

/* Stops the sampler thread (within milliseconds: the sample being taken
 * finishes, its threads scan cut short after 20 ms; see scan_cut), closes
 * everything and frees s.  No callback runs after it returns.  Returns
 * 0. */
int sampler_stop(struct sampler *s);

/* sampler_stop, and *missed_ticks (if not NULL) the whole intervals that
 * passed after the last sample without one (the last call's, when the
 * target ended). */
int sampler_stop_missed(struct sampler *s, uint64_t *missed_ticks);

/*
 * Takes one sample of pid with the given scans, without a thread, into fn
 * (stacks are not available this way: they need time).  For embedding
 * and for measuring the cost of a scan.  Returns 0 or a negative errno.
 */
int sampler_sample_once(pid_t pid, unsigned scan, sampler_fn fn, void *arg,
			char *err, size_t errlen);

/*
 * The counting sites of a running ondemand program (vigil check -p): read
 * from outside, nothing changed.  ondemand 0: the process has no ondemand
 * runtime (no control block).  Returns 0, or -errno with err set (the
 * process cannot be read).
 */
struct sampler_live_info {
	int ondemand;               /* an ondemand program */
	int idle_start;             /* started idle (no VIGIL_FILE) */
	int want;                   /* counting switched on from outside now */
	int memfd;                  /* its counts are in a memfd (it was on) */
	uint64_t sites[2];          /* sites idle, sites on */
};

int sampler_live_inspect(pid_t pid, struct sampler_live_info *out,
			 char *err, size_t errlen);

#endif
