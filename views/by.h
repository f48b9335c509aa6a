/*
 * by.h - one thread of a profile, and a profile's calls or samples per
 * thread and per module (`vigil report --by`, `vigil flame --thread`).
 */
#ifndef VIGIL_BY_H
#define VIGIL_BY_H

#include <stdint.h>

#include "profile.h"
#include "vgl_reader.h"

/*
 * The thread arg names in r: a number is a tid, anything else a thread
 * name from the file's samples (a counting profile knows threads by id
 * only).  0 and *tid, or -ENOENT when r has no such thread, -EINVAL when
 * the name is that of two threads.
 */
int by_find_thread(const struct vgl_reader *r, const char *arg,
		   uint32_t *tid);

/* Keeps only what thread tid did in r, before a model is built from it:
 * each edge's count becomes that thread's count (edges it never took
 * go), the stack samples are those of tid alone. */
void by_keep_thread(struct vgl_reader *r, uint32_t tid);

/* Prints the calls (a counting profile) or the stack samples (a sampled
 * one) per thread ("thread") or per module ("module").  0, -EINVAL for
 * another what, or -ENOMEM. */
int by_print(const struct vgl_profile *p, const char *what);

#endif
