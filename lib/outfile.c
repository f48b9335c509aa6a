/*
 * outfile.c - where every output file of every command goes (-o of
 * convert, flame, plot, report --output, merge, attach): the one rule of
 * what may be replaced, shared by the text formats and the .vgl writer.
 *
 *   nothing there, or a regular file: written whole under a temporary
 *       name in the same directory, then renamed over the name, so that a
 *       reader never sees half a file and a failed run leaves the old
 *       file alone.  Through a symbolic link, the file it leads to is
 *       replaced, and the link stays.
 *   a FIFO, a character device (/dev/null, a terminal): written into as
 *       a stream, never replaced: as root, a rename over /dev/null would
 *       replace the system's null device with a regular file.
 *   a directory, a block device, a socket: refused, nothing written.
 *
 * "-" (or no name) is standard output.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

/*
 * What the rule makes of path: 0 with *stream set (write into it) or
 * clear (write whole and rename over *target, which the caller frees),
 * or a negative errno.
 */
static int classify(const char *path, int *stream, char **target)
{
	struct stat st;

	*stream = 0;
	*target = NULL;
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			return -errno;
		/* Nothing there: created. */
		*target = strdup(path);
		return *target ? 0 : -ENOMEM;
	}
	if (S_ISLNK(st.st_mode)) {
		/* Replace what the link leads to, not the link; a link that
		 * leads nowhere is an error of realpath's (ENOENT). */
		*target = realpath(path, NULL);
		if (!*target)
			return -errno;
		if (stat(*target, &st) < 0) {
			int err = -errno;

			free(*target);
			*target = NULL;
			return err;
		}
	}
	if (S_ISREG(st.st_mode)) {
		if (!*target)
			*target = strdup(path);
		return *target ? 0 : -ENOMEM;
	}
	free(*target);
	*target = NULL;
	if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
		*stream = 1;
		return 0;
	}
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (S_ISBLK(st.st_mode))
		return -ENOTBLK;
	return -ENXIO;   /* a socket: nothing to open */
}

int outfile_is_stream(const char *path)
{
	char *target;
	int stream, err;

	if (!path || !strcmp(path, "-"))
		return 1;
	err = classify(path, &stream, &target);
	free(target);
	return err ? err : stream;
}

const char *outfile_strerror(int err)
{
	if (err == -ENOTBLK)
		return "is a block device (a profile or report is written "
		       "only to a regular file, a FIFO or a character device)";
	return strerror(-err);
}

int outfile_open(struct outfile *o, const char *path)
{
	mode_t mask;
	int stream, fd, err;

	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	o->path = path;
	err = classify(path, &stream, &o->target);
	if (err)
		return err;
	if (stream) {
		/* No O_CREAT: the thing was there a moment ago, and must not
		 * become a regular file if it went away. */
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
			err = -errno;
			if (fd >= 0)
				close(fd);
			return err;
		}
		return 0;
	}
	if (asprintf(&o->tmp, "%s.tmp.XXXXXX", o->target) < 0) {
		o->tmp = NULL;
		err = -ENOMEM;
		goto fail;
	}
	fd = mkstemp(o->tmp);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		err = -errno;
		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		goto fail;
	}
	/* mkstemp makes the file 0600; the output is as readable as any
	 * file this process creates. */
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	return 0;
fail:
	free(o->tmp);
	free(o->target);
	o->tmp = o->target = NULL;
	return err;
}

int outfile_close(struct outfile *o, int ok)
{
	int err = 0;

	if (!o->f)
		return 0;
	errno = 0;
	if (fflush(o->f) || ferror(o->f))
		err = -(errno ? errno : EIO);
	/* What is renamed into place is on the disk first: a crash right
	 * after the rename must not leave an empty file under the name. */
	if (o->tmp && ok && !err && fsync(fileno(o->f)) < 0)
		err = -errno;
	if (o->f != stdout) {
		if (fclose(o->f) && !err)
			err = -(errno ? errno : EIO);
	}
	o->f = NULL;
	if (o->tmp) {
		struct stat st;

		/* Something that is not a regular file may have taken the
		 * name since the open: it is not replaced either. */
		if (ok && !err && !lstat(o->target, &st) &&
		    !S_ISREG(st.st_mode))
			err = -EEXIST;
		if (ok && !err && rename(o->tmp, o->target))
			err = -errno;
		if (!ok || err)
			unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	free(o->target);
	o->target = NULL;
	return err;
}
