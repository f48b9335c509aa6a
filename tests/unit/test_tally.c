/*
 * test_tally.c - lib/tally.c, the one self/total tally of `vigil attach`'s
 * top and of the sampled profile's model: self is frame 0's, total counts
 * a function once per stack however often it recurses there, frames that
 * are no function count nothing, the arrays grow as functions come, and
 * counts stop at UINT64_MAX.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "tally.h"

static void test_counts(void)
{
	/* Functions: 0 main, 1 fib, 2 leaf, 3 other. */
	static const uint32_t rec[] = { 1, 1, 1, 1, 0 };    /* fib in fib */
	static const uint32_t leaf[] = { 2, 1, 1, 0 };
	static const uint32_t inner[] = { 0, 3, 0 };        /* main again */
	struct vgl_tally t;
	int ok;

	vgl_tally_init(&t);
	ok = !vgl_tally_add(&t, rec, 5, 10) &&
	     !vgl_tally_add(&t, leaf, 4, 3) &&
	     !vgl_tally_add(&t, inner, 3, 2);
	CHECK("tally: added", ok, "an add failed");
	CHECK("tally: room for every function named", t.nfuncs == 4,
	      "nfuncs %zu", t.nfuncs);
	CHECK("tally: self is frame 0's",
	      t.nfuncs == 4 && t.self[0] == 2 && t.self[1] == 10 &&
	      t.self[2] == 3 && t.self[3] == 0,
	      "self %llu %llu %llu %llu", (unsigned long long)t.self[0],
	      (unsigned long long)t.self[1], (unsigned long long)t.self[2],
	      (unsigned long long)t.self[3]);
	/* fib: 4 times on the first stack, twice on the second: 10 + 3,
	 * not 4 * 10 + 2 * 3; main twice on the third: 2, not 4. */
	CHECK("tally: total once per stack, recursion or not",
	      t.nfuncs == 4 && t.total[0] == 15 && t.total[1] == 13 &&
	      t.total[2] == 3 && t.total[3] == 2,
	      "total %llu %llu %llu %llu", (unsigned long long)t.total[0],
	      (unsigned long long)t.total[1], (unsigned long long)t.total[2],
	      (unsigned long long)t.total[3]);
	/* The same chain again is another stack: counted again. */
	vgl_tally_add(&t, rec, 5, 1);
	CHECK("tally: each add is a stack of its own",
	      t.total[1] == 14 && t.self[1] == 11 && t.total[0] == 16,
	      "fib total %llu", (unsigned long long)t.total[1]);
	vgl_tally_release(&t);
	CHECK("tally: released is empty", !t.self && !t.total && !t.nfuncs,
	      "not empty");
}

static void test_none_and_growth(void)
{
	static const uint32_t a[] = { VGL_TALLY_NONE, 5, VGL_TALLY_NONE, 5 };
	static const uint32_t b[] = { 5, VGL_TALLY_NONE };
	uint32_t big[] = { 3000, 2, 3000 };
	struct vgl_tally t;
	size_t i, nonzero = 0;

	vgl_tally_init(&t);
	CHECK("tally none: reserve 0 gives arrays",
	      !vgl_tally_reserve(&t, 0) && t.self && t.total && t.nfuncs == 0,
	      "NULL");
	vgl_tally_add(&t, a, 4, 7);
	vgl_tally_add(&t, b, 2, 1);
	CHECK("tally none: a frame 0 that is no function gives no self",
	      t.nfuncs == 6 && t.self[5] == 1 && t.total[5] == 8,
	      "self %llu total %llu", (unsigned long long)t.self[5],
	      (unsigned long long)t.total[5]);
	/* Growing keeps what was counted and starts the new at 0. */
	vgl_tally_add(&t, big, 3, 4);
	for (i = 0; i < t.nfuncs; i++)
		nonzero += t.self[i] || t.total[i];
	CHECK("tally growth: kept, the new at 0",
	      t.nfuncs == 3001 && t.self[5] == 1 && t.total[5] == 8 &&
	      t.self[3000] == 4 && t.total[3000] == 4 && t.total[2] == 4 &&
	      nonzero == 3,
	      "nfuncs %zu, %zu counted", t.nfuncs, nonzero);
	CHECK("tally growth: reserve never shrinks",
	      !vgl_tally_reserve(&t, 10) && t.nfuncs == 3001, "%zu", t.nfuncs);
	vgl_tally_release(&t);
}

static void test_saturation(void)
{
	static const uint32_t s[] = { 0, 0 };
	struct vgl_tally t;

	vgl_tally_init(&t);
	vgl_tally_add(&t, s, 2, UINT64_MAX - 1);
	vgl_tally_add(&t, s, 2, 5);
	CHECK("tally: counts stop at UINT64_MAX",
	      t.self[0] == UINT64_MAX && t.total[0] == UINT64_MAX,
	      "self %llu", (unsigned long long)t.self[0]);
	vgl_tally_release(&t);
}

int main(void)
{
	test_counts();
	test_none_and_growth();
	test_saturation();
	return check_status();
}
