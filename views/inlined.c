/*
 * inlined.c - see inlined.h.
 *
 * One pass over the distinct stacks gives a (copy, host, stack) triple
 * per inlined frame; sorted, equal pairs are added up once per stack (a
 * recursive chain may hold a copy in one host twice), so a host's samples
 * are those of the stacks that found the copy in it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlined.h"
#include "sortsum.h"

struct triple {
	uint32_t copy, host;
	size_t stack;
};

static int cmp_triple(const void *a, const void *b)
{
	const struct triple *x = a, *y = b;

	if (x->copy != y->copy)
		return x->copy < y->copy ? -1 : 1;
	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	return (x->stack > y->stack) - (x->stack < y->stack);
}

static const struct vgl_sprofile *sort_sp;   /* for cmp_host; one thread */

static int cmp_host(const void *a, const void *b)
{
	const struct inlined_host *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(sort_sp->funcs[x->host].label,
		      sort_sp->funcs[y->host].label);
}

int inlined_hosts_build(struct inlined_hosts *h, const struct vgl_sprofile *sp)
{
	struct triple *t;
	size_t nt = 0, i, k, n = 0, f;

	memset(h, 0, sizeof(*h));
	/* At most one triple per frame of every stack. */
	for (i = 0, k = 0; i < sp->nstacks; i++)
		k += sp->stacks[i].depth;
	t = malloc((k + 1) * sizeof(*t));
	h->first = calloc(sp->nfuncs + 1, sizeof(*h->first));
	if (!t || !h->first)
		goto nomem;
	for (i = 0; i < sp->nstacks; i++) {
		const uint32_t *c = sp->chain + sp->stacks[i].first;
		uint32_t d = sp->stacks[i].depth, p, host = UINT32_MAX;

		/* Outermost first: the host is the last frame before that
		 * was not a copy. */
		for (p = 0; p < d; p++) {
			if (!sp->funcs[c[p]].inlined_copy)
				host = c[p];
			else if (host != UINT32_MAX)
				t[nt++] = (struct triple){ c[p], host, i };
		}
	}
	if (nt)
		qsort(t, nt, sizeof(*t), cmp_triple);
	h->v = malloc((nt + 1) * sizeof(*h->v));
	if (!h->v)
		goto nomem;
	/* One host per (copy, host); first[] counts them, then adds up. */
	for (i = 0; i < nt; i++) {
		int same = i && t[i].copy == t[i - 1].copy &&
			   t[i].host == t[i - 1].host;
		uint64_t count = sp->stacks[t[i].stack].count;

		if (same && t[i].stack == t[i - 1].stack)
			continue;
		if (same) {
			h->v[n - 1].samples = vgl_sat_add(h->v[n - 1].samples,
							  count);
			continue;
		}
		h->v[n++] = (struct inlined_host){ t[i].host, count };
		h->first[t[i].copy + 1]++;
	}
	for (f = 0; f < sp->nfuncs; f++)
		h->first[f + 1] += h->first[f];
	sort_sp = sp;
	for (f = 0; f < sp->nfuncs; f++)
		qsort(h->v + h->first[f], h->first[f + 1] - h->first[f],
		      sizeof(*h->v), cmp_host);
	free(t);
	return 0;
nomem:
	free(t);
	inlined_hosts_release(h);
	return -ENOMEM;
}

void inlined_hosts_release(struct inlined_hosts *h)
{
	free(h->first);
	free(h->v);
	memset(h, 0, sizeof(*h));
}

char *inlined_note(const struct inlined_hosts *h,
		   const struct vgl_sprofile *sp, uint32_t f,
		   const uint64_t *calls)
{
	size_t i, lo = h->first[f], hi = h->first[f + 1], len = 0;
	char *buf = NULL;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	fputs("inlined into", m);
	for (i = lo; i < hi && i - lo < INLINED_NOTE_HOSTS; i++) {
		uint32_t g = h->v[i].host;

		fprintf(m, "%s %s (", i > lo ? "," : "", sp->funcs[g].label);
		if (calls[g])
			fprintf(m, "%llu calls)", (unsigned long long)calls[g]);
		else
			fputs("not counted)", m);
	}
	if (hi - lo > INLINED_NOTE_HOSTS)
		fprintf(m, " and %zu more", hi - lo - INLINED_NOTE_HOSTS);
	if (hi == lo)
		fputs(" other functions", m);
	if (fclose(m)) {
		free(buf);
		return NULL;
	}
	return buf;
}
