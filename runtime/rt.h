/*
 * rt.h - internals shared by the runtime's files.  Nothing here is visible
 * outside libvigil (the runtime is built with -fvisibility=hidden); the
 * only exported symbols are the hooks (hooks.c, fentry.S), dlclose
 * (dlclose.c) and the functions of vigil.h.
 *
 * Where things live:
 *   the store (store.c)   the profile file, mapped shared at a fixed,
 *                         reserved address range so that pointers into it
 *                         stay valid when the file grows or is replaced
 *                         (fork, vigil_set_file);
 *   threads (thread.c)    each thread's state, made, kept and given back,
 *                         and its words of TLS (thread.h);
 *   the hooks (hooks.c)   each thread's private index from (callee, site)
 *                         to its edge record in the file, and the blocks
 *                         of edge records it appends to;
 *   the lock (lock.c)     vgl_rt.lock and the signals blocked around it;
 *   modules (module.c)    the loaded objects, written to the file as
 *                         MODULE blocks when first seen;
 *   interval (interval.c) the optional window-snapshot thread.
 */
#ifndef VGL_RT_H
#define VGL_RT_H

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

/* text.c: strings without stdio or allocation. */
struct rt_text {
	char *buf;
	size_t len, size;
	int overflow;            /* something did not fit */
};
void rt_text_init(struct rt_text *t, char *buf, size_t size);
void rt_text_str(struct rt_text *t, const char *s);
void rt_text_strn(struct rt_text *t, const char *s, size_t n);
void rt_text_u64(struct rt_text *t, uint64_t v, int width);
const char *rt_strerror(int err, char *buf, size_t size);
/* One line, once per process: "vigil: WHAT 'PATH': ERROR; THEN"
 * (THEN NULL: "the program runs on without it"). */
void rt_warn(const char *what, const char *path, int err, const char *then);
/* The same line once per *flag (NULL: always), without ": ERROR" when err
 * is 0: problems of their own, not silenced by the file's warning. */
void rt_warn_once(int *flag, const char *what, const char *path, int err,
		  const char *then);
void rt_warn_setting(const char *name, const char *value);
void rt_say_once(int *flag, const char *line);
/* The calling thread has (on) or no longer has a descriptor table of its
 * own: rt_warn then borrows the program's stderr. */
void rt_private_fds_thread(int on);

/* state.c: vgl_rt.  clock.c: */
uint64_t rt_now_ns(void);

/* init.c */
int rt_ensure_init(void);            /* called with vgl_rt.lock held */
void rt_start_interval(void);        /* called without it */
void rt_check_fork(void);            /* signals blocked, without the lock */

/* store.c */
int store_open(struct rt *rt, const char *pattern);
int store_reopen(struct rt *rt, const char *pattern, int finish_old,
		 uint64_t used);
void store_anonymous(struct rt *rt);
void *store_alloc_block(struct rt *rt, uint32_t kind, uint32_t owner,
			uint64_t size, const void *payload, size_t len);
void store_zero_counts(struct rt_arena *a);
uint64_t store_sum_counts(struct rt_arena *a);
void store_finish(struct rt *rt, int status);
int store_freeze(struct rt *rt);
uint64_t arena_used(struct rt_arena *a);
struct vgl_block *arena_at(struct rt_arena *a, uint64_t used);
struct vgl_block *arena_next(struct rt_arena *a, struct vgl_block *b,
			     uint64_t used);
/* Creates PATH.PID.N.tmp exclusively, never through a link; returns the
 * descriptor (its name in tmp, RT_PATH_MAX bytes) or -errno. */
int store_create_tmp(const char *path, char *tmp);
/* Removes temporary files that dead processes left in path's directory. */
void store_clean_leftovers(const char *path);

/* module.c */
void rt_find_exe(void);
/* The module ids of a new edge, found before the lock and checked under
 * it. */
struct module_ids {
	uint64_t stamp;          /* the table's changes when they were found */
	uint32_t fn, site;
};
/* Without vgl_rt.lock; ids NULL: only the loader's unload counter. */
void module_prepare(uintptr_t fn, uintptr_t site, struct module_ids *ids);
int module_dead(uint32_t id);
uint64_t module_deaths(void);
unsigned long long module_subs(void);       /* without vgl_rt.lock */
unsigned long long module_seen_subs(void);
void module_ids(struct rt *rt, uintptr_t fn, uintptr_t site,
		struct module_ids *ids);              /* with it */

/* modfile.c: the identity of a module without build-id (vgl_format.h). */
struct dl_phdr_info;
void module_file_id(const struct dl_phdr_info *info, const char *path,
		    struct vgl_module_file *out);

/* hooks.c */
void thread_slow_enter(uintptr_t fn, uintptr_t site);
/* Called by fentry.S with every argument register saved. */
void thread_slow_fentry(uintptr_t ret, uintptr_t site);
void thread_fentry_early(uintptr_t ret, uintptr_t site);
void thread_fentry_check(uintptr_t ret, uintptr_t site);
void thread_short_stack(void);
void thread_check_unloads(void);
void thread_loader_changed(void);    /* any thread, signal handlers too */

/* unload.c: dlcloses under way (dlclose.c, the exported dlclose) */
void unload_begin(void);
void unload_end(void);
int unload_busy(void);
void unload_after_fork_child(void);

/* interval.c */
int interval_start(struct rt *rt);
void interval_stop_and_flush(struct rt *rt, int status);
int interval_snapshot(struct rt *rt);
void interval_lock(void);
void interval_unlock(void);
void interval_forget(int new_file);
void interval_after_fork(struct rt *rt);

#endif
