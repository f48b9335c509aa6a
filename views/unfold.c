/*
 * unfold.c - a counting profile's call graph unfolded into call stacks,
 * for folded stacks, flame graphs, pprof and callgrind's inclusive costs.
 *
 * A counting profile knows how often each edge A -> B ran, not which path
 * led to A.  The unfolding keeps every call and claims no more than the
 * counts say, as gprof does:
 *
 *   - each strongly connected component of the call graph with more than
 *     one function (mutual recursion, an interpreter's loop that re-enters
 *     itself: Lua's luaV_execute -> luaD_precall -> ... -> luaV_execute)
 *     is one frame, "<cycle N: a, b, c>", whose calls are all its
 *     members' calls; the paths inside it are not known, so none is
 *     drawn.  A function calling itself stays one frame with all its
 *     calls.  What is left is a graph without cycles: frames, and the
 *     edges between them with their exact calls;
 *   - a frame F is entered entries(F) times (the calls on edges into it
 *     from other frames, and from uncounted callers such as libc's start
 *     code); it holds calls(F) calls itself, and incl(F) = calls(F) +
 *     the sum over its out-edges F -> G of calls(F -> G) * incl(G) /
 *     entries(G) calls under it, over all paths;
 *   - a path that enters F carrying b of those calls gives them to F's
 *     own stack and to its callees' subtrees in the proportions calls(F)
 *     and calls(F -> G) * incl(G) / entries(G), rounded to whole calls by
 *     the largest remainders, so the parts add up to b exactly;
 *   - the stacks start at frames entered from uncounted callers, which
 *     share the profile's total calls the same way.
 *
 * So the stacks' weights add up to the profile's total calls exactly,
 * and every frame's stacks to its calls, but for rounding and the depth
 * cut: past STACKS_MAX_DEPTH frames a path's calls all go to its last
 * frame.  Where each function has one caller the stacks are exact.
 * Cost: O(functions + edges) to build; the walk visits each stack with
 * at least one call once (at most the total calls times the depth).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"

/* The members a cycle's name lists before "and N more". */
#define CYCLE_NAMED 4

/* One edge caller -> callee with its calls, before grouping by caller. */
struct raw_edge {
	uint32_t caller, callee;
	uint64_t calls;
};

static int cmp_raw(const void *a, const void *b)
{
	const struct raw_edge *x = a, *y = b;

	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	if (x->callee != y->callee)
		return x->callee < y->callee ? -1 : 1;
	return 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Sorts raw[0 .. n) by caller and callee and adds up duplicates; returns
 * the new count. */
static size_t merge_raw(struct raw_edge *raw, size_t n)
{
	size_t i, k = 0;

	qsort(raw, n, sizeof(*raw), cmp_raw);
	for (i = 0; i < n; i++) {
		if (k && !cmp_raw(&raw[k - 1], &raw[i]))
			raw[k - 1].calls = sat_add(raw[k - 1].calls, raw[i].calls);
		else
			raw[k++] = raw[i];
	}
	return k;
}

/*
 * Numbers the strongly connected components of the function graph
 * (first/callee: the callees of f are callee[first[f] .. first[f+1]))
 * into scc (Tarjan's algorithm, iterative: a call chain a million
 * functions deep must not overflow the C stack).  Components come out
 * in reverse topological order: an edge between two components goes to
 * the lower number.  Returns the number of components, or -ENOMEM.
 */
static long find_components(size_t nf, const size_t *first,
			    const struct raw_edge *edges, uint32_t *scc)
{
	const uint32_t unseen = UINT32_MAX;
	size_t v0, sp = 0, csp = 0;
	uint32_t *index, *low, *stack, next = 0, comp = 0;
	unsigned char *on;
	struct frame { uint32_t v; size_t k; } *cs;
	long ret = -ENOMEM;

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
		cs[csp++] = (struct frame){ (uint32_t)v0, first[v0] };
		while (csp) {
			struct frame *t = &cs[csp - 1];
			uint32_t v = t->v, w;

			if (t->k < first[v + 1]) {
				w = edges[t->k++].callee;
				if (index[w] == unseen) {
					index[w] = low[w] = next++;
					stack[sp++] = w;
					on[w] = 1;
					cs[csp++] = (struct frame){ w, first[w] };
				} else if (on[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			if (low[v] == index[v]) {
				do {
					w = stack[--sp];
					on[w] = 0;
					scc[w] = comp;
				} while (w != v);
				comp++;
			}
			if (--csp && low[v] < low[cs[csp - 1].v])
				low[cs[csp - 1].v] = low[v];
		}
	}
	ret = comp;
out:
	free(index);
	free(low);
	free(stack);
	free(on);
	free(cs);
	return ret;
}

/* Cycles: most calls first, then by their most called member. */
static int cmp_cycle(const void *a, const void *b)
{
	const struct stacks_cycle *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return x->members[0] < y->members[0] ? -1 : 1;
}

/* Members: most called first (funcs are in that order already). */
static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Walk order of a frame's edges: most calls first, then by callee. */
static int cmp_walk(const void *a, const void *b)
{
	const struct stacks_edge *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return x->callee < y->callee ? -1 : x->callee > y->callee;
}

/* "<cycle N: a, b, c, d and K more>" */
static char *cycle_label(const struct vgl_profile *p,
			 const struct stacks_cycle *c, size_t n)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	fprintf(m, "<cycle %zu: ", n);
	for (i = 0; i < c->nmembers && i < CYCLE_NAMED; i++)
		fprintf(m, "%s%s", i ? ", " : "", p->funcs[c->members[i]].label);
	if (c->nmembers > CYCLE_NAMED)
		fprintf(m, " and %zu more", c->nmembers - CYCLE_NAMED);
	fputc('>', m);
	if (fclose(m)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Groups the functions of each multi-function component into a cycle
 * frame: s->cycles, s->frames, s->frame_of. */
static int make_frames(struct stacks *s, const uint32_t *scc, size_t ncomp)
{
	const struct vgl_profile *p = s->p;
	size_t nf = p->nfuncs, i, *size = NULL, *at = NULL, nc = 0;
	uint32_t *cycle_of = NULL, *all = NULL;
	int err = -ENOMEM;

	size = calloc(ncomp + 1, sizeof(*size));
	cycle_of = malloc((ncomp + 1) * sizeof(*cycle_of));
	if (!size || !cycle_of)
		goto out;
	for (i = 0; i < nf; i++)
		size[scc[i]]++;
	for (i = 0; i < ncomp; i++)
		cycle_of[i] = size[i] > 1 ? (uint32_t)nc++ : UINT32_MAX;
	s->cycles = calloc(nc + 1, sizeof(*s->cycles));
	s->members = all = malloc((nf + 1) * sizeof(*all));
	at = calloc(nc + 1, sizeof(*at));
	if (!s->cycles || !all || !at)
		goto out;
	s->ncycles = nc;
	/* Members laid out cycle by cycle, in function order. */
	for (i = 0, nc = 0; i < ncomp; i++)
		if (cycle_of[i] != UINT32_MAX) {
			at[cycle_of[i]] = nc;
			nc += size[i];
		}
	for (i = 0; i < nf; i++) {
		uint32_t c = cycle_of[scc[i]];
		struct stacks_cycle *cy;

		if (c == UINT32_MAX)
			continue;
		cy = &s->cycles[c];
		cy->members = all + at[c];
		cy->members[cy->nmembers++] = (uint32_t)i;
		cy->calls = sat_add(cy->calls, p->funcs[i].calls);
		cy->comp = scc[i];
	}
	for (i = 0; i < s->ncycles; i++)
		qsort(s->cycles[i].members, s->cycles[i].nmembers,
		      sizeof(uint32_t), cmp_u32);
	qsort(s->cycles, s->ncycles, sizeof(*s->cycles), cmp_cycle);

	s->nframes = nf + s->ncycles;
	s->frames = calloc(s->nframes + 1, sizeof(*s->frames));
	s->frame_of = malloc((nf + 1) * sizeof(*s->frame_of));
	if (!s->frames || !s->frame_of)
		goto out;
	if (nf)
		memcpy(s->frames, p->funcs, nf * sizeof(*s->frames));
	for (i = 0; i < nf; i++)
		s->frame_of[i] = (uint32_t)i;
	for (i = 0; i < s->ncycles; i++) {
		struct stacks_cycle *cy = &s->cycles[i];
		struct vgl_pfunc *fr = &s->frames[nf + i];
		size_t k;

		cy->frame = (uint32_t)(nf + i);
		cy->label = cycle_label(p, cy, i + 1);
		if (!cy->label)
			goto out;
		fr->module = VGL_PROFILE_NO_MODULE;
		fr->name = fr->label = cy->label;
		fr->calls = cy->calls;
		for (k = 0; k < cy->nmembers; k++)
			s->frame_of[cy->members[k]] = cy->frame;
	}
	err = 0;
out:
	free(size);
	free(at);
	free(cycle_of);
	return err;
}

int stacks_build(struct stacks *s, const struct vgl_profile *p)
{
	struct raw_edge *raw = NULL;
	size_t i, n, nf = p->nfuncs, *ffirst = NULL, nfr;
	uint32_t *scc = NULL, *comp_frame = NULL;
	long ncomp;
	int err = -ENOMEM;

	memset(s, 0, sizeof(*s));
	s->p = p;
	raw = malloc((p->ncalls + 1) * sizeof(*raw));
	ffirst = calloc(nf + 2, sizeof(*ffirst));
	scc = calloc(nf + 1, sizeof(*scc));
	if (!raw || !ffirst || !scc)
		goto out;
	/* The function graph, with inlined copies where they ran. */
	for (i = 0; i < p->ncalls; i++) {
		const struct vgl_pcall *c = &p->calls[i];

		raw[i].caller = c->inlined_in != VGL_PROFILE_NONE ?
				c->inlined_in : c->caller;
		raw[i].callee = c->callee;
		raw[i].calls = c->calls;
	}
	n = merge_raw(raw, p->ncalls);
	for (i = 0; i < n; i++)
		ffirst[raw[i].caller + 1]++;
	for (i = 0; i < nf; i++)
		ffirst[i + 1] += ffirst[i];
	ncomp = find_components(nf, ffirst, raw, scc);
	if (ncomp < 0)
		goto out;
	err = make_frames(s, scc, (size_t)ncomp);
	if (err)
		goto out;
	err = -ENOMEM;
	nfr = s->nframes;
	s->entries = calloc(nfr + 1, sizeof(*s->entries));
	s->top = calloc(nfr + 1, sizeof(*s->top));
	s->incl = calloc(nfr + 1, sizeof(*s->incl));
	s->first = calloc(nfr + 2, sizeof(*s->first));
	comp_frame = malloc(((size_t)ncomp + 1) * sizeof(*comp_frame));
	if (!s->entries || !s->top || !s->incl || !s->first || !comp_frame)
		goto out;
	for (i = 0; i < nf; i++)
		comp_frame[scc[i]] = s->frame_of[i];

	/* The frame graph: edges between frames, from counted callers;
	 * the calls from uncounted ones start stacks. */
	for (i = 0; i < n; i++) {
		uint32_t f = s->frame_of[raw[i].caller];
		uint32_t g = s->frame_of[raw[i].callee];

		if (!p->funcs[raw[i].caller].calls) {
			s->top[g] = sat_add(s->top[g], raw[i].calls);
			raw[i].calls = 0;
		} else if (f == g) {
			raw[i].calls = 0;       /* inside the frame */
		}
		raw[i].caller = f;
		raw[i].callee = g;
	}
	n = merge_raw(raw, n);
	s->edges = malloc((n + 1) * sizeof(*s->edges));
	if (!s->edges)
		goto out;
	for (i = 0; i < n; i++) {
		if (!raw[i].calls)
			continue;
		s->edges[s->nedges].callee = raw[i].callee;
		s->edges[s->nedges].calls = raw[i].calls;
		s->nedges++;
		s->first[raw[i].caller + 1]++;
		s->entries[raw[i].callee] =
			sat_add(s->entries[raw[i].callee], raw[i].calls);
	}
	for (i = 0; i < nfr; i++) {
		s->first[i + 1] += s->first[i];
		s->entries[i] = sat_add(s->entries[i], s->top[i]);
		/* Calls with no way in (a window of a profile that began
		 * inside a recursion): the frame starts stacks itself. */
		if (!s->entries[i] && s->frames[i].calls) {
			s->top[i] = s->entries[i] = s->frames[i].calls;
		}
	}
	for (i = 0; i < nfr; i++)
		qsort(s->edges + s->first[i], s->first[i + 1] - s->first[i],
		      sizeof(*s->edges), cmp_walk);
	/* incl, callees before callers: components come out of Tarjan's
	 * algorithm in reverse topological order. */
	for (i = 0; i < (size_t)ncomp; i++) {
		uint32_t f = comp_frame[i];
		double sum = (double)s->frames[f].calls;
		size_t k;

		for (k = s->first[f]; k < s->first[f + 1]; k++) {
			const struct stacks_edge *e = &s->edges[k];

			sum += (double)e->calls * stacks_per_entry(s, e->callee);
		}
		s->incl[f] = sum;
	}
	for (i = 0; i < s->ncycles; i++)
		s->cycles[i].entries = s->entries[s->cycles[i].frame];
	err = 0;
out:
	free(raw);
	free(ffirst);
	free(scc);
	free(comp_frame);
	if (err)
		stacks_release(s);
	return err;
}

void stacks_release(struct stacks *s)
{
	size_t i;

	for (i = 0; s->cycles && i < s->ncycles; i++)
		free(s->cycles[i].label);
	free(s->cycles);
	free(s->members);
	free(s->frames);
	free(s->frame_of);
	free(s->first);
	free(s->edges);
	free(s->entries);
	free(s->top);
	free(s->incl);
	memset(s, 0, sizeof(*s));
}

double stacks_per_entry(const struct stacks *s, uint32_t frame)
{
	return s->entries[frame] ? s->incl[frame] / (double)s->entries[frame] :
	       0;
}

/* One part of a budget: its exact share, then its whole calls. */
struct part {
	double share;
	uint64_t calls;
};

static int cmp_remainder(const void *a, const void *b)
{
	const struct part *const *x = a, *const *y = b;
	double rx = (*x)->share - (double)(*x)->calls;
	double ry = (*y)->share - (double)(*y)->calls;

	if (rx != ry)
		return rx > ry ? -1 : 1;
	return *x < *y ? -1 : *x > *y;
}

/*
 * Splits budget among parts[0 .. n) in proportion to their weights (in
 * parts[].share on entry), in whole calls adding up to budget exactly:
 * each gets the floor of its share, the rest goes one by one to the
 * largest remainders.
 */
static int apportion(struct part *parts, size_t n, uint64_t budget)
{
	struct part **by = NULL;
	double sum = 0;
	uint64_t given = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += parts[i].share;
	if (!n)
		return 0;
	if (sum <= 0) {
		for (i = 0; i < n; i++)
			parts[i].calls = 0;
		parts[0].calls = budget;
		return 0;
	}
	for (i = 0; i < n; i++) {
		double x = (double)budget * (parts[i].share / sum);
		uint64_t q = x >= (double)budget ? budget : (uint64_t)floor(x);

		parts[i].share = x;
		parts[i].calls = q;
		given += q;
	}
	/* Floating point may hand out one call too many. */
	for (i = 0; given > budget; i = (i + 1) % n)
		if (parts[i].calls) {
			parts[i].calls--;
			given--;
		}
	if (given == budget)
		return 0;
	by = malloc(n * sizeof(*by));
	if (!by)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		by[i] = &parts[i];
	qsort(by, n, sizeof(*by), cmp_remainder);
	for (i = 0; given < budget; i = (i + 1) % n) {
		by[i]->calls++;
		given++;
	}
	free(by);
	return 0;
}

struct walk {
	const struct stacks *s;
	stacks_fn fn;
	void *arg;
	uint32_t frames[STACKS_MAX_DEPTH];
};

/* Emits the stacks of frames[0 .. depth), whose last frame the path
 * enters with budget calls for it and everything under it. */
static int walk(struct walk *wk, size_t depth, uint64_t budget)
{
	const struct stacks *s = wk->s;
	uint32_t f = wk->frames[depth - 1];
	size_t k, n = s->first[f + 1] - s->first[f];
	struct part *parts;
	int err;

	if (depth == STACKS_MAX_DEPTH || !n)
		return wk->fn(wk->arg, wk->frames, depth, budget);
	parts = malloc((n + 1) * sizeof(*parts));
	if (!parts)
		return -ENOMEM;
	parts[0].share = (double)s->frames[f].calls;
	for (k = 0; k < n; k++) {
		const struct stacks_edge *e = &s->edges[s->first[f] + k];

		parts[k + 1].share = (double)e->calls *
				     stacks_per_entry(s, e->callee);
	}
	err = apportion(parts, n + 1, budget);
	if (!err && parts[0].calls)
		err = wk->fn(wk->arg, wk->frames, depth, parts[0].calls);
	for (k = 0; !err && k < n; k++) {
		if (!parts[k + 1].calls)
			continue;
		wk->frames[depth] = s->edges[s->first[f] + k].callee;
		err = walk(wk, depth + 1, parts[k + 1].calls);
	}
	free(parts);
	return err;
}

int stacks_walk(const struct stacks *s, stacks_fn fn, void *arg)
{
	struct walk wk = { .s = s, .fn = fn, .arg = arg };
	size_t nf = s->p->nfuncs, f, n = 0;
	struct part *parts;
	uint32_t *roots;
	unsigned char *seen;
	uint64_t total = 0;
	int err = -ENOMEM;

	parts = malloc((s->nframes + 1) * sizeof(*parts));
	roots = malloc((s->nframes + 1) * sizeof(*roots));
	seen = calloc(s->nframes + 1, 1);
	if (!parts || !roots || !seen)
		goto out;
	/* Roots in the order of their most called function. */
	for (f = 0; f < nf; f++) {
		uint32_t fr = s->frame_of[f];

		if (!s->top[fr] || seen[fr])
			continue;
		seen[fr] = 1;
		roots[n] = fr;
		parts[n].share = (double)s->top[fr] * stacks_per_entry(s, fr);
		n++;
	}
	for (f = 0; f < nf; f++)
		total = sat_add(total, s->p->funcs[f].calls);
	err = apportion(parts, n, total);
	for (f = 0; !err && f < n; f++) {
		if (!parts[f].calls)
			continue;
		wk.frames[0] = roots[f];
		err = walk(&wk, 1, parts[f].calls);
	}
out:
	free(parts);
	free(roots);
	free(seen);
	return err;
}

const struct stacks_cycle *stacks_cycle_of(const struct stacks *s,
					   uint32_t frame)
{
	if (frame < s->p->nfuncs || frame >= s->nframes)
		return NULL;
	return &s->cycles[frame - s->p->nfuncs];
}

char *stacks_cycle_members(const struct stacks *s,
			   const struct stacks_cycle *c)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	fprintf(m, "members:");
	for (i = 0; i < c->nmembers; i++) {
		const struct vgl_pfunc *fn = &s->p->funcs[c->members[i]];

		fprintf(m, "%s %s %" PRIu64, i ? "," : "", fn->label, fn->calls);
	}
	fprintf(m, "; calls from outside: %" PRIu64, c->entries);
	if (fclose(m)) {
		free(buf);
		return NULL;
	}
	return buf;
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
