/*
 * tally.h - self and total samples per function over a set of stacks:
 * self, the samples where the function ran (the stack's frame 0); total,
 * the samples whose stack holds it, counted once per stack however often
 * a recursive function is on it.  The one tally of the live "top" of
 * `vigil attach` (src/cmd-attach.c) and of the model of sampled files
 * (sprofile.c); each wrote its own before.
 *
 * Functions are numbered by the caller (0, 1, ...), who knows what makes
 * two frames one function (a name, a module and address).  Adds up with
 * saturation: counts come from files, which are hostile.
 */
#ifndef VGL_TALLY_H
#define VGL_TALLY_H

#include <stddef.h>
#include <stdint.h>

/* A frame that is no function: skipped (counts nothing, not even self
 * in frame 0). */
#define VGL_TALLY_NONE UINT32_MAX

struct vgl_tally {
	uint64_t *self;         /* per function, nfuncs of them */
	uint64_t *total;
	size_t nfuncs;
	/* private */
	uint64_t *last;         /* the stack (1, 2, ...) that last counted
	                         * the function's total; 0: none */
	uint64_t stacks;        /* stacks added */
};

/* An empty tally; nothing to release until something is added. */
void vgl_tally_init(struct vgl_tally *t);

/*
 * Makes room for functions 0 .. nfuncs - 1 (at 0 samples if new): self
 * and total are then never NULL, whatever nfuncs.  Returns 0 or -ENOMEM
 * (the tally as it was).
 */
int vgl_tally_reserve(struct vgl_tally *t, size_t nfuncs);

/*
 * Adds count samples of one stack whose frames are the functions
 * funcs[0 .. n), frame 0 where it ran (the order of the rest does not
 * matter).  Makes room for the functions it names.  Returns 0 or -ENOMEM
 * (nothing added).
 */
int vgl_tally_add(struct vgl_tally *t, const uint32_t *funcs, size_t n,
		  uint64_t count);

/* Frees what t holds, but for self or total where the caller took them
 * (set them to NULL first). */
void vgl_tally_release(struct vgl_tally *t);

#endif
