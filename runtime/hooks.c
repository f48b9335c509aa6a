/*
 * hooks.c - __cyg_profile_func_enter/exit: count one call edge.
 *
 * Tuned for the case that matters: an edge this thread has seen before.
 * Then the hook does one thread-local load, one multiply, one probe of the
 * thread's private index and one increment of the edge's count, which
 * lives in the profile file's shared mapping.  No lock, no atomic
 * read-modify-write, no system call, no allocation, and no cache line that
 * another thread writes: every thread counts into its own edge records,
 * and readers add the threads up.  Everything else (the first call of the
 * process, of a thread, or of an edge) goes to the slow path, which takes
 * the runtime's lock.
 *
 * The index is open addressing over pointers to edge records; an empty
 * slot points at a sentinel record whose keys no real call has (a callee
 * address is never 0), so the probe needs no NULL test before comparing.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "rt.h"

#define HOT __attribute__((no_instrument_function, visibility("default")))
#define RT __attribute__((no_instrument_function))

struct rt_thread {
	struct vgl_edge **slots;   /* 1 << bits entries */
	uint64_t mask;
	uint64_t used;             /* entries in the index */
	struct vgl_block *blk;     /* block new edges are appended to */
	uint64_t blk_cap;          /* edges that fit in blk */
	uint64_t blk_size;         /* bytes of blk, to size the next one */
	struct rt_thread *next;    /* on the free list, once its thread ended */
	uint32_t tid;
};

/*
 * What the hot path reads, in the thread's TLS block itself: in an
 * executable each field is one %fs-relative operand.  A thread that has not
 * started yet sees a one-slot index holding only the sentinel, so its first
 * call misses and takes the slow path without a test of its own.
 */
struct rt_tls {
	struct vgl_edge **slots;
	uint64_t mask;
};

static struct vgl_edge empty_edge;
static struct vgl_edge *const empty_slots[1] = { &empty_edge };

static __thread struct rt_tls vgl_tls = {
	(struct vgl_edge **)empty_slots, 0
};
static __thread struct rt_thread *vgl_self;

/* Set while this thread is in the slow path: a hook re-entered from a
 * signal handler then must not touch the index half-way through a change,
 * and defers its call to vgl_pending instead. */
static __thread int vgl_busy;

/* Calls that signal handlers can make during one slow path (every call
 * then defers, known edges too); more are tallied as lost. */
#define PENDING 64
static __thread struct {
	uintptr_t fn, site;
} vgl_pending[PENDING];
static __thread unsigned vgl_npending;

static pthread_key_t thread_key;

/*
 * Points this thread's hooks at the empty index, so that a hook run by a
 * signal handler misses and goes to the slow path.  The mask goes first:
 * a handler between the two stores then probes slot 0 of whichever array
 * it sees, which both have.
 */
static void RT tls_empty(void)
{
	vgl_tls.mask = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	vgl_tls.slots = (struct vgl_edge **)empty_slots;
}

/* The reverse: the array first, then the mask that indexes into it. */
static void RT tls_index(const struct rt_thread *t)
{
	vgl_tls.slots = t->slots;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	vgl_tls.mask = t->mask;
}

#define FIRST_BITS 8
#define FIRST_BLOCK 1024u
#define MAX_BLOCK 65536u

/*
 * A shift and an xor of hashing: call sites are distinct addresses, and
 * xoring in the callee separates the callees of one indirect call.  The
 * callee is shifted past the four low bits that function alignment keeps
 * zero, else sixteen callees 64 bytes apart would share four slots of a
 * 256-slot index.  Collisions only cost a probe; a multiply would cost
 * every call.
 */
static inline uint64_t RT edge_slot(uintptr_t fn, uintptr_t site,
				    uint64_t mask)
{
	return ((fn >> 4) ^ site) & mask;
}

/*
 * One increment.  On x86-64 it is a single instruction, so a signal
 * handler on this thread that counts the same edge cannot fall between a
 * load and a store; no other thread writes this count, so it needs no lock
 * prefix.
 */
static inline void RT count_inc(struct vgl_edge *e)
{
#if defined(__x86_64__)
	__asm__ volatile("addq $1, %0" : "+m"(e->count));
#else
	e->count++;
#endif
}

void HOT __cyg_profile_func_enter(void *this_fn, void *call_site)
{
	uintptr_t fn = (uintptr_t)this_fn, site = (uintptr_t)call_site;
	struct vgl_edge **slots = vgl_tls.slots;
	uint64_t mask = vgl_tls.mask, i = edge_slot(fn, site, mask);

	for (;;) {
		struct vgl_edge *e = slots[i];

		if (__builtin_expect(e->site == site && e->callee == fn, 1)) {
			count_inc(e);
			return;
		}
		if (e == &empty_edge)
			break;
		i = (i + 1) & mask;
	}
	thread_slow_enter(fn, site);
}

/* Edges are counted on entry; the exit hook exists because the compiler
 * calls it, and costs a call and a return. */
void HOT __cyg_profile_func_exit(void *this_fn, void *call_site)
{
	(void)this_fn;
	(void)call_site;
}

static void *RT map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int RT index_alloc(struct rt_thread *t, unsigned bits)
{
	uint64_t n = 1ull << bits, i;
	struct vgl_edge **s = map_anon(n * sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		s[i] = &empty_edge;
	t->slots = s;
	t->mask = n - 1;
	return 0;
}

static void RT index_put(struct rt_thread *t, struct vgl_edge *e)
{
	uint64_t i = edge_slot(e->callee, e->site, t->mask);

	while (t->slots[i] != &empty_edge)
		i = (i + 1) & t->mask;
	t->slots[i] = e;
}

/* Doubles the index once it is half full, keeping probes short. */
static int RT index_grow(struct rt_thread *t)
{
	struct vgl_edge **old = t->slots;
	uint64_t n = t->mask + 1, i;
	unsigned bits = (unsigned)__builtin_ctzll(n);

	if (index_alloc(t, bits + 1) < 0)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (old[i] != &empty_edge)
			index_put(t, old[i]);
	munmap(old, n * sizeof(*old));
	return 0;
}

static struct vgl_edge *RT index_find(struct rt_thread *t, uintptr_t fn,
				      uintptr_t site)
{
	uint64_t i = edge_slot(fn, site, t->mask);

	for (;; i = (i + 1) & t->mask) {
		struct vgl_edge *e = t->slots[i];

		if (e == &empty_edge)
			return NULL;
		if (e->callee == fn && e->site == site)
			return e;
	}
}

/*
 * States of ended threads, for new threads to take over: index, blocks
 * and counts.  Counts are added up by readers anyway, so a thread that
 * goes on counting into an ended one's records changes no total, and a
 * program that runs a million short threads needs a file the size of its
 * busiest moment, not of its history.  Guarded by vgl_rt.lock.
 */
static struct rt_thread *free_threads;

/* The pthread key's destructor: the thread is ending. */
static void RT thread_free(void *arg)
{
	struct rt_thread *t = arg;

	/* The thread may run instrumented code in later destructors; it then
	 * starts with another state: this one is no longer its own. */
	vgl_self = NULL;
	rt_lock();
	t->next = free_threads;
	free_threads = t;
	rt_unlock();
}

/* Is this thread inside the slow path (a signal handler interrupted it)? */
int RT thread_in_slow_path(void)
{
	return vgl_busy;
}

/*
 * Takes the runtime's lock outside the slow path (fork, vigil_reset,
 * vigil_set_file).  Meanwhile this thread counts as busy: a hook that a
 * signal handler runs on it defers its call instead of waiting for the
 * lock its own thread holds.
 */
void RT rt_lock(void)
{
	vgl_busy = 1;
	tls_empty();
	pthread_mutex_lock(&vgl_rt.lock);
}

/* Releases it, then counts the calls deferred meanwhile. */
void RT rt_unlock(void)
{
	pthread_mutex_unlock(&vgl_rt.lock);
	rt_unbusy();
}

/* Leaves the busy state that rt_lock entered (also in a fork child, whose
 * lock was re-initialised instead of released). */
void RT rt_unbusy(void)
{
	/* A runtime turned off meanwhile (a fork child that could not get
	 * a file of its own) leaves the index empty: nothing counts. */
	if (vgl_self && vgl_rt.state != RT_OFF)
		tls_index(vgl_self);
	vgl_busy = 0;
	if (__atomic_load_n(&vgl_npending, __ATOMIC_RELAXED))
		thread_slow_enter(0, 0);
}

int RT thread_key_init(void)
{
	return -pthread_key_create(&thread_key, thread_free);
}

/* Called with vgl_rt.lock held. */
static int RT block_new(struct rt_thread *t)
{
	uint64_t size = t->blk_size ? t->blk_size * 2 : FIRST_BLOCK;
	struct vgl_block *b;

	if (size > MAX_BLOCK)
		size = MAX_BLOCK;
	b = store_alloc_block(&vgl_rt, VGL_BLOCK_EDGES, t->tid, size, NULL, 0);
	if (!b)
		return -ENOMEM;
	t->blk = b;
	t->blk_size = size;
	t->blk_cap = (size - sizeof(*b)) / sizeof(struct vgl_edge);
	return 0;
}

/* A state for this thread: an ended thread's, or a new one.  Called with
 * vgl_rt.lock held. */
static struct rt_thread *RT thread_new(void)
{
	struct rt_thread *t = free_threads;

	if (t) {
		free_threads = t->next;
	} else {
		t = map_anon(sizeof(*t));
		if (!t)
			return NULL;
		if (index_alloc(t, FIRST_BITS) < 0) {
			munmap(t, sizeof(*t));
			return NULL;
		}
	}
	t->next = NULL;
	/* Blocks this thread adds are marked with its id. */
	t->tid = (uint32_t)syscall(SYS_gettid);
	pthread_setspecific(thread_key, t);
	return t;
}

/* Appends the edge to the thread's block; called with vgl_rt.lock held.
 * The record is complete before the block's count covers it, so a reader
 * in another process never sees half an edge. */
static struct vgl_edge *RT edge_new(struct rt_thread *t, uintptr_t fn,
				    uintptr_t site)
{
	struct vgl_edge *e;

	if ((t->used + 1) * 2 > t->mask + 1 && index_grow(t) < 0)
		return NULL;
	if ((!t->blk || t->blk->count == t->blk_cap) && block_new(t) < 0)
		return NULL;
	e = (struct vgl_edge *)(t->blk + 1) + t->blk->count;
	e->callee = fn;
	e->site = site;
	e->count = 0;
	e->callee_mod = module_of(&vgl_rt, fn);
	e->site_mod = module_of(&vgl_rt, site);
	__atomic_store_n(&t->blk->count, t->blk->count + 1, __ATOMIC_RELEASE);
	index_put(t, e);
	t->used++;
	return e;
}

static void RT count_lost(void)
{
	struct vgl_meta *m = vgl_rt.meta;

	if (m) {
		__atomic_fetch_add(&m->lost_calls, 1, __ATOMIC_RELAXED);
		__atomic_fetch_or(&m->flags, VGL_META_INCOMPLETE,
				  __ATOMIC_RELAXED);
	}
}

/*
 * A hook entered from a signal handler while this thread is in the slow
 * path: the index may be half-way through a change, and the lock may be
 * this thread's own.  The call is noted here, for the slow path to count
 * before it returns, so it is counted exactly.  Handlers nest like a
 * stack, so a nested one finishes before the code it interrupted goes on;
 * the fetch-and-add only keeps nested handlers off each other's slots.
 */
static void RT defer(uintptr_t fn, uintptr_t site)
{
	unsigned i = __atomic_fetch_add(&vgl_npending, 1, __ATOMIC_RELAXED);

	if (i < PENDING) {
		vgl_pending[i].fn = fn;
		vgl_pending[i].site = site;
		return;
	}
	__atomic_fetch_sub(&vgl_npending, 1, __ATOMIC_RELAXED);
	count_lost();
}

static int RT pop_deferred(uintptr_t *fn, uintptr_t *site)
{
	unsigned n = __atomic_load_n(&vgl_npending, __ATOMIC_RELAXED);

	/* A handler may push while we take the top: then retry. */
	while (n) {
		*fn = vgl_pending[n - 1].fn;
		*site = vgl_pending[n - 1].site;
		if (__atomic_compare_exchange_n(&vgl_npending, &n, n - 1, 0,
						__ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return 1;
	}
	return 0;
}

/* Counts one call from the slow path; called with vgl_rt.lock held. */
static void RT count_slow(struct rt_thread **t, uintptr_t fn, uintptr_t site)
{
	struct vgl_edge *e = NULL;

	if (!*t)
		*t = thread_new();
	if (*t && !(e = index_find(*t, fn, site)))
		e = edge_new(*t, fn, site);
	if (e)
		count_inc(e);
	else
		count_lost();
}

/*
 * The first call of the process, of this thread, or of this edge, and the
 * calls signal handlers made meanwhile.  Saves errno, and counts every
 * call exactly unless no memory at all can be had (then it tallies it in
 * META.lost_calls).
 */
void RT thread_slow_enter(uintptr_t fn, uintptr_t site)
{
	int saved_errno = errno;
	struct rt_thread *t = vgl_self;

	if (vgl_busy) {
		defer(fn, site);
		goto out;
	}
	/* A runtime that could not start costs a load, not a lock. */
	if (__atomic_load_n(&vgl_rt.state, __ATOMIC_RELAXED) == RT_OFF)
		goto out;
	do {
		vgl_busy = 1;
		/* Until the index is whole again, nested hooks miss and
		 * come here, to be deferred. */
		tls_empty();

		pthread_mutex_lock(&vgl_rt.lock);
		if (rt_ensure_init() < 0) {
			pthread_mutex_unlock(&vgl_rt.lock);
			vgl_npending = 0;
			vgl_busy = 0;
			goto out;
		}
		if (fn) {
			count_slow(&t, fn, site);
			fn = 0;
		}
		while (pop_deferred(&fn, &site))
			count_slow(&t, fn, site);
		fn = 0;
		pthread_mutex_unlock(&vgl_rt.lock);

		vgl_self = t;
		if (t && vgl_rt.state != RT_OFF)
			tls_index(t);
		vgl_busy = 0;
		/* A handler that came after the last pop deferred its call. */
	} while (__atomic_load_n(&vgl_npending, __ATOMIC_RELAXED));
out:
	errno = saved_errno;
}
