/*
 * report-both.h - calls beside time: a counting and a sampled profile of
 * one program reported together (report-both.c).
 */
#ifndef VIGIL_REPORT_BOTH_H
#define VIGIL_REPORT_BOTH_H

#include <stddef.h>
#include <stdint.h>

#include "out.h"

/* Prints the functions of c (counting) and s (sampled, with its model)
 * side by side, sorted by sort ("self", "total" or "calls"), the top
 * ones (0: all), as text or JSON.  0, -ENOMEM or -EIO. */
int report_both(const struct out_input *c, const struct out_input *s,
		const char *sort, size_t top, int json);

/* For each function of s's model (s->sp), the index of the same
 * function in c's model (c->p), by the rule the rows above are joined
 * by, or VGL_PROFILE_NONE: malloc'd, s->sp.nfuncs entries; NULL for no
 * memory. */
uint32_t *report_both_match(const struct out_input *c,
			    const struct out_input *s);

#endif
