/*
 * attach-vgl.h - what `vigil attach -o FILE.vgl` keeps of a run: every
 * sample and stack sample the sampler delivers, and the modules the
 * stacks' addresses fall in, written at the end as a sampled .vgl file
 * (SAMPLES and STACKS sections, MODULE blocks; see lib/vgl_format.h).
 */
#ifndef VIGIL_ATTACH_VGL_H
#define VIGIL_ATTACH_VGL_H

#include <stdint.h>
#include <sys/types.h>

#include "sampler.h"
#include "vgl_sampled.h"

struct attach_vgl_module;

struct proc_image;

struct attach_vgl {
	pid_t pid;
	struct proc_image *image;   /* its maps (image.h), the caller's */
	uint64_t start_ns;          /* CLOCK_REALTIME at the attach */
	uint64_t start_mono;        /* CLOCK_MONOTONIC at the attach */
	char *exe;                  /* the latest exe read (at the attach,
	                             * then by each sample) */
	char **argv;                /* /proc/PID/cmdline at the attach */
	size_t argc;
	uint64_t cmdline_mono;      /* CLOCK_MONOTONIC when the exe was read
	                             * (CMDLINE_NS in attach-vgl.c) */
	struct vgl_sampled rec;
	struct attach_vgl_module *mods;
	size_t nmods;
	uint64_t proc_start;        /* its start time, read at the attach */
	uint64_t refreshed_seq;     /* sample that last re-read the maps */
	int modules_read;           /* at the first sample with stacks */
	int exec_early;             /* refresh_modules saw an exec that no
	                             * sample has reported yet */
	uint64_t missed[256];       /* addresses no module held even after
	                             * a re-read (by hash; 0 = none) */
	int failed;                 /* a negative errno: out of memory (the
	                             * file would lie), or a commit failed */
	int streaming;              /* written as it goes (attach_vgl_stream) */
	struct vgl_sampled_stream stream;
	char *stream_path;          /* opened for each commit only
	                             * (attach_vgl_stream_unheld) */
	uint64_t commit_mono;       /* CLOCK_MONOTONIC of the last commit */
	int private;                /* the file is ours alone (0600) */
	int recheck_mode;           /* an exec: commit now, and look at the
	                             * process's uids again (keep_private) */
	/* One image per file (vigil run --scan): set by the caller. */
	int split_exec;
	/* An exec after stack samples of the image before it, seen with
	 * split_exec: ATTACH_VGL_SPLIT_SAMPLE, the sample that showed it
	 * is the new image's (the old one's stacks are in av); or
	 * ATTACH_VGL_SPLIT_DONE, a re-read of the maps saw it and the
	 * sample was av's.  The caller writes av and goes on in a new one
	 * (attach_vgl_split). */
	int exec_split;
	int skip_old;               /* a new image's first sample: the
	                             * stacks from before its exec are not
	                             * its own */
	int switched;               /* written as an image that exec'd */
	char *pending_exe;          /* the exe a re-read of the maps saw
	                             * (ATTACH_VGL_SPLIT_DONE) */
};

enum { ATTACH_VGL_SPLIT_SAMPLE = 1, ATTACH_VGL_SPLIT_DONE = 2 };

/* Starts recording pid's run; times are taken now.  image: the process's
 * (image.h), shared with its sampler, from which the modules are taken;
 * NULL: none are.  Returns 0 or -ENOMEM. */
int attach_vgl_init(struct attach_vgl *av, pid_t pid, struct proc_image *image);

/* Keeps one sample (kind SAMPLER_SAMPLE).  Called from the sampler's
 * callback; never fails, but remembers a failure for attach_vgl_write. */
void attach_vgl_sample(struct attach_vgl *av, const struct sampler_sample *s);
/* The target mapped new code (SAMPLER_MAPS): its modules are read
 * again now, while it lives, for the stacks named at a later sample. */
void attach_vgl_maps(struct attach_vgl *av);

/*
 * Writes the run to path as it goes (a regular file: created at once,
 * committed every second, valid if vigil is killed; memory stays flat).
 * Anything else (a FIFO, a device) is left to attach_vgl_write.  Returns
 * 0 or a negative errno (outfile.h's).
 */
int attach_vgl_stream(struct attach_vgl *av, const char *path);

/*
 * As attach_vgl_stream, but the file is not held open between commits:
 * it is opened for each (about once a second), so that a sampler of
 * hundreds of processes (vigil run --scan) holds no descriptor per
 * process for its files.  A commit that cannot open it is tried again at
 * the next.
 */
int attach_vgl_stream_unheld(struct attach_vgl *av, const char *path);

/*
 * Writes the run to path (streamed: its last commit) (whole, through a temporary name).  ended: the
 * process ended (exit_known/exit_status as the sampler reported); else
 * the sampler was stopped while it ran on.  Returns 0 or a negative
 * errno.
 */
int attach_vgl_write(struct attach_vgl *av, const char *path, int ended,
		     int exit_known, int exit_status);

/*
 * After attach_vgl_sample set av->exec_split, the process's next image,
 * in two steps so that the caller can start next's file between them:
 * attach_vgl_split_init starts next for the image the process runs now
 * (its exe read now, else the one the exec named) and marks av as the
 * image that exec'd (attach_vgl_write writes it FINISHED, switched);
 * attach_vgl_split_feed gives next the sample s when it was the new
 * image's (exec_split, av's value, ATTACH_VGL_SPLIT_SAMPLE).  The caller
 * writes and releases av.  split_init returns 0 or -ENOMEM.
 */
int attach_vgl_split_init(struct attach_vgl *next, struct attach_vgl *av,
			  const struct sampler_sample *s);
void attach_vgl_split_feed(struct attach_vgl *next, int exec_split,
			   const struct sampler_sample *s);

/* Frees av; a stream never written by attach_vgl_write is closed, its
 * file left as the last commit made it. */
void attach_vgl_release(struct attach_vgl *av);

#endif
