/*
 * outfile.h - a command's output file: standard output, a file written
 * whole under a temporary name and renamed, or a FIFO or character device
 * written into as a stream; the one rule of what may be replaced, for every
 * output of every command (see outfile.c).
 */
#ifndef VIGIL_OUTFILE_H
#define VIGIL_OUTFILE_H

#include <stdio.h>

struct outfile {
	FILE *f;            /* write here */
	const char *path;   /* as given; NULL for standard output */
	char *target;       /* what the temporary file is renamed to: path,
	                     * or the file its symbolic link leads to */
	char *tmp;          /* the temporary name, or NULL (a stream) */
};

/*
 * Opens path (NULL or "-": standard output).  Returns 0 or -errno:
 * -EISDIR for a directory, -ENOTBLK for a block device, -ENXIO for a
 * socket, or what open or mkstemp said.
 */
int outfile_open(struct outfile *o, const char *path);

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
