/*
 * interval.c - window snapshots (VIGIL_INTERVAL, vigil_snapshot): every
 * interval, a file NAME.wNNNNNN.vgl next to the profile NAME.vgl with the
 * counts of the window since the previous snapshot, so that the windows of
 * a run add up to its total.
 *
 * The counts are read while the program runs, without pausing it: each
 * edge record's count is read once and compared with the value seen at the
 * previous snapshot (a shadow array indexed by the record's place in the
 * arena, since records never move).  Each snapshot is written whole to a
 * temporary name and renamed.
 *
 * The thread's wait is a condition variable with a deadline, so stopping
 * it takes effect at once: at exit the program is never held up by the
 * interval, only by writing the last window (the calls since the previous
 * one).  The thread blocks every signal, so the program's signals are
 * never delivered to it, and it holds no descriptor between snapshots.
 *
 * The thread has a descriptor table of its own, empty when it starts
 * (close_range with CLOSE_RANGE_UNSHARE): the files it opens are numbered
 * there, never in the program's table.  In the shared table each window
 * file took the program's lowest free number for a moment, and a program
 * that closes 0 and counts on its next open() returning 0 (the daemon
 * idiom) got another number in about 1 round of 40 at a 1 ms interval.
 * Its one line on stderr goes through a copy of the program's descriptor
 * 2 (pidfd_getfd), taken for the moment of the write.  The last window,
 * at exit, is the thread's too, for the same reason.  Where the kernel
 * refuses it a table of its own (a seccomp filter), the thread writes no
 * window at all and says so: in the shared table, 7,700 of 200,000 opens
 * of such a program got another number at 1 ms.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>       /* rename */
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "crc32.h"
#include "interval.h"
#include "lock.h"
#include "state.h"
#include "store.h"
#include "text.h"

#define SHADOW_RESERVE (1ull << 26)  /* one u64 per 32-byte record of a
                                      * 256 MiB arena (store.c RESERVE) */

/* Mapped as long as the arena needs (it moves when it grows: only this
 * file holds its address), so that under a finite RLIMIT_AS it costs the
 * program no more address space than the counts it shadows. */
/* The interval thread's stack under a finite RLIMIT_AS: write_window
 * needs two paths and a header (about 9 KiB). */
#define SMALL_STACK (256u << 10)

struct shadow {
	uint64_t *v;
	uint64_t len;                 /* bytes mapped at v */
};

static struct {
	pthread_mutex_t mtx;
	pthread_cond_t cond;
	int stop;
	int started;
	int no_table;                 /* the thread has no descriptor table
	                               * of its own: it writes nothing */
	int final;                    /* the last window is asked for */
	int final_status;             /* its exit status */
	int done;                     /* and the thread has written it */
	uint64_t asked, answered;     /* vigil_snapshot's windows asked of
	                               * the thread, and written by it */
	int answer;                   /* the last one's result */
	uint64_t seq;
	uint64_t window_start;
	struct shadow file;           /* last counts seen in the file */
	uint64_t lost_seen;           /* lost calls at the last window */
	struct vgl_edge *out;         /* this window's edges */
	uint64_t out_cap;             /* bytes mapped at out */
	uint64_t *out_idx;            /* each one's place in the shadow,
	                               * to give a window back that could
	                               * not be written */
	uint64_t idx_cap;             /* bytes mapped at out_idx */
} ivl = {
	.mtx = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

static void *RT anon(uint64_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Forget the counts seen: the next window starts from zero counts. */
static void RT shadow_clear(struct shadow *s)
{
	if (s->v)
		munmap(s->v, s->len);
	s->v = NULL;
	s->len = 0;
}

/* Room for `bytes` of shadow, new bytes zero; 0 or -errno. */
static int RT shadow_fit(struct shadow *s, uint64_t bytes)
{
	void *p;

	if (bytes <= s->len)
		return 0;
	if (bytes > SHADOW_RESERVE)
		return -EFBIG;
	bytes = bytes < (1u << 16) ? (1u << 16) : bytes * 2;
	if (bytes > SHADOW_RESERVE)
		bytes = SHADOW_RESERVE;
	p = s->v ? mremap(s->v, s->len, bytes, MREMAP_MAYMOVE) : anon(bytes);
	if (!p || p == MAP_FAILED)
		return -ENOMEM;
	s->v = p;
	s->len = bytes;
	return 0;
}

/* Grows the mapping *p of *cap bytes to at least `bytes`, keeping its
 * contents; 0 or -ENOMEM (the mapping as it was). */
static int RT buf_fit(void **p, uint64_t *cap, uint64_t bytes)
{
	void *q;

	if (bytes <= *cap)
		return 0;
	bytes = bytes < (1u << 16) ? (1u << 16) : bytes * 2;
	q = *p ? mremap(*p, *cap, bytes, MREMAP_MAYMOVE) : anon(bytes);
	if (!q || q == MAP_FAILED)
		return -ENOMEM;
	*p = q;
	*cap = bytes;
	return 0;
}

/* Room for n of this window's edges, keeping those collected, and for
 * their places in the shadow. */
static int RT out_reserve(uint64_t n)
{
	if (buf_fit((void **)&ivl.out_idx, &ivl.idx_cap,
		    n * sizeof(uint64_t)) < 0)
		return -ENOMEM;
	return buf_fit((void **)&ivl.out, &ivl.out_cap,
		       n * sizeof(struct vgl_edge));
}

/* Appends this window's count of every edge of arena a, up to `used`,
 * to ivl.out. */
static int RT collect(struct rt_arena *a, uint64_t used, struct shadow *s,
		      uint64_t *n)
{
	struct vgl_block *b;
	uint64_t i;

	if (!a->base)
		return 0;
	for (b = arena_at(a, used); b; b = arena_next(a, b, used)) {
		struct vgl_edge *e = (struct vgl_edge *)(b + 1);
		uint64_t cnt, idx;
		int ret;

		if (b->kind != VGL_BLOCK_EDGES)
			continue;
		cnt = __atomic_load_n(&b->count, __ATOMIC_ACQUIRE);
		idx = (uint64_t)((char *)e - a->base) / sizeof(*e);
		ret = shadow_fit(s, (idx + cnt) * sizeof(uint64_t));
		if (ret < 0)
			return ret;
		if (out_reserve(*n + cnt) < 0)
			return -ENOMEM;
		for (i = 0; i < cnt; i++) {
			uint64_t c = __atomic_load_n(&e[i].count,
						     __ATOMIC_RELAXED);
			uint64_t d = c - s->v[idx + i];

			if (!d)
				continue;
			s->v[idx + i] = c;
			ivl.out_idx[*n] = idx + i;
			ivl.out[*n] = e[i];
			ivl.out[*n].count = d;
			(*n)++;
		}
	}
	return 0;
}

/* Padding up to the next 64-byte boundary. */
static const char zeros[64];

static int RT put(int fd, const void *p, uint64_t len)
{
	const char *c = p;

	while (len) {
		ssize_t n = write(fd, c, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		c += n;
		len -= (uint64_t)n;
	}
	return 0;
}

static const struct vgl_section *RT live_section(struct rt *rt, uint32_t kind)
{
	const struct vgl_header *h = (const struct vgl_header *)rt->map;
	const struct vgl_section *s = (const struct vgl_section *)(h + 1);
	uint32_t i;

	for (i = 0; i < h->nsections; i++)
		if (s[i].kind == kind)
			return &s[i];
	return NULL;
}

/*
 * Writes the window file: the live file's META (as a WINDOW) and STRINGS,
 * then an arena with the live file's MODULE blocks and one EDGES block.
 * Says in *collected how many edges it took from the shadow (ivl.out),
 * and in *name_lost whether only its name could not be had.
 * Called with ivl.mtx held.
 */
static int RT write_window_file(struct rt *rt, int final, int status,
				uint64_t *collected, int *name_lost)
{
	const struct vgl_section *str = live_section(rt, VGL_SEC_STRINGS);
	struct {
		struct vgl_header h;
		struct vgl_section s[3];
	} hdr;
	struct vgl_meta meta = *rt->meta;
	struct vgl_arena arena = { 0 };
	struct vgl_block eb = { 0 }, *b;
	uint64_t n = 0, mods = 0, edges_size, total, now = rt_now_ns(), k;
	/* One reading of each arena's size for the whole window: a block
	 * added meanwhile (a dlopen) waits for the next one. */
	uint64_t used = arena_used(&rt->arena), lost, calls = 0;
	char name[RT_PATH_MAX], tmp[RT_PATH_MAX];
	size_t len = strlen(rt->path), stem;
	struct rt_text t;
	struct rlimit rl;
	int fd, hold, ret;

	if (!str)
		return -EINVAL;
	/* Calls counted outside the file (in the overflow arena, or not at
	 * all) are lost calls to the profile, and so to its windows: each
	 * window holds its share of them, never their edges. */
	ret = collect(&rt->arena, used, &ivl.file, &n);
	*collected = n;
	if (ret < 0)
		return ret;
	lost = __atomic_load_n(&rt->meta->lost_calls, __ATOMIC_RELAXED);
	if (rt->overflow.base &&
	    __atomic_load_n(&rt->meta->state, __ATOMIC_ACQUIRE) ==
		    VGL_STATE_RUNNING)
		lost += store_sum_counts(&rt->overflow);
	for (k = 0; k < n; k++)
		calls += ivl.out[k].count;

	for (b = arena_at(&rt->arena, used); b;
	     b = arena_next(&rt->arena, b, used))
		if (b->kind == VGL_BLOCK_MODULE)
			mods += b->size;
	edges_size = (sizeof(eb) + n * sizeof(struct vgl_edge) + 63) & ~63ull;

	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.h.magic, VGL_MAGIC, VGL_MAGIC_LEN);
	hdr.h.version = VGL_VERSION;
	hdr.h.byte_order = VGL_BYTE_ORDER;
	hdr.h.nsections = 3;
	hdr.h.header_size = sizeof(hdr);
	hdr.s[0] = (struct vgl_section){ VGL_SEC_META, 0, sizeof(hdr),
					 sizeof(meta) };
	hdr.s[1] = (struct vgl_section){ VGL_SEC_STRINGS, 0,
					 sizeof(hdr) + sizeof(meta),
					 str->size };
	hdr.s[2].kind = VGL_SEC_ARENA;
	hdr.s[2].offset = (sizeof(hdr) + sizeof(meta) + str->size + 63) & ~63ull;
	arena.used = sizeof(arena) + mods + edges_size;
	hdr.s[2].size = arena.used;
	hdr.h.checksum = vgl_crc32(0, &hdr, sizeof(hdr));
	total = hdr.s[2].offset + arena.used;

	ivl.seq++;
	meta.kind = VGL_KIND_WINDOW;
	meta.state = VGL_STATE_FINISHED;
	meta.exit_status = final ? status : 0;
	meta.end_ns = final ? now : 0;
	meta.window_start_ns = ivl.window_start ? ivl.window_start
						: rt->meta->start_ns;
	meta.window_end_ns = now;
	meta.window_seq = ivl.seq;
	meta.lost_calls = lost - ivl.lost_seen;
	if (meta.lost_calls)
		meta.flags |= VGL_META_INCOMPLETE;
	else
		meta.flags &= ~VGL_META_INCOMPLETE;
	meta.windows = 0;
	meta.windowed_calls = 0;

	eb.kind = VGL_BLOCK_EDGES;
	eb.size = edges_size;
	eb.count = n;

	stem = len > 4 && !strcmp(rt->path + len - 4, ".vgl") ? len - 4 : len;
	rt_text_init(&t, name, sizeof(name));
	rt_text_strn(&t, rt->path, stem);
	rt_text_str(&t, ".w");
	rt_text_u64(&t, ivl.seq, 6);
	rt_text_str(&t, ".vgl");
	if (t.overflow)
		return -ENAMETOOLONG;
	/* Writing past RLIMIT_FSIZE would raise SIGXFSZ and kill the
	 * program; a window that does not fit is not written. */
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    total > rl.rlim_cur)
		return -EFBIG;
	fd = store_create_tmp(name, tmp);
	if (fd < 0)
		return fd;
	ret = put(fd, &hdr, sizeof(hdr));
	if (!ret)
		ret = put(fd, &meta, sizeof(meta));
	if (!ret)
		ret = put(fd, rt->map + str->offset, str->size);
	if (!ret)
		ret = put(fd, zeros,
			  hdr.s[2].offset - (sizeof(hdr) + sizeof(meta) +
					     str->size));
	if (!ret)
		ret = put(fd, &arena, sizeof(arena));
	for (b = arena_at(&rt->arena, used); b && !ret;
	     b = arena_next(&rt->arena, b, used))
		if (b->kind == VGL_BLOCK_MODULE)
			ret = put(fd, b, b->size);
	if (!ret)
		ret = put(fd, &eb, sizeof(eb));
	if (!ret)
		ret = put(fd, ivl.out, n * sizeof(struct vgl_edge));
	if (!ret)
		ret = put(fd, zeros,
			  edges_size - sizeof(eb) - n * sizeof(struct vgl_edge));
	/* The writer's lock (procid.h) stays on the file until it has its
	 * name: a second descriptor of the same open file keeps it across
	 * the close, whose error says whether the bytes were written. */
	hold = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (close(fd) < 0 && !ret)
		ret = -errno;
	if (!ret && rename(tmp, name) < 0) {
		ret = -errno;
		*name_lost = 1;
	}
	if (hold >= 0)
		close(hold);
	if (ret < 0) {
		unlink(tmp);
		return ret;
	}
	ivl.window_start = now;
	ivl.lost_seen = lost;
	__atomic_store_n(&rt->meta->windows, ivl.seq, __ATOMIC_RELAXED);
	__atomic_fetch_add(&rt->meta->windowed_calls, calls + meta.lost_calls,
			   __ATOMIC_RELAXED);
	return 0;
}

/*
 * Writes the next window (above).  One that cannot be written (disk full,
 * RLIMIT_FSIZE, its name taken) loses nothing: its calls are given back to
 * the shadow, so the next window holds them (its start is the failed
 * one's).  It takes the same number, but for a name that could not be
 * had (something another user may have planted there, in a sticky
 * directory, which would block every window after it): that number is
 * skipped.  The last window, at exit, has no next one: its calls are
 * those `vigil show` counts as in no window.
 */
static int RT write_window(struct rt *rt, int final, int status)
{
	uint64_t seq = ivl.seq, n = 0, k;
	int name_lost = 0, ret;

	ret = write_window_file(rt, final, status, &n, &name_lost);
	if (ret < 0) {
		for (k = 0; k < n; k++)
			ivl.file.v[ivl.out_idx[k]] -= ivl.out[k].count;
		if (!name_lost)
			ivl.seq = seq;
	}
	return ret;
}

static uint64_t RT mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1u << 1)
#endif

/*
 * Gives this thread an empty descriptor table of its own (see the top of
 * this file).  Where close_range cannot unshare (Linux before 5.9),
 * unshare(CLONE_FILES) and close the copies of the program's descriptors,
 * which the table then held for a moment.  Returns 0, or -errno with the
 * thread still in the program's table.
 */
static int RT own_descriptors(void)
{
	struct rlimit rl;
	long fd, max = 65536;

	if (syscall(SYS_close_range, 0u, ~0u, CLOSE_RANGE_UNSHARE) == 0)
		return 0;
	if (syscall(SYS_unshare, (long)CLONE_FILES) < 0)
		return -errno;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY &&
	    rl.rlim_max < (1u << 20))
		max = (long)rl.rlim_max;
	else if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		max = 1 << 20;
	for (fd = 0; fd < max; fd++)
		close((int)fd);
	return 0;
}

/*
 * The last window, at exit: the file stops changing first (other threads
 * may count until the process is gone), so that the last window holds
 * exactly the rest.  Called by the thread, with ivl.mtx held.
 */
static void RT write_last(struct rt *rt)
{
	uint64_t mask;
	int ret;

	rt_lock(&mask);
	store_freeze(rt);
	rt_unlock(&mask);
	ret = write_window(rt, 1, ivl.final_status);
	if (ret < 0)
		rt_warn("cannot write the last window snapshot of", rt->path,
			-ret, "the profile itself is kept");
}

static void *RT interval_main(void *arg)
{
	struct rt *rt = arg;
	uint64_t next = mono_ns() + rt->interval_ns;
	struct timespec ts;
	int ret, table;

	/* Named by itself: glibc names another thread by opening its
	 * /proc/self/task/TID/comm, which in the starting thread took a
	 * number of the program's table; its own name is a prctl. */
	pthread_setname_np(pthread_self(), "vigil-interval");
	table = own_descriptors();
	if (!table)
		rt_private_fds_thread(1);
	pthread_mutex_lock(&ivl.mtx);
	if (table < 0) {
		/* Every file it opened would take a number of the program's
		 * table: the lowest free one, which a program that closed 0
		 * counts on its next open() to return (and which the program
		 * may close under the window being written).  So no window
		 * at all, nor the last one at exit. */
		ivl.no_table = 1;
		pthread_cond_broadcast(&ivl.cond);
		pthread_mutex_unlock(&ivl.mtx);
		rt_warn("cannot give the interval thread a descriptor table of "
			"its own for", rt->path, -table,
			"no window snapshots; the profile itself is kept");
		return NULL;
	}
	while (!ivl.stop) {
		if (ivl.asked != ivl.answered) {
			ivl.answer = write_window(rt, 0, 0);
			ivl.answered = ivl.asked;
			pthread_cond_broadcast(&ivl.cond);
			continue;
		}
		ts.tv_sec = (time_t)(next / 1000000000ull);
		ts.tv_nsec = (long)(next % 1000000000ull);
		ret = pthread_cond_timedwait(&ivl.cond, &ivl.mtx, &ts);
		if (ivl.stop)
			break;
		if (ret != ETIMEDOUT || ivl.asked != ivl.answered)
			continue;
		ret = write_window(rt, 0, 0);
		if (ret < 0)
			rt_warn("cannot write a window snapshot of", rt->path,
				-ret, "its calls go into the next one; the "
				"profile itself is kept");
		next += rt->interval_ns;
		if (next < mono_ns())
			next = mono_ns() + rt->interval_ns;
	}
	if (ivl.final) {
		write_last(rt);
		ivl.done = 1;
		pthread_cond_broadcast(&ivl.cond);
	}
	pthread_mutex_unlock(&ivl.mtx);
	return NULL;
}

/* Starts the snapshot thread; called with the runtime's lock held. */
int RT interval_start(struct rt *rt)
{
	pthread_condattr_t ca;
	pthread_attr_t attr;
	struct rlimit rl;
	sigset_t all, old;
	pthread_t th;
	int ret;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ivl.cond, &ca);
	pthread_condattr_destroy(&ca);
	ivl.stop = 0;
	ivl.no_table = 0;
	ivl.final = 0;
	ivl.done = 0;
	ivl.asked = ivl.answered = 0;

	pthread_attr_init(&attr);
	/* The default stack size: glibc carves the program's static TLS out
	 * of it, which can be large.  Under a finite RLIMIT_AS the default
	 * (8 MiB) would be taken from the program: a small stack first, the
	 * default if the static TLS does not fit in it (EINVAL). */
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = EINVAL;
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    pthread_attr_setstacksize(&attr, SMALL_STACK) == 0) {
		ret = pthread_create(&th, &attr, interval_main, rt);
		pthread_attr_destroy(&attr);
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	}
	if (ret == EINVAL)
		ret = pthread_create(&th, &attr, interval_main, rt);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (ret) {
		rt_warn("cannot start the interval thread for", rt->path, ret,
			"no window snapshots; the profile itself is kept");
		return -ret;
	}
	ivl.started = 1;
	return 0;
}

/*
 * At exit: stop the thread at once (it may be in the middle of a window;
 * the lock waits for that, never for the interval), and have it write the
 * last window, so the windows add up to the run's total.  The thread
 * writes it, in its own descriptor table: the exiting thread's is the
 * program's, where the program's other threads may be counting on the
 * numbers they open.  Waits for it (milliseconds; the thread may not
 * have started yet) at most 10 s: never for ever.
 */
void RT interval_stop_and_flush(struct rt *rt, int status)
{
	struct timespec until;

	(void)rt;
	if (!ivl.started)
		return;
	/* Waits for a window being written (milliseconds), but never for
	 * ever: exit() from a signal handler that interrupted this thread's
	 * own vigil_snapshot() would wait for itself. */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2;
	if (pthread_mutex_timedlock(&ivl.mtx, &until) != 0)
		return;
	ivl.stop = 1;
	ivl.started = 0;
	ivl.final = 1;
	ivl.final_status = status;
	pthread_cond_broadcast(&ivl.cond);
	/* The thread's condition variable measures time on CLOCK_MONOTONIC. */
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += 10;
	while (!ivl.done && !ivl.no_table &&
	       pthread_cond_timedwait(&ivl.cond, &ivl.mtx, &until) == 0)
		;
	pthread_mutex_unlock(&ivl.mtx);
}

/*
 * vigil_snapshot: where the thread runs, it writes the window, in its own
 * descriptor table (see the top of this file), and the caller waits for
 * it (at most 10 s; the thread may not have started yet).  Without it (no
 * VIGIL_INTERVAL, or no table of its own) the caller writes the window:
 * its one file takes a number of the program's table for the moment of
 * the call, as any file the program opens.
 */
int RT interval_snapshot(struct rt *rt)
{
	struct timespec until;
	int ret = 1;

	if (rt->no_file)
		return -ENODEV;
	pthread_mutex_lock(&ivl.mtx);
	if (ivl.started && !ivl.no_table && !ivl.stop) {
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += 10;
		ivl.asked++;
		pthread_cond_broadcast(&ivl.cond);
		while (ivl.answered != ivl.asked && !ivl.no_table &&
		       !ivl.stop &&
		       pthread_cond_timedwait(&ivl.cond, &ivl.mtx, &until) == 0)
			;
		if (ivl.answered == ivl.asked) {
			ret = ivl.answer;
		} else {
			ivl.asked = ivl.answered;  /* taken back */
			/* The program is exiting: its last window has the
			 * calls. */
			if (ivl.stop)
				ret = -ENODEV;
		}
	}
	if (ret > 0)
		ret = write_window(rt, 0, 0);
	pthread_mutex_unlock(&ivl.mtx);
	return ret;
}

void RT interval_lock(void)
{
	pthread_mutex_lock(&ivl.mtx);
}

void RT interval_unlock(void)
{
	pthread_mutex_unlock(&ivl.mtx);
}

/*
 * After the counts were zeroed (vigil_reset) or moved to a new file
 * (vigil_set_file, new_file set): the next window starts from zero.  A new
 * file starts its windows at 1; after a reset the numbering goes on, so no
 * window replaces an earlier one.  Called with interval_lock held.
 */
void RT interval_forget(int new_file)
{
	struct vgl_meta *m = vgl_rt.meta;

	shadow_clear(&ivl.file);
	if (new_file) {
		ivl.seq = 0;
		ivl.window_start = 0;
		ivl.lost_seen = 0;
	}
	/* What the windows hold is counted from here on; lost calls (which a
	 * reset keeps) count as held, so that none shows as "in no window". */
	if (m)
		__atomic_store_n(&m->windowed_calls,
				 __atomic_load_n(&m->lost_calls,
						 __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
}

/* In a fork child, inside fork(): the parent's thread is gone, and the
 * counts start from zero once the child has a file of its own, where the
 * thread is started again (never here: no thread is created inside the
 * fork child's handler). */
void RT interval_after_fork(struct rt *rt)
{
	(void)rt;
	pthread_mutex_init(&ivl.mtx, NULL);
	ivl.started = 0;
	ivl.stop = 0;
	ivl.no_table = 0;
	ivl.final = 0;
	ivl.done = 0;
	ivl.asked = ivl.answered = 0;
	rt_private_fds_thread(0);
	shadow_clear(&ivl.file);
	ivl.seq = 0;
	ivl.window_start = 0;
}
