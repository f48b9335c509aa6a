/*
 * store.c - the live profile file: create it, map it, grow it, hand out
 * blocks, replace it after fork or vigil_set_file, and mark it finished.
 *
 * The file is mapped MAP_SHARED at the start of a large reserved address
 * range (RESERVE bytes, MAP_NORESERVE), so the kernel's page cache holds
 * the counts from the first call on: whatever way the process ends, what
 * it counted is in the file.  The file grows underneath the fixed mapping
 * with fallocate, so pointers into it never move; only bytes inside the
 * file are ever touched, so growth failure (disk full, RLIMIT_FSIZE) is an
 * error code, never SIGBUS or SIGXFSZ.
 *
 * A file is created exclusively (never through a link) under a temporary
 * name, initialised and then renamed into place, so a reader never sees a
 * half-made header and an older profile of the same name is replaced,
 * never truncated.  The name is claimed under a lock on its directory, so
 * two runs never take the same one.  Only regular files that vigil itself
 * created are ever written or renamed over.
 *
 * Under a finite RLIMIT_AS every byte of address space counts, reserved or
 * not: a 256 MiB reservation left a program limited to 293 MiB with 40 MiB
 * to allocate.  There the range is only as long as the file and grows in
 * place with it (mremap without moving), from an address far from where
 * the kernel puts other mappings, so that the addresses above it stay
 * free.  The limit is read at the start and whenever the file grows: a
 * limit set later trims the reservation then.
 *
 * Once the file is mapped the runtime closes its descriptor: the program's
 * own descriptors are numbered as without vigil, and a program that closes
 * every descriptor closes nothing of ours.  Growing the file opens it again
 * by its absolute path for a moment, and checks that the name still leads
 * to the same file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>       /* rename */
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "crc32.h"
#include "pattern.h"
#include "procid.h"
#include "state.h"
#include "store.h"
#include "text.h"
#include "thread.h"

#define RESERVE (1ull << 28)        /* 8M edge records; address space only */
#define RESERVE_MIN (1ull << 20)    /* under a tight RLIMIT_AS, down to this */
#define OVERFLOW_RESERVE (1ull << 26)
#define OVERFLOW_MIN (1ull << 20)   /* under a finite RLIMIT_AS, grown */
#define GROW_MIN (64u << 10)
#define GROW_MAX (16u << 20)
#define NSECTIONS 3

static char cmdline[65536];
static size_t cmdline_len;

static uint64_t RT align64(uint64_t x)
{
	return (x + 63) & ~(uint64_t)63;
}

/* Layout of the fixed part, which depends only on the strings' size. */
struct layout {
	uint64_t meta, strings, strings_len, arena;
};

static void RT layout_of(struct rt *rt, struct layout *l)
{
	uint64_t hs = sizeof(struct vgl_header) +
		      NSECTIONS * sizeof(struct vgl_section);

	l->meta = VGL_ALIGN(hs);
	l->strings = VGL_ALIGN(l->meta + sizeof(struct vgl_meta));
	l->strings_len = strlen(rt->exe) + 1 + strlen(rt->host) + 1 +
			 cmdline_len;
	l->arena = align64(l->strings + l->strings_len);
}

/* Reads the command line once; the fork child and set_file reuse it. */
static void RT read_cmdline(void)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	cmdline_len = 0;
	if (fd < 0)
		return;
	while (cmdline_len < sizeof(cmdline) - 1 &&
	       (n = read(fd, cmdline + cmdline_len,
			 sizeof(cmdline) - 1 - cmdline_len)) > 0)
		cmdline_len += (size_t)n;
	close(fd);
	/* A command line cut at the buffer's end still ends with a NUL. */
	if (cmdline_len && cmdline[cmdline_len - 1])
		cmdline[cmdline_len++] = 0;
}

/* Who this process is, for readers to tell it from a later one with the
 * same pid: start time and boot. */
static void RT set_identity(struct vgl_meta *m)
{
	uint64_t start = 0;
	char state;

	m->pid = (uint64_t)getpid();
	m->ppid = (uint64_t)getppid();
	m->proc_start = vgl_proc_stat(0, &start, &state) == 0 ? start : 0;
	if (vgl_boot_id(m->boot_id) < 0)
		memset(m->boot_id, 0, sizeof(m->boot_id));
}

/* Writes header, section table, META, STRINGS and the empty arena. */
static void RT format_new(struct rt *rt, const struct layout *l,
			  uint64_t arena_size)
{
	struct vgl_header *h = (struct vgl_header *)rt->map;
	struct vgl_section *s = (struct vgl_section *)(h + 1);
	struct vgl_meta *m = (struct vgl_meta *)(rt->map + l->meta);
	char *str = rt->map + l->strings;
	size_t exe_len = strlen(rt->exe) + 1, host_len = strlen(rt->host) + 1;
	struct vgl_arena *a = (struct vgl_arena *)(rt->map + l->arena);

	memcpy(h->magic, VGL_MAGIC, VGL_MAGIC_LEN);
	h->version = VGL_VERSION;
	h->byte_order = VGL_BYTE_ORDER;
	h->nsections = NSECTIONS;
	h->header_size = sizeof(*h) + NSECTIONS * sizeof(*s);
	s[0] = (struct vgl_section){ VGL_SEC_META, 0, l->meta, sizeof(*m) };
	s[1] = (struct vgl_section){ VGL_SEC_STRINGS, 0, l->strings,
				     l->strings_len };
	s[2] = (struct vgl_section){ VGL_SEC_ARENA, 0, l->arena, arena_size };
	h->checksum = 0;
	h->checksum = vgl_crc32(0, h, h->header_size);

	memcpy(str, rt->exe, exe_len);
	memcpy(str + exe_len, rt->host, host_len);
	memcpy(str + exe_len + host_len, cmdline, cmdline_len);

	memset(m, 0, sizeof(*m));
	m->kind = VGL_KIND_LIVE;
	m->exe = 0;
	m->host = (uint32_t)exe_len;
	m->cmdline = cmdline_len ? (uint32_t)(exe_len + host_len)
				 : VGL_NO_STRING;
	m->cmdline_len = (uint32_t)cmdline_len;
	m->start_ns = rt->start_ns;
	set_identity(m);
	m->skipped_calls = thread_skipped_calls();
	m->state = VGL_STATE_RUNNING;

	a->used = sizeof(*a);
	rt->meta = m;
	rt->arena_off = l->arena;
	rt->arena.base = (char *)a;
}

/*
 * A descriptor of our file: the one being set up, or the file opened again
 * by its name, which must still lead to the same file (not a link planted
 * there, not a file that replaced it).  Returns the descriptor or -errno;
 * *opened says whether the caller closes it.
 */
static int RT open_ours(struct rt *rt, int *opened)
{
	struct stat st;
	int fd;

	*opened = 0;
	if (rt->fd >= 0)
		return rt->fd;
	fd = open(rt->path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_dev != rt->fd_dev ||
	    (uint64_t)st.st_ino != rt->fd_ino) {
		close(fd);
		return -ESTALE;
	}
	*opened = 1;
	return fd;
}

static uint64_t RT page_up(uint64_t x)
{
	return (x + 4095) & ~(uint64_t)4095;
}

/* Is address space limited (RLIMIT_AS)?  Then reserving costs the program
 * memory it could have had. */
static int RT as_limited(void)
{
	struct rlimit rl;

	return getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY;
}

/*
 * Grows the mapping at base from *len to at least need bytes (at most
 * max), in place: pointers into it must stay valid.  Returns 0 or -errno
 * (the mapping as it was).
 */
static int RT grow_in_place(char *base, uint64_t *len, uint64_t need,
			    uint64_t max)
{
	void *p;

	need = page_up(need);
	if (need <= *len)
		return 0;
	if (need > max)
		return -EFBIG;
	p = mremap(base, *len, need, 0);
	if (p == MAP_FAILED)
		return -errno;
	*len = need;
	return 0;
}

static void RT set_limits(struct rt *rt);

/*
 * Makes the range at least `need` bytes long (the file's new size).  Under
 * a finite RLIMIT_AS the range is only as long as the file, and one
 * reserved before the limit was set is cut to it: the program gets that
 * address space back.
 */
static int RT range_fit(struct rt *rt, uint64_t need)
{
	int ret;

	if (!rt->map)
		return 0;
	if (rt->reserve > page_up(need) && as_limited() && rt->arena.limit) {
		uint64_t keep = page_up(need);

		if (munmap(rt->map + keep, rt->reserve - keep) == 0) {
			rt->reserve = keep;
			set_limits(rt);
		}
		return 0;
	}
	ret = grow_in_place(rt->map, &rt->reserve, need, rt->reserve_max);
	if (!ret)
		set_limits(rt);
	return ret;
}

/*
 * Where fallocate is not supported: write the zeros, so the blocks exist
 * before the mapping touches them (a sparse file would raise SIGBUS on a
 * full disk).  Returns 0 or an errno value.
 */
static int RT write_zeros(int fd, uint64_t from, uint64_t to)
{
	static const char zeros[4096];

	while (from < to) {
		size_t len = to - from < sizeof(zeros) ? (size_t)(to - from)
						       : sizeof(zeros);
		ssize_t n = pwrite(fd, zeros, len, (off_t)from);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : EIO;
		from += (uint64_t)n;
	}
	return 0;
}

/*
 * Makes the file at least `need` bytes long.  Checks RLIMIT_FSIZE first:
 * growing past it would raise SIGXFSZ, which kills the program.
 */
static int RT file_grow(struct rt *rt, uint64_t need)
{
	uint64_t size = rt->file_size, step;
	struct rlimit rl;
	int err, fd, opened;

	if (need <= size)
		return 0;
	step = size < GROW_MAX ? size : GROW_MAX;
	if (step < GROW_MIN)
		step = GROW_MIN;
	size = (need + step - 1) / step * step;
	/* The most the range can be (before the first mapping, RESERVE). */
	if (size > (rt->reserve_max ? rt->reserve_max : RESERVE))
		size = rt->reserve_max ? rt->reserve_max : RESERVE;
	if (need > size)
		return -EFBIG;
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		if (need > rl.rlim_cur)
			return -EFBIG;
		if (size > rl.rlim_cur)
			size = rl.rlim_cur;
	}
	fd = open_ours(rt, &opened);
	if (fd < 0)
		return fd;
	err = posix_fallocate(fd, 0, (off_t)size);
	if (err == EOPNOTSUPP || err == EINVAL)
		err = write_zeros(fd, rt->file_size, size);
	if (opened)
		close(fd);
	if (err)
		return -err;
	rt->file_size = size;
	return range_fit(rt, size);
}

/*
 * Is the profile at path still wanted by its writer: one that holds its
 * lock (procid.h), or a process that is
 * alive (not a zombie) with the pid, start time and boot it recorded, or
 * this very process (an image that has since called exec)?  A file that
 * cannot be read for that counts as taken: better a new name than a lost
 * profile.
 */
static int RT name_taken(const char *path)
{
	struct {
		struct vgl_header h;
		struct vgl_section s[8];
	} buf;
	struct vgl_meta m;
	uint8_t boot[VGL_BOOT_ID_LEN];
	uint64_t start;
	uint32_t i;
	ssize_t n;
	char state;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return errno != ENOENT;
	/* Its writer's lock says it runs, whatever its pid (another pid
	 * namespace's, another host's). */
	if (vgl_live_locked(fd) == 1) {
		close(fd);
		return 1;
	}
	n = pread(fd, &buf, sizeof(buf), 0);
	if (n < (ssize_t)sizeof(buf.h) ||
	    memcmp(buf.h.magic, VGL_MAGIC, VGL_MAGIC_LEN)) {
		close(fd);
		return 0; /* not a profile: replaced, as before */
	}
	/* Only entries read whole: a file cut inside its table has none
	 * past the cut (their bytes are whatever the stack held). */
	for (i = 0; i < buf.h.nsections && i < 8 &&
		    (size_t)n >= sizeof(buf.h) + (i + 1) * sizeof(buf.s[0]);
	     i++)
		if (buf.s[i].kind == VGL_SEC_META)
			break;
	if (i == buf.h.nsections || i == 8 ||
	    (size_t)n < sizeof(buf.h) + (i + 1) * sizeof(buf.s[0]) ||
	    pread(fd, &m, sizeof(m), (off_t)buf.s[i].offset) !=
		    (ssize_t)sizeof(m)) {
		close(fd);
		return 0;
	}
	close(fd);
	if (m.kind != VGL_KIND_LIVE || !m.pid)
		return 0;
	if (m.pid == (uint64_t)getpid())
		return 1;
	if (vgl_boot_id(boot) == 0 && memcmp(boot, m.boot_id, sizeof(boot)) &&
	    memcmp(m.boot_id, (uint8_t[VGL_BOOT_ID_LEN]){ 0 }, sizeof(boot)))
		return 0; /* written before a reboot */
	if (vgl_proc_stat(m.pid, &start, &state) < 0)
		return 0; /* no such process */
	return state != 'Z' && (!m.proc_start || start == m.proc_start);
}

/* renameat2(RENAME_NOREPLACE): claims a free name atomically. */
static int RT rename_noreplace(const char *from, const char *to)
{
	long r = syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 1u);

	return r < 0 ? -errno : 0;
}

/*
 * Locks the directory of path against other runs claiming a name there
 * (flock on the directory itself; released when closed, or when the
 * process dies).  Waits at most about 2 s for another claimant; returns
 * the descriptor, or -1 to go on without the lock (then only free names
 * are taken atomically).
 */
static int RT lock_dir(const char *path)
{
	char dir[RT_PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash - path) : 0;
	struct timespec ms = { 0, 1000000 };
	int fd, i;

	if (!len)
		len = 1; /* "/name" */
	memcpy(dir, path, len);
	dir[len] = 0;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (i = 0; i < 2000; i++) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		if (errno != EWOULDBLOCK && errno != EINTR)
			break;
		nanosleep(&ms, NULL);
	}
	close(fd);
	return -1;
}

/* want with ".N" before its ".vgl" (or at its end): NAME.1.vgl, ... */
static int RT numbered(const char *want, int i, char *out)
{
	size_t len = strlen(want), stem;
	struct rt_text t;

	stem = len > 4 && !strcmp(want + len - 4, ".vgl") ? len - 4 : len;
	rt_text_init(&t, out, RT_PATH_MAX);
	rt_text_strn(&t, want, stem);
	if (i) {
		rt_text_str(&t, ".");
		rt_text_u64(&t, (uint64_t)i, 1);
	}
	rt_text_str(&t, want + stem);
	return t.overflow ? -ENAMETOOLONG : 0;
}

/*
 * Is the thing at a name asked for (lstat's st) someone else's, so that
 * the profile takes the next name: a symbolic link (never followed nor
 * replaced), or a FIFO, socket or directory of another user.  Anyone may
 * plant those in a shared directory such as /tmp, at a name made of a pid
 * (the default), to switch another user's profile off.  A device node (only
 * root makes them) or a FIFO of this user was named on purpose
 * (VIGIL_FILE=/dev/null): no profile, and never a file beside it.
 */
static int RT planted(const struct stat *st)
{
	if (S_ISLNK(st->st_mode))
		return 1;
	return !S_ISCHR(st->st_mode) && !S_ISBLK(st->st_mode) &&
	       st->st_uid != geteuid();
}

/*
 * Gives the file at tmp its name: want, else the first of NAME.1.vgl,
 * NAME.2.vgl, ... that is free or holds a profile nobody writes any more.
 * The name asked for must be a regular file or nothing: vigil never
 * replaces a FIFO, a device or a directory (VIGIL_FILE=/dev/null as root
 * would otherwise replace the device node).  A name held by something
 * planted there (above), or by a file this user may not replace (another
 * user's, in a sticky directory), costs the name only: the next is taken,
 * and one line says so.  rename never follows a link at its target: it
 * replaces the link.  Writes the name into out.
 */
static int RT claim(const char *tmp, const char *want, char *out)
{
	int dfd = lock_dir(want), i, ret = -EEXIST, tries = 0, lost = 0;
	struct stat st;

	for (i = 0; i < 1000; i++) {
		ret = numbered(want, i, out);
		if (ret < 0)
			break;
		if (lstat(out, &st) < 0) {
			if (errno != ENOENT) {
				ret = -errno;
				break;
			}
			ret = rename_noreplace(tmp, out);
			if (ret == -EINVAL || ret == -ENOSYS)
				ret = rename(tmp, out) < 0 ? -errno : 0;
			if (ret == -EEXIST && tries++ < 10) {
				i--; /* created meanwhile: look again */
				continue;
			}
			if (ret != -EEXIST)
				break;
			continue;
		}
		if (!S_ISREG(st.st_mode)) {
			if (!i && !planted(&st)) {
				ret = -RT_ENOTREG;
				break;
			}
			if (!i)
				lost = RT_ENOTREG;
			continue;
		}
		if (name_taken(out))
			continue;
		ret = rename(tmp, out) < 0 ? -errno : 0;
		if (ret == -EPERM) {
			if (!i)
				lost = EPERM;
			continue;
		}
		break;
	}
	if (dfd >= 0)
		close(dfd);
	if (!ret && lost) {
		char then[RT_PATH_MAX + 64];
		struct rt_text t;

		rt_text_init(&t, then, sizeof(then));
		rt_text_str(&t, "the profile is '");
		rt_text_str(&t, out);
		rt_text_str(&t, "' instead");
		rt_warn("cannot take the name", want, lost, then);
	}
	return ret;
}

/*
 * The writer's lock (procid.h) on a file just created, before anything is
 * written to it: a file in progress is locked for as long as it is, so
 * that no start-up cleanup, in whatever pid namespace or on whatever
 * host, takes it for a killed writer's leftover.  A cleaner that came
 * between the create and the lock holds the file to remove it: then
 * returns -EEXIST, for the caller to make the next name.  Where the file
 * system has no such locks, the file goes without (readers go by the
 * pid).  Returns fd or -EEXIST.
 */
static int RT lock_tmp(int fd)
{
	if (vgl_live_lock(fd) != -EAGAIN)
		return fd;
	close(fd);
	return -EEXIST;
}

/*
 * Creates path's temporary sibling PATH.PID.N.tmp (the first N free) into
 * tmp (RT_PATH_MAX bytes), exclusively and never through a link: a link
 * planted at the name (in a shared directory such as /tmp) is skipped,
 * never followed.  Returns the descriptor or a negative errno.
 *
 * Mode 0600 whatever the umask, as perf.data: a profile holds the command
 * line, the modules' paths and their load addresses, which the kernel
 * shows (/proc/PID/maps) only to who may trace the process.  Its owner
 * may share it with chmod.
 */
int RT store_create_tmp(const char *path, char *tmp)
{
	struct rt_text t;
	int fd = -EEXIST, i;

	for (i = 0; i < 100 && fd == -EEXIST; i++) {
		rt_text_init(&t, tmp, RT_PATH_MAX);
		rt_text_str(&t, path);
		rt_text_str(&t, ".");
		rt_text_u64(&t, (uint64_t)getpid(), 1);
		rt_text_str(&t, ".");
		rt_text_u64(&t, (uint64_t)i, 1);
		rt_text_str(&t, ".tmp");
		if (t.overflow)
			return -ENAMETOOLONG;
		fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
				       O_CLOEXEC, 0600);
		if (fd < 0)
			fd = -errno;
		else
			fd = lock_tmp(fd);
	}
	return fd;
}

/*
 * Expands the pattern for this process into an absolute path: a relative
 * VIGIL_FILE means the directory the program started in, whatever
 * directory it moves to later (windows, NAME.N.vgl, growth).
 */
static int RT expand(struct rt *rt, const char *pattern, char *out)
{
	const char *slash = strrchr(rt->exe, '/');
	struct vgl_pattern_vars v = {
		.pid = (uint64_t)getpid(),
		.host = rt->host,
		.exe = slash ? slash + 1 : rt->exe,
		.start_s = rt->start_ns / 1000000000ull,
	};
	char rel[RT_PATH_MAX], rel_cwd[RT_PATH_MAX];
	struct rt_text t;
	int ret;

	ret = vgl_expand_pattern(pattern, &v, rel, sizeof(rel));
	if (ret < 0)
		return ret;
	if (rel[0] == '/') {
		memcpy(out, rel, strlen(rel) + 1);
		return 0;
	}
	if (!getcwd(rel_cwd, sizeof(rel_cwd)))
		return -errno;
	rt_text_init(&t, out, RT_PATH_MAX);
	rt_text_str(&t, rel_cwd);
	if (t.len > 1)
		rt_text_str(&t, "/");
	rt_text_str(&t, rel[0] == '.' && rel[1] == '/' ? rel + 2 : rel);
	return t.overflow ? -ENAMETOOLONG : 0;
}

/*
 * The anchor: what keeps the writer's lock for the life of the process
 * and no longer.  The lock belongs to the open file it was taken on and
 * goes when the last reference to that open file does; a descriptor
 * would be one, but the program may close it (a daemon closes every
 * descriptor) and its numbers must be what they are without vigil.  So
 * the reference is one page of the file mapped from the locked open
 * file, PROT_NONE, which nothing can close: it goes at exit, however the
 * process ends (also SIGKILL), and at exec.  It is MADV_DONTFORK, so a
 * fork child (made by fork, _Fork or clone) does not keep it, and its
 * parent's file does not look written while the child lives; for the
 * same reason the counters are mapped from a second open file of the
 * same file, unlocked, which a child does inherit.
 */
static void *anchor;
static pid_t anchor_pid;

/* Lets go of the anchor: the file is no longer this process's (switched
 * by vigil_set_file, or never named).  In a fork child the anchor was not
 * inherited (MADV_DONTFORK): it is forgotten, not unmapped. */
static void RT anchor_drop(void)
{
	if (anchor && anchor_pid == (pid_t)syscall(SYS_getpid))
		munmap(anchor, 4096);
	anchor = NULL;
}

/*
 * Anchors the lock on fd (the file just made at tmp, locked by
 * store_create_tmp) and returns a second descriptor of the same file,
 * unlocked, for everything else (fd is closed); or returns fd when the
 * file has no lock, or the anchor cannot be made (then the lock is let
 * go: readers go by the pid).
 */
static int RT anchor_take(const char *tmp, int fd)
{
	struct stat a, b;
	void *p;
	int fd2;

	if (vgl_live_lock(fd) < 0)
		return fd;   /* no locks on this file system */
	p = mmap(NULL, 4096, PROT_NONE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		goto unlock;
	if (madvise(p, 4096, MADV_DONTFORK) < 0)
		goto unmap;
	fd2 = open(tmp, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd2 < 0)
		goto unmap;
	if (fstat(fd, &a) < 0 || fstat(fd2, &b) < 0 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino) {
		close(fd2);
		goto unmap;
	}
	anchor_drop();
	anchor = p;
	anchor_pid = (pid_t)syscall(SYS_getpid);
	close(fd);
	return fd2;
unmap:
	munmap(p, 4096);
unlock:
	vgl_live_unlock(fd);
	return fd;
}

/*
 * Creates path's temporary sibling PATH.PID.N.tmp and gives it `size`
 * bytes.  Returns the descriptor (also in rt->fd), or a negative errno
 * (nothing is left behind).
 */
static int RT create_tmp(struct rt *rt, const char *path, char *tmp,
			 uint64_t size)
{
	struct stat st = { 0 };
	int fd = store_create_tmp(path, tmp), ret;

	if (fd < 0)
		return fd;
	fd = anchor_take(tmp, fd);
	rt->fd = fd;
	rt->file_size = 0;
	ret = fstat(fd, &st) < 0 ? -errno : 0;
	rt->fd_dev = (uint64_t)st.st_dev;
	rt->fd_ino = (uint64_t)st.st_ino;
	if (!ret)
		ret = file_grow(rt, size);
	if (ret < 0) {
		close(fd);
		unlink(tmp);
		anchor_drop();
		rt->fd = -1;
		return ret;
	}
	return fd;
}

/*
 * Removes temporary files left in path's directory by processes that are
 * gone (killed while creating a profile or writing a window), never one
 * a writer of another pid namespace or host has in progress: the one
 * rule is vgl_leftover_remove()'s (the pid, and the writer's lock).  Reads the
 * directory with getdents64 into a buffer on the stack: no allocation.
 * Looks at the first LEFTOVER_SCAN entries only: every run does this, and
 * a directory that collects thousands of profiles (a whole build sent to
 * one place) must not make each start cost as much as the directory is
 * large.
 */
#define LEFTOVER_SCAN 2048
void RT store_clean_leftovers(const char *path)
{
	char dir[RT_PATH_MAX], buf[4096];
	const char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash - path) : 0;
	uint64_t self = (uint64_t)getpid();
	int fd, seen = 0;
	long n;

	if (!len)
		len = 1;
	memcpy(dir, path, len);
	dir[len] = 0;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	while (seen < LEFTOVER_SCAN &&
	       (n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		long off = 0;

		while (off < n) {
			struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *d = (void *)(buf + off);

			off += d->reclen;
			seen++;
			vgl_leftover_remove(fd, d->name, self);
		}
	}
	close(fd);
}

/*
 * Where a range that grows in place starts: far below where the kernel
 * puts mappings (top-down from below the stack) and far above the heap,
 * so that the addresses above it stay free.  Only a hint: elsewhere, the
 * range grows while it can.
 */
static void *RT growth_hint(int which)
{
#if UINTPTR_MAX > 0xffffffffu
	return (void *)(uintptr_t)(0x200000000000ull + (uint64_t)which *
							0x10000000000ull);
#else
	(void)which;
	return NULL;
#endif
}

/*
 * Reserves the range the file is mapped at: RESERVE bytes; under a finite
 * RLIMIT_AS only `len` (the file's size), grown in place with the file.
 * fd -1: anonymous memory.
 */
static int RT map_reserve(struct rt *rt, int fd, uint64_t len)
{
	int flags = (fd < 0 ? MAP_PRIVATE | MAP_ANONYMOUS : MAP_SHARED) |
		    MAP_NORESERVE;

	rt->reserve_max = RESERVE;
	if (as_limited()) {
		void *p;

		len = page_up(len);
		p = mmap(growth_hint(0), len, PROT_READ | PROT_WRITE, flags,
			 fd, 0);
		if (p == MAP_FAILED)
			return -errno;
		rt->map = p;
		rt->reserve = len;
		return 0;
	}
	for (len = RESERVE; len >= RESERVE_MIN; len /= 4) {
		void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, 0);

		if (p != MAP_FAILED) {
			rt->map = p;
			rt->reserve = len;
			rt->reserve_max = len;
			return 0;
		}
	}
	return -errno;
}

/* Maps the new file over the old one, at the same address and length. */
static int RT map_file_over(struct rt *rt)
{
	void *p = mmap(rt->map, rt->reserve, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_NORESERVE | MAP_FIXED, rt->fd, 0);

	return p == MAP_FAILED ? -errno : 0;
}

static void RT set_limits(struct rt *rt)
{
	rt->arena.limit = rt->reserve - rt->arena_off;
}

/*
 * Counts into anonymous memory with the file's layout, so that the hooks
 * work the same; used when no file can be written.
 */
void RT store_anonymous(struct rt *rt)
{
	struct layout l;

	/* An idle ondemand program's first store, at its first call after a
	 * live switch (store_memfd then takes it over): its profile names
	 * the command line too.  Read once. */
	if (!cmdline_len)
		read_cmdline();
	layout_of(rt, &l);
	if (map_reserve(rt, -1, l.arena + GROW_MIN) < 0 ||
	    rt->reserve < l.arena + 4096) {
		rt->state = RT_OFF;
		return;
	}
	rt->fd = -1;
	rt->no_file = 1;
	format_new(rt, &l, rt->reserve_max - l.arena);
	set_limits(rt);
}

/* Says why no file could be had, once; counting goes on in memory. */
static void RT warn_open(int ret, const char *pattern, const char *path)
{
	if (ret == -EINVAL)
		rt_warn("VIGIL_FILE has an empty pattern or an unknown %-escape:",
			pattern, -ret, NULL);
	else
		rt_warn("cannot write profile", path[0] ? path : pattern, -ret,
			NULL);
}

/*
 * Creates, maps and names the profile (see the top of this file).  On
 * failure says why once and counts into anonymous memory.
 */
int RT store_open(struct rt *rt, const char *pattern)
{
	char tmp[RT_PATH_MAX], want[RT_PATH_MAX] = "";
	struct layout l;
	int ret;

	read_cmdline();
	layout_of(rt, &l);
	ret = expand(rt, pattern, want);
	if (ret < 0)
		goto fail;
	store_clean_leftovers(want);
	ret = create_tmp(rt, want, tmp, l.arena + sizeof(struct vgl_arena));
	if (ret < 0)
		goto fail;
	ret = map_reserve(rt, rt->fd, rt->file_size);
	if (!ret) {
		format_new(rt, &l, rt->reserve_max - l.arena);
		set_limits(rt);
		ret = claim(tmp, want, rt->path);
		if (ret < 0)
			munmap(rt->map, rt->reserve);
	}
	close(rt->fd);
	rt->fd = -1;
	if (ret < 0) {
		unlink(tmp);
		anchor_drop();
		rt->path[0] = 0;
		goto fail;
	}
	return 0;
fail:
	warn_open(ret, pattern, want);
	store_anonymous(rt);
	return ret;
}

/* The bytes of arena a in use now; blocks below it are complete. */
uint64_t RT arena_used(struct rt_arena *a)
{
	if (!a->base)
		return 0;
	return __atomic_load_n(&((struct vgl_arena *)a->base)->used,
			       __ATOMIC_ACQUIRE);
}

/* The first block of a walk up to `used` (from arena_used), or NULL. */
struct vgl_block *RT arena_at(struct rt_arena *a, uint64_t used)
{
	if (used <= sizeof(struct vgl_arena))
		return NULL;
	return (struct vgl_block *)(a->base + sizeof(struct vgl_arena));
}

struct vgl_block *RT arena_next(struct rt_arena *a, struct vgl_block *b,
				uint64_t used)
{
	char *n = (char *)b + b->size;

	return n < a->base + used ? (struct vgl_block *)n : NULL;
}

static void RT arena_init(struct rt_arena *a, char *base, uint64_t limit)
{
	a->base = base;
	a->limit = limit;
	((struct vgl_arena *)base)->used = sizeof(struct vgl_arena);
}

static struct vgl_block *RT arena_bump(struct rt_arena *a, uint64_t size)
{
	uint64_t used = ((struct vgl_arena *)a->base)->used;

	if (used + size > a->limit)
		return NULL;
	return (struct vgl_block *)(a->base + used);
}

static void RT arena_publish(struct rt_arena *a, struct vgl_block *b)
{
	struct vgl_arena *h = (struct vgl_arena *)a->base;

	__atomic_store_n(&h->used, h->used + b->size, __ATOMIC_RELEASE);
}

/*
 * Allocates a block of `size` bytes (header included) and copies `payload`
 * after its header; only then does the arena's `used` cover it.  Falls back
 * to the overflow arena in anonymous memory when the file cannot grow; its
 * counts are reported as lost when the program ends.  Called with the
 * runtime's lock held.
 */
void *RT store_alloc_block(struct rt *rt, uint32_t kind, uint32_t owner,
			   uint64_t size, const void *payload, size_t len)
{
	struct rt_arena *a = &rt->arena;
	struct vgl_block *b;

	/* The arena and its header start on cache lines, and every block is
	 * a whole number of them: no two threads' counts share a line. */
	size = align64(size);
	/* A range as long as the file (finite RLIMIT_AS) grows with it; an
	 * anonymous one in steps of its size. */
	if (a->limit && arena_used(a) + size > a->limit &&
	    rt->reserve < rt->reserve_max) {
		uint64_t end = rt->arena_off + arena_used(a) + size;
		int ret;

		if (rt->no_file) {
			range_fit(rt, end > rt->reserve * 2 ? end
							    : rt->reserve * 2);
		} else if ((ret = file_grow(rt, end)) < 0) {
			rt_warn("cannot grow profile", rt->path, -ret,
				"calls of new call edges are counted in memory "
				"only, and the profile says how many");
		}
	}
	b = arena_bump(a, size);
	if (b && !rt->no_file) {
		int ret = file_grow(rt, rt->arena_off +
				       (uint64_t)((char *)b - a->base) + size);
		if (ret < 0) {
			rt_warn("cannot grow profile", rt->path, -ret,
				"calls of new call edges are counted in memory "
				"only, and the profile says how many");
			b = NULL;
		}
	}
	if (!b) {
		a = &rt->overflow;
		if (!a->base) {
			int limited = as_limited();
			uint64_t len = limited ? OVERFLOW_MIN : OVERFLOW_RESERVE;
			void *p = mmap(limited ? growth_hint(1) : NULL, len,
				       PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS |
					       MAP_NORESERVE, -1, 0);
			if (p == MAP_FAILED)
				return NULL;
			arena_init(a, p, len);
		}
		__atomic_fetch_or(&rt->meta->flags, VGL_META_INCOMPLETE,
				  __ATOMIC_RELAXED);
		if (arena_used(a) + size > a->limit)
			grow_in_place(a->base, &a->limit,
				      a->limit * 2 > arena_used(a) + size
					      ? a->limit * 2
					      : arena_used(a) + size,
				      OVERFLOW_RESERVE);
		b = arena_bump(a, size);
		if (!b)
			return NULL;
	}
	memset(b, 0, sizeof(*b));
	b->kind = kind;
	b->owner = owner;
	b->size = size;
	if (payload) {
		memcpy(b + 1, payload, len);
		b->count = 1;
	}
	arena_publish(a, b);
	return b;
}

static void RT arena_walk_edges(struct rt_arena *a, int zero, uint64_t *sum)
{
	uint64_t used = arena_used(a), i;
	struct vgl_block *b;

	for (b = arena_at(a, used); b; b = arena_next(a, b, used)) {
		struct vgl_edge *e = (struct vgl_edge *)(b + 1);

		if (b->kind != VGL_BLOCK_EDGES)
			continue;
		for (i = 0; i < b->count; i++) {
			if (zero)
				__atomic_store_n(&e[i].count, 0,
						 __ATOMIC_RELAXED);
			else
				*sum += __atomic_load_n(&e[i].count,
							__ATOMIC_RELAXED);
		}
	}
}

void RT store_zero_counts(struct rt_arena *a)
{
	arena_walk_edges(a, 1, NULL);
}

uint64_t RT store_sum_counts(struct rt_arena *a)
{
	uint64_t sum = 0;

	arena_walk_edges(a, 0, &sum);
	return sum;
}

/*
 * Stops the file from changing, for the last window to add up: the range
 * is mapped again privately (copy-on-write of the file as it is), so any
 * call still made (another thread runs until the process is gone) counts
 * in memory only, and the file is read and finished through a second,
 * shared view.  New edges are no longer counted.  Called at exit with the
 * runtime's lock held.  Returns 0, or -errno with the file left as it was.
 */
int RT store_freeze(struct rt *rt)
{
	char *view;
	int fd, opened, err = 0;
	uint64_t delta;

	if (rt->no_file || !rt->map)
		return -ENODEV;
	fd = open_ours(rt, &opened);
	if (fd < 0)
		return fd;
	view = mmap(NULL, rt->file_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, 0);
	if (view == MAP_FAILED) {
		err = -errno;
	} else if (mmap(rt->map, rt->file_size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
		err = -errno;
		munmap(view, rt->file_size);
	}
	if (opened)
		close(fd);
	if (err)
		return err;
	delta = (uint64_t)(view - rt->map);
	rt->meta = (struct vgl_meta *)((char *)rt->meta + delta);
	rt->arena.base += delta;
	rt->arena.limit = 0;    /* no block is added any more */
	rt->map = view;
	rt->reserve = rt->file_size;
	__atomic_store_n(&rt->state, RT_OFF, __ATOMIC_RELEASE);
	return 0;
}

/* Marks the file finished.  The counts stay mapped, so calls made after
 * this (later exit handlers, destructors) are still counted. */
void RT store_finish(struct rt *rt, int status)
{
	struct vgl_meta *m = rt->meta;

	if (!m)
		return;
	m->exit_status = status;
	m->end_ns = rt_now_ns();
	if (rt->overflow.base)
		__atomic_fetch_add(&m->lost_calls,
				   store_sum_counts(&rt->overflow),
				   __ATOMIC_RELAXED);
	__atomic_store_n(&m->state, VGL_STATE_FINISHED, __ATOMIC_RELEASE);
}

/*
 * Gives the reserved range a private copy of its contents, at the same
 * address, for a process that cannot have a file of its own: a copy made
 * in a second reservation and moved over the first.
 */
static int RT make_private(struct rt *rt, uint64_t len)
{
	void *p = mmap(NULL, rt->reserve, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	memcpy(p, rt->map, len);
	if (mremap(p, rt->reserve, rt->reserve, MREMAP_MAYMOVE | MREMAP_FIXED,
		   rt->map) == MAP_FAILED) {
		munmap(p, rt->reserve);
		return -errno;
	}
	return 0;
}

/* Copies the mapped bytes [0, size) into the new file behind fd. */
static int RT copy_out(struct rt *rt, int fd, uint64_t size)
{
	uint64_t off;

	for (off = 0; off < size;) {
		ssize_t n = pwrite(fd, rt->map + off, size - off, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += (uint64_t)n;
	}
	return 0;
}

/* A running file of this process, whose counts start from zero. */
static void RT restart(struct rt *rt, uint64_t used)
{
	struct vgl_meta *m = rt->meta;

	/* The arena as it was when the counts were handed over: blocks the
	 * parent added after fork are not the child's. */
	((struct vgl_arena *)rt->arena.base)->used = used;
	store_zero_counts(&rt->arena);
	store_zero_counts(&rt->overflow);
	set_identity(m);
	m->windows = 0;
	m->windowed_calls = 0;
	m->start_ns = rt_now_ns();
	m->end_ns = 0;
	m->exit_status = 0;
	m->flags = (rt->no_file ? VGL_META_INCOMPLETE : 0) | rt->modes;
	m->lost_calls = 0;
	__atomic_store_n(&m->state, VGL_STATE_RUNNING, __ATOMIC_RELEASE);
}

/*
 * Moves counting to a new file named by pattern, with the same structure
 * (modules, edge records, threads' blocks) and every count zero: in a fork
 * child, so that no count is in two files, and for vigil_set_file.  The new
 * file is mapped over the old one at the same address, so every pointer the
 * threads hold (their blocks, their index entries) stays valid, and it gets
 * its name only once it is this process's own, counts zeroed.  `used` is
 * the arena's size at the moment the counts change hands (in a fork child,
 * the parent's at fork).  Called with the runtime's lock held.
 */
int RT store_reopen(struct rt *rt, const char *pattern, int finish_old,
		    uint64_t used)
{
	char tmp[RT_PATH_MAX], want[RT_PATH_MAX] = "", path[RT_PATH_MAX];
	uint64_t size = rt->file_size;
	uint64_t old_dev = rt->fd_dev, old_ino = rt->fd_ino;
	int ret;

	if (finish_old) {
		rt->meta->flags |= VGL_META_SWITCHED;
		store_finish(rt, 0);
	}
	/* The old file is no longer this process's to hold (a fork child's
	 * was never: it is its parent's). */
	anchor_drop();
	if (rt->memfd && !finish_old) {
		/* A fork child of a process switched on live: the memfd is
		 * its parent's, and nobody asked the child to count. */
		if (make_private(rt, rt->arena_off + used) < 0) {
			rt->state = RT_OFF;
			return -ENOMEM;
		}
		rt->no_file = 1;
	}
	rt->memfd = 0;
	if (rt->no_file) {
		/* Anonymous memory is private to each process already. */
		restart(rt, used);
		return 0;
	}
	ret = expand(rt, pattern, want);
	if (ret < 0)
		goto fail;
	ret = create_tmp(rt, want, tmp, size);
	if (ret < 0)
		goto fail;
	ret = copy_out(rt, rt->fd, size);
	if (!ret)
		ret = map_file_over(rt);
	if (!ret) {
		restart(rt, used);
		ret = claim(tmp, want, path);
		if (ret < 0) {
			/* Counting goes on in the mapped file; only its name
			 * is missing, which the warning gives. */
			rt_warn("cannot name profile", tmp, -ret,
				"it is counted into under a temporary name");
			memcpy(path, tmp, sizeof(path));
			ret = 0;
		}
		memcpy(rt->path, path, sizeof(path));
	}
	close(rt->fd);
	rt->fd = -1;
	if (ret < 0) {
		unlink(tmp);
		anchor_drop();
		goto fail;
	}
	return 0;
fail:
	rt->fd_dev = old_dev;
	rt->fd_ino = old_ino;
	rt->file_size = size;
	warn_open(ret, pattern, want);
	if (make_private(rt, rt->file_size) < 0) {
		/* The range still maps the old file: nothing may count now. */
		rt->state = RT_OFF;
		return ret;
	}
	rt->no_file = 1;
	restart(rt, used);
	return ret;
}

/*
 * Moves counting from anonymous memory into a memfd, for an ondemand
 * program that `vigil attach` switched on live (ondemand.c): the outside
 * takes the descriptor (pidfd_getfd), reads the profile as the counts scan
 * reads any, and keeps it after the process has ended.  A memfd, not a
 * file: the process was asked for no file, and one in its directory would
 * be created with its rights where the attacher chose nothing.  Sized
 * once to the whole range (sparse: only the pages counted into are ever
 * memory), so it never grows, and mapped over the anonymous range at the
 * same address, as store_reopen does; the counts start from zero.  The
 * descriptor stays open, published, never used again by the runtime (a
 * program that closes it and reuses the number cannot make the runtime
 * write its file).  Returns it, or -errno with counting left in memory.
 * Called with the runtime's lock held.
 */
int RT store_memfd(struct rt *rt)
{
	uint64_t used = arena_used(&rt->arena), size = rt->reserve;
	struct rlimit rl;
	struct stat st;
	int fd, ret;

	if (!rt->no_file || !rt->map)
		return -EALREADY;
	/* Past RLIMIT_FSIZE ftruncate would raise SIGXFSZ. */
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < size)
		return -EFBIG;
	fd = (int)syscall(SYS_memfd_create, "vigil.vgl", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = ftruncate(fd, (off_t)size) < 0 || fstat(fd, &st) < 0 ? -errno : 0;
	if (!ret)
		ret = copy_out(rt, fd, rt->arena_off + used);
	if (!ret) {
		rt->fd = fd;
		ret = map_file_over(rt);
		rt->fd = -1;
	}
	if (ret < 0) {
		close(fd);
		return ret;
	}
	rt->no_file = 0;
	rt->memfd = 1;
	rt->file_size = size;
	rt->reserve_max = rt->reserve;
	rt->fd_dev = (uint64_t)st.st_dev;
	rt->fd_ino = (uint64_t)st.st_ino;
	rt->path[0] = 0;
	restart(rt, used);
	return fd;
}
