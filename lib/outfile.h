/*
 * outfile.h - a command's output file: standard output, a file written
 * whole under a temporary name and renamed, or a FIFO or character device
 * written into as a stream; the one rule of what may be replaced, for every
 * output of every command (see outfile.c).
 */
#ifndef VIGIL_OUTFILE_H
#define VIGIL_OUTFILE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

struct outfile {
	FILE *f;            /* write here */
	const char *path;   /* as given; NULL for standard output */
	char *target;       /* what the temporary file is renamed to: path,
	                     * or the file its symbolic link leads to */
	char *tmp;          /* the temporary name, or NULL (a stream) */
	int dirfd;          /* the target's directory (-1 for a stream) */
	char *base, *tmpbase;   /* the target's and tmp's names in it */
};

/*
 * Opens path (NULL or "-": standard output).  Returns 0 or -errno:
 * -EISDIR for a directory, -ENOTBLK for a block device, -ENXIO for a
 * socket, -EPERM for a place another user could have laid out (see
 * outfile.c; outfile_strerror says which), or what open said.  A file
 * made is mode 0666 less what an input withheld (outfile_note_input)
 * and the umask.
 */
int outfile_open(struct outfile *o, const char *path);

/* outfile_open, the file made no more than mode (0600: private). */
int outfile_open_mode(struct outfile *o, const char *path, mode_t mode);

/*
 * Notes that what this process writes is made from the file at path:
 * no file it makes from now on is readable by group or others where
 * that file is not.
 */
void outfile_note_input(const char *path);

/*
 * The mode for a recording of process pid: 0666 when it is ours (all
 * its uids our euid) and dumpable, else 0600: a profile must not show
 * anyone what /proc/PID would not.
 */
int outfile_mode_for_pid(pid_t pid);

/*
 * Whether a directory (st) may hold files this process makes: 0 when it
 * is ours or root's and not writable by others (but our own group)
 * unless sticky; else
 * -EPERM with words for one line in buf.
 */
int outfile_dir_check(const struct stat *st, char *buf, size_t len);

/*
 * Locks path, an existing regular file, against other writers that lock
 * it, until the descriptor put in *fd is closed (after the new file has
 * been renamed over it): a merge that reads OUT and replaces it is not
 * overtaken by another doing the same.  Waits for the lock wait_ns at
 * most: anyone who may read the file may hold its lock (another user, in
 * a shared directory).  Returns 0 (*fd -1 when there is nothing to lock:
 * no file, a stream, standard output, or a place that outfile_open will
 * refuse and say why), -ETIMEDOUT when the wait ran out, or another
 * -errno (the lock could not be had: the caller must not go on, or a
 * merge could be lost).
 */
int outfile_lock(const char *path, uint64_t wait_ns, int *fd);

/*
 * outfile_lock for a directory that a command writes files into whose
 * names it learns only from its inputs (merge --keep-apart): the
 * directory itself is locked.  *fd -1 when it is one outfile_open will
 * refuse files in.  It is a lock of its own: it does not exclude a
 * writer that locks one file in the directory (outfile_lock).
 */
int outfile_lock_dir(const char *dir, uint64_t wait_ns, int *fd);

/*
 * Finishes o: flushes, and when ok renames the temporary file to its
 * name (when not ok, removes it).  Returns 0, or -errno when anything
 * written did not reach the file (a full disk), or -EEXIST when
 * something other than a regular file took the name meanwhile.
 */
int outfile_close(struct outfile *o, int ok);

/*
 * 1 when path would be written into as a stream (standard output, a FIFO,
 * a character device), 0 when it would be created or replaced whole, a
 * negative errno when it would be refused.  For a command that writes
 * files next to its output (merged windows): a stream has no "next to".
 */
int outfile_is_stream(const char *path);

/* outfile_open's or outfile_close's error, as words for one line. */
const char *outfile_strerror(int err);

#endif
