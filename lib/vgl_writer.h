/*
 * vgl_writer.h - write a whole .vgl profile (see vgl_format.h) in one go:
 * the one place, beside the one reader, that lays the format out for
 * files written whole (merged profiles, converters, test corpora).
 *
 * The live runtime writes its file incrementally through a shared mapping
 * and keeps its own code for that (it may use only what a static binary
 * has); a file written here reads back identically with vgl_reader.
 */
#ifndef VGL_WRITER_H
#define VGL_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "vgl_format.h"

struct vgl_writer_module {
	uint32_t id;                /* not VGL_NO_MODULE; distinct */
	uint64_t bias, lo, hi;
	const uint8_t *build_id;    /* build_id_len bytes, at most
	                             * VGL_BUILD_ID_MAX */
	uint32_t build_id_len;
	const char *path;
	const struct vgl_module_file *file;   /* NULL: none recorded */
};

/* One EDGES block: the edges one thread (owner) counted. */
struct vgl_writer_block {
	uint32_t owner;
	const struct vgl_edge *edges;
	size_t nedges;
};

/* A section laid out by someone else (vgl_sampled.h): written as is,
 * after ARENA, 8-byte aligned. */
struct vgl_writer_section {
	uint32_t kind;              /* not META, STRINGS or ARENA */
	const void *data;
	size_t size;
};

struct vgl_writer {
	/* Written as given, but for exe, host, cmdline and cmdline_len,
	 * which come from the strings below. */
	struct vgl_meta meta;
	const char *exe;            /* NULL: none */
	const char *host;
	const char *const *argv;
	size_t argc;
	const struct vgl_writer_module *modules;
	size_t nmodules;
	const struct vgl_writer_block *blocks;
	size_t nblocks;
	const struct vgl_writer_section *extra;   /* optional */
	size_t nextra;              /* at most VGL_MAX_SECTIONS - 3 */
};

/*
 * Lays the profile out in a new buffer (*buf, *len; the caller frees
 * *buf).  Returns 0, -EINVAL for a module the format cannot hold (build-id
 * too long, reserved id), or -ENOMEM.
 */
int vgl_writer_buffer(const struct vgl_writer *w, unsigned char **buf,
		      size_t *len);

/*
 * Writes the profile to path by outfile.h's rule: a regular file (or
 * nothing) is replaced through a temporary file in the same directory,
 * renamed over path only when complete, so no reader ever sees a partial
 * file; a FIFO or a character device is written into; anything else is
 * refused.  Returns 0 or a negative errno (see outfile_strerror); nothing
 * is left behind on failure.
 */
int vgl_writer_file(const struct vgl_writer *w, const char *path);

#endif
