/*
 * process.c - the whole target process: its state letter and CPU time
 * (/proc/PID/stat, and its CPU clock for nanoseconds), memory (/proc/PID/status), I/O (/proc/PID/io), its
 * image (/proc/PID/exe) and, once it is a zombie, its exit status (field
 * 52 of stat, which the kernel shows until the parent reaps it).  Every
 * file is opened once and re-read with pread.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

int process_init(struct process_state *p, pid_t pid, char *err,
		 size_t errlen)
{
	char path[64];
	int ret;

	memset(p, 0, sizeof(*p));
	p->statfd = p->statusfd = p->iofd = -1;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	p->procfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->procfd < 0) {
		ret = -errno;
		return sampler_err(err, errlen, ret == -ENOENT ? -ESRCH : ret,
				   "pid %d: %s", (int)pid,
				   ret == -ENOENT ? "no such process"
						  : strerror(-ret));
	}
	/*
	 * The exe link is what the kernel guards like ptrace's read access:
	 * if it cannot be read, neither can the target's memory maps, I/O or
	 * stacks, so refuse now with the reason rather than sample half.  A
	 * kernel thread has no exe (ENOENT) and is readable otherwise.
	 */
	if (readlinkat(p->procfd, "exe", p->exe, sizeof(p->exe) - 1) < 0 &&
	    errno != ENOENT) {
		ret = -errno;
		if (ret == -EACCES || ret == -EPERM)
			ret = sampler_err(err, errlen, -EACCES,
					  "pid %d: permission denied (cannot read %s/exe; attach as the process's user or as root)",
					  (int)pid, path);
		else
			ret = sampler_err(err, errlen, ret, "pid %d: %s/exe: %s",
					  (int)pid, path, strerror(-ret));
		goto fail;
	}
	p->statfd = openat(p->procfd, "stat", O_RDONLY | O_CLOEXEC);
	p->statusfd = openat(p->procfd, "status", O_RDONLY | O_CLOEXEC);
	if (p->statfd < 0 || p->statusfd < 0) {
		ret = -errno;
		ret = sampler_err(err, errlen, ret == -ENOENT ? -ESRCH : ret,
				  "pid %d: %s/stat: %s", (int)pid, path,
				  strerror(-ret));
		goto fail;
	}
	/* I/O counters need more than reading stat does; without them the
	 * samples say why instead of failing the attach. */
	p->iofd = openat(p->procfd, "io", O_RDONLY | O_CLOEXEC);
	if (p->iofd < 0)
		p->io_errno = errno;
	p->clock_ok = !clock_getcpuclockid(pid, &p->clock);
	return 0;
fail:
	process_release(p);
	return ret;
}

int process_scan_stat(struct process_state *p, struct sampler_sample *s)
{
	char buf[1024], comm[16], *f[64];
	uint64_t user, sys, run;
	struct timespec ts;
	ssize_t n;
	int nf;

	n = proc_pread(p->statfd, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	nf = proc_split_stat(buf, comm, sizeof(comm), f, 64);
	if (nf < 13)
		return -EINVAL;
	s->state = f[0][0];
	s->stopped = s->state == 'T' || s->state == 't';
	user = strtoull(f[11], NULL, 10) * proc_tick_us();
	sys = strtoull(f[12], NULL, 10) * proc_tick_us();
	s->cpu_user_us = user;
	s->cpu_sys_us = sys;
	s->cpu_user_delta_us = p->cpu_primed && user >= p->last_user_us
				       ? user - p->last_user_us : 0;
	s->cpu_sys_delta_us = p->cpu_primed && sys >= p->last_sys_us
				      ? sys - p->last_sys_us : 0;
	/* The CPU clock sums every thread's scheduler run time, ended
	 * threads included, in ns: a 5 ms interval reads 5 ms of a busy
	 * thread, where the ticks read 0 or 10 ms.  It cannot be read once
	 * the process is reaped; then the last value (or the ticks) stand,
	 * so that it never goes back. */
	run = (user + sys) * 1000;
	if (p->clock_ok && !clock_gettime(p->clock, &ts))
		run = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (run < p->last_run_ns)
		run = p->last_run_ns;
	s->cpu_run_ns = run;
	s->cpu_run_delta_ns = p->cpu_primed ? run - p->last_run_ns : 0;
	p->last_user_us = user;
	p->last_sys_us = sys;
	p->last_run_ns = run;
	p->cpu_primed = 1;
	return 0;
}

/* The value in kB of "Name:   123 kB" in a status text, in bytes. */
static uint64_t status_kb(const char *text, const char *name)
{
	size_t len = strlen(name);
	const char *p = text;

	while ((p = strstr(p, name))) {
		if ((p == text || p[-1] == '\n') && p[len] == ':')
			return strtoull(p + len + 1, NULL, 10) * 1024;
		p += len;
	}
	return 0;
}

int process_scan_memory(struct process_state *p, struct sampler_sample *s)
{
	char buf[4096];
	ssize_t n;

	n = proc_pread(p->statusfd, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	s->rss_bytes = status_kb(buf, "VmRSS");
	s->anon_bytes = status_kb(buf, "RssAnon");
	s->file_bytes = status_kb(buf, "RssFile");
	s->shmem_bytes = status_kb(buf, "RssShmem");
	s->swap_bytes = status_kb(buf, "VmSwap");
	s->vsize_bytes = status_kb(buf, "VmSize");
	return 0;
}

/* The number after "name: " in /proc/PID/io's text. */
static uint64_t io_field(const char *text, const char *name)
{
	const char *p = strstr(text, name);

	return p ? strtoull(p + strlen(name), NULL, 10) : 0;
}

int process_scan_io(struct process_state *p, struct sampler_sample *s)
{
	char buf[512];
	ssize_t n;

	s->io_ok = 0;
	s->io_errno = p->io_errno;
	if (p->iofd < 0)
		return 0;
	n = proc_pread(p->iofd, buf, sizeof(buf));
	if (n < 0) {
		s->io_errno = (int)-n;
		return 0;
	}
	s->io_ok = 1;
	s->io_errno = 0;
	s->io_rchar = io_field(buf, "rchar: ");
	s->io_wchar = io_field(buf, "wchar: ");
	/* "cancelled_write_bytes" also contains "write_bytes: ". */
	s->io_read_bytes = io_field(buf, "\nread_bytes: ");
	s->io_write_bytes = io_field(buf, "\nwrite_bytes: ");
	return 0;
}

void process_scan_exe(struct process_state *p, struct sampler_sample *s)
{
	char now[sizeof(p->exe)];
	ssize_t n;

	n = readlinkat(p->procfd, "exe", now, sizeof(now) - 1);
	if (n < 0) {
		s->exe = p->exe_known ? p->exe : NULL;
		s->exe_stale = s->exe != NULL;
		return;
	}
	s->exe_stale = 0;
	now[n] = 0;
	s->exe_changed = p->exe_known && strcmp(now, p->exe) != 0;
	memcpy(p->exe, now, (size_t)n + 1);
	p->exe_known = 1;
	s->exe = p->exe;
}

/*
 * The exit status through the target's pidfd (PIDFD_GET_INFO with
 * PIDFD_INFO_EXIT, Linux 6.15): recorded when the process is reaped and
 * kept for as long as the pidfd is open.  A sampled process is rarely
 * vigil's child: its parent (a shell running it) reaps it at once, and
 * its zombie's stat, read after the pidfd woke us, was gone in 6 of 10
 * runs, its file then "cut short".  The struct is the first published
 * one (64 bytes), exit_code its last field; the ioctl is defined here
 * because the build's kernel headers may be older.
 */
struct vgl_pidfd_info {
	uint64_t mask;
	uint64_t cgroupid;
	uint32_t ids[11];       /* pid, tgid, ppid, then the credentials */
	int32_t exit_code;      /* a wait status */
};
#define VGL_PIDFD_INFO_EXIT (1ull << 3)
#define VGL_PIDFD_GET_INFO _IOWR(0xFF, 11, struct vgl_pidfd_info)

static int pidfd_exit_status(int pidfd, int *status)
{
	struct vgl_pidfd_info info;

	if (pidfd < 0)
		return -EBADF;
	memset(&info, 0, sizeof(info));
	info.mask = VGL_PIDFD_INFO_EXIT;
	if (ioctl(pidfd, VGL_PIDFD_GET_INFO, &info) < 0)
		return -errno;
	if (!(info.mask & VGL_PIDFD_INFO_EXIT))
		return -ESRCH;
	*status = info.exit_code;
	return 0;
}

/* The exit status from the zombie's stat (older kernels). */
static int stat_exit_status(struct process_state *p, int *status)
{
	char buf[1024], comm[16], *f[64];
	ssize_t n;
	int nf;

	n = proc_pread(p->statfd, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	if (n == 0)
		return -ESRCH;
	nf = proc_split_stat(buf, comm, sizeof(comm), f, 64);
	/* Field 52 is fields[49]; only a zombie's is its final status. */
	if (nf < 50 || f[0][0] != 'Z')
		return -ESRCH;
	*status = (int)strtol(f[49], NULL, 10);
	return 0;
}

int process_exit_status(struct process_state *p, int pidfd, int *status)
{
	/* The pidfd has it once the process is reaped, the stat while it
	 * is a zombie; reaped between the two reads (65 of 321 processes
	 * of xz's make check), the pidfd has it on a second look. */
	if (!pidfd_exit_status(pidfd, status) ||
	    !stat_exit_status(p, status))
		return 0;
	return pidfd_exit_status(pidfd, status);
}

void process_release(struct process_state *p)
{
	if (p->iofd >= 0)
		close(p->iofd);
	if (p->statusfd >= 0)
		close(p->statusfd);
	if (p->statfd >= 0)
		close(p->statfd);
	if (p->procfd >= 0)
		close(p->procfd);
	p->iofd = p->statusfd = p->statfd = p->procfd = -1;
}

void process_take_exe(struct process_state *p, struct sampler_sample *s,
		      const char *path)
{
	size_t n = strlen(path);

	if (n >= sizeof(p->exe))
		return;
	s->exe_changed = !p->exe_known || strcmp(path, p->exe) != 0;
	memcpy(p->exe, path, n + 1);
	p->exe_known = 1;
	s->exe = p->exe;
	s->exe_stale = 0;
}
