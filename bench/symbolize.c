/*
 * symbolize.c - the symbolization rate for bench/readers.py: reads a
 * profile, takes the call instruction of every edge (site - 1; all
 * distinct), and symbolizes them one by one, function name and file:line,
 * once the module is loaded (the first address is looked up before the
 * clock starts).  Stops after SECONDS (argv[2], default 10) so the old
 * symbolizer, which scans the symbol table per address, ends too.  Prints
 * "ADDRESSES SECONDS".
 *
 * Built twice by the benchmark: against this tree's lib/symbolizer.h, and
 * with -DBASE against the lib/symtab.h of the baseline (main), whose
 * vgl_symtab_lookup() gives the same answer (name and line) per address.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "vgl_reader.h"
#ifdef BASE
#include "symtab.h"
#else
#include "profile.h"
#include "symbolizer.h"
#endif

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct vgl_reader r;
	uint64_t *addr;
	uint32_t *mod;
	size_t i, n = 0, done = 0;
	double limit = argc > 2 ? atof(argv[2]) : 10.0, t0, t;
	unsigned long long sink = 0;

	if (argc < 2 || vgl_reader_open(&r, argv[1]) < 0) {
		fprintf(stderr, "usage: symbolize FILE.vgl [SECONDS]\n");
		return 2;
	}
	addr = malloc((r.nedges + 1) * sizeof(*addr));
	mod = malloc((r.nedges + 1) * sizeof(*mod));
	/* Distinct call sites in the main module (id 0), in a shuffled but
	 * fixed order, so neither symbolizer is helped by locality. */
	for (i = 0; i < r.nedges; i++)
		if (r.edges[i].site_mod == 0 && r.edges[i].site)
			addr[n++] = r.edges[i].site - 1;
	qsort(addr, n, sizeof(*addr), cmp_u64);
	{
		size_t k = 0;

		for (i = 0; i < n; i++)
			if (!k || addr[k - 1] != addr[i])
				addr[k++] = addr[i];
		n = k;
	}
	for (i = n; i > 1; i--) {
		static uint64_t state = 42;
		size_t j;
		uint64_t tmp = addr[i - 1];

		state = state * 6364136223846793005ull + 1442695040888963407ull;
		j = (size_t)((state >> 33) % i);

		addr[i - 1] = addr[j];
		addr[j] = tmp;
	}
	for (i = 0; i < n; i++)
		mod[i] = 0;
	if (!n) {
		fprintf(stderr, "symbolize: no call sites\n");
		return 1;
	}
#ifdef BASE
	{
		struct vgl_symtab st;
		struct vgl_sym out;

		vgl_symtab_init(&st, &r);
		vgl_symtab_lookup(&st, mod[0], addr[0], &out);
		t0 = now();
		for (i = 1; i < n; i++) {
			vgl_symtab_lookup(&st, mod[i], addr[i], &out);
			sink += out.line + (out.func[0] == 'c');
			done++;
			if (!(i & 255) && now() - t0 > limit)
				break;
		}
		t = now() - t0;
		vgl_symtab_release(&st);
	}
#else
	{
		struct vgl_symbolizer *s;
		const char *file;
		int line;

		vgl_symbolizer_from_reader(&s, &r);
		vgl_symbolizer_func(s, 0, addr[0]);
		vgl_symbolizer_line(s, 0, addr[0], &file, &line);
		t0 = now();
		for (i = 1; i < n; i++) {
			struct vgl_func_sym *f = vgl_symbolizer_func(s, 0, addr[i]);

			if (f)
				sink += vgl_func_sym_name(f)[0] == 'c';
			if (vgl_symbolizer_line(s, 0, addr[i], &file, &line) == 0)
				sink += line;
			done++;
			if (!(i & 255) && now() - t0 > limit)
				break;
		}
		t = now() - t0;
		vgl_symbolizer_free(s);
	}
#endif
	printf("%zu %.6f\n", done, t);
	fprintf(stderr, "(checksum %llu)\n", sink);
	free(addr);
	free(mod);
	vgl_reader_close(&r);
	return 0;
}
