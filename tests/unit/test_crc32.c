/* test_crc32.c - lib/crc32.c against the standard check values. */
#include <string.h>

#include "check.h"
#include "crc32.h"

int main(void)
{
	const char *s = "123456789";
	uint32_t half;

	CHECK("crc32 of 123456789", vgl_crc32(0, s, 9) == 0xCBF43926u,
	      "got 0x%08x", vgl_crc32(0, s, 9));
	CHECK("crc32 of nothing", vgl_crc32(0, "", 0) == 0,
	      "got 0x%08x", vgl_crc32(0, "", 0));
	CHECK("crc32 of a", vgl_crc32(0, "a", 1) == 0xE8B7BE43u,
	      "got 0x%08x", vgl_crc32(0, "a", 1));
	half = vgl_crc32(0, s, 4);
	CHECK("crc32 continues", vgl_crc32(half, s + 4, 5) == 0xCBF43926u,
	      "got 0x%08x", vgl_crc32(half, s + 4, 5));
	return check_status();
}
