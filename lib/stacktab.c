/* stacktab.c - see stacktab.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stacktab.h"

/* An empty slot; and the most entries a table holds. */
#define EMPTY UINT32_MAX
/* Words per chunk (64 KiB): the sampler's round of stacks fits in one or
 * a few, and the writer's run takes them in steps of 64 KiB. */
#define CHUNK_WORDS 8192u

/* Words of entries, laid end to end; a chunk never moves. */
struct vgl_stack_chunk {
	struct vgl_stack_chunk *next;
	size_t cap, used;
	uint64_t w[];
};

void vgl_stacktab_init(struct vgl_stacktab *t)
{
	memset(t, 0, sizeof(*t));
}

/*
 * FNV-1 style over the key's words, then the high bits folded in: the
 * index takes the low bits, and the low bits of a product depend on the
 * low bits of its factors only.
 */
uint64_t vgl_stacktab_hash(uint32_t tid, uint64_t tag, const uint64_t *words,
			   uint32_t n)
{
	uint64_t h = (1469598103934665603ull ^ tid ^ tag) * 1099511628211ull;
	uint32_t i;

	for (i = 0; i < n; i++)
		h = (h ^ words[i]) * 1099511628211ull;
	return h ^ (h >> 29);
}

/* Files every entry again in an index of cap slots (a power of 2). */
static int rehash(struct vgl_stacktab *t, size_t cap)
{
	uint32_t *slots = malloc(cap * sizeof(*slots));
	size_t i, j;

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < cap; i++)
		slots[i] = EMPTY;
	for (i = 0; i < t->n; i++) {
		for (j = t->e[i].hash & (cap - 1); slots[j] != EMPTY;
		     j = (j + 1) & (cap - 1))
			;
		slots[j] = (uint32_t)i;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = cap;
	return 0;
}

/*
 * Room for n words in the chunks, from the current one on (a chunk too
 * full for them is left as it is until the table is emptied), or in a new
 * chunk at the end; NULL for no memory.  Never NULL for n = 0: an empty
 * stack's words are a valid pointer too.
 */
static uint64_t *take_words(struct vgl_stacktab *t, uint32_t n)
{
	struct vgl_stack_chunk *c = t->cur ? t->cur : t->chunks, **end;
	uint64_t *w;

	for (; c && c->cap - c->used < n; c = c->next)
		;
	if (!c) {
		size_t cap = n > CHUNK_WORDS ? n : CHUNK_WORDS;

		c = malloc(sizeof(*c) + cap * sizeof(c->w[0]));
		if (!c)
			return NULL;
		c->next = NULL;
		c->cap = cap;
		c->used = 0;
		for (end = &t->chunks; *end; end = &(*end)->next)
			;
		*end = c;
	}
	t->cur = c;
	w = c->w + c->used;
	c->used += n;
	return w;
}

int vgl_stacktab_add(struct vgl_stacktab *t, uint32_t tid, uint64_t tag,
		     const uint64_t *words, uint32_t n, uint64_t count)
{
	size_t at;

	return vgl_stacktab_add_at(t, tid, tag, words, n, count, &at);
}

int vgl_stacktab_add_at(struct vgl_stacktab *t, uint32_t tid, uint64_t tag,
			const uint64_t *words, uint32_t n, uint64_t count,
			size_t *at)
{
	uint64_t h = vgl_stacktab_hash(tid, tag, words, n);
	struct vgl_stack_entry *e;
	uint64_t *w;
	size_t j;

	/* At most half full, so that probes stay short. */
	if (t->n >= EMPTY)
		return -ENOMEM;
	if ((t->n + 1) * 2 > t->nslots &&
	    rehash(t, t->nslots ? t->nslots * 2 : 256))
		return -ENOMEM;
	for (j = h & (t->nslots - 1); t->slots[j] != EMPTY;
	     j = (j + 1) & (t->nslots - 1)) {
		e = &t->e[t->slots[j]];
		if (e->hash == h && e->tid == tid && e->n == n &&
		    e->tag == tag &&
		    (!n || !memcmp(e->words, words, n * sizeof(*words)))) {
			e->count += count;
			*at = t->slots[j];
			return 0;
		}
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct vgl_stack_entry *p = realloc(t->e, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->e = p;
		t->cap = cap;
	}
	w = take_words(t, n);
	if (!w)
		return -ENOMEM;
	e = &t->e[t->n];
	e->tid = tid;
	e->n = n;
	e->tag = tag;
	e->count = count;
	e->hash = h;
	e->words = w;
	if (n)
		memcpy(w, words, n * sizeof(*words));
	*at = t->n;
	t->slots[j] = (uint32_t)t->n++;
	return 0;
}

void vgl_stacktab_clear(struct vgl_stacktab *t)
{
	struct vgl_stack_chunk *c;
	size_t i;

	for (i = 0; i < t->nslots; i++)
		t->slots[i] = EMPTY;
	for (c = t->chunks; c; c = c->next)
		c->used = 0;
	t->cur = t->chunks;
	t->n = 0;
}

void vgl_stacktab_release(struct vgl_stacktab *t)
{
	struct vgl_stack_chunk *c, *next;

	for (c = t->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(t->e);
	free(t->slots);
	vgl_stacktab_init(t);
}
