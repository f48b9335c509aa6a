/* samename_d.c - calls its copy of samename_h.h's twice() 5 times, and
 * from_c(3) (see samename.test). */
#include "samename_h.h"

int from_c(int n);

int main(void)
{
	int i, s = from_c(3);

	for (i = 0; i < 5; i++)
		s += twice(i);
	return s != 26;
}
