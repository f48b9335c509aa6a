/*
 * Benchmark workload 4: an application-like mix.
 *
 * Each round fills a small array from a generator, sorts it, hashes it and
 * records the hash in an open-addressing table, through a handful of helper
 * functions that each do real work.  Calls are a modest fraction of the
 * time, as in most programs, so this shows what a profiler costs when the
 * program is not made of nothing but calls.
 *
 * usage: app [ROUNDS]   (default 400000)
 * stdout: the checksum; stderr: "calls=C", calls to the helpers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 48
#define SLOTS 4096

static uint64_t slots[SLOTS];
static int used;
static uint64_t rng_state = 88172645463325252ULL;

__attribute__((noinline)) static uint64_t rng(void)
{
	uint64_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

__attribute__((noinline)) static void fill(uint32_t *a, int n)
{
	uint64_t r = rng();
	for (int i = 0; i < n; i++) {
		r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		a[i] = (uint32_t)(r >> 33) % 1000;
	}
}

__attribute__((noinline)) static void sort_small(uint32_t *a, int n)
{
	for (int i = 1; i < n; i++) {
		uint32_t v = a[i];
		int j = i - 1;
		while (j >= 0 && a[j] > v) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = v;
	}
}

__attribute__((noinline)) static uint64_t fnv1a(const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len; i++)
		h = (h ^ s[i]) * 0x100000001b3ULL;
	return h;
}

__attribute__((noinline)) static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

__attribute__((noinline)) static int insert(uint64_t key)
{
	uint64_t i = mix64(key) & (SLOTS - 1);

	/* Half full: start over, so that probes stay short. */
	if (used >= SLOTS / 2) {
		memset(slots, 0, sizeof(slots));
		used = 0;
	}
	while (slots[i] != 0 && slots[i] != key)
		i = (i + 1) & (SLOTS - 1);
	if (slots[i] == key)
		return 0;
	slots[i] = key;
	used++;
	return 1;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 400000;
	uint32_t a[N];
	uint64_t sum = 0;
	long fresh = 0;

	for (long r = 0; r < rounds; r++) {
		fill(a, N);
		sort_small(a, N);
		uint64_t h = fnv1a(a, sizeof(a));
		fresh += insert(h | 1);
		sum += h ^ a[N / 2];
	}
	printf("app checksum = %llu fresh = %ld\n", (unsigned long long)sum,
	       fresh);
	/* Per round: fill, rng, sort_small, fnv1a, insert, mix64. */
	fprintf(stderr, "calls=%ld\n", rounds * 6L);
	return 0;
}
