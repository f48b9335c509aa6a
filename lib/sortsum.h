/*
 * sortsum.h - sort records and add up the counts of equal ones: the one
 * step every reader of counts takes (threads' edges into edges, edges into
 * call-graph rows, rows into functions).
 */
#ifndef VGL_SORTSUM_H
#define VGL_SORTSUM_H

#include <stddef.h>
#include <stdint.h>

/* a + b, stopping at UINT64_MAX rather than wrapping. */
static inline uint64_t vgl_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/*
 * Sorts the n records of `size` bytes at base with cmp, then folds every
 * run of records that cmp calls equal into its first one, adding their
 * uint64_t counts (at byte offset count_off in a record) with vgl_sat_add.
 * drop, if not NULL, releases what a folded-away record owns.  Returns the
 * number of records left, at the start of base.
 */
size_t vgl_sort_sum(void *base, size_t n, size_t size,
		    int (*cmp)(const void *, const void *), size_t count_off,
		    void (*drop)(void *rec));

#endif
