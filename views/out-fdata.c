/*
 * out-fdata.c - llvm-bolt's profile text (-data=FILE), call edges only:
 *
 *   1 CALLER OFFSET 1 CALLEE 0 0 COUNT
 *
 * OFFSET is hexadecimal, the offset in CALLER of the call instruction
 * itself, which capstone finds before the return address the runtime
 * recorded (lib/callsite.h): llvm-bolt reports a wrong one as an invalid
 * (possibly stale) profile.  Names are ELF symbol names (mangled, as BOLT
 * knows them); a local symbol is spelled as BOLT names it,
 * NAME/FILE/N, FILE the STT_FILE symbol before it in the symbol table and
 * N its rank among the local functions of that name and file, by address
 * (BOLT's RewriteInstance::discoverFileObjects).
 *
 * A sampled profile is written as BOLT's no_lbr profile (see
 * out_fdata_sampled).
 *
 * BOLT rewrites one binary: only edges whose caller and callee are both
 * in the chosen module are written, and only real calls: a call counted
 * in an inlined copy ran no call instruction of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "message.h"
#include "callsite.h"
#include "out.h"

struct bolt_sym {
	uint64_t addr;
	uint64_t size;
	const char *name;       /* in the ELF string table */
	const char *file;       /* the STT_FILE before it, or NULL */
	int bind;
	unsigned rank;          /* N of NAME/FILE/N, for locals */
};

struct bolt_names {
	int fd;
	Elf *elf;
	struct bolt_sym *syms;  /* functions, by address then binding */
	size_t n;
};

static int cmp_addr(const void *a, const void *b)
{
	const struct bolt_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* At one address, a global name first: BOLT knows it as is. */
	return (x->bind == STB_LOCAL) - (y->bind == STB_LOCAL);
}

static int same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Reads the function symbols of the ELF file at path. */
static int names_load(struct bolt_names *bn, const char *path)
{
	Elf_Scn *scn = NULL;
	size_t i, j;

	memset(bn, 0, sizeof(*bn));
	bn->fd = -1;
	elf_version(EV_CURRENT);
	bn->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (bn->fd < 0)
		return -errno;
	bn->elf = elf_begin(bn->fd, ELF_C_READ_MMAP, NULL);
	if (!bn->elf)
		return -EINVAL;
	while ((scn = elf_nextscn(bn->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *file = NULL;
		size_t count;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			return -EINVAL;
		count = sh.sh_size / sh.sh_entsize;
		bn->syms = calloc(count + 1, sizeof(*bn->syms));
		if (!bn->syms)
			return -ENOMEM;
		for (i = 0; i < count; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, (int)i, &s))
				continue;
			name = elf_strptr(bn->elf, sh.sh_link, s.st_name);
			if (GELF_ST_TYPE(s.st_info) == STT_FILE) {
				file = name && *name ? name : NULL;
				continue;
			}
			if (GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    s.st_shndx == SHN_UNDEF || !name || !*name)
				continue;
			bn->syms[bn->n].addr = s.st_value;
			bn->syms[bn->n].size = s.st_size;
			bn->syms[bn->n].name = name;
			bn->syms[bn->n].file = file;
			bn->syms[bn->n].bind = GELF_ST_BIND(s.st_info);
			bn->n++;
		}
		break;
	}
	qsort(bn->syms, bn->n, sizeof(*bn->syms), cmp_addr);
	/* Ranks, as BOLT's NameResolver counts them in address order.
	 * Quadratic only among locals of one name, which are few. */
	for (i = 0; i < bn->n; i++) {
		struct bolt_sym *s = &bn->syms[i];

		if (s->bind != STB_LOCAL || !s->file)
			continue;
		s->rank = 1;
		for (j = 0; j < i; j++)
			if (bn->syms[j].bind == STB_LOCAL &&
			    same(bn->syms[j].file, s->file) &&
			    !strcmp(bn->syms[j].name, s->name))
				s->rank++;
	}
	return 0;
}

static void names_free(struct bolt_names *bn)
{
	free(bn->syms);
	if (bn->elf)
		elf_end(bn->elf);
	if (bn->fd >= 0)
		close(bn->fd);
}

/* How BOLT spells s's name; the result may be buf (len bytes). */
static const char *spell(const struct bolt_sym *s, char *buf, size_t len)
{
	if (s->bind != STB_LOCAL)
		return s->name;
	if (s->file)
		snprintf(buf, len, "%s/%s/%u", s->name, s->file, s->rank);
	else
		snprintf(buf, len, "%s/1", s->name);
	return buf;
}

/* The first symbol at ELF address addr or after it (n when none). */
static size_t lower_bound(const struct bolt_names *bn, uint64_t addr)
{
	size_t lo = 0, hi = bn->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (bn->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* BOLT's name for the function at ELF address addr, or NULL.  The result
 * may be buf (len bytes). */
static const char *bolt_name(struct bolt_names *bn, uint64_t addr, char *buf,
			     size_t len)
{
	size_t lo = lower_bound(bn, addr);

	if (lo == bn->n || bn->syms[lo].addr != addr)
		return NULL;
	return spell(&bn->syms[lo], buf, len);
}

/* The function whose bytes hold ELF address addr (a sized symbol that
 * covers it; at one address, the name BOLT prefers), or NULL. */
static const struct bolt_sym *holder(const struct bolt_names *bn,
				     uint64_t addr)
{
	size_t i = lower_bound(bn, addr + 1);
	uint64_t start;

	if (!i)
		return NULL;
	start = bn->syms[i - 1].addr;
	i = lower_bound(bn, start);
	for (; i < bn->n && bn->syms[i].addr == start; i++)
		if (addr - start < bn->syms[i].size)
			return &bn->syms[i];
	return NULL;
}

/* The module fdata describes: the one named module (base name or path),
 * else the executable, else the first. */
static int pick_module(const struct vgl_reader *r,
		       const struct vgl_symbolizer *sym, const char *module,
		       size_t *out)
{
	size_t i, n = vgl_symbolizer_count(sym);
	const char *want = module ? module : r->exe;

	for (i = 0; want && i < n; i++) {
		const char *path = vgl_symbolizer_module_path(sym, i);

		if (!strcmp(path, want) ||
		    !strcmp(vgl_symbolizer_module_name(sym, i), want)) {
			*out = i;
			return 0;
		}
	}
	if (module || !n)
		return -ENOENT;
	*out = 0;
	return 0;
}

/* names_load for module mod, saying what failed. */
static int names_open(struct bolt_names *bn, const struct vgl_symbolizer *sym,
		      size_t mod)
{
	int err = names_load(bn, vgl_symbolizer_module_path(sym, mod));

	if (err && err != -ENOMEM) {
		/* The one place a writer speaks: only it knows which file
		 * failed.  -ECANCELED tells the command it has been said. */
		vgl_error("%s: cannot read its symbols: %s",
			vgl_symbolizer_module_path(sym, mod), strerror(-err));
		err = -ECANCELED;
	}
	if (err)
		names_free(bn);
	return err;
}

int out_fdata(const struct vgl_profile *p, const char *module, FILE *f)
{
	struct vgl_callsite *cs = NULL;
	struct bolt_names bn;
	size_t mod, i, *order = NULL;
	int err;

	err = pick_module(p->r, p->sym, module, &mod);
	if (err)
		return err;
	err = names_open(&bn, p->sym, mod);
	if (err)
		return err;
	if (!err)
		err = vgl_callsite_new(&cs, p->sym);
	/* In call-site order, so each caller is decoded once. */
	if (!err && !(order = vgl_profile_site_order(p)))
		err = -ENOMEM;
	for (i = 0; !err && i < p->nedges; i++) {
		const struct vgl_pedge *e = &p->edges[order[i]];
		const struct vgl_pfunc *caller = &p->funcs[e->caller];
		const struct vgl_pfunc *callee = &p->funcs[e->callee];
		uint64_t bias = vgl_symbolizer_module_bias(p->sym, mod);
		struct vgl_call_insn insn;
		char b1[1024], b2[1024];
		const char *n1, *n2;

		if (e->inlined_in != VGL_PROFILE_NONE || !e->calls ||
		    e->site_mod != mod || caller->module != mod ||
		    callee->module != mod || !caller->known || !callee->known)
			continue;
		int found = vgl_callsite_find(cs, mod, e->site + bias, &insn);

		/* Without a decoder no edge can be written: an empty file
		 * would pass for a program that made no calls. */
		if (found == -ELIBACC || found == -ENOTSUP || found == -ENOMEM) {
			err = found;
			break;
		}
		if (found < 0 || insn.addr < caller->addr)
			continue;
		n1 = bolt_name(&bn, caller->addr, b1, sizeof(b1));
		n2 = bolt_name(&bn, callee->addr, b2, sizeof(b2));
		if (!n1 || !n2)
			continue;
		fprintf(f, "1 %s %llx 1 %s 0 0 %llu\n", n1,
			(unsigned long long)(insn.addr - caller->addr), n2,
			(unsigned long long)e->calls);
	}
	if (!err && ferror(f))
		err = -EIO;
	free(order);
	vgl_callsite_free(cs);
	names_free(&bn);
	return err;
}

/* One sampled address: a function and an offset in it. */
struct hit {
	const struct bolt_sym *fn;
	uint64_t off;
	uint64_t count;
};

static int cmp_hit(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	return (x->off > y->off) - (x->off < y->off);
}

/*
 * A sampled profile as BOLT's no_lbr profile (perf2bolt -nl writes the
 * same): the line "no_lbr", then one line per sampled instruction,
 *
 *   1 FUNCTION OFFSET COUNT
 *
 * OFFSET hexadecimal in FUNCTION, COUNT the samples that found the
 * thread there (frame 0 of each stack: the other frames are return
 * addresses, where no instruction was sampled).  Only the addresses of
 * the chosen module, in a function of its symbol table.
 */
int out_fdata_sampled(const struct vgl_sprofile *sp, const char *module,
		      FILE *f)
{
	const struct vgl_reader *r = sp->r;
	struct bolt_names bn;
	struct hit *hits = NULL;
	size_t mod, i, n = 0;
	uint64_t bias;
	int err;

	err = pick_module(r, sp->sym, module, &mod);
	if (err)
		return err;
	err = names_open(&bn, sp->sym, mod);
	if (err)
		return err;
	bias = vgl_symbolizer_module_bias(sp->sym, mod);
	hits = malloc((r->nstacks + 1) * sizeof(*hits));
	if (!hits) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < r->nstacks; i++) {
		const struct vgl_frame *fr = &r->frames[r->stacks[i].first_frame];
		const struct bolt_sym *fn;

		if (vgl_profile_module_index(r, fr->module) != mod)
			continue;
		fn = holder(&bn, fr->addr - bias);
		if (!fn)
			continue;
		hits[n].fn = fn;
		hits[n].off = fr->addr - bias - fn->addr;
		hits[n].count = r->stacks[i].count;
		n++;
	}
	qsort(hits, n, sizeof(*hits), cmp_hit);
	fputs("no_lbr\n", f);
	for (i = 0; i < n; i++) {
		uint64_t count = hits[i].count;
		char buf[1024];

		while (i + 1 < n && !cmp_hit(&hits[i], &hits[i + 1]))
			count += hits[++i].count;
		fprintf(f, "1 %s %llx %llu\n", spell(hits[i].fn, buf, sizeof(buf)),
			(unsigned long long)hits[i].off, (unsigned long long)count);
	}
	if (ferror(f))
		err = -EIO;
out:
	free(hits);
	names_free(&bn);
	return err;
}
