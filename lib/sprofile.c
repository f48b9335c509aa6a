/*
 * sprofile.c - see sprofile.h.
 *
 * Three passes over the frames: symbolize each one into a key (module,
 * ELF address of its function), sort the keys and keep one per function,
 * then find each frame's function by binary search while writing the
 * chains.  The chains are then sorted by their functions' names, so
 * equal chains of different threads meet and are added up, and every
 * writer gets them in the order folded stacks are read in.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sortsum.h"
#include "sprofile.h"
#include "tally.h"

struct skey {
	uint32_t module;
	uint64_t addr;          /* 0 for an inlined copy */
	struct vgl_place place; /* place.inlined: an inlined copy of that
	                         * function, one per name and module */
	const char *inl_file;   /* the file declaring it, or NULL */
};

static int cmp_skey(const void *a, const void *b)
{
	const struct skey *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	if (x->place.inlined != y->place.inlined) {
		if (!x->place.inlined || !y->place.inlined)
			return x->place.inlined ? 1 : -1;
		return strcmp(x->place.inlined, y->place.inlined);
	}
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* The key of the one function of a module that stands for all its code
 * that neither a symbol nor an FDE places. */
#define WHOLE_MODULE UINT64_MAX

/*
 * The function of frame fr.  A return address (caller) is looked up at
 * addr - 1.  Without a symbol, the function is the one its FDE (.eh_frame)
 * starts, else the whole module: one row per function or module, never
 * one per address (issue 16); see vgl_symbolizer_place.
 */
static void resolve(const struct vgl_reader *r, struct vgl_symbolizer *sym,
		    const struct vgl_frame *fr, int caller, struct skey *k)
{
	uint64_t look = caller && fr->addr ? fr->addr - 1 : fr->addr;

	k->module = vgl_profile_module_index(r, fr->module);
	vgl_symbolizer_place(sym, k->module == VGL_PROFILE_NO_MODULE ?
			     VGL_SYMBOLIZER_NO_MODULE : k->module, look,
			     &k->place);
	/* A frame in no module keeps its address as it is: it only names
	 * the place, and people compare it with the raw frames. */
	if (k->place.kind == VGL_PLACE_ADDRESS)
		k->place.addr = fr->addr;
	k->addr = k->place.kind == VGL_PLACE_MODULE ? WHOLE_MODULE :
		  k->place.addr;
}

static size_t find_key(const struct skey *keys, size_t n, const struct skey *k)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_skey(&keys[mid], k) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Fills funcs[i] from keys[i], as the counting model names functions. */
static int make_func(struct vgl_sprofile *p, const struct skey *k,
		     struct vgl_pfunc *f)
{
	struct vgl_func_sym *fs = k->place.sym;
	char buf[PATH_MAX + 32];
	const char *name;

	memset(f, 0, sizeof(*f));
	f->module = k->module;
	f->addr = k->place.addr;
	f->known = fs != NULL;
	f->module_name = vgl_symbolizer_module_name(p->sym, k->module);
	name = vgl_place_name(p->sym, &k->place, buf, sizeof(buf));
	if (k->place.inlined) {
		/* An inlined copy: no address or symbol of its own.  Its file
		 * is the one that declares it, else its host's (the first
		 * host by address: one function stands for the copies in
		 * every host); the exports that name a file (callgrind's
		 * fl=) said ??? for it. */
		f->addr = 0;
		f->known = 0;
		f->inlined_copy = 1;
		f->file = k->inl_file;
		if (fs && !f->file) {
			const char *file;
			int line, err;

			err = vgl_symbolizer_line(p->sym, k->module, k->place.addr +
						  vgl_symbolizer_module_bias(p->sym, k->module),
						  &file, &line);
			if (err == -ENOMEM)
				return err;
			if (!err)
				f->file = file;
		}
		fs = NULL;
	}
	if (fs) {
		const char *file;
		int line, err;

		f->size = fs->size;
		err = vgl_symbolizer_line(p->sym, k->module, k->addr +
					  vgl_symbolizer_module_bias(p->sym, k->module),
					  &file, &line);
		if (err == -ENOMEM)
			return err;
		if (!err) {
			f->file = file;
			f->line = line;
		}
	} else {
		name = strdup(name);
		if (!name)
			return -ENOMEM;
		p->owned[p->nowned++] = (char *)name;
	}
	f->name = name;
	f->label = f->name;
	return 0;
}

/* Orders function indexes for people (qsort_r: arg is the profile). */
static int cmp_report(const void *a, const void *b, void *arg)
{
	const struct vgl_sprofile *p = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c;

	if (p->self[x] != p->self[y])
		return p->self[x] < p->self[y] ? 1 : -1;
	if (p->total[x] != p->total[y])
		return p->total[x] < p->total[y] ? 1 : -1;
	c = strcmp(p->funcs[x].name, p->funcs[y].name);
	if (c)
		return c;
	if (p->funcs[x].module != p->funcs[y].module)
		return p->funcs[x].module < p->funcs[y].module ? -1 : 1;
	return (p->funcs[x].addr > p->funcs[y].addr) -
	       (p->funcs[x].addr < p->funcs[y].addr);
}

/* Chains by their functions' labels, outermost first; then by index, so
 * that only equal chains compare equal. */
static int cmp_chain(const void *a, const void *b, void *arg)
{
	const struct vgl_sprofile *p = arg;
	const struct vgl_sstack *x = a, *y = b;
	const uint32_t *cx = p->chain + x->first, *cy = p->chain + y->first;
	uint32_t i, n = x->depth < y->depth ? x->depth : y->depth;
	int c;

	for (i = 0; i < n; i++) {
		if (cx[i] == cy[i])
			continue;
		c = strcmp(p->funcs[cx[i]].label, p->funcs[cy[i]].label);
		if (c)
			return c;
		return cx[i] < cy[i] ? -1 : 1;
	}
	return (x->depth > y->depth) - (x->depth < y->depth);
}

static int cmp_label(const void *a, const void *b, void *arg)
{
	const struct vgl_pfunc *f = arg;

	return strcmp(f[*(const size_t *)a].name, f[*(const size_t *)b].name);
}

/* Where two functions have one name, each is labelled with its file (or
 * module), as the counting model does. */
static int label_clashes(struct vgl_sprofile *p, size_t *idx)
{
	size_t i, j, k;

	for (i = 0; i < p->nfuncs; i++)
		idx[i] = i;
	qsort_r(idx, p->nfuncs, sizeof(*idx), cmp_label, p->funcs);
	for (i = 0; i < p->nfuncs; i = j) {
		for (j = i + 1; j < p->nfuncs &&
		     !strcmp(p->funcs[idx[i]].name, p->funcs[idx[j]].name); j++)
			;
		for (k = i; j - i > 1 && k < j; k++) {
			struct vgl_pfunc *f = &p->funcs[idx[k]];
			const char *where = f->file ? f->file : f->module_name;
			char *s;

			if (!where)
				continue;
			if (asprintf(&s, "%s (%s)", f->name, where) < 0)
				return -ENOMEM;
			p->owned[p->nowned++] = s;
			f->label = s;
		}
	}
	return 0;
}

/*
 * The key of each frame's function, after the keys of the functions
 * inlined there, innermost first as in the file (perf's "NAME (inlined)"
 * frames): stack i's are (*keys)[first[i] .. + depth[i]).  *keys is the
 * caller's to free, whatever the result.
 */
static int frame_keys(const struct vgl_reader *r, struct vgl_symbolizer *sym,
		      size_t *first, uint32_t *depth, struct skey **keys,
		      size_t *nkeys)
{
	size_t nf = 0, cap = 0, i, j;

	for (i = 0; i < r->nstacks; i++) {
		const struct vgl_stack_info *st = &r->stacks[i];

		first[i] = nf;
		for (j = 0; j < st->nframes; j++) {
			const struct vgl_frame *fr = &r->frames[st->first_frame + j];
			const char *inl[32], *inl_file[32];
			struct skey k;
			size_t m, x;

			resolve(r, sym, fr, j > 0, &k);
			m = k.module == VGL_PROFILE_NO_MODULE ? 0 :
			    vgl_symbolizer_inlined_decl(sym, k.module,
							j && fr->addr ? fr->addr - 1 :
							fr->addr, inl, inl_file, 32);
			if (nf + m + 1 > cap) {
				struct skey *g;

				cap = (nf + m + 1) * 2;
				g = realloc(*keys, cap * sizeof(*g));
				if (!g)
					return -ENOMEM;
				*keys = g;
			}
			k.inl_file = NULL;
			for (x = 0; x < m; x++) {
				(*keys)[nf] = k;
				(*keys)[nf].addr = 0;
				(*keys)[nf].inl_file = inl_file[x];
				(*keys)[nf++].place.inlined = inl[x];
			}
			(*keys)[nf++] = k;
		}
		depth[i] = (uint32_t)(nf - first[i]);
	}
	*nkeys = nf;
	return 0;
}

/* The nf keys sorted into uniq, each function once; returns how many. */
static size_t unique_keys(const struct skey *keys, size_t nf,
			  struct skey *uniq)
{
	size_t i, n = 0;

	if (nf) {       /* no stacks: keys may be NULL */
		memcpy(uniq, keys, nf * sizeof(*keys));
		qsort(uniq, nf, sizeof(*uniq), cmp_skey);
	}
	for (i = 0; i < nf; i++) {
		if (!n || cmp_skey(&uniq[n - 1], &uniq[i]))
			uniq[n++] = uniq[i];
		else if (uniq[i].place.inlined) {
			/* The copies of one inlined function in several
			 * hosts: a file that declares it, else the first
			 * host by address names its file (make_func),
			 * whatever order qsort left them in. */
			const char *file = uniq[n - 1].inl_file ?
					   uniq[n - 1].inl_file : uniq[i].inl_file;

			if (uniq[i].place.addr < uniq[n - 1].place.addr)
				uniq[n - 1] = uniq[i];
			uniq[n - 1].inl_file = file;
		}
	}
	return n;
}

/*
 * Each frame's function, innermost first as in the file, as its index in
 * uniq (p->nfuncs keys) into p->chain, and the samples: self for frame
 * 0, total once per stack however often a recursive function is on it
 * (tally.h).
 */
static void count_samples(struct vgl_sprofile *p, struct vgl_tally *tally,
			  const struct skey *uniq, const struct skey *keys,
			  const size_t *first, const uint32_t *depth)
{
	size_t i, j;

	for (i = 0; i < p->r->nstacks; i++) {
		const struct vgl_stack_info *st = &p->r->stacks[i];

		for (j = 0; j < depth[i]; j++)
			p->chain[first[i] + j] = (uint32_t)find_key(uniq,
						 p->nfuncs, &keys[first[i] + j]);
		/* Every function has room: no allocation, no failure. */
		vgl_tally_add(tally, p->chain + first[i], depth[i], st->count);
		p->samples = vgl_sat_add(p->samples, st->count);
	}
}

/*
 * Puts p's functions in the order people read them (cmp_report), their
 * counts with them; order[i] is the old index of the new function i, and
 * remap[old] its new index.
 */
static int report_order(struct vgl_sprofile *p, size_t *order,
			uint32_t *remap)
{
	size_t i, n = p->nfuncs;
	struct vgl_pfunc *sorted = malloc((n + 1) * sizeof(*sorted));
	uint64_t *s2 = malloc((n + 1) * sizeof(*s2));
	uint64_t *t2 = malloc((n + 1) * sizeof(*t2));
	int err = -ENOMEM;

	if (!sorted || !s2 || !t2)
		goto out;
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_report, p);
	for (i = 0; i < n; i++) {
		remap[order[i]] = (uint32_t)i;
		sorted[i] = p->funcs[order[i]];
		s2[i] = p->self[order[i]];
		t2[i] = p->total[order[i]];
	}
	memcpy(p->funcs, sorted, n * sizeof(*sorted));
	memcpy(p->self, s2, n * sizeof(*s2));
	memcpy(p->total, t2, n * sizeof(*t2));
	err = 0;
out:
	free(sorted);
	free(s2);
	free(t2);
	return err;
}

/* Stack i's chain, renumbered by remap and turned outermost first, as
 * p->stacks[i], one per stack of the file. */
static void outer_first(struct vgl_sprofile *p, const size_t *first,
			const uint32_t *depth, const uint32_t *remap)
{
	size_t i, j;

	for (i = 0; i < p->r->nstacks; i++) {
		const struct vgl_stack_info *st = &p->r->stacks[i];
		uint32_t *c = p->chain + first[i], d = depth[i];

		for (j = 0; j < d; j++)
			c[j] = remap[c[j]];
		for (j = 0; j < d / 2; j++) {
			uint32_t t = c[j];

			c[j] = c[d - 1 - j];
			c[d - 1 - j] = t;
		}
		p->stacks[i].first = first[i];
		p->stacks[i].depth = d;
		p->stacks[i].count = st->count;
	}
}

/* Keeps the stacks in file order as p->file_stacks, then sorts p->stacks
 * by chain and adds up the equal ones. */
static int merge_chains(struct vgl_sprofile *p)
{
	size_t i, ns = p->r->nstacks;

	p->file_stacks = malloc((ns + 1) * sizeof(*p->file_stacks));
	if (!p->file_stacks)
		return -ENOMEM;
	memcpy(p->file_stacks, p->stacks, ns * sizeof(*p->stacks));
	qsort_r(p->stacks, ns, sizeof(*p->stacks), cmp_chain, p);
	for (i = 0; i < ns; i++) {
		if (p->nstacks &&
		    !cmp_chain(&p->stacks[p->nstacks - 1], &p->stacks[i], p)) {
			struct vgl_sstack *prev = &p->stacks[p->nstacks - 1];

			prev->count = vgl_sat_add(prev->count, p->stacks[i].count);
			continue;
		}
		p->stacks[p->nstacks++] = p->stacks[i];
	}
	return 0;
}

int vgl_sprofile_build(struct vgl_sprofile *p, const struct vgl_reader *r,
		       struct vgl_symbolizer *sym)
{
	size_t nf = 0, ns = r->nstacks, i, n, *first = NULL;
	uint32_t *depth = NULL;
	struct skey *keys = NULL, *uniq = NULL;
	size_t *order = NULL;
	struct vgl_tally tally;
	uint32_t *remap = NULL;
	int err = -ENOMEM;

	memset(p, 0, sizeof(*p));
	vgl_tally_init(&tally);
	p->r = r;
	p->sym = sym;
	first = malloc((ns + 1) * sizeof(*first));
	depth = malloc((ns + 1) * sizeof(*depth));
	p->stacks = malloc((ns + 1) * sizeof(*p->stacks));
	if (!first || !depth || !p->stacks)
		goto out;
	err = frame_keys(r, sym, first, depth, &keys, &nf);
	if (err)
		goto out;
	err = -ENOMEM;
	uniq = malloc((nf + 1) * sizeof(*uniq));
	p->chain = malloc((nf + 1) * sizeof(*p->chain));
	if (!uniq || !p->chain)
		goto out;
	n = unique_keys(keys, nf, uniq);
	p->funcs = calloc(n + 1, sizeof(*p->funcs));
	p->owned = calloc(2 * n + 1, sizeof(*p->owned));
	order = malloc((n + 1) * sizeof(*order));
	remap = malloc((n + 1) * sizeof(*remap));
	if (!p->funcs || !p->owned || !order || !remap ||
	    vgl_tally_reserve(&tally, n))
		goto out;
	p->nfuncs = n;
	for (i = 0; i < n; i++) {
		err = make_func(p, &uniq[i], &p->funcs[i]);
		if (err)
			goto out;
	}
	count_samples(p, &tally, uniq, keys, first, depth);
	/* The profile keeps the counts. */
	p->self = tally.self;
	p->total = tally.total;
	tally.self = tally.total = NULL;
	err = report_order(p, order, remap);
	if (!err)
		err = label_clashes(p, order);
	if (err)
		goto out;
	/* Chains outermost first, then sorted and added up. */
	outer_first(p, first, depth, remap);
	err = merge_chains(p);
out:
	free(keys);
	free(first);
	free(depth);
	free(uniq);
	vgl_tally_release(&tally);
	free(order);
	free(remap);
	if (err)
		vgl_sprofile_release(p);
	return err;
}

void vgl_sprofile_release(struct vgl_sprofile *p)
{
	size_t i;

	for (i = 0; i < p->nowned; i++)
		free(p->owned[i]);
	free(p->owned);
	free(p->funcs);
	free(p->self);
	free(p->total);
	free(p->stacks);
	free(p->file_stacks);
	free(p->chain);
	memset(p, 0, sizeof(*p));
}
