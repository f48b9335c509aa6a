/*
 * sortsum.c - see sortsum.h.
 */
#include <stdlib.h>
#include <string.h>

#include "sortsum.h"

size_t vgl_sort_sum(void *base, size_t n, size_t size,
		    int (*cmp)(const void *, const void *), size_t count_off,
		    void (*drop)(void *rec))
{
	char *b = base;
	size_t i, kept = 0;

	if (!n)
		return 0;
	qsort(base, n, size, cmp);
	for (i = 0; i < n; i++) {
		char *cur = b + i * size, *last = NULL;
		uint64_t x, y;

		if (kept)
			last = b + (kept - 1) * size;
		if (last && !cmp(last, cur)) {
			memcpy(&x, last + count_off, sizeof(x));
			memcpy(&y, cur + count_off, sizeof(y));
			x = vgl_sat_add(x, y);
			memcpy(last + count_off, &x, sizeof(x));
			if (drop)
				drop(cur);
			continue;
		}
		if (kept != i)
			memcpy(b + kept * size, cur, size);
		kept++;
	}
	return kept;
}
