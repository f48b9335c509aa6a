/*
 * vgl_merge.h - add up many .vgl profiles into one profile per program:
 * what `vigil merge` and `vigil run` write.
 *
 * A program is its main executable, told apart by build-id (by path only
 * when asked, for builds without build-ids).  Modules are matched the same
 * way, so the load addresses of each process (ASLR) do not matter: every
 * edge is translated to its module's ELF address and back to the load
 * address of the first profile that had that module, then summed in a
 * hash table of edges.  Inputs are read one at a time and released, so
 * memory grows with the distinct edges of the programs, not with the
 * number of files.
 *
 * What a merged file keeps: the summed counts of each edge in one EDGES
 * block (owner 0: the threads of many processes cannot be told apart
 * after summing), the modules, the pid, exe, host and command of the
 * profile that started first (then the lowest pid), the earliest start
 * and the latest end, and the summed lost and skipped calls.  Its state
 * is "finished" when every input finished (with the highest exit status
 * of theirs), "cut short" otherwise.  None of it depends on the order in
 * which the inputs are added (vigil run adds a directory's files in the
 * order it lists them).
 */
#ifndef VGL_MERGE_H
#define VGL_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "vgl_reader.h"

struct vgl_merge_group;

struct vgl_merge {
	int by_path;          /* match modules without build-id by path */
	int keep_apart;       /* accept several programs */

	struct vgl_merge_group **groups;
	size_t ngroups;

	/* What was added, for the summary. */
	size_t inputs, running, cut_short, windows_skipped;
	size_t by_path_matches;     /* modules matched by path */
	char by_path_example[256];  /* one of them */
	char err[512];              /* why the last call failed */
};

/* The merge starts empty; set by_path and keep_apart before adding. */
void vgl_merge_init(struct vgl_merge *m);

void vgl_merge_release(struct vgl_merge *m);

/*
 * Adds the profile that r holds (named name in messages).  Window
 * snapshots are not added (their counts are also in the live file they
 * were taken from) but counted in windows_skipped.  Returns 0; -EXDEV when
 * r is the profile of another program than those added before and
 * keep_apart is not set (err names both files); -ENOENT when a module
 * has no build-id and by_path is not set; -ENOMEM.  On failure nothing of
 * r was added.
 */
int vgl_merge_add(struct vgl_merge *m, const struct vgl_reader *r,
		  const char *name);

/* How many calls the merge holds in all, saturating. */
uint64_t vgl_merge_calls(const struct vgl_merge *m);

/*
 * The file name (no directory) for group i when groups go to a directory:
 * the base name of its executable + ".vgl", with the first 8 hex digits
 * of its build-id added when another group has the same base name.
 */
void vgl_merge_name(const struct vgl_merge *m, size_t i, char *buf,
		    size_t len);

/* The executable path of group i, or "-". */
const char *vgl_merge_exe(const struct vgl_merge *m, size_t i);

/*
 * Writes group i to path through lib/vgl_writer (a temporary name, then
 * a rename).  Returns 0 or a negative errno.
 */
int vgl_merge_write(const struct vgl_merge *m, size_t i, const char *path);

#endif
