/*
 * stacktab.h - a table of distinct stacks, each with how many samples
 * found it: the one that both the live sampler (sampler/stacks.c, per
 * round of samples) and the writer of sampled files (vgl_sampled.c, per
 * run) fold their stack samples into.  (Each had its own before.)
 *
 * A stack is the key (tid, tag, words[0 .. n)): tag is the caller's, a
 * word that is part of the key without being a frame (the sampler's
 * exec generation and truncated flag; 0 for the file), and words are the
 * frames, as the caller lays them out (one address each in the sampler,
 * an (address, module) pair each for the file).  Entries keep the order
 * they were first added in, so what is laid out from them does not
 * depend on the hash.
 *
 * Tuned for the sampler's hot path: one hash over the words and, mostly,
 * one probe of an open-addressing index kept at most half full.  The
 * words of the entries are laid end to end in chunks of 64 KiB that never
 * move: a new stack costs no allocation of its own, emptying the table
 * frees nothing, and the words are written once (an arena grown by
 * doubling copied them and faulted in twice the pages: 35% more CPU per
 * stack in the writer, measured).
 */
#ifndef VGL_STACKTAB_H
#define VGL_STACKTAB_H

#include <stddef.h>
#include <stdint.h>

struct vgl_stack_entry {
	uint32_t tid;
	uint32_t n;             /* words */
	uint64_t tag;
	uint64_t count;         /* samples, added up */
	uint64_t hash;          /* vgl_stacktab_hash of the key */
	const uint64_t *words;  /* a copy, the table's: valid until the
	                         * table is emptied or released; never
	                         * NULL, even for n = 0 */
};

struct vgl_stack_chunk;

struct vgl_stacktab {
	struct vgl_stack_entry *e;      /* in the order first added */
	size_t n, cap;
	struct vgl_stack_chunk *chunks; /* the entries' words, in order */
	struct vgl_stack_chunk *cur;    /* the one being filled */
	/* Indexes into e (4 bytes: half the cache of a size_t's);
	 * UINT32_MAX: empty. */
	uint32_t *slots;
	size_t nslots;                  /* a power of 2; 0 before any add */
};

/* An empty table; nothing to release until something is added. */
void vgl_stacktab_init(struct vgl_stacktab *t);

/*
 * Counts count samples of the stack (tid, tag, words[0 .. n)); n may be
 * 0.  Returns 0, or -ENOMEM and the table is as it was.
 */
int vgl_stacktab_add(struct vgl_stacktab *t, uint32_t tid, uint64_t tag,
		     const uint64_t *words, uint32_t n, uint64_t count);

/* The same, and *at is then the stack's index in t->e. */
int vgl_stacktab_add_at(struct vgl_stacktab *t, uint32_t tid, uint64_t tag,
			const uint64_t *words, uint32_t n, uint64_t count,
			size_t *at);

/* Empties t and keeps its memory for the next stacks. */
void vgl_stacktab_clear(struct vgl_stacktab *t);

void vgl_stacktab_release(struct vgl_stacktab *t);

/* The hash the table files the key under (for tests, which make keys
 * that collide). */
uint64_t vgl_stacktab_hash(uint32_t tid, uint64_t tag, const uint64_t *words,
			   uint32_t n);

#endif
