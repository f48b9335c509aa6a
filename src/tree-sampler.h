/*
 * tree-sampler.h - sample every process of a tree (what `vigil run
 * --scan` does): one sampler (sampler/sampler.h) per process, started as
 * the caller finds new processes, each sample written as one JSON line
 * naming its process.
 */
#ifndef VIGIL_TREE_SAMPLER_H
#define VIGIL_TREE_SAMPLER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tree_sampler;

/*
 * Creates path (JSON lines, see cmd-run.c's usage) and a tree sampler
 * with these settings for every process it is given.  Returns 0 with *out
 * set, or a negative errno with err saying why.
 */
int tree_sampler_start(struct tree_sampler **out, const char *path,
		       unsigned scan, unsigned frequency, uint64_t interval_ns,
		       char *err, size_t errlen);

/*
 * The processes of the tree now (pids): starts sampling those not
 * sampled yet, and releases the samplers of processes that ended.  A
 * process that cannot be sampled (gone already, not readable) is skipped.
 */
void tree_sampler_update(struct tree_sampler *t, const pid_t *pids,
			 size_t n);

/*
 * Stops every sampler (their last samples written), closes the file and
 * frees t; *processes and *samples say how many were sampled and taken.
 * Returns 0, or a negative errno when the file could not be written.
 */
int tree_sampler_stop(struct tree_sampler *t, size_t *processes,
		      uint64_t *samples);

#endif
