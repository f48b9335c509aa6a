/* samename_c.c - calls its own copy of samename_h.h's twice() 3 times. */
#include "samename_h.h"

int from_c(int n)
{
	int i, s = 0;

	for (i = 0; i < n; i++)
		s += twice(i);
	return s;
}
