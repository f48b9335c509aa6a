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
 * What a merged file keeps: the summed counts of each edge, per thread
 * (an EDGES block per owner) while the program has one process, so that
 * `vigil run` of one process keeps its threads; in one block of owner 0
 * once it has more (the tids of many processes say nothing about each
 * other, and memory must grow with the edges, not with processes times
 * threads), the modules, the pid, exe, host and command of the
 * profile that started first (then the lowest pid), the earliest start
 * and the latest end, and the summed lost and skipped calls.  Its state
 * is "finished" when every input finished (with the highest exit status
 * of theirs), "cut short" otherwise.  None of it depends on the order in
 * which the inputs are added (vigil run adds a directory's files in the
 * order it lists them).
 *
 * Sampled profiles (vigil attach -o, vigil run --scan) of one program are
 * merged apart from its counting ones: their stacks are added up by thread
 * and call chain, frames translated as edges are, modules matched by path
 * (what /proc/PID/maps names); their samples, each a time series of one
 * process, are left out and counted.
 *
 * Window snapshots (VIGIL_INTERVAL) are merged by time:
 * the windows of one program, from any of its processes, go into slots of
 * one interval (the median length of its windows, or the one asked for)
 * laid from the earliest window's start; each window to the slot its
 * middle falls in, so every call of every window is in exactly one merged
 * window.  Windows are read twice: once to see their times (the slots
 * need all of them), then to add them up, so memory is that of the merged
 * windows, not of the inputs.
 */
#ifndef VGL_MERGE_H
#define VGL_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "vgl_reader.h"

struct vgl_merge_group;
struct vgl_merge_pending;
struct vgl_merge_bucket;
struct vgl_merge {
	int by_path;          /* match modules without build-id by path */
	int keep_apart;       /* accept several programs */
	uint64_t window_ns;   /* merged windows' length; 0: the median */

	struct vgl_merge_group **groups;
	size_t ngroups;

	/* What was added, for the summary. */
	size_t inputs, running, cut_short;
	size_t windows_in;          /* window snapshots merged */
	size_t sampled_in;          /* sampled profiles merged */
	uint64_t samples_left_out;  /* their sample records (time series of
	                             * one process each), not merged */
	struct vgl_merge_pending *pending;   /* windows to read again */
	size_t npending;
	struct vgl_merge_bucket *buckets;    /* merged windows */
	size_t nbuckets;
	size_t by_path_matches;     /* modules matched by path */
	char by_path_example[256];  /* one of them */
	char err[512];              /* why the last call failed */
};

/* The merge starts empty; set by_path and keep_apart before adding. */
void vgl_merge_init(struct vgl_merge *m);

void vgl_merge_release(struct vgl_merge *m);

/*
 * Adds the profile that r holds (named name in messages).  A window
 * snapshot is only noted, for vgl_merge_add_window: its counts are also in
 * the live file it was taken from.  Returns 0; -EXDEV when
 * r is the profile of another program than those added before and
 * keep_apart is not set (err names both files); -ENOENT when a module
 * has no build-id and by_path is not set; -ENOMEM.  On failure nothing of
 * r was added.
 */
int vgl_merge_add(struct vgl_merge *m, const struct vgl_reader *r,
		  const char *name);

/*
 * After every input was added: the window snapshots noted, to read again
 * (vgl_merge_window_name) and add (vgl_merge_add_window) one by one.
 * Returns their number; 0 without windows.
 */
size_t vgl_merge_plan_windows(struct vgl_merge *m);
const char *vgl_merge_window_name(const struct vgl_merge *m, size_t k);

/* Adds window k, read again into r, to its merged window.  Same errors as
 * vgl_merge_add; -ESTALE when the file changed since it was noted. */
int vgl_merge_add_window(struct vgl_merge *m, size_t k,
			 const struct vgl_reader *r);

/* How many merged windows group i has. */
size_t vgl_merge_group_windows(const struct vgl_merge *m, size_t i);

/*
 * Writes group i's merged windows next to path, which group i was written
 * to: "out.vgl" gets "out.w000001.vgl", ... (numbered by slot, so a slot
 * no window falls in leaves a gap).  *written says how many.  Returns 0,
 * or a negative errno with err naming the file.
 */
int vgl_merge_write_windows(struct vgl_merge *m, size_t i, const char *path,
			    size_t *written);

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

/* The summary of a merge, "N profiles of P programs, C calls, ..." with
 * what was special about them (bad: unreadable inputs skipped), as merge
 * and run print it; and the warning about modules matched by path, if
 * any (one line on stderr). */
void vgl_merge_summary(const struct vgl_merge *m, size_t bad, char *buf,
		       size_t len);
void vgl_merge_by_path_warning(const struct vgl_merge *m);

#endif
