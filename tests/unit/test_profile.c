/*
 * test_profile.c - lib/profile.c on a profile written with lib/vgl_writer.c:
 * functions by module and address, calls into and out of each function,
 * per-thread totals, and the order a report prints.  The module's file
 * does not exist, so every function is named module+0xOFFSET (the warning
 * that says so goes to stderr).
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "profile.h"
#include "vgl_writer.h"

#define BIAS 0x1000u

int main(void)
{
	static const struct vgl_edge t100[] = {
		{ BIAS + 0x100, BIAS + 0x234, 5, 0, 0 },
		{ BIAS + 0x200, BIAS + 0x250, 2, 0, 0 },
	};
	static const struct vgl_edge t101[] = {
		{ BIAS + 0x100, BIAS + 0x234, 10, 0, 0 },
		{ BIAS + 0x100, BIAS + 0x300, 1, 0, 0 },
	};
	static const struct vgl_writer_module mod = {
		0, BIAS, BIAS, BIAS + 0x1000, NULL, 0, "/nonexistent/prog", NULL
	};
	static const struct vgl_writer_block blocks[] = {
		{ 100, t100, 2 }, { 101, t101, 2 },
	};
	struct vgl_writer w;
	struct vgl_reader r;
	struct vgl_symbolizer *sym = NULL;
	struct vgl_profile p;
	unsigned char *buf;
	size_t len, f0;
	int err;

	memset(&w, 0, sizeof(w));
	w.meta.kind = VGL_KIND_MERGED;
	w.meta.state = VGL_STATE_FINISHED;
	w.modules = &mod;
	w.nmodules = 1;
	w.blocks = blocks;
	w.nblocks = 2;
	if (vgl_writer_buffer(&w, &buf, &len) ||
	    vgl_reader_parse(&r, buf, len, "test") ||
	    vgl_symbolizer_from_reader(&sym, &r)) {
		CHECK("profile setup", 0, "could not write or read the profile");
		return check_status();
	}
	err = vgl_profile_build(&p, &r, sym);
	CHECK("profile builds", err == 0, "error %d", err);
	if (err)
		return check_status();

	/* Two callees, three callers (one per call site: no symbols). */
	CHECK("profile functions", p.nfuncs == 5 && p.ncalled == 2,
	      "%zu functions, %zu called", p.nfuncs, p.ncalled);
	CHECK("profile most called first",
	      !strcmp(p.funcs[0].name, "prog+0x100") && p.funcs[0].calls == 16 &&
	      !strcmp(p.funcs[1].name, "prog+0x200") && p.funcs[1].calls == 2,
	      "got %s %llu, %s %llu", p.funcs[0].name,
	      (unsigned long long)p.funcs[0].calls, p.funcs[1].name,
	      (unsigned long long)p.funcs[1].calls);
	CHECK("profile function identity", p.funcs[0].module == 0 &&
	      p.funcs[0].addr == 0x100 && !p.funcs[0].known &&
	      !strcmp(p.funcs[0].label, p.funcs[0].name),
	      "module %u addr %llx", p.funcs[0].module,
	      (unsigned long long)p.funcs[0].addr);
	CHECK("profile total", p.total_calls == 18, "%llu",
	      (unsigned long long)p.total_calls);
	CHECK("profile call rows", p.ncalls == 3 && p.calls[0].calls == 15 &&
	      p.calls[1].calls == 2 && p.calls[2].calls == 1,
	      "%zu rows", p.ncalls);
	f0 = 0;
	CHECK("profile calls into a function, most first",
	      p.into_first[1] - p.into_first[0] == 2 &&
	      p.calls[p.into[p.into_first[f0]]].calls == 15 &&
	      p.calls[p.into[p.into_first[f0] + 1]].calls == 1 &&
	      !strcmp(p.funcs[p.calls[p.into[p.into_first[f0]]].caller].name,
		      "prog+0x233"),
	      "%zu rows into f0", p.into_first[1] - p.into_first[0]);
	{
		uint32_t c = p.calls[0].caller;

		CHECK("profile callees of a caller",
		      p.callees_first[c + 1] - p.callees_first[c] == 1 &&
		      p.callees[p.callees_first[c]].callee == 0 &&
		      p.callees[p.callees_first[c]].calls == 15 &&
		      p.callees[p.callees_first[c]].inlined_in == VGL_PROFILE_NONE,
		      "%zu callees", p.callees_first[c + 1] - p.callees_first[c]);
	}
	CHECK("profile threads", p.nthreads == 2 && p.threads[0].tid == 100 &&
	      p.threads[0].calls == 7 && p.threads[1].tid == 101 &&
	      p.threads[1].calls == 11, "%zu threads", p.nthreads);
	CHECK("profile edges keep per-thread counts", p.nedges == 3 &&
	      p.edges[0].raw->nthreads == 2, "%zu edges", p.nedges);

	vgl_profile_release(&p);
	vgl_symbolizer_free(sym);
	vgl_reader_close(&r);
	free(buf);
	return check_status();
}
