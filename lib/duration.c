/*
 * duration.c - see duration.h.  Digits, an optional fraction, then a unit
 * among ns, us, ms, s, m, h.  Written by hand rather than with strtod so it
 * behaves the same in every locale and in the runtime.
 */
#include <errno.h>
#include <stddef.h>

#include "duration.h"

static const struct {
	const char *name;
	uint64_t ns;
} units[] = {
	{ "ns", 1 },
	{ "us", 1000 },
	{ "ms", 1000000 },
	{ "s", 1000000000ull },
	{ "m", 60ull * 1000000000ull },
	{ "h", 3600ull * 1000000000ull },
	{ "", 1000000000ull },
};

static int same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

int vgl_parse_duration(const char *s, uint64_t *ns)
{
	uint64_t whole = 0, frac = 0, frac_div = 1, scale = 0;
	int digits = 0;
	size_t i;

	if (!s)
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		whole = whole * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
			/* Digits past nanosecond precision cannot matter. */
			if (frac_div < 1000000000000000000ull) {
				frac = frac * 10 + (uint64_t)(*s - '0');
				frac_div *= 10;
			}
		}
	}
	if (!digits)
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (same(s, units[i].name)) {
			scale = units[i].ns;
			break;
		}
	if (!scale)
		return -EINVAL;
	if (whole > UINT64_MAX / scale)
		return -ERANGE;
	whole *= scale;
	/* frac / frac_div * scale, without overflow: frac_div <= 1e18. */
	frac = (uint64_t)((unsigned __int128)frac * scale / frac_div);
	if (whole > UINT64_MAX - frac)
		return -ERANGE;
	*ns = whole + frac;
	return 0;
}
