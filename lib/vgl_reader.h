/*
 * vgl_reader.h - read a .vgl profile (see vgl_format.h) into memory,
 * validate every byte of it, and present what it holds: metadata, the
 * strings META names, the module map, the call edges summed over threads,
 * and whether the program that writes it is still running.
 *
 * The file is treated as hostile: every offset, length, count and size is
 * checked before use, in 64-bit arithmetic that cannot overflow, so that a
 * truncated, corrupt or foreign file yields one sentence saying what is
 * wrong instead of a crash or silent garbage.
 */
#ifndef VGL_READER_H
#define VGL_READER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vgl_format.h"

/* What became of the program that wrote the file. */
enum vgl_liveness {
	VGL_LIVENESS_RUNNING = 1,   /* its writer runs, and maps the file */
	VGL_LIVENESS_FINISHED = 2,  /* exit() or return from main; gone */
	VGL_LIVENESS_CUT_SHORT = 3, /* killed, crashed, _exit, exec, ... */
	VGL_LIVENESS_EXITING = 4,   /* exit() was called, but the process
	                             * still runs exit handlers and
	                             * destructors, which may count */
};

struct vgl_module_info {
	uint32_t id;
	uint32_t build_id_len;
	uint64_t bias;
	uint64_t lo;
	uint64_t hi;
	uint8_t build_id[VGL_BUILD_ID_MAX];
	const char *path;           /* points into the reader's copy */
	int has_file;               /* file holds what identifies a module
	                             * without build-id (VGL_MODULE_FILE) */
	struct vgl_module_file file;
};

/* One edge's count in one thread: the owner of the EDGES blocks. */
struct vgl_thread_count {
	uint64_t count;             /* saturates at UINT64_MAX */
	uint32_t tid;
	uint32_t reserved;
};

/* One edge, summed over every block (thread) that holds it. */
struct vgl_edge_info {
	uint64_t callee;
	uint64_t site;
	uint64_t count;             /* saturates at UINT64_MAX */
	uint32_t callee_mod;        /* a module id, or VGL_NO_MODULE */
	uint32_t site_mod;
	size_t first_thread;        /* its per-thread counts are */
	size_t nthreads;            /* thread_counts[first_thread ..+nthreads) */
};

/* One distinct stack of STACKS: its frames are frames[first_frame ..
 * first_frame + nframes). */
struct vgl_stack_info {
	uint32_t tid;
	uint32_t nframes;
	uint64_t count;
	size_t first_frame;
};

struct vgl_reader {
	char *name;                 /* the path, or "<buffer>" */
	unsigned char *data;        /* the file's bytes, owned */
	size_t size;

	struct vgl_meta meta;       /* a copy, in host order */
	const char *exe;            /* NULL when META names none */
	const char *host;
	const char **argv;          /* argc pointers into data */
	size_t argc;

	struct vgl_module_info *modules;  /* in file order */
	size_t nmodules;
	struct vgl_edge_info *edges;      /* sorted by (callee, site), unless
	                                   * VGL_READ_UNSORTED */
	size_t nedges;
	struct vgl_thread_count *thread_counts;  /* by edge, then tid */
	size_t nthread_counts;
	size_t nthreads;            /* distinct owners of EDGES blocks */
	uint64_t total_calls;       /* sum of edge counts, saturating */

	enum vgl_liveness liveness;
	pid_t lock_pid;             /* the writer's pid when RUNNING or
	                             * EXITING */
	int writer_elsewhere;       /* and that pid is not this pid
	                             * namespace's (vgl_writer_alive() 2) */

	/* SAMPLES and STACKS, when the file has them (any kind may). */
	int has_samples, has_stacks;
	struct vgl_sample *samples;       /* copies, in file order */
	size_t nsamples;
	/* Sample i's threads: sample_threads[sample_first[i] ..
	 * + samples[i].nthreads). */
	struct vgl_sample_thread *sample_threads;
	size_t *sample_first;
	size_t nsample_threads;
	/* The distinct tids of sample_threads, ascending, and each record's
	 * place among them (sample_tids[sample_tid_index[t]] is
	 * sample_threads[t].tid): readers tally per thread in one pass, not
	 * with a search per record (29k threads in 38k samples took 16 s). */
	uint32_t *sample_tids;
	size_t nsample_tids;
	size_t *sample_tid_index;
	struct vgl_stacks stacks_head;    /* a copy of STACKS' header */
	struct vgl_stack_info *stacks;    /* in file order */
	size_t nstacks;
	struct vgl_frame *frames;         /* every stack's, back to back */
	size_t nframes;

	/* STACK_READINGS, when the file has it: which SAMPLES record
	 * (reading) each stack's samples came in, sorted by reading then
	 * stack; each stack's entries add up to its count. */
	int has_readings;
	struct vgl_stack_reading *readings;
	size_t nreadings;

	/* PROCESSES, when the file has it (a merge): copies. */
	int has_processes;
	uint64_t processes;
	struct vgl_ending *endings;
	size_t nendings;

	unsigned flags;             /* VGL_READ_*, as opened */
	char err[256];              /* what is wrong, without the file name */
};

/*
 * For consumers that add edges up themselves (vigil merge): edges in file
 * order, one per thread state that made them, so a key may repeat (and
 * thread_counts in the same order).  Saves sorting each file, which was a
 * third of a merge.
 */
#define VGL_READ_UNSORTED 1u

/*
 * Reads the file at path whole and parses it.  On success returns 0 and the
 * reader owns memory that vgl_reader_close() releases; the liveness comes
 * from META.state and whether the writer is still there (see
 * vgl_writer_alive()).  On failure
 * returns a negative errno, fills r->err with one sentence (for the caller
 * to print as "vigil: PATH: <err>") and leaves nothing to release, though
 * calling vgl_reader_close() is harmless.
 */
int vgl_reader_open(struct vgl_reader *r, const char *path);
int vgl_reader_open_flags(struct vgl_reader *r, const char *path,
			  unsigned flags);

/*
 * Parses size bytes at buf (copied, so buf may go away).  Same contract as
 * vgl_reader_open(), except that nothing can tell whether a RUNNING writer
 * is alive: the liveness is then RUNNING with lock_pid = META.pid.
 */
int vgl_reader_parse(struct vgl_reader *r, const void *buf, size_t size,
		     const char *name);

void vgl_reader_close(struct vgl_reader *r);

/* The module with this id, or NULL. */
const struct vgl_module_info *vgl_reader_module(const struct vgl_reader *r,
						uint32_t id);

/*
 * Writes the state as people read it: "running (pid N)", "finished (exit
 * N)" or "cut short".  Returns buf.
 */
const char *vgl_reader_state(const struct vgl_reader *r, char *buf,
			     size_t len);

/* "running", "finished" or "cut short". */
const char *vgl_liveness_name(enum vgl_liveness l);

/* "live", "window", "merged" or "sampled". */
const char *vgl_kind_name(uint32_t kind);

/*
 * The hooks that counted a file's calls (VGL_META_MODE_*): the mode bits
 * of META, or VGL_META_MODE_ENTER for a file with edges and no bits (files
 * from before the bits, which only the enter hook wrote); 0 for a file
 * with no counted call.
 */
uint32_t vgl_reader_modes(const struct vgl_reader *r);

/* "entry" (__fentry__: real calls only), "enter-exit"
 * (-finstrument-functions: inlined copies counted too), "mixed" (both in
 * one process), or NULL for modes 0. */
const char *vgl_mode_name(uint32_t modes);

/*
 * Is the writer META names still there?  The one answer every command
 * goes by (show, report, wait, merge, run).  fd is an open descriptor of
 * the file.  The rule (docs/format.md, "Liveness"): the writer is there
 * while its lock on the file is held (procid.h: kept for the process's
 * life, whatever its pid namespace or host), or, where no lock is held
 * (a file system without such locks, a writer from before them), while
 * the process of its pid, start time and boot lives here, is not a
 * zombie, and still maps the file.  Returns 1 (there, and its pid is this
 * namespace's process), 2 (there by its lock only: its pid is another
 * namespace's or host's), 0, or a negative errno when /proc cannot tell.
 */
int vgl_writer_alive(const struct vgl_meta *m, int fd);

#endif
