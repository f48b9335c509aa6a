/*
 * report-both.h - calls beside time: a counting and a sampled profile of
 * one program reported together (report-both.c).
 */
#ifndef VIGIL_REPORT_BOTH_H
#define VIGIL_REPORT_BOTH_H

#include <stddef.h>

#include "out.h"

/* Prints the functions of c (counting) and s (sampled, with its model)
 * side by side, sorted by sort ("self", "total" or "calls"), the top
 * ones (0: all), as text or JSON.  0, -ENOMEM or -EIO. */
int report_both(const struct out_input *c, const struct out_input *s,
		const char *sort, size_t top, int json);

#endif
