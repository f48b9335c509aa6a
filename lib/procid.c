/*
 * procid.c - see procid.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
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
