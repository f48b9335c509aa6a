/*
 * procid.h - who a process is, beyond its pid: its start time (field 22 of
 * /proc/PID/stat, clock ticks after boot) and the boot it belongs to
 * (/proc/sys/kernel/random/boot_id).  A pid is reused; (boot, pid, start
 * time) is not.  The runtime records them in META, and readers compare
 * them with the live process to tell a running writer from a dead one
 * without a descriptor the program could close.
 *
 * A pid means nothing outside its pid namespace, though (a container
 * writing into a host directory is pid 1 there), nor on another host
 * sharing the directory.  So a writer also holds a lock on its file for
 * its life, which the kernel drops however the process ends, and which
 * any reader can see whatever its namespace or host: the lock functions
 * below are the one place that takes it and looks at it (docs/format.md,
 * "Liveness").
 *
 * Used by the runtime, so it needs only system calls and allocates
 * nothing.
 */
#ifndef VGL_PROCID_H
#define VGL_PROCID_H

#include <stdint.h>

#define VGL_BOOT_ID_LEN 16

/*
 * Reads /proc/PID/stat (pid 0: this process).  Returns 0 and fills *start
 * (the start time) and *state (the state letter: R, S, D, Z, ...), or a
 * negative errno (-ENOENT when no such process is left, also when it was
 * reaped while being read).
 */
int vgl_proc_stat(uint64_t pid, uint64_t *start, char *state);

/* The boot id as 16 bytes; returns 0 or a negative errno. */
int vgl_boot_id(uint8_t id[VGL_BOOT_ID_LEN]);

/* Writes "/proc/<pid>/<leaf>" into buf (at least 64 bytes). */
void vgl_proc_path(char *buf, uint64_t pid, const char *leaf);

/*
 * Is NAME (a file name, no directory) one of vigil's temporary files,
 * "NAME.vgl.PID.N.tmp" (a profile being created) or
 * "NAME.wNNNNNN.vgl.PID.N.tmp" (a window being written)?  Returns the pid
 * of the process writing it, or 0.  Files of a pid that no longer exists
 * are leftovers of a killed process, for the next run (or `vigil run`) to
 * remove.
 */
uint64_t vgl_leftover_pid(const char *name);

/*
 * The writer's lock: an OFD read lock of the whole file (F_OFD_SETLK), so
 * that it belongs to this open file, not to the process: a descriptor
 * the program closes or a fork child inherits does not touch it, and it
 * goes when the last reference to the open file does (a mapping made
 * from it is one).  Read locks do not conflict, so a writer may take it
 * on a second open file of its own.  Returns 0; -EAGAIN when a cleaner
 * holds the file to remove it (see vgl_leftover_remove(): make another);
 * another negative errno when the file system has no such locks (then
 * readers have only the pid to go by).
 */
int vgl_live_lock(int fd);

/* Lets go of the writer's lock taken on fd (a writer that cannot keep it
 * the way it must: readers then go by the pid). */
void vgl_live_unlock(int fd);

/* Is fd's file locked by a writer (or a cleaner)?  F_OFD_GETLK, which
 * takes nothing.  Returns 1, 0, or a negative errno when it cannot tell. */
int vgl_live_locked(int fd);

/*
 * Removes NAME (in directory dirfd) when it is a temporary file (see
 * vgl_leftover_pid()) that nobody writes any more: its pid is none of
 * this pid namespace (nor self, this process's), and no writer holds it
 * locked.  The check and the removal happen under a write lock of the
 * file, which a writer's lock excludes, so a writer that had just
 * created it and not yet locked it fails to lock it and makes another.
 * A file that cannot be opened to look is kept.  Returns 1 when removed.
 */
int vgl_leftover_remove(int dirfd, const char *name, uint64_t self);

#endif
