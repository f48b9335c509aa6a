/*
 * fuzz_text.c - libFuzzer target for the text writer every JSON, XML and
 * callgrind output goes through (lib/text.c): for any bytes, each kind of
 * output must be valid UTF-8, hold nothing its format forbids raw, and
 * decode back (escapes and entities undone) to exactly the input's
 * characters, each byte that is not UTF-8 as U+FFFD; JSON and lines
 * hold no control character raw (C1 ones included), JSON for a <script>
 * no < > & U+2028 U+2029 either.  The expected
 * characters come from a decoder written here another way (decode any
 * lead byte's length, then reject overlong forms, surrogates and values
 * above U+10FFFF), so the writer's table is checked, not trusted.  Built
 * and run by tests/fuzz/run.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

#define FAIL() __builtin_trap()

/* The code point at s[0..n), or -1 if it starts no valid sequence; *len
 * gets the bytes used (1 when invalid). */
static long ref_decode(const unsigned char *s, size_t n, size_t *len)
{
	static const long min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t k, i;
	long v;

	*len = 1;
	if (s[0] < 0x80)
		return s[0];
	if ((s[0] & 0xe0) == 0xc0)
		k = 2, v = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		k = 3, v = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		k = 4, v = s[0] & 0x07;
	else
		return -1;
	if (k > n)
		return -1;
	for (i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min[k] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return -1;
	*len = k;
	return v;
}

/* The whole of s[0..n) as code points; every one valid. */
static size_t ref_all(const unsigned char *s, size_t n, long *out)
{
	size_t i = 0, m = 0, len;
	long c;

	while (i < n) {
		c = ref_decode(s + i, n - i, &len);
		out[m++] = c < 0 ? 0xfffd : c;
		i += len;
	}
	return m;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Undoes one kind's escapes in the decoded output o[0..n). */
static size_t unescape(enum vgl_text_kind kind, const long *o, size_t n,
		       long *out)
{
	/* JSON inside <script> is JSON with more escaped: < > & and
	 * U+2028, U+2029 never raw. */
	int json = kind == VGL_TEXT_JSON || kind == VGL_TEXT_JSON_SCRIPT;
	size_t i = 0, m = 0;

	while (i < n) {
		long c = o[i++];

		if (kind == VGL_TEXT_JSON_SCRIPT &&
		    (c == '<' || c == '>' || c == '&' || c == 0x2028 ||
		     c == 0x2029))
			FAIL();
		if (kind == VGL_TEXT_XML) {
			static const char *ent[] = { "amp;", "lt;", "gt;",
						     "quot;", "#39;" };
			static const char chr[] = "&<>\"'";
			size_t e, j;

			if (c == '<' || c == '>' || c == '"' || c == '\'' ||
			    c < 0x20 || c == 0x7f || c == 0xfffe || c == 0xffff)
				FAIL();
			if (c != '&') {
				out[m++] = c;
				continue;
			}
			for (e = 0; e < 5; e++) {
				for (j = 0; ent[e][j] && i + j < n &&
					    o[i + j] == ent[e][j]; j++)
					;
				if (!ent[e][j])
					break;
			}
			if (e == 5)
				FAIL();
			out[m++] = chr[e];
			i += strlen(ent[e]);
			continue;
		}
		if (c < 0x20 || (c >= 0x7f && c <= 0x9f) ||
		    (json && c == '"'))
			FAIL();
		if (c != '\\') {
			out[m++] = c;
			continue;
		}
		if (i >= n)
			FAIL();
		c = o[i++];
		switch (c) {
		case '\\': out[m++] = '\\'; break;
		case 'n': out[m++] = '\n'; break;
		case 'r': out[m++] = '\r'; break;
		case 't': out[m++] = '\t'; break;
		case '"': if (!json) FAIL(); out[m++] = '"'; break;
		case 'b': if (!json) FAIL(); out[m++] = '\b'; break;
		case 'f': if (!json) FAIL(); out[m++] = '\f'; break;
		case 'u':
		case 'x': {
			size_t d = c == 'u' ? 4 : 2, j;
			long v = 0;

			if ((c == 'u') != json || i + d > n)
				FAIL();
			for (j = 0; j < d; j++) {
				int h = o[i + j] < 128 ? hexval((int)o[i + j]) : -1;

				if (h < 0)
					FAIL();
				v = v << 4 | h;
			}
			i += d;
			/* A C1 control in a line: its UTF-8 bytes, \xc2\xNN. */
			if (c == 'x' && v >= 0x80) {
				long lo = 0;

				if (v != 0xc2 || i + 4 > n || o[i] != '\\' ||
				    o[i + 1] != 'x')
					FAIL();
				for (j = 2; j < 4; j++) {
					int h = o[i + j] < 128 ?
						hexval((int)o[i + j]) : -1;

					if (h < 0)
						FAIL();
					lo = lo << 4 | h;
				}
				if (lo < 0x80 || lo > 0x9f)
					FAIL();
				i += 4;
				v = lo;
			}
			out[m++] = v;
			break;
		}
		default:
			FAIL();
		}
	}
	return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = strnlen((const char *)data, size), want_n, got_n, on, i;
	char *in = malloc(n + 1);
	long *want = malloc((n + 1) * sizeof(long));
	long *dec = NULL, *got = NULL;
	enum vgl_text_kind kind;

	memcpy(in, data, n);
	in[n] = 0;
	want_n = ref_all((const unsigned char *)in, n, want);
	for (kind = VGL_TEXT_JSON; kind <= VGL_TEXT_LINE; kind++) {
		char *buf = NULL;
		size_t len = 0, used;
		FILE *f = open_memstream(&buf, &len);

		vgl_text_write(f, in, kind);
		fclose(f);
		/* Valid UTF-8 throughout, with no NUL. */
		dec = malloc((len + 1) * sizeof(long));
		got = malloc((len + 1) * sizeof(long));
		for (i = 0, on = 0; i < len; i += used) {
			long c = ref_decode((unsigned char *)buf + i, len - i,
					    &used);
			if (c <= 0)
				FAIL();
			dec[on++] = c;
		}
		got_n = unescape(kind, dec, on, got);
		if (got_n != want_n)
			FAIL();
		for (i = 0; i < want_n; i++) {
			long w = want[i];

			/* XML cannot hold these at all: U+FFFD instead. */
			if (kind == VGL_TEXT_XML && (w < 0x20 || w == 0x7f ||
						     w == 0xfffe || w == 0xffff))
				w = 0xfffd;
			if (got[i] != w)
				FAIL();
		}
		free(dec);
		free(got);
		free(buf);
	}
	free(in);
	free(want);
	return 0;
}
