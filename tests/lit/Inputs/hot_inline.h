/* hot_inline.h - the hot function of hot_inline.c, in a header as most
 * inlined functions are: its inlined copies are declared here, not in
 * the file of the functions they run in. */
static inline __attribute__((always_inline)) unsigned long mix(unsigned long x)
{
	int i;

	for (i = 0; i < 40000; i++)
		x = (x * 6364136223846793005ul + 1442695040888963407ul) ^ (x >> 13);
	return x;
}
