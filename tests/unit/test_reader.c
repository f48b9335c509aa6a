/*
 * test_reader.c - lib/vgl_reader.c against the committed corpus
 * (tests/corpus, made by mkcorpus.py): every bad file is refused with the
 * message that names its problem, every good file reads back exactly the
 * values mkcorpus.py wrote.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "procid.h"
#include "vgl_reader.h"
#include "vgl_sampled.h"
#include "vgl_writer.h"

static char corpus[PATH_MAX];

/* The corpus is found from the binary (build/unit/test_reader), so the
 * test runs from any directory; VIGIL_CORPUS overrides. */
static void find_corpus(void)
{
	char exe[PATH_MAX - 32];
	ssize_t n;
	char *slash;

	if (getenv("VIGIL_CORPUS")) {
		snprintf(corpus, sizeof(corpus), "%s", getenv("VIGIL_CORPUS"));
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		snprintf(corpus, sizeof(corpus), "%s/../../tests/corpus", exe);
		if (access(corpus, R_OK) == 0)
			return;
	}
	snprintf(corpus, sizeof(corpus), "tests/corpus");
}

static const struct {
	const char *file;
	const char *message;   /* a substring of the error */
} bad[] = {
	{ "empty.vgl", "empty file" },
	{ "truncated-magic.vgl", "truncated: header needs 32 bytes, file has 4" },
	{ "truncated-header.vgl", "truncated: header needs 32 bytes, file has 12" },
	{ "truncated-table.vgl", "truncated: section table needs 128 bytes, file has 60" },
	{ "truncated-meta.vgl", "lies outside the file" },
	{ "truncated-arena.vgl", "truncated: the file ends at byte 920, 40 bytes into the block at arena offset 544 (size 128); the arena has 768 bytes in use" },
	{ "bad-magic.vgl", "not a vigil profile (bad magic)" },
	{ "foreign-elf.vgl", "not a vigil profile (bad magic)" },
	{ "foreign-text.vgl", "not a vigil profile (bad magic)" },
	{ "wrong-version.vgl", "unsupported version 2" },
	{ "other-byte-order.vgl", "written on a machine of the other byte order" },
	{ "bad-byte-order-mark.vgl", "bad byte order mark" },
	{ "bad-checksum.vgl", "header checksum mismatch" },
	{ "table-changed.vgl", "header checksum mismatch" },
	{ "header-size-mismatch.vgl", "header size 40 does not match" },
	{ "huge-nsections.vgl", "header claims 4294967295 sections" },
	{ "huge-header-size.vgl", "truncated: section table needs 1568 bytes" },
	{ "section-out-of-bounds.vgl", "section 1 (offset" },
	{ "section-huge-size.vgl", "lies outside the file" },
	{ "section-unaligned.vgl", "is not 8-byte aligned" },
	{ "section-overlap.vgl", "sections 0 and 1 overlap" },
	{ "section-in-header.vgl", "overlaps the header" },
	{ "missing-meta.vgl", "no META section" },
	{ "missing-strings.vgl", "no STRINGS section" },
	{ "missing-arena.vgl", "no ARENA section" },
	{ "duplicate-meta.vgl", "more than one META section" },
	{ "meta-too-small.vgl", "META section is 8 bytes" },
	{ "bad-state.vgl", "unknown state 7" },
	{ "bad-kind.vgl", "unknown file kind 0" },
	{ "string-out-of-range.vgl", "exe string offset 100000 is outside STRINGS" },
	{ "string-unterminated.vgl", "exe string is not NUL-terminated" },
	{ "cmdline-out-of-range.vgl", "command line (offset" },
	{ "cmdline-unterminated.vgl", "command line is not NUL-terminated" },
	{ "arena-used-beyond-section.vgl", "more than its section" },
	{ "arena-used-too-small.vgl", "less than its header" },
	{ "arena-beyond-file.vgl", "lies outside the file" },
	{ "processes-sum-mismatch.vgl", "PROCESSES: endings hold 5 processes, the header says 6" },
	{ "processes-bad-state.vgl", "PROCESSES: ending 0 has unknown state 9" },
	{ "processes-too-many.vgl", "PROCESSES: 4294967295 endings do not fit in the section (48 bytes)" },
	{ "readings-count-huge.vgl", "STACK_READINGS claims 1152921504606846976 entries, more than its 80 bytes hold" },
	{ "readings-too-small.vgl", "STACK_READINGS section is 8 bytes, needs 16" },
	{ "readings-reading-out-of-range.vgl", "STACK_READINGS: entry 2 names reading 2, the file has 2" },
	{ "readings-stack-out-of-range.vgl", "STACK_READINGS: entry 0 names stack 3, the file has 3" },
	{ "readings-unsorted.vgl", "STACK_READINGS: entry 1 (reading 0, stack 0) does not come after the one before it (reading 0, stack 1)" },
	{ "readings-count-zero.vgl", "STACK_READINGS: entry 0 has count 0" },
	{ "readings-sum-mismatch.vgl", "STACK_READINGS: stack 1's readings add up to 100, its count is 99" },
	{ "readings-duplicate.vgl", "more than one STACK_READINGS section" },
	{ "readings-without-stacks.vgl", "STACK_READINGS without SAMPLES and STACKS" },
	{ "block-size-zero.vgl", "has bad size 0" },
	{ "block-size-unaligned.vgl", "has bad size 161" },
	{ "block-size-past-end.vgl", "runs past the end of the arena" },
	{ "block-size-huge.vgl", "runs past the end of the arena" },
	{ "block-count-over-capacity.vgl", "holds 5 edges but has room for 4" },
	{ "block-count-huge.vgl", "but has room for 4" },
	{ "block-header-truncated.vgl", "truncated block header" },
	{ "module-path-past-block.vgl", "runs past its block" },
	{ "module-path-unterminated.vgl", "malformed path" },
	{ "module-build-id-too-long.vgl", "build-id of 33 bytes" },
	{ "module-too-small.vgl", "is too small" },
	{ "module-duplicate-id.vgl", "module id 0 appears twice" },
	{ "does-not-exist.vgl", "No such file or directory" },
};

static void test_bad(void)
{
	char path[PATH_MAX + 64], name[128];
	struct vgl_reader r;
	size_t i;
	int err;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(path, sizeof(path), "%s/bad/%s", corpus, bad[i].file);
		snprintf(name, sizeof(name), "reader refuses %s", bad[i].file);
		err = vgl_reader_open(&r, path);
		CHECK(name, err < 0 && strstr(r.err, bad[i].message),
		      "err %d, message '%s', want '%s'", err, r.err,
		      bad[i].message);
		vgl_reader_close(&r);
	}
}

#define BIAS0 0x555500000000ull
#define BIAS1 0x7f0000000000ull

static int has_edge(const struct vgl_reader *r, uint64_t callee,
		    uint64_t site, uint64_t count, uint32_t cm, uint32_t sm)
{
	size_t i;

	for (i = 0; i < r->nedges; i++)
		if (r->edges[i].callee == callee && r->edges[i].site == site)
			return r->edges[i].count == count &&
			       r->edges[i].callee_mod == cm &&
			       r->edges[i].site_mod == sm;
	return 0;
}

static void test_basic(void)
{
	char path[PATH_MAX + 64], state[128];
	struct vgl_reader r;
	const struct vgl_module_info *m;
	int err, i, idok = 1;

	snprintf(path, sizeof(path), "%s/good/basic.vgl", corpus);
	err = vgl_reader_open(&r, path);
	CHECK("basic opens", err == 0, "err %d: %s", err, r.err);
	if (err)
		return;
	CHECK("basic kind", r.meta.kind == VGL_KIND_LIVE, "%u", r.meta.kind);
	CHECK("basic state", r.liveness == VGL_LIVENESS_FINISHED &&
	      !strcmp(vgl_reader_state(&r, state, sizeof(state)),
		      "finished (exit 3)"), "%s", state);
	CHECK("basic pid", r.meta.pid == 4242 && r.meta.ppid == 1, "%llu",
	      (unsigned long long)r.meta.pid);
	CHECK("basic times", r.meta.start_ns == 1700000000123000000ull &&
	      r.meta.end_ns == 1700000001456000000ull, "%llu",
	      (unsigned long long)r.meta.start_ns);
	CHECK("basic exe", r.exe && !strcmp(r.exe, "/usr/bin/demo"), "%s",
	      r.exe ? r.exe : "(null)");
	CHECK("basic host", r.host && !strcmp(r.host, "testhost"), "%s",
	      r.host ? r.host : "(null)");
	CHECK("basic argv", r.argc == 3 && !strcmp(r.argv[0], "demo") &&
	      !strcmp(r.argv[1], "-x") && !strcmp(r.argv[2], "a b"),
	      "argc %zu", r.argc);
	CHECK("basic modules", r.nmodules == 2, "%zu", r.nmodules);
	m = vgl_reader_module(&r, 0);
	for (i = 0; m && i < 20; i++)
		idok &= m->build_id[i] == i + 1;
	CHECK("basic module 0", m && m->bias == BIAS0 && m->lo == BIAS0 &&
	      m->hi == BIAS0 + 0x10000 && m->build_id_len == 20 && idok &&
	      !strcmp(m->path, "/nonexistent/demo"), "wrong module 0");
	m = vgl_reader_module(&r, 1);
	CHECK("basic module 1", m && m->bias == BIAS1 && m->build_id_len == 0 &&
	      !strcmp(m->path, "/nonexistent/libfoo.so"), "wrong module 1");
	CHECK("basic no module 2", !vgl_reader_module(&r, 2), "found one");
	CHECK("basic threads", r.nthreads == 2, "%zu", r.nthreads);
	CHECK("basic edges", r.nedges == 4, "%zu", r.nedges);
	CHECK("basic calls", r.total_calls == 25, "%llu",
	      (unsigned long long)r.total_calls);
	CHECK("basic edge summed over threads",
	      has_edge(&r, BIAS0 + 0x1100, BIAS0 + 0x1234, 15, 0, 0), "no");
	CHECK("basic edge into libfoo",
	      has_edge(&r, BIAS1 + 0x2000, BIAS0 + 0x1300, 7, 1, 0), "no");
	CHECK("basic edge from no module",
	      has_edge(&r, BIAS0 + 0x1200, 0xdead0000, 1, 0, VGL_NO_MODULE),
	      "no");
	CHECK("basic edge in second block",
	      has_edge(&r, BIAS0 + 0x1200, BIAS0 + 0x1250, 2, 0, 0), "no");
	vgl_reader_close(&r);
}

static void test_others(void)
{
	char path[PATH_MAX + 64], state[128];
	struct vgl_reader r;
	int err;

	snprintf(path, sizeof(path), "%s/good/running.vgl", corpus);
	err = vgl_reader_open(&r, path);
	/* RUNNING and nobody holds the lock: the writer died. */
	CHECK("running without lock is cut short", !err &&
	      r.liveness == VGL_LIVENESS_CUT_SHORT &&
	      !strcmp(vgl_reader_state(&r, state, sizeof(state)), "cut short"),
	      "err %d %s", err, r.err);
	CHECK("running incomplete", !err &&
	      (r.meta.flags & VGL_META_INCOMPLETE) && r.meta.lost_calls == 9,
	      "flags %u", r.meta.flags);
	vgl_reader_close(&r);

	snprintf(path, sizeof(path), "%s/good/window.vgl", corpus);
	err = vgl_reader_open(&r, path);
	CHECK("window", !err && r.meta.kind == VGL_KIND_WINDOW &&
	      r.meta.window_seq == 2 &&
	      r.meta.window_start_ns == 1700000000500000000ull &&
	      r.meta.window_end_ns == 1700000001000000000ull,
	      "err %d %s", err, r.err);
	vgl_reader_close(&r);

	snprintf(path, sizeof(path), "%s/good/empty.vgl", corpus);
	err = vgl_reader_open(&r, path);
	CHECK("empty profile", !err && r.nedges == 0 && r.nmodules == 0 &&
	      r.argc == 0 && !r.exe && !r.host && r.nthreads == 0 &&
	      r.liveness == VGL_LIVENESS_CUT_SHORT, "err %d %s", err, r.err);
	vgl_reader_close(&r);
}

/* good/sampled.vgl: the values tests/corpus/mkcorpus.py writes. */
static void test_sampled(void)
{
	char path[PATH_MAX + 64], state[128];
	const struct vgl_sample_thread *t;
	const struct vgl_stack_info *st;
	struct vgl_reader r;
	int err;

	snprintf(path, sizeof(path), "%s/good/sampled.vgl", corpus);
	err = vgl_reader_open(&r, path);
	CHECK("sampled opens", err == 0, "err %d: %s", err, r.err);
	if (err)
		return;
	CHECK("sampled kind", r.meta.kind == VGL_KIND_SAMPLED &&
	      !strcmp(vgl_kind_name(r.meta.kind), "sampled"), "%u", r.meta.kind);
	CHECK("sampled state", !strcmp(vgl_reader_state(&r, state, sizeof(state)),
		"finished (sampler stopped; the process ran on)"), "%s", state);
	CHECK("sampled sections", r.has_samples && r.has_stacks && !r.nedges,
	      "%d %d", r.has_samples, r.has_stacks);
	CHECK("sampled samples", r.nsamples == 2 && r.nsample_threads == 4 &&
	      r.sample_first[0] == 0 && r.sample_first[1] == 2, "%zu %zu",
	      r.nsamples, r.nsample_threads);
	CHECK("sampled sample 1", r.nsamples == 2 &&
	      r.samples[1].time_ns == 1700000001200000000ull &&
	      r.samples[1].elapsed_ns == 1100000000ull &&
	      r.samples[1].scan == 0x247 && r.samples[1].cpu_user_us == 910000 &&
	      r.samples[1].rss_bytes == 8192000 &&
	      r.samples[1].anon_bytes == 5120000 &&
	      r.samples[1].swap_bytes == 4096 &&
	      r.samples[1].host_idle_us == 800 &&
	      r.samples[1].stack_samples == 993, "wrong values");
	t = r.nsample_threads == 4 ? &r.sample_threads[3] : NULL;
	CHECK("sampled thread", t && t->tid == 4244 && !strcmp(t->name, "late") &&
	      r.sample_threads[1].run_ns == 700000000 &&
	      !strcmp(r.sample_threads[1].name, "worker"), "wrong thread");
	CHECK("sampled stacks head", r.stacks_head.samples == 1000 &&
	      r.stacks_head.lost == 3 && r.stacks_head.frequency == 999 &&
	      r.nstacks == 3 && r.nframes == 6, "%zu %zu", r.nstacks, r.nframes);
	st = r.nstacks == 3 ? &r.stacks[1] : NULL;
	CHECK("sampled stack 1", st && st->tid == 4243 && st->count == 99 &&
	      st->nframes == 2 && st->first_frame == 3 &&
	      r.frames[3].addr == BIAS1 + 0x2000 && r.frames[3].module == 1 &&
	      r.frames[4].module == VGL_NO_MODULE, "wrong stack");
	vgl_reader_close(&r);
}

/* good/sampled-readings.vgl: sampled.vgl with its stacks' readings. */
static void test_readings(void)
{
	char path[PATH_MAX + 64];
	const struct vgl_stack_reading *e;
	struct vgl_reader r;
	int err;

	snprintf(path, sizeof(path), "%s/good/sampled-readings.vgl", corpus);
	err = vgl_reader_open(&r, path);
	CHECK("readings open", err == 0, "err %d: %s", err, r.err);
	if (err)
		return;
	e = r.readings;
	CHECK("readings", r.has_readings && r.nreadings == 4 &&
	      e[0].reading == 0 && e[0].stack == 1 && e[0].count == 6 &&
	      e[1].stack == 2 && e[1].count == 1 &&
	      e[2].reading == 1 && e[2].stack == 0 && e[2].count == 900 &&
	      e[3].reading == 1 && e[3].stack == 1 && e[3].count == 93,
	      "%d %zu", r.has_readings, r.nreadings);
	vgl_reader_close(&r);
	/* The file without them has none. */
	snprintf(path, sizeof(path), "%s/good/sampled.vgl", corpus);
	err = vgl_reader_open(&r, path);
	CHECK("no readings", err == 0 && !r.has_readings && !r.nreadings,
	      "err %d: %s", err, r.err);
	vgl_reader_close(&r);
}

/* vgl_sampled + vgl_writer read back by the reader, stacks added up. */
static void test_sampled_roundtrip(void)
{
	struct vgl_sampled s;
	struct vgl_writer w;
	struct vgl_writer_section sec[2];
	struct vgl_writer_module mod = { 0, 0x1000, 0x1000, 0x9000, NULL, 0,
					 "/nonexistent/x", NULL };
	struct vgl_sample smp;
	struct vgl_sample_thread th[2];
	struct vgl_frame f[3] = { { 0x1100, 0, 0 }, { 0x1200, 0, 0 },
				  { 0x1300, 0, 0 } };
	struct vgl_reader r;
	unsigned char *buf = NULL;
	size_t len = 0, i;
	int err;

	vgl_sampled_init(&s);
	memset(&smp, 0, sizeof(smp));
	memset(th, 0, sizeof(th));
	th[0].tid = 7;
	strcpy(th[0].name, "seven");
	th[1].tid = 8;
	for (i = 0; i < 3; i++) {
		smp.elapsed_ns = i * 1000;
		smp.rss_bytes = 100 + i;
		vgl_sampled_add_sample(&s, &smp, th, i == 1 ? 2 : 1);
	}
	/* The same chain twice adds up; a shorter one is another stack. */
	vgl_sampled_add_stack(&s, 7, f, 3, 5);
	vgl_sampled_add_stack(&s, 7, f, 3, 6);
	vgl_sampled_add_stack(&s, 7, f, 2, 1);
	vgl_sampled_add_stack(&s, 8, f, 3, 2);
	/* Enough distinct stacks to grow the hash table several times. */
	for (i = 0; i < 1000; i++) {
		struct vgl_frame g = { 0x2000 + i, VGL_NO_MODULE, 0 };

		vgl_sampled_add_stack(&s, 9, &g, 1, 1);
	}
	s.frequency = 99;
	err = vgl_sampled_sections(&s, sec);
	memset(&w, 0, sizeof(w));
	w.meta.kind = VGL_KIND_SAMPLED;
	w.meta.state = VGL_STATE_CUT_SHORT;
	w.modules = &mod;
	w.nmodules = 1;
	w.extra = sec;
	w.nextra = 2;
	if (!err)
		err = vgl_writer_buffer(&w, &buf, &len);
	CHECK("sampled writes", !err, "err %d", err);
	err = err ? err : vgl_reader_parse(&r, buf, len, "roundtrip");
	CHECK("sampled reads back", !err, "err %d: %s", err, r.err);
	if (!err) {
		CHECK("roundtrip samples", r.nsamples == 3 &&
		      r.nsample_threads == 4 && r.samples[2].rss_bytes == 102 &&
		      r.samples[1].nthreads == 2 && r.sample_first[2] == 3 &&
		      !strcmp(r.sample_threads[0].name, "seven"), "%zu",
		      r.nsamples);
		CHECK("roundtrip stacks", r.nstacks == 1003 &&
		      r.stacks_head.samples == 1014 &&
		      r.stacks[0].count == 11 && r.stacks[0].nframes == 3 &&
		      r.stacks[1].count == 1 && r.stacks[1].nframes == 2 &&
		      r.stacks[2].tid == 8 && r.stacks_head.frequency == 99,
		      "%zu", r.nstacks);
		vgl_reader_close(&r);
	}
	free(buf);
	vgl_sampled_release(&s);
}

/* Writes the child's identity into META of the file at fd, as the
 * runtime does for itself. */
static int stamp(int fd, const char *buf, pid_t pid)
{
	const struct vgl_header *h = (const struct vgl_header *)buf;
	const struct vgl_section *sec = (const struct vgl_section *)(h + 1);
	struct vgl_meta m;
	uint64_t start;
	uint32_t i;
	char st;

	for (i = 0; i < h->nsections; i++)
		if (sec[i].kind == VGL_SEC_META)
			break;
	if (i == h->nsections ||
	    pread(fd, &m, sizeof(m), (off_t)sec[i].offset) != sizeof(m) ||
	    vgl_proc_stat((uint64_t)pid, &start, &st) < 0)
		return -1;
	m.pid = (uint64_t)pid;
	m.proc_start = start;
	if (vgl_boot_id(m.boot_id) < 0)
		memset(m.boot_id, 0, sizeof(m.boot_id));
	return pwrite(fd, &m, sizeof(m), (off_t)sec[i].offset) == sizeof(m)
		       ? 0 : -1;
}

/*
 * Liveness without a lock: a RUNNING file is running while the process it
 * names (pid, start time, boot) exists and maps it; the same process not
 * mapping it (after an exec) or gone means cut short.  The reader's own
 * mapping does not count, so a child maps the file.
 */
static void test_liveness(void)
{
	char src[PATH_MAX + 64], dst[] = "/tmp/vigil-test-XXXXXX";
	char other[] = "/tmp/vigil-test-XXXXXX", state[128], buf[8192];
	struct vgl_reader r;
	int in, out, out2, p[2], err;
	ssize_t n;
	pid_t pid;

	snprintf(src, sizeof(src), "%s/good/running.vgl", corpus);
	in = open(src, O_RDONLY);
	out = mkstemp(dst);
	out2 = mkstemp(other);
	n = in >= 0 ? read(in, buf, sizeof(buf)) : -1;
	if (in < 0 || out < 0 || out2 < 0 || n <= 0 ||
	    write(out, buf, n) != n || write(out2, buf, n) != n ||
	    pipe(p) < 0) {
		CHECK("running while mapped", 0, "setup failed");
		return;
	}
	close(in);
	pid = fork();
	if (pid == 0) {
		void *map = mmap(NULL, (size_t)n, PROT_READ, MAP_SHARED, out, 0);

		if (map == MAP_FAILED || write(p[1], "x", 1) != 1)
			_exit(1);
		/* Keep the mapping until the parent kills us. */
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], state, 1) != 1 || stamp(out, buf, pid) < 0 ||
	    stamp(out2, buf, pid) < 0) {
		CHECK("running while mapped", 0, "setup failed");
		kill(pid, 9);
		waitpid(pid, NULL, 0);
		return;
	}
	err = vgl_reader_open(&r, dst);
	CHECK("running while mapped", !err &&
	      r.liveness == VGL_LIVENESS_RUNNING && r.lock_pid == pid,
	      "err %d, state %s, pid %d, child %d", err,
	      vgl_reader_state(&r, state, sizeof(state)), (int)r.lock_pid,
	      (int)pid);
	vgl_reader_close(&r);
	err = vgl_reader_open(&r, other);
	CHECK("alive but not mapping it", !err &&
	      r.liveness == VGL_LIVENESS_CUT_SHORT,
	      "err %d, state %s", err,
	      vgl_reader_state(&r, state, sizeof(state)));
	vgl_reader_close(&r);
	close(p[0]);
	kill(pid, 9);
	/* A zombie, not reaped yet: already gone. */
	usleep(100000);
	err = vgl_reader_open(&r, dst);
	CHECK("zombie writer", !err && r.liveness == VGL_LIVENESS_CUT_SHORT,
	      "err %d, state %s", err,
	      vgl_reader_state(&r, state, sizeof(state)));
	vgl_reader_close(&r);
	waitpid(pid, NULL, 0);
	close(out);
	close(out2);
	unlink(dst);
	unlink(other);
}

static void test_buffer(void)
{
	static const char junk[] = "VIGILPRF";
	struct vgl_reader r;
	int err;

	err = vgl_reader_parse(&r, junk, 8, NULL);
	CHECK("buffer truncated", err < 0 &&
	      strstr(r.err, "header needs 32 bytes, file has 8"), "%s", r.err);
	err = vgl_reader_parse(&r, NULL, 0, "x");
	CHECK("buffer empty", err < 0 && strstr(r.err, "empty"), "%s", r.err);
}

int main(void)
{
	find_corpus();
	test_bad();
	test_basic();
	test_others();
	test_sampled();
	test_readings();
	test_sampled_roundtrip();
	test_liveness();
	test_buffer();
	return check_status();
}
