/*
 * out-view.c - `vigil view`: one self-contained HTML page (no network,
 * no other file) of a counting profile, a sampled one, or both joined:
 * a flame graph with exact calls and sampled time on every frame, the
 * flat table, a function's callers and callees, and a per-thread filter.
 *
 * The page is the template views/view.html (made into a C string at
 * build time, build/gen/view-html.h) with the profile in it as one JSON
 * object, inside <script type="application/json">: strings written as
 * VGL_TEXT_JSON_SCRIPT, so no function name can end that element.  The
 * encoding (docs/view.md) is tuned for size, since the page must stay
 * small and parse fast for profiles of 10^5 edges and 10^6 samples:
 * every function is named once and then referred to by its index; the
 * stacks are a tree of call paths (each distinct path prefix one node,
 * its parent and function), and each stack is one leaf node with its
 * thread and weight; the counts of the edges per thread are pairs of an
 * edge index and a count.  Everything the page shows (calls, self and
 * total samples, the callers and callees of a function) is computed in
 * it from these, for all threads or one.
 *
 * Functions of the two profiles are joined by the rule of `vigil report
 * COUNTING SAMPLED` (report_both_match): the page's functions are the
 * counting profile's, in its order, then the sampled functions it does
 * not have, then (a counting profile alone, whose stacks are unfolded
 * from its edges by views/unfold.c) the cycles, then those of each
 * thread's own unfolding, then (--diff) the base profile's functions
 * that are not among them, matched by label: a base is another run or
 * another build, whose addresses differ.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "by.h"
#include "out.h"
#include "report-both.h"
#include "text.h"
#include "view-html.h"

/* The page's picture of the profiles while it is written. */
struct view {
	const struct out_input *c, *s;     /* either may be NULL */
	/* The page's functions: fn[u], and calls[u] with has_calls[u]
	 * (0: not counted, null in the page). */
	const struct vgl_pfunc **fn;
	uint64_t *calls;
	unsigned char *has_calls, *inlined;
	size_t nf, ncounting;
	uint32_t *of_sampled;              /* sampled function -> u */
	const char **modules;              /* base names, once each */
	size_t nmodules;
	int *module;                       /* of u, -1 for none */
	uint32_t *tids;                    /* ascending */
	char (*tnames)[17];                /* "" when unknown */
	size_t nthreads;
	/* The tree of call paths: node k has parent[k] (UINT32_MAX: a
	 * root) and function func[k]; parents come before children. */
	uint32_t *parent, *func;
	size_t nnodes, nodecap;
	size_t *hash;                      /* (parent, func) -> k + 1 */
	size_t hashcap;
	/* The stacks: leaf node, thread (UINT32_MAX: all), weight. */
	struct vstack {
		uint32_t node, thread;
		uint64_t weight;
	} *stacks;
	size_t nstacks, stackcap;
	/* The sampled file's stack i is the page's (node, thread) pair
	 * file_node[i], file_thread[i] (node UINT32_MAX: in no stack of
	 * the page), so that its readings can be put on the page's. */
	uint32_t *file_node, *file_thread;
	size_t cycles, ncycles;            /* u of the first cycle, and
	                                    * how many */
	struct stacks st;                  /* the unfolded stacks of a
	                                    * counting profile alone */
	int unfolded;
	/* And each thread's, when it has a few: their cycles are functions
	 * tcycles .. + ntcycles, made here (owned). */
	int thread_graphs, is_base;
	size_t tcycles, ntcycles, fncap;
	struct vgl_pfunc **owned;
	size_t nowned;
	/* A base profile (--diff): its functions' indexes among the
	 * page's, which are this view's then extra[] (the base's that this
	 * one does not have). */
	uint32_t *map;
	const struct vgl_pfunc **extra;
	unsigned char *extra_cycle;        /* extra[i] is a cycle */
	size_t nextra;
};

/* A string of the program's (a name, a path) as a JSON string that is
 * safe inside the page's <script> element. */
static void put_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	putc('"', f);
	vgl_text_write(f, s, VGL_TEXT_JSON_SCRIPT);
	putc('"', f);
}

static uint64_t hash_pair(uint32_t parent, uint32_t func)
{
	uint64_t h = ((uint64_t)parent << 32 | func) * 0x9e3779b97f4a7c15ull;

	return h ^ (h >> 31);
}

/* Doubles the node hash when it is half full.  0 or -ENOMEM. */
static int grow_hash(struct view *v)
{
	size_t cap = v->hashcap ? 2 * v->hashcap : 4096, i, *t;

	if (2 * (v->nnodes + 1) <= v->hashcap)
		return 0;
	t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (i = 0; i < v->nnodes; i++) {
		size_t k = hash_pair(v->parent[i], v->func[i]) & (cap - 1);

		while (t[k])
			k = (k + 1) & (cap - 1);
		t[k] = i + 1;
	}
	free(v->hash);
	v->hash = t;
	v->hashcap = cap;
	return 0;
}

/* The node of func under parent, made if new; UINT32_MAX for no
 * memory. */
static uint32_t node(struct view *v, uint32_t parent, uint32_t func)
{
	size_t k;

	if (grow_hash(v))
		return UINT32_MAX;
	for (k = hash_pair(parent, func) & (v->hashcap - 1); v->hash[k];
	     k = (k + 1) & (v->hashcap - 1)) {
		size_t n = v->hash[k] - 1;

		if (v->parent[n] == parent && v->func[n] == func)
			return (uint32_t)n;
	}
	if (v->nnodes == v->nodecap) {
		size_t cap = v->nodecap ? 2 * v->nodecap : 4096;
		uint32_t *a = realloc(v->parent, cap * sizeof(*a));
		uint32_t *b;

		if (!a)
			return UINT32_MAX;
		v->parent = a;
		b = realloc(v->func, cap * sizeof(*b));
		if (!b)
			return UINT32_MAX;
		v->func = b;
		v->nodecap = cap;
	}
	v->parent[v->nnodes] = parent;
	v->func[v->nnodes] = func;
	v->hash[k] = ++v->nnodes;
	return (uint32_t)(v->nnodes - 1);
}

/* Adds the stack funcs[0 .. depth) (page functions, outermost first)
 * of thread with weight.  0 or -ENOMEM. */
static int add_stack(struct view *v, const uint32_t *funcs, size_t depth,
		     uint32_t thread, uint64_t weight)
{
	uint32_t n = UINT32_MAX;
	size_t i;

	if (!depth || !weight)
		return 0;
	for (i = 0; i < depth; i++) {
		n = node(v, n, funcs[i]);
		if (n == UINT32_MAX)
			return -ENOMEM;
	}
	if (v->nstacks == v->stackcap) {
		size_t cap = v->stackcap ? 2 * v->stackcap : 4096;
		struct vstack *s = realloc(v->stacks, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		v->stacks = s;
		v->stackcap = cap;
	}
	v->stacks[v->nstacks++] = (struct vstack){ n, thread, weight };
	return 0;
}

static int cmp_vstack(const void *a, const void *b)
{
	const struct vstack *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (x->thread > y->thread) - (x->thread < y->thread);
}

/* Equal (node, thread) stacks added up: the file's stacks differ in
 * addresses that fall in the same functions. */
static void merge_stacks(struct view *v)
{
	size_t i, n = 0;

	if (v->nstacks)
		qsort(v->stacks, v->nstacks, sizeof(*v->stacks), cmp_vstack);
	for (i = 0; i < v->nstacks; i++) {
		if (n && !cmp_vstack(&v->stacks[n - 1], &v->stacks[i])) {
			uint64_t w = v->stacks[n - 1].weight + v->stacks[i].weight;

			v->stacks[n - 1].weight = w < v->stacks[i].weight ?
						  UINT64_MAX : w;
			continue;
		}
		v->stacks[n++] = v->stacks[i];
	}
	v->nstacks = n;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The index of tid in v->tids. */
static uint32_t thread_index(const struct view *v, uint32_t tid)
{
	const uint32_t *hit = v->nthreads ?
		bsearch(&tid, v->tids, v->nthreads, sizeof(tid), cmp_u32) : NULL;

	return hit ? (uint32_t)(hit - v->tids) : UINT32_MAX;
}

/* The threads of both files, by tid, named as the samples saw them. */
static int make_threads(struct view *v)
{
	size_t n = 0, i, cap = 1;

	if (v->c)
		cap += v->c->p.nthreads;
	if (v->s)
		cap += v->s->r.nstacks + v->s->r.nsample_threads;
	v->tids = malloc(cap * sizeof(*v->tids));
	if (!v->tids)
		return -ENOMEM;
	for (i = 0; v->c && i < v->c->p.nthreads; i++)
		v->tids[n++] = v->c->p.threads[i].tid;
	for (i = 0; v->s && i < v->s->r.nstacks; i++)
		v->tids[n++] = v->s->r.stacks[i].tid;
	if (n)
		qsort(v->tids, n, sizeof(*v->tids), cmp_u32);
	for (i = 0, v->nthreads = 0; i < n; i++)
		if (!v->nthreads || v->tids[v->nthreads - 1] != v->tids[i])
			v->tids[v->nthreads++] = v->tids[i];
	v->tnames = calloc(v->nthreads + 1, sizeof(*v->tnames));
	if (!v->tnames)
		return -ENOMEM;
	/* The last name a thread had (a thread may rename itself). */
	for (i = 0; v->s && i < v->s->r.nsample_threads; i++) {
		const struct vgl_sample_thread *t = &v->s->r.sample_threads[i];
		uint32_t k = thread_index(v, t->tid);

		if (k != UINT32_MAX)
			snprintf(v->tnames[k], sizeof(v->tnames[k]), "%.*s",
				 (int)sizeof(t->name), t->name);
	}
	return 0;
}

/* The page's index of fn's module, made at its first function. */
static int module_index(struct view *v, const struct vgl_pfunc *fn)
{
	size_t i;

	if (!fn->module_name)
		return -1;
	for (i = 0; i < v->nmodules; i++)
		if (v->modules[i] == fn->module_name ||
		    !strcmp(v->modules[i], fn->module_name))
			return (int)i;
	v->modules[v->nmodules] = fn->module_name;
	return (int)v->nmodules++;
}

/* The page's functions: the counting ones, then the sampled ones the
 * counting profile does not have, then room for ncycles cycles. */
static int make_functions(struct view *v, size_t ncycles)
{
	const struct vgl_profile *p = v->c ? &v->c->p : NULL;
	const struct vgl_sprofile *sp = v->s ? &v->s->sp : NULL;
	size_t cap = (p ? p->nfuncs : 0) + (sp ? sp->nfuncs : 0) + ncycles + 1;
	size_t i, nmods = (p ? p->r->nmodules : 0) + (sp ? sp->r->nmodules : 0);

	v->fn = calloc(cap, sizeof(*v->fn));
	v->calls = calloc(cap, sizeof(*v->calls));
	v->has_calls = calloc(cap, 1);
	v->inlined = calloc(cap, 1);
	v->module = calloc(cap, sizeof(*v->module));
	/* Functions without a module in the reader's list still name one
	 * (a base name): room for every function's, at worst. */
	v->modules = calloc(nmods + cap, sizeof(*v->modules));
	if (!v->fn || !v->calls || !v->has_calls || !v->inlined ||
	    !v->module || !v->modules)
		return -ENOMEM;
	for (i = 0; p && i < p->nfuncs; i++) {
		v->fn[v->nf] = &p->funcs[i];
		v->calls[v->nf] = p->funcs[i].calls;
		/* A caller never called itself was not counted (built
		 * without vigil's flags): its calls are unknown, not 0. */
		v->has_calls[v->nf++] = p->funcs[i].calls > 0;
	}
	v->ncounting = v->nf;
	if (sp) {
		v->of_sampled = p ? report_both_match(v->c, v->s) :
			malloc((sp->nfuncs + 1) * sizeof(*v->of_sampled));
		if (!v->of_sampled)
			return -ENOMEM;
		for (i = 0; i < sp->nfuncs; i++) {
			uint32_t u = p ? v->of_sampled[i] : VGL_PROFILE_NONE;

			if (u == VGL_PROFILE_NONE) {
				u = (uint32_t)v->nf++;
				v->fn[u] = &sp->funcs[i];
				/* Beside a counting profile, a function it
				 * has no calls of was not counted (built
				 * without vigil's flags): unknown, not 0;
				 * and an inlined copy makes none of its own. */
				v->has_calls[u] = 0;
			}
			v->inlined[u] = sp->funcs[i].inlined_copy;
			if (v->inlined[u] && !v->calls[u])
				v->has_calls[u] = 0;
			v->of_sampled[i] = u;
		}
	}
	for (i = 0; i < v->nf; i++)
		v->module[i] = module_index(v, v->fn[i]);
	return 0;
}

/* The stacks of the sampled profile, per thread. */
static int sampled_stacks(struct view *v)
{
	const struct vgl_sprofile *sp = &v->s->sp;
	uint32_t *u = NULL;
	size_t i, j, cap = 0;
	int err = 0;

	v->file_node = malloc((v->s->r.nstacks + 1) * sizeof(*v->file_node));
	v->file_thread = malloc((v->s->r.nstacks + 1) *
				sizeof(*v->file_thread));
	if (!v->file_node || !v->file_thread)
		return -ENOMEM;
	for (i = 0; !err && i < v->s->r.nstacks; i++) {
		const struct vgl_sstack *st = &sp->file_stacks[i];
		size_t before = v->nstacks;

		if (st->depth > cap) {
			uint32_t *n = realloc(u, (st->depth + 64) * sizeof(*n));

			if (!n) {
				err = -ENOMEM;
				break;
			}
			u = n;
			cap = st->depth + 64;
		}
		for (j = 0; j < st->depth; j++)
			u[j] = v->of_sampled[sp->chain[st->first + j]];
		err = add_stack(v, u, st->depth,
				thread_index(v, v->s->r.stacks[i].tid), st->count);
		v->file_node[i] = v->nstacks > before ?
				  v->stacks[before].node : UINT32_MAX;
		v->file_thread[i] = v->nstacks > before ?
				    v->stacks[before].thread : UINT32_MAX;
	}
	free(u);
	return err;
}

struct walk {
	struct view *v;
	const struct stacks *s;
	uint32_t *u;
	size_t cap;
	const uint32_t *fmap;      /* the page's function of each of s's,
	                            * or NULL: the same index */
	size_t cycle;              /* the page's function of s's cycle 0 */
	uint32_t thread;           /* UINT32_MAX: all */
};

/* One unfolded stack of the counting profile: its frames are the
 * functions, then the cycles. */
static int walked(void *arg, const uint32_t *frames, size_t depth,
		  uint64_t weight)
{
	struct walk *w = arg;
	size_t i, nfuncs = w->s->p->nfuncs;

	if (depth > w->cap) {
		uint32_t *n = realloc(w->u, (depth + 64) * sizeof(*n));

		if (!n)
			return -ENOMEM;
		w->u = n;
		w->cap = depth + 64;
	}
	for (i = 0; i < depth; i++)
		w->u[i] = frames[i] >= nfuncs ?
			  (uint32_t)(w->cycle + frames[i] - nfuncs) :
			  w->fmap ? w->fmap[frames[i]] : frames[i];
	return add_stack(w->v, w->u, depth, w->thread, weight);
}

/* The counting edges, callers and callees added up over call sites:
 * "edges" and "thread_edges". */
struct pair {
	uint32_t caller, callee;
	size_t edge;                    /* vgl_pedge index */
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	return (x->callee > y->callee) - (x->callee < y->callee);
}

/* A count of one thread on one page edge. */
struct tcount {
	uint32_t thread, edge;
	uint64_t count;
};

static int cmp_tcount(const void *a, const void *b)
{
	const struct tcount *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->edge > y->edge) - (x->edge < y->edge);
}

/* Counts saturate, as every count of the model does. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/*
 * "edges" and, unless base, "thread_edges" of v's counting profile, its
 * functions renamed by v->map when it has one.
 */
static int write_edges(struct view *v, FILE *f, int base)
{
	const struct vgl_profile *p = &v->c->p;
	const struct vgl_reader *r = p->r;
	struct pair *pr = malloc((p->nedges + 1) * sizeof(*pr));
	struct tcount *tc = malloc((r->nthread_counts + 1) * sizeof(*tc));
	size_t i, j, k, n = 0, ntc = 0;

	if (!pr || !tc) {
		free(pr);
		free(tc);
		return -ENOMEM;
	}
	for (i = 0; i < p->nedges; i++) {
		uint32_t a = p->edges[i].caller, b = p->edges[i].callee;

		pr[i] = (struct pair){ v->map ? v->map[a] : a,
				       v->map ? v->map[b] : b, i };
	}
	if (p->nedges)
		qsort(pr, p->nedges, sizeof(*pr), cmp_pair);
	fputs(",\n\"edges\":[", f);
	for (i = 0; i < p->nedges; i = j) {
		uint64_t calls = 0;

		for (j = i; j < p->nedges && !cmp_pair(&pr[i], &pr[j]); j++) {
			const struct vgl_edge_info *e = p->edges[pr[j].edge].raw;

			calls = sat_add(calls, p->edges[pr[j].edge].calls);
			for (k = e->first_thread;
			     k < e->first_thread + e->nthreads &&
			     k < r->nthread_counts; k++)
				tc[ntc++] = (struct tcount){
					thread_index(v, r->thread_counts[k].tid),
					(uint32_t)n, r->thread_counts[k].count };
		}
		/* Callers ascending: each as the step from the last. */
		fprintf(f, "%s%" PRIu32 ",%" PRIu32 ",%" PRIu64, n ? "," : "",
			pr[i].caller - (i ? pr[i - 1].caller : 0), pr[i].callee,
			calls);
		n++;
	}
	if (base) {
		putc(']', f);
		free(pr);
		free(tc);
		return 0;
	}
	fputs("],\n\"thread_edges\":[", f);
	if (ntc)
		qsort(tc, ntc, sizeof(*tc), cmp_tcount);
	for (i = 0, k = 0; i < v->nthreads; i++) {
		uint32_t last = 0;
		int first = 1;

		/* The one thread of a counting profile has every edge's
		 * calls: null, not the same numbers again. */
		if (p->nthreads == 1 && v->tids[i] == p->threads[0].tid) {
			fputs(i ? ",null" : "null", f);
			while (k < ntc && tc[k].thread == i)
				k++;
			continue;
		}
		fputs(i ? ",[" : "[", f);
		for (; k < ntc && tc[k].thread == i; k = j) {
			uint64_t count = 0;

			for (j = k; j < ntc && tc[j].thread == i &&
			     tc[j].edge == tc[k].edge; j++)
				count = sat_add(count, tc[j].count);
			fprintf(f, "%s%" PRIu32 ",%" PRIu64, first ? "" : ",",
				tc[k].edge - last, count);
			last = tc[k].edge;
			first = 0;
		}
		putc(']', f);
	}
	putc(']', f);
	free(pr);
	free(tc);
	return 0;
}

/* The object's opening and its scalars: what the profiles are. */
static void write_head(struct view *v, FILE *f, const char *title)
{
	uint32_t hz = v->s ? v->s->r.stacks_head.frequency : 0;

	fputs("{\"version\":1,\n\"title\":", f);
	put_str(f, title);
	fputs(",\n\"counting\":", f);
	put_str(f, v->c ? v->c->path : NULL);
	fputs(",\n\"sampled\":", f);
	put_str(f, v->s ? v->s->path : NULL);
	fprintf(f, ",\n\"period_ns\":%" PRIu64 ",\n\"unit\":\"%s\"",
		hz ? (uint64_t)1000000000 / hz : (uint64_t)0,
		v->s ? "samples" : "calls");
	fprintf(f, ",\n\"total_calls\":%" PRIu64 ",\n\"samples\":%" PRIu64,
		v->c ? v->c->p.total_calls : 0, v->s ? v->s->sp.samples : 0);
}

/* "modules" to "threads": every function named once, its module, its
 * calls; the cycles and the inlined copies by index; the threads. */
static void write_functions(struct view *v, FILE *f)
{
	size_t i;
	int first = 1;

	fputs(",\n\"modules\":[", f);
	for (i = 0; i < v->nmodules; i++) {
		if (i)
			putc(',', f);
		put_str(f, v->modules[i]);
	}
	fputs("],\n\"names\":[", f);
	for (i = 0; i < v->nf + v->nextra; i++) {
		if (i)
			putc(',', f);
		put_str(f, i < v->nf ? v->fn[i]->label :
			   v->extra[i - v->nf]->label);
	}
	fputs("],\n\"module\":[", f);
	for (i = 0; i < v->nf + v->nextra; i++)
		fprintf(f, "%s%d", i ? "," : "", i < v->nf ? v->module[i] : -1);
	fputs("],\n\"calls\":", f);
	if (!v->c) {
		fputs("null", f);
	} else {
		putc('[', f);
		for (i = 0; i < v->nf; i++) {
			if (i)
				putc(',', f);
			if (v->has_calls[i])
				fprintf(f, "%" PRIu64, v->calls[i]);
			else
				fputs("null", f);
		}
		/* The base's functions that this profile never saw called. */
		for (i = 0; i < v->nextra; i++)
			fputs(",0", f);
		putc(']', f);
	}
	fputs(",\n\"inlined\":[", f);
	for (i = 0; i < v->nf; i++)
		if (v->inlined[i]) {
			fprintf(f, "%s%zu", first ? "" : ",", i);
			first = 0;
		}
	/* Frames of the graph that are no function, left out of the table. */
	fputs("],\n\"cycles\":[", f);
	for (i = 0; i < v->ncycles; i++)
		fprintf(f, "%s%zu", i ? "," : "", v->cycles + i);
	for (i = 0; i < v->ntcycles; i++)
		fprintf(f, "%s%zu", i || v->ncycles ? "," : "", v->tcycles + i);
	for (i = 0, first = !v->ncycles && !v->ntcycles; i < v->nextra; i++)
		if (v->extra_cycle[i]) {
			fprintf(f, "%s%zu", first ? "" : ",", v->nf + i);
			first = 0;
		}
	putc(']', f);
	fprintf(f, ",\n\"thread_graphs\":%s", v->thread_graphs ? "true" : "false");
	fputs(",\n\"threads\":[", f);
	for (i = 0; i < v->nthreads; i++) {
		fprintf(f, "%s[%" PRIu32 ",", i ? "," : "", v->tids[i]);
		put_str(f, v->tnames[i][0] ? v->tnames[i] : NULL);
		putc(']', f);
	}
	putc(']', f);
}

/* "nodes" and "stacks", functions renamed by v->map when it has one. */
static void write_tree(const struct view *v, FILE *f)
{
	size_t i;

	/* Small numbers are short: a node's parent as how far back it is
	 * (mostly the node just before), a stack's node as the step from
	 * the last stack's (they are sorted by node). */
	fputs(",\n\"nodes\":[", f);
	for (i = 0; i < v->nnodes; i++)
		fprintf(f, "%s%zu,%" PRIu32, i ? "," : "",
			v->parent[i] == UINT32_MAX ? (size_t)0 :
			i - v->parent[i], v->map ? v->map[v->func[i]] : v->func[i]);
	fputs("],\n\"stacks\":[", f);
	for (i = 0; i < v->nstacks; i++)
		fprintf(f, "%s%" PRIu32 ",%d,%" PRIu64, i ? "," : "",
			v->stacks[i].node - (i ? v->stacks[i - 1].node : 0),
			v->stacks[i].thread == UINT32_MAX ? -1 :
			(int)v->stacks[i].thread, v->stacks[i].weight);
	putc(']', f);
}

/* Frees what v made (never the profiles, which are the caller's). */
static void view_release(struct view *v)
{
	size_t i;

	free(v->fn);
	free(v->calls);
	free(v->has_calls);
	free(v->inlined);
	free(v->module);
	free(v->modules);
	free(v->of_sampled);
	free(v->tids);
	free(v->tnames);
	free(v->parent);
	free(v->func);
	free(v->hash);
	free(v->stacks);
	free(v->file_node);
	free(v->file_thread);
	free(v->map);
	free(v->extra);
	free(v->extra_cycle);
	for (i = 0; i < v->nowned; i++) {
		free((char *)v->owned[i]->label);
		free(v->owned[i]);
	}
	free(v->owned);
	if (v->unfolded)
		stacks_release(&v->st);
}

/* Room for n more functions in v's arrays.  0 or -ENOMEM. */
static int grow_functions(struct view *v, size_t n)
{
	size_t cap = v->fncap, i;
	void *a;

	if (v->nf + n <= cap)
		return 0;
	cap = 2 * (v->nf + n);
#define GROW(field) \
	do { \
		a = realloc(v->field, cap * sizeof(*v->field)); \
		if (!a) \
			return -ENOMEM; \
		v->field = a; \
	} while (0)
	GROW(fn);
	GROW(calls);
	GROW(has_calls);
	GROW(inlined);
	GROW(module);
#undef GROW
	for (i = v->nf; i < cap; i++) {
		v->calls[i] = 0;
		v->has_calls[i] = v->inlined[i] = 0;
		v->module[i] = -1;
	}
	v->fncap = cap;
	return 0;
}

/* A counting profile's functions, by module and address. */
static int cmp_fn_key(const void *a, const void *b)
{
	const struct vgl_pfunc *x = *(const struct vgl_pfunc *const *)a;
	const struct vgl_pfunc *y = *(const struct vgl_pfunc *const *)b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Threads whose graphs are unfolded one by one: each costs a model of
 * the profile, so a program of many threads keeps the graph of all. */
#define VIEW_THREAD_GRAPHS 32

/*
 * The unfolded stacks of each thread of a counting profile alone, so
 * that the graph is the chosen thread's, as the numbers are: the
 * profile's edges cut down to that thread's counts (by.h), modelled
 * and unfolded again.  A function is the same in both models by module
 * and address; a thread's cycles are functions of their own.
 */
static int thread_stacks(struct view *v)
{
	const struct out_input *c = v->c;
	const struct vgl_pfunc **idx;
	uint32_t *fmap = NULL;
	size_t t, i;
	int err = 0;

	if (c->p.nthreads < 2 || c->p.nthreads > VIEW_THREAD_GRAPHS)
		return 0;
	idx = malloc((c->p.nfuncs + 1) * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (i = 0; i < c->p.nfuncs; i++)
		idx[i] = &c->p.funcs[i];
	qsort(idx, c->p.nfuncs, sizeof(*idx), cmp_fn_key);
	v->tcycles = v->nf;
	for (t = 0; !err && t < c->p.nthreads; t++) {
		struct vgl_reader r = c->r;
		struct vgl_profile tp;
		struct stacks ts;
		struct walk w = { v, &ts, NULL, 0, NULL, 0,
				  thread_index(v, c->p.threads[t].tid) };

		r.edges = malloc((c->r.nedges + 1) * sizeof(*r.edges));
		if (!r.edges) {
			err = -ENOMEM;
			break;
		}
		memcpy(r.edges, c->r.edges, c->r.nedges * sizeof(*r.edges));
		r.nstacks = 0;
		by_keep_thread(&r, c->p.threads[t].tid);
		err = vgl_profile_build(&tp, &r, c->sym);
		if (err) {
			free(r.edges);
			break;
		}
		err = stacks_build(&ts, &tp);
		if (!err) {
			uint32_t *m = realloc(fmap, (tp.nfuncs + 1) * sizeof(*m));

			err = m ? grow_functions(v, ts.ncycles) : -ENOMEM;
			if (m)
				fmap = m;
		}
		for (i = 0; !err && i < tp.nfuncs; i++) {
			const struct vgl_pfunc *key = &tp.funcs[i];
			const struct vgl_pfunc **hit = bsearch(&key, idx, c->p.nfuncs,
							       sizeof(*idx), cmp_fn_key);

			/* Every function of a thread is one of the whole's. */
			fmap[i] = hit ? (uint32_t)(*hit - c->p.funcs) : 0;
		}
		w.fmap = fmap;
		w.cycle = v->nf;
		for (i = 0; !err && i < ts.ncycles; i++) {
			const char *label = ts.frames[ts.cycles[i].frame].label;
			struct vgl_pfunc *cf = calloc(1, sizeof(*cf));
			struct vgl_pfunc **o = realloc(v->owned, (v->nowned + 1) *
						       sizeof(*o));

			if (o)
				v->owned = o;
			if (cf && o && (cf->label = strdup(label))) {
				cf->name = cf->label;
				cf->module = VGL_PROFILE_NO_MODULE;
				v->owned[v->nowned++] = cf;
				v->fn[v->nf] = cf;
				v->calls[v->nf] = ts.cycles[i].calls;
				v->has_calls[v->nf++] = 1;
				continue;
			}
			free(cf);
			err = -ENOMEM;
		}
		if (!err)
			err = stacks_walk(&ts, walked, &w);
		free(w.u);
		stacks_release(&ts);
		vgl_profile_release(&tp);
		free(r.edges);
	}
	v->ntcycles = v->nf - v->tcycles;
	v->thread_graphs = !err;
	free(fmap);
	free(idx);
	return err;
}

/* v's functions, threads and stacks, to write. */
static int view_build(struct view *v)
{
	struct walk w = { v, &v->st, NULL, 0, NULL, 0, UINT32_MAX };
	int err;
	size_t i;

	/* A counting profile alone: its stacks are unfolded from its
	 * edges, with a frame per cycle. */
	if (v->c && !v->s) {
		err = stacks_build(&v->st, &v->c->p);
		if (err)
			return err;
		v->unfolded = 1;
	}
	err = make_functions(v, v->unfolded ? v->st.ncycles : 0);
	if (!err)
		err = make_threads(v);
	v->cycles = v->nf;
	if (!err && v->unfolded) {
		for (i = 0; i < v->st.ncycles; i++) {
			const struct stacks_cycle *cy = &v->st.cycles[i];

			v->fn[v->nf] = &v->st.frames[cy->frame];
			v->calls[v->nf] = cy->calls;
			v->has_calls[v->nf] = 1;
			v->module[v->nf++] = -1;
		}
		v->ncycles = v->st.ncycles;
		w.cycle = v->cycles;
		err = stacks_walk(&v->st, walked, &w);
		v->fncap = v->nf;
		if (!err && !v->is_base)
			err = thread_stacks(v);
	}
	if (!err && v->s)
		err = sampled_stacks(v);
	if (!err)
		merge_stacks(v);
	free(w.u);
	return err;
}

static uint64_t hash_label(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/*
 * The functions of base (a profile of the same program, another run or
 * another build) among v's: by label, as a differential flame graph
 * joins frames by name, since addresses change from build to build.
 * The base's others are v's extra functions.
 */
static int join_base(struct view *v, struct view *base)
{
	size_t cap = 16, i, k, *t;

	while (cap < 2 * (v->nf + 1))
		cap *= 2;
	t = calloc(cap, sizeof(*t));
	base->map = malloc((base->nf + 1) * sizeof(*base->map));
	v->extra = malloc((base->nf + 1) * sizeof(*v->extra));
	v->extra_cycle = calloc(base->nf + 1, 1);
	if (!t || !base->map || !v->extra || !v->extra_cycle) {
		free(t);
		return -ENOMEM;
	}
	for (i = 0; i < v->nf; i++) {
		for (k = hash_label(v->fn[i]->label) & (cap - 1); t[k];
		     k = (k + 1) & (cap - 1))
			if (!strcmp(v->fn[t[k] - 1]->label, v->fn[i]->label))
				break;
		if (!t[k])
			t[k] = i + 1;
	}
	for (i = 0; i < base->nf; i++) {
		const char *label = base->fn[i]->label;

		for (k = hash_label(label) & (cap - 1); t[k];
		     k = (k + 1) & (cap - 1))
			if (!strcmp(v->fn[t[k] - 1]->label, label))
				break;
		if (t[k]) {
			base->map[i] = (uint32_t)(t[k] - 1);
			continue;
		}
		base->map[i] = (uint32_t)(v->nf + v->nextra);
		v->extra_cycle[v->nextra] = i >= base->cycles &&
					    i < base->cycles + base->ncycles;
		v->extra[v->nextra++] = base->fn[i];
	}
	free(t);
	return 0;
}

/* "base": what the page compares v with, in v's functions. */
static int write_base(struct view *v, struct view *base, FILE *f)
{
	size_t n = v->nf + v->nextra, i;
	uint64_t *calls = calloc(n + 1, sizeof(*calls));
	unsigned char *has = calloc(n + 1, 1);
	int err = 0;

	if (!calls || !has) {
		free(calls);
		free(has);
		return -ENOMEM;
	}
	for (i = 0; i < base->nf; i++) {
		calls[base->map[i]] = sat_add(calls[base->map[i]], base->calls[i]);
		has[base->map[i]] |= base->has_calls[i];
	}
	fputs(",\n\"base\":", f);
	write_head(base, f, base->c ? base->c->path : base->s->path);
	fputs(",\n\"calls\":", f);
	if (base->c) {
		for (i = 0; i < n; i++) {
			putc(i ? ',' : '[', f);
			fprintf(f, "%" PRIu64, has[i] ? calls[i] : 0);
		}
		fputs(n ? "]" : "[]", f);
		err = write_edges(base, f, 1);
	} else {
		fputs("null,\n\"edges\":[]", f);
	}
	if (!err) {
		write_tree(base, f);
		putc('}', f);
	}
	free(calls);
	free(has);
	return err;
}

/* The CPU share of ns on a CPU in the wall time from a to b: "null"
 * when it is not known (the first reading, a clock that went back). */
static void put_share(FILE *f, uint64_t cpu0, uint64_t cpu1, uint64_t a,
		      uint64_t b)
{
	if (b <= a || cpu1 < cpu0)
		fputs("null", f);
	else
		fprintf(f, "%.1f", 100.0 * (double)(cpu1 - cpu0) /
			(double)(b - a));
}

/*
 * The timeline's bounds.  A recording of many readings (1 ms for
 * minutes, or a long one at 100 ms) would give the page a point per
 * reading and up to one (reading, stack) entry per stack sample: a
 * million samples of 100,000 stacks in 1000 readings made a 12 MB page,
 * in 100,000 readings an 18 MB one (docs/view.md).  So consecutive readings are grouped into points: at
 * most TL_POINTS (a screen is some 1200 px wide: more points than that
 * are not seen), and into fewer, larger groups while the entries of
 * "rs" would take more than TL_BYTES, which keeps the page of a million
 * samples in 400,000 stacks (7.2 MB without a timeline) under 10 MB
 * with room to spare for the points themselves (their times and CPU
 * shares: some 100 KB at 2000 points of 4 threads), and a page's open
 * time short; or more than the rest of the page leaves under TL_PAGE
 * (10 MB, less what the estimates leave out: the timeline's keys and
 * brackets), as a counting profile's page joined to it may.  A
 * selection is of whole points, so what it counts stays exact.
 */
#define TL_POINTS 2000
#define TL_BYTES 2000000
#define TL_PAGE 9900000

/* The page's records (v->stacks, merged) of the file's reading entries:
 * a reading, or once grouped a point, a record and its samples. */
struct rstack {
	uint32_t reading, rec;
	uint64_t count;
};

static int cmp_rstack(const void *a, const void *b)
{
	const struct rstack *x = a, *y = b;

	if (x->reading != y->reading)
		return x->reading < y->reading ? -1 : 1;
	return (x->rec > y->rec) - (x->rec < y->rec);
}

static int cmp_rstack_rec(const void *a, const void *b)
{
	const struct rstack *x = a, *y = b;

	if (x->rec != y->rec)
		return x->rec < y->rec ? -1 : 1;
	return (x->reading > y->reading) - (x->reading < y->reading);
}

static size_t digits(uint64_t x)
{
	size_t n = 1;

	while (x >= 10) {
		x /= 10;
		n++;
	}
	return n;
}

/*
 * The bytes of the triples of "rs" with `per` readings a point, as
 * write_reading_stacks() writes them (a comma after each: one more than
 * it writes between its brackets): rs[0 .. n) sorted by record then
 * reading; last[] and used[] scratch room for npoints.
 */
static size_t rs_bytes(const struct rstack *rs, size_t n, size_t per,
		       size_t npoints, uint32_t *last, unsigned char *used)
{
	size_t bytes = 0, i, k, p, prev;

	memset(used, 0, npoints);
	for (i = 0; i < n; i = k) {
		uint32_t pt = rs[i].reading / per;
		uint64_t count = 0;

		for (k = i; k < n && rs[k].rec == rs[i].rec &&
			    rs[k].reading / per == pt; k++)
			count = sat_add(count, rs[k].count);
		/* The point's step (0 but for its first triple, below),
		 * the record as the step from the point's one before, the
		 * samples, three commas. */
		bytes += 1 + digits(rs[i].rec - (used[pt] ? last[pt] : 0)) +
			 digits(count) + 3;
		last[pt] = rs[i].rec;
		used[pt] = 1;
	}
	/* Each point's first triple steps from the point before. */
	for (p = 0, prev = 0; p < npoints; p++)
		if (used[p]) {
			bytes += digits(p - prev) - 1;
			prev = p;
		}
	return bytes;
}

/*
 * The readings a point: the fewest, from n / TL_POINTS up, with which
 * "rs" takes at most budget bytes; 0 when even one point of all readings
 * would take more (then no selection is possible: "rs" is null).  The
 * bytes shrink, nearly always, as the points grow, so a bisection
 * between a size too small and one that fits finds one that fits.
 */
static size_t points_per(const struct rstack *rs, size_t n, size_t nr,
			 size_t budget, int *err)
{
	size_t lo = (nr + TL_POINTS - 1) / TL_POINTS, hi = nr;
	uint32_t *last = malloc((nr + 1) * sizeof(*last));
	unsigned char *used = malloc(nr + 1);

	*err = 0;
	if (!last || !used) {
		*err = -ENOMEM;
		lo = 0;
		goto out;
	}
	if (!lo)
		lo = 1;
	if (rs_bytes(rs, n, lo, (nr + lo - 1) / lo, last, used) <= budget)
		goto out;
	if (rs_bytes(rs, n, hi, 1, last, used) > budget) {
		lo = 0;
		goto out;
	}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (rs_bytes(rs, n, mid, (nr + mid - 1) / mid, last,
			     used) <= budget)
			hi = mid;
		else
			lo = mid;
	}
	lo = hi;
out:
	free(last);
	free(used);
	return lo;
}

/* The file's reading entries as page records, sorted by record then
 * reading; *n of them.  NULL for no memory. */
static struct rstack *reading_stacks(const struct view *v, size_t *n)
{
	const struct vgl_reader *r = &v->s->r;
	struct rstack *rs = malloc((r->nreadings + 1) * sizeof(*rs));
	size_t i;

	*n = 0;
	if (!rs)
		return NULL;
	for (i = 0; i < r->nreadings; i++) {
		const struct vgl_stack_reading *e = &r->readings[i];
		struct vstack key = { v->file_node[e->stack],
				      v->file_thread[e->stack], 0 };
		const struct vstack *hit;

		if (key.node == UINT32_MAX)
			continue;
		hit = bsearch(&key, v->stacks, v->nstacks, sizeof(*v->stacks),
			      cmp_vstack);
		if (hit)
			rs[(*n)++] = (struct rstack){ e->reading,
				(uint32_t)(hit - v->stacks), e->count };
	}
	if (*n)
		qsort(rs, *n, sizeof(*rs), cmp_rstack_rec);
	return rs;
}

/* "rs" of "timeline": each page record's samples in each point of per
 * readings, by point then record (rs[0 .. n), sorted by record). */
static int write_reading_stacks(struct rstack *rs, size_t n, size_t per,
				FILE *f)
{
	size_t i, k, m = 0;
	uint32_t last = 0, rec = 0;

	fputs(",\"rs\":", f);
	if (!per) {
		fputs("null", f);
		return 0;
	}
	for (i = 0; i < n; i = k) {
		uint64_t count = 0;
		uint32_t pt = rs[i].reading / (uint32_t)per;

		for (k = i; k < n && rs[k].rec == rs[i].rec &&
			    rs[k].reading / per == pt; k++)
			count = sat_add(count, rs[k].count);
		rs[m++] = (struct rstack){ pt, rs[i].rec, count };
	}
	if (m)
		qsort(rs, m, sizeof(*rs), cmp_rstack);
	putc('[', f);
	for (i = 0; i < m; i++) {
		/* Points ascending, each as the step from the last; within
		 * one, records ascending, each the step from the last. */
		if (i && rs[i].reading == last)
			fprintf(f, ",0,%" PRIu32 ",%" PRIu64, rs[i].rec - rec,
				rs[i].count);
		else
			fprintf(f, "%s%" PRIu32 ",%" PRIu32 ",%" PRIu64,
				i ? "," : "", rs[i].reading - last, rs[i].rec,
				rs[i].count);
		last = rs[i].reading;
		rec = rs[i].rec;
	}
	putc(']', f);
	return 0;
}

/* The process's CPU share from reading a to reading b. */
static void put_cpu(FILE *f, const struct vgl_sample *a,
		    const struct vgl_sample *b)
{
	/* The CPU clock where both readings have it (finer than the clock
	 * ticks of user + system time). */
	int fine = a->cpu_run_ns && b->cpu_run_ns;

	if (a == b || (!fine && !(a->scan & b->scan & VGL_SAMPLE_CPU)))
		fputs("null", f);
	else if (fine)
		put_share(f, a->cpu_run_ns, b->cpu_run_ns, a->elapsed_ns,
			  b->elapsed_ns);
	else
		put_share(f, (a->cpu_user_us + a->cpu_sys_us) * 1000,
			  (b->cpu_user_us + b->cpu_sys_us) * 1000,
			  a->elapsed_ns, b->elapsed_ns);
}

/* The last reading of point i of per readings, of nr. */
static size_t point_last(size_t i, size_t per, size_t nr)
{
	return i * per + per - 1 < nr ? i * per + per - 1 : nr - 1;
}

/* Reading i's thread records [*from, *to). */
static void reading_threads(const struct vgl_reader *r, size_t i,
			   size_t *from, size_t *to)
{
	*from = r->sample_first[i];
	*to = *from + r->samples[i].nthreads;
}

/*
 * "timeline", for a sampled profile whose stacks have readings
 * (STACK_READINGS), in points of "per" consecutive readings each (1
 * unless there are many: TL_POINTS, TL_BYTES, TL_PAGE, of which the
 * page has taken written bytes and the template's end takes after) of
 * "readings": each
 * point's time since the start ("t", us, its last reading's), the
 * process's CPU share since the point before ("cpu", percent of one
 * CPU, from the last reading of the point before to its own last),
 * each page thread's ("threads": point, thread, percent, for the
 * shares above 0), and the points' stacks ("rs"; null when too many
 * stacks leave no selection possible).
 */
static int write_timeline(const struct view *v, FILE *f, uint64_t written,
			  size_t after)
{
	const struct vgl_reader *r = &v->s->r;
	uint64_t *last_cpu = NULL;
	size_t *last_seen = NULL, i, t, to, p, np, per, nr = r->nsamples, n;
	uint64_t reserve;
	struct rstack *rs;
	int first = 1, err;

	if (!r->has_readings || !nr)
		return 0;
	rs = reading_stacks(v, &n);
	if (!rs)
		return -ENOMEM;
	/* What the points take beside "rs", at most: a time and a share
	 * each, and a share of each thread there. */
	for (i = 0, t = 0; i < nr; i++)
		if (r->samples[i].nthreads > t)
			t = r->samples[i].nthreads;
	reserve = written + after + (nr < TL_POINTS ? nr : TL_POINTS) *
		  (24 + 16 * (uint64_t)t);
	per = points_per(rs, n, nr, reserve >= TL_PAGE ? 0 :
			 TL_PAGE - reserve < TL_BYTES ?
			 (size_t)(TL_PAGE - reserve) : TL_BYTES, &err);
	if (err) {
		free(rs);
		return err;
	}
	/* Without a selection, the points are still bounded. */
	p = per ? per : (nr + TL_POINTS - 1) / TL_POINTS;
	np = (nr + p - 1) / p;
	fprintf(f, ",\n\"timeline\":{\"readings\":%zu,\"per\":%zu,\"t\":[",
		nr, p);
	for (i = 0; i < np; i++)
		fprintf(f, "%s%" PRIu64, i ? "," : "",
			r->samples[point_last(i, p, nr)].elapsed_ns / 1000);
	fputs("],\"cpu\":[", f);
	for (i = 0; i < np; i++) {
		size_t b = point_last(i, p, nr);

		if (i)
			putc(',', f);
		put_cpu(f, &r->samples[i ? i * p - 1 : 0], &r->samples[b]);
	}
	/* A thread's share from the point before, where it was at its
	 * last reading too. */
	last_cpu = calloc(r->nsample_tids + 1, sizeof(*last_cpu));
	last_seen = calloc(r->nsample_tids + 1, sizeof(*last_seen));
	if (!last_cpu || !last_seen) {
		free(last_cpu);
		free(last_seen);
		free(rs);
		return -ENOMEM;
	}
	fputs("],\"threads\":[", f);
	for (i = 0; i < np; i++) {
		size_t a = i ? i * p - 1 : 0;
		size_t b = point_last(i, p, nr);

		/* The first point's share starts at the first reading. */
		if (!i)
			for (reading_threads(r, 0, &t, &to); t < to; t++) {
				const struct vgl_sample_thread *th =
					&r->sample_threads[t];

				last_cpu[r->sample_tid_index[t]] = th->run_ns ?
					th->run_ns :
					(th->user_us + th->sys_us) * 1000;
				last_seen[r->sample_tid_index[t]] = 1;
			}
		for (reading_threads(r, b, &t, &to); t < to; t++) {
			const struct vgl_sample_thread *th = &r->sample_threads[t];
			size_t k = r->sample_tid_index[t];
			uint32_t page = thread_index(v, th->tid);
			/* Its schedstat run time, else its clock ticks. */
			uint64_t now = th->run_ns ? th->run_ns :
				       (th->user_us + th->sys_us) * 1000;

			if (last_seen[k] == a + 1 && a != b &&
			    page != UINT32_MAX && now > last_cpu[k]) {
				fprintf(f, "%s%zu,%" PRIu32 ",", first ? "" : ",",
					i, page);
				put_share(f, last_cpu[k], now,
					  r->samples[a].elapsed_ns,
					  r->samples[b].elapsed_ns);
				first = 0;
			}
			last_cpu[k] = now;
			last_seen[k] = b + 1;
		}
	}
	free(last_cpu);
	free(last_seen);
	putc(']', f);
	err = write_reading_stacks(rs, n, per, f);
	free(rs);
	putc('}', f);
	return err;
}

/*
 * Writes the template up to its next marker (or its end) and returns the
 * marker, NULL at the end; *at moves past it.  The markers are
 * @VIGIL_NONCE@, the page's nonce (so that its policy runs its own
 * script only, never one a name could smuggle in: no 'unsafe-inline'),
 * and @VIGIL_DATA@, the data.
 */
static const char *template_to_mark(FILE *f, const char **at,
				    const char *nonce)
{
	static const char *const marks[] = { "@VIGIL_NONCE@", "@VIGIL_DATA@" };

	for (;;) {
		const char *next = NULL, *m = NULL;
		size_t i;

		for (i = 0; i < 2; i++) {
			const char *x = strstr(*at, marks[i]);

			if (x && (!next || x < next)) {
				next = x;
				m = marks[i];
			}
		}
		if (!next) {
			fputs(*at, f);
			return NULL;
		}
		fwrite(*at, 1, (size_t)(next - *at), f);
		*at = next + strlen(m);
		if (m == marks[1])
			return m;
		fputs(nonce, f);
	}
}

/* 128 random bits as hex: a nonce no name in the page can know. */
static int make_nonce(char *buf, size_t len)
{
	unsigned char r[16];
	size_t i;

	if (len < 2 * sizeof(r) + 1 ||
	    getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return -EIO;
	for (i = 0; i < sizeof(r); i++)
		snprintf(buf + 2 * i, 3, "%02x", r[i]);
	return 0;
}

/* The page's bytes as it is written, for the timeline to know the room
 * left, whatever f is (a file, a pipe). */
struct page_count {
	FILE *to;
	uint64_t n;
};

static ssize_t page_write(void *cookie, const char *buf, size_t size)
{
	struct page_count *pc = cookie;
	size_t n = fwrite(buf, 1, size, pc->to);

	pc->n += n;
	return (ssize_t)n;              /* 0: an error */
}

int out_view_html(const struct out_input *c, const struct out_input *s,
		  const struct out_input *base, const char *title, FILE *to)
{
	const char *at = view_html;
	struct view v, b;
	struct page_count pc = { to, 0 };
	cookie_io_functions_t io = { .write = page_write };
	char nonce[40];
	FILE *f;
	int err;

	f = fopencookie(&pc, "w", io);
	if (!f)
		return -ENOMEM;

	memset(&v, 0, sizeof(v));
	memset(&b, 0, sizeof(b));
	v.c = c;
	v.s = s;
	if (base && base->sampled)
		b.s = base;
	else if (base)
		b.c = base;
	b.is_base = 1;
	err = make_nonce(nonce, sizeof(nonce));
	if (!err)
		err = view_build(&v);
	if (!err && base)
		err = view_build(&b);
	if (!err && base)
		err = join_base(&v, &b);
	if (!err && !template_to_mark(f, &at, nonce))
		err = -EINVAL;          /* a template without its data mark */
	if (!err) {
		write_head(&v, f, title);
		write_functions(&v, f);
		if (v.c)
			err = write_edges(&v, f, 0);
		else
			fputs(",\n\"edges\":[],\n\"thread_edges\":[]", f);
	}
	if (!err) {
		write_tree(&v, f);
		/* A comparison has no timeline: a time of one run selects
		 * nothing in the other. */
		if (v.s && !base && !fflush(f))
			/* The template's end, with its nonce. */
			err = write_timeline(&v, f, pc.n,
					     strlen(at) + sizeof(nonce));
		if (!err && base)
			err = write_base(&v, &b, f);
	}
	if (!err) {
		putc('}', f);
		if (template_to_mark(f, &at, nonce))
			err = -EINVAL;  /* two data marks */
	}
	view_release(&v);
	view_release(&b);
	if (ferror(f))
		err = err ? err : -EIO;
	if (fclose(f) && !err)
		err = -EIO;
	if (err)
		return err;
	return ferror(to) ? -EIO : 0;
}
