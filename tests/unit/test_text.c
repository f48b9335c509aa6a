/* test_text.c - lib/text.c's text for people (VGL_TEXT_LINE): control
 * characters as C escapes, a backslash doubled, everything else as it
 * is; the buffer, copy, padding and comparison forms agree with it.
 * And JSON inside an HTML <script> (VGL_TEXT_JSON_SCRIPT): no name can
 * end the element or the string early. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "text.h"

static void expect(const char *name, const char *in, const char *want)
{
	char *buf = NULL, *dup, small[8];
	size_t len = 0, n;
	FILE *f = open_memstream(&buf, &len);

	n = vgl_text_line(f, in);
	fclose(f);
	CHECK(name, !strcmp(buf, want) && n == strlen(want),
	      "got '%s' (%zu bytes), want '%s'", buf, n, want);
	dup = vgl_text_line_dup(in);
	CHECK(name, dup && !strcmp(dup, want), "dup gave '%s'", dup);
	free(dup);
	n = vgl_text_line_buf(small, sizeof(small), in);
	CHECK(name, n == strlen(want) && !strncmp(small, want, sizeof(small) - 1) &&
	      strlen(small) == (n < sizeof(small) ? n : sizeof(small) - 1),
	      "buf gave '%s', %zu", small, n);
	CHECK(name, vgl_text_line_is(in, want), "is(shown) false");
	free(buf);
}

/* in written as VGL_TEXT_JSON_SCRIPT is want. */
static void expect_script(const char *name, const char *in, const char *want)
{
	char *buf = NULL;
	size_t len = 0, n;
	FILE *f = open_memstream(&buf, &len);

	n = vgl_text_write(f, in, VGL_TEXT_JSON_SCRIPT);
	fclose(f);
	CHECK(name, !strcmp(buf, want) && n == strlen(want),
	      "got '%s' (%zu bytes), want '%s'", buf, n, want);
	free(buf);
}

int main(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	expect("line plain", "main", "main");
	expect("line xterm title", "evil\x1b]0;pwned\x07name",
	       "evil\\x1b]0;pwned\\x07name");
	expect("line clear screen", "t\x1b[2J", "t\\x1b[2J");
	expect("line short escapes", "a\nb\tc\rd", "a\\nb\\tc\\rd");
	expect("line DEL", "x\x7fy", "x\\x7fy");
	expect("line C1 CSI", "a\xc2\x9b" "b", "a\\xc2\\x9bb");
	expect("line U+00A0 passes", "a\xc2\xa0" "b", "a\xc2\xa0" "b");
	expect("line backslash", "b\\c", "b\\\\c");
	expect("line not utf-8", "w\xe9", "w\xef\xbf\xbd");
	expect("line empty", "", "");
	CHECK("line is: raw name is not its escape",
	      !vgl_text_line_is("t\x1b", "t\x1b"), "true");
	CHECK("line is: prefix", !vgl_text_line_is("t\x1b[2J", "t\\x1b"),
	      "true");
	CHECK("line is: longer", !vgl_text_line_is("t", "tt"), "true");
	f = open_memstream(&buf, &len);
	vgl_text_line_pad(f, "t\x1b", 8);
	vgl_text_line_pad(f, "0123456789", 4);
	fclose(f);
	CHECK("line pad", !strcmp(buf, "t\\x1b   0123456789"), "got '%s'", buf);
	free(buf);

	/* A function name is the program's: "</script>" in it must not end
	 * the page's data element, "<!--" not start a comment there (which
	 * changes how the parser looks for the end tag), "&" not begin a
	 * reference, and U+2028/U+2029, legal raw in JSON, are line ends
	 * to older JavaScript parsers. */
	expect_script("script end tag", "</script><img src=x onerror=alert(1)>",
		      "\\u003c/script\\u003e\\u003cimg src=x onerror=alert(1)\\u003e");
	expect_script("script comment", "<!--x", "\\u003c!--x");
	expect_script("script amp", "a&b", "a\\u0026b");
	expect_script("script U+2028 U+2029", "a\xe2\x80\xa8" "b\xe2\x80\xa9",
		      "a\\u2028b\\u2029");
	expect_script("script quote backslash", "\"\\", "\\\"\\\\");
	expect_script("script control", "a\nb\x1b", "a\\nb\\u001b");
	expect_script("script not utf-8", "w\xe9", "w\\ufffd");
	expect_script("script plain", "main (a.c)", "main (a.c)");
	return check_status();
}
