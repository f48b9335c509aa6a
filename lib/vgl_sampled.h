/*
 * vgl_sampled.h - collect the samples and stack samples of a run and lay
 * them out as the SAMPLES and STACKS sections of a .vgl file (see
 * vgl_format.h), for lib/vgl_writer to write.  `vigil attach -o` is one
 * user; any writer of whole files that samples (`vigil run`) can be
 * another.
 *
 * Stacks are added up as they come: one record per distinct (thread, call
 * chain) of the run, found through a hash table (stacktab.h, the one the
 * sampler uses too), so a long run at a high frequency costs memory for
 * its distinct stacks, not for its samples.
 *
 * Each stack's samples are also counted by reading (STACK_READINGS): a
 * stack added belongs to the sample added last, the reading whose
 * interval it was taken in (the sampler hands out a round's stacks with
 * the sample that ends it).  That costs 16 bytes per (reading, stack)
 * pair, at most one per stack sample.  Stacks added before any sample
 * (a merge, which has none) are in no reading, and the file then has no
 * STACK_READINGS.
 */
#ifndef VGL_SAMPLED_H
#define VGL_SAMPLED_H

#include <stddef.h>
#include <stdint.h>

#include "stacktab.h"
#include "vgl_format.h"
#include "vgl_writer.h"

struct vgl_sampled {
	unsigned char *samples;     /* the sample records, laid out */
	size_t samples_len, samples_cap;
	uint64_t nsamples;

	/* Distinct stacks: tag 0, a frame's address and module as two
	 * words (the frame's reserved field is not kept). */
	struct vgl_stacktab stacks;
	uint64_t *key;              /* one stack's words, being looked up */
	uint64_t stack_samples;     /* sum of the stacks' counts */
	uint64_t stack_lost;        /* set by the caller */
	uint32_t frequency;         /* set by the caller */

	/* The readings of the stacks: entries in the order of their
	 * readings, the ones before the last sorted by stack; at[k] - 1 is
	 * stack k's entry in the last reading, if it has one there. */
	struct vgl_stack_reading *readings;
	size_t nreadings, readings_cap;
	size_t last_first;          /* the last reading's first entry */
	size_t *at;
	size_t at_cap;
	uint64_t nsamples_all;      /* samples added, committed ones too */
	int unplaced;               /* stacks came before any sample */

	unsigned char *sample_bytes; /* laid out by vgl_sampled_sections() */
	unsigned char *stack_bytes;
	unsigned char *reading_bytes;
};

/* An empty collection; nothing to release until something is added. */
void vgl_sampled_init(struct vgl_sampled *s);

/*
 * Appends one sample and its n thread records (s->nthreads is taken
 * from n).  Returns 0 or -ENOMEM (nothing added).
 */
int vgl_sampled_add_sample(struct vgl_sampled *s, const struct vgl_sample *smp,
			   const struct vgl_sample_thread *threads, size_t n);

/*
 * Counts count samples of thread tid in the call chain frames[0 ..
 * nframes) (frame 0 where it was).  A chain longer than
 * VGL_STACK_MAX_FRAMES keeps its innermost frames; an empty one is
 * ignored.  Returns 0 or -ENOMEM.
 */
int vgl_sampled_add_stack(struct vgl_sampled *s, uint32_t tid,
			  const struct vgl_frame *frames, size_t nframes,
			  uint64_t count);

/*
 * Lays out SAMPLES and STACKS into out[0] and out[1], which point into s
 * (valid until s changes or is released).  Returns 0 or -ENOMEM.
 */
int vgl_sampled_sections(struct vgl_sampled *s,
			 struct vgl_writer_section out[2]);

/*
 * Lays out STACK_READINGS into out, as vgl_sampled_sections does; 0 with
 * out->kind 0 when the file is to have none (no reading, or stacks in
 * none: a merge).  A file written whole (`vigil attach -o` to a FIFO)
 * adds it to the two; the stream below writes it itself.
 */
int vgl_sampled_readings(struct vgl_sampled *s,
			 struct vgl_writer_section *out);

void vgl_sampled_release(struct vgl_sampled *s);

/*
 * A sampled file written while the run goes on, so that memory stays
 * flat however long it is and the file is valid whenever its writer is
 * killed.  The layout is the one vgl_format.h defines, read by every
 * reader as it is: the header and table at 0 (rewritten whole, in one
 * write, at each commit), SAMPLES at 4096 growing at its end, and the
 * other sections (META, STRINGS, ARENA, STACKS, STACK_READINGS) after
 * it, written anew at each commit where they overwrite nothing the
 * table names.
 */
struct vgl_sampled_stream {
	int fd;
	uint64_t samples_end;       /* end of the committed sample records */
	uint64_t nsamples;          /* committed */
	uint64_t trailer_at, trailer_len;
	int failed;                 /* the first error, sticky */
};

/* Starts the stream on fd (a regular file open for writing, empty).
 * Returns 0 or a negative errno. */
int vgl_sampled_stream_open(struct vgl_sampled_stream *st, int fd);

/*
 * Commits: appends the samples s holds (and empties them: s keeps only
 * what came since the last commit), and writes META, STRINGS and the
 * modules from w (w->extra is not used) and STACKS from s.  The file is
 * then a complete profile of every sample committed; final also cuts it
 * to its end.  Returns 0 or a negative errno (then every later commit
 * fails with it).
 */
int vgl_sampled_stream_commit(struct vgl_sampled_stream *st,
			      struct vgl_sampled *s, const struct vgl_writer *w,
			      int final);

#endif
