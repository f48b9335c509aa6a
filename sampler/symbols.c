/*
 * symbols.c - see symbols.h.  A thin adapter over the readers' symbolizer
 * (lib/symbolizer.h), which reads each module's symbol table once into a
 * sorted array: the process's image (image.h) says where its modules are
 * mapped and when to read them again, and this file adds a cache of names
 * per address, since a run asks about the same few hundred addresses
 * again and again.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "sampler.h"
#include "symbolizer.h"
#include "symbols.h"

#define CACHE 4096   /* entries, a power of 2 */

struct cached {
	uint64_t addr;   /* lookup address; 0 = empty */
	char *name;
};

/* The names of one view (by its seq): an address named "0x..." before
 * its module was mapped has a name in a later view. */
struct slot {
	uint64_t seq;
	struct cached cache[CACHE];
};

struct sampler_symbols {
	struct proc_image *img;
	struct slot cur, old;    /* the image now, and before its exec */
};

struct sampler_symbols *sampler_symbols_open(struct proc_image *img)
{
	struct sampler_symbols *sy = calloc(1, sizeof(*sy));

	if (sy)
		sy->img = img;
	return sy;
}

static void clear(struct slot *sl)
{
	size_t i;

	for (i = 0; i < CACHE; i++) {
		free(sl->cache[i].name);
		sl->cache[i].name = NULL;
		sl->cache[i].addr = 0;
	}
}

/* The view that names a: the image before its exec for old, else the
 * image now, read again if a is in none of its code (a dlopen). */
static const struct image_view *view_of(struct sampler_symbols *sy,
					uint64_t a, int old)
{
	const struct image_view *v = old ? proc_image_old(sy->img) : NULL;

	return v ? v : proc_image_at(sy->img, a);
}

/* a's module in v's symbolizer into *mod; the symbolizer, or NULL when
 * no module of it maps a. */
static struct vgl_symbolizer *module_of(struct sampler_symbols *sy,
					const struct image_view *v,
					uint64_t a, size_t *mod)
{
	const struct image_map *m = v ? image_view_map_at(v, a) : NULL;
	struct vgl_symbolizer *sym;

	if (!m || m->mod < 0)
		return NULL;
	sym = image_view_symbolizer(sy->img, v);
	if (!sym || !v->sym_of || v->sym_of[m->mod] == SIZE_MAX)
		return NULL;
	*mod = v->sym_of[m->mod];
	return sym;
}

const char *sampler_symbols_name(struct sampler_symbols *sy, uint64_t addr,
				 int caller, int old, char *buf, size_t len)
{
	uint64_t a = caller && addr ? addr - 1 : addr;
	const struct image_view *v;
	struct vgl_symbolizer *sym;
	struct cached *c;
	struct slot *sl;
	char *name = NULL;
	size_t mod;

	if (addr == SAMPLER_KERNEL_IP) {
		snprintf(buf, len, "[kernel]");
		return buf;
	}
	v = view_of(sy, a, old);
	sl = v && v == proc_image_old(sy->img) ? &sy->old : &sy->cur;
	if (v && sl->seq != v->seq) {
		clear(sl);
		sl->seq = v->seq;
	}
	c = &sl->cache[(a ^ (a >> 12)) & (CACHE - 1)];
	if (c->addr == a && c->name) {
		snprintf(buf, len, "%s", c->name);
		return buf;
	}
	sym = module_of(sy, v, a, &mod);
	if (sym) {
		char nb[4096 + 32];
		struct vgl_place pl;

		vgl_symbolizer_place(sym, mod, a, &pl);
		name = strdup(vgl_place_name(sym, &pl, nb, sizeof(nb)));
	}
	/* Not mapped (a broken frame-pointer chain): remembered too, so
	 * that junk is not looked up again. */
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
			       int caller, int old, const char **names,
			       size_t max)
{
	uint64_t a = caller && addr ? addr - 1 : addr;
	struct vgl_symbolizer *sym;
	size_t mod;

	if (addr == SAMPLER_KERNEL_IP)
		return 0;
	sym = module_of(sy, view_of(sy, a, old), a, &mod);
	return sym ? vgl_symbolizer_inlined(sym, mod, a, names, max) : 0;
}

void sampler_symbols_close(struct sampler_symbols *sy)
{
	if (!sy)
		return;
	clear(&sy->cur);
	clear(&sy->old);
	free(sy);
}
