/*
 * check.h - the unit tests' whole harness.  Each CHECK prints one line,
 * "PASS: name" or "FAIL: name: why", which tests/run.sh counts; main
 * returns check_status() so the binary exits non-zero when any failed.
 */
#ifndef VGL_CHECK_H
#define VGL_CHECK_H

#include <stdio.h>

static int check_failures;

/* Reports cond as the check `name`; why (printf format) says what failed. */
#define CHECK(name, cond, ...)                                          \
	do {                                                            \
		if (cond) {                                             \
			printf("PASS: %s\n", (name));                   \
		} else {                                                \
			printf("FAIL: %s: ", (name));                   \
			printf(__VA_ARGS__);                            \
			printf("\n");                                   \
			check_failures++;                               \
		}                                                       \
		fflush(stdout);                                         \
	} while (0)

static inline int check_status(void)
{
	return check_failures ? 1 : 0;
}

#endif
