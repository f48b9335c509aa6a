/*
 * vgl_sampled.c - see vgl_sampled.h.
 *
 * SAMPLES is built in its final layout as samples arrive (a sample never
 * changes once taken), so writing it is one copy.  STACKS is kept as a
 * table of distinct stacks and laid out only when asked for, since
 * counts keep changing until the end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crc32.h"

#include "vgl_sampled.h"

_Static_assert(sizeof(struct vgl_samples) == 32, "SAMPLES header layout");
_Static_assert(sizeof(struct vgl_sample) == 128, "sample record layout");
_Static_assert(sizeof(struct vgl_sample_thread) == 48, "thread record layout");
_Static_assert(sizeof(struct vgl_stacks) == 32, "STACKS header layout");
_Static_assert(sizeof(struct vgl_stack) == 16, "stack record layout");
_Static_assert(sizeof(struct vgl_frame) == 16, "frame layout");
_Static_assert(sizeof(struct vgl_stack_readings) == 16,
	       "STACK_READINGS header layout");
_Static_assert(sizeof(struct vgl_stack_reading) == 16, "reading entry layout");

void vgl_sampled_init(struct vgl_sampled *s)
{
	memset(s, 0, sizeof(*s));
}

static int grow(unsigned char **buf, size_t *cap, size_t want)
{
	size_t cap2 = *cap ? *cap : 4096;
	unsigned char *p;

	if (want <= *cap)
		return 0;
	while (cap2 < want)
		cap2 *= 2;
	p = realloc(*buf, cap2);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = cap2;
	return 0;
}

static int cmp_reading(const void *a, const void *b)
{
	const struct vgl_stack_reading *x = a, *y = b;

	return (x->stack > y->stack) - (x->stack < y->stack);
}

/* Sorts the last reading's entries by stack, and points at[] at them
 * again. */
static void sort_last_reading(struct vgl_sampled *s)
{
	size_t i, n = s->nreadings - s->last_first;

	if (n > 1)
		qsort(s->readings + s->last_first, n, sizeof(*s->readings),
		      cmp_reading);
	for (i = s->last_first; i < s->nreadings; i++)
		s->at[s->readings[i].stack] = i + 1;
}

int vgl_sampled_add_sample(struct vgl_sampled *s, const struct vgl_sample *smp,
			   const struct vgl_sample_thread *threads, size_t n)
{
	struct vgl_sample rec = *smp;
	size_t need = sizeof(rec) + n * sizeof(*threads);

	if (n > UINT32_MAX)
		return -EINVAL;
	if (grow(&s->samples, &s->samples_cap, s->samples_len + need))
		return -ENOMEM;
	rec.nthreads = (uint32_t)n;
	memcpy(s->samples + s->samples_len, &rec, sizeof(rec));
	if (n)
		memcpy(s->samples + s->samples_len + sizeof(rec), threads,
		       n * sizeof(*threads));
	s->samples_len += need;
	s->nsamples++;
	/* The reading before is complete: its entries in their order. */
	sort_last_reading(s);
	s->last_first = s->nreadings;
	s->nsamples_all++;
	return 0;
}

/* Room for one more reading entry and for stack index k + 1 in at[],
 * before the stack is counted, so that nothing fails after it. */
static int reading_room(struct vgl_sampled *s, size_t k)
{
	if (s->nreadings == s->readings_cap) {
		size_t cap = s->readings_cap ? 2 * s->readings_cap : 256;
		struct vgl_stack_reading *p = realloc(s->readings,
						      cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->readings = p;
		s->readings_cap = cap;
	}
	if (k >= s->at_cap) {
		size_t cap = s->at_cap ? 2 * s->at_cap : 256, *p;

		while (cap <= k)
			cap *= 2;
		p = realloc(s->at, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		memset(p + s->at_cap, 0, (cap - s->at_cap) * sizeof(*p));
		s->at = p;
		s->at_cap = cap;
	}
	return 0;
}

/* Counts count samples of stack k in the last reading. */
static void count_reading(struct vgl_sampled *s, size_t k, uint64_t count)
{
	uint32_t reading = (uint32_t)(s->nsamples_all - 1);
	struct vgl_stack_reading *e;

	if (s->at[k] > s->last_first) {
		/* Added up as the stack's own count is. */
		s->readings[s->at[k] - 1].count += count;
		return;
	}
	e = &s->readings[s->nreadings++];
	e->reading = reading;
	e->stack = (uint32_t)k;
	e->count = count;
	s->at[k] = s->nreadings;
}

int vgl_sampled_add_stack(struct vgl_sampled *s, uint32_t tid,
			  const struct vgl_frame *frames, size_t nframes,
			  uint64_t count)
{
	size_t i, k;

	if (!nframes || !count)
		return 0;
	if (nframes > VGL_STACK_MAX_FRAMES)
		nframes = VGL_STACK_MAX_FRAMES;
	if (!s->key) {
		s->key = malloc(2 * VGL_STACK_MAX_FRAMES * sizeof(*s->key));
		if (!s->key)
			return -ENOMEM;
	}
	for (i = 0; i < nframes; i++) {
		s->key[2 * i] = frames[i].addr;
		s->key[2 * i + 1] = frames[i].module;
	}
	/* Readings are numbered in 32 bits: past that, none is kept. */
	if (!s->nsamples_all || s->nsamples_all > UINT32_MAX)
		s->unplaced = 1;
	/* A new stack's index is the table's size now. */
	if (!s->unplaced && reading_room(s, s->stacks.n))
		return -ENOMEM;
	if (vgl_stacktab_add_at(&s->stacks, tid, 0, s->key,
				(uint32_t)(2 * nframes), count, &k))
		return -ENOMEM;
	if (!s->unplaced)
		count_reading(s, k, count);
	s->stack_samples += count;
	return 0;
}

int vgl_sampled_readings(struct vgl_sampled *s,
			 struct vgl_writer_section *out)
{
	struct vgl_stack_readings rh;
	size_t size = sizeof(rh) + s->nreadings * sizeof(*s->readings);

	memset(out, 0, sizeof(*out));
	if (s->unplaced || !s->nreadings)
		return 0;
	sort_last_reading(s);
	free(s->reading_bytes);
	s->reading_bytes = malloc(size);
	if (!s->reading_bytes)
		return -ENOMEM;
	memset(&rh, 0, sizeof(rh));
	rh.count = s->nreadings;
	memcpy(s->reading_bytes, &rh, sizeof(rh));
	memcpy(s->reading_bytes + sizeof(rh), s->readings,
	       s->nreadings * sizeof(*s->readings));
	out->kind = VGL_SEC_STACK_READINGS;
	out->data = s->reading_bytes;
	out->size = size;
	return 0;
}

/* Lays out STACKS into s->stack_bytes and out. */
static int stacks_section(struct vgl_sampled *s, struct vgl_writer_section *out)
{
	const struct vgl_stacktab *t = &s->stacks;
	struct vgl_frame *fr;
	struct vgl_stacks kh;
	size_t size = sizeof(kh), i, j, at;

	for (i = 0; i < t->n; i++)
		size += sizeof(struct vgl_stack) +
			t->e[i].n / 2 * sizeof(struct vgl_frame);
	free(s->stack_bytes);
	s->stack_bytes = malloc(size);
	if (!s->stack_bytes)
		return -ENOMEM;
	memset(&kh, 0, sizeof(kh));
	kh.count = t->n;
	kh.samples = s->stack_samples;
	kh.lost = s->stack_lost;
	kh.frequency = s->frequency;
	memcpy(s->stack_bytes, &kh, sizeof(kh));
	at = sizeof(kh);
	for (i = 0; i < t->n; i++) {
		const struct vgl_stack_entry *e = &t->e[i];
		const uint64_t *w = e->words;
		struct vgl_stack rec = { e->tid, e->n / 2, e->count };

		memcpy(s->stack_bytes + at, &rec, sizeof(rec));
		at += sizeof(rec);
		/* Every record and frame is 16 bytes: the frames are aligned
		 * in the malloc'd buffer, and written in place. */
		fr = (struct vgl_frame *)(void *)(s->stack_bytes + at);
		for (j = 0; j < e->n / 2; j++) {
			fr[j].addr = w[2 * j];
			fr[j].module = (uint32_t)w[2 * j + 1];
			fr[j].reserved = 0;
		}
		at += e->n / 2 * sizeof(*fr);
	}
	out->kind = VGL_SEC_STACKS;
	out->data = s->stack_bytes;
	out->size = size;
	return 0;
}

static void samples_header(struct vgl_samples *sh, uint64_t count)
{
	memset(sh, 0, sizeof(*sh));
	sh->count = count;
	sh->sample_size = sizeof(struct vgl_sample);
	sh->thread_size = sizeof(struct vgl_sample_thread);
}

int vgl_sampled_sections(struct vgl_sampled *s,
			 struct vgl_writer_section out[2])
{
	struct vgl_samples sh;

	/* SAMPLES: its header, then the records as built. */
	free(s->sample_bytes);
	s->sample_bytes = malloc(sizeof(sh) + s->samples_len);
	if (!s->sample_bytes)
		return -ENOMEM;
	samples_header(&sh, s->nsamples);
	memcpy(s->sample_bytes, &sh, sizeof(sh));
	if (s->samples_len)
		memcpy(s->sample_bytes + sizeof(sh), s->samples, s->samples_len);
	out[0].kind = VGL_SEC_SAMPLES;
	out[0].data = s->sample_bytes;
	out[0].size = sizeof(sh) + s->samples_len;
	return stacks_section(s, &out[1]);
}

/* ---- streamed files ------------------------------------------------------ */

/* Where SAMPLES starts: after the room the header and its table can take. */
#define STREAM_SAMPLES_AT 4096u
_Static_assert(sizeof(struct vgl_header) + VGL_MAX_SECTIONS *
	       sizeof(struct vgl_section) <= STREAM_SAMPLES_AT,
	       "the header fits before SAMPLES");

static int pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int vgl_sampled_stream_open(struct vgl_sampled_stream *st, int fd)
{
	struct vgl_samples sh;

	memset(st, 0, sizeof(*st));
	st->fd = fd;
	st->samples_end = STREAM_SAMPLES_AT + sizeof(sh);
	samples_header(&sh, 0);
	return pwrite_all(fd, &sh, sizeof(sh), STREAM_SAMPLES_AT);
}

/*
 * Writes the header and section table of the trailer t (a whole file laid
 * out by the writer, placed at offset at), with SAMPLES moved to where the
 * stream keeps it, holding `bytes` bytes, and STACK_READINGS left out
 * unless readings: its entries name samples that a table written before
 * the samples and their count are in place would not hold yet.  One
 * write of less than a page at offset 0: a killed writer leaves the old
 * table or the new one.
 */
static int commit_table(struct vgl_sampled_stream *st, const unsigned char *t,
			uint64_t at, uint64_t bytes, int readings)
{
	unsigned char buf[STREAM_SAMPLES_AT];
	struct vgl_header h;
	struct vgl_section sec;
	uint32_t i, n = 0;

	memcpy(&h, t, sizeof(h));
	memset(buf, 0, sizeof(buf));
	for (i = 0; i < h.nsections; i++) {
		memcpy(&sec, t + sizeof(h) + i * sizeof(sec), sizeof(sec));
		if (sec.kind == VGL_SEC_STACK_READINGS && !readings)
			continue;
		if (sec.kind == VGL_SEC_SAMPLES) {
			sec.offset = STREAM_SAMPLES_AT;
			sec.size = bytes;
		} else {
			sec.offset += at;
		}
		memcpy(buf + sizeof(h) + n++ * sizeof(sec), &sec, sizeof(sec));
	}
	h.nsections = n;
	h.header_size = (uint32_t)(sizeof(h) + n * sizeof(sec));
	h.checksum = 0;
	memcpy(buf, &h, sizeof(h));
	h.checksum = vgl_crc32(0, buf, h.header_size);
	memcpy(buf, &h, sizeof(h));
	return pwrite_all(st->fd, buf, h.header_size, 0);
}

int vgl_sampled_stream_commit(struct vgl_sampled_stream *st,
			      struct vgl_sampled *s, const struct vgl_writer *w,
			      int final)
{
	struct vgl_writer_section extra[3];
	struct vgl_writer tw = *w;
	struct vgl_samples sh;
	unsigned char *t = NULL;
	uint64_t at, end = st->samples_end + s->samples_len;
	size_t tlen;
	int err;

	if (st->failed)
		return st->failed;
	/* The rest of the file, laid out whole by the writer, with an
	 * empty SAMPLES whose entry the table below points here. */
	extra[0] = (struct vgl_writer_section){ VGL_SEC_SAMPLES, NULL, 0 };
	err = stacks_section(s, &extra[1]);
	if (!err)
		err = vgl_sampled_readings(s, &extra[2]);
	if (err)
		goto out;
	tw.extra = extra;
	tw.nextra = extra[2].kind ? 3 : 2;
	err = vgl_writer_buffer(&tw, &t, &tlen);
	if (err)
		goto out;
	/* The new trailer goes past the new samples and never over the
	 * trailer the table names now. */
	at = VGL_ALIGN(end);
	if (st->trailer_len && at < st->trailer_at + st->trailer_len &&
	    at + tlen > st->trailer_at)
		at = VGL_ALIGN(st->trailer_at + st->trailer_len);
	err = pwrite_all(st->fd, t, tlen, at);
	/* Then the table moves to it, the samples still as they were
	 * (and the readings with it if no sample is new)... */
	if (!err)
		err = commit_table(st, t, at, st->samples_end - STREAM_SAMPLES_AT,
				   !s->samples_len);
	/* ...the new samples go where the old trailer may have been... */
	if (!err && s->samples_len)
		err = pwrite_all(st->fd, s->samples, s->samples_len,
				 st->samples_end);
	/* ...and the table takes them in, then their count: a count
	 * smaller than the records is read as that many. */
	if (!err && s->samples_len)
		err = commit_table(st, t, at, end - STREAM_SAMPLES_AT, 0);
	if (!err && s->samples_len) {
		samples_header(&sh, st->nsamples + s->nsamples);
		err = pwrite_all(st->fd, &sh, sizeof(sh), STREAM_SAMPLES_AT);
	}
	/* ...and, every sample they name in place, the readings. */
	if (!err && s->samples_len && extra[2].kind)
		err = commit_table(st, t, at, end - STREAM_SAMPLES_AT, 1);
	if (!err && final && ftruncate(st->fd, (off_t)(at + tlen)))
		err = -errno;
	if (err)
		goto out;
	st->samples_end = end;
	st->nsamples += s->nsamples;
	st->trailer_at = at;
	st->trailer_len = tlen;
	s->samples_len = 0;
	s->nsamples = 0;
out:
	free(t);
	free(s->stack_bytes);
	s->stack_bytes = NULL;
	free(s->reading_bytes);
	s->reading_bytes = NULL;
	if (err)
		st->failed = err;
	return err;
}

void vgl_sampled_release(struct vgl_sampled *s)
{
	vgl_stacktab_release(&s->stacks);
	free(s->key);
	free(s->samples);
	free(s->stack_bytes);
	free(s->sample_bytes);
	free(s->readings);
	free(s->at);
	free(s->reading_bytes);
	vgl_sampled_init(s);
}
