/*
 * maps.h - the one reader of /proc/PID/maps, for the sampler (where its
 * modules are mapped, where the target's .vgl profile is) and the readers
 * (the symbolizer of a live process, the modules of an attach recording).
 *
 * The file is read whole, then walked line by line: the kernel generates
 * it a page at a time, and a line read across two reads of a changing
 * process would mix two states of it.
 */
#ifndef VGL_MAPS_H
#define VGL_MAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One mapping.  path is "" for anonymous memory, "[heap]" and the like
 * for the kernel's names, else the file's path as the kernel prints it
 * (" (deleted)" included); it points into the reader's buffer and lives
 * until the next vgl_maps_next() or vgl_maps_close(). */
struct vgl_map {
	uint64_t lo, hi;        /* [lo, hi) */
	uint64_t offset;        /* in the file */
	uint64_t dev;           /* the file's device, makedev(major,
	                         * minor); 0 when none or unreadable */
	uint64_t inode;         /* the file's inode; 0 likewise */
	char perms[5];          /* "r-xp" */
	const char *path;
};

struct vgl_maps {
	char *buf;
	size_t len, pos;
};

/* Reads /proc/PID/maps (vgl_maps_open) or the maps file open at fd, from
 * its start (vgl_maps_read_fd; fd stays open, for the next read).  Returns
 * 0 or a negative errno. */
int vgl_maps_open(struct vgl_maps *m, pid_t pid);
int vgl_maps_read_fd(struct vgl_maps *m, int fd);

/* The next mapping into *out: returns 1, or 0 at the end.  Lines that are
 * not mappings are skipped. */
int vgl_maps_next(struct vgl_maps *m, struct vgl_map *out);

void vgl_maps_close(struct vgl_maps *m);

/* /proc/PID/exe, the program the maps are of, malloc'd; NULL when it
 * cannot be read. */
char *vgl_proc_exe(pid_t pid);

/* Parses one line (without its newline; the path is left in place).
 * Returns 0 or -EINVAL. */
int vgl_maps_parse_line(char *line, struct vgl_map *out);

#endif
