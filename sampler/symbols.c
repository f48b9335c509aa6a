/*
 * symbols.c - see symbols.h.  A thin adapter over the readers' symbolizer
 * (lib/symbolizer.h), which reads each module's symbol table once into a
 * sorted array: this file only adds what a live process needs, the address
 * ranges its modules are mapped at (from /proc/PID/maps, read again when
 * an address falls outside them: dlopen, exec), and a cache of names per
 * address, since a run asks about the same few hundred addresses again and
 * again.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "maps.h"
#include "sampler.h"
#include "symbolizer.h"
#include "symbols.h"

#define CACHE 4096   /* entries, a power of 2 */
#define RELOAD_NS 100000000ull   /* at most one re-read of the maps per */

struct cached {
	uint64_t addr;   /* lookup address; 0 = empty */
	char *name;
};

/* Where a module of the symbolizer is mapped. */
struct range {
	uint64_t lo, hi;
	size_t mod;
};

struct sampler_symbols {
	pid_t pid;
	struct vgl_symbolizer *sym;
	struct range *ranges;    /* sorted by lo */
	size_t nranges;
	uint64_t loaded_ns;      /* when the maps were read; 0: never */
	int hold;                /* an old image's: never read again */
	struct cached cache[CACHE];
};

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The symbolizer's module whose path is path, or -1. */
static long module_of_path(struct vgl_symbolizer *sym, const char *path)
{
	size_t i, n = vgl_symbolizer_count(sym);

	for (i = 0; i < n; i++)
		if (!strcmp(vgl_symbolizer_module_path(sym, i), path))
			return (long)i;
	return -1;
}

/*
 * (Re)reads the process's modules and where they are mapped.  When they
 * cannot be read (the process has ended), what was read before stands:
 * the names of its stacks are still asked for after its end.
 */
static void load(struct sampler_symbols *sy)
{
	size_t cap = 0, n = 0, i;
	struct vgl_symbolizer *sym = NULL;
	struct range *ranges = NULL;
	struct vgl_maps maps;
	struct vgl_map m;

	sy->loaded_ns = vgl_clock_ns(CLOCK_MONOTONIC);
	if (vgl_symbolizer_from_pid(&sym, sy->pid) < 0)
		return;
	if (vgl_maps_open(&maps, sy->pid)) {
		vgl_symbolizer_free(sym);
		return;
	}
	while (vgl_maps_next(&maps, &m)) {
		struct range *g;
		long mod;

		if (m.path[0] != '/')
			continue;
		mod = module_of_path(sym, m.path);
		if (mod < 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			g = realloc(ranges, cap * sizeof(*g));
			if (!g)
				break;
			ranges = g;
		}
		ranges[n++] = (struct range){ m.lo, m.hi, (size_t)mod };
	}
	vgl_maps_close(&maps);
	if (!n) {
		/* Gone between the two reads: an empty map. */
		free(ranges);
		vgl_symbolizer_free(sym);
		return;
	}
	qsort(ranges, n, sizeof(*ranges), cmp_range);
	/* An address named "0x..." before its module was mapped has a
	 * name now. */
	for (i = 0; i < CACHE; i++) {
		free(sy->cache[i].name);
		sy->cache[i].name = NULL;
		sy->cache[i].addr = 0;
	}
	vgl_symbolizer_free(sy->sym);
	free(sy->ranges);
	sy->sym = sym;
	sy->ranges = ranges;
	sy->nranges = n;
}

static const struct range *find(const struct sampler_symbols *sy,
				uint64_t addr)
{
	size_t lo = 0, hi = sy->nranges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < sy->ranges[mid].lo)
			hi = mid;
		else if (addr >= sy->ranges[mid].hi)
			lo = mid + 1;
		else
			return &sy->ranges[mid];
	}
	return NULL;
}

struct sampler_symbols *sampler_symbols_open(pid_t pid)
{
	struct sampler_symbols *sy = calloc(1, sizeof(*sy));

	if (sy)
		sy->pid = pid;
	return sy;
}

void sampler_symbols_ready(struct sampler_symbols *sy)
{
	if (sy && !sy->loaded_ns && !sy->hold)
		load(sy);
}

void sampler_symbols_hold(struct sampler_symbols *sy)
{
	if (sy)
		sy->hold = 1;
}

void sampler_symbols_refresh(struct sampler_symbols *sy)
{
	if (sy && sy->loaded_ns && !sy->hold)
		load(sy);
}

/* Names addr as every output names it (vgl_place_name); NULL when no
 * module maps it. */
static char *lookup(struct sampler_symbols *sy, uint64_t addr)
{
	const struct range *r = find(sy, addr);
	char buf[4096 + 32];
	struct vgl_place pl;

	if (!r)
		return NULL;
	vgl_symbolizer_place(sy->sym, r->mod, addr, &pl);
	return strdup(vgl_place_name(sy->sym, &pl, buf, sizeof(buf)));
}

const char *sampler_symbols_name(struct sampler_symbols *sy, uint64_t addr,
				 int caller, char *buf, size_t len)
{
	uint64_t a = caller && addr ? addr - 1 : addr;
	struct cached *c = &sy->cache[(a ^ (a >> 12)) & (CACHE - 1)];
	char *name;

	if (addr == SAMPLER_KERNEL_IP) {
		snprintf(buf, len, "[kernel]");
		return buf;
	}
	if (c->addr == a && c->name) {
		snprintf(buf, len, "%s", c->name);
		return buf;
	}
	if (!sy->loaded_ns && !sy->hold)
		load(sy);
	name = lookup(sy, a);
	if (!name && !sy->hold &&
	    vgl_clock_ns(CLOCK_MONOTONIC) - sy->loaded_ns > RELOAD_NS) {
		/* New mappings since we read the maps (dlopen, exec). */
		load(sy);
		name = lookup(sy, a);
	}
	/* Not mapped even now (a broken frame-pointer chain): remembered
	 * too, so junk does not make us re-read the maps every time. */
	if (!name && asprintf(&name, "0x%" PRIx64, addr) < 0) {
		snprintf(buf, len, "0x%" PRIx64, addr);
		return buf;
	}
	free(c->name);
	c->addr = a;
	c->name = name;
	snprintf(buf, len, "%s", name);
	return buf;
}

size_t sampler_symbols_inlined(struct sampler_symbols *sy, uint64_t addr,
			       int caller, const char **names, size_t max)
{
	uint64_t a = caller && addr ? addr - 1 : addr;
	const struct range *r;

	if (addr == SAMPLER_KERNEL_IP)
		return 0;
	if (!sy->loaded_ns && !sy->hold)
		load(sy);
	/* sampler_symbols_name, asked first, re-read the maps if a was
	 * outside them; an address not mapped even now has no DWARF. */
	r = find(sy, a);
	return r ? vgl_symbolizer_inlined(sy->sym, r->mod, a, names, max) : 0;
}

void sampler_symbols_close(struct sampler_symbols *sy)
{
	size_t i;

	if (!sy)
		return;
	for (i = 0; i < CACHE; i++)
		free(sy->cache[i].name);
	vgl_symbolizer_free(sy->sym);
	free(sy->ranges);
	free(sy);
}
