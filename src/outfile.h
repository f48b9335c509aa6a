/*
 * outfile.h - a command's output file: standard output, or a file written
 * whole under a temporary name and renamed (see outfile.c).
 */
#ifndef VIGIL_OUTFILE_H
#define VIGIL_OUTFILE_H

#include <stdio.h>

struct outfile {
	FILE *f;            /* write here */
	const char *path;   /* NULL for standard output */
	char *tmp;          /* the temporary name, or NULL */
};

/* Opens path (NULL or "-": standard output).  Returns 0 or -errno. */
int outfile_open(struct outfile *o, const char *path);

/*
 * Finishes o: flushes, and when ok renames the temporary file to its
 * name (when not ok, removes it).  Returns 0, or -errno when anything
 * written did not reach the file (a full disk).
 */
int outfile_close(struct outfile *o, int ok);

#endif
