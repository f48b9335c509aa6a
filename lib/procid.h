/*
 * procid.h - who a process is, beyond its pid: its start time (field 22 of
 * /proc/PID/stat, clock ticks after boot) and the boot it belongs to
 * (/proc/sys/kernel/random/boot_id).  A pid is reused; (boot, pid, start
 * time) is not.  The runtime records them in META, and readers compare
 * them with the live process to tell a running writer from a dead one
 * without a descriptor the program could close.
 *
 * Used by the runtime, so it needs only open/read/close and allocates
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

#endif
