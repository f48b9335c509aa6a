/*
 * test_stacktab.c - lib/stacktab.c, the one table of distinct stacks of
 * the sampler and the sampled-file writer: which keys are one stack,
 * keys whose hashes collide (in the index, and in all 64 bits), the
 * order of the entries, growth well past the first index and chunk of
 * words, and emptying it for the next round as the sampler does.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stacktab.h"

/* The index of the entry of key (tid, tag, w[0..n)), or SIZE_MAX. */
static size_t find(const struct vgl_stacktab *t, uint32_t tid, uint64_t tag,
		   const uint64_t *w, uint32_t n)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->e[i].tid == tid && t->e[i].tag == tag && t->e[i].n == n &&
		    (!n || !memcmp(t->e[i].words, w,
				   n * sizeof(*w))))
			return i;
	return SIZE_MAX;
}

static void test_keys(void)
{
	struct vgl_stacktab t;
	uint64_t a[3] = { 0x401000, 0x401234, 0x7f0000001000 };
	uint64_t b[3] = { 0x401000, 0x401234, 0x7f0000001001 };
	int ok;

	vgl_stacktab_init(&t);
	ok = !vgl_stacktab_add(&t, 7, 0, a, 3, 1) &&
	     !vgl_stacktab_add(&t, 7, 0, a, 3, 2) &&    /* same: adds up */
	     !vgl_stacktab_add(&t, 8, 0, a, 3, 4) &&    /* other thread */
	     !vgl_stacktab_add(&t, 7, 1, a, 3, 8) &&    /* other tag */
	     !vgl_stacktab_add(&t, 7, 0, a, 2, 16) &&   /* a prefix */
	     !vgl_stacktab_add(&t, 7, 0, b, 3, 32) &&   /* last word */
	     !vgl_stacktab_add(&t, 7, 0, NULL, 0, 64) && /* no frame */
	     !vgl_stacktab_add(&t, 7, 0, NULL, 0, 128);
	CHECK("stacktab keys: added", ok, "an add failed");
	CHECK("stacktab keys: thread, tag, length and every word tell stacks apart",
	      t.n == 6, "%zu entries, want 6", t.n);
	CHECK("stacktab keys: in the order first added, counts added up",
	      t.n == 6 && t.e[0].count == 3 && t.e[0].tid == 7 &&
	      t.e[1].count == 4 && t.e[1].tid == 8 &&
	      t.e[2].count == 8 && t.e[2].tag == 1 &&
	      t.e[3].count == 16 && t.e[3].n == 2 &&
	      t.e[4].count == 32 && t.e[5].count == 192 && t.e[5].n == 0,
	      "entries out of order or miscounted");
	CHECK("stacktab keys: the words are a copy",
	      t.n == 6 && !memcmp(t.e[4].words, b, sizeof(b)) &&
	      t.e[4].words != b,
	      "words differ");
	CHECK("stacktab keys: an empty stack's words are not NULL",
	      t.n == 6 && t.e[5].words != NULL, "NULL");
	CHECK("stacktab keys: the entry's hash is vgl_stacktab_hash",
	      t.n == 6 && t.e[0].hash == vgl_stacktab_hash(7, 0, a, 3) &&
	      t.e[5].hash == vgl_stacktab_hash(7, 0, NULL, 0),
	      "hash %llx", (unsigned long long)t.e[0].hash);
	vgl_stacktab_release(&t);
	CHECK("stacktab keys: released is empty", t.n == 0 && !t.e && !t.slots &&
	      !t.chunks, "not empty");
}

/* The hash's state after the tid and the tag: FNV-1 over (tid ^ tag),
 * as stacktab.c starts it (checked below: the keys made with it must
 * collide, or the test fails). */
static uint64_t state(uint32_t tid, uint64_t tag)
{
	return (1469598103934665603ull ^ tid ^ tag) * 1099511628211ull;
}

/*
 * Keys of equal 64-bit hashes, made from the hash's definition: (tid 1,
 * tag 0) and (tid 0, tag 1), folded in with one xor; two tags of one
 * thread, the word making up for the difference; two chains of one
 * thread and tag, the second word making up for the first.  And keys
 * that share only their index slot, found by search.
 */
static void test_collisions(void)
{
	struct vgl_stacktab t;
	uint64_t w[2] = { 0x1000, 0x2000 }, x[1], y[1], hx;
	size_t i, found = 0;

	CHECK("stacktab collide: the two keys have one 64-bit hash",
	      vgl_stacktab_hash(1, 0, w, 2) == vgl_stacktab_hash(0, 1, w, 2),
	      "%llx != %llx",
	      (unsigned long long)vgl_stacktab_hash(1, 0, w, 2),
	      (unsigned long long)vgl_stacktab_hash(0, 1, w, 2));
	vgl_stacktab_init(&t);
	vgl_stacktab_add(&t, 1, 0, w, 2, 5);
	vgl_stacktab_add(&t, 0, 1, w, 2, 7);
	vgl_stacktab_add(&t, 1, 0, w, 2, 1);
	vgl_stacktab_add(&t, 0, 1, w, 2, 1);
	CHECK("stacktab collide: equal hashes, two stacks, each its count",
	      t.n == 2 && t.e[0].tid == 1 && t.e[0].count == 6 &&
	      t.e[1].tid == 0 && t.e[1].count == 8,
	      "%zu entries", t.n);

	{
		uint64_t p[1] = { 0x401000 }, q[1], r[1],
			 c[2] = { 0x5000, 0x6000 }, d[2] = { 0x5008, 0 };

		q[0] = p[0] ^ state(9, 2) ^ state(9, 4);
		r[0] = p[0] ^ state(9, 2) ^ state(10, 2);
		d[1] = c[1] ^ ((state(9, 2) ^ c[0]) * 1099511628211ull) ^
		       ((state(9, 2) ^ d[0]) * 1099511628211ull);
		CHECK("stacktab collide: made keys have one 64-bit hash",
		      vgl_stacktab_hash(9, 2, p, 1) == vgl_stacktab_hash(9, 4, q, 1) &&
		      vgl_stacktab_hash(9, 2, p, 1) == vgl_stacktab_hash(10, 2, r, 1) &&
		      vgl_stacktab_hash(9, 2, c, 2) == vgl_stacktab_hash(9, 2, d, 2),
		      "the hash is not the one the test makes collisions for");
		vgl_stacktab_clear(&t);
		vgl_stacktab_add(&t, 9, 2, p, 1, 1);
		vgl_stacktab_add(&t, 9, 4, q, 1, 2);
		vgl_stacktab_add(&t, 9, 2, c, 2, 4);
		vgl_stacktab_add(&t, 9, 2, d, 2, 8);
		vgl_stacktab_add(&t, 9, 4, q, 1, 16);
		vgl_stacktab_add(&t, 9, 2, d, 2, 32);
		vgl_stacktab_add(&t, 10, 2, r, 1, 64);
		CHECK("stacktab collide: equal hashes, another thread, tag or word, apart",
		      t.n == 5 && t.e[0].count == 1 && t.e[1].count == 18 &&
		      t.e[2].count == 4 && t.e[3].count == 40 &&
		      t.e[4].count == 64 && t.e[0].hash == t.e[1].hash &&
		      t.e[0].hash == t.e[4].hash && t.e[2].hash == t.e[3].hash,
		      "%zu entries", t.n);
	}

	/* 40 one-word keys in the slot of x[0] in the first index (256). */
	vgl_stacktab_clear(&t);
	x[0] = 1;
	hx = vgl_stacktab_hash(3, 0, x, 1);
	vgl_stacktab_add(&t, 3, 0, x, 1, 1);
	for (y[0] = 2; found < 40 && y[0] < 1000000; y[0]++)
		if ((vgl_stacktab_hash(3, 0, y, 1) & 255) == (hx & 255)) {
			vgl_stacktab_add(&t, 3, 0, y, 1, y[0]);
			found++;
		}
	CHECK("stacktab collide: 40 keys of one slot found", found == 40,
	      "%zu", found);
	for (i = 1; i <= found && i < t.n; i++)
		if (t.e[i].count != t.e[i].words[0] ||
		    (t.e[i].hash & 255) != (hx & 255))
			break;
	CHECK("stacktab collide: one slot, each key its own entry",
	      t.n == 41 && i == 41 && t.nslots == 256, "%zu entries, %zu slots",
	      t.n, t.nslots);
	/* Each found again, the slot's run probed past the others. */
	vgl_stacktab_add(&t, 3, 0, x, 1, 10);
	for (i = 1; i < t.n; i++)
		vgl_stacktab_add(&t, 3, 0, t.e[i].words, 1, 1);
	for (i = 1; i < t.n; i++)
		if (t.e[i].count != t.e[i].words[0] + 1)
			break;
	CHECK("stacktab collide: found again along the probe run",
	      t.n == 41 && t.e[0].count == 11 && i == 41, "%zu entries", t.n);
	vgl_stacktab_release(&t);
}

/* Far past the first index (256 slots) and chunk of words (8192): every
 * stack kept, found, and in order; the index at most half full; a stack
 * longer than a chunk; the words never moved by what came after. */
static void test_growth(void)
{
	enum { N = 20000 };
	struct vgl_stacktab t;
	uint64_t w[41];
	size_t i, bad = 0;
	uint32_t n;
	int k, fail = 0;

	vgl_stacktab_init(&t);
	for (k = 0; k < 2; k++)
		for (i = 0; i < N; i++) {
			n = 1 + (uint32_t)(i % 40);
			memset(w, 0, sizeof(w));
			w[0] = i;
			if (n > 1)
				w[n - 1] = i * 7;
			fail |= vgl_stacktab_add(&t, (uint32_t)(i % 13), i % 3,
						 w, n, 1 + (uint64_t)k);
		}
	CHECK("stacktab growth: every add succeeded", !fail, "failed");
	for (i = 0; i < N && i < t.n; i++) {
		n = 1 + (uint32_t)(i % 40);
		memset(w, 0, sizeof(w));
		w[0] = i;
		if (n > 1)
			w[n - 1] = i * 7;
		if (t.e[i].count != 3 || t.e[i].n != n ||
		    t.e[i].tid != i % 13 || t.e[i].tag != i % 3 ||
		    (n && memcmp(t.e[i].words, w,
				 n * sizeof(*w))) ||
		    find(&t, (uint32_t)(i % 13), i % 3, w, n) != i)
			bad++;
	}
	CHECK("stacktab growth: every stack once, in order, counts added up",
	      t.n == N && !bad, "%zu entries, %zu wrong", t.n, bad);
	{
		enum { BIG = 10000 };       /* words: more than a chunk */
		static uint64_t big[BIG];
		const uint64_t *before = t.e[0].words;

		for (i = 0; i < BIG; i++)
			big[i] = i * 3;
		fail = vgl_stacktab_add(&t, 1, 0, big, BIG, 1) ||
		       vgl_stacktab_add(&t, 1, 0, big, BIG, 1) ||
		       vgl_stacktab_add(&t, 1, 0, big, 1, 1);
		CHECK("stacktab growth: a stack longer than a chunk",
		      !fail && t.n == N + 2 && t.e[N].n == BIG &&
		      t.e[N].count == 2 &&
		      !memcmp(t.e[N].words, big, sizeof(big)) &&
		      t.e[N + 1].n == 1 && t.e[N + 1].count == 1,
		      "%zu entries", t.n);
		CHECK("stacktab growth: words stay where they were put",
		      t.e[0].words == before && t.e[0].words[0] == 0,
		      "moved");
	}
	CHECK("stacktab growth: index at most half full, a power of 2",
	      t.nslots >= 2 * t.n && !(t.nslots & (t.nslots - 1)),
	      "%zu slots for %zu", t.nslots, t.n);

	/* Emptied as the sampler does each round: nothing found, the
	 * memory kept, and filled again alike. */
	{
		size_t slots = t.nslots, cap = t.cap;
		const uint64_t *first = t.e[0].words;
		const struct vgl_stack_chunk *chunks = t.chunks;

		vgl_stacktab_clear(&t);
		CHECK("stacktab clear: empty, memory kept",
		      t.n == 0 && t.nslots == slots && t.cap == cap &&
		      t.chunks == chunks,
		      "n %zu slots %zu", t.n, t.nslots);
		w[0] = 5;
		vgl_stacktab_add(&t, 5 % 13, 5 % 3, w, 1, 9);
		CHECK("stacktab clear: a stack of before is new again, in the first chunk",
		      t.n == 1 && t.e[0].count == 9 && t.e[0].words == first,
		      "n %zu count %llu", t.n,
		      (unsigned long long)(t.n ? t.e[0].count : 0));
	}
	vgl_stacktab_release(&t);
}

int main(void)
{
	test_keys();
	test_collisions();
	test_growth();
	return check_status();
}
