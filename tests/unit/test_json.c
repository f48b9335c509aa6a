/* test_json.c - lib/json.c escapes what JSON forbids and nothing else,
 * and writes a byte that is not UTF-8 as \ufffd (lib/text.c). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "json.h"

static void expect(const char *name, const char *in, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	vgl_json_string(f, in);
	fclose(f);
	CHECK(name, !strcmp(buf, want), "got %s, want %s", buf, want);
	free(buf);
}

int main(void)
{
	expect("json plain", "main", "\"main\"");
	expect("json quote and backslash", "a\"b\\c", "\"a\\\"b\\\\c\"");
	expect("json short escapes", "\n\t\r\b\f", "\"\\n\\t\\r\\b\\f\"");
	expect("json other control", "\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"");
	/* The C1 controls (U+0080 to U+009F; CSI is U+009B): legal JSON,
	 * but a terminal showing the document raw obeys them. */
	expect("json C1 control", "a\xc2\x9b" "b\xc2\x80\xc2\x9f\xc2\xa0",
	       "\"a\\u009bb\\u0080\\u009f\xc2\xa0\"");
	expect("json utf-8 passes", "caf\xc3\xa9", "\"caf\xc3\xa9\"");
	expect("json null", NULL, "null");
	expect("json not utf-8", "w\xe9\xff\xfe", "\"w\\ufffd\\ufffd\\ufffd\"");
	expect("json overlong nul", "a\xc0\x80" "b", "\"a\\ufffd\\ufffdb\"");
	expect("json surrogate", "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
	expect("json cut short", "\xe2\x82", "\"\\ufffd\\ufffd\"");
	expect("json above U+10FFFF", "\xf4\x90\x80\x80",
	       "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	expect("json 4-byte passes", "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"");
	expect("json bad then good", "\xe9\xc3\xa9", "\"\\ufffd\xc3\xa9\"");
	expect("json C++ name", "std::vector<int>::push_back(int const&)",
	       "\"std::vector<int>::push_back(int const&)\"");
	return check_status();
}
