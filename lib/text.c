/*
 * text.c - see text.h.  The decoder follows the Unicode standard's table
 * of well-formed byte sequences (Table 3-7), so it accepts exactly what a
 * strict UTF-8 decoder (Python's, expat's) accepts; an invalid byte is
 * replaced alone and the next byte is looked at afresh, which keeps every
 * valid character that follows a bad one.
 */
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

static void json_char(FILE *f, uint32_t c)
{
	switch (c) {
	case '"': fputs("\\\"", f); return;
	case '\\': fputs("\\\\", f); return;
	case '\b': fputs("\\b", f); return;
	case '\f': fputs("\\f", f); return;
	case '\n': fputs("\\n", f); return;
	case '\r': fputs("\\r", f); return;
	case '\t': fputs("\\t", f); return;
	}
	/* DEL is legal JSON, but some consumers choke on it raw. */
	fprintf(f, "\\u%04x", (unsigned)c);
}

static void line_char(FILE *f, uint32_t c)
{
	switch (c) {
	case '\\': fputs("\\\\", f); return;
	case '\n': fputs("\\n", f); return;
	case '\r': fputs("\\r", f); return;
	case '\t': fputs("\\t", f); return;
	}
	fprintf(f, "\\x%02x", (unsigned)c);
}

static void xml_char(FILE *f, uint32_t c)
{
	switch (c) {
	case '&': fputs("&amp;", f); return;
	case '<': fputs("&lt;", f); return;
	case '>': fputs("&gt;", f); return;
	case '"': fputs("&quot;", f); return;
	case '\'': fputs("&#39;", f); return;
	}
	/* Control characters, and U+FFFE/U+FFFF, are not XML characters,
	 * not even as references: they become U+FFFD like an invalid byte.
	 * (Tab and newlines would be legal, but a name holding one would be
	 * folded to a space by every reader.) */
	fputs("\xef\xbf\xbd", f);
}

/* Does kind write code point c as something other than itself? */
static int special(enum vgl_text_kind kind, uint32_t c)
{
	if (c < 0x20 || c == 0x7f)
		return 1;
	switch (kind) {
	case VGL_TEXT_JSON:
		return c == '"' || c == '\\';
	case VGL_TEXT_XML:
		return c == '&' || c == '<' || c == '>' || c == '"' ||
		       c == '\'' || c == 0xfffe || c == 0xffff;
	case VGL_TEXT_LINE:
		return c == '\\';
	}
	return 0;
}

void vgl_text_write(FILE *f, const char *s, enum vgl_text_kind kind)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t c;
	size_t n;

	while (*p) {
		n = vgl_utf8_seq(p, &c);
		if (!n) {
			fputs(kind == VGL_TEXT_JSON ? "\\ufffd" :
			      "\xef\xbf\xbd", f);
			p++;
			continue;
		}
		if (!special(kind, c)) {
			fwrite(p, 1, n, f);
		} else if (kind == VGL_TEXT_JSON) {
			json_char(f, c);
		} else if (kind == VGL_TEXT_XML) {
			xml_char(f, c);
		} else {
			line_char(f, c);
		}
		p += n;
	}
}
