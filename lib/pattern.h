/*
 * pattern.h - expand a profile path pattern (VIGIL_FILE, vigil_set_file):
 * %p pid, %h host name, %e executable name, %t start time in seconds since
 * the epoch, %% a percent sign.  Used by the runtime, so it writes into the
 * caller's buffer and allocates nothing.
 */
#ifndef VGL_PATTERN_H
#define VGL_PATTERN_H

#include <stddef.h>
#include <stdint.h>

struct vgl_pattern_vars {
	uint64_t pid;
	const char *host;
	const char *exe;      /* executable name, without directories */
	uint64_t start_s;
};

/*
 * Writes the expansion of pat into out (size outsz, NUL-terminated).
 * Returns 0, -EINVAL for an empty pattern or an unknown %-escape, or
 * -ENAMETOOLONG when the result does not fit.
 */
int vgl_expand_pattern(const char *pat, const struct vgl_pattern_vars *v,
		       char *out, size_t outsz);

#endif
