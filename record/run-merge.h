/*
 * run-merge.h - `vigil run`'s merge of the profiles its process tree
 * writes into one directory: one profile per program, merged as the
 * processes end, finished when the tree has ended.
 */
#ifndef VIGIL_RUN_MERGE_H
#define VIGIL_RUN_MERGE_H

struct run_merge;

/*
 * Starts a run's merge into dir: makes the directory of the run's own
 * profiles, dir/running.XXXXXX (run_merge_dir(); VIGIL_FILE points
 * there), and notes the .vgl files in dir now, which an earlier run left:
 * a merged profile of this run may replace one of those, never a file
 * another run writes meanwhile (it takes NAME.1.vgl and says so).  keep:
 * never remove a per-process file.  Returns 0, or a negative errno when
 * dir cannot hold profiles (-ENOTDIR, -EACCES, -EROFS, ...) or -ENOMEM.
 */
int run_merge_start(struct run_merge **out, const char *dir, int keep);

/* The directory of the run's own profiles. */
const char *run_merge_dir(const struct run_merge *rm);

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
 * merged profiles and windows, removes what they hold and prints the
 * summary line on stderr (or, when no process wrote a profile, why there
 * is none).  Returns 0 or -1 after saying why.
 */
int run_merge_finish(struct run_merge *rm);

/*
 * Merges the sampled profiles names[0..n) in sdir (one per process, the
 * run's own: vigil run --scan) into one per program, dir/NAME.sampled.vgl:
 * their stacks added up (see vgl_merge.h), each name claimed as the
 * counting profiles' are when rm is given.  One line on stderr says
 * where.  Returns 0 or -1 after saying why.
 */
int run_merge_samples(struct run_merge *rm, const char *sdir,
		      char *const *names, size_t n, const char *dir);

/*
 * Moves what is left in the run's directory (per-process files kept or
 * not merged) into dir and removes it; files of processes still running
 * stay there, and one line says so.  Frees rm (NULL: nothing).
 */
void run_merge_free(struct run_merge *rm);

#endif
