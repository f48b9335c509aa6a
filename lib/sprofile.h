/*
 * sprofile.h - the model of a sampled profile (the STACKS of `vigil attach
 * -o`), as every reader of one needs it: the functions its frames fall
 * in, with self and total samples, and its distinct call chains of
 * functions, root first, with their sample counts.  The counting model
 * (profile.h) is the other half; both describe a function the same way
 * (struct vgl_pfunc), so the writers of views/out-*.c name, place and label
 * functions alike for both.
 *
 * A function is identified by its module and the ELF address of its first
 * byte.  Frame 0 of a stack is where the thread was and is looked up as
 * is; the others are return addresses, looked up at addr - 1 (the call
 * instruction, which may be the last of its function).
 *
 * Built in O(F log F) for F frames: each frame is symbolized once, then
 * the functions are sorted once and every frame found by binary search.
 */
#ifndef VGL_SPROFILE_H
#define VGL_SPROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"
#include "symbolizer.h"
#include "vgl_reader.h"

/* One distinct chain of functions (threads added up). */
struct vgl_sstack {
	size_t first;           /* its functions: chain[first .. first +
	                         * depth), outermost first */
	uint32_t depth;         /* 1 .. VGL_STACK_MAX_FRAMES */
	uint64_t count;         /* samples */
};

struct vgl_sprofile {
	const struct vgl_reader *r;
	struct vgl_symbolizer *sym;       /* borrowed */

	/* Most self samples first, then most total samples, then by name;
	 * funcs[i].calls is 0 (nothing is counted in a sampled file). */
	struct vgl_pfunc *funcs;
	uint64_t *self;                   /* samples where funcs[i] ran */
	uint64_t *total;                  /* samples where it was on the
	                                   * stack, once per sample */
	size_t nfuncs;
	/* By the names of their functions, outermost first (the order of
	 * folded stacks); equal chains are one. */
	struct vgl_sstack *stacks;
	size_t nstacks;
	/* The same chains one per stack of the file, in its order, so that
	 * a view can tell threads apart: file_stacks[i] is r->stacks[i]'s,
	 * of thread r->stacks[i].tid (nothing added up). */
	struct vgl_sstack *file_stacks;
	uint32_t *chain;                  /* function indexes */
	uint64_t samples;                 /* the stacks' counts added up */

	char **owned;                     /* names made here */
	size_t nowned;
};

/*
 * Builds the model of r's STACKS (none: an empty model), symbolized by
 * sym (made from r with vgl_symbolizer_from_reader).  Both must outlive
 * p.  Returns 0 or -ENOMEM; on failure p holds nothing to release
 * (vgl_sprofile_release is still harmless).
 */
int vgl_sprofile_build(struct vgl_sprofile *p, const struct vgl_reader *r,
		       struct vgl_symbolizer *sym);

void vgl_sprofile_release(struct vgl_sprofile *p);

#endif
