/*
 * host.c - the host around the target: CPU time of all CPUs by kind
 * (/proc/stat's first line, since the previous sample) and memory
 * (/proc/meminfo's total and available).  Both files stay open.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

int host_init(struct host_state *h)
{
	memset(h, 0, sizeof(*h));
	h->statfd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	h->meminfofd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
	if (h->statfd < 0 || h->meminfofd < 0) {
		int ret = -errno;

		host_release(h);
		return ret;
	}
	return 0;
}

int host_scan_cpu(struct host_state *h, struct sampler_sample *s)
{
	/* Only the first line matters; /proc/stat is long on big hosts. */
	char buf[512], *p;
	uint64_t v[8] = { 0 }, now[4];
	ssize_t n;
	int i;

	n = pread(h->statfd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	if (strncmp(buf, "cpu ", 4))
		return -EINVAL;
	p = buf + 4;
	/* user nice system idle iowait irq softirq steal */
	for (i = 0; i < 8; i++)
		v[i] = strtoull(p, &p, 10) * proc_tick_us();
	now[0] = v[0] + v[1];
	now[1] = v[2] + v[5] + v[6];
	now[2] = v[3];
	now[3] = v[4];
	s->host_user_us = now[0] - (now[0] >= h->last[0] ? h->last[0] : 0);
	s->host_sys_us = now[1] - (now[1] >= h->last[1] ? h->last[1] : 0);
	s->host_idle_us = now[2] - (now[2] >= h->last[2] ? h->last[2] : 0);
	/* iowait may go backwards (it is an estimate per CPU). */
	s->host_iowait_us = now[3] >= h->last[3] ? now[3] - h->last[3] : 0;
	memcpy(h->last, now, sizeof(now));
	return 0;
}

/* "Name:   123 kB" in meminfo, in bytes. */
static uint64_t meminfo_kb(const char *text, const char *name)
{
	const char *p = strstr(text, name);

	return p ? strtoull(p + strlen(name), NULL, 10) * 1024 : 0;
}

int host_scan_memory(struct host_state *h, struct sampler_sample *s)
{
	char buf[1024];
	ssize_t n;

	n = pread(h->meminfofd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	s->host_mem_total_bytes = meminfo_kb(buf, "MemTotal:");
	s->host_mem_available_bytes = meminfo_kb(buf, "MemAvailable:");
	return 0;
}

void host_release(struct host_state *h)
{
	if (h->statfd >= 0)
		close(h->statfd);
	if (h->meminfofd >= 0)
		close(h->meminfofd);
	h->statfd = h->meminfofd = -1;
}
