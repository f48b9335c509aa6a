/*
 * crc32.c - bytewise CRC-32, reflected polynomial 0xEDB88320 (as zlib's
 * crc32()).  Tuned for small inputs (a header of a few hundred bytes):
 * a 1 KiB table built at compile time, no initialisation step, so the
 * runtime can call it from any context.
 */
#include "crc32.h"

#define P 0xEDB88320u
#define R1(c) (((c) & 1) ? ((c) >> 1) ^ P : (c) >> 1)
#define R8(c) R1(R1(R1(R1(R1(R1(R1(R1(c))))))))
#define T1(i) R8((uint32_t)(i))
#define T4(i) T1(i), T1(i + 1), T1(i + 2), T1(i + 3)
#define T16(i) T4(i), T4(i + 4), T4(i + 8), T4(i + 12)
#define T64(i) T16(i), T16(i + 16), T16(i + 32), T16(i + 48)

static const uint32_t table[256] = {
	T64(0), T64(64), T64(128), T64(192)
};

uint32_t vgl_crc32(uint32_t crc, const void *p, size_t len)
{
	const unsigned char *b = p;

	crc = ~crc;
	while (len--)
		crc = table[(crc ^ *b++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
