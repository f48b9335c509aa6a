/*
 * thread.h - the runtime's thread states (thread.c), and this thread's
 * words of static TLS, which both hooks read first (hooks.c, fentry.S).
 * A floor of the runtime: it calls nothing above it (unload.c only).
 */
#ifndef VGL_RT_THREAD_H
#define VGL_RT_THREAD_H

#include <pthread.h>
#include <stdint.h>

#include "state.h"

#define HIDDEN __attribute__((visibility("hidden")))

struct rt_thread {
	uint64_t *slots;           /* slots[-1] holds the shift (the size) */
	uint64_t used;             /* entries in the index */
	struct vgl_block *blk;     /* block new edges are appended to */
	uint64_t blk_cap;          /* edges that fit in blk */
	uint64_t blk_size;         /* bytes of blk, to size the next one */
	struct rt_thread *next;    /* on the free list, once its thread ended */
	struct rt_thread *all;     /* every state ever made, for purges */
	uint32_t tid;
	uint32_t pid;              /* the process whose index `slots` is: a
	                            * fork child rebuilds it before writing */
	struct vgl_block **blocks; /* every block of edges it appended to */
	uint64_t nblocks, blocks_cap;
	struct rt_ent *ents;       /* __fentry__'s table (fentry.S) */
	uint64_t ents_used;
	unsigned ents_first;       /* the bits of its first table */
	int keyed;                 /* thread_key's value in its thread */
};

/*
 * Entry tables: __fentry__'s index (fentry.S), one per thread beside the
 * enter hook's.  Keyed on the raw return addresses (R into the callee,
 * site into the caller), so that its fast path computes no callee start;
 * each entry leads to the same edge record, keyed (callee start, site),
 * that the enter hook counts into, so both hooks count one edge once and
 * a process that mixes them (an entry-mode program that dlopens an
 * enter/exit plugin) keeps one record per edge.  The same rules as the
 * index: private memory marked MADV_WIPEONFORK, never unmapped, entries
 * published key last, and a table only ever replaced by a larger one
 * while a hook of its thread may be probing it (the fast path reads the
 * mask before the base).
 */
struct rt_ent {
	uint64_t key;              /* R; ENT_EMPTY, ENT_DEAD, or ENT_WRAP */
	uint64_t site;
	struct vgl_edge *edge;     /* ENT_WRAP: the table's first entry */
	uint64_t pad;
};

#define ENT_EMPTY 0u
#define ENT_DEAD 1u
#define ENT_WRAP 2u

/*
 * This thread's words of static TLS, one block.  fentry.S reads the first
 * two: the mask of a home entry's half-offset, then the table's base, as
 * half its distance from this block (so that it addresses entries
 * %fs-relative, block + 2 * (base + half-offset), with no register for the
 * thread pointer; the doubling makes bits 4 and up of the hash the home,
 * see fentry.S).  All
 * zero is a valid state: before the loader initialises TLS (an
 * instrumented IFUNC resolver of a dynamic program, run during
 * relocation) and in a thread that has no table yet, the home "entry" is
 * this block itself, whose key (the mask, 0) is empty and whose next key
 * (in_slow, at the next entry's offset) is 0 or 1, never a return
 * address: the call goes to the slow path.
 */
struct rt_ent_tls {
	uint64_t mask;             /* in half entries (ent_mask) */
	uint64_t base;             /* (table - &vgl_ent_tls) / 2 (ent_base) */
	uint64_t *slots;           /* the enter hook's index */
	struct rt_thread *self;    /* this thread's state */
	/* Set while this thread is in the slow path: a hook that a libc
	 * function called from there runs (an instrumented malloc, say)
	 * counts as lost instead of waiting for the lock its own thread
	 * holds. */
	uint64_t in_slow;
};

/* fentry.S relies on this layout for the all-zero state. */
_Static_assert(__builtin_offsetof(struct rt_ent_tls, mask) == 0 &&
		       __builtin_offsetof(struct rt_ent_tls, base) == 8 &&
		       __builtin_offsetof(struct rt_ent_tls, in_slow) ==
			       sizeof(struct rt_ent),
	       "struct rt_ent_tls: fentry.S's layout");

/* An empty slot leads to the header's first word; a purged one to its
 * second: like an empty one no call matches it (its callee is 0 too), but
 * a probe goes on past it, to the edges placed after it. */
#define SLOT_EMPTY 0u
#define SLOT_DEAD 8u
#define HEADER_WORDS 4
/* The word after the last slot: zero in a fork child's wiped copy. */
#define CANARY 0x76696769ull

/* The index of a thread that has no state yet: two slots (a shift of 32
 * would be no shift at all on a 32-bit word), both empty. */
struct rt_empty_index {
	uint64_t header[HEADER_WORDS];
	uint64_t slot[2];
};
extern struct rt_empty_index thread_empty_index HIDDEN;

#define EMPTY_SLOTS (thread_empty_index.slot)

/* Whether madvise(MADV_WIPEONFORK) worked (Linux 4.14 on); if not, the
 * slow path asks for the pid each time instead. */
extern int thread_wipe_fails HIDDEN;

extern __thread struct rt_ent_tls vgl_ent_tls HIDDEN;

#define vgl_slots (vgl_ent_tls.slots)
#define vgl_self (vgl_ent_tls.self)
#define vgl_in_slow (vgl_ent_tls.in_slow)

/* Made by rt_ensure_init, which may come after a thread's first slow
 * call (its state is made first): until thread_key_made is set,
 * thread_key is no key of ours (0 is whatever key the program made
 * first), and no state is stored under it (slow_count, thread_keep). */
extern pthread_key_t thread_key HIDDEN;
extern int thread_key_made HIDDEN;

/* Calls made before TLS could be used (IFUNC resolvers). */
extern uint64_t thread_skipped HIDDEN;

/* A call made before TLS could be used: skipped, and tallied. */
static inline void RT count_skipped(void)
{
	__atomic_fetch_add(&thread_skipped, 1, __ATOMIC_RELAXED);
}

/* Every state, pushed once when made (fork children inherit the list). */
extern struct rt_thread *thread_all HIDDEN;

#define PAGE 4096u

void *map_anon(size_t len);
uint64_t *index_alloc(unsigned bits);
struct rt_thread *thread_new(void);

/*
 * Stores t under the runtime's key, so that its destructor gives t back
 * when the thread ends.  Once the key exists (never before: a thread's
 * state is made before the runtime is set up, and thread_key is then
 * whatever key 0 is, maybe another library's, issue 28 point 11).
 * Without the lock: pthread_setspecific may allocate the key's page.
 */
static inline void RT thread_keep(struct rt_thread *t)
{
	if (t && !t->keyed &&
	    __atomic_load_n(&thread_key_made, __ATOMIC_ACQUIRE) &&
	    pthread_setspecific(thread_key, t) == 0)
		t->keyed = 1;
}

int thread_key_init(void);
int thread_shares_parent_vm(void);   /* a vfork child: see thread.c */
uint64_t thread_skipped_calls(void);
void thread_after_fork_child(void);
void thread_detach_index(void);

#endif
