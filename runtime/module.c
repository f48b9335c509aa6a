/*
 * module.c - the map of loaded objects, so readers can turn the runtime
 * addresses of edges into (ELF file, address) pairs.
 *
 * The map is an append-only table filled from dl_iterate_phdr callbacks,
 * which the loader runs under its own lock, one thread at a time: so the
 * table needs no lock of ours, and it is brought up to date before the
 * slow path takes the runtime's lock (unless the new edge is all in the
 * executable, whose entry no load or unload changes: module_prepare).
 * Never the other way round: a
 * thread inside the loader's lock (an instrumented dl_iterate_phdr
 * callback, as crash reporters and unwinders have) may be waiting for the
 * runtime's lock, so the runtime never asks the loader while holding it.
 * Lookups read the published entries without a lock.  Under the runtime's
 * lock, each entry is then written to the file as a MODULE block.  Works in
 * static binaries too, where dl_iterate_phdr reports the executable itself.
 *
 * An object that is unloaded stays in the table, marked dead: edges made
 * while it was loaded keep its id.  An object loaded later gets an entry of
 * its own, also where a dead one was, and edges of its addresses must not
 * be found under the dead one's id: the hooks drop those from every index
 * (thread_purge_dead) before the new object's code can count a call.
 *
 * The table has MAX_MODULES entries; a host that loads and unloads more
 * plugins than that over its life reuses the entries of unloaded objects
 * once their MODULE blocks are in the file.  The file keeps those blocks:
 * an id is never given twice.  An entry's id is its place in the table
 * plus MAX_MODULES times the number of objects it held before, so the
 * entry of an id is found without a search, and an id whose entry now
 * holds another object is dead.  A lookup that runs while an entry is
 * reused reads its id before and after its range, and trusts the range
 * only when the two agree.
 */
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "modfile.h"
#include "module.h"
#include "state.h"
#include "store.h"
#include "text.h"

#define MAX_MODULES 1024

/* Ids of one entry: place + MAX_MODULES * n, below VGL_NO_MODULE. */
#define MAX_GENERATION ((VGL_NO_MODULE - MAX_MODULES) / MAX_MODULES)

struct mod {
	uintptr_t lo, hi, bias;
	uint64_t name;        /* hash of path and build-id */
	uint64_t age;         /* order of the loads the table saw */
	uint32_t id;          /* in the file, of the object the entry holds */
	uint32_t live;        /* id while loaded; VGL_NO_MODULE once unloaded
	                       * (its edges are then out of every index) */
	uint32_t generation;  /* objects the entry held before this one */
	uint32_t path_off;    /* in paths[] */
	uint32_t path_len;
	uint32_t path_room;   /* bytes of paths[] the entry owns */
	uint32_t build_id_len;
	uint32_t seen;        /* the last scan that found it loaded */
	int written;          /* its MODULE block is in the file: an entry is
	                       * reused only then */
	uint8_t build_id[VGL_BUILD_ID_MAX];
	struct vgl_module_file file;  /* with no build-id (modfile.c) */
};

static struct mod mods[MAX_MODULES];
static uint32_t nmods;         /* entries ever used, release/acquire */
static uint64_t adds;          /* objects added, release/acquire */
static uint64_t flushed;       /* adds whose blocks are all in the file */
static uint32_t scans;         /* the number of the latest scan */
static uint64_t deaths;        /* entries marked dead, ever */
static int warned_full;        /* the table was full once: said so */
#define PATHS_SIZE (1u << 20)
static char paths[PATHS_SIZE]; /* zero pages cost nothing until used */
/* The executable's range and id, once add_one has seen it.  It is never
 * unloaded, so no other object is ever loaded into its range: an address
 * there is the executable's whatever the loader did since. */
static struct {
	uintptr_t lo, hi;
	uint32_t id;
	int known;            /* release/acquire: the rest is written */
} exe;
static uint32_t paths_used;

/* Scratch for one MODULE block's payload: struct vgl_module + path. */
static union {
	struct vgl_module m;
	char bytes[sizeof(struct vgl_module) + RT_PATH_MAX + 8 +
		   sizeof(struct vgl_module_file)];
} scratch;

static void RT build_id(struct dl_phdr_info *info, struct mod *m)
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
static uint64_t RT name_hash(const char *path, const struct mod *m)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i;

	for (; *path; path++)
		h = (h ^ (unsigned char)*path) * 0x100000001b3ull;
	for (i = 0; i < m->build_id_len; i++)
		h = (h ^ m->build_id[i]) * 0x100000001b3ull;
	return h;
}

/* The live entry of an object, or NULL.  A dead object is never found:
 * the same file loaded again is a new load, with a new id.  Only add_one
 * changes entries, under the loader's lock, which its caller holds. */
static struct mod *RT known(uintptr_t lo, uintptr_t bias, uint64_t name)
{
	uint32_t i;

	for (i = 0; i < __atomic_load_n(&nmods, __ATOMIC_ACQUIRE); i++)
		if (mods[i].lo == lo && mods[i].bias == bias &&
		    mods[i].name == name &&
		    __atomic_load_n(&mods[i].live, __ATOMIC_ACQUIRE) !=
			    VGL_NO_MODULE)
			return &mods[i];
	return NULL;
}

/* The executable's path, looked up once (prepare_ask may ask before the
 * runtime is set up: the first call asks the loader before the lock). */
void RT module_find_exe(void)
{
	static int found;
	struct rt *rt = &vgl_rt;
	char buf[RT_PATH_MAX];
	ssize_t n;
	const char *fn;
	size_t len;

	if (__atomic_load_n(&found, __ATOMIC_ACQUIRE))
		return;
	n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = 0;
	} else {
		/* No /proc: the name exec was given is the best there is. */
		fn = (const char *)getauxval(AT_EXECFN);
		if (!fn)
			fn = "unknown";
		len = strnlen(fn, sizeof(buf) - 1);
		memcpy(buf, fn, len);
		buf[len] = 0;
	}
	/* Two first calls may race here; both write the same bytes. */
	memcpy(rt->exe, buf, strlen(buf) + 1);
	__atomic_store_n(&found, 1, __ATOMIC_RELEASE);
}

/* Says once that an object could not be given an entry. */
static void RT warn_full(const char *what)
{
	if (!__atomic_exchange_n(&warned_full, 1, __ATOMIC_RELAXED))
		rt_warn_once(NULL, what, vgl_rt.exe, 0,
			     "calls into the others are counted under raw "
			     "addresses");
}

/*
 * An entry for a new object, with room for a path of len bytes: a new one
 * while the table has some, else the entry of an unloaded object whose
 * block is in the file (its path's room too, when the new path fits).
 * Returns NULL (and says so, once) when there is none.
 */
static struct mod *RT entry_for(size_t len)
{
	uint32_t n = __atomic_load_n(&nmods, __ATOMIC_RELAXED), i;
	int any_dead = 0;

	if (n < MAX_MODULES) {
		if (paths_used + len + 1 > PATHS_SIZE) {
			warn_full("no room left for the paths of loaded "
				  "objects in");
			return NULL;
		}
		mods[n].id = n;
		mods[n].generation = 0;
		mods[n].path_off = paths_used;
		mods[n].path_room = (uint32_t)len + 1;
		paths_used += (uint32_t)len + 1;
		return &mods[n];
	}
	for (i = 0; i < n; i++) {
		struct mod *m = &mods[i];

		if (__atomic_load_n(&m->live, __ATOMIC_ACQUIRE) !=
			    VGL_NO_MODULE ||
		    !__atomic_load_n(&m->written, __ATOMIC_ACQUIRE) ||
		    m->generation + 1 > MAX_GENERATION)
			continue;
		any_dead = 1;
		if (len + 1 > m->path_room) {
			if (paths_used + len + 1 > PATHS_SIZE)
				continue;
			m->path_off = paths_used;
			m->path_room = (uint32_t)len + 1;
			paths_used += (uint32_t)len + 1;
		}
		m->generation++;
		m->id = i + MAX_MODULES * m->generation;
		return m;
	}
	warn_full(any_dead ? "no room left for the paths of loaded objects in"
			   : "more than 1024 objects loaded at once in");
	return NULL;
}

/* Records that scan `scan` found m loaded: never an older scan's number
 * over a newer one's, which would let the newer scan's end mark m dead. */
static void RT mark_seen(struct mod *m, uint32_t scan)
{
	uint32_t cur = __atomic_load_n(&m->seen, __ATOMIC_RELAXED);

	while ((int32_t)(scan - cur) > 0 &&
	       !__atomic_compare_exchange_n(&m->seen, &cur, scan, 1,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* A dl_iterate_phdr callback: marks each object seen by scan *arg and
 * appends those not known yet.  The loader holds its lock around the
 * callbacks, so appends never race. */
static int RT add_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct mod c, *m, *k;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	const char *path = info->dlpi_name;
	uint32_t n = __atomic_load_n(&nmods, __ATOMIC_RELAXED);
	uint32_t scan = *(uint32_t *)arg;
	static uint64_t ages;
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
	if (lo >= hi)
		return 0;
	if (!path || !*path)
		path = vgl_rt.exe; /* the executable reports no name */
	memset(&c, 0, sizeof(c));
	build_id(info, &c);
	c.name = name_hash(path, &c);
	if ((k = known(lo, info->dlpi_addr, c.name))) {
		mark_seen(k, scan);
		return 0;
	}
	len = strnlen(path, RT_PATH_MAX - 1);
	if (!(m = entry_for(len)))
		return 0;
	if (!c.build_id_len)
		module_file_id(info, path, &c.file);
	/* A reused entry is dead (lookups skip it) and its block is in the
	 * file (flush skips it) until it is published below. */
	__atomic_store_n(&m->seen, scan, __ATOMIC_RELAXED);
	__atomic_store_n(&m->lo, lo, __ATOMIC_RELAXED);
	__atomic_store_n(&m->hi, hi, __ATOMIC_RELAXED);
	m->bias = info->dlpi_addr;
	m->name = c.name;
	m->age = ++ages;
	m->path_len = (uint32_t)len;
	m->build_id_len = c.build_id_len;
	memcpy(m->build_id, c.build_id, sizeof(c.build_id));
	m->file = c.file;
	memcpy(paths + m->path_off, path, len);
	paths[m->path_off + len] = 0;
	__atomic_store_n(&m->written, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&m->live, m->id, __ATOMIC_RELEASE);
	if (m == &mods[n])
		__atomic_store_n(&nmods, n + 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&adds, 1, __ATOMIC_RELEASE);
	if (!info->dlpi_name || !*info->dlpi_name) {
		exe.lo = lo;
		exe.hi = hi;
		exe.id = m->id;
		__atomic_store_n(&exe.known, 1, __ATOMIC_RELEASE);
	}
	return 0;
}

/* What the table's changes have been counted to: any add or death
 * changes it. */
static uint64_t RT table_stamp(void)
{
	return __atomic_load_n(&adds, __ATOMIC_ACQUIRE) +
	       __atomic_load_n(&deaths, __ATOMIC_ACQUIRE);
}

/*
 * The entry the last full lookup found, as its place + 1 (0: none) in the
 * low HINT_BITS and table_stamp() above them, kept only when no younger
 * loaded object overlaps it: while the stamp is the same, every address in
 * its range is then its own, and a lookup is one check instead of a walk
 * of the whole table (each new edge asks four times; with the five objects
 * of a small dynamic program the walk cost 111 instructions).  A hint read
 * while an object is being added, before the stamp moves, answers as a
 * lookup just before the add would have; one whose object was unloaded or
 * replaced fails the check of its id.
 */
#define HINT_BITS 11 /* MAX_MODULES + 1 values */
static uint64_t hint;

/* lookup() without the hint: a walk of the whole table. */
static __attribute__((noinline)) uint32_t RT lookup_walk(uintptr_t addr,
							 uint64_t stamp)
{
	uint32_t i, n = __atomic_load_n(&nmods, __ATOMIC_ACQUIRE);
	uint32_t best = VGL_NO_MODULE, best_i = 0;
	uint64_t best_age = 0;

	for (i = 0; i < n; i++) {
		struct mod *m = &mods[i];
		uint32_t id = __atomic_load_n(&m->live, __ATOMIC_ACQUIRE);
		uintptr_t lo, hi;
		uint64_t age;

		if (id == VGL_NO_MODULE)
			continue;
		lo = __atomic_load_n(&m->lo, __ATOMIC_RELAXED);
		hi = __atomic_load_n(&m->hi, __ATOMIC_RELAXED);
		age = m->age;
		/* The range read is this object's only if the entry was not
		 * reused meanwhile. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&m->live, __ATOMIC_RELAXED) != id)
			continue;
		/* Newest first: after dlclose and a new dlopen at the same
		 * address, before the scan that marks the old one dead, the
		 * object loaded now is the one that is running. */
		if (addr >= lo && addr < hi && age >= best_age) {
			best = id;
			best_age = age;
			best_i = i;
		}
	}
	if (best != VGL_NO_MODULE) {
		struct mod *b = &mods[best_i];

		for (i = 0; i < n; i++)
			if (i != best_i &&
			    __atomic_load_n(&mods[i].live, __ATOMIC_ACQUIRE) !=
				    VGL_NO_MODULE &&
			    mods[i].age >= best_age && mods[i].lo < b->hi &&
			    mods[i].hi > b->lo)
				return best;
		__atomic_store_n(&hint, stamp << HINT_BITS | (best_i + 1),
				 __ATOMIC_RELEASE);
	}
	return best;
}

/* The id of the loaded object that holds addr, or VGL_NO_MODULE. */
static uint32_t RT lookup(uintptr_t addr)
{
	uint64_t stamp = table_stamp();
	uint64_t h = __atomic_load_n(&hint, __ATOMIC_ACQUIRE);
	uint32_t i = (uint32_t)(h & ((1u << HINT_BITS) - 1));

	if (i && h >> HINT_BITS == (stamp << HINT_BITS) >> HINT_BITS) {
		struct mod *m = &mods[i - 1];
		uint32_t id = __atomic_load_n(&m->live, __ATOMIC_ACQUIRE);
		uintptr_t lo = __atomic_load_n(&m->lo, __ATOMIC_RELAXED);
		uintptr_t hi = __atomic_load_n(&m->hi, __ATOMIC_RELAXED);

		/* The range is the object's only if the entry was not
		 * reused meanwhile. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (id != VGL_NO_MODULE && addr >= lo && addr < hi &&
		    __atomic_load_n(&m->live, __ATOMIC_RELAXED) == id)
			return id;
	}
	return lookup_walk(addr, stamp);
}

/* An object unloaded: its entry says so, or holds another object now. */
int RT module_dead(uint32_t id)
{
	if (id == VGL_NO_MODULE || id % MAX_MODULES >=
					   __atomic_load_n(&nmods, __ATOMIC_ACQUIRE))
		return 0;
	return __atomic_load_n(&mods[id % MAX_MODULES].live,
			       __ATOMIC_ACQUIRE) != id;
}

uint64_t RT module_deaths(void)
{
	return __atomic_load_n(&deaths, __ATOMIC_ACQUIRE);
}

static unsigned long long seen_subs;

/* Reads the loader's unload counter from the first object. */
static int RT peek_subs(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(unsigned long long *)arg = info->dlpi_subs;
	return 1;
}

/*
 * Asks the loader for every object: appends the new ones, and marks dead
 * the entries of objects no longer loaded.  Runs without any lock of ours,
 * so two threads may scan at once: each marks dead only what was loaded
 * before its scan and found by no scan since (seen below its number); an
 * entry a later scan found is left to that one.
 */
static void RT rescan(unsigned long long subs)
{
	uint32_t scan = __atomic_add_fetch(&scans, 1, __ATOMIC_RELAXED);
	uint32_t i, n;

	dl_iterate_phdr(add_one, &scan);
	n = __atomic_load_n(&nmods, __ATOMIC_ACQUIRE);
	for (i = 0; i < n; i++) {
		struct mod *m = &mods[i];
		uint32_t id = __atomic_load_n(&m->live, __ATOMIC_ACQUIRE);

		/* Marks dead the object whose id was read, never another
		 * that took the entry meanwhile (ids are never reused). */
		if (id != VGL_NO_MODULE &&
		    (int32_t)(__atomic_load_n(&m->seen, __ATOMIC_RELAXED) -
			      scan) < 0 &&
		    __atomic_compare_exchange_n(&m->live, &id, VGL_NO_MODULE, 0,
						__ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			__atomic_add_fetch(&deaths, 1, __ATOMIC_RELEASE);
	}
	/* Last: whoever reads subs here finds every object unloaded
	 * before it marked dead (module_seen_subs). */
	__atomic_store_n(&seen_subs, subs, __ATOMIC_RELEASE);
}

/* Stamps that no table_stamp() is: the ids are the executable's, right
 * whatever the table does; or the table was rescanned, so module_ids()
 * looks them up again. */
#define EXE_STAMP (~0ull - 1)
#define NO_STAMP (~0ull)

/* module_prepare() past the executable: asks the loader. */
static __attribute__((noinline)) void RT prepare_ask(uintptr_t fn,
						    uintptr_t site,
						    struct module_ids *ids)
{
	unsigned long long subs;

	module_find_exe();
	if (ids) {
		ids->stamp = table_stamp();
		ids->fn = lookup(fn);
		ids->site = lookup(site);
	}
	subs = module_subs();
	if (subs == __atomic_load_n(&seen_subs, __ATOMIC_RELAXED) &&
	    (!ids || (ids->fn != VGL_NO_MODULE && ids->site != VGL_NO_MODULE)))
		return;
	rescan(subs);
	if (ids)
		ids->stamp = NO_STAMP;
}

/*
 * Makes sure the objects of a new edge's callee and call site are in the
 * table, asking the loader when one is not, or when an object was unloaded
 * since the last look (another may now be loaded at the same address).
 * One look at the loader's unload counter for both, and none when both
 * are in the executable: it is never unloaded, so no other object can
 * have been loaded into its range, and the ids found are right whatever
 * the loader did meanwhile (Lua's bench.lua: 1,057 new edges, all in the
 * executable; the look cost 173 instructions each).  With fn and site 0,
 * only that look: what a new object's binding of the hooks asks for.
 * The ids found are left in *ids for module_ids().  Called without the
 * runtime's lock.
 */
void RT module_prepare(uintptr_t fn, uintptr_t site, struct module_ids *ids)
{
	if (ids && __atomic_load_n(&exe.known, __ATOMIC_ACQUIRE) &&
	    fn - exe.lo < exe.hi - exe.lo && site - exe.lo < exe.hi - exe.lo) {
		ids->stamp = EXE_STAMP;
		ids->fn = ids->site = exe.id;
		return;
	}
	prepare_ask(fn, site, ids);
}

/* The loader's unload counter now: one dl_iterate_phdr callback, no
 * system call. */
unsigned long long RT module_subs(void)
{
	unsigned long long subs = 0;

	dl_iterate_phdr(peek_subs, &subs);
	return subs;
}

/* The unload counter of the last scan: the entries of every object
 * unloaded before it are marked dead. */
unsigned long long RT module_seen_subs(void)
{
	return __atomic_load_n(&seen_subs, __ATOMIC_ACQUIRE);
}

/*
 * Writes the MODULE blocks of entries not in the file yet, also of objects
 * unloaded since (an edge may have their id).  An entry being reused is
 * still marked written, and is skipped until it is published.
 */
static __attribute__((noinline)) void RT flush(struct rt *rt)
{
	uint64_t a = __atomic_load_n(&adds, __ATOMIC_ACQUIRE);
	uint32_t n = __atomic_load_n(&nmods, __ATOMIC_ACQUIRE), i;

	if (a == flushed)
		return;
	for (i = 0; i < n; i++) {
		struct mod *m = &mods[i];
		struct vgl_module *v = &scratch.m;
		size_t len;

		if (__atomic_load_n(&m->written, __ATOMIC_ACQUIRE))
			continue;
		memset(v, 0, sizeof(*v));
		v->id = m->id;
		v->bias = m->bias;
		v->lo = m->lo;
		v->hi = m->hi;
		v->build_id_len = m->build_id_len;
		memcpy(v->build_id, m->build_id, m->build_id_len);
		v->path_len = m->path_len;
		memcpy(v + 1, paths + m->path_off, m->path_len + 1);
		len = sizeof(*v) + m->path_len + 1;
		if (!m->build_id_len) {
			v->flags |= VGL_MODULE_FILE;
			len = VGL_ALIGN(len);
			memcpy(scratch.bytes + len, &m->file, sizeof(m->file));
			len += sizeof(m->file);
		}
		if (!store_alloc_block(rt, VGL_BLOCK_MODULE, 0,
				       sizeof(struct vgl_block) + len, v, len))
			return;
		__atomic_store_n(&m->written, 1, __ATOMIC_RELEASE);
	}
	flushed = a;
}

/* The module ids of a new edge's callee and site, their blocks written;
 * with the runtime's lock held.  Asks nothing of the loader:
 * module_prepare() did, and found the ids, which still hold unless the
 * table changed since (its stamp). */
void RT module_ids(struct rt *rt, uintptr_t fn, uintptr_t site,
		   struct module_ids *ids)
{
	/* Not called for nothing: its frame cost 20 instructions. */
	if (__atomic_load_n(&adds, __ATOMIC_ACQUIRE) != flushed)
		flush(rt);
	if (ids->stamp == EXE_STAMP || ids->stamp == table_stamp())
		return;
	ids->fn = lookup(fn);
	ids->site = lookup(site);
}
