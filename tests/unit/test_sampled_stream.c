/*
 * test_sampled_stream.c - lib/vgl_sampled.c's streamed files (vigil attach
 * -o) against the whole files written before there were streams: the
 * same run gives sections of the very same bytes (META, STRINGS, ARENA,
 * SAMPLES, STACKS), so every reader reports them alike; and the file is a
 * valid profile after each commit, holding the samples committed and the
 * reading of each stack sample (STACK_READINGS, which only streams have).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "vgl_reader.h"
#include "vgl_sampled.h"
#include "vgl_writer.h"

/* Feeds samples [from, to) and a stack per sample, the same for both. */
static void feed(struct vgl_sampled *s, int from, int to)
{
	struct vgl_sample_thread th[3];
	struct vgl_frame fr[3] = { { 0x1100, 0, 0 }, { 0x1201, 0, 0 },
				   { 0x30, VGL_NO_MODULE, 0 } };
	struct vgl_sample smp;
	int i, k;

	for (i = from; i < to; i++) {
		memset(&smp, 0, sizeof(smp));
		smp.time_ns = 1000000000ull * (uint64_t)i;
		smp.elapsed_ns = 1000000ull * (uint64_t)i;
		smp.scan = VGL_SAMPLE_CPU | VGL_SAMPLE_THREADS | VGL_SAMPLE_STACKS;
		smp.cpu_user_us = 10000ull * (uint64_t)i;
		smp.interval_ns = 1000000;
		smp.cpu_run_ns = 7000000ull * (uint64_t)i;
		smp.stack_samples = 1;
		memset(th, 0, sizeof(th));
		for (k = 0; k < 3; k++) {
			th[k].tid = 100u + (uint32_t)k;
			snprintf(th[k].name, sizeof(th[k].name), "t%d", k);
			th[k].run_ns = 1000ull * (uint64_t)(i * k);
		}
		vgl_sampled_add_sample(s, &smp, th, (size_t)(i % 4));
		fr[0].addr = 0x1100 + (uint64_t)(i % 5);
		vgl_sampled_add_stack(s, 100u + (uint32_t)(i % 3), fr, 3, 1);
	}
	s->frequency = 999;
	s->stack_lost = 2;
}

/* Sample i's one stack sample is in reading i, the stack feed() gave it
 * (thread 100 + i % 3, frame 0 at 0x1100 + i % 5). */
static int readings_ok(const struct vgl_reader *r)
{
	size_t i;

	if (!r->has_readings || r->nreadings != r->nsamples)
		return 0;
	for (i = 0; i < r->nreadings; i++) {
		const struct vgl_stack_reading *e = &r->readings[i];
		const struct vgl_stack_info *st = &r->stacks[e->stack];

		if (e->reading != i || e->count != 1 ||
		    st->tid != 100u + i % 3 ||
		    r->frames[st->first_frame].addr != 0x1100 + i % 5)
			return 0;
	}
	return 1;
}

/* The bytes of the section of this kind in the file image b. */
static const unsigned char *section(const unsigned char *b, uint32_t kind,
				    uint64_t *size)
{
	struct vgl_header h;
	struct vgl_section sec;
	uint32_t i;

	memcpy(&h, b, sizeof(h));
	for (i = 0; i < h.nsections; i++) {
		memcpy(&sec, b + sizeof(h) + i * sizeof(sec), sizeof(sec));
		if (sec.kind == kind) {
			*size = sec.size;
			return b + sec.offset;
		}
	}
	return NULL;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	b = malloc((size_t)n + 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

int main(void)
{
	static const char *const argv[] = { "prog", "arg" };
	struct vgl_writer_module mod = { 0, 0x1000, 0x1000, 0x9000, NULL, 0,
					 "/nonexistent/x", NULL };
	struct vgl_sampled whole, str;
	struct vgl_sampled_stream st;
	struct vgl_writer w;
	struct vgl_writer_section extra[2];
	struct vgl_reader r;
	unsigned char *wb = NULL, *sb;
	size_t wlen, slen;
	char path[] = "/tmp/vgl_stream_XXXXXX";
	uint32_t kinds[] = { VGL_SEC_META, VGL_SEC_STRINGS, VGL_SEC_ARENA,
			     VGL_SEC_SAMPLES, VGL_SEC_STACKS };
	int fd, i, ok;

	memset(&w, 0, sizeof(w));
	w.meta.kind = VGL_KIND_SAMPLED;
	w.meta.state = VGL_STATE_CUT_SHORT;
	w.meta.pid = 4242;
	w.meta.start_ns = 5;
	w.exe = "/usr/bin/prog";
	w.host = "host";
	w.argv = argv;
	w.argc = 2;
	w.modules = &mod;
	w.nmodules = 1;

	vgl_sampled_init(&whole);
	vgl_sampled_init(&str);
	fd = mkstemp(path);
	CHECK("temporary file", fd >= 0, "mkstemp failed");
	CHECK("stream opens", !vgl_sampled_stream_open(&st, fd), "failed");
	CHECK("first commit, no samples", !vgl_sampled_stream_commit(&st, &str, &w, 0),
	      "failed");
	/* Commits of a few samples, then of many (the trailer must move
	 * past the samples and never over itself). */
	for (i = 0; i < 6; i++) {
		int from = i * i * 40, to = (i + 1) * (i + 1) * 40;

		feed(&whole, from, to);
		feed(&str, from, to);
		ok = !vgl_sampled_stream_commit(&st, &str, &w, 0);
		CHECK("commit", ok, "commit %d failed", i);
		ok = !vgl_reader_open(&r, path);
		CHECK("valid after each commit", ok && r.nsamples == (size_t)to,
		      "commit %d: open %d, %zu samples, want %d", i, ok,
		      ok ? (size_t)r.nsamples : 0, to);
		CHECK("readings after each commit", ok && readings_ok(&r),
		      "commit %d: %zu readings", i, ok ? r.nreadings : 0);
		vgl_reader_close(&r);
	}
	w.meta.state = VGL_STATE_FINISHED;
	CHECK("final commit", !vgl_sampled_stream_commit(&st, &str, &w, 1),
	      "failed");
	close(fd);

	CHECK("whole layout", !vgl_sampled_sections(&whole, extra), "failed");
	w.extra = extra;
	w.nextra = 2;
	CHECK("whole buffer", !vgl_writer_buffer(&w, &wb, &wlen), "failed");
	sb = slurp(path, &slen);
	CHECK("streamed file read", sb != NULL, "failed");
	for (i = 0; sb && wb && i < 5; i++) {
		uint64_t n1 = 0, n2 = 0;
		const unsigned char *a = section(wb, kinds[i], &n1);
		const unsigned char *b = section(sb, kinds[i], &n2);

		CHECK("same section bytes", a && b && n1 == n2 && !memcmp(a, b, n1),
		      "kind %u: %llu bytes whole, %llu streamed, %s", kinds[i],
		      (unsigned long long)n1, (unsigned long long)n2,
		      a && b && n1 == n2 ? "different bytes" : "sizes differ");
	}
	ok = !vgl_reader_open(&r, path);
	CHECK("final file valid", ok && r.nsamples == 1440 &&
	      r.meta.state == VGL_STATE_FINISHED && readings_ok(&r),
	      "open %d", ok);
	vgl_reader_close(&r);
	/* The whole file has no readings: 16 bytes each, and their header,
	 * in the last trailer and in the one before, which the last may
	 * have had to go past. */
	CHECK("file cut to its end",
	      sb && slen <= wlen + 4096 + 8 * 1440 + 2 * 16 * 1441,
	      "%zu bytes, whole %zu", slen, wlen);
	free(sb);
	free(wb);
	unlink(path);
	vgl_sampled_release(&whole);
	vgl_sampled_release(&str);
	return check_status();
}
