/* test_pattern.c - lib/pattern.c: VIGIL_FILE escapes, limits, refusals. */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "pattern.h"

static const struct vgl_pattern_vars vars = {
	.pid = 4242, .host = "box", .exe = "prog", .start_s = 1700000000,
};

static void ok(const char *pat, const char *want)
{
	char out[256], name[128];
	int err = vgl_expand_pattern(pat, &vars, out, sizeof(out));

	snprintf(name, sizeof(name), "pattern '%s'", pat);
	CHECK(name, !err && !strcmp(out, want), "err %d, got '%s', want '%s'",
	      err, err ? "" : out, want);
}

static void bad(const char *pat, size_t outsz, int want)
{
	char out[256], name[128];
	int err = vgl_expand_pattern(pat, &vars, out, outsz);

	snprintf(name, sizeof(name), "pattern refuses '%s' in %zu bytes",
		 pat ? pat : "(null)", outsz);
	CHECK(name, err == want, "got %d, want %d", err, want);
}

int main(void)
{
	struct vgl_pattern_vars none = { 0 };
	char out[64];
	int err;

	ok("vigil.%e.%p.vgl", "vigil.prog.4242.vgl");
	ok("/tmp/%h/%t-%p", "/tmp/box/1700000000-4242");
	ok("100%%.vgl", "100%.vgl");
	ok("plain.vgl", "plain.vgl");
	ok("%p%p", "42424242");
	bad("x%q", sizeof(out), -EINVAL);
	bad("trailing%", sizeof(out), -EINVAL);
	bad("", sizeof(out), -EINVAL);
	bad(NULL, sizeof(out), -EINVAL);
	bad("abcdef", 6, -ENAMETOOLONG);   /* no room for the NUL */
	bad("%p", 4, -ENAMETOOLONG);
	ok("abcde", "abcde");

	err = vgl_expand_pattern("%h-%e", &none, out, sizeof(out));
	CHECK("pattern without host or exe names them unknown",
	      !err && !strcmp(out, "unknown-unknown"), "err %d, got '%s'", err,
	      out);
	err = vgl_expand_pattern("%p", &none, out, sizeof(out));
	CHECK("pattern pid 0", !err && !strcmp(out, "0"), "got '%s'", out);
	return check_status();
}
