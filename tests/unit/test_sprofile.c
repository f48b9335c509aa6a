/*
 * test_sprofile.c - lib/sprofile.c, the model of a sampled profile, on a
 * file written in memory by lib/vgl_sampled and lib/vgl_writer: equal
 * chains of two threads become one, a recursive function counts once per
 * sample in its total, a return address is looked up at address - 1, and
 * functions and chains come in the documented orders.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sprofile.h"
#include "vgl_sampled.h"
#include "vgl_writer.h"

#define NM VGL_NO_MODULE

static int build(struct vgl_reader *r)
{
	/* Frame 0 first (where the thread was), as the sampler gives them. */
	static const struct vgl_frame s1[] = {
		{ 0x10, NM, 0 }, { 0x20, NM, 0 }, { 0x30, NM, 0 } };
	static const struct vgl_frame s3[] = {
		{ 0x10, NM, 0 }, { 0x20, NM, 0 }, { 0x20, NM, 0 }, { 0x30, NM, 0 } };
	/* In module 0 (no symbols): 0x1101 is a return address, so it is
	 * looked up at 0x1100, the function frame 0 is in. */
	static const struct vgl_frame s4[] = {
		{ 0x1100, 0, 0 }, { 0x1101, 0, 0 }, { 0x30, NM, 0 } };
	struct vgl_writer_module mod = { 0, 0x1000, 0x1000, 0x9000, NULL, 0,
					 "/nonexistent/x", NULL };
	struct vgl_writer_section sec[2];
	struct vgl_sampled s;
	struct vgl_writer w;
	unsigned char *buf = NULL;
	size_t len = 0;
	int err;

	vgl_sampled_init(&s);
	err = vgl_sampled_add_stack(&s, 7, s1, 3, 5);
	err = err ? err : vgl_sampled_add_stack(&s, 8, s1, 3, 2);
	err = err ? err : vgl_sampled_add_stack(&s, 7, s3, 4, 3);
	err = err ? err : vgl_sampled_add_stack(&s, 7, s4, 3, 4);
	err = err ? err : vgl_sampled_sections(&s, sec);
	memset(&w, 0, sizeof(w));
	w.meta.kind = VGL_KIND_SAMPLED;
	w.meta.state = VGL_STATE_CUT_SHORT;
	w.modules = &mod;
	w.nmodules = 1;
	w.extra = sec;
	w.nextra = 2;
	err = err ? err : vgl_writer_buffer(&w, &buf, &len);
	err = err ? err : vgl_reader_parse(r, buf, len, "sprofile");
	free(buf);
	vgl_sampled_release(&s);
	return err;
}

/* A chain as its names, outermost first, joined with ';'. */
static void chain_names(const struct vgl_sprofile *p, size_t i, char *out,
			size_t len)
{
	const struct vgl_sstack *st = &p->stacks[i];
	size_t k, at = 0;

	out[0] = 0;
	for (k = 0; k < st->depth && at < len; k++)
		at += (size_t)snprintf(out + at, len - at, "%s%s", k ? ";" : "",
				       p->funcs[p->chain[st->first + k]].name);
}

int main(void)
{
	static const char *const names[] = { "0x10", "x+0x100", "0x30", "0x20" };
	static const uint64_t self[] = { 10, 4, 0, 0 };
	static const uint64_t total[] = { 10, 4, 14, 10 };
	static const char *const chains[] = {
		"0x30;0x20;0x10", "0x30;0x20;0x20;0x10", "0x30;x+0x100;x+0x100",
	};
	static const uint64_t counts[] = { 7, 3, 4 };
	struct vgl_symbolizer *sym = NULL;
	struct vgl_sprofile p;
	struct vgl_reader r;
	char buf[256];
	size_t i;
	int err;

	err = build(&r);
	CHECK("sprofile input", !err, "err %d", err);
	if (err)
		return check_status();
	err = vgl_symbolizer_from_reader(&sym, &r);
	err = err ? err : vgl_sprofile_build(&p, &r, sym);
	CHECK("sprofile builds", !err, "err %d", err);
	if (err)
		return check_status();
	CHECK("sprofile samples", p.samples == 14, "%llu",
	      (unsigned long long)p.samples);
	CHECK("sprofile functions", p.nfuncs == 4, "%zu", p.nfuncs);
	for (i = 0; i < 4 && i < p.nfuncs; i++) {
		snprintf(buf, sizeof(buf), "sprofile function %zu", i);
		CHECK(buf, !strcmp(p.funcs[i].name, names[i]) &&
		      p.self[i] == self[i] && p.total[i] == total[i] &&
		      p.funcs[i].calls == 0,
		      "%s self %llu total %llu", p.funcs[i].name,
		      (unsigned long long)p.self[i],
		      (unsigned long long)p.total[i]);
	}
	CHECK("sprofile no-module address kept", p.nfuncs > 2 &&
	      p.funcs[2].addr == 0x30 &&
	      p.funcs[2].module == VGL_PROFILE_NO_MODULE, "%llx",
	      (unsigned long long)p.funcs[2].addr);
	CHECK("sprofile module offset", p.nfuncs > 1 &&
	      p.funcs[1].addr == 0x100 && p.funcs[1].module == 0, "%llx",
	      (unsigned long long)p.funcs[1].addr);
	CHECK("sprofile chains", p.nstacks == 3, "%zu", p.nstacks);
	for (i = 0; i < 3 && i < p.nstacks; i++) {
		chain_names(&p, i, buf, sizeof(buf));
		CHECK(chains[i], !strcmp(buf, chains[i]) &&
		      p.stacks[i].count == counts[i], "%s %llu", buf,
		      (unsigned long long)p.stacks[i].count);
	}
	vgl_sprofile_release(&p);
	vgl_sprofile_release(&p);
	CHECK("sprofile release twice", p.nfuncs == 0 && !p.funcs, "not reset");
	vgl_symbolizer_free(sym);
	vgl_reader_close(&r);
	return check_status();
}
