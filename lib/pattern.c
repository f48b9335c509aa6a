/*
 * pattern.c - see pattern.h.
 */
#include <errno.h>

#include "pattern.h"

struct out {
	char *p;
	size_t left;
};

static int put(struct out *o, const char *s)
{
	for (; *s; s++) {
		if (o->left <= 1)
			return -ENAMETOOLONG;
		*o->p++ = *s;
		o->left--;
	}
	return 0;
}

static int put_u64(struct out *o, uint64_t v)
{
	char buf[24], *p = buf + sizeof(buf);

	*--p = 0;
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	return put(o, p);
}

int vgl_expand_pattern(const char *pat, const struct vgl_pattern_vars *v,
		       char *out, size_t outsz)
{
	struct out o = { out, outsz };
	char one[2] = { 0, 0 };
	int ret = 0;

	if (!pat || !*pat || !outsz)
		return -EINVAL;
	for (; *pat && !ret; pat++) {
		if (*pat != '%') {
			one[0] = *pat;
			ret = put(&o, one);
			continue;
		}
		switch (*++pat) {
		case 'p': ret = put_u64(&o, v->pid); break;
		case 't': ret = put_u64(&o, v->start_s); break;
		case 'h': ret = put(&o, v->host ? v->host : "unknown"); break;
		case 'e': ret = put(&o, v->exe ? v->exe : "unknown"); break;
		case '%': ret = put(&o, "%"); break;
		default: return -EINVAL;
		}
	}
	*o.p = 0;
	return ret;
}
