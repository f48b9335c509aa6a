/*
 * symtab.c - see symtab.h.
 *
 * Function names come from the ELF symbol table (.symtab, or .dynsym when
 * the file is stripped), file:line from DWARF, found in the file itself or
 * through .gnu_debuglink / build-id in the usual debug directories.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "message.h"
#include "symtab.h"

/* From the C++ runtime (libstdc++), which the tools link. */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len,
			    int *status);

struct symtab_module {
	const struct vgl_module_info *info;
	const char *name;       /* base name of info->path */
	Dwfl *dwfl;
	Dwfl_Module *mod;       /* NULL when the file could not be used */
	int opened;
};

struct symtab_entry {
	int used;
	uint32_t mod;
	uint64_t addr;
	struct vgl_sym sym;
};

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Takes ownership of s (which may be NULL: then reports -ENOMEM). */
static const char *keep(struct vgl_symtab *st, char *s)
{
	char **grown;

	if (!s)
		return NULL;
	if (st->nstrs == st->cap_strs) {
		size_t cap = st->cap_strs ? st->cap_strs * 2 : 64;

		grown = realloc(st->strs, cap * sizeof(*grown));
		if (!grown) {
			free(s);
			return NULL;
		}
		st->strs = grown;
		st->cap_strs = cap;
	}
	st->strs[st->nstrs++] = s;
	return s;
}

static const char *keepf(struct vgl_symtab *st, const char *fmt,
			 unsigned long long v, const char *prefix)
{
	char *s = NULL;

	if (asprintf(&s, fmt, prefix, v) < 0)
		return NULL;
	return keep(st, s);
}

int vgl_symtab_init(struct vgl_symtab *st, const struct vgl_reader *r)
{
	size_t i;

	memset(st, 0, sizeof(*st));
	st->r = r;
	st->mods = calloc(r->nmodules ? r->nmodules : 1, sizeof(*st->mods));
	if (!st->mods)
		return -ENOMEM;
	for (i = 0; i < r->nmodules; i++) {
		st->mods[i].info = &r->modules[i];
		st->mods[i].name = base_name(r->modules[i].path);
	}
	return 0;
}

void vgl_symtab_release(struct vgl_symtab *st)
{
	size_t i;

	if (st->mods)
		for (i = 0; i < st->r->nmodules; i++)
			if (st->mods[i].dwfl)
				dwfl_end(st->mods[i].dwfl);
	for (i = 0; i < st->nstrs; i++)
		free(st->strs[i]);
	free(st->strs);
	free(st->cache);
	free(st->mods);
	memset(st, 0, sizeof(*st));
}

static void open_module(struct symtab_module *m)
{
	const struct vgl_module_info *info = m->info;
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len;

	m->opened = 1;
	if (access(info->path, R_OK) < 0) {
		vgl_warning("%s: %s; its addresses are shown as offsets",
			    info->path, strerror(errno));
		return;
	}
	m->dwfl = dwfl_begin(&offline_callbacks);
	if (!m->dwfl)
		return;
	dwfl_report_begin(m->dwfl);
	/* Bias 0: we ask with ELF addresses, having taken off the profile's. */
	m->mod = dwfl_report_elf(m->dwfl, m->name, info->path, -1, 0, false);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (!m->mod) {
		vgl_warning("%s: %s; its addresses are shown as offsets",
			    info->path, dwfl_errmsg(-1));
		return;
	}
	if (!info->build_id_len)
		return;
	len = dwfl_module_build_id(m->mod, &bits, &vaddr);
	if (len != (int)info->build_id_len ||
	    memcmp(bits, info->build_id, info->build_id_len) != 0)
		vgl_warning("%s: build-id differs from the profiled binary's; names and lines may be wrong",
			    info->path);
}

static struct symtab_module *find_module(struct vgl_symtab *st, uint32_t id)
{
	const struct vgl_module_info *info = vgl_reader_module(st->r, id);

	if (!info)
		return NULL;
	return &st->mods[info - st->r->modules];
}

/*
 * The line of addr by walking every compile unit.  libdw answers
 * dwfl_module_getsrc from .debug_aranges when the file has one, and trusts
 * it to be complete; a Clang CU emits no aranges, so in a program that also
 * links GCC-built objects (crt1.o, libvigil.a) Clang's lines are missed.
 */
static const char *line_by_cu(Dwfl_Module *mod, uint64_t addr, int *lineno)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;

	while ((cu = dwfl_module_nextcu(mod, cu, &bias))) {
		Dwarf_Line *l;

		if (dwarf_haspc(cu, addr - bias) != 1)
			continue;
		l = dwarf_getsrc_die(cu, addr - bias);
		if (!l || dwarf_lineno(l, lineno) != 0)
			return NULL;
		return dwarf_linesrc(l, NULL, NULL);
	}
	return NULL;
}

static int resolve(struct vgl_symtab *st, uint32_t mod, uint64_t addr,
		   struct vgl_sym *out)
{
	struct symtab_module *m = find_module(st, mod);
	const char *name = NULL, *src;
	GElf_Off off;
	GElf_Sym sym;
	Dwfl_Line *line;
	uint64_t elf_addr;
	int lineno = 0;

	memset(out, 0, sizeof(*out));
	if (!m) {
		out->func = keepf(st, "%s0x%llx", addr, "");
		return out->func ? 0 : -ENOMEM;
	}
	out->module = m->name;
	if (!m->opened)
		open_module(m);
	/* The writer's bias is the runtime address minus the ELF address. */
	elf_addr = addr - m->info->bias;
	if (m->mod)
		name = dwfl_module_addrinfo(m->mod, elf_addr, &off, &sym, NULL,
					    NULL, NULL);
	if (name) {
		char *dem = NULL;
		int status = -1;

		if (name[0] == '_' && name[1] == 'Z')
			dem = __cxa_demangle(name, NULL, NULL, &status);
		out->func = keep(st, status == 0 && dem ? dem : strdup(name));
		if (status != 0)
			free(dem);
	} else {
		char prefix[256];

		snprintf(prefix, sizeof(prefix), "%s+", m->name);
		out->func = keepf(st, "%s0x%llx", elf_addr, prefix);
	}
	if (!out->func)
		return -ENOMEM;
	if (!m->mod)
		return 0;
	line = dwfl_module_getsrc(m->mod, elf_addr);
	src = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
	if (!src || lineno <= 0)
		src = line_by_cu(m->mod, elf_addr, &lineno);
	if (src && lineno > 0) {
		out->file = keep(st, strdup(base_name(src)));
		if (!out->file)
			return -ENOMEM;
		out->line = lineno;
	}
	return 0;
}

static size_t hash(uint32_t mod, uint64_t addr)
{
	uint64_t h = (addr ^ ((uint64_t)mod << 48)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17);
}

static int grow_cache(struct vgl_symtab *st)
{
	size_t cap = st->cache_cap ? st->cache_cap * 2 : 1024, i, j;
	struct symtab_entry *n = calloc(cap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (i = 0; i < st->cache_cap; i++) {
		if (!st->cache[i].used)
			continue;
		j = hash(st->cache[i].mod, st->cache[i].addr) & (cap - 1);
		while (n[j].used)
			j = (j + 1) & (cap - 1);
		n[j] = st->cache[i];
	}
	free(st->cache);
	st->cache = n;
	st->cache_cap = cap;
	return 0;
}

int vgl_symtab_lookup(struct vgl_symtab *st, uint32_t mod, uint64_t addr,
		      struct vgl_sym *out)
{
	struct symtab_entry *e;
	size_t j;
	int err;

	if (st->cache_len * 2 >= st->cache_cap) {
		err = grow_cache(st);
		if (err)
			return err;
	}
	j = hash(mod, addr) & (st->cache_cap - 1);
	for (;;) {
		e = &st->cache[j];
		if (!e->used)
			break;
		if (e->mod == mod && e->addr == addr) {
			*out = e->sym;
			return 0;
		}
		j = (j + 1) & (st->cache_cap - 1);
	}
	err = resolve(st, mod, addr, out);
	if (err)
		return err;
	e->used = 1;
	e->mod = mod;
	e->addr = addr;
	e->sym = *out;
	st->cache_len++;
	return 0;
}
