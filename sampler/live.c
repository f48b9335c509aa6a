/*
 * live.c - switching counting on and off from outside in a program built
 * with vigil-ondemand and started idle (docs/ondemand.md, "Switched on
 * live"), for the counts scan.
 *
 * The runtime publishes a control block (lib/ondemand_ctl.h) in a section
 * of its own; this file finds it from the executable's section headers and
 * the load bias, and then, with the process running all along (no ptrace
 * stop, no signal):
 *
 *   on:  writes `want` = 1, then every site's one changing byte from its
 *        idle value to its call's (through /proc/PID/mem, which writes
 *        into the process's private copy of the page); the runtime's
 *        first call since moves its counts into a memfd and publishes the
 *        descriptor, which is taken here (pidfd_getfd) and read as any
 *        profile, also after the process has ended;
 *   off: writes `want` = 0, then every site back to its idle value.
 *
 * Why one byte at a time is safe while other threads run the code is in
 * docs/ondemand.md.  Everything read from the target is checked: the
 * block's magic and size, each list's bounds, each site's bytes (only a
 * site in an executable mapping whose bytes are one of the two forms is
 * written), and the memfd's identity.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "clock.h"
#include "internal.h"
#include "maps.h"
#include "ondemand_ctl.h"
#include "symbolizer.h"

/* The most sites read from one process: far above any program (Lua has
 * 689, a 20,000-function test 20,000), bounding what a hostile block can
 * make vigil read. */
#define MAX_SITES (1u << 22)

/* The executable mappings, to check each site against. */
struct xranges {
	uint64_t (*r)[2];
	size_t n;
};

static int read_target(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };

	return syscall(SYS_process_vm_readv, pid, &l, 1, &r, 1, 0) ==
			       (ssize_t)len ? 0 : -EFAULT;
}

static int write_target(pid_t pid, uint64_t addr, const void *buf,
			size_t len)
{
	struct iovec l = { (void *)buf, len },
		     r = { (void *)(uintptr_t)addr, len };

	return syscall(SYS_process_vm_writev, pid, &l, 1, &r, 1, 0) ==
			       (ssize_t)len ? 0 : -errno;
}

/* The ELF address of the control section of the executable open at fd,
 * or 0. */
static uint64_t ctl_section(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstr;
	uint64_t addr = 0;

	if (!elf)
		return 0;
	if (elf_getshdrstrndx(elf, &shstr) == 0)
		while ((scn = elf_nextscn(elf, scn))) {
			const char *name;

			if (!gelf_getshdr(scn, &sh))
				break;
			name = elf_strptr(elf, shstr, sh.sh_name);
			if (name && !strcmp(name, VGL_OD_SECTION) &&
			    (sh.sh_flags & SHF_ALLOC) &&
			    sh.sh_size >= sizeof(struct vgl_od_ctl)) {
				addr = sh.sh_addr;
				break;
			}
		}
	elf_end(elf);
	return addr;
}

/* The executable's mapping at file offset 0 (its load address) and every
 * executable mapping, from one read of the maps.  The mapping is the one
 * with the file's device and inode, else (an overlay filesystem, whose
 * maps may show another device) the first with its inode: the control
 * block's magic, read next, tells a wrong guess. */
static int read_maps(struct live_state *l, uint64_t dev, uint64_t ino,
		     uint64_t *start, struct xranges *x)
{
	struct vgl_maps maps;
	struct vgl_map m;
	size_t cap = 0;
	uint64_t by_inode = 0;
	/* Opened anew: an open maps file stays with the address space it
	 * was opened on, which an exec replaces. */
	int fd = openat(l->procfd, "maps", O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = vgl_maps_read_fd(&maps, fd);
	close(fd);
	if (ret)
		return ret;
	*start = 0;
	x->n = 0;
	while (vgl_maps_next(&maps, &m)) {
		if (!*start && m.dev == dev && m.inode == ino && !m.offset)
			*start = m.lo;
		if (!by_inode && ino && m.inode == ino && !m.offset)
			by_inode = m.lo;
		if (m.perms[2] != 'x')
			continue;
		if (x->n == cap) {
			void *p = realloc(x->r, (cap = cap * 2 + 16) *
						      sizeof(*x->r));

			if (!p) {
				ret = -ENOMEM;
				break;
			}
			x->r = p;
		}
		x->r[x->n][0] = m.lo;
		x->r[x->n][1] = m.hi;
		x->n++;
	}
	vgl_maps_close(&maps);
	if (!*start)
		*start = by_inode;
	return ret;
}

static int in_xranges(const struct xranges *x, uint64_t a, size_t len)
{
	size_t i;

	for (i = 0; i < x->n; i++)
		if (a >= x->r[i][0] && a + len <= x->r[i][1])
			return 1;
	return 0;
}

int live_init(struct live_state *l, pid_t pid, int procfd, int pidfd,
	      int taskfd)
{
	memset(l, 0, sizeof(*l));
	l->pid = pid;
	l->procfd = procfd;
	l->pidfd = pidfd;
	l->taskfd = taskfd;
	l->memfd = -1;
	l->memfd_target = -1;
	return 0;
}

/*
 * Finds the control block of the process's current image: 1 when it is an
 * ondemand program started idle (l->ctl set), 0 when it is not one (or it
 * counts from its start: its profile is a file, read as any).
 */
static int find_ctl(struct live_state *l, int *idle_start)
{
	struct vgl_od_ctl c;
	struct xranges x = { NULL, 0 };
	struct stat st;
	uint64_t sec, start, bias;
	char exe[64];
	int fd, found = 0;

	l->ctl = 0;
	l->cand = 0;
	fd = openat(l->procfd, "exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	sec = fstat(fd, &st) == 0 ? ctl_section(fd) : 0;
	close(fd);
	if (!sec)
		goto out;
	/* An ondemand executable: looked for again at the next reading
	 * until its block is read (an exec seen half-way). */
	l->looked = 0;
	if (read_maps(l, (uint64_t)st.st_dev, (uint64_t)st.st_ino, &start,
		      &x) || !start)
		goto out;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)l->pid);
	if (vgl_elf_load_bias(exe, start, &bias) < 0)
		goto out;
	if (read_target(l->pid, bias + sec, &c, sizeof(c)) < 0 ||
	    memcmp(c.magic, VGL_OD_MAGIC, sizeof(c.magic)) ||
	    c.size != sizeof(c))
		goto out;
	/* Found: an image that is not idle (yet: its .preinit_array may
	 * not have run when the exec is seen) is looked at again. */
	l->cand = bias + sec;
	if (idle_start)
		*idle_start = c.idle == 1;
	else if (c.idle != 1)
		goto out;
	l->ctl = bias + sec;
	found = 1;
out:
	free(x.r);
	return found;
}

/* The last code page read, for the sites in it (one read per page, not
 * per site); a byte written into it is written into the copy too. */
struct page_cache {
	uint64_t addr;            /* page address; UINT64_MAX: none */
	size_t len;
	unsigned char bytes[4096];
};

/* The 6 bytes at a, from the page read (or one read of its own where
 * they cross into the next page). */
static int site_bytes(int memfd, struct page_cache *pg, uint64_t a,
		      unsigned char b[6])
{
	uint64_t page = a & ~(uint64_t)4095;
	ssize_t n;

	if (a + 6 > page + 4096)
		return pread(memfd, b, 6, (off_t)a) == 6 ? 0 : -EIO;
	if (pg->addr != page) {
		n = pread(memfd, pg->bytes, sizeof(pg->bytes), (off_t)page);
		pg->addr = n > 0 ? page : UINT64_MAX;
		pg->len = n > 0 ? (size_t)n : 0;
	}
	if (pg->addr != page || a + 6 > page + pg->len)
		return -EIO;
	memcpy(b, pg->bytes + (a - page), 6);
	return 0;
}

/* Sets every listed site's byte to its on or idle value; how many were
 * changed, or -errno.  on -1: changes nothing, counts the sites on
 * (n[1]) and idle (n[0]). */
static long flip_sites(struct live_state *l, const struct vgl_od_ctl *c,
		       int on, uint64_t n_sites[2])
{
	struct xranges x = { NULL, 0 };
	uint64_t *sites = NULL, start, total = 0;
	unsigned i, nl = c->nlists < VGL_OD_LISTS ? c->nlists : VGL_OD_LISTS;
	struct page_cache pg = { UINT64_MAX, 0, { 0 } };
	long changed = 0;
	int memfd, ret;

	memfd = openat(l->procfd, "mem", (on < 0 ? O_RDONLY : O_RDWR) |
		       O_CLOEXEC);
	if (memfd < 0)
		return -errno;
	ret = read_maps(l, 0, 0, &start, &x);
	for (i = 0; !ret && i < nl; i++) {
		uint64_t lo = c->lists[i][0], hi = c->lists[i][1], n, k;

		if (hi <= lo || (hi - lo) % 8 || (hi - lo) / 8 > MAX_SITES - total)
			continue;
		n = (hi - lo) / 8;
		total += n;
		free(sites);
		sites = malloc(n * 8);
		if (!sites) {
			ret = -ENOMEM;
			break;
		}
		/* A plugin unloaded since: its list is gone. */
		if (read_target(l->pid, lo, sites, n * 8) < 0)
			continue;
		for (k = 0; k < n; k++) {
			const struct vgl_od_form *f;
			unsigned char b[6], want;
			int is_on;

			if (!in_xranges(&x, sites[k], 6) ||
			    site_bytes(memfd, &pg, sites[k], b) < 0 ||
			    !(f = vgl_od_form_of(b, &is_on)))
				continue;
			if (on < 0) {
				n_sites[is_on]++;
				continue;
			}
			if (is_on == on)
				continue;
			want = on ? f->on : f->idle;
			if (pwrite(memfd, &want, 1, (off_t)(sites[k] + f->at)) != 1) {
				ret = -errno;
				break;
			}
			/* The cached page holds the new byte too. */
			if (pg.addr != UINT64_MAX &&
			    sites[k] + f->at >= pg.addr &&
			    sites[k] + f->at < pg.addr + pg.len)
				pg.bytes[(sites[k] + f->at) - pg.addr] = want;
			changed++;
		}
	}
	free(sites);
	free(x.r);
	close(memfd);
	return ret < 0 ? ret : changed;
}

int live_prepare(struct live_state *l)
{
	struct vgl_od_ctl c;

	if (!l->ctl && !l->cand && !l->looked) {
		l->looked = 1;
		find_ctl(l, NULL);
	}
	/* An ondemand image seen before its start-up had said it is idle:
	 * its block only is read again. */
	if (!l->ctl && l->cand && read_target(l->pid, l->cand, &c,
					      sizeof(c)) == 0 &&
	    !memcmp(c.magic, VGL_OD_MAGIC, sizeof(c.magic)) &&
	    c.size == sizeof(c) && c.idle == 1)
		l->ctl = l->cand;
	return l->ctl != 0;
}

/* A thread's time on a CPU so far (schedstat's first field, ns), or -1
 * when it has ended. */
static long long run_ns(int taskfd, const char *tid)
{
	char path[64], buf[96];
	long long ns = -1;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/schedstat", tid);
	fd = openat(taskfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = 0;
		ns = strtoll(buf, NULL, 10);
	}
	return ns;
}

/* Whether a thread sleeps in the kernel (or is stopped): then it is not
 * in the middle of a count, which never waits but on the runtime's lock. */
static int asleep(int taskfd, const char *tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/stat", tid);
	fd = openat(taskfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return !p || p[1] != ' ' || (p[2] != 'R');
}

/*
 * After the sites are idle again: a thread may still be inside the hook,
 * past a site it entered before the switch (say, preempted there), and
 * its count would land after the window's last reading.  Waits, up to
 * 100 ms, until every thread has run since the switch (a count takes
 * nanoseconds), sleeps in the kernel, or has ended; one reading later
 * there is nothing left in flight.
 */
static void quiesce(struct live_state *l)
{
	enum { MAX_TASKS = 4096 };
	char (*tids)[16];
	long long *base;
	struct dirent *d;
	int fd, i, n = 0, waits;
	DIR *dir;

	if (l->taskfd < 0 || (fd = dup(l->taskfd)) < 0)
		return;
	tids = malloc(MAX_TASKS * sizeof(*tids));
	base = malloc(MAX_TASKS * sizeof(*base));
	if (!tids || !base) {
		free(tids);
		free(base);
		close(fd);
		return;
	}
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		n = 0;
		goto out;
	}
	rewinddir(dir);
	while ((d = readdir(dir)) && n < MAX_TASKS) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9' ||
		    strlen(d->d_name) >= sizeof(tids[0]))
			continue;
		strcpy(tids[n], d->d_name);
		base[n] = run_ns(l->taskfd, tids[n]);
		if (base[n] >= 0 && !asleep(l->taskfd, tids[n]))
			n++;
	}
	closedir(dir);
	for (waits = 0; n && waits < 500; waits++) {
		usleep(200);
		for (i = 0; i < n;) {
			long long ns = run_ns(l->taskfd, tids[i]);

			if (ns < 0 || ns > base[i] || asleep(l->taskfd, tids[i])) {
				n--;
				memcpy(tids[i], tids[n], sizeof(tids[i]));
				base[i] = base[n];
			} else {
				i++;
			}
		}
	}
out:
	free(tids);
	free(base);
}

/* The memfd the runtime counts into, taken once it is published. */
static void take_memfd(struct live_state *l)
{
	struct vgl_od_ctl c;
	struct stat st;
	int fd;

	if (l->memfd >= 0 || read_target(l->pid, l->ctl, &c, sizeof(c)) < 0 ||
	    c.fd < 0)
		return;
	fd = (int)syscall(SYS_pidfd_getfd, l->pidfd, c.fd, 0);
	if (fd < 0)
		return;
	/* The number may since have been closed by the program and reused:
	 * only the file the runtime published is taken. */
	if (fstat(fd, &st) < 0 || (uint64_t)st.st_dev != c.dev ||
	    (uint64_t)st.st_ino != c.ino) {
		close(fd);
		return;
	}
	l->memfd = fd;
	l->memfd_target = c.fd;
	snprintf(l->path, sizeof(l->path), "/proc/self/fd/%d", fd);
}

int live_set(struct live_state *l, int on)
{
	char *err = l->err;
	size_t errlen = sizeof(l->err);
	struct vgl_od_ctl c;
	uint32_t want = (uint32_t)on;
	uint64_t t0;
	long n;
	int ret;

	if (on == l->on)
		goto done;
	if (!l->ctl && (!on || !live_prepare(l)))
		return 0;
	/* `want` first: a plugin loaded from now on keeps its calls, and the
	 * lists read next hold every plugin that saw the old value. */
	ret = write_target(l->pid, l->ctl + offsetof(struct vgl_od_ctl, want),
			   &want, sizeof(want));
	if (!ret)
		ret = read_target(l->pid, l->ctl, &c, sizeof(c));
	if (ret) {
		snprintf(err, errlen, "cannot switch counting %s: %s",
			 on ? "on" : "off", strerror(-ret));
		return ret;
	}
	t0 = vgl_clock_ns(CLOCK_MONOTONIC);
	n = flip_sites(l, &c, on, NULL);
	l->switch_ns = vgl_clock_ns(CLOCK_MONOTONIC) - t0;
	if (n < 0) {
		snprintf(err, errlen, "cannot switch counting %s: /proc/%d/mem: %s",
			 on ? "on" : "off", (int)l->pid, strerror((int)-n));
		return (int)n;
	}
	if (!on)
		quiesce(l);
	err[0] = 0;
	l->on = on;
	l->sites = (uint64_t)n;
	l->switches++;
	/* A busy program calls at once: its descriptor is taken now, before
	 * it can close it (a daemon closing every descriptor); an idle one's
	 * at a later reading. */
	for (n = 0; on && l->memfd < 0 && n < 20; n++) {
		take_memfd(l);
		if (l->memfd < 0)
			usleep(1000);
	}
done:
	if (l->on)
		take_memfd(l);
	return 0;
}

int live_check(struct live_state *l)
{
	struct vgl_od_ctl c;

	/* Ours says `want` = 1 until we write 0.  A new image of the process
	 * (an exec, of the same file or another) has no block there, or one
	 * without our memfd; ours with `want` 0 was switched off by another
	 * attach that detached. */
	if (!l->on || !l->ctl)
		return LIVE_OURS;
	if (read_target(l->pid, l->ctl, &c, sizeof(c)) < 0 ||
	    memcmp(c.magic, VGL_OD_MAGIC, sizeof(c.magic)) ||
	    (l->memfd >= 0 && c.fd != l->memfd_target))
		return LIVE_REPLACED;
	if (c.want == 1)
		return LIVE_OURS;
	l->on = 0;
	return LIVE_OFF_ELSEWHERE;
}

const char *live_profile(struct live_state *l)
{
	if (l->ctl)
		take_memfd(l);
	return l->memfd >= 0 ? l->path : NULL;
}

void live_forget(struct live_state *l)
{
	if (l->memfd >= 0)
		close(l->memfd);
	l->memfd = -1;
	l->ctl = 0;
	l->cand = 0;
	l->on = 0;
	l->looked = 0;
}

int sampler_live_inspect(pid_t pid, struct sampler_live_info *out,
			 char *err, size_t errlen)
{
	struct live_state l;
	struct vgl_od_ctl c;
	char path[64];
	int procfd, ret = 0;
	long n;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	procfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	live_init(&l, pid, procfd, -1, -1);
	out->ondemand = find_ctl(&l, &out->idle_start);
	if (!out->ondemand)
		goto out;
	if (read_target(pid, l.ctl, &c, sizeof(c)) < 0) {
		ret = -EPERM;
		snprintf(err, errlen, "cannot read its memory");
		goto out;
	}
	out->want = c.want == 1;
	out->memfd = c.fd >= 0;
	n = flip_sites(&l, &c, -1, out->sites);
	if (n < 0) {
		ret = (int)n;
		snprintf(err, errlen, "/proc/%d/mem: %s", (int)pid,
			 strerror((int)-n));
	}
out:
	if (procfd >= 0)
		close(procfd);
	return ret;
}
