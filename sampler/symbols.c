/*
 * symbols.c - see symbols.h.  A thin adapter over elfutils' libdwfl,
 * which reads /proc/PID/maps and each module's symbol table; answers are
 * cached per address, since a run asks about the same few hundred
 * addresses again and again.  Deliberately no more than that: the
 * profile readers' symbolizer (lib/symtab) is the one to grow.
 */
#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols.h"

#define CACHE 4096   /* entries, a power of 2 */

struct cached {
	uint64_t addr;   /* lookup address; 0 = empty */
	char *name;
};

struct sampler_symbols {
	pid_t pid;
	Dwfl *dwfl;
	int reported;    /* maps read at least once */
	struct cached cache[CACHE];
};

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

static void report(struct sampler_symbols *sy)
{
	dwfl_report_begin(sy->dwfl);
	dwfl_linux_proc_report(sy->dwfl, sy->pid);
	dwfl_report_end(sy->dwfl, NULL, NULL);
	sy->reported = 1;
}

struct sampler_symbols *sampler_symbols_open(pid_t pid)
{
	struct sampler_symbols *sy = calloc(1, sizeof(*sy));

	if (!sy)
		return NULL;
	sy->pid = pid;
	sy->dwfl = dwfl_begin(&callbacks);
	if (!sy->dwfl) {
		free(sy);
		return NULL;
	}
	return sy;
}

/* Names addr without the cache; NULL when no module maps it. */
static char *lookup(struct sampler_symbols *sy, uint64_t addr)
{
	Dwfl_Module *m = dwfl_addrmodule(sy->dwfl, addr);
	const char *name, *mod;
	Dwarf_Addr start;
	char *out = NULL;

	if (!m)
		return NULL;
	name = dwfl_module_addrname(m, addr);
	if (name) {
		out = strdup(name);
	} else {
		mod = dwfl_module_info(m, NULL, &start, NULL, NULL, NULL,
				       NULL, NULL);
		if (mod && strrchr(mod, '/'))
			mod = strrchr(mod, '/') + 1;
		if (asprintf(&out, "%s+0x%" PRIx64, mod ? mod : "?",
			     addr - start) < 0)
			out = NULL;
	}
	return out;
}

const char *sampler_symbols_name(struct sampler_symbols *sy, uint64_t addr,
				 int caller, char *buf, size_t len)
{
	uint64_t a = caller && addr ? addr - 1 : addr;
	struct cached *c = &sy->cache[(a ^ (a >> 12)) & (CACHE - 1)];
	char *name;

	if (c->addr == a && c->name) {
		snprintf(buf, len, "%s", c->name);
		return buf;
	}
	if (!sy->reported)
		report(sy);
	name = lookup(sy, a);
	if (!name) {
		/* New mappings since we read the maps (dlopen, exec). */
		report(sy);
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

void sampler_symbols_close(struct sampler_symbols *sy)
{
	size_t i;

	if (!sy)
		return;
	for (i = 0; i < CACHE; i++)
		free(sy->cache[i].name);
	dwfl_end(sy->dwfl);
	free(sy);
}
