/*
 * by.c - a profile seen per thread or per module (by.h).
 *
 * A counting profile keeps each edge's count per thread, so one thread's
 * profile is the same file with those counts; a sampled profile keeps
 * each distinct stack with its thread.  Both are cut down in the reader,
 * before the model is built, so every output works on one thread as on
 * the whole file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "by.h"
#include "sprofile.h"
#include "text.h"

/* The name of tid in r's samples (the last one seen), or NULL. */
static const char *thread_name(const struct vgl_reader *r, uint32_t tid)
{
	const char *name = NULL;
	size_t i;

	for (i = 0; i < r->nsample_threads; i++)
		if (r->sample_threads[i].tid == tid)
			name = r->sample_threads[i].name;
	return name;
}

int by_find_thread(const struct vgl_reader *r, const char *arg,
		   uint32_t *tid)
{
	char *end;
	unsigned long v;
	size_t i;
	int found = 0;

	v = strtoul(arg, &end, 10);
	if (*arg >= '0' && *arg <= '9' && !*end && v <= UINT32_MAX) {
		for (i = 0; i < r->nthread_counts; i++)
			found |= r->thread_counts[i].tid == v;
		for (i = 0; i < r->nstacks; i++)
			found |= r->stacks[i].tid == v;
		for (i = 0; i < r->nsample_threads; i++)
			found |= r->sample_threads[i].tid == v;
		*tid = (uint32_t)v;
		return found ? 0 : -ENOENT;
	}
	for (i = 0; i < r->nsample_threads; i++) {
		const struct vgl_sample_thread *t = &r->sample_threads[i];

		if (strncmp(t->name, arg, sizeof(t->name)) ||
		    (found && *tid == t->tid))
			continue;
		if (found)
			return -EINVAL;
		*tid = t->tid;
		found = 1;
	}
	return found ? 0 : -ENOENT;
}

void by_keep_thread(struct vgl_reader *r, uint32_t tid)
{
	size_t i, k, n = 0;

	r->total_calls = 0;
	for (i = 0; i < r->nedges; i++) {
		struct vgl_edge_info *e = &r->edges[i];
		uint64_t count = 0;

		for (k = e->first_thread; k < e->first_thread + e->nthreads; k++)
			if (r->thread_counts[k].tid == tid)
				count += r->thread_counts[k].count;
		if (!count)
			continue;
		r->edges[n] = *e;
		r->edges[n].count = count;
		r->total_calls = r->total_calls + count < count ? UINT64_MAX :
				 r->total_calls + count;
		n++;
	}
	r->nedges = n;
	for (i = 0, n = 0; i < r->nstacks; i++)
		if (r->stacks[i].tid == tid)
			r->stacks[n++] = r->stacks[i];
	r->nstacks = n;
}

/* One row of the table: a key (tid or module index) and its weight. */
struct row {
	uint64_t key;
	uint64_t weight;
	uint64_t top_weight;     /* its most counted function's */
	uint32_t top;            /* that function, or VGL_PROFILE_NONE */
	uint64_t functions;      /* functions with weight in it */
};

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Adds weight w to the row of key. */
static int add(struct row **rows, size_t *n, uint64_t key, uint64_t w)
{
	size_t i;

	for (i = 0; i < *n && (*rows)[i].key != key; i++)
		;
	if (i == *n) {
		struct row *v = realloc(*rows, (*n + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		*rows = v;
		memset(&v[i], 0, sizeof(v[i]));
		v[i].key = key;
		v[i].top = VGL_PROFILE_NONE;
		(*n)++;
	}
	(*rows)[i].weight += w;
	return 0;
}

/* A (key, function, weight) triple, added up before the rows. */
struct kfw {
	uint64_t key;
	uint32_t f;
	uint64_t w;
};

static int cmp_kfw(const void *a, const void *b)
{
	const struct kfw *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->f < y->f ? -1 : x->f > y->f;
}

/* Rows from the triples t[0 .. n): per key the weights added, the
 * number of functions and the heaviest one. */
static int make_rows(struct kfw *t, size_t n, struct row **rows,
		     size_t *nrows)
{
	size_t i, j;

	qsort(t, n, sizeof(*t), cmp_kfw);
	for (i = 0; i < n; i = j) {
		uint64_t w = 0;
		struct row *r;
		size_t k;

		for (j = i; j < n && t[j].key == t[i].key && t[j].f == t[i].f; j++)
			w += t[j].w;
		if (!w)
			continue;
		if (add(rows, nrows, t[i].key, w))
			return -ENOMEM;
		for (k = 0; (*rows)[k].key != t[i].key; k++)
			;
		r = &(*rows)[k];
		r->functions++;
		if (w > r->top_weight || (w == r->top_weight && t[i].f < r->top)) {
			r->top_weight = w;
			r->top = t[i].f;
		}
	}
	qsort(*rows, *nrows, sizeof(**rows), cmp_row);
	return 0;
}

int by_print(const struct vgl_profile *p, const char *what)
{
	const struct vgl_reader *r = p->r;
	int thread = !strcmp(what, "thread"), sampled;
	struct vgl_sprofile sp;
	const struct vgl_pfunc *funcs;
	struct kfw *t = NULL;
	struct row *rows = NULL;
	size_t i, k, n = 0, nrows = 0, cap;
	uint64_t total = 0;
	int err = -ENOMEM;

	if (!thread && strcmp(what, "module"))
		return -EINVAL;
	sampled = r->meta.kind == VGL_KIND_SAMPLED;
	memset(&sp, 0, sizeof(sp));
	if (sampled && vgl_sprofile_build(&sp, r, p->sym))
		return -ENOMEM;
	funcs = sampled ? sp.funcs : p->funcs;
	/* Triples: per edge and thread (counting), per stack (sampled,
	 * its leaf function). */
	cap = sampled ? sp.nstacks + r->nstacks + 1 : r->nthread_counts + p->nedges + 1;
	t = malloc(cap * sizeof(*t));
	if (!t)
		goto out;
	if (!sampled) {
		for (i = 0; i < p->nedges; i++) {
			const struct vgl_pedge *e = &p->edges[i];

			if (!thread) {
				const struct vgl_pfunc *fn = &funcs[e->callee];

				t[n++] = (struct kfw){ fn->module, e->callee, e->calls };
				continue;
			}
			for (k = e->raw->first_thread;
			     k < e->raw->first_thread + e->raw->nthreads; k++)
				t[n++] = (struct kfw){ r->thread_counts[k].tid,
						       e->callee,
						       r->thread_counts[k].count };
		}
		total = p->total_calls;
	} else if (thread) {
		/* The reader's stacks have the thread; the model's, the
		 * leaf function: by thread, the samples alone. */
		for (i = 0; i < r->nstacks; i++)
			t[n++] = (struct kfw){ r->stacks[i].tid, VGL_PROFILE_NONE,
					       r->stacks[i].count };
		total = sp.samples;
	} else {
		for (i = 0; i < sp.nstacks; i++) {
			const struct vgl_sstack *st = &sp.stacks[i];
			uint32_t leaf = sp.chain[st->first + st->depth - 1];

			t[n++] = (struct kfw){ funcs[leaf].module, leaf, st->count };
		}
		total = sp.samples;
	}
	err = make_rows(t, n, &rows, &nrows);
	if (err)
		goto out;
	printf("\nBy %s:\n\n%12s  %7s  %s\n", what,
	       sampled ? "samples" : "calls", "%", what);
	for (i = 0; i < nrows; i++) {
		const struct row *rw = &rows[i];

		printf("%12" PRIu64 "  %6.2f%%  ", rw->weight,
		       total ? 100.0 * (double)rw->weight / (double)total : 0.0);
		if (thread) {
			const char *name = thread_name(r, (uint32_t)rw->key);

			printf("%" PRIu64 "%s", rw->key, name ? " " : "");
			vgl_text_line(stdout, name ? name : "");
		} else {
			const char *m = rw->key == VGL_PROFILE_NO_MODULE ? NULL :
				vgl_symbolizer_module_path(p->sym, (uint32_t)rw->key);
			const char *base = m ? strrchr(m, '/') : NULL;

			vgl_text_line(stdout, base ? base + 1 : m ? m : "?");
		}
		if (rw->top != VGL_PROFILE_NONE) {
			printf("  (%" PRIu64 " function%s; most: ",
			       rw->functions, rw->functions == 1 ? "" : "s");
			vgl_text_line(stdout, funcs[rw->top].label);
			printf(" %" PRIu64 ")", rw->top_weight);
		}
		putchar('\n');
	}
	/* Thread 0 of a file merged from many processes is not a thread:
	 * their tids say nothing about each other, so the merge sums them. */
	if (thread && r->has_processes && r->processes > 1)
		for (i = 0; i < nrows; i++)
			if (rows[i].key == 0) {
				printf("\nthread 0: the threads of the %" PRIu64
				       " processes merged into this file, summed"
				       " (a merge keeps threads apart only within"
				       " one process)\n", r->processes);
				break;
			}
	err = 0;
out:
	free(t);
	free(rows);
	if (sampled)
		vgl_sprofile_release(&sp);
	return err;
}
