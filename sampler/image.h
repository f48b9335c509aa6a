/*
 * image.h - the one owner of what a live process has mapped: its exe and
 * its mappings, read together (one read of /proc/PID/maps per refresh),
 * with the rules for when to read them again (a dlopen, an exec) and the
 * identity of each module (its build-id, its load bias, whether it is
 * code at all), probed once per file mapped.  The unwinder, the namer
 * and the sampled-file writer all ask it; before it, each read the maps
 * on its own terms, up to five times per refresh.
 *
 * A read is a view, kept until the next read replaces it; one view more
 * is kept for the image before the latest exec, whose stacks are named
 * and unwound against it.  A view is only valid until the next call that
 * may read (proc_image_now, _at, _refresh): callers keep the view's seq,
 * not its address, to know their own caches stale.  Not thread-safe:
 * every caller runs on the process's sampler thread, or after it ended.
 */
#ifndef VIGIL_SAMPLER_IMAGE_H
#define VIGIL_SAMPLER_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vgl_format.h"

struct vgl_symbolizer;

/* One mapping, in the kernel's (address) order. */
struct image_map {
	uint64_t lo, hi;       /* [lo, hi) */
	uint64_t offset;
	char perms[5];
	long mod;              /* index in the view's mods; -1: none (anonymous
	                        * memory, the heap, the stack) */
};

/* One file mapped (or the vDSO), from its first mapping on. */
struct image_module {
	char *path;            /* as the kernel prints it; VGL_VDSO_PATH */
	uint64_t lo, hi;       /* its lowest and highest address */
	uint64_t first_lo, first_hi;   /* its first mapping */
	uint64_t dev, inode;
	int has_base;          /* a mapping of file offset 0, at base */
	uint64_t base;
	/* Filled by image_module_probe, and carried over to later reads
	 * while the file is the same (path, device, inode, first mapping). */
	int probed;
	int data;              /* not ELF: a file of data (the locale, the
	                        * runtime's profile); never code */
	int bias_ok;           /* bias read from its ELF headers */
	uint64_t bias;
	uint8_t build_id[VGL_BUILD_ID_MAX];
	uint32_t build_id_len;
};

struct image_view {
	uint64_t seq;          /* this read's number, from 1 */
	uint64_t gen;          /* execs seen before this read */
	uint64_t read_ns;      /* CLOCK_MONOTONIC */
	char *exe;             /* /proc/PID/exe; NULL: unreadable */
	int exe_moved;         /* the exe changed while the maps were read,
	                        * three times in a row: they may mix two
	                        * images */
	char *text;            /* the maps as read, for libdwfl */
	size_t len;
	struct image_map *maps;
	size_t nmaps;
	struct image_module *mods;
	size_t nmods;
	/* The symbolizer of its ELF modules, built on first need
	 * (image_view_symbolizer); sym_of[i] is module i's index in it, or
	 * SIZE_MAX. */
	struct vgl_symbolizer *sym;
	size_t *sym_of;
	int sym_tried;
};

struct proc_image;

struct proc_image *proc_image_open(pid_t pid);
void proc_image_close(struct proc_image *img);
pid_t proc_image_pid(const struct proc_image *img);

/* The view to use now, read first if there is none, if it was forgotten,
 * or if new code was mapped since (proc_image_mapped) and the last read
 * is 50 ms old; not while held.  NULL: the process could never be read. */
const struct image_view *proc_image_now(struct proc_image *img);

/* As proc_image_now, and read again first when addr lies in no executable
 * mapping of the view and the last read is 100 ms old: a dlopen no record
 * told of yet (at most ten reads a second for junk addresses). */
const struct image_view *proc_image_at(struct proc_image *img, uint64_t addr);

/* Reads now, unless held: new code was mapped and its names are wanted
 * while the process lives. */
const struct image_view *proc_image_refresh(struct proc_image *img);

/* Whether the latest read found the process (else the view is an older
 * one's, which stands for an ended process). */
int proc_image_fresh(const struct proc_image *img);

/* New code mapped (an mmap record among the samples). */
void proc_image_mapped(struct proc_image *img);

/* The exe changed: read again at the next use. */
void proc_image_forget(struct proc_image *img);

/* An exec, seen among the samples: the image before it is proc_image_old
 * from now on, and the next use reads the new one.  One exec seen twice
 * (first by a read that found a new exe, then by its record) counts
 * once. */
void proc_image_exec(struct proc_image *img);

/* While hold is set (the samples taken before an exec are unwound), no
 * read, and proc_image_now answers with the image before the exec. */
void proc_image_hold(struct proc_image *img, int hold);

/* The view of the image before the latest exec, or NULL. */
const struct image_view *proc_image_old(const struct proc_image *img);

/* Whether addr lies in an executable mapping of v. */
int image_view_in_x(const struct image_view *v, uint64_t addr);

/* The mapping of v that holds addr, or NULL. */
const struct image_map *image_view_map_at(const struct image_view *v,
					  uint64_t addr);

/* Reads module i's identity (build-id, bias, whether ELF) if no earlier
 * read of the same file did. */
void image_module_probe(struct proc_image *img, const struct image_view *v,
			size_t i);

/* The symbolizer of v's ELF modules (those with a mapping of offset 0);
 * NULL when none could be read. */
struct vgl_symbolizer *image_view_symbolizer(struct proc_image *img,
					     const struct image_view *v);

#endif
