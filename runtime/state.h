/*
 * state.h - the runtime's process-wide state, vgl_rt (state.c), which
 * every file of the runtime may read, and what every file needs (RT).
 * Nothing in the runtime's headers is visible outside libvigil (the
 * runtime is built with -fvisibility=hidden); the only exported symbols
 * are the hooks (hooks.c, fentry.S), dlclose (dlclose.c) and the
 * functions of vigil.h.
 *
 * The runtime's files call one way, down this list, and never up it:
 *
 *   dlclose.c             the exported dlclose: tells the hooks
 *   hooks.c, fentry.S     the hooks (one module in two languages: the
 *                         assembly's fast path calls the C slow paths,
 *                         which point its exported hook at its stubs):
 *                         each thread's private index from
 *                         (callee, site) to its edge record in the file,
 *                         the blocks of edge records it appends to, the
 *                         slow path and the checks after a dlclose
 *   init.c                the runtime's life (set up, fork, exit) and the
 *                         API of vigil.h
 *   interval.c            the optional window-snapshot thread
 *   ondemand.c            an ondemand program's sites made idle before
 *                         main when it is not asked to count
 *   module.c, modfile.c   the loaded objects, written to the file as
 *                         MODULE blocks when first seen
 *   store.c               the profile file, mapped shared at a fixed,
 *                         reserved address range so that pointers into
 *                         it stay valid when the file grows or is
 *                         replaced (fork, vigil_set_file)
 *   the floor, which calls nothing above it:
 *     lock.c              vgl_rt.lock and the signals blocked around it
 *     thread.c            each thread's state, made, kept and given
 *                         back, and its words of TLS (thread.h)
 *     unload.c            dlcloses under way
 *     text.c, clock.c     strings and warnings, the time
 *     state.c             vgl_rt
 *
 * Each file has a header of its own declaring what it gives the files
 * above it.
 */
#ifndef VGL_RT_STATE_H
#define VGL_RT_STATE_H

#include <pthread.h>
#include <stdint.h>
#include <stddef.h>

#include "vgl_format.h"

/* Every function of the runtime: never a hook's caller (its own calls
 * would re-enter it). */
#define RT __attribute__((no_instrument_function))

#define RT_PATH_MAX 4096

/*
 * One arena of blocks: the one in the file, or the overflow arena in
 * anonymous memory that takes blocks when the file cannot grow (their
 * counts are then reported as lost_calls when the program ends).
 */
struct rt_arena {
	char *base;              /* the struct vgl_arena header */
	uint64_t limit;          /* bytes addressable from base */
};

struct rt {
	int lock;                /* every slow path; never the hot path:
	                          * 0 free, 1 held, 2 held and waited for
	                          * (lock.h, lock_take) */
	int state;               /* RT_* below */
	int fd;                  /* the file while it is being set up, or -1:
	                          * the runtime keeps no descriptor open */
	uint64_t fd_dev, fd_ino; /* what rt->path must still name to be ours */
	char *map;               /* reserved range, file mapped at its start */
	uint64_t reserve;        /* length of that range */
	uint64_t reserve_max;    /* the most it may grow to (in place, under a
	                          * finite RLIMIT_AS, where it is only as long
	                          * as the file) */
	uint64_t file_size;      /* bytes of the file allocated so far */
	struct vgl_meta *meta;
	uint64_t arena_off;      /* file offset of the ARENA section */
	struct rt_arena arena;   /* in the file (or anonymous, see no_file) */
	struct rt_arena overflow;
	int no_file;             /* counting into anonymous memory */
	int memfd;               /* counting into a memfd (an ondemand
	                          * program switched on live, store_memfd):
	                          * sized once, never grown, no name */
	int warned;              /* one warning line per process */
	int start_interval;      /* start the interval thread once the lock
	                          * is released */
	int fork_pending;        /* a fork child that has not counted yet:
	                          * the file mapped is still its parent's */
	char pattern[RT_PATH_MAX];
	char path[RT_PATH_MAX];  /* absolute: a later chdir changes nothing */
	char exe[RT_PATH_MAX];
	char host[256];
	uint64_t start_ns;
	uint64_t interval_ns;    /* 0: no window snapshots */
	uint64_t fork_used;      /* the arena's size when fork was called */
	uint32_t pid;            /* this process (updated in a fork child) */
	uint32_t modes;          /* VGL_META_MODE_* of the hooks that counted
	                          * so far, for each new file's META */
};

enum { RT_UNINIT = 0, RT_READY = 1, RT_OFF = 2 };

/* rt_warn's error for a path that names something other than a regular
 * file (a FIFO, a device): vigil writes only into files it creates. */
#define RT_ENOTREG 100000

extern struct rt vgl_rt;

#endif
