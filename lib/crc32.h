/*
 * crc32.h - CRC-32 (the zlib/IEEE polynomial) for the .vgl header checksum.
 * Shared by the runtime and the readers, so it allocates nothing and keeps
 * no state beyond a constant table.
 */
#ifndef VGL_CRC32_H
#define VGL_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Returns the CRC-32 of len bytes at p, continuing from crc (0 to start). */
uint32_t vgl_crc32(uint32_t crc, const void *p, size_t len);

#endif
