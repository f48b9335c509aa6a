/*
 * duration.h - parse a human duration ("250ms", "1s", "10us", "2m", "1h",
 * "1.5s"; a bare number means seconds).  Shared by the runtime
 * (VIGIL_INTERVAL) and the tools (--timeout), so it uses no libc locale
 * or allocation.
 */
#ifndef VGL_DURATION_H
#define VGL_DURATION_H

#include <stdint.h>

/*
 * Parses s into nanoseconds in *ns.  Returns 0, or -EINVAL when s is not a
 * duration, or -ERANGE when it does not fit in 64 bits of nanoseconds.
 */
int vgl_parse_duration(const char *s, uint64_t *ns);

#endif
