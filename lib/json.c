/*
 * json.c - see json.h.  Quote and backslash get their short escapes, as do
 * the control characters that have one; every other byte below 0x20 (and
 * DEL, which some consumers choke on) is written as \u00XX.
 */
#include "json.h"

void vgl_json_string(FILE *f, const char *s)
{
	const unsigned char *p;

	if (!s) {
		fputs("null", f);
		return;
	}
	putc('"', f);
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				putc(*p, f);
		}
	}
	putc('"', f);
}

void vgl_json_init(struct vgl_json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = 1;
}

/* The comma before a value and its key, if any. */
static void member(struct vgl_json *j, const char *key)
{
	if (!j->first[j->depth])
		putc(',', j->f);
	j->first[j->depth] = 0;
	if (key) {
		vgl_json_string(j->f, key);
		putc(':', j->f);
	}
}

static void open_scope(struct vgl_json *j, const char *key, int c)
{
	member(j, key);
	putc(c, j->f);
	if (j->depth + 1 < VGL_JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = 1;
}

static void close_scope(struct vgl_json *j, int c)
{
	putc(c, j->f);
	if (j->depth > 0)
		j->depth--;
	/* Back at the top, a new document starts (JSON Lines). */
	if (!j->depth)
		j->first[0] = 1;
}

void vgl_json_begin_object(struct vgl_json *j, const char *key)
{
	open_scope(j, key, '{');
}

void vgl_json_end_object(struct vgl_json *j)
{
	close_scope(j, '}');
}

void vgl_json_begin_array(struct vgl_json *j, const char *key)
{
	open_scope(j, key, '[');
}

void vgl_json_end_array(struct vgl_json *j)
{
	close_scope(j, ']');
}

void vgl_json_str(struct vgl_json *j, const char *key, const char *s)
{
	member(j, key);
	vgl_json_string(j->f, s);
}

void vgl_json_u64(struct vgl_json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void vgl_json_i64(struct vgl_json *j, const char *key, int64_t v)
{
	member(j, key);
	fprintf(j->f, "%lld", (long long)v);
}

void vgl_json_null(struct vgl_json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

void vgl_json_hex(struct vgl_json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->f, "\"0x%llx\"", (unsigned long long)v);
}

void vgl_json_bytes_hex(struct vgl_json *j, const char *key,
			const uint8_t *b, size_t len)
{
	size_t i;

	member(j, key);
	putc('"', j->f);
	for (i = 0; i < len; i++)
		fprintf(j->f, "%02x", b[i]);
	putc('"', j->f);
}

void vgl_json_bool(struct vgl_json *j, const char *key, int v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->f);
}
