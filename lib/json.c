/*
 * json.c - see json.h.  Strings are written by the one text writer every
 * output shares (text.h), so a name that is not UTF-8 reads the same
 * (U+FFFD per bad byte) in JSON, SVG and callgrind.
 */
#include "json.h"
#include "text.h"

void vgl_json_string(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	putc('"', f);
	vgl_text_write(f, s, VGL_TEXT_JSON);
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
