/*
 * elfplt.c - see elfplt.h.  The stubs are read as the linker writes
 * them (GNU ld, gold, lld): 16-byte entries in .plt (lazy: jmp *slot;
 * push; jmp PLT0) and .plt.sec (with IBT: endbr64; bnd jmp *slot), 8 or
 * 16 in .plt.got (jmp *slot, with endbr64 under IBT).  In each entry the
 * first `ff 25 disp32`, jmp *disp32(%rip), gives its slot; an entry
 * without one (PLT0, or .plt's IBT entries, whose .plt.sec twins jump)
 * is no stub.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfplt.h"

struct slot {
	uint64_t got;           /* the slot's address */
	const char *sym;        /* in the dynamic string table */
};

struct slots {
	struct slot *v;
	size_t n, cap;
};

static int cmp_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	return x->got < y->got ? -1 : x->got > y->got;
}

/* Adds the JUMP_SLOT and GLOB_DAT relocations of the RELA section scn. */
static int add_slots(struct slots *sl, Elf *elf, Elf_Scn *scn)
{
	Elf_Scn *symscn;
	Elf_Data *d, *syms;
	GElf_Shdr sh, symsh;
	size_t i, n;

	if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
	    !sh.sh_entsize)
		return 0;
	symscn = elf_getscn(elf, sh.sh_link);
	d = elf_getdata(scn, NULL);
	syms = symscn ? elf_getdata(symscn, NULL) : NULL;
	if (!d || !syms || !gelf_getshdr(symscn, &symsh))
		return 0;
	n = d->d_size / sh.sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym s;
		const char *name;
		unsigned type;

		if (!gelf_getrela(d, (int)i, &r))
			continue;
		type = (unsigned)GELF_R_TYPE(r.r_info);
		if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
			continue;
		if (!gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &s))
			continue;
		name = elf_strptr(elf, symsh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (sl->n == sl->cap) {
			size_t cap = sl->cap ? sl->cap * 2 : 64;
			struct slot *g = realloc(sl->v, cap * sizeof(*g));

			if (!g)
				return -ENOMEM;
			sl->v = g;
			sl->cap = cap;
		}
		sl->v[sl->n++] = (struct slot){ r.r_offset, name };
	}
	return 0;
}

static const char *slot_symbol(const struct slots *sl, uint64_t got)
{
	struct slot key = { got, NULL };
	const struct slot *hit = sl->n ? bsearch(&key, sl->v, sl->n,
					  sizeof(key), cmp_slot) : NULL;

	return hit ? hit->sym : NULL;
}

/* Whether name is one of the PLT's sections. */
static int plt_section(const char *name)
{
	return name && (!strcmp(name, ".plt") || !strcmp(name, ".plt.sec") ||
			!strcmp(name, ".plt.got"));
}

/* The slot symbol of the entry at bytes p (n of them) at address addr. */
static const char *entry_symbol(const struct slots *sl,
				const unsigned char *p, size_t n,
				uint64_t addr)
{
	size_t k;

	for (k = 0; k + 6 <= n; k++)
		if (p[k] == 0xff && p[k + 1] == 0x25) {
			int32_t disp;

			memcpy(&disp, p + k + 2, sizeof(disp));
			return slot_symbol(sl, addr + k + 6 + (int64_t)disp);
		}
	return NULL;
}

/* Each stub of the sections: fn(start, size, symbol, arg). */
static int each_stub(Elf *elf, const struct slots *sl,
		     int (*fn)(uint64_t, uint64_t, const char *, void *),
		     void *arg)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int err;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		uint64_t ent, off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !plt_section(elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		ent = sh.sh_entsize >= 8 ? sh.sh_entsize : 16;
		for (off = 0; off + ent <= d->d_size; off += ent) {
			const char *sym = entry_symbol(sl,
				(const unsigned char *)d->d_buf + off, ent,
				sh.sh_addr + off);

			if (sym && (err = fn(sh.sh_addr + off, ent, sym, arg)))
				return err;
		}
	}
	return 0;
}

struct collect {
	struct vgl_plt_stub *stubs;
	size_t n;
	size_t bytes;           /* of the names */
	char *names;            /* NULL while counting */
};

static int count_stub(uint64_t start, uint64_t size, const char *sym,
		      void *arg)
{
	struct collect *c = arg;

	(void)start;
	(void)size;
	c->n++;
	c->bytes += strlen(sym) + sizeof("@plt");
	return 0;
}

static int fill_stub(uint64_t start, uint64_t size, const char *sym,
		     void *arg)
{
	struct collect *c = arg;
	char *name = c->names + c->bytes;

	c->bytes += (size_t)sprintf(name, "%s@plt", sym) + 1;
	c->stubs[c->n++] = (struct vgl_plt_stub){ start, size, name };
	return 0;
}

int vgl_plt_stubs(Elf *elf, struct vgl_plt_stub **stubs, size_t *nstubs,
		  char **names)
{
	struct slots sl = { NULL, 0, 0 };
	struct collect c = { NULL, 0, 0, NULL };
	Elf_Scn *scn = NULL;
	int err = 0;

	*stubs = NULL;
	*nstubs = 0;
	*names = NULL;
	while (!err && (scn = elf_nextscn(elf, scn)))
		err = add_slots(&sl, elf, scn);
	if (err || !sl.n)
		goto out;
	qsort(sl.v, sl.n, sizeof(*sl.v), cmp_slot);
	each_stub(elf, &sl, count_stub, &c);
	if (!c.n)
		goto out;
	c.stubs = malloc(c.n * sizeof(*c.stubs));
	c.names = malloc(c.bytes);
	if (!c.stubs || !c.names) {
		free(c.stubs);
		free(c.names);
		err = -ENOMEM;
		goto out;
	}
	c.n = c.bytes = 0;
	each_stub(elf, &sl, fill_stub, &c);
	*stubs = c.stubs;
	*nstubs = c.n;
	*names = c.names;
out:
	free(sl.v);
	return err;
}
