/* stacktab.c - see stacktab.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stacktab.h"

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
	size_t *slots = malloc(cap * sizeof(*slots)), i, j;

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < cap; i++)
		slots[i] = SIZE_MAX;
	for (i = 0; i < t->n; i++) {
		for (j = t->e[i].hash & (cap - 1); slots[j] != SIZE_MAX;
		     j = (j + 1) & (cap - 1))
			;
		slots[j] = i;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = cap;
	return 0;
}

int vgl_stacktab_add(struct vgl_stacktab *t, uint32_t tid, uint64_t tag,
		     const uint64_t *words, uint32_t n, uint64_t count)
{
	uint64_t h = vgl_stacktab_hash(tid, tag, words, n);
	struct vgl_stack_entry *e;
	size_t j;

	/* At most half full, so that probes stay short. */
	if ((t->n + 1) * 2 > t->nslots &&
	    rehash(t, t->nslots ? t->nslots * 2 : 256))
		return -ENOMEM;
	for (j = h & (t->nslots - 1); t->slots[j] != SIZE_MAX;
	     j = (j + 1) & (t->nslots - 1)) {
		e = &t->e[t->slots[j]];
		if (e->hash == h && e->tid == tid && e->n == n &&
		    e->tag == tag && (!n ||
		    !memcmp(t->words + e->at, words, n * sizeof(*words)))) {
			e->count += count;
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
	/* Allocated even for an empty stack: its words are never NULL. */
	if (!t->words || n > t->cap_words - t->nwords) {
		size_t cap = t->cap_words ? t->cap_words : 1024;
		uint64_t *p;

		while (cap - t->nwords < n)
			cap *= 2;
		p = realloc(t->words, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		t->words = p;
		t->cap_words = cap;
	}
	e = &t->e[t->n];
	e->tid = tid;
	e->n = n;
	e->tag = tag;
	e->count = count;
	e->hash = h;
	e->at = t->nwords;
	if (n)
		memcpy(t->words + t->nwords, words, n * sizeof(*words));
	t->nwords += n;
	t->slots[j] = t->n++;
	return 0;
}

void vgl_stacktab_clear(struct vgl_stacktab *t)
{
	size_t i;

	for (i = 0; i < t->nslots; i++)
		t->slots[i] = SIZE_MAX;
	t->n = 0;
	t->nwords = 0;
}

void vgl_stacktab_release(struct vgl_stacktab *t)
{
	free(t->e);
	free(t->words);
	free(t->slots);
	vgl_stacktab_init(t);
}
