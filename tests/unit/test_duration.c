/* test_duration.c - lib/duration.c: units, fractions, and refusals. */
#include <errno.h>

#include "check.h"
#include "duration.h"

static void ok(const char *s, uint64_t want)
{
	uint64_t ns = 0;
	int err = vgl_parse_duration(s, &ns);
	char name[64];

	snprintf(name, sizeof(name), "duration %s", s);
	CHECK(name, !err && ns == want, "err %d, got %llu, want %llu", err,
	      (unsigned long long)ns, (unsigned long long)want);
}

static void bad(const char *s, int want)
{
	uint64_t ns = 0;
	int err = vgl_parse_duration(s, &ns);
	char name[64];

	snprintf(name, sizeof(name), "duration refuses '%s'", s);
	CHECK(name, err == want, "got %d, want %d", err, want);
}

int main(void)
{
	ok("250ms", 250000000ull);
	ok("1s", 1000000000ull);
	ok("10us", 10000ull);
	ok("7ns", 7ull);
	ok("2m", 120000000000ull);
	ok("1h", 3600000000000ull);
	ok("1.5s", 1500000000ull);
	ok("3", 3000000000ull);
	ok("0.001ms", 1000ull);
	ok(".5s", 500000000ull);
	ok("0", 0);
	bad("", -EINVAL);
	bad("s", -EINVAL);
	bad("10x", -EINVAL);
	bad("1.5.5s", -EINVAL);
	bad("-1s", -EINVAL);
	bad("10 s", -EINVAL);
	bad("99999999999999999999", -ERANGE);
	bad("9999999999h", -ERANGE);
	CHECK("duration refuses NULL", vgl_parse_duration(NULL, &(uint64_t){0}) == -EINVAL,
	      "accepted NULL");
	return check_status();
}
