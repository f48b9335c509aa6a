/*
 * module.c - the map of loaded objects, so readers can turn the runtime
 * addresses of edges into (ELF file, address) pairs.
 *
 * Each object is written to the file as a MODULE block the first time an
 * edge touches an address outside every known object: at the first call,
 * and again after a dlopen.  Works in static binaries too, where
 * dl_iterate_phdr reports the executable itself.  Called only from the
 * slow path, with the runtime's lock held.
 */
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "rt.h"

#define RT __attribute__((no_instrument_function))
#define MAX_MODULES 1024

struct mod {
	uintptr_t lo, hi, bias;
	uint64_t name;        /* hash of path and build-id */
};

static struct mod mods[MAX_MODULES];
static uint32_t nmods;

/* Scratch for one MODULE block's payload: struct vgl_module + path. */
static union {
	struct vgl_module m;
	char bytes[sizeof(struct vgl_module) + RT_PATH_MAX + 8];
} scratch;

static void RT build_id(struct dl_phdr_info *info, struct vgl_module *m)
{
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			const char *name = p + sizeof(*n);
			const char *desc = name + ((n->n_namesz + 3) & ~3u);

			if (desc + n->n_descsz > end)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4)) {
				m->build_id_len = n->n_descsz < VGL_BUILD_ID_MAX
							  ? n->n_descsz
							  : VGL_BUILD_ID_MAX;
				memcpy(m->build_id, desc, m->build_id_len);
				return;
			}
			p = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
}

/* FNV-1a: tells a library loaded where a dlclosed one was from it. */
static uint64_t RT name_hash(const char *path, const struct vgl_module *m)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i;

	for (; *path; path++)
		h = (h ^ (unsigned char)*path) * 0x100000001b3ull;
	for (i = 0; i < m->build_id_len; i++)
		h = (h ^ m->build_id[i]) * 0x100000001b3ull;
	return h;
}

static int RT known(uintptr_t lo, uintptr_t bias, uint64_t name)
{
	uint32_t i;

	for (i = 0; i < nmods; i++)
		if (mods[i].lo == lo && mods[i].bias == bias &&
		    mods[i].name == name)
			return 1;
	return 0;
}

static int RT add_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct rt *rt = arg;
	struct vgl_module *m = &scratch.m;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	const char *path = info->dlpi_name;
	uint64_t name;
	size_t len;
	int i;

	(void)size;
	if ((uintptr_t)info->dlpi_addr == getauxval(AT_SYSINFO_EHDR))
		return 0; /* the vDSO: no file to read symbols from */
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (lo >= hi || nmods == MAX_MODULES)
		return 0;
	if (!path || !*path)
		path = rt->exe; /* the executable reports no name */

	memset(m, 0, sizeof(*m));
	build_id(info, m);
	name = name_hash(path, m);
	if (known(lo, info->dlpi_addr, name))
		return 0;
	m->id = nmods;
	m->bias = info->dlpi_addr;
	m->lo = lo;
	m->hi = hi;
	len = strnlen(path, RT_PATH_MAX - 1);
	m->path_len = (uint32_t)len;
	memcpy(m + 1, path, len);
	((char *)(m + 1))[len] = 0;
	if (!store_alloc_block(rt, VGL_BLOCK_MODULE, 0,
			       sizeof(struct vgl_block) + sizeof(*m) + len + 1,
			       m, sizeof(*m) + len + 1))
		return 1;
	mods[nmods++] = (struct mod){ lo, hi, info->dlpi_addr, name };
	return 0;
}

static uint32_t RT lookup(uintptr_t addr)
{
	uint32_t i;

	/* Newest first: after dlclose and a new dlopen at the same address,
	 * the object loaded now is the one that is running. */
	for (i = nmods; i-- > 0;)
		if (addr >= mods[i].lo && addr < mods[i].hi)
			return i;
	return VGL_NO_MODULE;
}

static unsigned long long seen_subs;

/* Reads the loader's unload counter from the first object. */
static int RT peek_subs(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(unsigned long long *)arg = info->dlpi_subs;
	return 1;
}

uint32_t RT module_of(struct rt *rt, uintptr_t addr)
{
	unsigned long long subs = 0;
	uint32_t id = lookup(addr);

	/* An object unloaded since the last look may have been replaced by
	 * another at the same address: look again before trusting the map. */
	dl_iterate_phdr(peek_subs, &subs);
	if (id != VGL_NO_MODULE && subs == seen_subs)
		return id;
	seen_subs = subs;
	dl_iterate_phdr(add_one, rt);
	return lookup(addr);
}
