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
 * A file is created under a temporary name, initialised, locked and then
 * renamed into place, so a reader never sees a half-made header and an
 * older profile of the same name is replaced, never truncated.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crc32.h"
#include "pattern.h"
#include "rt.h"

#define RT __attribute__((no_instrument_function))

#define RESERVE (1ull << 28)        /* 8M edge records; address space only */
#define RESERVE_MIN (1ull << 20)    /* under a tight RLIMIT_AS, down to this */
#define OVERFLOW_RESERVE (1ull << 26)
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
	m->pid = (uint64_t)getpid();
	m->ppid = (uint64_t)getppid();
	m->start_ns = rt->start_ns;
	m->state = VGL_STATE_RUNNING;

	a->used = sizeof(*a);
	rt->meta = m;
	rt->arena_off = l->arena;
	rt->arena.base = (char *)a;
}

/*
 * Is rt->fd still our file?  A program may close descriptors it did not
 * open (daemons close them all) and reuse the number: the runtime must
 * then never grow, write or close what is now the program's file.
 */
static int RT fd_names(int fd, uint64_t dev, uint64_t ino)
{
	struct stat st;

	return fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_dev == dev &&
	       (uint64_t)st.st_ino == ino;
}

static int RT fd_is_ours(struct rt *rt)
{
	return fd_names(rt->fd, rt->fd_dev, rt->fd_ino);
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
	int err;

	if (need <= size)
		return 0;
	step = size < GROW_MAX ? size : GROW_MAX;
	if (step < GROW_MIN)
		step = GROW_MIN;
	size = (need + step - 1) / step * step;
	/* Before the first mapping, the most it can be. */
	if (size > (rt->reserve ? rt->reserve : RESERVE))
		size = rt->reserve ? rt->reserve : RESERVE;
	if (need > size)
		return -EFBIG;
	if (!fd_is_ours(rt))
		return -EBADF;
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		if (need > rl.rlim_cur)
			return -EFBIG;
		if (size > rl.rlim_cur)
			size = rl.rlim_cur;
	}
	err = posix_fallocate(rt->fd, 0, (off_t)size);
	if (err == EOPNOTSUPP || err == EINVAL)
		err = write_zeros(rt->fd, rt->file_size, size);
	if (err)
		return -err;
	rt->file_size = size;
	return 0;
}

static int RT lock_file(int fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = 0, .l_len = 1 };

	return fcntl(fd, F_SETLK, &fl) < 0 ? -errno : 0;
}

/* The pid recorded in an existing profile, or 0 if it is not one. */
static uint64_t RT file_pid(int fd)
{
	struct {
		struct vgl_header h;
		struct vgl_section s[8];
	} buf;
	struct vgl_meta m;
	ssize_t n = pread(fd, &buf, sizeof(buf), 0);
	uint32_t i;

	if (n < (ssize_t)sizeof(buf.h) ||
	    memcmp(buf.h.magic, VGL_MAGIC, VGL_MAGIC_LEN))
		return 0;
	for (i = 0; i < buf.h.nsections && i < 8; i++) {
		if ((size_t)n < sizeof(buf.h) + (i + 1) * sizeof(buf.s[0]))
			break;
		if (buf.s[i].kind == VGL_SEC_META &&
		    pread(fd, &m, sizeof(m), (off_t)buf.s[i].offset) ==
			    (ssize_t)sizeof(m))
			return m.pid;
	}
	return 0;
}

/* Is the profile at path being written by a live process, or was it
 * written by this very pid (an image that has since called exec)? */
static int RT name_taken(const char *path)
{
	struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET,
			    .l_start = 0, .l_len = 1 };
	int fd = open(path, O_RDONLY | O_CLOEXEC), taken = 0;

	if (fd < 0)
		return 0;
	if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK)
		taken = 1;
	else if (file_pid(fd) == (uint64_t)getpid())
		taken = 1;
	close(fd);
	return taken;
}

/*
 * Expands the pattern for this process and picks a name no live writer
 * uses: NAME.vgl, else NAME.1.vgl, NAME.2.vgl, ...
 */
static int RT choose_path(struct rt *rt, const char *pattern, char *out)
{
	const char *slash = strrchr(rt->exe, '/');
	struct vgl_pattern_vars v = {
		.pid = (uint64_t)getpid(),
		.host = rt->host,
		.exe = slash ? slash + 1 : rt->exe,
		.start_s = rt->start_ns / 1000000000ull,
	};
	char want[RT_PATH_MAX];
	size_t len, stem;
	int ret, i;

	ret = vgl_expand_pattern(pattern, &v, want, sizeof(want));
	if (ret < 0)
		return ret;
	len = strlen(want);
	stem = len > 4 && !strcmp(want + len - 4, ".vgl") ? len - 4 : len;
	for (i = 0; i < 1000; i++) {
		if (!i)
			memcpy(out, want, len + 1);
		else if (snprintf(out, RT_PATH_MAX, "%.*s.%d%s", (int)stem,
				  want, i, want + stem) >= RT_PATH_MAX)
			return -ENAMETOOLONG;
		if (!name_taken(out))
			return 0;
	}
	return -EEXIST;
}

/*
 * Creates path's temporary sibling, locks it and gives it `size` bytes.
 * Returns the descriptor, or a negative errno (nothing is left behind).
 */
static int RT create_tmp(struct rt *rt, const char *path, char *tmp,
			 uint64_t size)
{
	struct stat st = { 0 };
	int fd, ret;

	int i;

	/* O_EXCL: never truncate a file another writer has mapped (the same
	 * pid in another pid namespace, sharing the directory). */
	for (i = 0;; i++) {
		if (snprintf(tmp, RT_PATH_MAX, "%s.%d.%d.tmp", path,
			     (int)getpid(), i) >= RT_PATH_MAX)
			return -ENAMETOOLONG;
		fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0)
			break;
		if (errno != EEXIST || i == 99)
			return -errno;
	}
	rt->fd = fd;
	rt->file_size = 0;
	ret = fstat(fd, &st) < 0 ? -errno : lock_file(fd);
	rt->fd_dev = (uint64_t)st.st_dev;
	rt->fd_ino = (uint64_t)st.st_ino;
	if (!ret)
		ret = file_grow(rt, size);
	if (ret < 0) {
		close(fd);
		unlink(tmp);
		rt->fd = -1;
		return ret;
	}
	return fd;
}

/*
 * Reserves the range the file is mapped at: RESERVE bytes, or under a
 * tight RLIMIT_AS as much as can be had.  fd -1: anonymous memory.
 */
static int RT map_reserve(struct rt *rt, int fd)
{
	int flags = (fd < 0 ? MAP_PRIVATE | MAP_ANONYMOUS : MAP_SHARED) |
		    MAP_NORESERVE;
	uint64_t len;

	for (len = RESERVE; len >= RESERVE_MIN; len /= 4) {
		void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, 0);

		if (p != MAP_FAILED) {
			rt->map = p;
			rt->reserve = len;
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

	layout_of(rt, &l);
	if (map_reserve(rt, -1) < 0 || rt->reserve < l.arena + 4096) {
		rt->state = RT_OFF;
		return;
	}
	rt->fd = -1;
	rt->no_file = 1;
	format_new(rt, &l, rt->reserve - l.arena);
	set_limits(rt);
}

int RT store_open(struct rt *rt, const char *pattern)
{
	char tmp[RT_PATH_MAX];
	struct layout l;
	int ret;

	read_cmdline();
	layout_of(rt, &l);
	ret = choose_path(rt, pattern, rt->path);
	if (ret < 0)
		goto fail;
	ret = create_tmp(rt, rt->path, tmp, l.arena + sizeof(struct vgl_arena));
	if (ret < 0)
		goto fail;
	ret = map_reserve(rt, rt->fd);
	if (ret < 0) {
		close(rt->fd);
		unlink(tmp);
		rt->fd = -1;
		goto fail;
	}
	format_new(rt, &l, rt->reserve - l.arena);
	set_limits(rt);
	if (rename(tmp, rt->path) < 0) {
		ret = -errno;
		unlink(tmp);
		munmap(rt->map, rt->reserve);
		close(rt->fd);
		rt->fd = -1;
		goto fail;
	}
	return 0;
fail:
	if (ret == -EINVAL)
		rt_warn("VIGIL_FILE has an empty pattern or an unknown %-escape:",
			pattern, -ret, NULL);
	else
		rt_warn("cannot write profile", rt->path[0] ? rt->path : pattern,
			-ret, NULL);
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
			void *p = mmap(NULL, OVERFLOW_RESERVE,
				       PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS |
					       MAP_NORESERVE, -1, 0);
			if (p == MAP_FAILED)
				return NULL;
			arena_init(a, p, OVERFLOW_RESERVE);
		}
		__atomic_fetch_or(&rt->meta->flags, VGL_META_INCOMPLETE,
				  __ATOMIC_RELAXED);
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
 * address, for a process that cannot have a file of its own: a
 * copy-on-write view of the file it has now (no second reservation), with
 * anonymous memory past the file's end; or, when that descriptor is gone,
 * a copy made through a second reservation.
 */
static int RT make_private(struct rt *rt)
{
	char *end = rt->map + rt->file_size;
	void *p;

	if (fd_is_ours(rt) &&
	    mmap(rt->map, rt->file_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_FIXED, rt->fd, 0) != MAP_FAILED &&
	    mmap(end, rt->reserve - rt->file_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
		 0) != MAP_FAILED)
		return 0;
	p = mmap(NULL, rt->reserve, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	memcpy(p, rt->map, rt->file_size);
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
	m->pid = (uint64_t)getpid();
	m->ppid = (uint64_t)getppid();
	m->start_ns = rt_now_ns();
	m->end_ns = 0;
	m->exit_status = 0;
	m->flags = rt->no_file ? VGL_META_INCOMPLETE : 0;
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
	char tmp[RT_PATH_MAX], path[RT_PATH_MAX] = "";
	uint64_t size = rt->file_size;
	int old_fd = rt->fd, ret;
	uint64_t old_dev = rt->fd_dev, old_ino = rt->fd_ino;

	if (finish_old) {
		rt->meta->flags |= VGL_META_SWITCHED;
		store_finish(rt, 0);
	}
	if (rt->no_file) {
		/* Anonymous memory is private to each process already. */
		restart(rt, used);
		return 0;
	}
	ret = choose_path(rt, pattern, path);
	if (ret < 0)
		goto fail;
	ret = create_tmp(rt, path, tmp, size);
	if (ret < 0)
		goto fail;
	ret = copy_out(rt, rt->fd, size);
	if (!ret)
		ret = map_file_over(rt);
	if (ret < 0) {
		close(rt->fd);
		unlink(tmp);
		goto fail;
	}
	restart(rt, used);
	if (rename(tmp, path) < 0) {
		/* Counting goes on in the mapped file; only its name is
		 * missing, which the warning gives. */
		rt_warn("cannot name profile", path, errno,
			"it is counted into under a temporary name");
		unlink(tmp);
	}
	memcpy(rt->path, path, sizeof(path));
	if (fd_names(old_fd, old_dev, old_ino))
		close(old_fd);
	return 0;
fail:
	rt->fd = old_fd;
	rt->fd_dev = old_dev;
	rt->fd_ino = old_ino;
	rt->file_size = size;
	rt_warn("cannot write profile", path[0] ? path : pattern, -ret, NULL);
	if (make_private(rt) < 0) {
		/* The range still maps the old file: nothing may count now. */
		rt->state = RT_OFF;
		return ret;
	}
	if (fd_is_ours(rt))
		close(rt->fd);
	rt->fd = -1;
	rt->no_file = 1;
	restart(rt, used);
	return ret;
}
