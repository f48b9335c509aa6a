/*
 * outfile.c - where a command's output goes: standard output, or the
 * file named by -o, written whole under a temporary name in the same
 * directory and renamed over it at the end, so that a reader never sees
 * half a file and a failed run leaves the old file alone.  A name that is
 * not a regular file (a pipe, /dev/null, /dev/full) is written directly.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

int outfile_open(struct outfile *o, const char *path)
{
	struct stat st;
	int fd;

	memset(o, 0, sizeof(*o));
	o->path = path;
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		o->path = NULL;
		return 0;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		o->f = fopen(path, "w");
		return o->f ? 0 : -errno;
	}
	if (asprintf(&o->tmp, "%s.tmp.XXXXXX", path) < 0) {
		o->tmp = NULL;
		return -ENOMEM;
	}
	fd = mkstemp(o->tmp);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		int err = -errno;

		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		free(o->tmp);
		o->tmp = NULL;
		return err;
	}
	fchmod(fd, 0644);
	return 0;
}

int outfile_close(struct outfile *o, int ok)
{
	int err = 0;

	if (!o->f)
		return 0;
	errno = 0;
	if (fflush(o->f) || ferror(o->f))
		err = -(errno ? errno : EIO);
	if (o->f != stdout) {
		if (fclose(o->f) && !err)
			err = -(errno ? errno : EIO);
	}
	o->f = NULL;
	if (o->tmp) {
		if (ok && !err && rename(o->tmp, o->path))
			err = -errno;
		if (!ok || err)
			unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	return err;
}
