/* samename_h.h - a static inline function of a header: each file that
 * includes it has its own copy, same name, same file (see samename.test). */
static inline __attribute__((noinline)) int twice(int x)
{
	return 2 * x;
}
