/*
 * tree-sampler.h - sample every process of a tree (what `vigil run
 * --scan` does): one sampler (sampler/sampler.h) per process, started as
 * the caller finds new processes; each process's samples go into a
 * sampled .vgl file of its own, DIR/NAME.PID.vgl, streamed as `vigil
 * attach -o` streams them: valid from the start, committed about every
 * second, so that a killed vigil leaves the samples so far.  One file per
 * image: a process that exec'd after stack samples of the program before
 * has a file for each program (the earlier FINISHED, switched), so that
 * the stacks merged per program are that program's.
 */
#ifndef VIGIL_TREE_SAMPLER_H
#define VIGIL_TREE_SAMPLER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sampler.h"

struct tree_sampler;

/*
 * Makes dir (if missing) and a tree sampler for every process it is
 * given, with the settings of tmpl (interval, scan, frequency, unwind,
 * stack copy; its pid, fn and arg are not used).  Returns 0 with *out
 * set, or a negative errno with err saying why.
 */
int tree_sampler_start(struct tree_sampler **out, const char *dir,
		       const struct sampler_config *tmpl, char *err,
		       size_t errlen);

/*
 * The processes of the tree now (pids): starts sampling those not
 * sampled yet, and releases the samplers of processes that ended.  A
 * process that cannot be sampled (gone already, not readable) is skipped.
 */
void tree_sampler_update(struct tree_sampler *t, const pid_t *pids,
			 size_t n);

/* What a tree sampler did, for the summary. */
struct tree_sampler_stats {
	size_t processes;       /* sampled */
	size_t unsampled;       /* found, never sampled (not for being gone) */
	size_t files;           /* sampled files written */
	uint64_t samples;
	char first_err[256];    /* why the first of the unsampled was not */
	int first_errno;        /* the same as -errno */
	char **written;         /* the names of the files written, in DIR */
	size_t to_merge;        /* the first to_merge of them are to be
	                         * merged per program (the others have no
	                         * modules, see tree-sampler.c) */
};

/* Frees st->written. */
void tree_sampler_stats_release(struct tree_sampler_stats *st);

/*
 * Stops every sampler, makes the files of the processes still running
 * final (marked detached) and frees t; *st says what was done.  Returns 0, or
 * the negative errno of the first file that could not be written
 * (already named on stderr).
 */
int tree_sampler_stop(struct tree_sampler *t, struct tree_sampler_stats *st);

#endif
