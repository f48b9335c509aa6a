/* tally.c - see tally.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sortsum.h"
#include "tally.h"

void vgl_tally_init(struct vgl_tally *t)
{
	memset(t, 0, sizeof(*t));
}

/* Grows one array of t from t->nfuncs to n entries, the new ones 0. */
static int grow(uint64_t **a, size_t old, size_t n)
{
	uint64_t *p = realloc(*a, (n + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	memset(p + old, 0, (n + 1 - old) * sizeof(*p));
	*a = p;
	return 0;
}

int vgl_tally_reserve(struct vgl_tally *t, size_t nfuncs)
{
	/* Room for one more than asked: never a NULL array, even for no
	 * function.  A failure leaves the grown arrays longer than nfuncs
	 * says, which does no harm. */
	if (t->self && nfuncs <= t->nfuncs)
		return 0;
	if (grow(&t->self, t->nfuncs, nfuncs) ||
	    grow(&t->total, t->nfuncs, nfuncs) ||
	    grow(&t->last, t->nfuncs, nfuncs))
		return -ENOMEM;
	t->nfuncs = nfuncs;
	return 0;
}

int vgl_tally_add(struct vgl_tally *t, const uint32_t *funcs, size_t n,
		  uint64_t count)
{
	size_t i, need = 0;
	uint64_t stack;

	for (i = 0; i < n; i++)
		if (funcs[i] != VGL_TALLY_NONE && funcs[i] >= need)
			need = (size_t)funcs[i] + 1;
	if (need > t->nfuncs && vgl_tally_reserve(t, need))
		return -ENOMEM;
	stack = ++t->stacks;
	for (i = 0; i < n; i++) {
		uint32_t f = funcs[i];

		if (f == VGL_TALLY_NONE)
			continue;
		if (!i)
			t->self[f] = vgl_sat_add(t->self[f], count);
		/* A recursive function counts once per stack. */
		if (t->last[f] != stack) {
			t->total[f] = vgl_sat_add(t->total[f], count);
			t->last[f] = stack;
		}
	}
	return 0;
}

void vgl_tally_release(struct vgl_tally *t)
{
	free(t->self);
	free(t->total);
	free(t->last);
	vgl_tally_init(t);
}
