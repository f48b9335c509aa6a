/*
 * thread.c - the runtime's thread states: made for a thread at its first
 * call, kept under a pthread key, given back when the thread ends and
 * taken over by the next thread that starts; this thread's words of
 * static TLS; the probe that tells a vfork child; what a fork child
 * makes anew.  Each state's index and entry table are filled by hooks.c
 * (the top of that file says why they are laid out as they are).
 *
 * A floor of the runtime: it calls nothing above it (unload.c only), so
 * that the runtime's life (init.c) may make a fork child's threads anew
 * and hooks.c may find its state without a circle.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "state.h"
#include "thread.h"
#include "unload.h"

/* Each variable's contract is beside its declaration, in thread.h. */
struct rt_empty_index thread_empty_index = { { 0, 0, 0, 31 },
					      { SLOT_EMPTY, SLOT_EMPTY } };

int thread_wipe_fails;

/* Five words of static TLS (struct rt_ent_tls).  A plugin that brings
 * libvigil.so takes no more of the static TLS block that later dlopens of
 * initial-exec libraries need. */
__thread struct rt_ent_tls vgl_ent_tls
	__attribute__((visibility("hidden"))) = { .slots = EMPTY_SLOTS };

pthread_key_t thread_key;
int thread_key_made;

uint64_t thread_skipped;

uint64_t RT thread_skipped_calls(void)
{
	return __atomic_load_n(&thread_skipped, __ATOMIC_RELAXED);
}

/*
 * The first sizes of a thread's index and entry table.  Each doubling
 * rehashes the whole table under the lock: started at 256 entries, Lua's
 * bench.lua (1,059 edges, one thread) grew both four times, 155
 * instructions per new edge.  The first thread state of a process (the
 * main thread, mostly) starts where both hold 2,047 edges (an index of
 * 4,096 slots, 32 KiB, half full; an entry table of 8,192 entries, 256
 * KiB, a quarter full): pages that no entry lands on are never touched,
 * so a small program pays for the pages its edges hash to, at most one
 * each.  Other threads start small, for programs that run thousands at
 * once.
 */
#define FIRST_BITS 8
#define MAIN_FIRST_BITS 12
#define MAIN_ENT_FIRST_BITS 13
#define ENT_FIRST_BITS 8

void *RT map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * An index of 1 << bits empty slots: a page whose last words are the
 * header, then the slots and the canary, marked MADV_WIPEONFORK (see the
 * top of hooks.c).  Fresh anonymous memory is zero: every slot empty.
 */
uint64_t *RT index_alloc(unsigned bits)
{
	uint64_t n = 1ull << bits;
	uint64_t bytes = ((n + 1) * sizeof(uint64_t) + PAGE - 1) & ~(uint64_t)(PAGE - 1);
	char *p = mmap(NULL, PAGE + bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t *s;

	if (p == MAP_FAILED)
		return NULL;
	s = (uint64_t *)(p + PAGE);
	s[-1] = 32 - bits;
	if (madvise(s, bytes, MADV_WIPEONFORK) < 0)
		__atomic_store_n(&thread_wipe_fails, 1, __ATOMIC_RELAXED);
	s[n] = CANARY;
	return s;
}

/*
 * States of ended threads, for new threads to take over: index, blocks
 * and counts.  Counts are added up by readers anyway, so a thread that
 * goes on counting into an ended one's records changes no total, and a
 * program that runs a million short threads needs a file the size of its
 * busiest moment, not of its history.  A lock-free stack: pushed by
 * ending threads, taken whole by a starting thread, which keeps one and
 * pushes the rest back (only pushes compete, so there is no ABA).
 */
static struct rt_thread *free_threads;
/* Every state, pushed once when made (fork children inherit the list). */
struct rt_thread *thread_all;
/* States made: the first gets larger tables (MAIN_FIRST_BITS). */
static int states_made;

static void RT free_push(struct rt_thread *first, struct rt_thread *last)
{
	struct rt_thread *head = __atomic_load_n(&free_threads,
						 __ATOMIC_RELAXED);

	do
		last->next = head;
	while (!__atomic_compare_exchange_n(&free_threads, &head, first, 1,
					    __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED));
}

/* The pthread key's destructor: the thread is ending. */
static void RT thread_free(void *arg)
{
	struct rt_thread *t = arg;

	/* The thread may run instrumented code in later destructors; it then
	 * starts with another state: this one is no longer its own. */
	vgl_self = NULL;
	vgl_slots = EMPTY_SLOTS;
	/* The mask first (see ent_publish, hooks.c), read by the fast path
	 * first: a mask of 0 leads to the old table's first entry, then to
	 * this block (see struct rt_ent_tls). */
	__atomic_store_n(&vgl_ent_tls.mask, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&vgl_ent_tls.base, 0, __ATOMIC_RELEASE);
	free_push(t, t);
}

/*
 * A word on a page of its own, marked MADV_WIPEONFORK, 1 from the
 * runtime's start: a child that the kernel made with a copy of this
 * process's memory (fork, _Fork, a raw clone) reads 0 there; a vfork
 * child (any CLONE_VM child), which shares it, reads 1.  NULL where the
 * kernel cannot wipe (then every child is taken for a copy).
 */
static uint64_t *vm_probe;

static void RT vm_probe_init(void)
{
	uint64_t *p = map_anon(PAGE);

	if (!p)
		return;
	if (madvise(p, PAGE, MADV_WIPEONFORK) < 0) {
		munmap(p, PAGE);
		return;
	}
	*p = 1;
	__atomic_store_n(&vm_probe, p, __ATOMIC_RELEASE);
}

/*
 * Whether this process shares its memory, and so the runtime's state,
 * with the one that started the runtime: a vfork child, before it execs
 * or exits (issue 28, point 13).  It must not take that state over as a
 * fork child's own (rt_check_fork): the parent, when its thread resumes,
 * found its file left cut short and its later calls in a file named
 * after the child.  Its calls count into its parent's file instead, in
 * the records of the parent's thread that called vfork, which waits.
 */
int RT thread_shares_parent_vm(void)
{
	uint64_t *p = __atomic_load_n(&vm_probe, __ATOMIC_ACQUIRE);

	return p && __atomic_load_n(p, __ATOMIC_RELAXED);
}

int RT thread_key_init(void)
{
	int err = pthread_key_create(&thread_key, thread_free);

	if (err)
		return -err;
	__atomic_store_n(&thread_key_made, 1, __ATOMIC_RELEASE);
	vm_probe_init();
	return 0;
}


/* A state for this thread: an ended thread's, or a new one. */
struct rt_thread *RT thread_new(void)
{
	struct rt_thread *t = __atomic_exchange_n(&free_threads, NULL,
						  __ATOMIC_ACQUIRE);

	if (t) {
		struct rt_thread *rest = t->next, *last = rest;

		if (rest) {
			while (last->next)
				last = last->next;
			free_push(rest, last);
		}
	} else {
		int first = !__atomic_fetch_add(&states_made, 1,
						__ATOMIC_RELAXED);

		t = map_anon(sizeof(*t));
		if (!t)
			return NULL;
		t->slots = index_alloc(first ? MAIN_FIRST_BITS : FIRST_BITS);
		t->ents_first = first ? MAIN_ENT_FIRST_BITS : ENT_FIRST_BITS;
		if (!t->slots) {
			munmap(t, sizeof(*t));
			return NULL;
		}
		/* Before the runtime is set up, vgl_rt.pid is not yet. */
		t->pid = (uint32_t)getpid();
		t->all = __atomic_load_n(&thread_all, __ATOMIC_RELAXED);
		while (!__atomic_compare_exchange_n(&thread_all, &t->all, t,
						    1, __ATOMIC_RELEASE,
						    __ATOMIC_RELAXED))
			;
	}
	t->next = NULL;
	/* Stored under the key by the slow path, once the key exists. */
	t->keyed = 0;
	/* Blocks this thread adds are marked with its id. */
	t->tid = (uint32_t)syscall(SYS_gettid);
	return t;
}

/* In a fork child: the thread that forked is the only one, holding the
 * lock as its parent took it; its state goes on being its own. */
void RT thread_after_fork_child(void)
{
	__atomic_store_n(&vgl_rt.lock, 0, __ATOMIC_RELAXED);
	vgl_in_slow = 0;
	vgl_rt.pid = (uint32_t)syscall(SYS_getpid);
	if (vgl_self)
		vgl_self->tid = (uint32_t)syscall(SYS_gettid);
	/* Wiped by the copy: this process's own vfork children read 1. */
	if (vm_probe)
		*vm_probe = 1;
	unload_after_fork_child();
}

/* Points this thread's hooks at the empty index, so that its next call
 * takes the slow path (a fork child that has no file of its own yet). */
void RT thread_detach_index(void)
{
	__atomic_store_n(&vgl_slots, EMPTY_SLOTS, __ATOMIC_RELEASE);
}
