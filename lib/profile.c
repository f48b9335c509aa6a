/*
 * profile.c - see profile.h.
 *
 * Tuned for a million edges and tens of thousands of functions: each edge
 * is symbolized once (callee address and call site), the function keys are
 * sorted and made unique once, and each later step is a sort or a linear
 * pass over arrays of indexes; no step looks at all edges per function.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callsite.h"
#include "profile.h"
#include "sortsum.h"

/* A function's identity while the table is being built. */
struct fkey {
	uint32_t module;
	uint32_t known;
	uint64_t addr;
	struct vgl_func_sym *sym;
};

uint32_t vgl_profile_module_index(const struct vgl_reader *r, uint32_t id)
{
	const struct vgl_module_info *m;

	if (id == VGL_NO_MODULE)
		return VGL_PROFILE_NO_MODULE;
	m = vgl_reader_module(r, id);
	return m ? (uint32_t)(m - r->modules) : VGL_PROFILE_NO_MODULE;
}

static int cmp_fkey(const void *a, const void *b)
{
	const struct fkey *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

/* The key of the one function of a module that stands for all its code
 * that neither a symbol nor an FDE places. */
#define WHOLE_MODULE UINT64_MAX

/* The function holding runtime address addr of module mod: its symbol,
 * else the start of its FDE, else the module (vgl_symbolizer_place). */
static void resolve(struct vgl_symbolizer *sym, uint32_t mod, uint64_t addr,
		    struct fkey *k)
{
	struct vgl_place pl;

	vgl_symbolizer_place(sym, mod == VGL_PROFILE_NO_MODULE ?
			     VGL_SYMBOLIZER_NO_MODULE : mod, addr, &pl);
	k->module = mod;
	k->sym = pl.sym;
	k->known = pl.sym != NULL;
	k->addr = pl.kind == VGL_PLACE_MODULE ? WHOLE_MODULE : pl.addr;
}

static const char *own(struct vgl_profile *p, char *s)
{
	if (!s)
		return NULL;
	p->owned[p->nowned++] = s;
	return s;
}

static size_t find_func(const struct fkey *keys, size_t n,
			const struct fkey *k)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_fkey(&keys[mid], k) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int strcmp0(const char *a, const char *b)
{
	if (!a || !b)
		return a ? 1 : b ? -1 : 0;
	return strcmp(a, b);
}

/* Function indexes by name, to find clashes (qsort_r: arg is funcs). */
static int cmp_by_name(const void *a, const void *b, void *arg)
{
	const struct vgl_pfunc *funcs = arg;
	const struct vgl_pfunc *x = &funcs[*(const size_t *)a];
	const struct vgl_pfunc *y = &funcs[*(const size_t *)b];

	return strcmp(x->name, y->name);
}

static int cmp_func_calls(const void *a, const void *b, void *arg)
{
	const struct vgl_pfunc *funcs = arg;
	const struct vgl_pfunc *x = &funcs[*(const uint32_t *)a];
	const struct vgl_pfunc *y = &funcs[*(const uint32_t *)b];
	int c;

	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	c = strcmp(x->label, y->label);
	if (!c)
		c = strcmp0(x->module_name, y->module_name);
	if (!c && x->addr != y->addr)
		c = x->addr < y->addr ? -1 : 1;
	return c;
}

/* Gives every function whose name another one has a label naming its
 * file (or, when the files say nothing, its module), and its address in
 * its module too when that is not enough to tell them apart. */
static int label_clashes(struct vgl_profile *p)
{
	size_t *idx = malloc((p->nfuncs ? p->nfuncs : 1) * sizeof(*idx));
	size_t i, j, k;

	if (!idx)
		return -ENOMEM;
	for (i = 0; i < p->nfuncs; i++) {
		idx[i] = i;
		p->funcs[i].label = p->funcs[i].name;
	}
	qsort_r(idx, p->nfuncs, sizeof(*idx), cmp_by_name, p->funcs);
	for (i = 0; i < p->nfuncs; i = j) {
		for (j = i + 1; j < p->nfuncs &&
		     !strcmp(p->funcs[idx[i]].name, p->funcs[idx[j]].name); j++)
			;
		if (j - i < 2)
			continue;
		for (k = i; k < j; k++) {
			struct vgl_pfunc *f = &p->funcs[idx[k]];
			const char *where = f->file ? f->file : f->module_name;
			char *s = NULL;
			size_t l;
			int r;

			/* Copies of a static inline function of a header, or
			 * static functions without debug info, have the same
			 * file (or module) too: their address tells them
			 * apart, as the module+0xOFF of a function without
			 * a symbol does. */
			for (l = i; l < j; l++)
				if (l != k && !strcmp0(where, p->funcs[idx[l]].file ?
						       p->funcs[idx[l]].file :
						       p->funcs[idx[l]].module_name))
					break;
			if (l == j && !where)
				continue;
			if (l == j)
				r = asprintf(&s, "%s (%s)", f->name, where);
			else
				r = asprintf(&s, "%s (%s%s%s%s0x%llx)", f->name,
					     f->file ? f->file : "",
					     f->file ? ", " : "",
					     f->module_name ? f->module_name : "",
					     f->module_name ? "+" : "",
					     (unsigned long long)f->addr);
			if (r < 0) {
				free(idx);
				return -ENOMEM;
			}
			f->label = own(p, s);
		}
	}
	free(idx);
	return 0;
}

static int cmp_call_key(const void *a, const void *b)
{
	const struct vgl_pcall *x = a, *y = b;

	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	if (x->callee != y->callee)
		return x->callee < y->callee ? -1 : 1;
	if (x->site_file != y->site_file)
		return (uintptr_t)x->site_file < (uintptr_t)y->site_file ? -1 : 1;
	if (x->site_line != y->site_line)
		return x->site_line < y->site_line ? -1 : 1;
	return x->inlined_in < y->inlined_in ? -1 : x->inlined_in > y->inlined_in;
}

/* Most counted first; ties by caller, callee and site as people read them,
 * so the output is stable (qsort_r: arg is the functions). */
static int cmp_call_count(const void *a, const void *b, void *arg)
{
	const struct vgl_pcall *x = a, *y = b;
	const struct vgl_pfunc *f = arg;
	int c;

	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	c = strcmp(f[x->caller].label, f[y->caller].label);
	if (!c)
		c = strcmp(f[x->callee].label, f[y->callee].label);
	if (!c)
		c = strcmp0(f[x->callee].module_name, f[y->callee].module_name);
	if (!c)
		c = strcmp0(x->site_file, y->site_file);
	if (!c)
		c = x->site_line < y->site_line ? -1 : x->site_line > y->site_line;
	if (!c)
		c = cmp_call_key(a, b);
	return c;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct vgl_pthread *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Steps 1-2: the functions, one per distinct (module, start). */
static int make_funcs(struct vgl_profile *p, struct fkey *keys, size_t nkeys)
{
	struct vgl_symbolizer *sym = p->sym;
	size_t i, n = 0;

	qsort(keys, nkeys, sizeof(*keys), cmp_fkey);
	for (i = 0; i < nkeys; i++)
		if (!n || cmp_fkey(&keys[n - 1], &keys[i]))
			keys[n++] = keys[i];
	p->funcs = calloc(n ? n : 1, sizeof(*p->funcs));
	p->owned = calloc(2 * n + 1, sizeof(*p->owned));
	if (!p->funcs || !p->owned)
		return -ENOMEM;
	p->nfuncs = n;
	for (i = 0; i < n; i++) {
		struct vgl_pfunc *f = &p->funcs[i];
		const struct fkey *k = &keys[i];

		struct vgl_place pl = {
			k->sym ? VGL_PLACE_SYMBOL :
			k->module == VGL_PROFILE_NO_MODULE ? VGL_PLACE_ADDRESS :
			k->addr == WHOLE_MODULE ? VGL_PLACE_MODULE :
			VGL_PLACE_FDE,
			k->module, k->addr == WHOLE_MODULE ? 0 : k->addr, k->sym,
			NULL
		};
		char buf[PATH_MAX + 32];
		const char *name = vgl_place_name(sym, &pl, buf, sizeof(buf));

		f->module = k->module;
		f->known = k->known;
		f->addr = pl.addr;
		f->module_name = vgl_symbolizer_module_name(sym, k->module);
		if (k->sym) {
			const char *file;
			int line, err;

			f->size = k->sym->size;
			f->name = name;
			err = vgl_symbolizer_line(sym, k->module,
						  k->addr + vgl_symbolizer_module_bias(sym, k->module),
						  &file, &line);
			if (err == -ENOMEM)
				return err;
			if (!err) {
				f->file = file;
				f->line = line;
			}
		} else {
			f->name = own(p, strdup(name));
		}
		if (!f->name)
			return -ENOMEM;
	}
	return 0;
}

/* Step 4: the calls rows, and the lists a report walks. */
static int make_calls(struct vgl_profile *p)
{
	size_t i, n, *fill = NULL, *seen = NULL;
	int err = -ENOMEM;

	p->calls = malloc((p->nedges ? p->nedges : 1) * sizeof(*p->calls));
	if (!p->calls)
		return -ENOMEM;
	for (i = 0; i < p->nedges; i++) {
		const struct vgl_pedge *e = &p->edges[i];
		struct vgl_pcall *c = &p->calls[i];

		c->caller = e->caller;
		c->callee = e->callee;
		c->site_file = e->site_file;
		c->site_line = e->site_line;
		c->inlined_in = e->inlined_in;
		c->calls = e->calls;
	}
	n = vgl_sort_sum(p->calls, p->nedges, sizeof(*p->calls), cmp_call_key,
			 offsetof(struct vgl_pcall, calls), NULL);
	p->ncalls = n;
	qsort_r(p->calls, n, sizeof(*p->calls), cmp_call_count, p->funcs);

	/* Calls into each function, kept in count order (a counting sort). */
	p->into = malloc((n ? n : 1) * sizeof(*p->into));
	p->into_first = calloc(p->nfuncs + 1, sizeof(*p->into_first));
	fill = calloc(p->nfuncs + 1, sizeof(*fill));
	if (!p->into || !p->into_first || !fill)
		goto out;
	for (i = 0; i < n; i++)
		p->into_first[p->calls[i].callee + 1]++;
	for (i = 0; i < p->nfuncs; i++)
		p->into_first[i + 1] += p->into_first[i];
	memcpy(fill, p->into_first, (p->nfuncs + 1) * sizeof(*fill));
	for (i = 0; i < n; i++)
		p->into[fill[p->calls[i].callee]++] = i;

	/* Callees of each function: its rows in count order, those of one
	 * callee added up where that callee first appears. */
	p->callees = malloc((n ? n : 1) * sizeof(*p->callees));
	p->callees_first = calloc(p->nfuncs + 1, sizeof(*p->callees_first));
	seen = malloc((p->nfuncs ? p->nfuncs : 1) * sizeof(*seen));
	if (!p->callees || !p->callees_first || !seen)
		goto out;
	{
		size_t *order = malloc((n ? n : 1) * sizeof(*order));

		if (!order)
			goto out;
		memset(fill, 0, (p->nfuncs + 1) * sizeof(*fill));
		for (i = 0; i < n; i++)
			fill[p->calls[i].caller + 1]++;
		for (i = 0; i < p->nfuncs; i++)
			fill[i + 1] += fill[i];
		for (i = 0; i < n; i++)
			order[fill[p->calls[i].caller]++] = i;
		/* fill[f] is now the end of f's rows: order[start .. fill[f]). */
		for (i = 0; i < p->nfuncs; i++)
			seen[i] = SIZE_MAX;
		{
			size_t f, j = 0, start = 0;

			for (f = 0; f < p->nfuncs; f++) {
				size_t first = p->ncallees;

				p->callees_first[f] = first;
				for (; j < fill[f]; j++) {
					const struct vgl_pcall *c = &p->calls[order[j]];
					struct vgl_pcallee *ce;

					if (c->inlined_in != VGL_PROFILE_NONE) {
						/* Rare: a plain search of this
						 * caller's callees so far. */
						size_t q;

						for (q = first; q < p->ncallees; q++)
							if (p->callees[q].callee == c->callee &&
							    p->callees[q].inlined_in == c->inlined_in)
								break;
						if (q < p->ncallees) {
							ce = &p->callees[q];
							ce->calls = vgl_sat_add(ce->calls,
										c->calls);
							continue;
						}
					} else if (seen[c->callee] != SIZE_MAX) {
						ce = &p->callees[seen[c->callee]];
						ce->calls = vgl_sat_add(ce->calls,
									c->calls);
						continue;
					} else {
						seen[c->callee] = p->ncallees;
					}
					ce = &p->callees[p->ncallees++];
					ce->callee = c->callee;
					ce->inlined_in = c->inlined_in;
					ce->calls = c->calls;
				}
				for (; start < j; start++)
					seen[p->calls[order[start]].callee] = SIZE_MAX;
			}
			p->callees_first[p->nfuncs] = p->ncallees;
		}
		free(order);
	}
	err = 0;
out:
	free(fill);
	free(seen);
	return err;
}

/* Renumbers the functions so that funcs[] is in report order. */
static int order_funcs(struct vgl_profile *p)
{
	uint32_t *order = malloc((p->nfuncs ? p->nfuncs : 1) * sizeof(*order));
	uint32_t *newidx = malloc((p->nfuncs ? p->nfuncs : 1) * sizeof(*newidx));
	struct vgl_pfunc *nf = malloc((p->nfuncs ? p->nfuncs : 1) * sizeof(*nf));
	size_t i;

	if (!order || !newidx || !nf) {
		free(order);
		free(newidx);
		free(nf);
		return -ENOMEM;
	}
	for (i = 0; i < p->nfuncs; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, p->nfuncs, sizeof(*order), cmp_func_calls, p->funcs);
	for (i = 0; i < p->nfuncs; i++) {
		nf[i] = p->funcs[order[i]];
		newidx[order[i]] = (uint32_t)i;
		if (nf[i].calls)
			p->ncalled = i + 1;
	}
	for (i = 0; i < p->nedges; i++) {
		p->edges[i].caller = newidx[p->edges[i].caller];
		p->edges[i].callee = newidx[p->edges[i].callee];
		if (p->edges[i].inlined_in != VGL_PROFILE_NONE)
			p->edges[i].inlined_in = newidx[p->edges[i].inlined_in];
	}
	free(p->funcs);
	p->funcs = nf;
	free(order);
	free(newidx);
	return 0;
}

static int make_threads(struct vgl_profile *p)
{
	const struct vgl_reader *r = p->r;
	size_t i, n = 0;

	p->threads = malloc((r->nthread_counts ? r->nthread_counts : 1) *
			    sizeof(*p->threads));
	if (!p->threads)
		return -ENOMEM;
	for (i = 0; i < r->nthread_counts; i++) {
		p->threads[i].tid = r->thread_counts[i].tid;
		p->threads[i].calls = r->thread_counts[i].count;
	}
	qsort(p->threads, r->nthread_counts, sizeof(*p->threads), cmp_thread);
	for (i = 0; i < r->nthread_counts; i++) {
		if (n && p->threads[n - 1].tid == p->threads[i].tid) {
			p->threads[n - 1].calls = vgl_sat_add(p->threads[n - 1].calls,
							      p->threads[i].calls);
			continue;
		}
		p->threads[n++] = p->threads[i];
	}
	p->nthreads = n;
	return 0;
}

/* Edge indexes by call site, to find the edges that share one. */
static int cmp_by_site(const void *a, const void *b, void *arg)
{
	const struct vgl_pedge *e = arg;
	const struct vgl_pedge *x = &e[*(const size_t *)a];
	const struct vgl_pedge *y = &e[*(const size_t *)b];

	if (x->site_mod != y->site_mod)
		return x->site_mod < y->site_mod ? -1 : 1;
	if (x->site != y->site)
		return x->site < y->site ? -1 : 1;
	return 0;
}

size_t *vgl_profile_site_order(const struct vgl_profile *p)
{
	size_t i, *idx = malloc((p->nedges ? p->nedges : 1) * sizeof(*idx));

	if (!idx)
		return NULL;
	for (i = 0; i < p->nedges; i++)
		idx[i] = i;
	qsort_r(idx, p->nedges, sizeof(*idx), cmp_by_site, p->edges);
	return idx;
}

/* At most this many callees at one indirect call site are matched against
 * each other's DWARF: a dispatch site with hundreds of callees is a real
 * indirect call, and the check costs a DWARF walk per pair. */
#define MAX_SITE_CALLEES 8

/* Step 6: each function's calls in inlined copies, and their hosts. */
static int count_inlined(struct vgl_profile *p)
{
	uint32_t *mark = malloc((p->nfuncs + 1) * sizeof(*mark));
	size_t f, k;

	if (!mark)
		return -ENOMEM;
	for (f = 0; f < p->nfuncs; f++)
		mark[f] = UINT32_MAX;
	for (f = 0; f < p->nfuncs; f++) {
		struct vgl_pfunc *fn = &p->funcs[f];

		for (k = p->into_first[f]; k < p->into_first[f + 1]; k++) {
			const struct vgl_pcall *c = &p->calls[p->into[k]];

			if (c->inlined_in == VGL_PROFILE_NONE)
				continue;
			fn->inlined_calls = vgl_sat_add(fn->inlined_calls,
							c->calls);
			if (mark[c->inlined_in] != f) {
				mark[c->inlined_in] = (uint32_t)f;
				fn->inlined_hosts++;
			}
		}
	}
	free(mark);
	return 0;
}

/*
 * Step 1b: which edges are inlined copies, and in which host.  At a direct
 * call site, the host is the call's target whenever that is a function
 * other than the callee.  At an indirect site, another callee entered from
 * the same site is the host if its DWARF holds an inlined instance of the
 * callee.  Writes hk[i] (the host's key) and has_host[i].
 */
static int find_hosts(struct vgl_profile *p, struct vgl_callsite *cs,
		      const struct fkey *ek, struct fkey *hk,
		      unsigned char *has_host)
{
	struct vgl_symbolizer *sym = p->sym;
	size_t i, j, k, n = p->nedges, *idx;

	idx = vgl_profile_site_order(p);
	if (!idx)
		return -ENOMEM;
	for (i = 0; i < n; i = j) {
		const struct vgl_pedge *e = &p->edges[idx[i]];
		struct vgl_call_insn insn;
		uint64_t bias;

		for (j = i + 1; j < n && !cmp_by_site(&idx[i], &idx[j], p->edges); j++)
			;
		if (e->site_mod == VGL_PROFILE_NO_MODULE || !e->raw->site)
			continue;
		bias = vgl_symbolizer_module_bias(sym, e->site_mod);
		if (vgl_callsite_find(cs, e->site_mod, e->site + bias, &insn))
			continue;
		if (insn.direct) {
			struct fkey t;

			/* A call into a PLT stub (or anything but a function's
			 * first byte) says nothing about inlining. */
			resolve(sym, e->site_mod, insn.target + bias, &t);
			if (!t.known || t.addr != insn.target)
				continue;
			for (k = i; k < j; k++) {
				const struct fkey *c = &ek[2 * idx[k]];

				if (cmp_fkey(c, &t)) {
					hk[idx[k]] = t;
					has_host[idx[k]] = 1;
				}
			}
			continue;
		}
		if (j - i < 2 || j - i > MAX_SITE_CALLEES)
			continue;
		for (k = i; k < j; k++) {
			const struct fkey *c = &ek[2 * idx[k]];
			size_t h;

			if (!c->known)
				continue;
			for (h = i; h < j; h++) {
				const struct fkey *hc = &ek[2 * idx[h]];

				if (h == k || !hc->known ||
				    !vgl_symbolizer_inlines(sym, hc->module,
					hc->addr + vgl_symbolizer_module_bias(sym, hc->module),
					c->sym->name))
					continue;
				hk[idx[k]] = *hc;
				has_host[idx[k]] = 1;
				break;
			}
		}
	}
	free(idx);
	return 0;
}

int vgl_profile_build(struct vgl_profile *p, const struct vgl_reader *r,
		      struct vgl_symbolizer *sym)
{
	struct fkey *keys = NULL, *ek = NULL, *hk = NULL;
	unsigned char *has_host = NULL;
	struct vgl_callsite *cs = NULL;
	size_t i, n = r->nedges, nkeys;
	int err = -ENOMEM;

	memset(p, 0, sizeof(*p));
	p->r = r;
	p->sym = sym;
	p->total_calls = r->total_calls;
	keys = malloc((n ? 3 * n : 1) * sizeof(*keys));
	ek = malloc((n ? 2 * n : 1) * sizeof(*ek));
	hk = malloc((n ? n : 1) * sizeof(*hk));
	has_host = calloc(n ? n : 1, 1);
	p->edges = calloc(n ? n : 1, sizeof(*p->edges));
	if (!keys || !ek || !hk || !has_host || !p->edges)
		goto out;
	err = vgl_callsite_new(&cs, sym);
	if (err)
		goto out;
	p->nedges = n;
	/* Step 1: symbolize each edge's callee and call site once.  Edges
	 * come sorted by callee, so one callee is resolved once. */
	for (i = 0; i < n; i++) {
		const struct vgl_edge_info *e = &r->edges[i];
		struct vgl_pedge *pe = &p->edges[i];
		uint32_t cm = vgl_profile_module_index(r, e->callee_mod);
		uint32_t sm = vgl_profile_module_index(r, e->site_mod);
		uint64_t call = e->site ? e->site - 1 : 0;
		const char *file;
		int line;

		if (i && e->callee == r->edges[i - 1].callee &&
		    e->callee_mod == r->edges[i - 1].callee_mod)
			ek[2 * i] = ek[2 * i - 2];
		else
			resolve(sym, cm, e->callee, &ek[2 * i]);
		/* The caller holds the call instruction, site - 1: the return
		 * address may already be the next function. */
		resolve(sym, sm, call, &ek[2 * i + 1]);
		pe->site_mod = sm;
		pe->site = sm != VGL_PROFILE_NO_MODULE ?
			   e->site - vgl_symbolizer_module_bias(sym, sm) : e->site;
		pe->calls = e->count;
		pe->raw = e;
		pe->inlined_in = VGL_PROFILE_NONE;
		if (sm != VGL_PROFILE_NO_MODULE) {
			err = vgl_symbolizer_line(sym, sm, call, &file, &line);
			if (err == -ENOMEM)
				goto out;
			if (!err) {
				pe->site_file = file;
				pe->site_line = line;
			}
		}
	}
	/* Entry mode counts no inlined copy: a site whose call targets
	 * another function is a tail call of the callee from there. */
	if (vgl_reader_modes(r) != VGL_META_MODE_ENTRY) {
		err = find_hosts(p, cs, ek, hk, has_host);
		if (err)
			goto out;
	}
	memcpy(keys, ek, 2 * n * sizeof(*keys));
	nkeys = 2 * n;
	for (i = 0; i < n; i++)
		if (has_host[i])
			keys[nkeys++] = hk[i];
	err = make_funcs(p, keys, nkeys);
	if (err)
		goto out;
	for (i = 0; i < n; i++) {
		struct vgl_pedge *pe = &p->edges[i];

		pe->callee = (uint32_t)find_func(keys, p->nfuncs, &ek[2 * i]);
		pe->caller = (uint32_t)find_func(keys, p->nfuncs, &ek[2 * i + 1]);
		if (has_host[i])
			pe->inlined_in = (uint32_t)find_func(keys, p->nfuncs, &hk[i]);
		p->funcs[pe->callee].calls = vgl_sat_add(p->funcs[pe->callee].calls,
							 pe->calls);
	}
	err = label_clashes(p);
	if (!err)
		err = order_funcs(p);
	if (!err)
		err = make_calls(p);
	if (!err)
		err = make_threads(p);
	if (!err)
		err = count_inlined(p);
out:
	vgl_callsite_free(cs);
	free(keys);
	free(ek);
	free(hk);
	free(has_host);
	if (err)
		vgl_profile_release(p);
	return err;
}

void vgl_profile_release(struct vgl_profile *p)
{
	size_t i;

	for (i = 0; i < p->nowned; i++)
		free(p->owned[i]);
	free(p->owned);
	free(p->funcs);
	free(p->edges);
	free(p->calls);
	free(p->into);
	free(p->into_first);
	free(p->callees);
	free(p->callees_first);
	free(p->threads);
	memset(p, 0, sizeof(*p));
}
