/*
 * run-merge.h - `vigil run`'s merge of the profiles its process tree
 * writes into one directory: one profile per program, merged as the
 * processes end, finished when the tree has ended.
 */
#ifndef VIGIL_RUN_MERGE_H
#define VIGIL_RUN_MERGE_H

struct run_merge;

/*
 * Starts the merge of dir's profiles; the .vgl files in dir now are not
 * ours and stay as they are.  keep: never remove a per-process file.
 * Returns 0 or -ENOMEM.
 */
int run_merge_start(struct run_merge **out, const char *dir, int keep);

/*
 * Adds the profiles of processes that have ended since the last call
 * (named NAME.PID.vgl, their PID gone or a zombie), and about once a
 * second writes the merged profiles and removes the per-process files
 * they hold.  Cheap when nothing is new: one directory listing.
 */
void run_merge_poll(struct run_merge *rm);

/*
 * Adds everything left (profiles of processes still running are merged as
 * they are, and kept), merges the window snapshots by time, writes the
 * merged profiles and windows, removes what they hold, prints the summary
 * line on stderr and frees rm.  Returns 0 or -1 after saying why.
 */
int run_merge_finish(struct run_merge *rm);

/*
 * Merges the sampled profiles in sdir (one per process, vigil run --scan)
 * into one per program, dir/NAME.sampled.vgl: their stacks added up (see
 * vgl_merge.h).  One line on stderr says where.  Returns 0 or -1 after
 * saying why.
 */
int run_merge_samples(const char *sdir, const char *dir);

#endif
