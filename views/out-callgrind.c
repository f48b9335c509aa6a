/*
 * out-callgrind.c - the callgrind profile format (as valgrind's
 * callgrind_annotate and KCachegrind read it: docs of valgrind,
 * "Callgrind Format Specification"), one event, Calls.
 *
 * A function's self cost is the calls into it, on the line of its first
 * byte; each call row (caller, callee, call-site line) is a cfn=/calls=
 * pair whose cost is the inclusive calls along it: the calls themselves
 * and those made under them, as the stack unfolding (views/unfold.c)
 * reconstructs them from the edge counts, so main's inclusive cost is
 * every call.  The event is named CallsFromEdges, and a comment says what
 * it means.  A call counted in an inlined copy is given to the function
 * it was inlined in, where its code ran.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "out.h"
#include "text.h"

static uint32_t eff_caller(const struct vgl_pcall *c)
{
	return c->inlined_in != VGL_PROFILE_NONE ? c->inlined_in : c->caller;
}

/* qsort has no argument for it; the command is single-threaded. */
static const struct vgl_profile *sort_p;

static int cmp_rows(const void *a, const void *b)
{
	const struct vgl_pcall *x = &sort_p->calls[*(const size_t *)a];
	const struct vgl_pcall *y = &sort_p->calls[*(const size_t *)b];
	uint32_t cx = eff_caller(x), cy = eff_caller(y);

	if (cx != cy)
		return cx < cy ? -1 : 1;
	if (x->callee != y->callee)
		return x->callee < y->callee ? -1 : 1;
	if (x->site_line != y->site_line)
		return x->site_line < y->site_line ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* A name callgrind can take: "???" for unknown, as valgrind writes. */
static const char *or_unknown(const char *s)
{
	return s && *s ? s : "???";
}

static const char *module_path(const struct vgl_profile *p,
			       const struct vgl_pfunc *fn)
{
	if (fn->module == VGL_PROFILE_NO_MODULE)
		return "???";
	return or_unknown(vgl_symbolizer_module_path(p->sym, fn->module));
}

static uint64_t rounded(double x)
{
	return x <= 0 ? 0 : x >= 1.8e19 ? UINT64_MAX : (uint64_t)floor(x + 0.5);
}

/*
 * The inclusive cost of a row c into another frame (views/unfold.c): its
 * calls times the calls in that frame's subtree per entry, so that every
 * caller outside a cycle holds all the calls under it.
 */
static uint64_t entering(const struct stacks *s, const struct vgl_pcall *c)
{
	uint64_t v = rounded((double)c->calls *
			     stacks_per_entry(s, s->frame_of[c->callee]));

	return v > c->calls ? v : c->calls;
}

/*
 * The inclusive cost of row c.  callgrind_annotate takes a called
 * function's inclusive cost from the rows into it, so:
 *   - a row into another frame: entering();
 *   - f -> f: 0, its calls are in the cost of the rows that entered f
 *     already: counted again, f would hold more than all calls
 *     (callgrind's own recursion overcount);
 *   - a row between two members of a cycle, into a member that is
 *     never entered from outside it: its share of the callee's own cost,
 *     own[callee] (its calls and the inclusive costs of its rows out of
 *     the cycle), so that a member's inclusive cost is at least its
 *     calls; into a member entered from outside, 0: the rows that enter
 *     it hold the whole cycle under it already (own[] is 0 for it).
 * So no function holds more than all calls.
 */
static uint64_t inclusive(const struct stacks *s, const uint64_t *own,
			  const struct vgl_pcall *c)
{
	uint32_t caller = eff_caller(c);
	const struct vgl_pfunc *ce = &s->p->funcs[c->callee];

	if (s->frame_of[caller] != s->frame_of[c->callee])
		return entering(s, c);
	if (caller == c->callee || !ce->calls || !own[c->callee])
		return 0;
	return rounded((double)c->calls * (double)own[c->callee] /
		       (double)ce->calls);
}

/* One "key: value" or "key=value" line.  Names and arguments are the
 * program's bytes: control characters are escaped (text.h), so a newline
 * in a command line or a path cannot end the line and start another one
 * (an "events:" line of its own, say). */
static void field(FILE *f, const char *key, const char *value)
{
	fputs(key, f);
	vgl_text_write(f, value, VGL_TEXT_LINE);
	putc('\n', f);
}

/* The header of either kind: the command, and the one event's total. */
static void header(FILE *f, const struct vgl_reader *r, const char *path,
		   const char *event, uint64_t total)
{
	size_t i;

	fprintf(f, "# callgrind format\nversion: 1\ncreator: vigil\n");
	fprintf(f, "pid: %llu\ncmd:", (unsigned long long)r->meta.pid);
	for (i = 0; i < r->argc; i++) {
		putc(' ', f);
		vgl_text_write(f, r->argv[i], VGL_TEXT_LINE);
	}
	putc('\n', f);
	field(f, "desc: Profile: ", path);
	fprintf(f, "positions: line\nevents: %s\nsummary: %llu\n", event,
		(unsigned long long)total);
}

/* A function's object, file and name lines: "ob=", "fl=", "fn=" for the
 * function whose rows follow, "cob=", "cfi=", "cfn=" for a callee. */
static void names(FILE *f, int callee, const char *ob, const char *fl,
		  const char *fn)
{
	field(f, callee ? "cob=" : "ob=", ob);
	field(f, callee ? "cfi=" : "fl=", fl);
	field(f, callee ? "cfn=" : "fn=", fn);
}

/*
 * Each cycle of calls as a function of its own, "<cycle N: ...>", without
 * cost, with a row per member: calls= the member's exact calls, cost 0,
 * so no inclusive cost changes (the cycle's is on the rows that enter
 * it).
 */
static void cycles(FILE *f, const struct vgl_profile *p,
		   const struct stacks *s)
{
	size_t i, k;

	for (i = 0; i < s->ncycles; i++) {
		const struct stacks_cycle *cy = &s->cycles[i];

		putc('\n', f);
		names(f, 0, "???", "???", cy->label);
		fputs("0 0\n", f);
		for (k = 0; k < cy->nmembers; k++) {
			const struct vgl_pfunc *m = &p->funcs[cy->members[k]];

			names(f, 1, module_path(p, m), or_unknown(m->file),
			      m->label);
			fprintf(f, "calls=%llu %d\n0 0\n",
				(unsigned long long)m->calls,
				m->file ? m->line : 0);
		}
	}
}

int out_callgrind(const struct vgl_profile *p, const char *path, FILE *f)
{
	const struct vgl_reader *r = p->r;
	struct stacks s;
	size_t *idx = NULL, i, k, nf = p->nfuncs;
	uint32_t cur = VGL_PROFILE_NONE;
	unsigned char *shown = NULL;
	uint64_t *own = NULL;
	int err;

	err = stacks_build(&s, p);
	if (err)
		return err;
	err = -ENOMEM;
	idx = malloc((p->ncalls + 1) * sizeof(*idx));
	shown = calloc(nf + 1, 1);
	own = calloc(nf + 1, sizeof(*own));
	if (!idx || !shown || !own)
		goto out;
	for (i = 0; i < nf; i++)
		own[i] = p->funcs[i].calls;
	for (i = 0; i < p->ncalls; i++) {
		const struct vgl_pcall *c = &p->calls[i];
		uint32_t at = eff_caller(c);

		if (s.frame_of[at] != s.frame_of[c->callee])
			own[at] += entering(&s, c);
	}
	for (i = 0; i < p->ncalls; i++) {
		const struct vgl_pcall *c = &p->calls[i];

		if (s.frame_of[eff_caller(c)] != s.frame_of[c->callee])
			own[c->callee] = 0;     /* entered from outside */
	}
	for (i = 0; i < p->ncalls; i++)
		idx[i] = i;
	sort_p = p;
	qsort(idx, p->ncalls, sizeof(*idx), cmp_rows);

	header(f, r, path, "CallsFromEdges", p->total_calls);
	fputs("# vigil: self costs are exact calls; inclusive costs are " STACKS_NOTE
	      ".\n# A <cycle N> entry lists a cycle's members with their exact "
	      "calls (calls=), at no cost; it is a summary, not a caller.\n", f);

	/* Functions with calls into them, each with its call rows. */
	for (i = 0, k = 0; i < nf || k < p->ncalls;) {
		const struct vgl_pfunc *fn;
		uint32_t at;

		/* Callers in index order; functions without rows after. */
		if (k < p->ncalls)
			at = eff_caller(&p->calls[idx[k]]);
		else {
			while (i < nf && (shown[i] || !p->funcs[i].calls))
				i++;
			if (i == nf)
				break;
			at = (uint32_t)i;
		}
		if (at != cur) {
			fn = &p->funcs[at];
			putc('\n', f);
			names(f, 0, module_path(p, fn), or_unknown(fn->file),
			      fn->label);
			fprintf(f, "%d %llu\n", fn->file ? fn->line : 0,
				(unsigned long long)fn->calls);
			shown[at] = 1;
			cur = at;
		}
		if (k < p->ncalls) {
			const struct vgl_pcall *c = &p->calls[idx[k++]];
			const struct vgl_pfunc *ce = &p->funcs[c->callee];

			names(f, 1, module_path(p, ce), or_unknown(ce->file),
			      ce->label);
			fprintf(f, "calls=%llu %d\n%d %llu\n",
				(unsigned long long)c->calls,
				ce->file ? ce->line : 0,
				c->site_file ? c->site_line : 0,
				(unsigned long long)inclusive(&s, own, c));
		}
	}
	cycles(f, p, &s);
	fprintf(f, "\ntotals: %llu\n", (unsigned long long)p->total_calls);
	err = ferror(f) ? -EIO : 0;
out:
	free(own);
	free(idx);
	free(shown);
	stacks_release(&s);
	return err;
}

/* One caller -> callee step of the sampled chains, with its samples. */
struct srow {
	uint32_t caller, callee;
	uint64_t samples;
};

static int cmp_srow(const void *a, const void *b)
{
	const struct srow *x = a, *y = b;

	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	return (x->callee > y->callee) - (x->callee < y->callee);
}

static const char *smodule_path(const struct vgl_sprofile *sp,
				const struct vgl_pfunc *fn)
{
	if (fn->module == VGL_PROFILE_NO_MODULE)
		return "???";
	return or_unknown(vgl_symbolizer_module_path(sp->sym, fn->module));
}

/*
 * A sampled profile, event Samples: a function's self cost is the samples
 * that found it running; each call row (caller -> callee, as seen on the
 * sampled stacks) costs the samples with that step on the stack, which
 * is what callgrind_annotate adds into the caller's inclusive cost.
 * calls= gives the same number: samples do not count calls.  A step
 * into a function already further out on the same stack (recursion) is
 * left out, as its samples are in the outer step's cost already.  Costs
 * are on the line of the function's first byte: a sampled stack names
 * functions, not lines.
 */
int out_callgrind_sampled(const struct vgl_sprofile *sp, const char *path,
			  FILE *f)
{
	const struct vgl_reader *r = sp->r;
	struct srow *rows = NULL;
	size_t *seen = NULL, nrows = 0, n = 0, i, j, k;
	unsigned char *shown = NULL;
	int err = -ENOMEM;

	for (i = 0; i < sp->nstacks; i++)
		n += sp->stacks[i].depth;
	rows = malloc((n + 1) * sizeof(*rows));
	seen = malloc((sp->nfuncs + 1) * sizeof(*seen));
	shown = calloc(sp->nfuncs + 1, 1);
	if (!rows || !seen || !shown)
		goto out;
	for (i = 0; i < sp->nfuncs; i++)
		seen[i] = SIZE_MAX;
	for (i = 0; i < sp->nstacks; i++) {
		const struct vgl_sstack *st = &sp->stacks[i];
		const uint32_t *c = sp->chain + st->first;

		seen[c[0]] = i;
		for (j = 1; j < st->depth; j++) {
			if (seen[c[j]] == i)
				continue;
			seen[c[j]] = i;
			rows[nrows].caller = c[j - 1];
			rows[nrows].callee = c[j];
			rows[nrows].samples = st->count;
			nrows++;
		}
	}
	qsort(rows, nrows, sizeof(*rows), cmp_srow);
	for (i = 0, k = 0; i < nrows; i++) {
		if (k && !cmp_srow(&rows[k - 1], &rows[i]))
			rows[k - 1].samples += rows[i].samples;
		else
			rows[k++] = rows[i];
	}
	nrows = k;

	header(f, r, path, "Samples", sp->samples);
	/* Callers in index order with their rows; then the functions that
	 * ran but called nothing sampled. */
	for (i = 0, k = 0; k < nrows || i < sp->nfuncs;) {
		uint32_t at;
		const struct vgl_pfunc *fn;

		if (k < nrows) {
			at = rows[k].caller;
		} else {
			while (i < sp->nfuncs && (shown[i] || !sp->self[i]))
				i++;
			if (i == sp->nfuncs)
				break;
			at = (uint32_t)i;
		}
		if (!shown[at]) {
			fn = &sp->funcs[at];
			putc('\n', f);
			names(f, 0, smodule_path(sp, fn), or_unknown(fn->file),
			      fn->label);
			fprintf(f, "%d %llu\n", fn->file ? fn->line : 0,
				(unsigned long long)sp->self[at]);
			shown[at] = 1;
		}
		for (; k < nrows && rows[k].caller == at; k++) {
			const struct vgl_pfunc *ce = &sp->funcs[rows[k].callee];

			fn = &sp->funcs[at];
			names(f, 1, smodule_path(sp, ce), or_unknown(ce->file),
			      ce->label);
			fprintf(f, "calls=%llu %d\n%d %llu\n",
				(unsigned long long)rows[k].samples,
				ce->file ? ce->line : 0, fn->file ? fn->line : 0,
				(unsigned long long)rows[k].samples);
		}
	}
	fprintf(f, "\ntotals: %llu\n", (unsigned long long)sp->samples);
	err = ferror(f) ? -EIO : 0;
out:
	free(rows);
	free(seen);
	free(shown);
	return err;
}
