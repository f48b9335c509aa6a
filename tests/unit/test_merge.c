/*
 * test_merge.c - lib/vgl_merge.c: profiles of one program loaded at other
 * addresses, with other module ids, sum edge by edge in the first one's
 * address space; edges outside any module are kept as they are; counts
 * saturate; another program is refused (-EXDEV) unless kept apart; a
 * module without build-id is refused (-ENOENT) unless matched by path; a
 * window snapshot is left out; the merged file reads back with
 * lib/vgl_reader as finished or cut short; names of groups that share a
 * base name carry their build-id.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "vgl_merge.h"
#include "vgl_reader.h"
#include "vgl_writer.h"

static const uint8_t exe_a[20] = { 0xaa, 1, 2, 3 };
static const uint8_t exe_b[20] = { 0xbb, 1, 2, 3 };
static const uint8_t lib_id[20] = { 0x11, 9, 9 };

/*
 * A profile of the program whose executable has build-id exe (NULL for
 * none), executable loaded at b0 with module id id0, libx at b1 with id
 * 1 - id0.  Edges (as ELF offsets): exe+0x100 from exe+0x501 (n1 calls,
 * split over two threads), libx+0x200 from exe+0x601 (n2), and one from
 * 0x77 (no module) into exe+0x100 (1 call).
 */
static int make(struct vgl_reader *r, const uint8_t *exe, uint64_t b0,
		uint64_t b1, uint32_t id0, uint64_t n1, uint64_t n2,
		uint32_t kind, uint32_t state)
{
	uint32_t id1 = 1 - id0;
	const struct vgl_writer_module mods[] = {
		{ id0, b0, b0, b0 + 0x10000, exe, exe ? 20 : 0, "/bin/prog",
		  NULL },
		{ id1, b1, b1, b1 + 0x10000, lib_id, 20, "/lib/libx.so",
		  NULL },
	};
	const struct vgl_edge e1[] = {
		{ b0 + 0x100, b0 + 0x501, n1 / 2, id0, id0 },
		{ b1 + 0x200, b0 + 0x601, n2, id1, id0 },
	};
	const struct vgl_edge e2[] = {
		{ b0 + 0x100, b0 + 0x501, n1 - n1 / 2, id0, id0 },
		{ b0 + 0x100, 0x77, 1, id0, VGL_NO_MODULE },
	};
	const struct vgl_writer_block blocks[] = { { 10, e1, 2 },
						   { 11, e2, 2 } };
	static const char *argv[] = { "prog" };
	struct vgl_writer w;
	unsigned char *buf;
	size_t len;
	int err;

	memset(&w, 0, sizeof(w));
	w.meta.kind = kind;
	w.meta.state = state;
	w.meta.exit_status = 0;
	w.meta.pid = 7;
	w.meta.start_ns = 1000 + b0 % 7;
	w.meta.end_ns = 2000 + b0 % 7;
	w.exe = "/bin/prog";
	w.host = "box";
	w.argv = argv;
	w.argc = 1;
	w.modules = mods;
	w.nmodules = 2;
	w.blocks = blocks;
	w.nblocks = 2;
	err = vgl_writer_buffer(&w, &buf, &len);
	if (err)
		return err;
	/* A merged kind: nothing to ask /proc about, as for a buffer. */
	err = vgl_reader_parse(r, buf, len, "<test>");
	free(buf);
	return err;
}

/* The count of the edge into ELF offset callee_off of module path, from
 * ELF offset site_off of the executable (or raw site when site_mod is
 * VGL_NO_MODULE), in r; UINT64_MAX - 1 when there is none. */
static uint64_t count_of(const struct vgl_reader *r, const char *path,
			 uint64_t callee_off, uint64_t site)
{
	size_t i;

	for (i = 0; i < r->nedges; i++) {
		const struct vgl_edge_info *e = &r->edges[i];
		const struct vgl_module_info *cm = vgl_reader_module(r,
							e->callee_mod);
		const struct vgl_module_info *sm = vgl_reader_module(r,
							e->site_mod);

		if (!cm || strcmp(cm->path, path) ||
		    e->callee - cm->bias != callee_off)
			continue;
		if ((sm ? e->site - sm->bias : e->site) == site)
			return e->count;
	}
	return UINT64_MAX - 1;
}

static void test_sum(void)
{
	struct vgl_merge m;
	struct vgl_reader r, out;
	char path[] = "/tmp/test_merge.XXXXXX";
	int fd, err, ok = 1;

	vgl_merge_init(&m);
	/* Three processes: other load addresses, other module ids. */
	ok &= !make(&r, exe_a, 0x555500000000, 0x7f0000000000, 0, 10, 3,
		    VGL_KIND_LIVE, VGL_STATE_FINISHED) &&
	      !vgl_merge_add(&m, &r, "a1");
	vgl_reader_close(&r);
	ok &= !make(&r, exe_a, 0x555600000000, 0x7f1000000000, 1, 20, 4,
		    VGL_KIND_LIVE, VGL_STATE_FINISHED) &&
	      !vgl_merge_add(&m, &r, "a2");
	vgl_reader_close(&r);
	ok &= !make(&r, exe_a, 0x400000, 0x7f2000000000, 0, 5, 5,
		    VGL_KIND_LIVE, VGL_STATE_FINISHED) &&
	      !vgl_merge_add(&m, &r, "a3");
	vgl_reader_close(&r);
	/* A window snapshot: not in the profile, noted for the windows. */
	ok &= !make(&r, exe_a, 0x400000, 0x7f2000000000, 0, 1000, 1000,
		    VGL_KIND_WINDOW, VGL_STATE_FINISHED) &&
	      !vgl_merge_add(&m, &r, "w");
	vgl_reader_close(&r);
	CHECK("sum: inputs added", ok && m.inputs == 3 &&
	      m.npending == 1 && m.ngroups == 1,
	      "ok %d inputs %zu windows %zu groups %zu", ok, m.inputs,
	      m.npending, m.ngroups);
	CHECK("sum: calls", vgl_merge_calls(&m) == 35 + 12 + 3,
	      "%llu", (unsigned long long)vgl_merge_calls(&m));

	fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
	err = vgl_merge_write(&m, 0, path);
	CHECK("sum: written", !err, "%s", strerror(-err));
	err = vgl_reader_open(&out, path);
	CHECK("sum: reads back", !err, "%s", out.err);
	if (!err) {
		CHECK("sum: exe edge", count_of(&out, "/bin/prog", 0x100,
						0x501) == 35, "%llu",
		      (unsigned long long)count_of(&out, "/bin/prog", 0x100,
						   0x501));
		CHECK("sum: lib edge", count_of(&out, "/lib/libx.so", 0x200,
						0x601) == 12, "%llu",
		      (unsigned long long)count_of(&out, "/lib/libx.so",
						   0x200, 0x601));
		/* No module: the raw site, the same in each process. */
		CHECK("sum: no-module edge", count_of(&out, "/bin/prog",
						      0x100, 0x77) == 3,
		      "%llu", (unsigned long long)count_of(&out, "/bin/prog",
							   0x100, 0x77));
		CHECK("sum: shape", out.nedges == 3 && out.nmodules == 2 &&
		      out.nthreads == 1 && out.meta.kind == VGL_KIND_MERGED &&
		      out.liveness == VGL_LIVENESS_FINISHED &&
		      out.meta.start_ns == 1000 + 0x400000 % 7,
		      "%zu edges %zu modules %zu threads liveness %d",
		      out.nedges, out.nmodules, out.nthreads, out.liveness);
		vgl_reader_close(&out);
	}
	unlink(path);
	vgl_merge_release(&m);
}

static void test_saturate_and_cut(void)
{
	struct vgl_merge m;
	struct vgl_reader r, out;
	char path[] = "/tmp/test_merge.XXXXXX";
	int fd, ok = 1;

	vgl_merge_init(&m);
	ok &= !make(&r, exe_a, 0x1000000, 0x2000000, 0, UINT64_MAX - 5, 1,
		    VGL_KIND_LIVE, VGL_STATE_FINISHED) &&
	      !vgl_merge_add(&m, &r, "big");
	vgl_reader_close(&r);
	ok &= !make(&r, exe_a, 0x3000000, 0x4000000, 0, 10, 1,
		    VGL_KIND_LIVE, VGL_STATE_CUT_SHORT) &&
	      !vgl_merge_add(&m, &r, "cut");
	vgl_reader_close(&r);
	CHECK("cut: counted", ok && m.cut_short == 1, "ok %d cut %zu", ok,
	      m.cut_short);
	fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
	if (!vgl_merge_write(&m, 0, path) && !vgl_reader_open(&out, path)) {
		CHECK("saturate: edge", count_of(&out, "/bin/prog", 0x100,
						 0x501) == UINT64_MAX,
		      "%llu", (unsigned long long)count_of(&out, "/bin/prog",
							   0x100, 0x501));
		CHECK("cut: state", out.liveness == VGL_LIVENESS_CUT_SHORT,
		      "liveness %d", out.liveness);
		vgl_reader_close(&out);
	} else {
		CHECK("saturate: written", 0, "not written");
	}
	unlink(path);
	vgl_merge_release(&m);
}

static void test_refusals(void)
{
	struct vgl_merge m;
	struct vgl_reader r;
	char name[64];
	int err;

	vgl_merge_init(&m);
	make(&r, exe_a, 0x1000000, 0x2000000, 0, 4, 1, VGL_KIND_LIVE,
	     VGL_STATE_FINISHED);
	vgl_merge_add(&m, &r, "a.vgl");
	vgl_reader_close(&r);
	make(&r, exe_b, 0x1000000, 0x2000000, 0, 4, 1, VGL_KIND_LIVE,
	     VGL_STATE_FINISHED);
	err = vgl_merge_add(&m, &r, "b.vgl");
	CHECK("other program: refused", err == -EXDEV && m.ngroups == 1 &&
	      m.inputs == 1 && strstr(m.err, "a.vgl") &&
	      strstr(m.err, "b.vgl") && strstr(m.err, "aa010203") &&
	      strstr(m.err, "bb010203"), "err %d: %s", err, m.err);
	m.keep_apart = 1;
	err = vgl_merge_add(&m, &r, "b.vgl");
	vgl_reader_close(&r);
	CHECK("other program: kept apart", !err && m.ngroups == 2 &&
	      vgl_merge_calls(&m) == 12, "err %d groups %zu", err,
	      m.ngroups);
	vgl_merge_name(&m, 1, name, sizeof(name));
	CHECK("same base name: build-id in the name",
	      !strcmp(name, "prog.bb010203.vgl"), "%s", name);

	make(&r, NULL, 0x1000000, 0x2000000, 0, 4, 1, VGL_KIND_LIVE,
	     VGL_STATE_FINISHED);
	err = vgl_merge_add(&m, &r, "c.vgl");
	CHECK("no build-id: refused", err == -ENOENT && m.ngroups == 2 &&
	      strstr(m.err, "c.vgl: module /bin/prog has no build-id"),
	      "err %d: %s", err, m.err);
	m.by_path = 1;
	err = vgl_merge_add(&m, &r, "c.vgl");
	CHECK("no build-id: by path", !err && m.ngroups == 3 &&
	      m.by_path_matches == 1 &&
	      !strcmp(m.by_path_example, "/bin/prog"), "err %d: %s", err,
	      m.err);
	err = vgl_merge_add(&m, &r, "c2.vgl");
	CHECK("no build-id: same path, same program", !err &&
	      m.ngroups == 3 && m.by_path_matches == 1, "err %d groups %zu",
	      err, m.ngroups);
	vgl_reader_close(&r);
	vgl_merge_name(&m, 0, name, sizeof(name));
	CHECK("names: first", !strcmp(name, "prog.aa010203.vgl"), "%s", name);
	vgl_merge_release(&m);
}

int main(void)
{
	test_sum();
	test_saturate_and_cut();
	test_refusals();
	return check_status();
}
