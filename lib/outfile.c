/*
 * outfile.c - where every output file of every command goes (-o of
 * convert, flame, plot, report --output, merge, attach, and run's merged
 * profiles): the one rule of what may be replaced, shared by the text
 * formats and the .vgl writer.
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
 *
 * A shared directory (/tmp) is a place where another user may have put
 * something first (issue 28.3): a link to the victim's authorized_keys
 * where the victim's profile goes, a FIFO that reads the profile out.  So
 * the directory a file is made in is opened once and everything happens
 * relative to that descriptor (openat, renameat: no name is looked up
 * twice), and:
 *   - the directory must be ours or root's, and not writable by others
 *     (but our own group) unless sticky: in a directory another user owns
 *     or may write without the sticky bit, that user can swap any name
 *     under us;
 *   - a symbolic link is followed only when its owner is us or the
 *     directory's owner: in a sticky directory, the kernel's own rule for
 *     links (fs.protected_symlinks); elsewhere no one else could make it;
 *   - a FIFO or a device is written into only when it is ours or root's.
 * Refusals are -EPERM, and outfile_strerror says which and whose.
 *
 * A profile holds command lines, paths and names (issue 28.2).  A file
 * made from other profiles is no more readable than the least readable of
 * them (outfile_note_input), and a caller may ask for less
 * (outfile_open_mode: a process of another user's is recorded 0600).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "outfile.h"

/* Links followed at most, as the kernel's own limit. */
#define MAX_HOPS 40

/* Why the last -EPERM of this thread's outfile calls was one (empty when
 * it was the system's). */
static __thread char why[PATH_MAX + 128];

/* The group and other bits every input granted (outfile_note_input). */
static mode_t input_bits = 0077;

/* Where a file is made: dirfd and name in it, what is there now. */
struct place {
	int dirfd;
	char *dir;          /* as opened, for messages */
	char *base;
	int exists;
	struct stat st;     /* what is there (lstat), when exists */
};

static void place_release(struct place *p)
{
	if (p->dirfd >= 0)
		close(p->dirfd);
	free(p->dir);
	free(p->base);
	p->dirfd = -1;
	p->dir = p->base = NULL;
}

int outfile_dir_check(const struct stat *st, char *buf, size_t len)
{
	if (st->st_uid != geteuid() && st->st_uid != 0) {
		snprintf(buf, len, "owned by another user (uid %u)",
			 (unsigned)st->st_uid);
		return -EPERM;
	}
	/* A group of our own may write (umask 002 with a group per user is
	 * common, and a link its members make is not followed anyway). */
	if (((st->st_mode & S_IWOTH) ||
	     ((st->st_mode & S_IWGRP) && st->st_gid != getegid())) &&
	    !(st->st_mode & S_ISVTX)) {
		snprintf(buf, len, "writable by others and not sticky (mode "
			 "%o)", (unsigned)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/* Splits path into its directory (".", "/") and last name, opens the
 * directory and checks it (outfile_dir_check). */
static int open_dir(const char *path, struct place *p)
{
	const char *slash = strrchr(path, '/');
	char sub[256];
	struct stat st;

	if (!slash)
		p->dir = strdup(".");
	else   /* "/name": the root */
		p->dir = strndup(path, slash == path ? 1
						     : (size_t)(slash - path));
	p->base = strdup(slash ? slash + 1 : path);
	if (!p->dir || !p->base)
		return -ENOMEM;
	/* "DIR/", ".", "..": a directory, refused as one. */
	if (!*p->base || !strcmp(p->base, ".") || !strcmp(p->base, ".."))
		return -EISDIR;
	/* O_PATH: a directory we may write but not list is one too. */
	p->dirfd = open(p->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (p->dirfd < 0 || fstat(p->dirfd, &st) < 0)
		return -errno;
	if (outfile_dir_check(&st, sub, sizeof(sub))) {
		snprintf(why, sizeof(why), "the directory %s: %s", p->dir, sub);
		return -EPERM;
	}
	return 0;
}

/*
 * Where path leads (see the top of the file): its directory opened and
 * checked, trusted links followed.  A link that leads nowhere is -ENOENT
 * (a file is never made at a link's far end).
 */
static int resolve(const char *path, struct place *p)
{
	char *cur = strdup(path), target[PATH_MAX];
	struct stat dst;
	ssize_t n;
	int hops, err = 0;

	memset(p, 0, sizeof(*p));
	p->dirfd = -1;
	why[0] = 0;
	for (hops = 0; !err; hops++) {
		if (!cur) {
			err = -ENOMEM;
			break;
		}
		err = open_dir(cur, p);
		if (err)
			break;
		if (fstatat(p->dirfd, p->base, &p->st, AT_SYMLINK_NOFOLLOW)) {
			err = errno == ENOENT && hops ? -ENOENT
			      : errno == ENOENT ? 0 : -errno;
			break;
		}
		p->exists = 1;
		if (!S_ISLNK(p->st.st_mode))
			break;
		if (fstat(p->dirfd, &dst) < 0) {
			err = -errno;
			break;
		}
		if (p->st.st_uid != geteuid() && p->st.st_uid != dst.st_uid) {
			snprintf(why, sizeof(why), "a symbolic link of another "
				 "user (uid %u): not followed",
				 (unsigned)p->st.st_uid);
			err = -EPERM;
			break;
		}
		if (hops == MAX_HOPS) {
			err = -ELOOP;
			break;
		}
		n = readlinkat(p->dirfd, p->base, target, sizeof(target) - 1);
		if (n < 0) {
			err = -errno;
			break;
		}
		target[n] = 0;
		free(cur);
		if (target[0] == '/')
			cur = strdup(target);
		else if (asprintf(&cur, "%s/%s", p->dir, target) < 0)
			cur = NULL;
		place_release(p);
		p->exists = 0;
	}
	free(cur);
	if (err)
		place_release(p);
	return err;
}

/* What the rule makes of a place that exists: 0 with *stream set (write
 * into it) or clear (replace it), or a negative errno. */
static int classify(const struct place *p, int *stream)
{
	const struct stat *st = &p->st;

	*stream = 0;
	if (!p->exists || S_ISREG(st->st_mode))
		return 0;
	if (S_ISFIFO(st->st_mode) || S_ISCHR(st->st_mode)) {
		/* Another user's FIFO in /tmp would read the profile out. */
		if (st->st_uid != geteuid() && st->st_uid != 0) {
			snprintf(why, sizeof(why), "a %s of another user (uid "
				 "%u): not written into", S_ISFIFO(st->st_mode)
				 ? "FIFO" : "device", (unsigned)st->st_uid);
			return -EPERM;
		}
		*stream = 1;
		return 0;
	}
	if (S_ISDIR(st->st_mode))
		return -EISDIR;
	if (S_ISBLK(st->st_mode))
		return -ENOTBLK;
	return -ENXIO;   /* a socket: nothing to open */
}

int outfile_is_stream(const char *path)
{
	struct place p;
	int stream, err;

	if (!path || !strcmp(path, "-"))
		return 1;
	err = resolve(path, &p);
	if (!err)
		err = classify(&p, &stream);
	place_release(&p);
	return err ? err : stream;
}

const char *outfile_strerror(int err)
{
	if (err == -ENOTBLK)
		return "is a block device (a profile or report is written "
		       "only to a regular file, a FIFO or a character device)";
	if (err == -EPERM && why[0])
		return why;
	return strerror(-err);
}

void outfile_note_input(const char *path)
{
	struct stat st;

	if (path && !stat(path, &st) && S_ISREG(st.st_mode))
		input_bits &= st.st_mode & 0077;
}

int outfile_mode_for_pid(pid_t pid)
{
	char path[64], line[256];
	unsigned r, e, s, f;
	struct stat st;
	FILE *fp;
	int mode = 0600;

	/* /proc/PID belongs to root when the process is not dumpable (a
	 * setuid or otherwise secure-execution program): its memory and
	 * command line are kept from its own user too. */
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &st) < 0)
		return mode;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(fp = fopen(path, "re")))
		return mode;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "Uid: %u %u %u %u", &r, &e, &s, &f) == 4) {
			if (r == geteuid() && e == r && s == r && f == r &&
			    st.st_uid == e)
				mode = 0666;
			break;
		}
	fclose(fp);
	return mode;
}

/* Opens a new temporary file beside p's name, mode as given (and the
 * umask); its name into o->tmp (the path) and *tmpbase. */
static int make_tmp(struct outfile *o, const struct place *p, mode_t mode,
		    char **tmpbase)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz"
				     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char rnd[6];
	size_t len;
	int fd = -EEXIST, i, k;

	if (asprintf(tmpbase, "%s.tmp.XXXXXX", p->base) < 0) {
		*tmpbase = NULL;
		return -ENOMEM;
	}
	len = strlen(*tmpbase);
	for (i = 0; i < 100 && fd == -EEXIST; i++) {
		if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
			return -EIO;
		for (k = 0; k < 6; k++)
			(*tmpbase)[len - 6 + k] = digits[rnd[k] % 62];
		/* O_EXCL: a name someone else made (a link) is never
		 * opened, only skipped. */
		fd = openat(p->dirfd, *tmpbase, O_RDWR | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0)
			fd = -errno;
	}
	if (fd >= 0 && asprintf(&o->tmp, "%s/%s", p->dir, *tmpbase) < 0) {
		o->tmp = NULL;
		close(fd);
		unlinkat(p->dirfd, *tmpbase, 0);
		return -ENOMEM;
	}
	return fd;
}

int outfile_open(struct outfile *o, const char *path)
{
	return outfile_open_mode(o, path, 0666);
}

int outfile_open_mode(struct outfile *o, const char *path, mode_t mode)
{
	struct place p;
	struct stat st;
	int stream, fd, err;

	memset(o, 0, sizeof(*o));
	o->dirfd = -1;
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	o->path = path;
	err = resolve(path, &p);
	if (!err)
		err = classify(&p, &stream);
	if (err)
		goto fail;
	if (stream) {
		/* No O_CREAT: the thing was there a moment ago, and must not
		 * become a regular file if it went away; and it must still be
		 * what was checked. */
		fd = openat(p.dirfd, p.base, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && (fstat(fd, &st) < 0 ||
				st.st_ino != p.st.st_ino ||
				st.st_dev != p.st.st_dev)) {
			close(fd);
			fd = -1;
			errno = EEXIST;
		}
		if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
			err = -errno;
			if (fd >= 0)
				close(fd);
			goto fail;
		}
		place_release(&p);
		return 0;
	}
	/* The owner's bits as asked, the others' no more than every input
	 * granted; the umask applies. */
	mode &= 0600 | (0066 & input_bits);
	fd = make_tmp(o, &p, mode, &o->tmpbase);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		err = fd < 0 ? fd : -errno;
		if (fd >= 0) {
			close(fd);
			unlinkat(p.dirfd, o->tmpbase, 0);
		}
		goto fail;
	}
	if (asprintf(&o->target, "%s/%s", p.dir, p.base) < 0)
		o->target = NULL;
	o->dirfd = p.dirfd;
	o->base = p.base;
	p.dirfd = -1;
	p.base = NULL;
	place_release(&p);
	return 0;
fail:
	place_release(&p);
	free(o->tmp);
	free(o->tmpbase);
	o->tmp = o->tmpbase = NULL;
	return err;
}

int outfile_close(struct outfile *o, int ok)
{
	int err = 0;

	if (!o->f)
		return 0;
	why[0] = 0;
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
		if (ok && !err &&
		    !fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) &&
		    !S_ISREG(st.st_mode))
			err = -EEXIST;
		if (ok && !err &&
		    renameat(o->dirfd, o->tmpbase, o->dirfd, o->base))
			err = -errno;
		if (!ok || err)
			unlinkat(o->dirfd, o->tmpbase, 0);
		free(o->tmp);
		o->tmp = NULL;
	}
	if (o->dirfd >= 0)
		close(o->dirfd);
	o->dirfd = -1;
	free(o->tmpbase);
	free(o->base);
	free(o->target);
	o->tmpbase = o->base = o->target = NULL;
	return err;
}

/*
 * Takes fd's exclusive flock within wait_ns.  flock(LOCK_EX) alone waits
 * for as long as the holder likes, and the holder may be anyone who can
 * open the file for reading (another user, in a shared directory): so the
 * lock is tried, and tried again after a short sleep (5 ms, doubling to
 * 50 ms: a merge's turn is short, another user's hold may be forever)
 * until the deadline.  Returns 0, -ETIMEDOUT, or what flock said.
 */
static int lock_within(int fd, const struct timespec *deadline)
{
	struct timespec now, nap = { 0, 5000000 };
	long left;

	for (;;) {
		if (!flock(fd, LOCK_EX | LOCK_NB))
			return 0;
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK)
			return -errno;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > deadline->tv_sec ||
		    (now.tv_sec == deadline->tv_sec &&
		     now.tv_nsec >= deadline->tv_nsec))
			return -ETIMEDOUT;
		left = (deadline->tv_sec - now.tv_sec) * 1000000000L +
		       (deadline->tv_nsec - now.tv_nsec);
		if (nap.tv_nsec > left)
			nap.tv_nsec = left;
		nanosleep(&nap, NULL);
		nap.tv_nsec = nap.tv_nsec * 2 > 50000000 ? 50000000
							 : nap.tv_nsec * 2;
	}
}

static void deadline_in(struct timespec *d, uint64_t wait_ns)
{
	/* Beyond a day is forever enough, and no overflow. */
	if (wait_ns > 86400ull * 1000000000ull)
		wait_ns = 86400ull * 1000000000ull;
	clock_gettime(CLOCK_MONOTONIC, d);
	d->tv_sec += (time_t)(wait_ns / 1000000000ull);
	d->tv_nsec += (long)(wait_ns % 1000000000ull);
	if (d->tv_nsec >= 1000000000L) {
		d->tv_sec++;
		d->tv_nsec -= 1000000000L;
	}
}

int outfile_lock(const char *path, uint64_t wait_ns, int *lockfd)
{
	struct timespec deadline;
	struct place p;
	struct stat now;
	int fd, err, tries;

	*lockfd = -1;
	if (!path || !strcmp(path, "-"))
		return 0;
	deadline_in(&deadline, wait_ns);
	for (tries = 0; tries < 1000; tries++) {
		/* What outfile_open would refuse is refused there, in its
		 * words; nothing there, or a stream, is nothing to lock. */
		if (resolve(path, &p))
			return 0;
		if (!p.exists || !S_ISREG(p.st.st_mode)) {
			place_release(&p);
			return 0;
		}
		fd = openat(p.dirfd, p.base, O_RDONLY | O_NOFOLLOW |
			    O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			place_release(&p);
			if (err == -ENOENT)
				continue;   /* replaced meanwhile */
			return err;
		}
		err = lock_within(fd, &deadline);
		if (err) {
			close(fd);
			place_release(&p);
			return err;
		}
		/* The lock is the file's that has the name now: one that was
		 * renamed over while we waited was another's result, which
		 * the next merge must read. */
		if (!fstat(fd, &p.st) &&
		    !fstatat(p.dirfd, p.base, &now, AT_SYMLINK_NOFOLLOW) &&
		    now.st_dev == p.st.st_dev && now.st_ino == p.st.st_ino) {
			place_release(&p);
			*lockfd = fd;
			return 0;
		}
		close(fd);
		place_release(&p);
	}
	return -EAGAIN;
}

int outfile_lock_dir(const char *dir, uint64_t wait_ns, int *lockfd)
{
	struct timespec deadline;
	struct stat st, now;
	char sub[256];
	int fd, err, tries;

	*lockfd = -1;
	deadline_in(&deadline, wait_ns);
	for (tries = 0; tries < 1000; tries++) {
		/* O_RDONLY, not O_PATH: flock needs a descriptor of the
		 * directory itself. */
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		/* A directory outfile_open will refuse is refused there, in
		 * its words, before anything is written. */
		if (fstat(fd, &st) < 0 || outfile_dir_check(&st, sub,
							     sizeof(sub))) {
			close(fd);
			return 0;
		}
		err = lock_within(fd, &deadline);
		if (err) {
			close(fd);
			return err;
		}
		/* Still the directory of that name (not renamed away while
		 * we waited). */
		if (!stat(dir, &now) && now.st_dev == st.st_dev &&
		    now.st_ino == st.st_ino) {
			*lockfd = fd;
			return 0;
		}
		close(fd);
	}
	return -EAGAIN;
}
