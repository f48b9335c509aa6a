/*
 * vgl_merge.c - add up .vgl profiles, one program at a time (see
 * vgl_merge.h for what a merged file keeps).
 *
 * Tuned for thousands of small-to-medium inputs of a few programs: each
 * input is looked at once, its modules mapped to the group's (a linear
 * search: a process has tens of modules, not thousands) and its edges
 * summed into an open-addressing hash table keyed by (module, ELF-relative
 * address) pairs, which never holds more than the distinct edges seen.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "message.h"
#include "vgl_merge.h"
#include "vgl_sampled.h"
#include "vgl_writer.h"

struct out_module {
	uint8_t build_id[VGL_BUILD_ID_MAX];
	uint32_t build_id_len;
	uint64_t bias, lo, hi;
	char *path;
	int has_file;                  /* no build-id: what identifies its */
	struct vgl_module_file file;   /* file, from the first input */
};

#define BATCH 16

/* One distinct edge of one thread (owner); addresses are in the group's
 * address space (the first load address seen of each module). */
struct slot {
	uint64_t callee, site, count;
	uint32_t callee_mod, site_mod;
	uint32_t owner;          /* the thread, or 0: threads summed */
	int used;
};

struct vgl_merge_group {
	uint8_t build_id[VGL_BUILD_ID_MAX];   /* of the main executable */
	uint32_t build_id_len;
	char *key_path;          /* its path, the key when no build-id */
	char *first;             /* the first input's name */
	char *exe, *host;
	char **argv;
	size_t argc;
	struct vgl_meta meta;    /* accumulated */
	uint32_t modes;          /* VGL_META_MODE_* of its inputs (all the
	                          * same but for inputs with no call) */
	char *modes_from;        /* the first input that has them */
	int all_finished;
	/* How its processes ended (the PROCESSES section), by state and
	 * exit status; an input without the section is one process. */
	struct vgl_ending *endings;
	size_t nendings;
	uint64_t processes;

	struct out_module *mods;
	size_t nmods;

	struct slot *slots;
	size_t cap, used;        /* cap is a power of two */
	uint64_t calls;
	/* Edges are kept per thread while the group holds one process, so
	 * that `vigil run` of one process keeps its threads; the threads of
	 * many processes are summed into owner 0 (see threads_summed()). */
	int threads_summed;

	/* A group of sampled profiles (vigil attach -o, vigil run --scan)
	 * has no edges: their stacks, summed by thread and chain. */
	struct vgl_sampled *rec;
};

void vgl_merge_init(struct vgl_merge *m)
{
	memset(m, 0, sizeof(*m));
}

static void group_free(struct vgl_merge_group *g)
{
	size_t i;

	if (!g)
		return;
	if (g->rec) {
		vgl_sampled_release(g->rec);
		free(g->rec);
	}
	for (i = 0; i < g->nmods; i++)
		free(g->mods[i].path);
	for (i = 0; i < g->argc; i++)
		free(g->argv[i]);
	free(g->argv);
	free(g->endings);
	free(g->mods);
	free(g->slots);
	free(g->key_path);
	free(g->first);
	free(g->modes_from);
	free(g->exe);
	free(g->host);
	free(g);
}

/* A window snapshot seen in the first pass: its file, the key of its
 * program and its times. */
struct vgl_merge_pending {
	char *name;
	char *key;               /* hex build-id of its program, or path */
	uint64_t start, end;
	uint64_t t0, step;       /* its program's slots: the first's start,
	                          * and their length */
	uint64_t seq;            /* the merged window it goes to, from 1 */
};

/* A merged window: the windows of one program that end in one slot. */
struct vgl_merge_bucket {
	size_t group;            /* index of the program's group */
	uint64_t seq;
	uint64_t start, end;     /* the slot */
	struct vgl_merge_group *g;
};

void vgl_merge_release(struct vgl_merge *m)
{
	size_t i;

	for (i = 0; i < m->ngroups; i++)
		group_free(m->groups[i]);
	free(m->groups);
	m->groups = NULL;
	m->ngroups = 0;
	for (i = 0; i < m->npending; i++) {
		free(m->pending[i].name);
		free(m->pending[i].key);
	}
	free(m->pending);
	m->pending = NULL;
	m->npending = 0;
	for (i = 0; i < m->nbuckets; i++)
		group_free(m->buckets[i].g);
	free(m->buckets);
	m->buckets = NULL;
	m->nbuckets = 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* splitmix64's finalizer: cheap, and spreads addresses that differ only
 * in a few low bits (neighbouring functions) over the whole table. */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* mix(0) is 0: an edge of owner 0 hashes as it did before owners were
 * kept, so a merge of many processes lays out its file as it did. */
static uint64_t slot_hash(uint64_t callee, uint64_t site, uint32_t cm,
			  uint32_t sm, uint32_t owner)
{
	return mix(callee ^ mix(site ^ ((uint64_t)cm << 32 | sm))) ^
	       mix(owner);
}

/* An edge of one thread in the group's address space, and its hash. */
struct key {
	uint64_t callee, site, h;
	uint32_t cm, sm, owner;
	uint64_t count;
};

static struct slot *find_slot(struct slot *slots, size_t cap,
			      const struct key *k)
{
	size_t i = (size_t)k->h & (cap - 1);

	for (;; i = (i + 1) & (cap - 1)) {
		struct slot *s = &slots[i];

		if (!s->used ||
		    (s->callee == k->callee && s->site == k->site &&
		     s->callee_mod == k->cm && s->site_mod == k->sm &&
		     s->owner == k->owner))
			return s;
	}
}

static void slot_key(const struct slot *s, struct key *k)
{
	k->callee = s->callee;
	k->site = s->site;
	k->cm = s->callee_mod;
	k->sm = s->site_mod;
	k->owner = s->owner;
	k->count = s->count;
	k->h = slot_hash(k->callee, k->site, k->cm, k->sm, k->owner);
}

/* Keeps the table at most half full, so probes stay short. */
static int grow(struct vgl_merge_group *g)
{
	size_t cap = g->cap ? g->cap * 2 : 1024, i;
	struct slot *n = calloc(cap, sizeof(*n)), *s;

	if (!n)
		return -ENOMEM;
	for (i = 0; i < g->cap; i++) {
		struct key k;

		if (!g->slots[i].used)
			continue;
		slot_key(&g->slots[i], &k);
		s = find_slot(n, cap, &k);
		*s = g->slots[i];
	}
	free(g->slots);
	g->slots = n;
	g->cap = cap;
	return 0;
}

static int add_edge(struct vgl_merge_group *g, const struct key *k)
{
	struct slot *s;
	int err;

	if ((g->used + 1) * 2 > g->cap) {
		err = grow(g);
		if (err)
			return err;
	}
	s = find_slot(g->slots, g->cap, k);
	if (!s->used) {
		s->used = 1;
		s->callee = k->callee;
		s->site = k->site;
		s->callee_mod = k->cm;
		s->site_mod = k->sm;
		s->owner = k->owner;
		g->used++;
	}
	s->count = sat_add(s->count, k->count);
	g->calls = sat_add(g->calls, k->count);
	return 0;
}

/*
 * Sums g's threads into owner 0, once it holds (or is about to hold) more
 * than one process: tids of different processes say nothing about each
 * other, and keeping every thread of a fork storm would make memory grow
 * with processes times edges instead of with the program's edges.
 */
static int sum_threads(struct vgl_merge_group *g)
{
	struct slot *old = g->slots;
	size_t cap = g->cap, i;
	int err = 0;

	g->threads_summed = 1;
	if (!old)
		return 0;
	g->slots = calloc(cap, sizeof(*g->slots));
	if (!g->slots) {
		g->slots = old;
		return -ENOMEM;
	}
	g->used = 0;
	g->calls = 0;
	for (i = 0; i < cap && !err; i++) {
		struct key k;

		if (!old[i].used)
			continue;
		old[i].owner = 0;
		slot_key(&old[i], &k);
		err = add_edge(g, &k);
	}
	free(old);
	return err;
}

/* The processes r holds: its PROCESSES section's (a merged input), or
 * itself. */
static uint64_t input_processes(const struct vgl_reader *r)
{
	uint64_t n = 0;
	size_t i;

	if (!r->has_processes)
		return 1;
	for (i = 0; i < r->nendings; i++)
		n = sat_add(n, r->endings[i].processes);
	return n;
}

/* The module of r that is its main executable: the one with META's exe
 * path, else the first loaded one; NULL when r names no module. */
static const struct vgl_module_info *main_module(const struct vgl_reader *r)
{
	size_t i;

	if (r->exe)
		for (i = 0; i < r->nmodules; i++)
			if (r->modules[i].path &&
			    !strcmp(r->modules[i].path, r->exe))
				return &r->modules[i];
	return r->nmodules ? &r->modules[0] : NULL;
}

static int same_module(const struct out_module *o, const uint8_t *bid,
		       uint32_t bid_len, const char *path)
{
	if (bid_len || o->build_id_len)
		return bid_len == o->build_id_len &&
		       !memcmp(bid, o->build_id, bid_len);
	return !strcmp(o->path, path ? path : "");
}

static int group_matches(const struct vgl_merge_group *g,
			 const uint8_t *bid, uint32_t bid_len,
			 const char *path)
{
	if (bid_len || g->build_id_len)
		return bid_len == g->build_id_len &&
		       !memcmp(bid, g->build_id, bid_len);
	return !strcmp(g->key_path, path);
}

static void hex(const uint8_t *b, uint32_t len, char *out, size_t outlen)
{
	size_t i;

	if (!len) {
		snprintf(out, outlen, "none");
		return;
	}
	out[0] = 0;
	for (i = 0; i < len && 2 * i + 2 < outlen; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static int set_err(struct vgl_merge *m, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int set_err(struct vgl_merge *m, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->err, sizeof(m->err), fmt, ap);
	va_end(ap);
	return err;
}

/* Who a merged file says it is: the exe, host and command of one input. */
struct ident {
	char *exe, *host;
	char **argv;
	size_t argc;
};

static void ident_free(struct ident *id)
{
	size_t i;

	for (i = 0; i < id->argc; i++)
		free(id->argv[i]);
	free(id->argv);
	free(id->exe);
	free(id->host);
	memset(id, 0, sizeof(*id));
}

/* Copies r's exe, host and command into *id; 0 or -ENOMEM (then *id is
 * empty). */
static int ident_copy(struct ident *id, const struct vgl_reader *r)
{
	size_t i;

	memset(id, 0, sizeof(*id));
	id->exe = r->exe ? strdup(r->exe) : NULL;
	id->host = r->host ? strdup(r->host) : NULL;
	id->argv = calloc(r->argc ? r->argc : 1, sizeof(char *));
	if ((r->exe && !id->exe) || (r->host && !id->host) || !id->argv)
		goto fail;
	for (i = 0; i < r->argc; i++) {
		id->argv[i] = strdup(r->argv[i]);
		if (!id->argv[i])
			goto fail;
		id->argc++;
	}
	return 0;
fail:
	ident_free(id);
	return -ENOMEM;
}

/* Adds n processes that ended in (state, status) to g's endings, kept
 * sorted by state then status. */
static int add_ending(struct vgl_merge_group *g, uint32_t state,
		      int32_t status, uint64_t n)
{
	struct vgl_ending *grown;
	size_t i;

	for (i = 0; i < g->nendings; i++) {
		struct vgl_ending *e = &g->endings[i];

		if (e->state == state && e->exit_status == status) {
			e->processes = sat_add(e->processes, n);
			goto counted;
		}
		if (e->state > state ||
		    (e->state == state && e->exit_status > status))
			break;
	}
	grown = realloc(g->endings, (g->nendings + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	g->endings = grown;
	memmove(&grown[i + 1], &grown[i], (g->nendings - i) * sizeof(*grown));
	grown[i].state = state;
	grown[i].exit_status = status;
	grown[i].processes = n;
	g->nendings++;
counted:
	g->processes = sat_add(g->processes, n);
	return 0;
}

/* r's processes into g's endings: its PROCESSES section (a merged input),
 * or r itself as one process. */
static int add_endings(struct vgl_merge_group *g, const struct vgl_reader *r)
{
	size_t i;
	int err;

	if (r->has_processes) {
		for (i = 0; i < r->nendings; i++) {
			err = add_ending(g, r->endings[i].state,
					 r->endings[i].exit_status,
					 r->endings[i].processes);
			if (err)
				return err;
		}
		return 0;
	}
	if (r->liveness == VGL_LIVENESS_FINISHED)
		return add_ending(g, VGL_STATE_FINISHED, r->meta.exit_status, 1);
	if (r->liveness == VGL_LIVENESS_CUT_SHORT)
		return add_ending(g, VGL_STATE_CUT_SHORT, 0, 1);
	return add_ending(g, VGL_STATE_RUNNING, 0, 1);
}

/* Makes *id (and r's pid, parent and start) the group's identity; what
 * the group had is freed, *id is left empty. */
static void ident_take(struct vgl_merge_group *g, struct ident *id,
		       const struct vgl_reader *r)
{
	struct ident old = { g->exe, g->host, g->argv, g->argc };

	ident_free(&old);
	g->exe = id->exe;
	g->host = id->host;
	g->argv = id->argv;
	g->argc = id->argc;
	memset(id, 0, sizeof(*id));
	g->meta.pid = r->meta.pid;
	g->meta.ppid = r->meta.ppid;
	g->meta.proc_start = r->meta.proc_start;
	memcpy(g->meta.boot_id, r->meta.boot_id, sizeof(g->meta.boot_id));
}

/*
 * Whether r started before the input that the group's identity is from
 * (its start is the group's earliest): by start time, a start unknown (0)
 * being the latest, then by pid.  So the identity is the same whatever
 * the order of the inputs (vigil run lists a directory).
 */
static int starts_before(const struct vgl_reader *r,
			 const struct vgl_merge_group *g)
{
	uint64_t a = r->meta.start_ns ? r->meta.start_ns : UINT64_MAX;
	uint64_t b = g->meta.start_ns ? g->meta.start_ns : UINT64_MAX;

	return a != b ? a < b : r->meta.pid < g->meta.pid;
}

static struct vgl_merge_group *new_group(const struct vgl_reader *r,
					 const char *name,
					 const struct vgl_module_info *mm)
{
	struct vgl_merge_group *g = calloc(1, sizeof(*g));
	struct ident id;

	if (!g)
		return NULL;
	if (mm) {
		memcpy(g->build_id, mm->build_id, mm->build_id_len);
		g->build_id_len = mm->build_id_len;
	}
	g->key_path = strdup(mm && mm->path ? mm->path :
			     r->exe ? r->exe : "");
	g->first = strdup(name);
	if (!g->key_path || !g->first || ident_copy(&id, r))
		goto fail;
	g->meta = r->meta;
	ident_take(g, &id, r);
	g->meta.kind = VGL_KIND_MERGED;
	if (r->meta.kind == VGL_KIND_SAMPLED) {
		if (!(g->rec = calloc(1, sizeof(*g->rec))))
			goto fail;
		vgl_sampled_init(g->rec);
		g->meta.kind = VGL_KIND_SAMPLED;
	}
	g->meta.lost_calls = 0;
	g->meta.skipped_calls = 0;
	g->meta.flags = 0;
	g->meta.exit_status = 0;
	g->meta.end_ns = 0;
	g->meta.windows = 0;
	g->meta.windowed_calls = 0;
	g->all_finished = 1;
	return g;
fail:
	group_free(g);
	return NULL;
}

/* The group's index of r's module mi, added to the group if new; or -1
 * for no memory. */
static long map_module(struct vgl_merge *m, struct vgl_merge_group *g,
		       const struct vgl_module_info *mi)
{
	struct out_module *o;
	size_t i;

	for (i = 0; i < g->nmods; i++)
		if (same_module(&g->mods[i], mi->build_id, mi->build_id_len,
				mi->path))
			return (long)i;
	o = realloc(g->mods, (g->nmods + 1) * sizeof(*o));
	if (!o)
		return -1;
	g->mods = o;
	o = &g->mods[g->nmods];
	memset(o, 0, sizeof(*o));
	o->path = strdup(mi->path ? mi->path : "");
	if (!o->path)
		return -1;
	memcpy(o->build_id, mi->build_id, mi->build_id_len);
	o->build_id_len = mi->build_id_len;
	o->bias = mi->bias;
	o->lo = mi->lo;
	o->hi = mi->hi;
	o->has_file = mi->has_file;
	o->file = mi->file;
	if (!mi->build_id_len) {
		m->by_path_matches++;
		if (!m->by_path_example[0])
			snprintf(m->by_path_example,
				 sizeof(m->by_path_example), "%s", o->path);
	}
	return (long)g->nmods++;
}

/* An address of r's module id translated into the group's copy of that
 * module, and the group's module index in *gm. */
static uint64_t translate(const struct vgl_reader *r,
			  const struct vgl_merge_group *g, const long *map,
			  uint32_t id, uint64_t addr, uint32_t *gm)
{
	const struct vgl_module_info *mi;
	long k;

	*gm = VGL_NO_MODULE;
	if (id == VGL_NO_MODULE)
		return addr;
	mi = vgl_reader_module(r, id);
	if (!mi)
		return addr;
	k = map[mi - r->modules];
	*gm = (uint32_t)k;
	return addr - mi->bias + g->mods[k].bias;
}

/* The program key of r: its main module's build-id in hex, or its path. */
static char *program_key(const struct vgl_reader *r)
{
	const struct vgl_module_info *mm = main_module(r);
	char h[2 * VGL_BUILD_ID_MAX + 1];

	if (mm && mm->build_id_len) {
		hex(mm->build_id, mm->build_id_len, h, sizeof(h));
		return strdup(h);
	}
	return strdup(mm && mm->path ? mm->path : r->exe ? r->exe : "");
}

static int pend_window(struct vgl_merge *m, const struct vgl_reader *r,
		       const char *name)
{
	struct vgl_merge_pending *p;

	p = realloc(m->pending, (m->npending + 1) * sizeof(*p));
	if (!p)
		return set_err(m, -ENOMEM, "%s: out of memory", name);
	m->pending = p;
	p = &m->pending[m->npending];
	p->name = strdup(name);
	p->key = program_key(r);
	if (!p->name || !p->key) {
		free(p->name);
		free(p->key);
		return set_err(m, -ENOMEM, "%s: out of memory", name);
	}
	p->start = r->meta.window_start_ns;
	p->end = r->meta.window_end_ns > p->start ? r->meta.window_end_ns
						   : p->start + 1;
	p->seq = 0;
	m->npending++;
	return 0;
}

/*
 * The group of r's program: found by build-id (or path), or made when
 * keep_apart is set or no group exists yet; *g is NULL when r is another
 * program than those before and keep_apart is not set (err says so).
 * Returns 0, -EXDEV, -ENOENT (a module without build-id, by_path not
 * set) or -ENOMEM.
 */
static int find_group(struct vgl_merge *m, const struct vgl_reader *r,
		      const char *name, size_t *gi)
{
	const struct vgl_module_info *mm = main_module(r);
	struct vgl_merge_group *g, **gs;
	char a[2 * VGL_BUILD_ID_MAX + 1], b[2 * VGL_BUILD_ID_MAX + 1];
	const char *path = mm && mm->path ? mm->path : r->exe ? r->exe : "";
	int sampled = r->meta.kind == VGL_KIND_SAMPLED;
	size_t i;

	/* A sampled profile's modules are what /proc/PID/maps named: paths,
	 * without build-ids. */
	if (!m->by_path && !sampled)
		for (i = 0; i < r->nmodules; i++)
			if (!r->modules[i].build_id_len)
				return set_err(m, -ENOENT,
					       "%s: module %s has no build-id "
					       "(--by-path matches such "
					       "modules by path)", name,
					       r->modules[i].path ?
					       r->modules[i].path : "?");
	for (i = 0; i < m->ngroups; i++)
		if (group_matches(m->groups[i], mm ? mm->build_id : NULL,
				  mm ? mm->build_id_len : 0, path) &&
		    !m->groups[i]->rec == !sampled) {
			*gi = i;
			return 0;
		}
	if (m->ngroups && !m->keep_apart) {
		const struct vgl_merge_group *f = m->groups[0];

		if (!f->rec != !sampled)
			return set_err(m, -EXDEV,
				       "%s is a %s profile and %s a %s one: "
				       "they cannot be one file "
				       "(--keep-apart merges each apart)",
				       f->first, f->rec ? "sampled" :
				       "counting", name, sampled ? "sampled" :
				       "counting");
		hex(f->build_id, f->build_id_len, a, sizeof(a));
		hex(mm ? mm->build_id : NULL, mm ? mm->build_id_len : 0, b,
		    sizeof(b));
		return set_err(m, -EXDEV,
			       "%s (%s, build-id %s) and %s (%s, build-id %s) "
			       "are profiles of different programs "
			       "(--keep-apart merges each program apart)",
			       f->first, f->key_path, a, name, path, b);
	}
	g = new_group(r, name, mm);
	gs = realloc(m->groups, (m->ngroups + 1) * sizeof(*gs));
	if (!g || !gs) {
		group_free(g);
		if (gs)
			m->groups = gs;
		return set_err(m, -ENOMEM, "%s: out of memory", name);
	}
	m->groups = gs;
	*gi = m->ngroups;
	m->groups[m->ngroups++] = g;
	return 0;
}

/* Adds r's edges and what its META says to g (a program's group or one of
 * its windows).  On failure nothing but memory was added. */
/* A sampled profile's stacks, each frame translated like an edge's
 * addresses, added up in g by thread and chain.  Its samples (a time
 * series of one process) are not: they are counted as left out. */
static int add_stacks(struct vgl_merge *m, struct vgl_merge_group *g,
		      const struct vgl_reader *r, const long *map,
		      const char *name)
{
	struct vgl_frame *f = NULL;
	size_t i, j;
	int err = 0;

	for (i = 0; i < r->nstacks && !err; i++) {
		const struct vgl_stack_info *st = &r->stacks[i];
		struct vgl_frame *nf = realloc(f, (st->nframes ? st->nframes
							       : 1) *
						      sizeof(*f));

		if (!nf) {
			err = -ENOMEM;
			break;
		}
		f = nf;
		for (j = 0; j < st->nframes; j++) {
			const struct vgl_frame *o = &r->frames[st->first_frame +
							       j];
			uint32_t gm;

			f[j].addr = translate(r, g, map, o->module, o->addr,
					      &gm);
			f[j].module = gm;
			f[j].reserved = 0;
		}
		err = vgl_sampled_add_stack(g->rec, st->tid, f, st->nframes,
					    st->count);
	}
	free(f);
	if (err)
		return set_err(m, err, "%s: out of memory", name);
	g->rec->stack_lost = sat_add(g->rec->stack_lost, r->stacks_head.lost);
	if (r->stacks_head.frequency > g->rec->frequency)
		g->rec->frequency = r->stacks_head.frequency;
	m->samples_left_out += r->nsamples;
	m->sampled_in++;
	return 0;
}

/*
 * Adds r's edges to g: per thread (each EDGES block's owner) while g
 * holds one process, else each edge summed over r's threads, into owner 0.
 * In batches: the keys and hashes of a batch first, with a prefetch of
 * each home slot, then the lookups.  A table of a big program is larger
 * than the caches, and each lookup otherwise waits for its own miss; this
 * way the misses overlap.
 */
static int add_edges(struct vgl_merge_group *g, const struct vgl_reader *r,
		     const long *map)
{
	size_t n = g->threads_summed ? r->nedges : r->nthread_counts;
	size_t i, e = 0, j;
	int err;

	for (i = 0; i < n; i += BATCH) {
		struct key k[BATCH];
		size_t nb = n - i < BATCH ? n - i : BATCH;

		for (j = 0; j < nb; j++) {
			const struct vgl_edge_info *ei;

			if (g->threads_summed) {
				ei = &r->edges[i + j];
				k[j].count = ei->count;
				k[j].owner = 0;
			} else {
				/* thread_counts run edge by edge */
				while (i + j >= r->edges[e].first_thread +
						 r->edges[e].nthreads)
					e++;
				ei = &r->edges[e];
				k[j].count = r->thread_counts[i + j].count;
				k[j].owner = r->thread_counts[i + j].tid;
			}
			k[j].callee = translate(r, g, map, ei->callee_mod,
						ei->callee, &k[j].cm);
			k[j].site = translate(r, g, map, ei->site_mod,
					      ei->site, &k[j].sm);
			k[j].h = slot_hash(k[j].callee, k[j].site, k[j].cm,
					   k[j].sm, k[j].owner);
			if (g->cap)
				__builtin_prefetch(
					&g->slots[k[j].h & (g->cap - 1)]);
		}
		for (j = 0; j < nb; j++) {
			err = add_edge(g, &k[j]);
			if (err)
				return err;
		}
	}
	return 0;
}

static int add_reader(struct vgl_merge *m, struct vgl_merge_group *g,
		      const struct vgl_reader *r, const char *name)
{
	struct ident id = { NULL, NULL, NULL, 0 };
	long *map = NULL;
	size_t i;
	int err = 0, earlier = 0;
	uint32_t modes = vgl_reader_modes(r);

	/* Entry mode counts real calls, enter/exit mode inlined copies too:
	 * a sum of both would be neither. */
	if (modes && g->modes && modes != g->modes)
		return set_err(m, -EXDEV,
			       "%s was counted in %s mode and %s in %s mode: "
			       "their counts mean different calls and cannot "
			       "be merged", g->modes_from,
			       vgl_mode_name(g->modes), name,
			       vgl_mode_name(modes));
	if (starts_before(r, g)) {
		/* Copied now, taken once r is added: a failure adds nothing. */
		if (ident_copy(&id, r))
			return set_err(m, -ENOMEM, "%s: out of memory", name);
		earlier = 1;
	}
	map = calloc(r->nmodules ? r->nmodules : 1, sizeof(*map));
	if (!map) {
		ident_free(&id);
		return set_err(m, -ENOMEM, "%s: out of memory", name);
	}
	for (i = 0; i < r->nmodules; i++) {
		map[i] = map_module(m, g, &r->modules[i]);
		if (map[i] < 0) {
			err = set_err(m, -ENOMEM, "%s: out of memory", name);
			goto out;
		}
	}
	if (g->rec) {
		err = add_stacks(m, g, r, map, name);
		if (err)
			goto out;
	}
	if (!g->threads_summed &&
	    sat_add(g->processes, input_processes(r)) > 1) {
		err = sum_threads(g);
		if (err) {
			set_err(m, err, "%s: out of memory", name);
			goto out;
		}
	}
	err = add_edges(g, r, map);
	if (err) {
		set_err(m, err, "%s: out of memory", name);
		goto out;
	}

	err = add_endings(g, r);
	if (err) {
		set_err(m, err, "%s: out of memory", name);
		goto out;
	}
	if (earlier)
		ident_take(g, &id, r);
	if (r->liveness != VGL_LIVENESS_FINISHED)
		g->all_finished = 0;
	else if (r->meta.exit_status > g->meta.exit_status)
		g->meta.exit_status = r->meta.exit_status;
	g->meta.lost_calls = sat_add(g->meta.lost_calls, r->meta.lost_calls);
	g->meta.skipped_calls = sat_add(g->meta.skipped_calls,
					r->meta.skipped_calls);
	g->meta.flags |= r->meta.flags & VGL_META_INCOMPLETE;
	if (modes && !g->modes && (g->modes_from = strdup(name)))
		g->modes = modes;
	g->meta.flags = (g->meta.flags & ~VGL_META_MODES) | g->modes;
	if (r->meta.start_ns && (!g->meta.start_ns ||
				 r->meta.start_ns < g->meta.start_ns))
		g->meta.start_ns = r->meta.start_ns;
	if (r->meta.end_ns > g->meta.end_ns)
		g->meta.end_ns = r->meta.end_ns;
out:
	ident_free(&id);
	free(map);
	return err;
}

int vgl_merge_add(struct vgl_merge *m, const struct vgl_reader *r,
		  const char *name)
{
	size_t gi;
	int err;

	if (r->meta.kind == VGL_KIND_WINDOW)
		return pend_window(m, r, name);
	/* Refuse before anything is added, so a failure adds nothing. */
	err = find_group(m, r, name, &gi);
	if (!err)
		err = add_reader(m, m->groups[gi], r, name);
	if (err)
		return err;
	m->inputs++;
	if (r->liveness == VGL_LIVENESS_RUNNING ||
	    r->liveness == VGL_LIVENESS_EXITING)
		m->running++;
	else if (r->liveness == VGL_LIVENESS_CUT_SHORT)
		m->cut_short++;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_pending(const void *a, const void *b)
{
	const struct vgl_merge_pending *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->start < y->start ? -1 : x->start > y->start;
}

size_t vgl_merge_plan_windows(struct vgl_merge *m)
{
	uint64_t *len = malloc((m->npending ? m->npending : 1) * sizeof(*len));
	size_t i, j, k;

	if (!len)
		return 0;
	/* By program, then by start: each program's windows are one run.
	 * (None at all: qsort's base may be NULL then.) */
	if (m->npending)
		qsort(m->pending, m->npending, sizeof(*m->pending),
		      cmp_pending);
	for (i = 0; i < m->npending; i = j) {
		uint64_t t0 = m->pending[i].start, step;

		for (j = i; j < m->npending &&
			    !strcmp(m->pending[j].key, m->pending[i].key); j++)
			len[j - i] = m->pending[j].end - m->pending[j].start;
		qsort(len, j - i, sizeof(*len), cmp_u64);
		step = m->window_ns ? m->window_ns : len[(j - i) / 2];
		if (!step)
			step = 1;
		for (k = i; k < j; k++) {
			m->pending[k].t0 = t0;
			m->pending[k].step = step;
			/* By its middle: a window a little longer than the
			 * interval (timer jitter) still lands in its slot. */
			m->pending[k].seq = (m->pending[k].start - t0 +
					     (m->pending[k].end -
					      m->pending[k].start) / 2) /
						    step + 1;
		}
	}
	free(len);
	return m->npending;
}

const char *vgl_merge_window_name(const struct vgl_merge *m, size_t k)
{
	return m->pending[k].name;
}

int vgl_merge_add_window(struct vgl_merge *m, size_t k,
			 const struct vgl_reader *r)
{
	const struct vgl_merge_pending *p = &m->pending[k];
	struct vgl_merge_bucket *b = NULL, *bs;
	char *key;
	size_t gi, i;
	int err, same;

	key = program_key(r);
	if (!key)
		return set_err(m, -ENOMEM, "%s: out of memory", p->name);
	same = !strcmp(key, p->key) && r->meta.kind == VGL_KIND_WINDOW;
	free(key);
	if (!same)
		return set_err(m, -ESTALE, "%s: changed while it was merged",
			       p->name);
	err = find_group(m, r, p->name, &gi);
	if (err)
		return err;
	for (i = 0; i < m->nbuckets; i++)
		if (m->buckets[i].group == gi && m->buckets[i].seq == p->seq)
			b = &m->buckets[i];
	if (!b) {
		bs = realloc(m->buckets, (m->nbuckets + 1) * sizeof(*bs));
		if (!bs)
			return set_err(m, -ENOMEM, "%s: out of memory",
				       p->name);
		m->buckets = bs;
		b = &m->buckets[m->nbuckets];
		b->group = gi;
		b->seq = p->seq;
		b->start = p->t0 + (p->seq - 1) * p->step;
		b->end = b->start + p->step;
		b->g = new_group(r, p->name, main_module(r));
		if (!b->g)
			return set_err(m, -ENOMEM, "%s: out of memory",
				       p->name);
		b->g->meta.kind = VGL_KIND_WINDOW;
		b->g->meta.window_start_ns = b->start;
		b->g->meta.window_end_ns = b->end;
		b->g->meta.window_seq = b->seq;
		b->g->meta.start_ns = 0;
		m->nbuckets++;
	}
	err = add_reader(m, b->g, r, p->name);
	if (!err)
		m->windows_in++;
	return err;
}

uint64_t vgl_merge_calls(const struct vgl_merge *m)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < m->ngroups; i++)
		n = sat_add(n, m->groups[i]->calls);
	return n;
}

const char *vgl_merge_exe(const struct vgl_merge *m, size_t i)
{
	return m->groups[i]->exe ? m->groups[i]->exe :
	       m->groups[i]->key_path[0] ? m->groups[i]->key_path : "-";
}

static const char *base_name(const struct vgl_merge_group *g)
{
	const char *p = g->exe ? g->exe : g->key_path, *s = strrchr(p, '/');

	p = s ? s + 1 : p;
	return *p ? p : "program";
}

void vgl_merge_name(const struct vgl_merge *m, size_t i, char *buf,
		    size_t len)
{
	const struct vgl_merge_group *g = m->groups[i];
	const char *b = base_name(g);
	/* A program's sampled profiles are merged apart from its counting
	 * ones: their file says so. */
	const char *ext = g->rec ? ".sampled.vgl" : ".vgl";
	char h[2 * VGL_BUILD_ID_MAX + 1];
	size_t j;
	int clash = 0;

	for (j = 0; j < m->ngroups; j++)
		if (j != i && !strcmp(base_name(m->groups[j]), b) &&
		    !m->groups[j]->rec == !g->rec)
			clash = 1;
	if (!clash) {
		snprintf(buf, len, "%s%s", b, ext);
		return;
	}
	hex(g->build_id, g->build_id_len, h, sizeof(h));
	if (!g->build_id_len)   /* by path: the group's index tells apart */
		snprintf(h, sizeof(h), "%zu", i);
	h[8] = 0;
	snprintf(buf, len, "%s.%s%s", b, h, ext);
}

struct owned_edge {
	uint32_t owner;
	size_t slot;
};

static int cmp_owned(const void *a, const void *b)
{
	const struct owned_edge *x = a, *y = b;

	if (x->owner != y->owner)
		return x->owner < y->owner ? -1 : 1;
	return (x->slot > y->slot) - (x->slot < y->slot);
}

/*
 * g's edges as EDGES blocks, one per owner (a thread of the one process
 * merged, or 0), each block's edges in table order.  *edges and *blocks
 * are the caller's to free.
 */
static int group_blocks(const struct vgl_merge_group *g,
			struct vgl_edge **edges,
			struct vgl_writer_block **blocks, size_t *nblocks)
{
	struct owned_edge *o = calloc(g->used ? g->used : 1, sizeof(*o));
	struct vgl_writer_block *b = calloc(g->used ? g->used : 1, sizeof(*b));
	struct vgl_edge *e = calloc(g->used ? g->used : 1, sizeof(*e));
	size_t j, n = 0, nb = 0;

	if (!o || !b || !e) {
		free(o);
		free(b);
		free(e);
		return -ENOMEM;
	}
	for (j = 0; j < g->cap; j++)
		if (g->slots[j].used) {
			o[n].owner = g->slots[j].owner;
			o[n++].slot = j;
		}
	qsort(o, n, sizeof(*o), cmp_owned);
	for (j = 0; j < n; j++) {
		const struct slot *s = &g->slots[o[j].slot];

		e[j].callee = s->callee;
		e[j].site = s->site;
		e[j].count = s->count;
		e[j].callee_mod = s->callee_mod;
		e[j].site_mod = s->site_mod;
		if (!nb || b[nb - 1].owner != s->owner) {
			b[nb].owner = s->owner;
			b[nb].edges = &e[j];
			nb++;
		}
		b[nb - 1].nedges++;
	}
	free(o);
	*edges = e;
	*blocks = b;
	*nblocks = nb;
	return 0;
}

static int write_group(const struct vgl_merge_group *g, const char *path)
{
	struct vgl_writer_section extra[3];
	struct vgl_processes *procs = NULL;
	size_t procs_size;
	struct vgl_writer_module *mods = NULL;
	struct vgl_edge *edges = NULL;
	struct vgl_writer_block *blocks = NULL;
	struct vgl_writer w;
	size_t j, nblocks = 0;
	int err;

	mods = calloc(g->nmods ? g->nmods : 1, sizeof(*mods));
	err = group_blocks(g, &edges, &blocks, &nblocks);
	if (!mods || err) {
		err = -ENOMEM;
		goto out;
	}
	for (j = 0; j < g->nmods; j++) {
		mods[j].id = (uint32_t)j;
		mods[j].bias = g->mods[j].bias;
		mods[j].lo = g->mods[j].lo;
		mods[j].hi = g->mods[j].hi;
		mods[j].build_id = g->mods[j].build_id;
		mods[j].build_id_len = g->mods[j].build_id_len;
		mods[j].path = g->mods[j].path;
		mods[j].file = g->mods[j].has_file ? &g->mods[j].file : NULL;
	}
	memset(&w, 0, sizeof(w));
	if (g->rec) {
		err = vgl_sampled_sections(g->rec, extra);
		if (err)
			goto out;
		w.extra = extra;
		w.nextra = 2;
	}
	if (g->processes) {
		procs_size = sizeof(*procs) + g->nendings * sizeof(*g->endings);
		procs = calloc(1, procs_size);
		if (!procs) {
			err = -ENOMEM;
			goto out;
		}
		procs->processes = g->processes;
		procs->nendings = (uint32_t)g->nendings;
		memcpy(procs + 1, g->endings, g->nendings * sizeof(*g->endings));
		extra[w.nextra].kind = VGL_SEC_PROCESSES;
		extra[w.nextra].data = procs;
		extra[w.nextra].size = procs_size;
		w.extra = extra;
		w.nextra++;
	}
	w.meta = g->meta;
	w.meta.state = g->all_finished ? VGL_STATE_FINISHED
				       : VGL_STATE_CUT_SHORT;
	if (!g->all_finished)
		w.meta.exit_status = 0;
	w.exe = g->exe;
	w.host = g->host;
	w.argv = (const char *const *)g->argv;
	w.argc = g->argc;
	w.modules = mods;
	w.nmodules = g->nmods;
	w.blocks = blocks;
	w.nblocks = nblocks;
	err = vgl_writer_file(&w, path);
out:
	free(procs);
	free(mods);
	free(edges);
	free(blocks);
	return err;
}

int vgl_merge_write(const struct vgl_merge *m, size_t i, const char *path)
{
	return write_group(m->groups[i], path);
}

/* path with ".wNNNNNN" before its ".vgl" (appended when it has none), as
 * the runtime names a profile's windows. */
static int window_path(const char *path, uint64_t seq, char *buf,
		       size_t len)
{
	size_t n = strlen(path);
	int k;

	if (n >= 4 && !strcmp(path + n - 4, ".vgl"))
		n -= 4;
	k = snprintf(buf, len, "%.*s.w%06llu.vgl", (int)n, path,
		     (unsigned long long)seq);
	return k < 0 || (size_t)k >= len ? -ENAMETOOLONG : 0;
}

size_t vgl_merge_group_windows(const struct vgl_merge *m, size_t i)
{
	size_t j, n = 0;

	for (j = 0; j < m->nbuckets; j++)
		n += m->buckets[j].group == i;
	return n;
}

int vgl_merge_write_windows(struct vgl_merge *m, size_t i, const char *path,
			    size_t *written)
{
	char wpath[4096];
	size_t j;
	int err;

	*written = 0;
	for (j = 0; j < m->nbuckets; j++) {
		const struct vgl_merge_bucket *b = &m->buckets[j];

		if (b->group != i)
			continue;
		err = window_path(path, b->seq, wpath, sizeof(wpath));
		if (!err)
			err = write_group(b->g, wpath);
		if (err)
			return set_err(m, err, "%s: cannot write: %s",
				       err == -ENAMETOOLONG ? path : wpath,
				       strerror(-err));
		(*written)++;
	}
	return 0;
}

/* "N profiles of P programs, C calls" and what was special about them. */
void vgl_merge_summary(const struct vgl_merge *m, size_t bad, char *buf,
		   size_t len)
{
	size_t n;

	n = (size_t)snprintf(buf, len, "%zu profile%s of %zu program%s, "
			     "%llu calls", m->inputs,
			     m->inputs == 1 ? "" : "s", m->ngroups,
			     m->ngroups == 1 ? "" : "s",
			     (unsigned long long)vgl_merge_calls(m));
	if (m->running && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", %zu still running",
				      m->running);
	if (m->cut_short && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", %zu cut short",
				      m->cut_short);
	if (bad && n < len)
		n += (size_t)snprintf(buf + n, len - n,
				      ", %zu unreadable skipped", bad);
	if (m->sampled_in && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", %zu sampled (their "
				      "stacks merged, %llu readings left "
				      "out)", m->sampled_in,
				      (unsigned long long)m->samples_left_out);
	if (m->windows_in && n < len)
		snprintf(buf + n, len - n, ", %zu window snapshot%s in %zu "
			 "merged window%s", m->windows_in,
			 m->windows_in == 1 ? "" : "s", m->nbuckets,
			 m->nbuckets == 1 ? "" : "s");
}

void vgl_merge_by_path_warning(const struct vgl_merge *m)
{
	if (m->by_path_matches)
		vgl_warning("%zu module%s without build-id "
			"matched by path (e.g. %s)", m->by_path_matches,
			m->by_path_matches == 1 ? "" : "s",
			m->by_path_example);
}
