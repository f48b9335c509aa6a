/*
 * vgl_writer.c - see vgl_writer.h.
 *
 * Layout: the header and a table of three sections (META, STRINGS,
 * ARENA), then the sections in that order, each 8-byte aligned.  The
 * arena holds every MODULE block, then every EDGES block, each filled to
 * its capacity (count == capacity), so its `used` is its size.  Sections
 * laid out elsewhere (SAMPLES, STACKS) follow ARENA as given.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32.h"
#include "outfile.h"
#include "vgl_writer.h"

#define NSECTIONS 3   /* META, STRINGS, ARENA; then w->nextra */

static size_t str_size(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

/* A MODULE block's payload: the module, its path, its file identity. */
static size_t module_size(const struct vgl_writer_module *m)
{
	size_t n = VGL_ALIGN(sizeof(struct vgl_module) + strlen(m->path) + 1);

	return m->file ? n + sizeof(*m->file) : n;
}

/* The bytes of STRINGS and of ARENA that w needs; -EINVAL for what the
 * format cannot hold. */
static int measure(const struct vgl_writer *w, size_t *strings,
		   size_t *arena_size)
{
	size_t i;

	if (w->nextra > VGL_MAX_SECTIONS - NSECTIONS)
		return -EINVAL;
	for (i = 0; i < w->nextra; i++)
		if (w->extra[i].kind >= VGL_SEC_META &&
		    w->extra[i].kind <= VGL_SEC_ARENA)
			return -EINVAL;
	*strings = str_size(w->exe) + str_size(w->host);
	for (i = 0; i < w->argc; i++)
		*strings += strlen(w->argv[i]) + 1;
	if (*strings > UINT32_MAX - 8)
		return -EINVAL;
	*arena_size = sizeof(struct vgl_arena);
	for (i = 0; i < w->nmodules; i++) {
		const struct vgl_writer_module *m = &w->modules[i];

		if (m->build_id_len > VGL_BUILD_ID_MAX || m->id == VGL_NO_MODULE ||
		    strlen(m->path) > UINT32_MAX - 1)
			return -EINVAL;
		*arena_size += sizeof(struct vgl_block) + module_size(m);
	}
	for (i = 0; i < w->nblocks; i++)
		*arena_size += sizeof(struct vgl_block) +
			       w->blocks[i].nedges * sizeof(struct vgl_edge);
	return 0;
}

/* The header, but for its checksum, and the section table, laid out as
 * the top of this file says; returns the size of the file. */
static size_t lay_out(const struct vgl_writer *w, size_t strings,
		      size_t arena_size, struct vgl_header *h,
		      struct vgl_section *sec)
{
	size_t nsec = NSECTIONS + w->nextra, off, i;

	memset(h, 0, sizeof(*h));
	memcpy(h->magic, VGL_MAGIC, VGL_MAGIC_LEN);
	h->version = VGL_VERSION;
	h->byte_order = VGL_BYTE_ORDER;
	h->nsections = (uint32_t)nsec;
	h->header_size = (uint32_t)(sizeof(*h) +
				    nsec * sizeof(struct vgl_section));
	off = VGL_ALIGN(h->header_size);
	memset(sec, 0, VGL_MAX_SECTIONS * sizeof(*sec));
	sec[0].kind = VGL_SEC_META;
	sec[0].offset = off;
	sec[0].size = sizeof(struct vgl_meta);
	off += VGL_ALIGN(sizeof(struct vgl_meta));
	sec[1].kind = VGL_SEC_STRINGS;
	sec[1].offset = off;
	sec[1].size = VGL_ALIGN(strings);
	off += VGL_ALIGN(strings);
	sec[2].kind = VGL_SEC_ARENA;
	sec[2].offset = off;
	sec[2].size = arena_size;
	off += arena_size;
	for (i = 0; i < w->nextra; i++) {
		off = VGL_ALIGN(off);
		sec[NSECTIONS + i].kind = w->extra[i].kind;
		sec[NSECTIONS + i].offset = off;
		sec[NSECTIONS + i].size = w->extra[i].size;
		off += w->extra[i].size;
	}
	return VGL_ALIGN(off);
}

/* STRINGS at s, and META's offsets into it. */
static void write_strings(const struct vgl_writer *w, unsigned char *s,
			  struct vgl_meta *meta)
{
	size_t at = 0, i;

	meta->exe = meta->host = meta->cmdline = VGL_NO_STRING;
	meta->cmdline_len = 0;
	if (w->exe) {
		meta->exe = (uint32_t)at;
		memcpy(s + at, w->exe, str_size(w->exe));
		at += str_size(w->exe);
	}
	if (w->host) {
		meta->host = (uint32_t)at;
		memcpy(s + at, w->host, str_size(w->host));
		at += str_size(w->host);
	}
	if (w->argc) {
		meta->cmdline = (uint32_t)at;
		for (i = 0; i < w->argc; i++) {
			size_t n = strlen(w->argv[i]) + 1;

			memcpy(s + at, w->argv[i], n);
			at += n;
		}
		meta->cmdline_len = (uint32_t)(at - meta->cmdline);
	}
}

/* m's MODULE block at p; returns its size. */
static size_t write_module(const struct vgl_writer_module *m,
			   unsigned char *p)
{
	size_t plen = strlen(m->path);
	struct vgl_block blk = { VGL_BLOCK_MODULE, 0, 0, 1, 0 };
	struct vgl_module mod;

	blk.size = sizeof(blk) + module_size(m);
	memset(&mod, 0, sizeof(mod));
	mod.id = m->id;
	mod.build_id_len = m->build_id_len;
	mod.bias = m->bias;
	mod.lo = m->lo;
	mod.hi = m->hi;
	if (m->build_id_len)
		memcpy(mod.build_id, m->build_id, m->build_id_len);
	mod.path_len = (uint32_t)plen;
	mod.flags = m->file ? VGL_MODULE_FILE : 0;
	memcpy(p, &blk, sizeof(blk));
	memcpy(p + sizeof(blk), &mod, sizeof(mod));
	memcpy(p + sizeof(blk) + sizeof(mod), m->path, plen + 1);
	if (m->file)
		memcpy(p + sizeof(blk) + VGL_ALIGN(sizeof(mod) + plen + 1),
		       m->file, sizeof(*m->file));
	return blk.size;
}

/* wb's EDGES block at p, filled to its capacity; returns its size. */
static size_t write_edges(const struct vgl_writer_block *wb, unsigned char *p)
{
	struct vgl_block blk = { VGL_BLOCK_EDGES, wb->owner, 0, wb->nedges, 0 };

	blk.size = sizeof(blk) + wb->nedges * sizeof(struct vgl_edge);
	memcpy(p, &blk, sizeof(blk));
	if (wb->nedges)
		memcpy(p + sizeof(blk), wb->edges,
		       wb->nedges * sizeof(struct vgl_edge));
	return blk.size;
}

/* ARENA at p: its header, every MODULE block, then every EDGES block. */
static void write_arena(const struct vgl_writer *w, unsigned char *p,
			size_t arena_size)
{
	struct vgl_arena arena;
	size_t i;

	memset(&arena, 0, sizeof(arena));
	arena.used = arena_size;
	memcpy(p, &arena, sizeof(arena));
	p += sizeof(arena);
	for (i = 0; i < w->nmodules; i++)
		p += write_module(&w->modules[i], p);
	for (i = 0; i < w->nblocks; i++)
		p += write_edges(&w->blocks[i], p);
}

int vgl_writer_buffer(const struct vgl_writer *w, unsigned char **buf,
		      size_t *len)
{
	struct vgl_header h;
	struct vgl_section sec[VGL_MAX_SECTIONS];
	struct vgl_meta meta = w->meta;
	size_t strings, arena_size, size, i;
	unsigned char *b;
	int err;

	*buf = NULL;
	*len = 0;
	err = measure(w, &strings, &arena_size);
	if (err)
		return err;
	size = lay_out(w, strings, arena_size, &h, sec);
	b = calloc(1, size);
	if (!b)
		return -ENOMEM;
	memcpy(b + sizeof(h), sec, h.nsections * sizeof(struct vgl_section));
	for (i = 0; i < w->nextra; i++)
		if (w->extra[i].size)
			memcpy(b + sec[NSECTIONS + i].offset, w->extra[i].data,
			       w->extra[i].size);
	write_strings(w, b + sec[1].offset, &meta);
	memcpy(b + sec[0].offset, &meta, sizeof(meta));
	write_arena(w, b + sec[2].offset, arena_size);

	/* The checksum covers header and table, its own field as zero. */
	memcpy(b, &h, sizeof(h));
	h.checksum = vgl_crc32(0, b, h.header_size);
	memcpy(b, &h, sizeof(h));
	*buf = b;
	*len = size;
	return 0;
}

int vgl_writer_file(const struct vgl_writer *w, const char *path)
{
	struct outfile o;
	unsigned char *buf;
	size_t len;
	int err;

	err = vgl_writer_buffer(w, &buf, &len);
	if (err)
		return err;
	err = outfile_open(&o, path);
	if (!err) {
		int ok = fwrite(buf, 1, len, o.f) == len;

		err = outfile_close(&o, ok);
		if (!ok && !err)
			err = -EIO;
	}
	free(buf);
	return err;
}
