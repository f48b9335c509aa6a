/*
 * procid.c - see procid.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procid.h"

static int read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	close(fd);
	buf[n] = 0;
	return (int)n;
}

void vgl_proc_path(char *buf, uint64_t pid, const char *leaf)
{
	char digits[24], *d = digits + sizeof(digits);
	size_t len;

	*--d = 0;
	if (!pid) {
		d = (char *)"self";
	} else {
		do
			*--d = (char)('0' + pid % 10);
		while (pid /= 10);
	}
	memcpy(buf, "/proc/", 6);
	len = strlen(d);
	memcpy(buf + 6, d, len);
	buf[6 + len] = '/';
	/* Leaves are short constant names. */
	strcpy(buf + 7 + len, leaf);
}

int vgl_proc_stat(uint64_t pid, uint64_t *start, char *state)
{
	char path[64], buf[1024], *p;
	int n, field;
	uint64_t v = 0;

	vgl_proc_path(path, pid, "stat");
	n = read_small(path, buf, sizeof(buf));
	/* A process reaped between the open and the read answers ESRCH: it
	 * is gone, as much as one whose directory was never there. */
	if (n == -ESRCH)
		return -ENOENT;
	if (n < 0)
		return n;
	/* The command name may hold spaces and parentheses: the fields
	 * start after its last ')'. */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return -EINVAL;
	p += 2;
	*state = *p;
	/* p is at field 3; the start time is field 22. */
	for (field = 3; field < 22; field++) {
		p = strchr(p, ' ');
		if (!p)
			return -EINVAL;
		p++;
	}
	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	*start = v;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int vgl_boot_id(uint8_t id[VGL_BOOT_ID_LEN])
{
	char buf[64];
	int n = read_small("/proc/sys/kernel/random/boot_id", buf, sizeof(buf));
	int i = 0, k = 0;

	if (n < 0)
		return n;
	/* 8-4-4-4-12 hex digits. */
	while (buf[i] && k < 2 * VGL_BOOT_ID_LEN) {
		int h = hexval(buf[i++]);

		if (h < 0)
			continue;
		if (k % 2 == 0)
			id[k / 2] = (uint8_t)(h << 4);
		else
			id[k / 2] |= (uint8_t)h;
		k++;
	}
	return k == 2 * VGL_BOOT_ID_LEN ? 0 : -EINVAL;
}

uint64_t vgl_leftover_pid(const char *name)
{
	size_t len = strlen(name);
	const char *p, *end;
	uint64_t pid = 0, num[2] = { 0, 0 };
	int n = 0;

	if (len < 10 || strcmp(name + len - 4, ".tmp"))
		return 0;
	end = name + len - 4;
	/* Up to two runs of digits, each after a dot, then ".vgl". */
	for (p = end; n < 2;) {
		const char *d = p;
		uint64_t v = 0, scale = 1;

		while (d > name && d[-1] >= '0' && d[-1] <= '9') {
			d--;
			v += (uint64_t)(*d - '0') * scale;
			scale *= 10;
		}
		if (d == p || d == name || d[-1] != '.')
			return 0;
		num[n++] = v;
		p = d - 1;
		if (p - name >= 4 && !memcmp(p - 4, ".vgl", 4))
			break;
	}
	if (p - name < 4 || memcmp(p - 4, ".vgl", 4))
		return 0;
	pid = num[n - 1];
	return pid;
}

/* A whole-file lock of type `type` for the F_OFD_* commands (l_pid 0, as
 * they require). */
static struct flock whole(short type)
{
	struct flock l;

	memset(&l, 0, sizeof(l));
	l.l_type = type;
	l.l_whence = SEEK_SET;
	return l;
}

int vgl_live_lock(int fd)
{
	struct flock l = whole(F_RDLCK);

	if (fcntl(fd, F_OFD_SETLK, &l) == 0)
		return 0;
	/* EACCES is what some file systems say for a conflict. */
	return errno == EACCES ? -EAGAIN : -errno;
}

void vgl_live_unlock(int fd)
{
	struct flock l = whole(F_UNLCK);

	fcntl(fd, F_OFD_SETLK, &l);
}

int vgl_live_locked(int fd)
{
	struct flock l = whole(F_WRLCK);

	if (fcntl(fd, F_OFD_GETLK, &l) < 0)
		return -errno;
	return l.l_type != F_UNLCK;
}

int vgl_leftover_remove(int dirfd, const char *name, uint64_t self)
{
	uint64_t pid = vgl_leftover_pid(name), start;
	struct stat st, now;
	struct flock l = whole(F_WRLCK);
	char state;
	int fd, gone = 0;

	if (!pid || pid == self ||
	    vgl_proc_stat(pid, &start, &state) != -ENOENT)
		return 0;
	/* Its pid is none of ours: a killed writer's, or a writer's of
	 * another pid namespace or host, which holds it locked.  Only a
	 * regular file is opened to look (opening a device may do things). */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode))
		return 0;
	fd = openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		if (fcntl(fd, F_OFD_SETLK, &l) == 0)
			gone = 1;   /* held now: no writer can lock it any more */
		else if (errno != EAGAIN && errno != EACCES)
			gone = 1;   /* no locks here: the pid is all there is */
	} else if (errno == EACCES || errno == EPERM || errno == EROFS) {
		/* Not ours to write (a shared directory): look without the
		 * write lock; a writer between its create and its lock, a
		 * few microseconds, is the one left to chance. */
		fd = openat(dirfd, name,
			    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0)
			gone = vgl_live_locked(fd) != 1;
	}
	if (fd < 0)
		return 0;   /* cannot look: keep it */
	/* Only the regular file looked at, still under that name. */
	if (gone && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
		     fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) < 0 ||
		     now.st_dev != st.st_dev || now.st_ino != st.st_ino))
		gone = 0;
	if (gone && unlinkat(dirfd, name, 0) < 0)
		gone = 0;
	close(fd);
	return gone;
}
