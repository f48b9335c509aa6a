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
