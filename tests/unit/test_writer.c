/*
 * test_writer.c - lib/vgl_writer.c: what it writes reads back with
 * lib/vgl_reader.c exactly (metadata, strings, command line, modules,
 * edges summed over threads and per thread), as a buffer and as a file
 * written through a temporary name; what the format cannot hold is
 * refused.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "vgl_reader.h"
#include "vgl_writer.h"

static const uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3 };

static const struct vgl_edge t1[] = {
	{ 0x1100, 0x2234, 5, 0, 0 },
	{ 0x9000, 0x2300, 7, 1, 0 },
};
static const struct vgl_edge t2[] = {
	{ 0x1100, 0x2234, 10, 0, 0 },
	{ 0x1200, 0xdead, 1, 0, VGL_NO_MODULE },
};

/* A module without build-id carries what identifies its file. */
static const struct vgl_module_file libx_file = {
	123456, 1700000000123456789ull, 0xdeadbeef,
	VGL_FILE_STAT | VGL_FILE_CRC
};

static void fill(struct vgl_writer *w)
{
	static const char *argv[] = { "prog", "-x", "a b" };
	static const struct vgl_writer_module mods[] = {
		{ 0, 0x1000, 0x1000, 0x3000, bid, sizeof(bid), "/bin/prog", NULL },
		{ 1, 0x8000, 0x8000, 0xa000, NULL, 0, "/lib/libx.so", &libx_file },
	};
	static const struct vgl_writer_block blocks[] = {
		{ 100, t1, 2 },
		{ 101, t2, 2 },
	};

	memset(w, 0, sizeof(*w));
	w->meta.kind = VGL_KIND_MERGED;
	w->meta.state = VGL_STATE_FINISHED;
	w->meta.exit_status = 3;
	w->meta.pid = 4242;
	w->meta.start_ns = 1700000000000000000ull;
	w->meta.end_ns = 1700000001000000000ull;
	w->meta.lost_calls = 9;
	w->exe = "/bin/prog";
	w->host = "box";
	w->argv = argv;
	w->argc = 3;
	w->modules = mods;
	w->nmodules = 2;
	w->blocks = blocks;
	w->nblocks = 2;
}

static void check_read(const char *what, struct vgl_reader *r)
{
	char name[128];
	const struct vgl_edge_info *e;

#define C(n, cond, ...) do { snprintf(name, sizeof(name), "%s: %s", what, n); \
	CHECK(name, cond, __VA_ARGS__); } while (0)
	C("state", r->meta.state == VGL_STATE_FINISHED &&
	  r->meta.exit_status == 3 && r->meta.kind == VGL_KIND_MERGED,
	  "state %u exit %d", r->meta.state, r->meta.exit_status);
	C("meta", r->meta.pid == 4242 && r->meta.lost_calls == 9 &&
	  r->meta.end_ns == 1700000001000000000ull, "pid %llu",
	  (unsigned long long)r->meta.pid);
	C("strings", r->exe && !strcmp(r->exe, "/bin/prog") && r->host &&
	  !strcmp(r->host, "box"), "exe %s", r->exe ? r->exe : "null");
	C("argv", r->argc == 3 && !strcmp(r->argv[2], "a b"), "argc %zu",
	  r->argc);
	C("modules", r->nmodules == 2 && r->modules[0].bias == 0x1000 &&
	  r->modules[0].build_id_len == 20 &&
	  !memcmp(r->modules[0].build_id, bid, 20) &&
	  !strcmp(r->modules[1].path, "/lib/libx.so") &&
	  r->modules[1].build_id_len == 0, "%zu modules", r->nmodules);
	C("module file identity", r->nmodules == 2 && !r->modules[0].has_file &&
	  r->modules[1].has_file &&
	  !memcmp(&r->modules[1].file, &libx_file, sizeof(libx_file)),
	  "has_file %d %d", r->nmodules ? r->modules[0].has_file : -1,
	  r->nmodules == 2 ? r->modules[1].has_file : -1);
	/* Sorted by (callee, site): 0x1100 (5 + 10), 0x1200, 0x9000. */
	C("edges", r->nedges == 3 && r->total_calls == 23 && r->nthreads == 2,
	  "%zu edges, %llu calls", r->nedges,
	  (unsigned long long)r->total_calls);
	e = r->nedges == 3 ? &r->edges[0] : NULL;
	C("summed edge", e && e->callee == 0x1100 && e->count == 15 &&
	  e->nthreads == 2 &&
	  r->thread_counts[e->first_thread].tid == 100 &&
	  r->thread_counts[e->first_thread].count == 5 &&
	  r->thread_counts[e->first_thread + 1].tid == 101 &&
	  r->thread_counts[e->first_thread + 1].count == 10,
	  "edge 0 wrong");
	C("edge modules", e && r->edges[1].site_mod == VGL_NO_MODULE &&
	  r->edges[2].callee_mod == 1, "modules of edges wrong");
#undef C
}

int main(void)
{
	struct vgl_writer w;
	struct vgl_reader r;
	unsigned char *buf;
	size_t len;
	char dir[] = "/tmp/vigil-writer.XXXXXX", path[256];
	int err;

	fill(&w);
	err = vgl_writer_buffer(&w, &buf, &len);
	CHECK("writer buffer", err == 0, "error %d", err);
	if (err)
		return check_status();
	err = vgl_reader_parse(&r, buf, len, "buf");
	CHECK("writer buffer reads back", err == 0, "%s", r.err);
	if (!err) {
		check_read("buffer", &r);
		vgl_reader_close(&r);
	}
	free(buf);

	if (!mkdtemp(dir)) {
		CHECK("writer file", 0, "mkdtemp failed");
		return check_status();
	}
	snprintf(path, sizeof(path), "%s/out.vgl", dir);
	err = vgl_writer_file(&w, path);
	CHECK("writer file", err == 0, "error %d", err);
	err = vgl_reader_open(&r, path);
	CHECK("writer file reads back", err == 0, "%s", r.err);
	if (!err) {
		check_read("file", &r);
		vgl_reader_close(&r);
	}
	{
		DIR *d = opendir(dir);
		struct dirent *de;
		int n = 0;

		while (d && (de = readdir(d)))
			n += de->d_name[0] != '.';
		if (d)
			closedir(d);
		CHECK("writer leaves no temporary file", n == 1, "%d files", n);
	}
	snprintf(path, sizeof(path), "%s/no/such/dir/out.vgl", dir);
	err = vgl_writer_file(&w, path);
	CHECK("writer: missing directory", err == -ENOENT, "error %d", err);

	{
		struct vgl_writer_module bad = { VGL_NO_MODULE, 0, 0, 0, NULL, 0, "/x",
						 NULL };

		w.modules = &bad;
		w.nmodules = 1;
		err = vgl_writer_buffer(&w, &buf, &len);
		CHECK("writer refuses the reserved module id", err == -EINVAL,
		      "error %d", err);
	}
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	if (system(path) != 0)
		return 1;
	return check_status();
}
