/*
 * hooks.c - __cyg_profile_func_enter/exit: count one call edge.
 *
 * Tuned for the case that matters: an edge this thread has seen before.
 * Then the hook reads one thread-local word (this thread's index), the
 * index's size beside it, hashes (callee, site) with two multiplies, probes
 * the index and increments the edge's count, which lives in the profile
 * file's shared mapping.  No lock, no atomic read-modify-write, no system
 * call, no allocation, and no cache line that another thread writes: every
 * thread counts into its own edge records, and readers add the threads up.
 * Everything else (the first call of the process, of a thread, or of an
 * edge) goes to the slow path.
 *
 * The index is open addressing over edge records, each slot holding the
 * record's distance in bytes from the index's header: four words before
 * slot 0, {0, 0, 0, shift}.  An empty slot is 0, so it leads to the header,
 * whose keys no real call has (a callee address is never 0): the probe
 * needs no test before comparing, and the address sum is folded into the
 * compare's addressing mode, so it costs what a pointer did.  The header
 * carries the index's size (its last word), and an array is never
 * unmapped once a hook may have loaded it: a signal handler that
 * interrupts a probe and grows the index leaves the interrupted probe
 * reading a whole, consistent (if older) array.
 *
 * Why zero is empty: the slots are private memory marked
 * MADV_WIPEONFORK (the header is on a page of its own, kept), so a child
 * that the kernel made without fork's handlers (_Fork, a raw clone) finds
 * every index empty, and its first call of any edge takes the slow path,
 * which sees its new pid and gives it a file of its own: it never counts
 * into its parent's file, and the known-edge path pays nothing for that.
 * A fork child, which must count on from its parent's edge records, finds
 * them through each thread state's list of blocks (index_own).  Fork
 * copies no page of the slots either (it did not when they were shared
 * memory, which they were for that reason).
 *
 * The slow path runs with every signal blocked.  A handler can then never
 * interrupt it half-way, nor siglongjmp out of it leaving its lock held, nor
 * fork or exit inside it: what it holds is always released.  That costs
 * two system calls per new edge, never per known one.
 *
 * The exported hook jumps through a pointer that starts at enter_early: an
 * instrumented IFUNC resolver runs during relocation, before TLS exists
 * (static) or is initialised (dynamic), where reading TLS would crash.
 * Such calls are skipped and tallied; the first call that finds TLS usable
 * switches the pointer to enter_hot.
 *
 * The exported hook is itself an IFUNC, for one reason: the loader then
 * calls its resolver whenever it binds an object's calls to the hook
 * (while dlopen relocates the object, or at its first call through its
 * PLT), which is always before that object's first counted call.  An
 * object dlclosed before may have left edges with the very addresses the
 * new one will use (a plugin reloaded where it was); the resolver points
 * the hook at enter_check, whose one look at the loader drops the edges of
 * unloaded objects from every index before the call is counted.  The
 * executable's own calls skip the resolver's PLT slot through the linker's
 * --wrap (see vigil.pc): they cost what they did.
 */
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "hooks.h"
#include "init.h"
#include "lock.h"
#include "module.h"
#include "ondemand.h"
#include "state.h"
#include "store.h"
#include "thread.h"
#include "unload.h"

#define HOT __attribute__((no_instrument_function, visibility("default")))

/* fentry.S's entry points and the pointer its exported hook jumps through
 * (early, hot or check, as enter_fn). */
extern char __wrap___fentry__[], vgl_fentry_hot[], vgl_fentry_early[],
	vgl_fentry_check[];
void *vgl_fentry_fn __attribute__((visibility("hidden"))) = vgl_fentry_early;

static void RT enter_early(uintptr_t fn, uintptr_t site);
static void RT enter_hot(uintptr_t fn, uintptr_t site);
static void RT enter_check(uintptr_t fn, uintptr_t site);

static void (*enter_fn)(uintptr_t, uintptr_t) = enter_early;
/* Times the loader bound an object's calls to the hook. */
static uint64_t binds;

#define FIRST_BLOCK 1024u
#define MAX_BLOCK 65536u

/*
 * The home slot of an edge: the key folded into one word (the site times
 * an odd constant, xored with the callee), then Knuth's multiplicative
 * hashing of its low 32 bits: times 2^32 / phi, the slot number taken from
 * the top bits of the 32-bit product, which depend on every bit below
 * them.  The former hash, ((fn >> 4) ^ site) & mask, used low bits only:
 * 100,000 edges from a few sites had 13,968 distinct home slots and about
 * 44,000 probes per insert.  Top bits of a 64-bit product would need a
 * 64-bit constant (one more instruction); this costs what the old hash
 * did: two multiplies, an xor and a shift against a move, a shift, an xor
 * and an and.  Keys that differ only above bit 31 of both addresses share a
 * home slot, which costs a probe.
 */
static inline uint64_t RT edge_slot(uintptr_t fn, uintptr_t site,
				    uint64_t shift)
{
	uint32_t h = (uint32_t)((uint64_t)site * 0x68e31da5ull ^ (uint64_t)fn) *
		     0x9e3779b1u;

	return h >> shift;
}

/* The word before slot 0 holds 32 - log2(slots): the shift that takes a
 * hash's top bits as a slot number. */
static inline uint64_t RT index_shift(uint64_t *slots)
{
	return slots[-1];
}

static inline uint64_t RT index_size(uint64_t *slots)
{
	return 1ull << (32 - index_shift(slots));
}

/* The edge record a slot's value leads to (the header for 0 and 8). */
static inline struct vgl_edge *RT slot_edge(uint64_t *slots, uint64_t v)
{
	return (struct vgl_edge *)((char *)(slots - HEADER_WORDS) + v);
}

static inline uint64_t RT slot_value(uint64_t *slots, struct vgl_edge *e)
{
	return (uint64_t)((char *)e - (char *)(slots - HEADER_WORDS));
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
	__atomic_store_n(&e->count, e->count + 1, __ATOMIC_RELAXED);
#endif
}

static inline void RT count_inc_at(uint64_t *count)
{
#if defined(__x86_64__)
	__asm__ volatile("addq $1, %0" : "+m"(*count));
#else
	__atomic_store_n(count, *count + 1, __ATOMIC_RELAXED);
#endif
}

#define EDGE_FIELD(h, v, f) \
	(*(uint64_t *)((h) + (v) + __builtin_offsetof(struct vgl_edge, f)))

/* What every object's calls to the hook reach: one indirect jump.  The
 * executable calls it by this name (--wrap), shared objects through the
 * IFUNC below. */
void HOT __wrap___cyg_profile_func_enter(void *this_fn, void *call_site)
{
	enter_fn((uintptr_t)this_fn, (uintptr_t)call_site);
}

/*
 * The IFUNC resolver: the loader is binding an object's calls to the hook.
 * Runs inside the loader, maybe before TLS exists and before this object
 * is relocated: it reads no TLS, calls nothing and touches only its own
 * words.  A pointer still at enter_early is left alone (no index exists
 * before TLS does).
 */
typedef void hook_fn(void *, void *);

__attribute__((no_instrument_function, no_stack_protector, used)) static hook_fn *
enter_resolve(void)
{
	/* Both hooks: in a process that uses both, __fentry__'s tables hold
	 * edges of unloaded objects as well. */
	hook_loader_changed();
	return __wrap___cyg_profile_func_enter;
}

void __cyg_profile_func_enter(void *this_fn, void *call_site)
	__attribute__((ifunc("enter_resolve"), visibility("default")));

/*
 * The loader bound a new object to the enter hook (the resolver above), or
 * may be unloading one (unload.c's dlclose, before and after the
 * loader's; __fentry__ is no IFUNC): both hooks to their checks.  Touches
 * only its own words, so it may run in a signal handler, and no TLS (no
 * stack protector): the resolver may run before TLS is set up.
 * Sequentially consistent: a check that points a hook back at its fast
 * path reads binds after its compare-exchange (see hook_check_unloads).
 */
__attribute__((no_stack_protector)) void RT hook_loader_changed(void)
{
	void (*hot)(uintptr_t, uintptr_t) = enter_hot;
	void *fhot = vgl_fentry_hot;

	__atomic_add_fetch(&binds, 1, __ATOMIC_SEQ_CST);
	__atomic_compare_exchange_n(&enter_fn, &hot, enter_check, 0,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	__atomic_compare_exchange_n(&vgl_fentry_fn, &fhot, vgl_fentry_check,
				    0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* For `vigil check` of a stripped program, which has only the dynamic
 * symbol table: the exported IFUNC names the resolver, and this allocated
 * section (strip keeps it) gives the distance from there to where the
 * program's own calls go.  Both are in this object's .text, so the
 * assembler writes the distance itself: no relocation. */
#if defined(__x86_64__)
__asm__(".pushsection .vigil.hook, \"a\", @progbits\n"
	".balign 8\n"
	".quad __wrap___cyg_profile_func_enter - enter_resolve\n"
	".popsection\n");
#endif

/* Edges are counted on entry; the exit hook exists because the compiler
 * calls it, and costs a call and a return. */
void HOT __cyg_profile_func_exit(void *this_fn, void *call_site)
{
	(void)this_fn;
	(void)call_site;
}

static void RT enter_hot(uintptr_t fn, uintptr_t site)
{
	uint64_t *slots = vgl_slots;
	uint64_t i = edge_slot(fn, site, index_shift(slots));

	for (;;) {
		uint64_t v = slots[i];
		/* Each field read as header + v + its offset: one addressing
		 * mode, where a pointer to the record would cost an lea. */
		char *h = (char *)(slots - HEADER_WORDS);

		if (__builtin_expect(
			    EDGE_FIELD(h, v, site) == site &&
				    EDGE_FIELD(h, v, callee) == fn,
			    1)) {
			count_inc_at(&EDGE_FIELD(h, v, count));
			return;
		}
		if (v == SLOT_EMPTY)
			break;
		/* Read again on this rare path rather than kept in a
		 * register across the common one. */
		i = (i + 1) & ((1ull << (32 - __atomic_load_n(
					  (uint64_t *)slots - 1,
					  __ATOMIC_RELAXED))) - 1);
	}
	hook_slow_enter(fn, site);
}

/* The thread pointer, read without touching TLS: 0 before libc set it up. */
static uintptr_t RT thread_pointer(void)
{
#if defined(__x86_64__)
	uintptr_t fs = 0;
	long ret;

	/* arch_prctl(ARCH_GET_FS), raw: errno is TLS too. */
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_arch_prctl), "D"(0x1003L), "S"(&fs)
			 : "rcx", "r11", "memory");
	return ret == 0 ? fs : 0;
#else
	return (uintptr_t)__builtin_thread_pointer();
#endif
}

/*
 * Until TLS is usable: in a static binary the thread pointer is 0 while
 * IRELATIVE relocations are applied; in a dynamic one TLS exists but is
 * all zero until relocation is done, so vgl_slots is still NULL.
 */
static void RT enter_early(uintptr_t fn, uintptr_t site)
{
	if (!thread_pointer() || !vgl_slots) {
		count_skipped();
		return;
	}
	{
		void (*early)(uintptr_t, uintptr_t) = enter_early;

		__atomic_compare_exchange_n(&enter_fn, &early, enter_hot, 0,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	}
	enter_hot(fn, site);
}

/* The hook's target after the loader bound a new object to it: drops the
 * edges of unloaded objects, then counts as always. */
static void RT enter_check(uintptr_t fn, uintptr_t site)
{
	hook_check_unloads();
	enter_hot(fn, site);
}

/* An index that is this process's: not a wiped copy of a parent's. */
static int RT index_kept(uint64_t *slots)
{
	return slots == EMPTY_SLOTS || slots[index_size(slots)] == CANARY;
}

static void RT index_put(uint64_t *slots, struct vgl_edge *e)
{
	uint64_t n = index_size(slots);
	uint64_t i = edge_slot(e->callee, e->site, index_shift(slots));

	while (slots[i] != SLOT_EMPTY)
		i = (i + 1) & (n - 1);
	__atomic_store_n(&slots[i], slot_value(slots, e), __ATOMIC_RELEASE);
}

/*
 * Doubles the index once it is half full, keeping probes short.  The old
 * array stays mapped: a hook on this thread may be probing it (a signal
 * handler interrupted it and came here).  The arrays left behind add up to
 * less than the one in use.
 */
static int RT index_grow(struct rt_thread *t)
{
	uint64_t *old = t->slots, *s;
	uint64_t n = index_size(old), i;

	/* The hash has 32 bits; 2^30 slots is 8 GiB of index. */
	if (__builtin_ctzll(n) >= 30)
		return -ENOMEM;
	s = index_alloc((unsigned)__builtin_ctzll(n) + 1);
	if (!s)
		return -ENOMEM;
	t->used = 0;
	for (i = 0; i < n; i++)
		if (old[i] != SLOT_EMPTY && old[i] != SLOT_DEAD) {
			index_put(s, slot_edge(old, old[i]));
			t->used++;
		}
	t->slots = s;
	__atomic_store_n(&vgl_slots, s, __ATOMIC_RELEASE);
	return 0;
}

static struct vgl_edge *RT index_find(uint64_t *slots, uintptr_t fn,
				      uintptr_t site)
{
	uint64_t n = index_size(slots);
	uint64_t i = edge_slot(fn, site, index_shift(slots));

	for (;; i = (i + 1) & (n - 1)) {
		struct vgl_edge *e = slot_edge(slots, slots[i]);

		if (slots[i] == SLOT_EMPTY)
			return NULL;
		if (e->callee == fn && e->site == site)
			return e;
	}
}

/* Tables below 1 << ENT_SPARSE_BITS entries double once a quarter full,
 * larger ones once half full (see ent_add). */
#define ENT_SPARSE_BITS 16

/* Half an entry: the fast path's mask and base are in these units, the
 * entry's address twice their sum (fentry.S: bits 4 and up of the hash
 * are the home, and two callees 16 bytes apart have two). */
#define ENT_HALF (sizeof(struct rt_ent) / 2)

/* The home entry of (ret, site) in a table of `mask / 16 + 1` entries, as
 * fentry.S computes it. */
static inline uint64_t RT ent_home(uintptr_t ret, uintptr_t site, uint64_t mask)
{
	return (((uint64_t)ret ^ (uint64_t)site * 0x68e31da5ull) & mask) /
	       ENT_HALF;
}

static inline uint64_t RT ent_mask(unsigned bits)
{
	return ((1ull << bits) - 1) * ENT_HALF;
}

/* A table's distance from this thread's TLS block, halved (fentry.S adds
 * it to a half-offset and doubles the sum); tables are page-aligned, so
 * the distance is even, and signed: tables lie below or above. */
static inline uint64_t RT ent_base(struct rt_ent *t)
{
	return (uint64_t)(((intptr_t)t - (intptr_t)&vgl_ent_tls) / 2);
}

static inline struct rt_ent *RT ent_table(uint64_t base)
{
	return (struct rt_ent *)((uintptr_t)&vgl_ent_tls + 2 * base);
}

/* The table's size is kept in the word before it, on the kept page. */
static inline unsigned RT ent_bits(struct rt_ent *t)
{
	return (unsigned)((uint64_t *)t)[-1];
}

/* A table of 1 << bits empty entries and the wrap, as index_alloc. */
static struct rt_ent *RT ent_alloc(unsigned bits)
{
	uint64_t n = 1ull << bits;
	uint64_t bytes = ((n + 1) * sizeof(struct rt_ent) + PAGE - 1) &
			 ~(uint64_t)(PAGE - 1);
	char *p = mmap(NULL, PAGE + bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct rt_ent *t;

	if (p == MAP_FAILED)
		return NULL;
	t = (struct rt_ent *)(p + PAGE);
	((uint64_t *)t)[-1] = bits;
	if (madvise(t, bytes, MADV_WIPEONFORK) < 0)
		__atomic_store_n(&thread_wipe_fails, 1, __ATOMIC_RELAXED);
	/* fentry.S takes the base from TLS again at the wrap. */
	t[n].key = ENT_WRAP;
	return t;
}

static void RT ent_put(struct rt_ent *t, uintptr_t ret, uintptr_t site,
		       struct vgl_edge *e)
{
	uint64_t n = 1ull << ent_bits(t);
	uint64_t i = ent_home(ret, site, ent_mask(ent_bits(t)));

	while (t[i].key != ENT_EMPTY)
		i = (i + 1) & (n - 1);
	t[i].site = site;
	t[i].edge = e;
	/* Key last: a probe that a signal handler interrupted sees a whole
	 * entry or none. */
	__atomic_store_n(&t[i].key, ret, __ATOMIC_RELEASE);
}

static struct rt_ent *RT ent_find(struct rt_ent *t, unsigned bits,
				  uintptr_t ret, uintptr_t site)
{
	uint64_t n = 1ull << bits;
	uint64_t i = ent_home(ret, site, ent_mask(bits));

	for (;; i = (i + 1) & (n - 1)) {
		if (t[i].key == ENT_EMPTY)
			return NULL;
		if (t[i].key == ret && t[i].site == site)
			return &t[i];
	}
}

/* Publishes t's table to the fast path: the base first, so that the mask
 * the fast path reads first is never larger than the base's table. */
static void RT ent_publish(struct rt_thread *t)
{
	__atomic_store_n(&vgl_ent_tls.base, ent_base(t->ents),
			 __ATOMIC_RELEASE);
	__atomic_store_n(&vgl_ent_tls.mask, ent_mask(ent_bits(t->ents)),
			 __ATOMIC_RELEASE);
}

/*
 * Adds (ret, site) -> e to t's table, doubling it once a quarter full, or
 * half full from 1 << ENT_SPARSE_BITS entries on (the old one stays
 * mapped, as the index's).  A probe past home costs the fast path 7 to 9
 * instructions: on Lua 5.4's bench.lua (1,059 edges, 151,776 calls,
 * callgrind) tables kept at most half full took 0.63 probes past home per
 * call, a fast path of 18.7 instructions per call where a home hit takes
 * 13; a quarter full (and the second entry tested first, fentry.S), 13.6.
 * Beyond 65,536 entries (2 MiB) memory weighs more: many-edges.test's
 * 200,000 edges stay in 16 MiB.  With vgl_rt.lock held.
 */
static void RT ent_add(struct rt_thread *t, uintptr_t ret, uintptr_t site,
		       struct vgl_edge *e)
{
	struct rt_ent *old = t->ents, *s;
	unsigned bits;
	uint64_t n, i;

	if (!old) {
		if (!(t->ents = ent_alloc(t->ents_first)))
			return;
		t->ents_used = 0;
		old = t->ents;
	}
	bits = ent_bits(old);
	n = 1ull << bits;
	if ((t->ents_used + 1) * (bits < ENT_SPARSE_BITS ? 4 : 2) > n) {
		if (bits >= 26 || !(s = ent_alloc(bits + 1)))
			return; /* counted by the slow path each time */
		t->ents_used = 0;
		for (i = 0; i < n; i++)
			if (old[i].key != ENT_EMPTY && old[i].key != ENT_DEAD) {
				ent_put(s, old[i].key, old[i].site, old[i].edge);
				t->ents_used++;
			}
		t->ents = s;
	}
	ent_put(t->ents, ret, site, e);
	t->ents_used++;
}

/* Marks the entries of edges of unloaded objects dead, one word each. */
static void RT ent_purge(struct rt_ent *t)
{
	uint64_t n, i;

	if (!t)
		return;
	n = 1ull << ent_bits(t);
	for (i = 0; i < n; i++)
		if (t[i].key != ENT_EMPTY && t[i].key != ENT_DEAD &&
		    (module_dead(t[i].edge->callee_mod) ||
		     module_dead(t[i].edge->site_mod)))
			__atomic_store_n(&t[i].key, ENT_DEAD, __ATOMIC_RELEASE);
}

/*
 * Reads n bytes at addr without faulting where they may not be mapped:
 * process_vm_readv of this process fails with EFAULT instead.
 */
static int RT read_code(uintptr_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)addr, n };

	return syscall(SYS_process_vm_readv, (long)syscall(SYS_getpid), &local,
		       1ul, &remote, 1ul, 0ul) == (long)n ? 0 : -1;
}

/*
 * The callee's start from R, the return address of its call of
 * __fentry__: the call is `e8 rel32` (5 bytes), or 6 bytes in a PIE or a
 * shared library (GCC calls *__fentry__@GOTPCREL(%rip), `ff 15 disp32`,
 * which the linker may relax to `addr32 call`, `67 e8 rel32`); with CET an
 * endbr64 (f3 0f 1e fa) comes before it.  The ten bytes before R are read
 * directly when they are on R's page (the call is there, executing), else
 * through read_code: the function may start a mapping.
 */
static uintptr_t RT fentry_callee(uintptr_t ret)
{
	unsigned char b[10];
	uintptr_t call;

	if ((ret & (PAGE - 1)) >= sizeof(b))
		__builtin_memcpy(b, (const void *)(ret - sizeof(b)), sizeof(b));
	else if (read_code(ret - sizeof(b), b, sizeof(b)) < 0)
		return ret - 5;
	/* b[k] is the byte at ret - 10 + k. */
	if ((b[4] == 0x67 && b[5] == 0xe8) || (b[4] == 0xff && b[5] == 0x15))
		call = ret - 6;
	else
		call = ret - 5;
	{
		const unsigned char *e = b + (call - 4 - (ret - sizeof(b)));

		if (e[0] == 0xf3 && e[1] == 0x0f && e[2] == 0x1e && e[3] == 0xfa)
			return call - 4;
	}
	return call;
}

/* Adds b to t's list of blocks, which a fork child rebuilds its index
 * from; with vgl_rt.lock held. */
static int RT blocks_add(struct rt_thread *t, struct vgl_block *b)
{
	if (t->nblocks == t->blocks_cap) {
		uint64_t cap = t->blocks_cap ? t->blocks_cap * 2 : 512;
		void *p = t->blocks
				  ? mremap(t->blocks, t->blocks_cap * sizeof(b),
					   cap * sizeof(b), MREMAP_MAYMOVE)
				  : map_anon(cap * sizeof(b));

		if (!p || p == MAP_FAILED)
			return -ENOMEM;
		t->blocks = p;
		t->blocks_cap = cap;
	}
	t->blocks[t->nblocks++] = b;
	return 0;
}

/* Called with vgl_rt.lock held. */
static int RT block_new(struct rt_thread *t)
{
	uint64_t size = t->blk_size ? t->blk_size * 2 : FIRST_BLOCK;
	struct vgl_block *b;

	if (size > MAX_BLOCK)
		size = MAX_BLOCK;
	b = store_alloc_block(&vgl_rt, VGL_BLOCK_EDGES, t->tid, size, NULL, 0);
	if (!b || blocks_add(t, b) < 0)
		return -ENOMEM;
	t->blk = b;
	t->blk_size = size;
	t->blk_cap = (size - sizeof(*b)) / sizeof(struct vgl_edge);
	return 0;
}

/* Appends the edge to the thread's block; called with vgl_rt.lock held.
 * The record is complete before the block's count covers it, so a reader
 * in another process never sees half an edge. */
static struct vgl_edge *RT edge_new(struct rt_thread *t, uintptr_t fn,
				    uintptr_t site, struct module_ids *ids)
{
	struct vgl_edge *e;

	if ((t->used + 1) * 2 > index_size(t->slots) && index_grow(t) < 0)
		return NULL;
	if ((!t->blk || t->blk->count == t->blk_cap) && block_new(t) < 0)
		return NULL;
	e = (struct vgl_edge *)(t->blk + 1) + t->blk->count;
	e->callee = fn;
	e->site = site;
	e->count = 0;
	module_ids(&vgl_rt, fn, site, ids);
	e->callee_mod = ids->fn;
	e->site_mod = ids->site;
	__atomic_store_n(&t->blk->count, t->blk->count + 1, __ATOMIC_RELEASE);
	index_put(t->slots, e);
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

/* Deaths of loaded objects whose edges the indexes still hold; with
 * vgl_rt.lock held. */
static uint64_t purged_deaths;
/* The loader's unload counter up to which every index and table is
 * purged (the last check's); stored with vgl_rt.lock held. */
static unsigned long long purged_subs = ~0ull;

/* Marks the slots of edges of unloaded objects dead.  In place, one word
 * at a time: the thread that owns the array may be probing it. */
static void RT index_purge(uint64_t *slots)
{
	uint64_t n = index_size(slots), i;

	for (i = 0; i < n; i++) {
		struct vgl_edge *e = slot_edge(slots, slots[i]);

		if (slots[i] != SLOT_EMPTY && slots[i] != SLOT_DEAD &&
		    (module_dead(e->callee_mod) || module_dead(e->site_mod)))
			__atomic_store_n(&slots[i], SLOT_DEAD,
					 __ATOMIC_RELEASE);
	}
}

/*
 * Drops the edges of objects unloaded since the last purge from every
 * index of this process (those still shared with a parent are purged when
 * copied, in index_own).  Their records and counts stay in the file under
 * the unloaded object's id; the next call of such an address, now another
 * object's, makes a new edge.  With vgl_rt.lock held.
 */
static void RT purge_unloaded(void)
{
	uint64_t deaths = module_deaths();
	struct rt_thread *t;

	if (deaths == purged_deaths)
		return;
	for (t = __atomic_load_n(&thread_all, __ATOMIC_ACQUIRE); t;
	     t = t->all)
		if (t->pid == vgl_rt.pid) {
			index_purge(t->slots);
			ent_purge(t->ents);
		}
	__atomic_store_n(&purged_deaths, deaths, __ATOMIC_RELAXED);
}

/*
 * Gives t an index of this process's own.  A thread state that came
 * through fork (the forking thread's, or an ended thread's on the free
 * list) has a wiped index (see the top of this file): it is built again
 * from the edge records of the state's blocks, in this process's copy of
 * the file, but for those of unloaded objects.  The blocks may hold more
 * records than the old index did (a parent's thread appended to them
 * after a raw clone): the new index is sized to all of them.  Called with
 * vgl_rt.lock held.
 */
static int RT index_own(struct rt_thread *t)
{
	uint64_t *s, records = 0, i, k, used = 0;
	unsigned bits = (unsigned)__builtin_ctzll(index_size(t->slots));

	for (k = 0; k < t->nblocks; k++)
		records += t->blocks[k]->count;
	while ((records + 1) * 2 > (1ull << bits))
		bits++;
	if (bits > 30 || !(s = index_alloc(bits)))
		return -ENOMEM;
	for (k = 0; k < t->nblocks; k++) {
		struct vgl_edge *e = (struct vgl_edge *)(t->blocks[k] + 1);

		for (i = 0; i < t->blocks[k]->count; i++)
			if (!module_dead(e[i].callee_mod) &&
			    !module_dead(e[i].site_mod)) {
				index_put(s, &e[i]);
				used++;
			}
	}
	t->slots = s;
	t->used = used;
	t->pid = vgl_rt.pid;
	/* The entry table (wiped too) starts empty, as large as it was: its
	 * thread's fast path may be probing it with the old mask.  Its
	 * entries come back one slow call each, finding their records in
	 * the index. */
	if (t->ents) {
		struct rt_ent *e = ent_alloc(ent_bits(t->ents));

		if (!e)
			return -ENOMEM;
		t->ents = e;
		t->ents_used = 0;
	}
	return 0;
}

/* Notes in the file which hook counted (VGL_META_MODE_*); with
 * vgl_rt.lock held.  A new file (fork, vigil_set_file) starts with the
 * modes of vgl_rt.modes. */
static void RT note_mode(uint32_t mode)
{
	struct vgl_meta *m = vgl_rt.meta;

	vgl_rt.modes |= mode;
	if (m && !(__atomic_load_n(&m->flags, __ATOMIC_RELAXED) & mode))
		__atomic_fetch_or(&m->flags, mode, __ATOMIC_RELAXED);
}

/*
 * An idle ondemand program that `vigil attach` switched on (ondemand.c):
 * its first call since takes the counts into a memfd, which the outside
 * takes and reads.  Once: a memfd that cannot be had (say, RLIMIT_FSIZE)
 * leaves counting in memory, and the outside sees no descriptor.  With
 * vgl_rt.lock held.
 */
static void RT switch_on(void)
{
	static int tried;
	struct rt *rt = &vgl_rt;
	int fd;

	if (tried)
		return;
	tried = 1;
	fd = store_memfd(rt);
	if (fd >= 0)
		ondemand_took_fd(fd, rt->fd_dev, rt->fd_ino);
}

/*
 * The first call of the process, of this thread, or of this edge, from
 * either hook: fn is the callee's start, and ret, for __fentry__, the
 * return address into the callee (0 for the enter hook), whose entry
 * table then gets the edge too.  Saves errno, and counts every call
 * exactly unless no memory at all can be had (then it tallies it in
 * META.lost_calls).  The module map is brought up to date before the lock
 * is taken: it asks the loader, and a thread in the loader's lock (a
 * dl_iterate_phdr callback) may be waiting for ours.
 */
static void RT slow_count(uintptr_t fn, uintptr_t site, uintptr_t ret)
{
	int saved_errno = errno;
	struct rt_thread *t;
	struct vgl_edge *e = NULL;
	struct module_ids ids;
	uint64_t old;

	if (vgl_in_slow) {
		count_lost();
		goto out;
	}
	/* A runtime that could not start costs a load, not a lock. */
	if (__atomic_load_n(&vgl_rt.state, __ATOMIC_RELAXED) == RT_OFF)
		goto out;
	rt_block_signals(&old);
	vgl_in_slow = 1;
	t = vgl_self;
	/* A child made without fork's handlers finds its indexes wiped; so
	 * does a fork child (which knows it is one).  A new thread's state,
	 * or no wiping at all, leaves only asking. */
	if (!t || !index_kept(t->slots) ||
	    __atomic_load_n(&thread_wipe_fails, __ATOMIC_RELAXED))
		rt_check_fork();
	if (!t)
		t = thread_new();
	if (ret)
		fn = fentry_callee(ret);
	module_prepare(fn, site, &ids);

	lock_take();
	/* Ready, and no fork child's take-over due: rt_ensure_init would
	 * only say so (40 instructions a call). */
	if ((vgl_rt.state != RT_READY || vgl_rt.fork_pending) &&
	    rt_ensure_init() < 0) {
		lock_drop();
		goto unblock;
	}
	note_mode(ret ? VGL_META_MODE_ENTRY : VGL_META_MODE_ENTER);
	if (vgl_rt.no_file && ondemand_wanted && ondemand_wanted())
		switch_on();
	if (module_deaths() != purged_deaths)
		purge_unloaded();
	if (t && t->pid != vgl_rt.pid && index_own(t) < 0)
		t = NULL;
	if (t && !(e = index_find(t->slots, fn, site)))
		e = edge_new(t, fn, site, &ids);
	if (e) {
		count_inc(e);
		if (ret && (!t->ents || !ent_find(t->ents, ent_bits(t->ents),
						  ret, site)))
			ent_add(t, ret, site, e);
	} else {
		count_lost();
	}
	lock_drop();

	thread_keep(t);
	vgl_self = t;
	if (t && __atomic_load_n(&vgl_rt.state, __ATOMIC_RELAXED) == RT_READY &&
	    !vgl_rt.fork_pending) {
		__atomic_store_n(&vgl_slots, t->slots, __ATOMIC_RELEASE);
		if (t->ents)
			ent_publish(t);
	}
	rt_start_interval();
unblock:
	vgl_in_slow = 0;
	rt_restore_signals(&old);
out:
	errno = saved_errno;
}

/* Not inlined into enter_hot: its tail jump names this function, which
 * tests/lit/guest.test looks for. */
__attribute__((noinline)) void RT hook_slow_enter(uintptr_t fn,
						   uintptr_t site)
{
	slow_count(fn, site, 0);
}

/* fentry.S's slow path: (ret, site) is not in this thread's table.  Also
 * where a dynamic program's own calls go before the loader initialised
 * TLS (all zero, see struct rt_ent_tls): skipped and tallied, as at
 * hook_fentry_early, which they never pass. */
void RT hook_slow_fentry(uintptr_t ret, uintptr_t site)
{
	if (__builtin_expect(!vgl_slots, 0)) {
		count_skipped();
		return;
	}
	slow_count(0, site, ret);
}

/* fentry.S's save_call, for a call made on a signal stack with too little
 * room for it: lost, and said so.  Runs on what room there is: a leaf, no
 * stack of its own. */
void RT hook_short_stack(void)
{
	count_lost();
}

/* fentry.S's first target: until TLS is usable (see enter_early), calls
 * are skipped and tallied; then the hook goes to the fast path. */
void RT hook_fentry_early(uintptr_t ret, uintptr_t site)
{
	void *early = vgl_fentry_early;

	if (!thread_pointer() || !vgl_slots) {
		count_skipped();
		return;
	}
	__atomic_compare_exchange_n(&vgl_fentry_fn, &early, vgl_fentry_hot, 0,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	slow_count(0, site, ret);
}

/* fentry.S's target after the loader bound an object to the enter hook,
 * and around a dlclose (dlclose.c, unload.c): drops the edges of unloaded
 * objects (from every index and table), then counts this call as the fast
 * path would. */
void RT hook_fentry_check(uintptr_t ret, uintptr_t site)
{
	struct rt_ent *en = NULL;

	hook_check_unloads();
	if (vgl_ent_tls.mask) {
		struct rt_ent *t = ent_table(vgl_ent_tls.base);

		en = ent_find(t, ent_bits(t), ret, site);
	}
	if (en)
		count_inc(en->edge);
	else
		slow_count(0, site, ret);
}

/*
 * What both check stubs run, on the first call after the loader bound an
 * object to the enter hook or a dlclose began or ended: looks for
 * unloaded objects and drops their edges, then points the hooks back at
 * their fast paths unless another object was bound meanwhile or a
 * dlclose is under way.  Like the slow path, with every signal blocked,
 * the loader asked before the lock is taken.
 */
void RT hook_check_unloads(void)
{
	void (*check)(uintptr_t, uintptr_t) = enter_check;
	int saved_errno = errno;
	uint64_t old, seen;
	unsigned long long subs;

	if (vgl_in_slow)
		return; /* a call from inside the slow path: it purges */
	/* While a dlclose is under way every call comes here, and most find
	 * nothing unloaded since the last purge: then one look at the
	 * loader's counter is all (a dlclose whose library's destructors
	 * make 100,000 calls took 308 times as long with the whole check,
	 * docs/entry-mode-runtime.md). */
	if (unload_busy() &&
	    module_subs() == __atomic_load_n(&purged_subs, __ATOMIC_ACQUIRE)) {
		errno = saved_errno;
		return;
	}
	rt_block_signals(&old);
	vgl_in_slow = 1;
	/* The lock below may be one a parent's thread held at a raw clone. */
	rt_check_fork();
	seen = __atomic_load_n(&binds, __ATOMIC_ACQUIRE);
	module_prepare(0, 0, NULL);
	subs = module_seen_subs();
	if (module_deaths() != __atomic_load_n(&purged_deaths,
					       __ATOMIC_RELAXED) ||
	    subs != __atomic_load_n(&purged_subs, __ATOMIC_RELAXED)) {
		lock_take();
		purge_unloaded();
		__atomic_store_n(&purged_subs, subs, __ATOMIC_RELEASE);
		lock_drop();
	}
	/* Not while a dlclose is under way (unload.c): the object it
	 * unloads may be unmapped after the look above. */
	if (seen == __atomic_load_n(&binds, __ATOMIC_SEQ_CST) &&
	    !unload_busy()) {
		void *fcheck = vgl_fentry_check;

		__atomic_compare_exchange_n(&enter_fn, &check, enter_hot, 0,
					    __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
		__atomic_compare_exchange_n(&vgl_fentry_fn, &fcheck,
					    vgl_fentry_hot, 0,
					    __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
		/* A bind or a dlclose that began after the test above found
		 * the hooks at their check stubs, left them there, and the
		 * exchanges just undid that: put them back. */
		if (seen != __atomic_load_n(&binds, __ATOMIC_SEQ_CST) ||
		    unload_busy())
			hook_loader_changed();
	}
	vgl_in_slow = 0;
	rt_restore_signals(&old);
	errno = saved_errno;
}
