/*
 * stacks.c - a counting profile's call graph unfolded into call stacks,
 * for folded stacks, flame graphs and callgrind's inclusive costs.
 *
 * A counting profile knows how often each edge A -> B ran, not which path
 * led to A.  The unfolding distributes: the calls into a frame reached
 * along a path are split among the frame's callees in the proportions of
 * the function's own edges.  A stack's weight is the calls into its last
 * frame estimated for that path:
 *
 *   - a stack starts at a function called from an uncounted caller (one
 *     with no calls into it: libc's start code, a thread's creator), with
 *     the calls on those edges;
 *   - the stack S;f;g weighs w(S;f) * calls(f -> g) / calls(f);
 *   - recursion is collapsed: an edge to a function already on the
 *     stack is not followed; instead, where a stack enters a cycle of
 *     the call graph (a strongly connected component: f -> f, or
 *     ping -> pong -> ping), the frame of the function g it enters
 *     weighs w * calls(g) / (calls(g) - cyc(g)), cyc(g) the calls into
 *     g from its own cycle: the entries from outside with every
 *     recursive call they led to, so recursive calls are counted once,
 *     in the outermost frame of each function;
 *   - the walk stops at STACKS_MAX_DEPTH frames and drops a path whose
 *     weight is below one half (it would print as 0).
 *
 * Where each function has one caller the stacks are exact, and their
 * weights add up to the profile's total calls.
 * Cost: one visit per stack printed, so linear in the output; the
 * weight threshold bounds the number of stacks by twice the total calls.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"

/* qsort has no argument for it; the command is single-threaded. */
static const struct stacks_edge *sort_edges;

/* Walk order: most counted first, then by callee. */
static int cmp_edge(const void *a, const void *b)
{
	const struct stacks_edge *x = &sort_edges[*(const size_t *)a];
	const struct stacks_edge *y = &sort_edges[*(const size_t *)b];

	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return x->callee < y->callee ? -1 : x->callee > y->callee;
}

/* One effective edge, before grouping by caller. */
struct raw_edge {
	uint32_t caller;
	struct stacks_edge e;
};

static int cmp_raw(const void *a, const void *b)
{
	const struct raw_edge *x = a, *y = b;

	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	if (x->e.callee != y->e.callee)
		return x->e.callee < y->e.callee ? -1 : 1;
	return 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/*
 * Numbers the strongly connected components of the graph into s->scc
 * (Tarjan's algorithm, iterative: a call chain a million functions deep
 * must not overflow the C stack).  O(functions + edges).
 */
static int find_cycles(struct stacks *s)
{
	const uint32_t unseen = UINT32_MAX;
	size_t nf = s->p->nfuncs, v0, sp = 0, csp = 0;
	uint32_t *index, *low, *stack, next = 0, comp = 0;
	unsigned char *on;
	struct frame { uint32_t v; size_t k; } *cs;
	int err = -ENOMEM;

	index = malloc((nf + 1) * sizeof(*index));
	low = malloc((nf + 1) * sizeof(*low));
	stack = malloc((nf + 1) * sizeof(*stack));
	on = calloc(nf + 1, 1);
	cs = malloc((nf + 1) * sizeof(*cs));
	if (!index || !low || !stack || !on || !cs)
		goto out;
	for (v0 = 0; v0 < nf; v0++)
		index[v0] = unseen;
	for (v0 = 0; v0 < nf; v0++) {
		if (index[v0] != unseen)
			continue;
		index[v0] = low[v0] = next++;
		stack[sp++] = (uint32_t)v0;
		on[v0] = 1;
		cs[csp++] = (struct frame){ (uint32_t)v0, s->first[v0] };
		while (csp) {
			struct frame *t = &cs[csp - 1];
			uint32_t v = t->v, w;

			if (t->k < s->first[v + 1]) {
				w = s->edges[t->k++].callee;
				if (index[w] == unseen) {
					index[w] = low[w] = next++;
					stack[sp++] = w;
					on[w] = 1;
					cs[csp++] = (struct frame){ w, s->first[w] };
				} else if (on[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			if (low[v] == index[v]) {
				do {
					w = stack[--sp];
					on[w] = 0;
					s->scc[w] = comp;
				} while (w != v);
				comp++;
			}
			if (--csp && low[v] < low[cs[csp - 1].v])
				low[cs[csp - 1].v] = low[v];
		}
	}
	err = 0;
out:
	free(index);
	free(low);
	free(stack);
	free(on);
	free(cs);
	return err;
}

int stacks_build(struct stacks *s, const struct vgl_profile *p)
{
	struct raw_edge *raw = NULL;
	size_t i, n = 0, nf = p->nfuncs;
	int err = -ENOMEM;

	memset(s, 0, sizeof(*s));
	s->p = p;
	raw = malloc((p->ncalls + 1) * sizeof(*raw));
	s->first = calloc(nf + 1, sizeof(*s->first));
	s->cycle_calls = calloc(nf + 1, sizeof(*s->cycle_calls));
	s->scc = calloc(nf + 1, sizeof(*s->scc));
	s->top = calloc(nf + 1, sizeof(*s->top));
	s->top_incl = calloc(nf + 1, sizeof(*s->top_incl));
	if (!raw || !s->first || !s->cycle_calls || !s->scc || !s->top ||
	    !s->top_incl)
		goto out;
	for (i = 0; i < p->ncalls; i++) {
		const struct vgl_pcall *c = &p->calls[i];
		uint32_t caller = c->inlined_in != VGL_PROFILE_NONE ?
				  c->inlined_in : c->caller;

		raw[n].caller = caller;
		raw[n].e.callee = c->callee;
		raw[n].e.calls = c->calls;
		raw[n].e.incl = 0;
		n++;
	}
	qsort(raw, n, sizeof(*raw), cmp_raw);
	s->edges = malloc((n + 1) * sizeof(*s->edges));
	if (!s->edges)
		goto out;
	for (i = 0; i < n; i++) {
		struct raw_edge *r = &raw[i];

		if (s->nedges && s->first[r->caller + 1] &&
		    raw[i - 1].caller == r->caller &&
		    raw[i - 1].e.callee == r->e.callee) {
			struct stacks_edge *last = &s->edges[s->nedges - 1];

			last->calls = sat_add(last->calls, r->e.calls);
			continue;
		}
		s->edges[s->nedges++] = r->e;
		s->first[r->caller + 1]++;
	}
	/* Counts to offsets.  Each caller's edges stay by callee, for
	 * stacks_find's binary search; the walk takes them in order[],
	 * most counted first. */
	for (i = 0; i < nf; i++)
		s->first[i + 1] += s->first[i];
	s->order = malloc((s->nedges + 1) * sizeof(*s->order));
	if (!s->order)
		goto out;
	for (i = 0; i < s->nedges; i++)
		s->order[i] = i;
	sort_edges = s->edges;
	for (i = 0; i < nf; i++) {
		size_t k;

		qsort(s->order + s->first[i], s->first[i + 1] - s->first[i],
		      sizeof(*s->order), cmp_edge);
		for (k = s->first[i]; k < s->first[i + 1]; k++) {
			struct stacks_edge *e = &s->edges[k];

			if (e->callee != i && !p->funcs[i].calls)
				s->top[e->callee] += (double)e->calls;
		}
	}
	err = find_cycles(s);
	for (i = 0; !err && i < nf; i++) {
		size_t k;

		for (k = s->first[i]; k < s->first[i + 1]; k++) {
			struct stacks_edge *e = &s->edges[k];

			if (s->scc[e->callee] == s->scc[i])
				s->cycle_calls[e->callee] =
					sat_add(s->cycle_calls[e->callee], e->calls);
		}
	}
out:
	free(raw);
	if (err)
		stacks_release(s);
	return err;
}

void stacks_release(struct stacks *s)
{
	free(s->first);
	free(s->edges);
	free(s->order);
	free(s->cycle_calls);
	free(s->scc);
	free(s->top);
	free(s->top_incl);
	memset(s, 0, sizeof(*s));
}

size_t stacks_find(const struct stacks *s, uint32_t caller, uint32_t callee)
{
	size_t lo = s->first[caller], hi = s->first[caller + 1];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->edges[mid].callee < callee)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->first[caller + 1] && s->edges[lo].callee == callee ?
	       lo : SIZE_MAX;
}

/* w, the calls into g along a path that enters g's cycle there, with the
 * recursive calls they led to added. */
static double with_recursion(const struct stacks *s, uint32_t g, double w)
{
	uint64_t calls = s->p->funcs[g].calls, cyc = s->cycle_calls[g];

	if (cyc && cyc < calls)
		return w * (double)calls / (double)(calls - cyc);
	return w;
}

struct walk {
	struct stacks *s;
	stacks_fn fn;
	void *arg;
	uint32_t frames[STACKS_MAX_DEPTH];
};

/* Emits the stack frames[0 .. depth) of weight w and everything under it;
 * *total gets w plus the weights of the stacks under it. */
static int walk(struct walk *wk, size_t depth, double w, double *total)
{
	struct stacks *s = wk->s;
	uint32_t f = wk->frames[depth - 1];
	double calls = (double)s->p->funcs[f].calls;
	size_t k, d;
	int err;

	*total = w;
	err = wk->fn(wk->arg, wk->frames, depth, w);
	if (err || depth == STACKS_MAX_DEPTH || calls <= 0)
		return err;
	for (k = s->first[f]; k < s->first[f + 1]; k++) {
		struct stacks_edge *e = &s->edges[s->order[k]];
		double cw, sub;

		for (d = 0; d < depth && wk->frames[d] != e->callee; d++)
			;
		if (d < depth)
			continue;       /* counted where the cycle began */
		cw = w * (double)e->calls / calls;
		if (s->scc[e->callee] != s->scc[f])
			cw = with_recursion(s, e->callee, cw);
		if (cw < 0.5)
			continue;
		wk->frames[depth] = e->callee;
		err = walk(wk, depth + 1, cw, &sub);
		if (err)
			return err;
		e->incl += sub;
		*total += sub;
	}
	return 0;
}

int stacks_walk(struct stacks *s, stacks_fn fn, void *arg)
{
	struct walk wk = { .s = s, .fn = fn, .arg = arg };
	size_t f, k;
	int err;

	for (k = 0; k < s->nedges; k++)
		s->edges[k].incl = 0;
	for (f = 0; f < s->p->nfuncs; f++)
		s->top_incl[f] = 0;
	/* funcs are most called first, so are the stacks' first frames. */
	for (f = 0; f < s->p->nfuncs; f++) {
		double w, sub;

		if (s->top[f] <= 0)
			continue;
		w = with_recursion(s, (uint32_t)f, s->top[f]);
		if (w < 0.5)
			continue;
		wk.frames[0] = (uint32_t)f;
		err = walk(&wk, 1, w, &sub);
		if (err)
			return err;
		s->top_incl[f] = sub;
	}
	return 0;
}

void out_frame_name(const struct vgl_pfunc *fn, char *buf, size_t len)
{
	char *c;

	snprintf(buf, len, "%s", fn->label);
	for (c = buf; *c; c++)
		if (*c == ';')
			*c = ':';
		else if (*c == '\n' || *c == '\r')
			*c = ' ';
}
