/*
 * stacks.c - CPU stack samples of the target with perf_event_open: the
 * software cpu-clock event at a chosen frequency, user space, and the
 * kernel's time on the target's behalf as one frame where the system
 * allows it; unwound from a copy of the user stack (unwind.c), or by the
 * kernel's frame-pointer walk (PERF_SAMPLE_CALLCHAIN).
 *
 * Why one event per thread per CPU, with inherit: a per-thread event
 * without inherit misses every thread created after it was opened (0% of
 * new threads covered, measured for the issue), and an inherited event
 * can only be mapped when it is bound to one CPU.  So each thread alive at
 * the start gets one event on each CPU, with inherit (inherit_thread: its
 * future threads, not its forked children) so they are counted too, and all events of one CPU write into one ring
 * buffer (PERF_EVENT_IOC_SET_OUTPUT): 100% of new threads covered.
 *
 * Samples are folded into a table of distinct (thread, call chain) with a
 * count (lib/stacktab.h), which the sampler hands out and empties at each
 * sample.
 *
 * An exec of the target is a record among the samples (comm_exec), with
 * the time samples carry too: the samples before it, still in the rings
 * when the exec came or not, are unwound against the old image's
 * mappings (read when the sampler started, and kept until then) and
 * handed out marked before_exec, so that they are named against it.
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "image.h"
#include "internal.h"
#include "stacktab.h"
#include "unwind.h"

#define RING_PAGES 64          /* data pages per CPU: 256 KiB */
/* With a stack copy of 8 KiB per sample, 1 MiB holds 120 samples; a
 * bigger copy, a bigger ring for as many (dwarf_ring_pages); less when
 * the locked-memory limit refuses it (perf_event_mlock_kb). */
#define RING_PAGES_DWARF 256
#define RING_COPY_DWARF 8192
#define MAX_IPS 127
/* The user registers (perf's x86 numbering): ax bx cx dx si di bp sp ip,
 * r8..r15; they come in bit order. */
#define REGS_MASK 0xff01ffull
#define NREGS 17

/* A stack's tag in the table (stacktab.h): st->gen when it was taken,
 * and whether it is truncated. */
#define TAG(gen, truncated) ((uint64_t)(gen) << 1 | (uint64_t)!!(truncated))
#define TAG_GEN(tag) ((uint32_t)((tag) >> 1))
#define TAG_TRUNCATED(tag) ((int)((tag) & 1))

struct ring {
	int fd;                 /* the event whose buffer this is */
	int pollfd;             /* an event of this CPU to poll for wake-ups,
	                         * or -1 (drained at each sample only) */
	void *base;             /* header page + data */
	size_t data_size;
	size_t map_len;
};

struct stacks_state {
	struct proc_image *img;    /* the process's (image.h), not owned */
	pid_t pid;              /* the target: samples of others are dropped */
	struct ring *rings;     /* one per CPU that has events */
	size_t nrings;
	int *fds;               /* every event */
	int *fd_cpu;            /* the CPU of each */
	size_t nfds, cap_fds;
	unsigned frequency;
	enum sampler_unwind unwind;     /* DWARF or FP, as opened */
	/* NULL when kernel time is sampled too; else why not (the
	 * sample's stack_kernel_off). */
	const char *kernel_off;
	char kernel_why[160];
	unsigned ring_pages;
	struct unwinder *unwinder;      /* DWARF */
	unsigned char *rec;             /* one record, copied out */
	struct vgl_stacktab cur;        /* the current round */
	uint64_t samples, lost;
	uint32_t gen;           /* execs seen in the rings */
	int exec_seen;          /* since the last stacks_take */
	uint64_t exec_time;     /* the latest exec's record time */
	int exec_file_wanted;   /* the earliest code mapped after it is ... */
	char exec_file[4096];   /* ... the new program's file ("" none), */
	uint64_t exec_file_time; /* mapped at this time */
	int maps_changed;       /* new code mapped, since stacks_maps_changed */
	/* what the last stacks_take handed out */
	struct vgl_stacktab prev;
	struct sampler_stack *out;
	size_t cap_out;
};

static long perf_open(struct perf_event_attr *a, pid_t tid, int cpu)
{
	return syscall(SYS_perf_event_open, a, tid, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static long read_sysctl(const char *path)
{
	char buf[32];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

/* The error for perf_event_open's errno e, naming the cause. */
static int open_error(int e, unsigned freq, char *err, size_t errlen)
{
	long paranoid;

	switch (e) {
	case EACCES:
	case EPERM:
		paranoid = read_sysctl("/proc/sys/kernel/perf_event_paranoid");
		return sampler_err(err, errlen, -EACCES,
				   "stack sampling refused by the kernel: kernel.perf_event_paranoid is %ld (user-space sampling of your own processes needs <= 2, of others' CAP_PERFMON or -1)",
				   paranoid);
	case ENOENT:
	case ENOSYS:
	case EOPNOTSUPP:
		return sampler_err(err, errlen, -EOPNOTSUPP,
				   "stack sampling: this kernel has no perf_event_open cpu-clock event (%s)",
				   strerror(e));
	case EMFILE:
	case ENFILE:
		return sampler_err(err, errlen, -e,
				   "stack sampling: out of file descriptors (one per thread per CPU); raise ulimit -n");
	case EINVAL:
		return sampler_err(err, errlen, -EINVAL,
				   "stack sampling: the kernel refused %u Hz (kernel.perf_event_max_sample_rate is %ld)",
				   freq, read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate"));
	default:
		return sampler_err(err, errlen, -e,
				   "stack sampling: perf_event_open: %s", strerror(e));
	}
}

/*
 * The wake-up point of a ring of pages data pages: a sixteenth of it
 * (about 7 DWARF samples, 70 ms at 99 Hz), not half of it: samples are
 * unwound while the process lives, when a module it loaded since the last
 * look can still be read from /proc.  At half, a program shorter than the
 * interval had every sample unwound after its end: Debian's python3 for
 * 0.4 s, 38% to 66% of its stacks cut short at its _json module.
 */
static uint32_t wakeup_bytes(unsigned pages)
{
	return (uint32_t)((size_t)pages * (size_t)getpagesize() / 16);
}

static int add_fd(struct stacks_state *st, int fd, int cpu)
{
	if (st->nfds == st->cap_fds) {
		size_t n = st->cap_fds ? st->cap_fds * 2 : 64;
		int *p = realloc(st->fds, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		st->fds = p;
		p = realloc(st->fd_cpu, n * sizeof(*p));
		if (!p)
			return -ENOMEM;
		st->fd_cpu = p;
		st->cap_fds = n;
	}
	st->fd_cpu[st->nfds] = cpu;
	st->fds[st->nfds++] = fd;
	return 0;
}

/* Opens the events of one thread on every CPU.  A thread that ended
 * meanwhile is skipped.  Returns 0 or a negative errno. */
static int open_thread(struct stacks_state *st, struct perf_event_attr *a,
		       pid_t tid, int ncpus, char *err, size_t errlen)
{
	struct ring *r;
	long fd;
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++) {
		r = &st->rings[cpu];
		fd = perf_open(a, tid, cpu);
		if (fd < 0 && errno == EINVAL && a->inherit_thread) {
			/* Before Linux 5.13: follow every child, and drop
			 * the samples of other processes as they come. */
			a->inherit_thread = 0;
			fd = perf_open(a, tid, cpu);
		}
		if (fd < 0 && (errno == EACCES || errno == EPERM) &&
		    !a->exclude_kernel) {
			/* Kernel time needs perf_event_paranoid <= 1 or
			 * CAP_PERFMON: without, user time only, said once. */
			a->exclude_kernel = 1;
			snprintf(st->kernel_why, sizeof(st->kernel_why),
				 "user time only: kernel.perf_event_paranoid is %ld (kernel time needs <= 1, or CAP_PERFMON)",
				 read_sysctl("/proc/sys/kernel/perf_event_paranoid"));
			st->kernel_off = st->kernel_why;
			fd = perf_open(a, tid, cpu);
		}
		if (fd < 0) {
			if (errno == ESRCH)
				return 0;
			/* An offline CPU has no events. */
			if (errno == ENODEV || (errno == EINVAL && r->fd < 0 &&
						cpu > 0))
				continue;
			return open_error(errno, st->frequency, err, errlen);
		}
		if (add_fd(st, (int)fd, cpu)) {
			close((int)fd);
			return -ENOMEM;
		}
		if (r->fd < 0) {
			size_t len;

			/* Smaller rings while the locked-memory limit
			 * refuses (EPERM) a big one. */
			for (;;) {
				len = (size_t)(st->ring_pages + 1) *
				      (size_t)getpagesize();
				r->base = mmap(NULL, len, PROT_READ | PROT_WRITE,
					       MAP_SHARED, (int)fd, 0);
				if (r->base != MAP_FAILED || errno != EPERM ||
				    st->ring_pages <= 8)
					break;
				st->ring_pages /= 2;
				/*
				 * The ring takes its wake-up point from the
				 * event that maps it, as opened, and the
				 * kernel caps it at the ring's size: kept for
				 * the big ring, it woke us only when a ring
				 * of 16 pages or fewer was full, and the
				 * samples after that were lost until the
				 * next interval (7 of 99 in a second, issue
				 * 28).  So the event is opened again for the
				 * smaller ring, as are the rings after it.
				 */
				a->wakeup_watermark = wakeup_bytes(st->ring_pages);
				st->nfds--;
				close((int)fd);
				fd = perf_open(a, tid, cpu);
				if (fd < 0)
					return errno == ESRCH ? 0 :
					       open_error(errno, st->frequency,
							  err, errlen);
				if (add_fd(st, (int)fd, cpu)) {
					close((int)fd);
					return -ENOMEM;
				}
			}
			if (r->base == MAP_FAILED) {
				r->base = NULL;
				return sampler_err(err, errlen, -errno,
						   "stack sampling: mmap of the ring buffer: %s",
						   strerror(errno));
			}
			r->map_len = len;
			r->fd = r->pollfd = (int)fd;
			r->data_size = (size_t)st->ring_pages * (size_t)getpagesize();
		} else if (ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0) {
			return sampler_err(err, errlen, -errno,
					   "stack sampling: PERF_EVENT_IOC_SET_OUTPUT: %s",
					   strerror(errno));
		}
	}
	return 0;
}

/* Data pages per CPU for a stack copy of copy bytes: room for as many
 * samples as RING_PAGES_DWARF holds of RING_COPY_DWARF (a power of 2,
 * as the kernel wants). */
static unsigned dwarf_ring_pages(unsigned copy)
{
	unsigned pages = RING_PAGES_DWARF;

	while ((uint64_t)pages * RING_COPY_DWARF <
	       (uint64_t)RING_PAGES_DWARF * copy)
		pages *= 2;
	return pages;
}

/* The event each thread gets: the CPU clock at st's frequency, with
 * what st's unwinding needs in each sample. */
static void event_attr(const struct stacks_state *st, unsigned stack_copy,
		       struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->freq = 1;
	a->sample_freq = st->frequency;
	if (st->unwind == SAMPLER_UNWIND_DWARF) {
		/* The registers and the top of the stack, unwound here
		 * with the binaries' own tables (unwind.c). */
		a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = REGS_MASK;
		a->sample_stack_user = stack_copy;
	} else {
		a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				PERF_SAMPLE_CALLCHAIN;
	}
	/* Every new executable mapping (dlopen) among the samples: the
	 * mappings are read again before the samples after it are unwound,
	 * and the names while the process lives (stacks_maps_changed). */
	a->mmap = 1;
	/* The exec among the samples, with its time (sample_id_all). */
	a->comm = 1;
	a->comm_exec = 1;
	a->sample_id_all = 1;
	a->inherit = 1;
	/* Only the target's new threads, not its forked children (whose
	 * samples would be reported as the target's): 100% of the samples
	 * of a script attached to came from its child, measured for the
	 * issue. */
	a->inherit_thread = 1;
	/*
	 * Time in the kernel on the target's behalf (a read, a page fault)
	 * is sampled too where the system allows it, and charged to the
	 * user frames that entered it: the user registers of such a sample
	 * are those at the entry (a system call's return address), and the
	 * user stack is copied from there (issue 16: a program that spent
	 * 10% in read showed 0.13%).  The kernel's own frames are not
	 * walked: one [kernel] frame stands for them.
	 */
	a->exclude_kernel = 0;
	a->exclude_hv = 1;
	a->exclude_callchain_kernel = 1;
	/* Woken at a sixteenth of the ring (wakeup_bytes); open_thread
	 * lowers it with the ring's size. */
	a->watermark = 1;
	a->wakeup_watermark = wakeup_bytes(st->ring_pages);
}

int stacks_open(struct stacks_state **out, struct proc_image *img, int taskfd,
		unsigned frequency, enum sampler_unwind unwind,
		unsigned stack_copy, char *err, size_t errlen)
{
	struct perf_event_attr a;
	struct stacks_state *st;
	struct dirent *de;
	long maxrate;
	int ncpus, i, ret = 0, fd;
	DIR *d = NULL;
	pid_t pid = proc_image_pid(img);

	maxrate = read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate");
	if (maxrate > 0 && frequency > (unsigned long)maxrate)
		return sampler_err(err, errlen, -EINVAL,
				   "stack sampling at %u Hz is above kernel.perf_event_max_sample_rate (%ld)",
				   frequency, maxrate);
	ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (ncpus < 1)
		ncpus = 1;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->frequency = frequency;
	st->pid = pid;
	st->img = img;
#if !defined(__x86_64__)
	/* The registers are numbered for x86-64 only. */
	if (unwind == SAMPLER_UNWIND_DWARF) {
		ret = sampler_err(err, errlen, -EOPNOTSUPP,
				  "stack sampling: --unwind dwarf is for x86-64 only");
		goto out;
	}
	unwind = SAMPLER_UNWIND_FP;
#endif
	st->unwind = unwind == SAMPLER_UNWIND_FP ? SAMPLER_UNWIND_FP :
		     SAMPLER_UNWIND_DWARF;
	st->ring_pages = st->unwind == SAMPLER_UNWIND_DWARF ?
			 dwarf_ring_pages(stack_copy) : RING_PAGES;
	st->rec = malloc(65536);
	if (!st->rec || unwind_open(&st->unwinder, img,
				    st->unwind == SAMPLER_UNWIND_DWARF)) {
		ret = -ENOMEM;
		goto out;
	}
	st->rings = calloc((size_t)ncpus, sizeof(*st->rings));
	if (!st->rings) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < ncpus; i++)
		st->rings[i].fd = st->rings[i].pollfd = -1;
	st->nrings = (size_t)ncpus;

	event_attr(st, stack_copy, &a);

	fd = openat(taskfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		ret = sampler_err(err, errlen, -errno, "stack sampling: task list: %s",
				  strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		ret = open_thread(st, &a, (pid_t)strtol(de->d_name, NULL, 10),
				  ncpus, err, errlen);
		if (ret == -EINVAL && !st->nfds && unwind == SAMPLER_UNWIND_AUTO &&
		    st->unwind == SAMPLER_UNWIND_DWARF) {
			/* A kernel without user registers and stacks in
			 * samples: the frame-pointer chain it walks. */
			st->unwind = SAMPLER_UNWIND_FP;
			unwind_close(st->unwinder);
			st->unwinder = NULL;
			if (unwind_open(&st->unwinder, img, 0)) {
				ret = -ENOMEM;
				goto out;
			}
			a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
					PERF_SAMPLE_CALLCHAIN;
			a.sample_regs_user = 0;
			a.sample_stack_user = 0;
			ret = open_thread(st, &a,
					  (pid_t)strtol(de->d_name, NULL, 10),
					  ncpus, err, errlen);
		}
		if (ret)
			goto out;
	}
	if (!st->nfds)
		ret = sampler_err(err, errlen, -ESRCH,
				  "stack sampling: the process has no thread left");
out:
	if (d)
		closedir(d);
	if (ret) {
		stacks_close(st);
		return ret;
	}
	*out = st;
	return 0;
}

size_t stacks_fds(struct stacks_state *st, int *fds, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < st->nrings && n < max; i++)
		if (st->rings[i].pollfd >= 0)
			fds[n++] = st->rings[i].pollfd;
	return n;
}

void stacks_hangup(struct stacks_state *st, int fd)
{
	size_t i, j;

	/*
	 * The thread of the event we polled has ended (and its inherited
	 * children too): the kernel reports its descriptor hung up for ever.
	 * Its ring still fills from the other events of the CPU, and the
	 * kernel wakes every event attached to a ring, so poll the next
	 * event of the same CPU instead; each takes its turn as threads end.
	 */
	for (i = 0; i < st->nrings; i++) {
		struct ring *r = &st->rings[i];

		if (r->pollfd != fd)
			continue;
		for (j = 0; j < st->nfds && st->fds[j] != fd; j++)
			;
		for (j++; j < st->nfds && st->fd_cpu[j] != (int)i; j++)
			;
		r->pollfd = j < st->nfds ? st->fds[j] : -1;
	}
}

/* Counts count samples of tid with call chain ips[0..n).  Out of
 * memory, the samples are counted but not their stack. */
static void add_sample(struct stacks_state *st, pid_t tid, int truncated,
		       const uint64_t *ips, uint32_t n, uint64_t count)
{
	st->samples += count;
	vgl_stacktab_add(&st->cur, (uint32_t)tid, TAG(st->gen, truncated),
			 ips, n, count);
}

/* Unwinds a sample body from off: u64 abi, regs[NREGS] (when abi is not
 * 0), u64 size, stack[size], u64 dyn_size (when size is not 0). */
static void parse_dwarf(struct stacks_state *st, pid_t tid, int kernel,
			const unsigned char *rec, size_t len, size_t off)
{
	uint64_t ips[MAX_IPS], abi, r[NREGS], regs[UNWIND_NREGS], size, dyn;
	uint32_t n;
	int truncated;

	if (len < off + 8)
		return;
	memcpy(&abi, rec + off, 8);
	off += 8;
	if (!abi || len < off + sizeof(r) + 8) {
		/* No user registers (the thread was in the kernel with no
		 * user context): nothing to unwind, but it was a sample. */
		ips[0] = SAMPLER_KERNEL_IP;
		add_sample(st, tid, 1, ips, kernel ? 1 : 0, 1);
		return;
	}
	memcpy(r, rec + off, sizeof(r));
	off += sizeof(r);
	memcpy(&size, rec + off, 8);
	off += 8;
	if (size > len - off || (size && len - off - size < 8))
		return;
	dyn = 0;
	if (size)
		memcpy(&dyn, rec + off + size, 8);
	if (dyn > size)
		dyn = size;
	/* perf's order (ax bx cx dx si di bp sp ip r8..r15) to DWARF's
	 * (ax dx cx bx si di bp sp r8..r15 ip). */
	regs[0] = r[0];
	regs[1] = r[3];
	regs[2] = r[2];
	regs[3] = r[1];
	regs[4] = r[4];
	regs[5] = r[5];
	regs[6] = r[6];
	regs[7] = r[7];
	memcpy(regs + 8, r + 9, 8 * sizeof(*r));
	regs[UNWIND_REG_IP] = r[8];
	ips[0] = SAMPLER_KERNEL_IP;
	n = unwind_sample(st->unwinder, tid, regs, rec + off, (size_t)dyn,
			  ips + kernel, MAX_IPS - 1, &truncated);
	add_sample(st, tid, truncated, ips, n + (uint32_t)kernel, 1);
}

/* Parses one PERF_RECORD_SAMPLE body: pid, tid, then nr, ips[nr] (frame
 * pointers) or the registers and stack (DWARF). */
static void parse_sample(struct stacks_state *st, const unsigned char *rec,
			 size_t len)
{
	uint64_t ips[MAX_IPS], nr, ip;
	uint32_t pid, tid, n = 0;
	size_t i, off = sizeof(struct perf_event_header);
	struct perf_event_header hdr;
	int kernel;

	if (len < off + 8)
		return;
	/* Taken in the kernel: a [kernel] frame above the user ones. */
	memcpy(&hdr, rec, sizeof(hdr));
	kernel = (hdr.misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
		 PERF_RECORD_MISC_KERNEL;
	memcpy(&pid, rec + off, 4);
	memcpy(&tid, rec + off + 4, 4);
	/* A forked child's, where the kernel has no inherit_thread. */
	if ((pid_t)pid != st->pid)
		return;
	off += 16;      /* pid, tid; time */
	if (st->unwind == SAMPLER_UNWIND_DWARF) {
		parse_dwarf(st, (pid_t)tid, kernel, rec, len, off);
		return;
	}
	if (len < off + 8)
		return;
	memcpy(&nr, rec + off, 8);
	off += 8;
	if (nr > (len - off) / 8)
		return;
	for (i = 0; i < nr && n + (uint32_t)kernel < MAX_IPS; i++) {
		memcpy(&ip, rec + off + i * 8, 8);
		/* PERF_CONTEXT_USER and its kin mark sections; skip them. */
		if (ip >= (uint64_t)PERF_CONTEXT_MAX)
			continue;
		ips[kernel + n++] = ip;
	}
	/* The kernel's walk ends where a frame pointer does: whether that
	 * is the outermost frame, it cannot tell; but a frame outside the
	 * code is junk (a frame pointer that was none), and ends it. */
	{
		int truncated;

		n = unwind_check(st->unwinder, ips + kernel, n, &truncated);
		if (kernel)
			ips[0] = SAMPLER_KERNEL_IP;
		add_sample(st, (pid_t)tid, truncated, ips, n + (uint32_t)kernel, 1);
	}
}

/* Reads the header of the record at tail of r into *hdr and, when body
 * is not 0, copies the record into st->rec; 0, or -1 when no whole record
 * is there. */
static int peek(struct stacks_state *st, struct ring *r, uint64_t tail,
		uint64_t head, struct perf_event_header *hdr, int body)
{
	unsigned char *data = (unsigned char *)r->base + getpagesize();
	size_t off, first;

	if (tail + sizeof(*hdr) > head)
		return -1;
	off = (size_t)(tail % r->data_size);
	/* A record may wrap around the end of the buffer: copy it out in
	 * two pieces. */
	first = r->data_size - off;
	if (first >= sizeof(*hdr)) {
		memcpy(hdr, data + off, sizeof(*hdr));
	} else {
		memcpy(hdr, data + off, first);
		memcpy((char *)hdr + first, data, sizeof(*hdr) - first);
	}
	if (hdr->size < sizeof(*hdr) || tail + hdr->size > head)
		return -1;
	if (!body)
		return 0;
	if (first >= hdr->size) {
		memcpy(st->rec, data + off, hdr->size);
	} else {
		memcpy(st->rec, data + off, first);
		memcpy(st->rec + first, data, hdr->size - first);
	}
	return 0;
}

/* A record's time: a sample's after its pid and tid, the others' last in
 * their sample_id; 0 when it has none. */
static uint64_t rec_time(const unsigned char *rec,
			 const struct perf_event_header *hdr)
{
	uint64_t t = 0;

	if (hdr->type == PERF_RECORD_SAMPLE) {
		if (hdr->size >= sizeof(*hdr) + 16)
			memcpy(&t, rec + sizeof(*hdr) + 8, 8);
	} else if (hdr->size >= sizeof(*hdr) + 16) {
		memcpy(&t, rec + hdr->size - 8, 8);
	}
	return t;
}

/* Whether the record is the target's exec. */
static int is_exec(const struct stacks_state *st, const unsigned char *rec,
		   const struct perf_event_header *hdr)
{
	uint32_t pid;

	if (hdr->type != PERF_RECORD_COMM || !(hdr->misc & PERF_RECORD_MISC_COMM_EXEC) ||
	    hdr->size < sizeof(*hdr) + 8)
		return 0;
	memcpy(&pid, rec + sizeof(*hdr), 4);
	return (pid_t)pid == st->pid;
}

/* The samples of the new image start here, at time t: their mappings
 * are new, and the first code mapped from t on is the program's file. */
static void exec_seen(struct stacks_state *st, uint64_t t)
{
	st->gen++;
	st->exec_seen = 1;
	st->exec_time = t;
	st->exec_file_wanted = 1;
	st->exec_file[0] = 0;
	proc_image_exec(st->img);
}

/*
 * An mmap record of the target's, after its exec: the kernel maps the
 * program's own file first (then its interpreter), so the earliest one
 * names the program.  Earliest by time, not the first drained: each CPU
 * has its ring, drained one after another, and a process that moved to
 * another CPU during its exec had its file named after the C library
 * its loader mapped there (libc.so.6.PID.vgl, 1 of 185 files of xz-utils'
 * make check under vigil run --scan stacks).  Kept for a process that ends before its exe link
 * can be read: under load, a shell's child that exec'd a program and
 * ran it for 300 ms was seen exec'ing only in the rings drained after
 * its end, and its file was named after the shell (run/scan-ended.test).
 */
static void mmap_seen(struct stacks_state *st, const unsigned char *rec,
		      const struct perf_event_header *hdr)
{
	/* pid, tid, then addr, len, pgoff: the name starts at 32. */
	const size_t at = sizeof(*hdr) + 32;
	uint32_t pid;
	uint64_t t;
	size_t n;

	if (!st->exec_file_wanted || hdr->size <= at)
		return;
	memcpy(&pid, rec + sizeof(*hdr), 4);
	t = rec_time(rec, hdr);
	if ((pid_t)pid != st->pid || t < st->exec_time ||
	    (st->exec_file[0] && t >= st->exec_file_time))
		return;
	n = strnlen((const char *)rec + at, hdr->size - at);
	if (n == 0 || n >= sizeof(st->exec_file) || rec[at] != '/')
		return;
	memcpy(st->exec_file, rec + at, n);
	st->exec_file[n] = 0;
	st->exec_file_time = t;
}

/*
 * Takes the records of r until one of time limit or later (left in the
 * ring), an exec's included (UINT64_MAX: all of them).  An exec met
 * when taking all of them starts the new image there.
 */
static void drain_ring(struct stacks_state *st, struct ring *r, uint64_t limit)
{
	struct perf_event_mmap_page *pg = r->base;
	struct perf_event_header hdr;
	uint64_t head, tail;

	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = pg->data_tail;
	while (!peek(st, r, tail, head, &hdr, 1)) {
		if (limit != UINT64_MAX && rec_time(st->rec, &hdr) >= limit &&
		    !(is_exec(st, st->rec, &hdr) &&
		      rec_time(st->rec, &hdr) == limit))
			break;
		if (hdr.type == PERF_RECORD_SAMPLE) {
			parse_sample(st, st->rec, hdr.size);
		} else if (hdr.type == PERF_RECORD_LOST &&
			   hdr.size >= sizeof(hdr) + 16) {
			uint64_t lost;

			memcpy(&lost, st->rec + sizeof(hdr) + 8, 8);
			st->lost += lost;
		} else if (limit == UINT64_MAX && is_exec(st, st->rec, &hdr)) {
			exec_seen(st, rec_time(st->rec, &hdr));
		} else if (hdr.type == PERF_RECORD_MMAP) {
			mmap_seen(st, st->rec, &hdr);
		}
		tail += hdr.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

/*
 * What waits in the rings, read from the records' headers and only the
 * bodies of comm and mmap records (samples are 8 KiB with DWARF): the
 * time of the target's earliest exec, or 0; and, when mmap is not NULL,
 * whether the target mapped new code (*mmap set to 1).  One walk for
 * both.
 */
static uint64_t scan_waiting(struct stacks_state *st, int *mmap)
{
	struct perf_event_header hdr;
	uint64_t best = 0, head, tail, t;
	uint32_t pid;
	size_t i;

	for (i = 0; i < st->nrings; i++) {
		struct ring *r = &st->rings[i];
		struct perf_event_mmap_page *pg = r->base;
		int exec_found = 0;

		if (!pg)
			continue;
		head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
		for (tail = pg->data_tail;
		     !(exec_found && (!mmap || *mmap)) &&
		     !peek(st, r, tail, head, &hdr, 0);
		     tail += hdr.size) {
			if (hdr.type == PERF_RECORD_MMAP && mmap && !*mmap &&
			    hdr.size >= sizeof(hdr) + 8 &&
			    !peek(st, r, tail, head, &hdr, 1)) {
				memcpy(&pid, st->rec + sizeof(hdr), 4);
				*mmap = (pid_t)pid == st->pid;
			}
			/* The first exec of each ring is its earliest. */
			if (exec_found || hdr.type != PERF_RECORD_COMM ||
			    peek(st, r, tail, head, &hdr, 1) ||
			    !is_exec(st, st->rec, &hdr))
				continue;
			exec_found = 1;
			t = rec_time(st->rec, &hdr);
			if (t && (!best || t < best))
				best = t;
		}
	}
	return best;
}

void stacks_drain(struct stacks_state *st)
{
	uint64_t t;
	size_t i;
	int k, mmap = 0;

	/* A dlopen among the samples: its module's frames (callers too, not
	 * only the innermost one, which alone made the maps be read again)
	 * unwind against mappings read now, while the process can still be
	 * read.  Samples from before it unwind as well against them. */
	t = scan_waiting(st, &mmap);
	if (mmap) {
		proc_image_mapped(st->img);
		st->maps_changed = 1;
	}

	/* Each exec waiting in the rings: every ring's samples from before
	 * it first, unwound against the old mappings, then the new image
	 * starts.  (A few rounds at most: execs are rare.) */
	for (k = 0; k < 4 && t; k++, t = scan_waiting(st, NULL)) {
		proc_image_hold(st->img, 1);
		for (i = 0; i < st->nrings; i++)
			if (st->rings[i].base)
				drain_ring(st, &st->rings[i], t);
		proc_image_hold(st->img, 0);
		exec_seen(st, t);
	}
	for (i = 0; i < st->nrings; i++)
		if (st->rings[i].base)
			drain_ring(st, &st->rings[i], UINT64_MAX);
}

int stacks_exec_waiting(struct stacks_state *st)
{
	return st->exec_seen;
}

const char *stacks_exec_file(const struct stacks_state *st)
{
	return st->exec_file[0] ? st->exec_file : NULL;
}

int stacks_maps_changed(struct stacks_state *st, int clear)
{
	/* After an exec not yet handed out, the new mappings are the new
	 * image's: names read now would name the old image's stacks (the
	 * sample that hands them out reads the new maps itself). */
	int c = st->maps_changed && !st->exec_seen;

	if (clear || st->exec_seen)
		st->maps_changed = 0;
	return c;
}

uint64_t stacks_waiting(struct stacks_state *st)
{
	return st->samples + st->lost;
}

int stacks_take(struct stacks_state *st, struct sampler_sample *s)
{
	struct vgl_stacktab tab;
	int exec = 0;
	size_t i;

	/* The first sample comes as sampling starts: the image's maps now,
	 * before any exec. */
	proc_image_now(st->img);
	stacks_drain(st);
	/* The round's stacks are handed out, and the table of the round
	 * before, emptied, takes the next one. */
	vgl_stacktab_clear(&st->prev);
	tab = st->prev;
	st->prev = st->cur;
	st->cur = tab;
	if (st->prev.n > st->cap_out) {
		struct sampler_stack *p = realloc(st->out,
						  st->prev.n * sizeof(*p));

		if (p) {
			st->out = p;
			st->cap_out = st->prev.n;
		}
	}
	s->nstacks = st->prev.n <= st->cap_out ? st->prev.n : 0;
	for (i = 0; i < s->nstacks; i++) {
		const struct vgl_stack_entry *e = &st->prev.e[i];

		st->out[i].tid = (pid_t)e->tid;
		st->out[i].nips = e->n;
		st->out[i].truncated = TAG_TRUNCATED(e->tag);
		st->out[i].before_exec = TAG_GEN(e->tag) != st->gen;
		st->out[i].ips = e->words;
		st->out[i].count = e->count;
	}
	s->stacks = st->out;
	s->stack_samples = st->samples;
	s->stack_lost = st->lost;
	s->frequency = st->frequency;
	s->unwind = st->unwind;
	s->stack_kernel_off = st->kernel_off;
	st->samples = st->lost = 0;
	exec = st->exec_seen;
	st->exec_seen = 0;
	return exec;
}

void stacks_adopt(struct stacks_state *st, struct stacks_state *old)
{
	size_t i;

	stacks_drain(old);
	for (i = 0; i < old->cur.n; i++) {
		const struct vgl_stack_entry *e = &old->cur.e[i];

		add_sample(st, (pid_t)e->tid, TAG_TRUNCATED(e->tag),
			   e->words, e->n, e->count);
	}
	st->lost += old->lost;
	old->samples = old->lost = 0;
}

void stacks_close(struct stacks_state *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->nrings; i++)
		if (st->rings[i].base)
			munmap(st->rings[i].base, st->rings[i].map_len);
	for (i = 0; i < st->nfds; i++)
		close(st->fds[i]);
	free(st->fds);
	free(st->fd_cpu);
	free(st->rings);
	vgl_stacktab_release(&st->cur);
	vgl_stacktab_release(&st->prev);
	free(st->out);
	free(st->rec);
	unwind_close(st->unwinder);
	free(st);
}
