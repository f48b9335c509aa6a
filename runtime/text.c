/*
 * text.c - the runtime's strings: one warning line per process, error
 * names, and paths built from pieces, all without stdio, strerror or any
 * allocation, so that they are safe wherever the runtime runs (a hook in a
 * signal handler, the fork child's handler, an exit handler).
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "state.h"
#include "text.h"

void RT rt_text_init(struct rt_text *t, char *buf, size_t size)
{
	t->buf = buf;
	t->len = 0;
	t->size = size;
	t->overflow = size == 0;
	if (size)
		buf[0] = 0;
}

void RT rt_text_str(struct rt_text *t, const char *s)
{
	size_t n = strlen(s);

	if (t->overflow || t->len + n + 1 > t->size) {
		t->overflow = 1;
		return;
	}
	memcpy(t->buf + t->len, s, n + 1);
	t->len += n;
}

void RT rt_text_strn(struct rt_text *t, const char *s, size_t n)
{
	if (t->overflow || t->len + n + 1 > t->size) {
		t->overflow = 1;
		return;
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = 0;
}

/* Decimal, at least `width` digits (zero-padded). */
void RT rt_text_u64(struct rt_text *t, uint64_t v, int width)
{
	char d[24], *p = d + sizeof(d);

	*--p = 0;
	do {
		*--p = (char)('0' + v % 10);
		width--;
	} while ((v /= 10) || width > 0);
	rt_text_str(t, p);
}

/* glibc's wording for the errors a profile can meet; others by number. */
const char *RT rt_strerror(int err, char *buf, size_t size)
{
	struct rt_text t;

	switch (err) {
	case RT_ENOTREG: return "not a regular file";
	case EACCES: return "Permission denied";
	case EPERM: return "Operation not permitted";
	case ENOENT: return "No such file or directory";
	case ENOTDIR: return "Not a directory";
	case EISDIR: return "Is a directory";
	case ENOSPC: return "No space left on device";
	case EDQUOT: return "Disk quota exceeded";
	case EFBIG: return "File too large";
	case EROFS: return "Read-only file system";
	case ENAMETOOLONG: return "File name too long";
	case EEXIST: return "File exists";
	case ENOMEM: return "Cannot allocate memory";
	case EINVAL: return "Invalid argument";
	case EMFILE: return "Too many open files";
	case ENFILE: return "Too many open files in system";
	case ELOOP: return "Too many levels of symbolic links";
	case EBADF: return "Bad file descriptor";
	case EIO: return "Input/output error";
	case EAGAIN: return "Resource temporarily unavailable";
	case EOPNOTSUPP: return "Operation not supported";
	case ESTALE: return "Stale file handle";
	}
	rt_text_init(&t, buf, size);
	rt_text_str(&t, "error ");
	rt_text_u64(&t, (uint64_t)(err < 0 ? -err : err), 1);
	return buf;
}

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

/* The thread whose descriptor table is its own (interval.c), or 0. */
static long private_tid;

void RT rt_private_fds_thread(int on)
{
	__atomic_store_n(&private_tid, on ? syscall(SYS_gettid) : 0L,
			 __ATOMIC_RELAXED);
}

/*
 * Writes to the program's stderr.  From a thread with a table of its own,
 * descriptor 2 there is nothing: a copy of the program's is taken through
 * a pidfd of this process for the write (a thread may take its own
 * process's descriptors), and closed.
 */
static void RT stderr_write(const char *line, size_t len)
{
	long tid = __atomic_load_n(&private_tid, __ATOMIC_RELAXED);
	int fd = STDERR_FILENO, pidfd;

	if (tid && tid == syscall(SYS_gettid)) {
		pidfd = (int)syscall(SYS_pidfd_open, (long)getpid(), 0L);
		if (pidfd < 0)
			return;
		fd = (int)syscall(SYS_pidfd_getfd, (long)pidfd,
				  (long)STDERR_FILENO, 0L);
		close(pidfd);
		if (fd < 0)
			return;
	}
	if (write(fd, line, len) < 0) {
		/* nowhere left to report to */
	}
	if (fd != STDERR_FILENO)
		close(fd);
}

/*
 * One line on stderr, once per process: the program's own output stays as
 * it was, and a program that cannot be profiled says so exactly once.
 * "vigil: WHAT 'PATH': ERROR; THEN".  A path too long for the line is cut.
 */
void RT rt_warn(const char *what, const char *path, int err, const char *then)
{
	rt_warn_once(&vgl_rt.warned, what, path, err, then);
}

/* rt_warn's line, once per *flag (NULL: the caller made sure), without
 * ": ERROR" when err is 0. */
void RT rt_warn_once(int *flag, const char *what, const char *path, int err,
		     const char *then)
{
	char line[1024], ebuf[32];
	struct rt_text t;
	size_t plen = strlen(path);

	/* Threads (the interval thread, the slow path) may race here. */
	if (flag && __atomic_exchange_n(flag, 1, __ATOMIC_RELAXED))
		return;
	rt_text_init(&t, line, sizeof(line));
	rt_text_str(&t, "vigil: ");
	rt_text_str(&t, what);
	rt_text_str(&t, " '");
	if (plen > 600)
		rt_text_str(&t, "...");
	rt_text_str(&t, plen > 600 ? path + plen - 600 : path);
	rt_text_str(&t, "'");
	if (err) {
		rt_text_str(&t, ": ");
		rt_text_str(&t, rt_strerror(err, ebuf, sizeof(ebuf)));
	}
	rt_text_str(&t, "; ");
	rt_text_str(&t, then ? then : "the program runs on without it");
	rt_text_str(&t, "\n");
	stderr_write(line, t.len);
}

/* A bad setting is a problem of its own: it has its own line, and does
 * not silence the warning about the file. */
void RT rt_warn_setting(const char *name, const char *value)
{
	static int warned;
	char line[512];
	struct rt_text t;
	size_t vlen = strlen(value);

	if (__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		return;
	rt_text_init(&t, line, sizeof(line));
	rt_text_str(&t, "vigil: ");
	rt_text_str(&t, name);
	rt_text_str(&t, "='");
	rt_text_strn(&t, value, vlen > 200 ? 200 : vlen);
	rt_text_str(&t, vlen > 200 ? "...' is not valid; ignoring it\n"
				   : "' is not valid; ignoring it\n");
	stderr_write(line, t.len);
}

/* A line of its own ("vigil: " LINE), once per *flag. */
void RT rt_say_once(int *flag, const char *line)
{
	char buf[512];
	struct rt_text t;

	if (__atomic_exchange_n(flag, 1, __ATOMIC_RELAXED))
		return;
	rt_text_init(&t, buf, sizeof(buf));
	rt_text_str(&t, "vigil: ");
	rt_text_str(&t, line);
	rt_text_str(&t, "\n");
	stderr_write(buf, t.len);
}
