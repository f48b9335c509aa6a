/*
 * text.c - see text.h.  The decoder follows the Unicode standard's table
 * of well-formed byte sequences (Table 3-7), so it accepts exactly what a
 * strict UTF-8 decoder (Python's, expat's) accepts; an invalid byte is
 * replaced alone and the next byte is looked at afresh, which keeps every
 * valid character that follows a bad one.
 */
#include <stdlib.h>
#include <string.h>

#include "text.h"

size_t vgl_utf8_seq(const unsigned char *s, uint32_t *cp)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n, i;
	uint32_t v;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		v = c & 0x0f;
		if (c == 0xe0)
			lo = 0xa0;	/* overlong below */
		else if (c == 0xed)
			hi = 0x9f;	/* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		v = c & 0x07;
		if (c == 0xf0)
			lo = 0x90;	/* overlong below */
		else if (c == 0xf4)
			hi = 0x8f;	/* above U+10FFFF */
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if (s[i] < lo || s[i] > hi)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	*cp = v;
	return n;
}

/*
 * Where the escaped text goes: a stream, or a buffer (len bytes, NUL
 * ended as snprintf does, n counting what the whole would take), or a
 * comparison with the text in cmp (differ set at the first byte that is
 * not the same).
 */
struct sink {
	FILE *f;
	char *buf;
	size_t len, n;
	const char *cmp;
	int differ;
};

static void put(struct sink *k, const char *s, size_t n)
{
	size_t i;

	if (k->f) {
		fwrite(s, 1, n, k->f);
	} else if (k->cmp) {
		for (i = 0; i < n && !k->differ; i++)
			k->differ = k->cmp[k->n + i] != s[i];
	} else {
		for (i = 0; i < n; i++)
			if (k->n + i + 1 < k->len)
				k->buf[k->n + i] = s[i];
	}
	k->n += n;
}

static void puts_(struct sink *k, const char *s)
{
	put(k, s, strlen(s));
}

static void json_char(struct sink *k, uint32_t c)
{
	char u[8];

	switch (c) {
	case '"': puts_(k, "\\\""); return;
	case '\\': puts_(k, "\\\\"); return;
	case '\b': puts_(k, "\\b"); return;
	case '\f': puts_(k, "\\f"); return;
	case '\n': puts_(k, "\\n"); return;
	case '\r': puts_(k, "\\r"); return;
	case '\t': puts_(k, "\\t"); return;
	}
	/* DEL and the C1 controls are legal JSON, but a terminal acts on
	 * them when the document is shown raw, and some consumers choke. */
	snprintf(u, sizeof(u), "\\u%04x", (unsigned)c);
	puts_(k, u);
}

static void line_char(struct sink *k, uint32_t c)
{
	char x[16];

	switch (c) {
	case '\\': puts_(k, "\\\\"); return;
	case '\n': puts_(k, "\\n"); return;
	case '\r': puts_(k, "\\r"); return;
	case '\t': puts_(k, "\\t"); return;
	}
	/* \xNN is a byte, as in C: a C1 control (U+0080 to U+009F) is its
	 * two UTF-8 bytes, \xc2\xNN. */
	if (c >= 0x80)
		snprintf(x, sizeof(x), "\\x%02x\\x%02x",
			 0xc0u | c >> 6, 0x80u | (c & 0x3f));
	else
		snprintf(x, sizeof(x), "\\x%02x", (unsigned)c);
	puts_(k, x);
}

static void xml_char(struct sink *k, uint32_t c)
{
	switch (c) {
	case '&': puts_(k, "&amp;"); return;
	case '<': puts_(k, "&lt;"); return;
	case '>': puts_(k, "&gt;"); return;
	case '"': puts_(k, "&quot;"); return;
	case '\'': puts_(k, "&#39;"); return;
	}
	/* Control characters, and U+FFFE/U+FFFF, are not XML characters,
	 * not even as references: they become U+FFFD like an invalid byte.
	 * (Tab and newlines would be legal, but a name holding one would be
	 * folded to a space by every reader.) */
	puts_(k, "\xef\xbf\xbd");
}

/* Does kind write code point c as something other than itself? */
static int special(enum vgl_text_kind kind, uint32_t c)
{
	if (c < 0x20 || c == 0x7f)
		return 1;
	switch (kind) {
	case VGL_TEXT_JSON:
		return c == '"' || c == '\\' || (c >= 0x80 && c <= 0x9f);
	case VGL_TEXT_JSON_SCRIPT:
		return c == '"' || c == '\\' || (c >= 0x80 && c <= 0x9f) ||
		       c == '<' || c == '>' || c == '&' || c == 0x2028 ||
		       c == 0x2029;
	case VGL_TEXT_XML:
		return c == '&' || c == '<' || c == '>' || c == '"' ||
		       c == '\'' || c == 0xfffe || c == 0xffff;
	case VGL_TEXT_LINE:
		return c == '\\' || (c >= 0x80 && c <= 0x9f);
	}
	return 0;
}

static void write_text(struct sink *k, const char *s, enum vgl_text_kind kind)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t c;
	size_t n;

	while (*p) {
		n = vgl_utf8_seq(p, &c);
		if (!n) {
			puts_(k, kind == VGL_TEXT_JSON ||
				 kind == VGL_TEXT_JSON_SCRIPT ? "\\ufffd" :
				 "\xef\xbf\xbd");
			p++;
			continue;
		}
		if (!special(kind, c)) {
			put(k, (const char *)p, n);
		} else if (kind == VGL_TEXT_JSON ||
			   kind == VGL_TEXT_JSON_SCRIPT) {
			json_char(k, c);
		} else if (kind == VGL_TEXT_XML) {
			xml_char(k, c);
		} else {
			line_char(k, c);
		}
		p += n;
	}
}

size_t vgl_text_write(FILE *f, const char *s, enum vgl_text_kind kind)
{
	struct sink k = { .f = f };

	write_text(&k, s, kind);
	return k.n;
}

size_t vgl_text_line(FILE *f, const char *s)
{
	return vgl_text_write(f, s, VGL_TEXT_LINE);
}

void vgl_text_line_pad(FILE *f, const char *s, size_t width)
{
	size_t n = vgl_text_line(f, s);

	for (; n < width; n++)
		putc(' ', f);
}

size_t vgl_text_line_buf(char *buf, size_t len, const char *s)
{
	struct sink k = { .buf = buf, .len = len };

	write_text(&k, s, VGL_TEXT_LINE);
	if (len)
		buf[k.n < len ? k.n : len - 1] = 0;
	return k.n;
}

char *vgl_text_line_dup(const char *s)
{
	size_t n = vgl_text_line_buf(NULL, 0, s);
	char *d = malloc(n + 1);

	if (d)
		vgl_text_line_buf(d, n + 1, s);
	return d;
}

int vgl_text_line_is(const char *s, const char *shown)
{
	struct sink k = { .cmp = shown };

	/* cmp is read no further than its NUL: a byte that differs stops
	 * the comparison there. */
	write_text(&k, s, VGL_TEXT_LINE);
	return !k.differ && !shown[k.n];
}
