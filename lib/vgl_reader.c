/*
 * vgl_reader.c - see vgl_reader.h.
 *
 * What the header says the file holds is read into memory first and
 * parsed from there, so the parser is one function over a buffer that the
 * fuzzer drives directly, and a live file's bytes cannot change under it.
 * The header is read (and checked) before anything else, so a foreign or
 * huge file costs one small read, not a read of the whole file.  Every structure is copied out with memcpy before use: the
 * buffer gives no alignment promise the compiler could rely on.
 *
 * Checks run in the order a person would want to hear about problems: is
 * this a vigil file at all, can this reader read it, is its table intact,
 * and only then what the sections say.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "crc32.h"
#include "maps.h"
#include "procid.h"
#include "sortsum.h"
#include "vgl_reader.h"

/* Files larger than this are refused rather than read: no real profile
 * comes near it, and it bounds what a hostile path can make us allocate. */
#define MAX_FILE_SIZE (1ull << 32)

static int fail(struct vgl_reader *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct vgl_reader *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	return err;
}

static const char *kind_names[] = { NULL, "META", "STRINGS", "ARENA" };

static uint32_t bswap32(uint32_t x)
{
	return __builtin_bswap32(x);
}

/* Is [off, off + len) inside [0, size)?  Written so nothing overflows. */
static int inside(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static int check_header(struct vgl_reader *r, struct vgl_header *h)
{
	const unsigned char *d = r->data;
	uint64_t want;
	uint32_t sum;
	unsigned char *copy;

	if (r->size == 0)
		return fail(r, -EINVAL, "empty file (not a vigil profile)");
	if (r->size < VGL_MAGIC_LEN) {
		if (memcmp(d, VGL_MAGIC, r->size) == 0)
			return fail(r, -EINVAL,
				    "truncated: header needs %zu bytes, file has %zu",
				    sizeof(*h), r->size);
		return fail(r, -EINVAL, "not a vigil profile (bad magic)");
	}
	if (memcmp(d, VGL_MAGIC, VGL_MAGIC_LEN) != 0)
		return fail(r, -EINVAL, "not a vigil profile (bad magic)");
	if (r->size < sizeof(*h))
		return fail(r, -EINVAL,
			    "truncated: header needs %zu bytes, file has %zu",
			    sizeof(*h), r->size);
	memcpy(h, d, sizeof(*h));
	if (h->byte_order == bswap32(VGL_BYTE_ORDER))
		return fail(r, -EINVAL,
			    "written on a machine of the other byte order");
	if (h->byte_order != VGL_BYTE_ORDER)
		return fail(r, -EINVAL, "bad byte order mark 0x%08x",
			    h->byte_order);
	if (h->version != VGL_VERSION)
		return fail(r, -EINVAL, "unsupported version %u (this vigil reads %u)",
			    h->version, VGL_VERSION);
	if (h->nsections > VGL_MAX_SECTIONS)
		return fail(r, -EINVAL, "header claims %u sections (at most %u)",
			    h->nsections, VGL_MAX_SECTIONS);
	want = sizeof(*h) + (uint64_t)h->nsections * sizeof(struct vgl_section);
	if (h->header_size != want)
		return fail(r, -EINVAL,
			    "header size %u does not match %u sections (%llu bytes)",
			    h->header_size, h->nsections,
			    (unsigned long long)want);
	if (want > r->size)
		return fail(r, -EINVAL,
			    "truncated: section table needs %llu bytes, file has %zu",
			    (unsigned long long)want, r->size);
	/* The checksum is computed with its own field taken as zero. */
	copy = malloc(want);
	if (!copy)
		return fail(r, -ENOMEM, "out of memory");
	memcpy(copy, d, want);
	memset(copy + offsetof(struct vgl_header, checksum), 0,
	       sizeof(h->checksum));
	sum = vgl_crc32(0, copy, want);
	free(copy);
	if (sum != h->checksum)
		return fail(r, -EINVAL, "header checksum mismatch");
	return 0;
}

/*
 * Finds the three sections this reader needs and checks that every section
 * lies inside the file, is aligned and overlaps no other.  ARENA alone may
 * reach past the end: a live writer reserves it ahead of what it has
 * written, so only its fixed header must be present.
 */
static int check_sections(struct vgl_reader *r, const struct vgl_header *h,
			  struct vgl_section *sec, int *meta, int *strs,
			  int *arena)
{
	uint32_t i, j;

	*meta = *strs = *arena = -1;
	for (i = 0; i < h->nsections; i++) {
		struct vgl_section *s = &sec[i];
		uint64_t need;

		memcpy(s, r->data + sizeof(*h) + (size_t)i * sizeof(*s),
		       sizeof(*s));
		need = s->size;
		if (s->offset % 8)
			return fail(r, -EINVAL,
				    "section %u (offset %llu) is not 8-byte aligned",
				    i, (unsigned long long)s->offset);
		if (s->kind == VGL_SEC_ARENA)
			need = sizeof(struct vgl_arena);
		if (s->offset < h->header_size)
			return fail(r, -EINVAL,
				    "section %u (offset %llu) overlaps the header (%u bytes)",
				    i, (unsigned long long)s->offset,
				    h->header_size);
		if (!inside(s->offset, s->size, UINT64_MAX) ||
		    !inside(s->offset, need, r->size) ||
		    s->size < need)
			return fail(r, -EINVAL,
				    "section %u (offset %llu, size %llu) lies outside the file (size %zu)",
				    i, (unsigned long long)s->offset,
				    (unsigned long long)s->size, r->size);
		for (j = 0; j < i; j++) {
			const struct vgl_section *o = &sec[j];

			if (s->size && o->size &&
			    s->offset < o->offset + o->size &&
			    o->offset < s->offset + s->size)
				return fail(r, -EINVAL,
					    "sections %u and %u overlap", j, i);
		}
		if (s->kind >= VGL_SEC_META && s->kind <= VGL_SEC_ARENA) {
			int *slot = s->kind == VGL_SEC_META ? meta :
				    s->kind == VGL_SEC_STRINGS ? strs : arena;

			if (*slot >= 0)
				return fail(r, -EINVAL, "more than one %s section",
					    kind_names[s->kind]);
			*slot = (int)i;
		}
	}
	if (*meta < 0)
		return fail(r, -EINVAL, "no META section");
	if (*strs < 0)
		return fail(r, -EINVAL, "no STRINGS section");
	if (*arena < 0)
		return fail(r, -EINVAL, "no ARENA section");
	return 0;
}

/* A string META names: inside STRINGS and NUL-terminated there. */
static int get_string(struct vgl_reader *r, const struct vgl_section *strs,
		      uint32_t off, const char *what, const char **out)
{
	const char *base = (const char *)r->data + strs->offset;

	*out = NULL;
	if (off == VGL_NO_STRING)
		return 0;
	if (off >= strs->size)
		return fail(r, -EINVAL,
			    "META %s string offset %u is outside STRINGS (size %llu)",
			    what, off, (unsigned long long)strs->size);
	if (!memchr(base + off, '\0', strs->size - off))
		return fail(r, -EINVAL, "META %s string is not NUL-terminated",
			    what);
	*out = base + off;
	return 0;
}

static int parse_meta(struct vgl_reader *r, const struct vgl_section *meta,
		      const struct vgl_section *strs)
{
	struct vgl_meta *m = &r->meta;
	const char *cmd, *p, *end;
	size_t n;
	int err;

	if (meta->size < sizeof(*m))
		return fail(r, -EINVAL, "META section is %llu bytes, needs %zu",
			    (unsigned long long)meta->size, sizeof(*m));
	memcpy(m, r->data + meta->offset, sizeof(*m));
	if (m->kind < VGL_KIND_LIVE || m->kind > VGL_KIND_SAMPLED)
		return fail(r, -EINVAL, "unknown file kind %u", m->kind);
	if (m->state < VGL_STATE_RUNNING || m->state > VGL_STATE_CUT_SHORT)
		return fail(r, -EINVAL, "unknown state %u", m->state);
	err = get_string(r, strs, m->exe, "exe", &r->exe);
	if (!err)
		err = get_string(r, strs, m->host, "host", &r->host);
	if (err)
		return err;

	if (m->cmdline == VGL_NO_STRING || m->cmdline_len == 0)
		return 0;
	if (!inside(m->cmdline, m->cmdline_len, strs->size))
		return fail(r, -EINVAL,
			    "META command line (offset %u, %u bytes) is outside STRINGS (size %llu)",
			    m->cmdline, m->cmdline_len,
			    (unsigned long long)strs->size);
	cmd = (const char *)r->data + strs->offset + m->cmdline;
	end = cmd + m->cmdline_len;
	if (end[-1] != '\0')
		return fail(r, -EINVAL, "META command line is not NUL-terminated");
	for (n = 0, p = cmd; p < end; p += strlen(p) + 1)
		n++;
	r->argv = calloc(n, sizeof(*r->argv));
	if (!r->argv)
		return fail(r, -ENOMEM, "out of memory");
	for (p = cmd; p < end; p += strlen(p) + 1)
		r->argv[r->argc++] = p;
	return 0;
}

static int add_module(struct vgl_reader *r, const unsigned char *b,
		      uint64_t bsize, uint64_t at)
{
	struct vgl_module m;
	struct vgl_module_info *mi, *grown;
	const char *path;
	size_t i;

	if (bsize < sizeof(struct vgl_block) + sizeof(m))
		return fail(r, -EINVAL,
			    "module block at arena offset %llu is too small (%llu bytes)",
			    (unsigned long long)at, (unsigned long long)bsize);
	memcpy(&m, b + sizeof(struct vgl_block), sizeof(m));
	if (m.build_id_len > VGL_BUILD_ID_MAX)
		return fail(r, -EINVAL, "module %u: build-id of %u bytes (at most %u)",
			    m.id, m.build_id_len, VGL_BUILD_ID_MAX);
	if ((uint64_t)m.path_len + 1 >
	    bsize - sizeof(struct vgl_block) - sizeof(m))
		return fail(r, -EINVAL,
			    "module %u: path of %u bytes runs past its block",
			    m.id, m.path_len);
	path = (const char *)b + sizeof(struct vgl_block) + sizeof(m);
	if (path[m.path_len] != '\0' || memchr(path, '\0', m.path_len))
		return fail(r, -EINVAL, "module %u: malformed path", m.id);
	if (m.id == VGL_NO_MODULE)
		return fail(r, -EINVAL, "module with the reserved id %u", m.id);
	for (i = 0; i < r->nmodules; i++)
		if (r->modules[i].id == m.id)
			return fail(r, -EINVAL, "module id %u appears twice", m.id);
	grown = realloc(r->modules, (r->nmodules + 1) * sizeof(*grown));
	if (!grown)
		return fail(r, -ENOMEM, "out of memory");
	r->modules = grown;
	mi = &r->modules[r->nmodules++];
	mi->id = m.id;
	mi->build_id_len = m.build_id_len;
	mi->bias = m.bias;
	mi->lo = m.lo;
	mi->hi = m.hi;
	memcpy(mi->build_id, m.build_id, sizeof(mi->build_id));
	mi->path = path;
	mi->has_file = 0;
	memset(&mi->file, 0, sizeof(mi->file));
	if (m.flags & VGL_MODULE_FILE) {
		uint64_t off = VGL_ALIGN(sizeof(m) + (uint64_t)m.path_len + 1);

		if (off + sizeof(mi->file) > bsize - sizeof(struct vgl_block))
			return fail(r, -EINVAL,
				    "module %u: file identity runs past its block",
				    m.id);
		memcpy(&mi->file, b + sizeof(struct vgl_block) + off,
		       sizeof(mi->file));
		mi->has_file = 1;
	}
	return 0;
}

/* An edge as one block holds it, before threads are added up. */
struct raw_edge {
	uint64_t callee;
	uint64_t site;
	uint64_t count;
	uint32_t callee_mod;
	uint32_t site_mod;
	uint32_t owner;
};

static int cmp_raw_edge(const void *a, const void *b)
{
	const struct raw_edge *x = a, *y = b;

	if (x->callee != y->callee)
		return x->callee < y->callee ? -1 : 1;
	if (x->site != y->site)
		return x->site < y->site ? -1 : 1;
	/* The same addresses in two objects, one loaded where the other was
	 * unloaded, are two edges. */
	if (x->callee_mod != y->callee_mod)
		return x->callee_mod < y->callee_mod ? -1 : 1;
	if (x->site_mod != y->site_mod)
		return x->site_mod < y->site_mod ? -1 : 1;
	return x->owner < y->owner ? -1 : x->owner > y->owner;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* One walk of the arena's blocks, and what it gathers from them. */
struct arena_walk {
	const unsigned char *base;  /* the arena, its header first */
	uint64_t in_use;            /* the bytes its header says are in use */
	uint64_t used;              /* as many of them as the file holds */
	uint64_t nedges;            /* edges in EDGES blocks: the first walk */
	uint64_t nblocks;           /* EDGES blocks */
	uint32_t *owners;           /* [nblocks]: the second walk */
	struct raw_edge *raw;       /* [nraw], edges counted at least once */
	size_t nraw;
};

/* Checks the arena's header against its section, and bounds the walk to
 * the bytes of the arena that the file holds. */
static int arena_extent(struct vgl_reader *r, const struct vgl_section *sec,
			struct arena_walk *w)
{
	struct vgl_arena a;

	w->base = r->data + sec->offset;
	memcpy(&a, w->base, sizeof(a));
	if (a.used < sizeof(a))
		return fail(r, -EINVAL, "arena uses %llu bytes, less than its header",
			    (unsigned long long)a.used);
	if (a.used > sec->size)
		return fail(r, -EINVAL,
			    "arena uses %llu bytes, more than its section (%llu)",
			    (unsigned long long)a.used,
			    (unsigned long long)sec->size);
	w->in_use = a.used;
	/* A live file is read while it grows: trust only bytes present. */
	w->used = a.used;
	if (w->used > r->size - sec->offset)
		w->used = r->size - sec->offset;
	return 0;
}

/* Copies out the header of the block at arena offset at and checks that
 * it and the block it heads lie inside the bytes present; a file cut
 * short is told apart from a block that overruns the arena. */
static int read_block(struct vgl_reader *r, const struct arena_walk *w,
		      uint64_t at, struct vgl_block *b)
{
	if (w->used - at < sizeof(*b)) {
		if (w->used < w->in_use)
			return fail(r, -EINVAL,
				    "truncated: the file ends at byte %zu, %llu bytes into the block header at arena offset %llu; the arena has %llu bytes in use",
				    r->size,
				    (unsigned long long)(w->used - at),
				    (unsigned long long)at,
				    (unsigned long long)w->in_use);
		return fail(r, -EINVAL,
			    "truncated block header at arena offset %llu",
			    (unsigned long long)at);
	}
	memcpy(b, w->base + at, sizeof(*b));
	if (b->size < sizeof(*b) || b->size % 8)
		return fail(r, -EINVAL,
			    "block at arena offset %llu has bad size %llu",
			    (unsigned long long)at,
			    (unsigned long long)b->size);
	if (b->size > w->used - at && w->used < w->in_use)
		return fail(r, -EINVAL,
			    "truncated: the file ends at byte %zu, %llu bytes into the block at arena offset %llu (size %llu); the arena has %llu bytes in use",
			    r->size,
			    (unsigned long long)(w->used - at),
			    (unsigned long long)at,
			    (unsigned long long)b->size,
			    (unsigned long long)w->in_use);
	if (b->size > w->used - at)
		return fail(r, -EINVAL,
			    "block at arena offset %llu (size %llu) runs past the end of the arena (%llu bytes)",
			    (unsigned long long)at,
			    (unsigned long long)b->size,
			    (unsigned long long)w->used);
	return 0;
}

/* Does the EDGES block at arena offset at have room for the edges it
 * says it holds? */
static int check_edge_block(struct vgl_reader *r, const struct vgl_block *b,
			    uint64_t at)
{
	uint64_t cap = (b->size - sizeof(*b)) / sizeof(struct vgl_edge);

	if (b->count > cap)
		return fail(r, -EINVAL,
			    "edge block at arena offset %llu holds %llu edges but has room for %llu",
			    (unsigned long long)at,
			    (unsigned long long)b->count,
			    (unsigned long long)cap);
	return 0;
}

/* Copies the edges of a checked EDGES block into w->raw, each with the
 * block's owner, leaving out those with no calls (a count zeroed by a
 * reset or a fork keeps its entry). */
static void copy_edges(struct arena_walk *w, const struct vgl_block *b,
		       uint64_t at)
{
	uint64_t k;

	w->owners[w->nblocks++] = b->owner;
	for (k = 0; k < b->count; k++) {
		struct vgl_edge e;
		struct raw_edge *ei;

		memcpy(&e, w->base + at + sizeof(*b) + k * sizeof(e),
		       sizeof(e));
		if (!e.count)
			continue;
		ei = &w->raw[w->nraw++];
		ei->callee = e.callee;
		ei->site = e.site;
		ei->count = e.count;
		ei->callee_mod = e.callee_mod;
		ei->site_mod = e.site_mod;
		ei->owner = b->owner;
	}
}

/*
 * One walk of the blocks in file order.  The first (copy 0) checks them,
 * adds the modules and counts the EDGES blocks and their edges; the
 * second (copy 1), over blocks already checked, copies the edges into
 * the arrays sized from those counts.
 */
static int walk_arena(struct vgl_reader *r, struct arena_walk *w, int copy)
{
	uint64_t at, last = 0;
	int err;

	for (at = sizeof(struct vgl_arena); at < w->used; ) {
		struct vgl_block b;

		err = read_block(r, w, at, &b);
		if (err)
			return err;
		if (b.kind == VGL_BLOCK_MODULE && !copy) {
			err = add_module(r, w->base + at, b.size, at);
			if (err)
				return err;
		} else if (b.kind == VGL_BLOCK_EDGES) {
			err = check_edge_block(r, &b, at);
			if (err)
				return err;
			if (!copy) {
				w->nedges += b.count;
				w->nblocks++;
			} else {
				copy_edges(w, &b, at);
			}
		}
		last = at;
		at += b.size;
	}
	/* The file ends where a block does, but the arena says more is
	 * in use: blocks are missing, and their counts with them.  (A
	 * live writer grows the file before it advances used, so this
	 * is never a file being written.) */
	if (w->used < w->in_use) {
		if (at == sizeof(struct vgl_arena))
			return fail(r, -EINVAL,
				    "truncated: the file ends at byte %zu, where the arena's header ends; the arena has %llu bytes in use",
				    r->size, (unsigned long long)w->in_use);
		return fail(r, -EINVAL,
			    "truncated: the file ends at byte %zu, where the block at arena offset %llu ends; the arena has %llu bytes in use",
			    r->size, (unsigned long long)last,
			    (unsigned long long)w->in_use);
	}
	return 0;
}

/*
 * Sorts the edges of all blocks and adds up first the ones one thread
 * holds in several blocks, which gives r->thread_counts, then the ones
 * that several threads hold, which gives r->edges and r->total_calls.
 */
static int merge_edges(struct vgl_reader *r, struct raw_edge *raw,
		       size_t nraw)
{
	size_t i, n;

	/* Unsorted, the loop below still makes whole edges (it merges only
	 * neighbours); a key may then repeat, as VGL_READ_UNSORTED says. */
	n = r->flags & VGL_READ_UNSORTED
		    ? nraw
		    : vgl_sort_sum(raw, nraw, sizeof(*raw), cmp_raw_edge,
				   offsetof(struct raw_edge, count), NULL);
	r->edges = malloc((n ? n : 1) * sizeof(*r->edges));
	r->thread_counts = malloc((n ? n : 1) * sizeof(*r->thread_counts));
	if (!r->edges || !r->thread_counts)
		return fail(r, -ENOMEM, "out of memory");
	r->nthread_counts = n;
	for (i = 0; i < n; i++) {
		struct vgl_edge_info *ei = r->nedges ? &r->edges[r->nedges - 1] :
				           NULL;

		r->thread_counts[i].count = raw[i].count;
		r->thread_counts[i].tid = raw[i].owner;
		r->thread_counts[i].reserved = 0;
		if (!ei || ei->callee != raw[i].callee || ei->site != raw[i].site ||
		    ei->callee_mod != raw[i].callee_mod ||
		    ei->site_mod != raw[i].site_mod) {
			ei = &r->edges[r->nedges++];
			ei->callee = raw[i].callee;
			ei->site = raw[i].site;
			ei->count = 0;
			ei->callee_mod = raw[i].callee_mod;
			ei->site_mod = raw[i].site_mod;
			ei->first_thread = i;
			ei->nthreads = 0;
		}
		ei->count = vgl_sat_add(ei->count, raw[i].count);
		ei->nthreads++;
		r->total_calls = vgl_sat_add(r->total_calls, raw[i].count);
	}
	return 0;
}

/* How many distinct tids owners[0 .. n) holds, sorting it to count them. */
static size_t distinct_owners(uint32_t *owners, size_t n)
{
	size_t i, distinct = 0;

	qsort(owners, n, sizeof(*owners), cmp_u32);
	for (i = 0; i < n; i++)
		if (i == 0 || owners[i] != owners[i - 1])
			distinct++;
	return distinct;
}

/*
 * Walks the blocks of the arena twice: once to check them and count the
 * edges, once to copy the edges out.  Then merges the edges, and counts
 * the threads that own blocks.
 */
static int parse_arena(struct vgl_reader *r, const struct vgl_section *sec)
{
	struct arena_walk w = { 0 };
	int err;

	err = arena_extent(r, sec, &w);
	if (err)
		return err;
	err = walk_arena(r, &w, 0);
	if (err)
		return err;
	/* nedges <= used / 32, so these sizes cannot overflow. */
	w.raw = malloc((w.nedges ? w.nedges : 1) * sizeof(*w.raw));
	w.owners = malloc((w.nblocks ? w.nblocks : 1) * sizeof(*w.owners));
	if (!w.raw || !w.owners) {
		err = fail(r, -ENOMEM, "out of memory");
		goto out;
	}
	w.nblocks = 0;
	err = walk_arena(r, &w, 1);
	if (err)
		goto out;
	err = merge_edges(r, w.raw, w.nraw);
	if (err)
		goto out;
	r->nthreads += distinct_owners(w.owners, w.nblocks);
out:
	free(w.raw);
	free(w.owners);
	return err;
}

/* Largest record sizes a reader accepts: far beyond any layout, small
 * enough that sizes times counts stay far from overflow. */
#define MAX_RECORD_SIZE 65536u

struct tid_rec {
	uint32_t tid;
	size_t rec;
};

static int cmp_tid_rec(const void *a, const void *b)
{
	const struct tid_rec *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->rec > y->rec) - (x->rec < y->rec);
}

/* Fills sample_tids and sample_tid_index with one sort of the records by
 * tid: n log n, where a search per record would be records x threads. */
static int index_sample_tids(struct vgl_reader *r)
{
	size_t n = r->nsample_threads, i;
	struct tid_rec *p = malloc((n ? n : 1) * sizeof(*p));

	r->sample_tids = malloc((n ? n : 1) * sizeof(*r->sample_tids));
	r->sample_tid_index = malloc((n ? n : 1) *
				     sizeof(*r->sample_tid_index));
	if (!p || !r->sample_tids || !r->sample_tid_index) {
		free(p);
		return fail(r, -ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++)
		p[i] = (struct tid_rec){ r->sample_threads[i].tid, i };
	qsort(p, n, sizeof(*p), cmp_tid_rec);
	r->nsample_tids = 0;
	for (i = 0; i < n; i++) {
		if (i == 0 || p[i].tid != p[i - 1].tid)
			r->sample_tids[r->nsample_tids++] = p[i].tid;
		r->sample_tid_index[p[i].rec] = r->nsample_tids - 1;
	}
	free(p);
	return 0;
}

/*
 * SAMPLES (see vgl_format.h): walked twice, once to check every record
 * and count the threads, once to copy them out.  Record sizes come from
 * the file: fields beyond the ones this reader knows are skipped.
 */
static int parse_samples(struct vgl_reader *r, const struct vgl_section *sec)
{
	const unsigned char *base = r->data + sec->offset;
	struct vgl_samples h;
	uint64_t at, i, nthreads = 0;
	size_t t = 0;
	int pass;

	if (sec->size < sizeof(h))
		return fail(r, -EINVAL, "SAMPLES section is %llu bytes, needs %zu",
			    (unsigned long long)sec->size, sizeof(h));
	memcpy(&h, base, sizeof(h));
	if (h.sample_size < VGL_SAMPLE_SIZE_V1 || h.sample_size % 8 ||
	    h.sample_size > MAX_RECORD_SIZE)
		return fail(r, -EINVAL, "SAMPLES: bad sample record size %u",
			    h.sample_size);
	if (h.thread_size < sizeof(struct vgl_sample_thread) ||
	    h.thread_size % 8 || h.thread_size > MAX_RECORD_SIZE)
		return fail(r, -EINVAL, "SAMPLES: bad thread record size %u",
			    h.thread_size);
	if (h.count > (sec->size - sizeof(h)) / h.sample_size)
		return fail(r, -EINVAL,
			    "SAMPLES claims %llu samples, more than its %llu bytes hold",
			    (unsigned long long)h.count,
			    (unsigned long long)sec->size);
	for (pass = 0; pass < 2; pass++) {
		for (at = sizeof(h), i = 0; i < h.count; i++) {
			struct vgl_sample s;
			uint64_t k;

			if (!inside(at, h.sample_size, sec->size))
				return fail(r, -EINVAL,
					    "SAMPLES: sample %llu runs past the section (%llu bytes)",
					    (unsigned long long)i,
					    (unsigned long long)sec->size);
			/* A record of an older writer lacks the last
			 * fields: they read as 0 (unknown). */
			memset(&s, 0, sizeof(s));
			memcpy(&s, base + at, h.sample_size < sizeof(s) ?
			       h.sample_size : sizeof(s));
			at += h.sample_size;
			/* nthreads < 2^32 and thread_size <= 2^16: no
			 * overflow in the product. */
			if (!inside(at, (uint64_t)s.nthreads * h.thread_size,
				    sec->size))
				return fail(r, -EINVAL,
					    "SAMPLES: sample %llu claims %u threads, past the section (%llu bytes)",
					    (unsigned long long)i, s.nthreads,
					    (unsigned long long)sec->size);
			if (pass == 0) {
				nthreads += s.nthreads;
				for (k = 0; k < s.nthreads; k++) {
					struct vgl_sample_thread th;

					memcpy(&th, base + at + k * h.thread_size,
					       sizeof(th));
					if (!memchr(th.name, '\0', sizeof(th.name)))
						return fail(r, -EINVAL,
							    "SAMPLES: sample %llu: thread %u's name is not NUL-terminated",
							    (unsigned long long)i,
							    th.tid);
				}
			} else {
				r->samples[i] = s;
				r->sample_first[i] = t;
				for (k = 0; k < s.nthreads; k++)
					memcpy(&r->sample_threads[t++],
					       base + at + k * h.thread_size,
					       sizeof(struct vgl_sample_thread));
			}
			at += (uint64_t)s.nthreads * h.thread_size;
		}
		if (pass == 0) {
			/* Both counts are bounded by the section's size. */
			r->samples = malloc((h.count ? h.count : 1) *
					    sizeof(*r->samples));
			r->sample_first = malloc((h.count ? h.count : 1) *
						 sizeof(*r->sample_first));
			r->sample_threads = malloc((nthreads ? nthreads : 1) *
						   sizeof(*r->sample_threads));
			if (!r->samples || !r->sample_first || !r->sample_threads)
				return fail(r, -ENOMEM, "out of memory");
		}
	}
	r->nsamples = h.count;
	r->nsample_threads = t;
	r->has_samples = 1;
	return index_sample_tids(r);
}

/* STACKS (see vgl_format.h): two passes, like SAMPLES.  Frames must name
 * modules ARENA holds, and the counts must add up to the header's total. */
static int parse_stacks(struct vgl_reader *r, const struct vgl_section *sec)
{
	const unsigned char *base = r->data + sec->offset;
	struct vgl_stacks h;
	uint64_t at, i, nframes = 0, sum = 0;
	size_t f = 0;
	int pass;

	if (sec->size < sizeof(h))
		return fail(r, -EINVAL, "STACKS section is %llu bytes, needs %zu",
			    (unsigned long long)sec->size, sizeof(h));
	memcpy(&h, base, sizeof(h));
	if (h.count > (sec->size - sizeof(h)) /
		      (sizeof(struct vgl_stack) + sizeof(struct vgl_frame)))
		return fail(r, -EINVAL,
			    "STACKS claims %llu stacks, more than its %llu bytes hold",
			    (unsigned long long)h.count,
			    (unsigned long long)sec->size);
	for (pass = 0; pass < 2; pass++) {
		for (at = sizeof(h), i = 0; i < h.count; i++) {
			struct vgl_stack st;
			uint64_t k;

			if (!inside(at, sizeof(st), sec->size))
				return fail(r, -EINVAL,
					    "STACKS: stack %llu runs past the section (%llu bytes)",
					    (unsigned long long)i,
					    (unsigned long long)sec->size);
			memcpy(&st, base + at, sizeof(st));
			at += sizeof(st);
			if (!st.nframes || st.nframes > VGL_STACK_MAX_FRAMES ||
			    !st.count)
				return fail(r, -EINVAL,
					    "STACKS: stack %llu has %u frames and count %llu (1 to %u frames, count 1 or more)",
					    (unsigned long long)i, st.nframes,
					    (unsigned long long)st.count,
					    VGL_STACK_MAX_FRAMES);
			if (!inside(at, (uint64_t)st.nframes *
					sizeof(struct vgl_frame), sec->size))
				return fail(r, -EINVAL,
					    "STACKS: stack %llu's %u frames run past the section (%llu bytes)",
					    (unsigned long long)i, st.nframes,
					    (unsigned long long)sec->size);
			if (pass == 0) {
				for (k = 0; k < st.nframes; k++) {
					struct vgl_frame fr;

					memcpy(&fr, base + at + k * sizeof(fr),
					       sizeof(fr));
					if (fr.module != VGL_NO_MODULE &&
					    !vgl_reader_module(r, fr.module))
						return fail(r, -EINVAL,
							    "STACKS: stack %llu names module %u, which the file does not have",
							    (unsigned long long)i,
							    fr.module);
				}
				nframes += st.nframes;
				sum = vgl_sat_add(sum, st.count);
			} else {
				r->stacks[i].tid = st.tid;
				r->stacks[i].nframes = st.nframes;
				r->stacks[i].count = st.count;
				r->stacks[i].first_frame = f;
				memcpy(&r->frames[f], base + at,
				       st.nframes * sizeof(struct vgl_frame));
				f += st.nframes;
			}
			at += (uint64_t)st.nframes * sizeof(struct vgl_frame);
		}
		if (pass == 0) {
			if (sum != h.samples)
				return fail(r, -EINVAL,
					    "STACKS: the stacks' counts add up to %llu, its header says %llu",
					    (unsigned long long)sum,
					    (unsigned long long)h.samples);
			r->stacks = malloc((h.count ? h.count : 1) *
					   sizeof(*r->stacks));
			r->frames = malloc((nframes ? nframes : 1) *
					   sizeof(*r->frames));
			if (!r->stacks || !r->frames)
				return fail(r, -ENOMEM, "out of memory");
		}
	}
	r->stacks_head = h;
	r->nstacks = h.count;
	r->nframes = f;
	r->has_stacks = 1;
	return 0;
}

/* The optional SAMPLES and STACKS sections, at most one of each. */
static int parse_sampled(struct vgl_reader *r, const struct vgl_header *h,
			 const struct vgl_section *sec)
{
	uint32_t i;
	int samples = -1, stacks = -1, err = 0;

	for (i = 0; i < h->nsections; i++) {
		int *slot = sec[i].kind == VGL_SEC_SAMPLES ? &samples :
			    sec[i].kind == VGL_SEC_STACKS ? &stacks : NULL;

		if (!slot)
			continue;
		if (*slot >= 0)
			return fail(r, -EINVAL, "more than one %s section",
				    slot == &samples ? "SAMPLES" : "STACKS");
		*slot = (int)i;
	}
	if (samples >= 0)
		err = parse_samples(r, &sec[samples]);
	if (!err && stacks >= 0)
		err = parse_stacks(r, &sec[stacks]);
	return err;
}

/*
 * The optional STACK_READINGS section, at most once, beside SAMPLES and
 * STACKS (read before it): every entry names a sample record and a
 * stack the file has, entries are sorted by (reading, stack) with no
 * pair twice, every count is at least 1, and each stack's entries add up
 * to its count, so that the stacks of any readings are a part of the
 * run's, exactly.
 */
static int parse_stack_readings(struct vgl_reader *r,
				const struct vgl_header *h,
				const struct vgl_section *sec)
{
	const struct vgl_section *s = NULL;
	struct vgl_stack_readings rh;
	uint64_t *sum, i;
	uint32_t k;

	for (k = 0; k < h->nsections; k++) {
		if (sec[k].kind != VGL_SEC_STACK_READINGS)
			continue;
		if (s)
			return fail(r, -EINVAL, "more than one STACK_READINGS section");
		s = &sec[k];
	}
	if (!s)
		return 0;
	if (!r->has_samples || !r->has_stacks)
		return fail(r, -EINVAL, "STACK_READINGS without SAMPLES and STACKS");
	if (s->size < sizeof(rh))
		return fail(r, -EINVAL, "STACK_READINGS section is %llu bytes, needs %zu",
			    (unsigned long long)s->size, sizeof(rh));
	memcpy(&rh, r->data + s->offset, sizeof(rh));
	if (rh.count > (s->size - sizeof(rh)) / sizeof(struct vgl_stack_reading))
		return fail(r, -EINVAL,
			    "STACK_READINGS claims %llu entries, more than its %llu bytes hold",
			    (unsigned long long)rh.count,
			    (unsigned long long)s->size);
	/* Both bounded by the section's size and the file's. */
	r->readings = malloc((rh.count ? rh.count : 1) * sizeof(*r->readings));
	sum = calloc(r->nstacks + 1, sizeof(*sum));
	if (!r->readings || !sum) {
		free(sum);
		return fail(r, -ENOMEM, "out of memory");
	}
	memcpy(r->readings, r->data + s->offset + sizeof(rh),
	       rh.count * sizeof(*r->readings));
	for (i = 0; i < rh.count; i++) {
		const struct vgl_stack_reading *e = &r->readings[i], *p = e - 1;
		int err = 0;

		if (e->reading >= r->nsamples)
			err = fail(r, -EINVAL, "STACK_READINGS: entry %llu names reading %u, the file has %zu",
				   (unsigned long long)i, e->reading, r->nsamples);
		else if (e->stack >= r->nstacks)
			err = fail(r, -EINVAL, "STACK_READINGS: entry %llu names stack %u, the file has %zu",
				   (unsigned long long)i, e->stack, r->nstacks);
		else if (i && (e->reading < p->reading ||
			       (e->reading == p->reading && e->stack <= p->stack)))
			err = fail(r, -EINVAL, "STACK_READINGS: entry %llu (reading %u, stack %u) does not come after the one before it (reading %u, stack %u)",
				   (unsigned long long)i, e->reading, e->stack,
				   p->reading, p->stack);
		else if (!e->count)
			err = fail(r, -EINVAL, "STACK_READINGS: entry %llu has count 0",
				   (unsigned long long)i);
		if (err) {
			free(sum);
			return err;
		}
		sum[e->stack] = vgl_sat_add(sum[e->stack], e->count);
	}
	for (i = 0; i < r->nstacks; i++)
		if (sum[i] != r->stacks[i].count) {
			uint64_t got = sum[i];

			free(sum);
			return fail(r, -EINVAL, "STACK_READINGS: stack %llu's readings add up to %llu, its count is %llu",
				    (unsigned long long)i,
				    (unsigned long long)got,
				    (unsigned long long)r->stacks[i].count);
		}
	free(sum);
	r->nreadings = rh.count;
	r->has_readings = 1;
	return 0;
}

/* The optional PROCESSES section, at most once: its header and entries
 * inside it, each state known, the entries adding up to its count. */
static int parse_processes(struct vgl_reader *r, const struct vgl_header *h,
			   const struct vgl_section *sec)
{
	const struct vgl_section *s = NULL;
	struct vgl_processes ph;
	uint64_t sum = 0;
	uint32_t i;

	for (i = 0; i < h->nsections; i++) {
		if (sec[i].kind != VGL_SEC_PROCESSES)
			continue;
		if (s)
			return fail(r, -EINVAL, "more than one PROCESSES section");
		s = &sec[i];
	}
	if (!s)
		return 0;
	if (s->size < sizeof(ph))
		return fail(r, -EINVAL, "PROCESSES section is %llu bytes, less than its header",
			    (unsigned long long)s->size);
	memcpy(&ph, r->data + s->offset, sizeof(ph));
	if (ph.nendings > (s->size - sizeof(ph)) / sizeof(struct vgl_ending))
		return fail(r, -EINVAL, "PROCESSES: %u endings do not fit in the section (%llu bytes)",
			    ph.nendings, (unsigned long long)s->size);
	r->endings = malloc((ph.nendings ? ph.nendings : 1) *
			    sizeof(*r->endings));
	if (!r->endings)
		return fail(r, -ENOMEM, "out of memory");
	memcpy(r->endings, r->data + s->offset + sizeof(ph),
	       ph.nendings * sizeof(*r->endings));
	for (i = 0; i < ph.nendings; i++) {
		const struct vgl_ending *e = &r->endings[i];

		if (e->state < VGL_STATE_RUNNING || e->state > VGL_STATE_CUT_SHORT)
			return fail(r, -EINVAL, "PROCESSES: ending %u has unknown state %u",
				    i, e->state);
		sum = vgl_sat_add(sum, e->processes);
	}
	if (sum != ph.processes)
		return fail(r, -EINVAL, "PROCESSES: endings hold %llu processes, the header says %llu",
			    (unsigned long long)sum,
			    (unsigned long long)ph.processes);
	r->nendings = ph.nendings;
	r->processes = ph.processes;
	r->has_processes = 1;
	return 0;
}

static int parse(struct vgl_reader *r)
{
	struct vgl_header h;
	struct vgl_section sec[VGL_MAX_SECTIONS];
	int meta, strs, arena, err;

	err = check_header(r, &h);
	if (!err)
		err = check_sections(r, &h, sec, &meta, &strs, &arena);
	if (!err)
		err = parse_meta(r, &sec[meta], &sec[strs]);
	if (!err)
		err = parse_arena(r, &sec[arena]);
	if (!err)
		err = parse_sampled(r, &h, sec);
	if (!err)
		err = parse_stack_readings(r, &h, sec);
	if (!err)
		err = parse_processes(r, &h, sec);
	if (err)
		return err;
	r->liveness = (enum vgl_liveness)r->meta.state;
	r->lock_pid = r->liveness == VGL_LIVENESS_RUNNING ?
		      (pid_t)r->meta.pid : 0;
	return 0;
}

/* Frees what was read, keeping the name. */
static void reset_data(struct vgl_reader *r)
{
	char *name = r->name;
	unsigned flags = r->flags;

	r->name = NULL;
	free(r->data);
	free(r->argv);
	free(r->modules);
	free(r->edges);
	free(r->thread_counts);
	free(r->samples);
	free(r->sample_threads);
	free(r->sample_first);
	free(r->sample_tids);
	free(r->sample_tid_index);
	free(r->stacks);
	free(r->frames);
	free(r->endings);
	free(r->readings);
	memset(r, 0, offsetof(struct vgl_reader, flags));
	r->name = name;
	r->flags = flags;
}

static void reset(struct vgl_reader *r)
{
	free(r->name);
	r->name = NULL;
	reset_data(r);
}

static int set_name(struct vgl_reader *r, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->name = strdup(name ? name : "<buffer>");
	if (!r->name)
		return fail(r, -ENOMEM, "out of memory");
	return 0;
}

int vgl_reader_parse(struct vgl_reader *r, const void *buf, size_t size,
		     const char *name)
{
	int err = set_name(r, name);

	if (err)
		return err;
	/* One spare byte so an empty buffer still gets a real allocation. */
	r->data = malloc(size + 1);
	if (!r->data) {
		err = fail(r, -ENOMEM, "out of memory");
		goto out;
	}
	if (size)
		memcpy(r->data, buf, size);
	r->size = size;
	err = parse(r);
out:
	if (err)
		reset(r);
	return err;
}

/*
 * Does any thread of process pid map the file (dev, ino)?  Reads
 * /proc/PID/task/TID/maps: a process whose main thread has called
 * pthread_exit shows no mappings under /proc/PID/maps while its other
 * threads run.  Returns 1, 0, or a negative errno when it cannot tell.
 */
static int maps_file(uint64_t pid, uint64_t dev, uint64_t ino)
{
	char path[96];
	struct dirent *d;
	DIR *dir;
	int found = 0, readable = 0, err = -ENOENT;

	vgl_proc_path(path, pid, "task");
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while (!found && (d = readdir(dir))) {
		struct vgl_maps maps;
		struct vgl_map m;
		char mp[400];
		int fd, e;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(mp, sizeof(mp), "%s/%s/maps", path, d->d_name);
		fd = open(mp, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			continue;
		}
		/* lib/maps.c: the one reader of the maps files. */
		e = vgl_maps_read_fd(&maps, fd);
		close(fd);
		if (e) {
			err = e == -ENOMEM ? e : -EIO;
			continue;
		}
		if (maps.len)
			readable = 1;
		while (vgl_maps_next(&maps, &m))
			if (m.inode == ino && m.dev == dev) {
				found = 1;
				break;
			}
		vgl_maps_close(&maps);
	}
	closedir(dir);
	if (found)
		return 1;
	return readable || err == -ENOENT ? 0 : err;
}

/* Is the writer META names, by its pid, a process of this namespace
 * still mapping the file (dev, ino)?  1, 0 or a negative errno. */
static int pid_alive(const struct vgl_meta *m, uint64_t dev, uint64_t ino)
{
	static const uint8_t zero[VGL_BOOT_ID_LEN];
	uint8_t boot[VGL_BOOT_ID_LEN];
	uint64_t start;
	char state;
	int ret;

	if (!m->pid)
		return -EINVAL;
	/* No such pid is the common answer (a merge of a build's profiles),
	 * and needs no look at the boot id. */
	ret = vgl_proc_stat(m->pid, &start, &state);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	if (memcmp(m->boot_id, zero, sizeof(zero)) && vgl_boot_id(boot) == 0 &&
	    memcmp(boot, m->boot_id, sizeof(boot)))
		return 0; /* written before this boot */
	if (m->proc_start && start != m->proc_start)
		return 0; /* the pid was given to another process */
	/* Alive, or a zombie, or a main thread that ended before the rest:
	 * the mapping says which.  An exec unmaps it too. */
	ret = maps_file(m->pid, dev, ino);
	if (ret < 0)
		return state == 'Z' ? 0 : 1; /* cannot read its maps */
	return ret;
}

int vgl_writer_alive(const struct vgl_meta *m, int fd)
{
	struct stat st;
	int here;

	if (fstat(fd, &st) < 0)
		return -errno;
	here = pid_alive(m, (uint64_t)st.st_dev, (uint64_t)st.st_ino);
	/* The lock is held for the writer's life whatever its pid means
	 * here; without it (a file system without such locks, a writer
	 * from before them), the pid check is all there is. */
	if (vgl_live_locked(fd) == 1)
		return here == 0 ? 2 : 1;
	return here;
}

/*
 * Appends bytes [r->size, want) of fd to r->data (which has room for
 * want), stopping early at the end of the file.
 */
static int read_upto(struct vgl_reader *r, int fd, size_t want)
{
	while (r->size < want) {
		ssize_t n = pread(fd, r->data + r->size, want - r->size,
				  (off_t)r->size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail(r, -errno, "read: %s", strerror(errno));
		if (n == 0)
			break;
		r->size += (size_t)n;
	}
	return 0;
}

/* Grows r->data to room for want bytes. */
static int make_room(struct vgl_reader *r, size_t want)
{
	unsigned char *grown = realloc(r->data, want + 1);

	if (!grown)
		return fail(r, -ENOMEM, "out of memory");
	r->data = grown;
	return 0;
}

/*
 * Reads what the header says the file holds, and no more: first the
 * header, then the section table, then every byte up to the end of the
 * last section (for ARENA, of its bytes in use).  A foreign or corrupt
 * file is thus told from its first bytes, however large it is; a sparse
 * file of 2 GB costs a read of 32 bytes.  Whenever the header or table is
 * not what this reader can use, it stops and leaves the bytes it has to
 * parse(), which says what is wrong; a section that claims more than the
 * file has gets the whole file, so errors name the file's real size.
 */
static int read_needed(struct vgl_reader *r, int fd)
{
	struct vgl_header h;
	struct vgl_section sec;
	struct vgl_arena a;
	struct stat st;
	uint64_t extent, want, arena_at = 0, arena_used = 0;
	uint32_t i;
	int err;

	if (fstat(fd, &st) < 0)
		return fail(r, -errno, "%s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return fail(r, -EISDIR, "is a directory");
	if (!S_ISREG(st.st_mode))
		return fail(r, -EINVAL, "not a regular file");
	err = make_room(r, sizeof(h));
	if (!err)
		err = read_upto(r, fd, sizeof(h));
	if (err || r->size < sizeof(h))
		return err;
	memcpy(&h, r->data, sizeof(h));
	want = sizeof(h) + (uint64_t)h.nsections * sizeof(sec);
	if (memcmp(h.magic, VGL_MAGIC, VGL_MAGIC_LEN) ||
	    h.byte_order != VGL_BYTE_ORDER || h.version != VGL_VERSION ||
	    h.nsections > VGL_MAX_SECTIONS || h.header_size != want)
		return 0;
	err = make_room(r, want);
	if (!err)
		err = read_upto(r, fd, want);
	if (err || r->size < want)
		return err;

	extent = want;
	for (i = 0; i < h.nsections; i++) {
		uint64_t end;

		memcpy(&sec, r->data + sizeof(h) + (size_t)i * sizeof(sec),
		       sizeof(sec));
		end = inside(sec.offset, sec.size, UINT64_MAX) ?
		      sec.offset + sec.size : UINT64_MAX;
		/* A live writer reserves ARENA ahead of what it wrote: read
		 * its header, then only the bytes it says are in use. */
		if (sec.kind == VGL_SEC_ARENA &&
		    pread(fd, &a, sizeof(a), (off_t)sec.offset) == sizeof(a) &&
		    a.used >= sizeof(a) && a.used < sec.size) {
			end = sec.offset + a.used;
			arena_at = sec.offset;
			arena_used = a.used;
		}
		if (end > extent)
			extent = end;
	}
	/*
	 * Sizes are taken after ARENA's used count was read: the writer
	 * grows the file before it counts a block in, so every block counted
	 * is inside this size.  Past the end, parse() reports the
	 * truncation.
	 */
	if (fstat(fd, &st) < 0)
		return fail(r, -errno, "%s", strerror(errno));
	if ((uint64_t)st.st_size < extent)
		extent = (uint64_t)st.st_size;
	if (extent > MAX_FILE_SIZE)
		return fail(r, -EFBIG, "too large for a profile (%llu bytes)",
			    (unsigned long long)extent);
	err = make_room(r, (size_t)extent);
	if (!err)
		err = read_upto(r, fd, (size_t)extent);
	/*
	 * The copy holds ARENA's used count as it was when read, which a
	 * live writer may have advanced since the look above: past the bytes
	 * read, the blocks it counted in meanwhile would be a truncation.
	 * The copy is what was counted at the look (attach --scan counts
	 * read 1 file in 76 so, at 1 ms, beside a program starting threads).
	 */
	if (!err && arena_used &&
	    arena_at + sizeof(a) <= r->size) {
		memcpy(&a, r->data + arena_at, sizeof(a));
		if (a.used > arena_used) {
			a.used = arena_used;
			memcpy(r->data + arena_at, &a, sizeof(a));
		}
	}
	return err;
}

/* Opens path without blocking (a FIFO would: anything but a regular file
 * is refused by read_needed()) and reads what its header says it holds.
 * The descriptor is left in *fdp (closing one there first), for the
 * liveness to look at the very file read. */
static int load(struct vgl_reader *r, const char *path, int *fdp)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), err;

	if (*fdp >= 0)
		close(*fdp);
	*fdp = fd;
	if (fd < 0)
		return fail(r, -errno, "%s", strerror(errno));
	if (fstat(fd, &st) < 0)
		return fail(r, -errno, "%s", strerror(errno));
	err = read_needed(r, fd);
	if (!err)
		err = parse(r);
	return err;
}

/*
 * The liveness of a live file (see vgl_format.h): final only once its
 * writer is gone.  A writer that finishes while we look is seen as
 * finished, not cut short: the state is read again after the writer was
 * found gone, and the file with it.
 */
static int settle(struct vgl_reader *r, const char *path, int *fdp)
{
	int alive, again = 0, err;

	for (;;) {
		if (r->meta.kind != VGL_KIND_LIVE ||
		    (r->meta.state != VGL_STATE_RUNNING &&
		     r->meta.state != VGL_STATE_FINISHED))
			return 0;
		alive = vgl_writer_alive(&r->meta, *fdp);
		if (alive < 0)
			return fail(r, alive, "cannot tell whether its writer "
				    "(pid %llu) runs: %s",
				    (unsigned long long)r->meta.pid,
				    strerror(-alive));
		if (alive) {
			r->liveness = r->meta.state == VGL_STATE_RUNNING
					      ? VGL_LIVENESS_RUNNING
					      : VGL_LIVENESS_EXITING;
			r->lock_pid = (pid_t)r->meta.pid;
			r->writer_elsewhere = alive == 2;
			return 0;
		}
		if (r->meta.state == VGL_STATE_FINISHED || again) {
			r->liveness = r->meta.state == VGL_STATE_FINISHED
					      ? VGL_LIVENESS_FINISHED
					      : VGL_LIVENESS_CUT_SHORT;
			r->lock_pid = 0;
			return 0;
		}
		/* RUNNING and gone: read it all again, once. */
		again = 1;
		reset_data(r);
		err = load(r, path, fdp);
		if (err)
			return err;
	}
}

int vgl_reader_open(struct vgl_reader *r, const char *path)
{
	return vgl_reader_open_flags(r, path, 0);
}

int vgl_reader_open_flags(struct vgl_reader *r, const char *path,
			  unsigned flags)
{
	int err, fd = -1;

	err = set_name(r, path);
	if (err)
		return err;
	r->flags = flags;
	err = load(r, path, &fd);
	if (!err)
		err = settle(r, path, &fd);
	if (fd >= 0)
		close(fd);
	if (err)
		reset(r);
	return err;
}

void vgl_reader_close(struct vgl_reader *r)
{
	reset(r);
}

const struct vgl_module_info *vgl_reader_module(const struct vgl_reader *r,
						uint32_t id)
{
	size_t i;

	/* Ids are given in load order from 0, so try the obvious slot. */
	if (id < r->nmodules && r->modules[id].id == id)
		return &r->modules[id];
	for (i = 0; i < r->nmodules; i++)
		if (r->modules[i].id == id)
			return &r->modules[i];
	return NULL;
}

const char *vgl_liveness_name(enum vgl_liveness l)
{
	switch (l) {
	case VGL_LIVENESS_RUNNING:
		return "running";
	case VGL_LIVENESS_FINISHED:
		return "finished";
	case VGL_LIVENESS_CUT_SHORT:
		return "cut short";
	case VGL_LIVENESS_EXITING:
		return "exiting";
	}
	return "unknown";
}

const char *vgl_kind_name(uint32_t kind)
{
	switch (kind) {
	case VGL_KIND_LIVE:
		return "live";
	case VGL_KIND_WINDOW:
		return "window";
	case VGL_KIND_MERGED:
		return "merged";
	case VGL_KIND_SAMPLED:
		return "sampled";
	}
	return "unknown";
}

uint32_t vgl_reader_modes(const struct vgl_reader *r)
{
	uint32_t m = r->meta.flags & VGL_META_MODES;

	if (!m && r->nedges)
		m = VGL_META_MODE_ENTER;
	return m;
}

const char *vgl_mode_name(uint32_t modes)
{
	switch (modes & VGL_META_MODES) {
	case VGL_META_MODE_ENTRY:
		return "entry";
	case VGL_META_MODE_ENTER:
		return "enter-exit";
	case VGL_META_MODES:
		return "mixed";
	}
	return NULL;
}

/* What a pid that this pid namespace does not know means: the writer
 * holds its lock, and its pid is another namespace's or host's. */
#define ELSEWHERE ", in another pid namespace or on another host"

const char *vgl_reader_state(const struct vgl_reader *r, char *buf,
			     size_t len)
{
	switch (r->liveness) {
	case VGL_LIVENESS_RUNNING:
		snprintf(buf, len, "running (pid %lld%s)", (long long)r->lock_pid,
			 r->writer_elsewhere ? ELSEWHERE : "");
		break;
	case VGL_LIVENESS_EXITING:
		snprintf(buf, len, "exiting (exit %d; pid %lld%s still running "
			 "its exit handlers)", r->meta.exit_status,
			 (long long)r->lock_pid,
			 r->writer_elsewhere ? ELSEWHERE "," : "");
		break;
	case VGL_LIVENESS_FINISHED:
		if ((r->meta.flags & VGL_META_SWITCHED) &&
		    r->meta.kind == VGL_KIND_SAMPLED)
			snprintf(buf, len, "finished (exec'd another program)");
		else if (r->meta.flags & VGL_META_SWITCHED)
			snprintf(buf, len, "finished (switched to another file)");
		else if (r->meta.kind == VGL_KIND_SAMPLED &&
			 (r->meta.flags & VGL_META_DETACHED))
			snprintf(buf, len, "finished (sampler stopped; the process ran on)");
		else
			snprintf(buf, len, "finished (exit %d)",
				 r->meta.exit_status);
		break;
	default:
		snprintf(buf, len, "%s", vgl_liveness_name(r->liveness));
		break;
	}
	return buf;
}
