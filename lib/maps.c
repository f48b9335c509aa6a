/*
 * maps.c - see maps.h.  A process's maps are a few hundred lines; they
 * are read whenever an address falls outside the modules known (dlopen,
 * exec), so the reader allocates once per read and parses in place.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "maps.h"
#include "procid.h"

int vgl_maps_read_fd(struct vgl_maps *m, int fd)
{
	size_t cap = 65536;
	ssize_t n;

	memset(m, 0, sizeof(*m));
	m->buf = malloc(cap);
	if (!m->buf)
		return -ENOMEM;
	for (;;) {
		if (m->len + 4096 > cap) {
			char *p = realloc(m->buf, cap * 2);

			if (!p) {
				vgl_maps_close(m);
				return -ENOMEM;
			}
			m->buf = p;
			cap *= 2;
		}
		n = pread(fd, m->buf + m->len, cap - m->len - 1,
			  (off_t)m->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			vgl_maps_close(m);
			return err;
		}
		if (!n)
			break;
		m->len += (size_t)n;
	}
	m->buf[m->len] = 0;
	return 0;
}

int vgl_maps_open(struct vgl_maps *m, pid_t pid)
{
	char path[64];
	int fd, err;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		memset(m, 0, sizeof(*m));
		return -errno;
	}
	err = vgl_maps_read_fd(m, fd);
	close(fd);
	return err;
}

/* Reads a hex number at *p, moving *p past it; returns 0 or -EINVAL. */
static int hex(char **p, uint64_t *v)
{
	char *end;

	if (!isxdigit((unsigned char)**p))
		return -EINVAL;
	*v = strtoull(*p, &end, 16);
	*p = end;
	return 0;
}

/* Moves *p past one field and the blanks after it. */
static void skip_field(char **p)
{
	*p += strcspn(*p, " \t");
	*p += strspn(*p, " \t");
}

int vgl_maps_parse_line(char *line, struct vgl_map *out)
{
	char *p = line, *q;
	uint64_t maj, min;
	int i;

	/* lo-hi perms offset dev inode path */
	if (hex(&p, &out->lo) || *p++ != '-' || hex(&p, &out->hi) ||
	    *p != ' ')
		return -EINVAL;
	p += strspn(p, " ");
	for (i = 0; i < 4 && p[i] && p[i] != ' '; i++)
		out->perms[i] = p[i];
	out->perms[i] = 0;
	if (i != 4)
		return -EINVAL;
	skip_field(&p);
	if (hex(&p, &out->offset))
		return -EINVAL;
	p += strspn(p, " \t");
	/* dev (major:minor, hex) and inode (decimal): a line whose fields
	 * do not read so is still a mapping, of no file known. */
	q = p;
	if (hex(&q, &maj) || *q++ != ':' || hex(&q, &min) ||
	    (*q != ' ' && *q != '\t'))
		maj = min = 0;
	out->dev = makedev(maj, min);
	skip_field(&p);
	out->inode = isdigit((unsigned char)*p) ? strtoull(p, NULL, 10) : 0;
	skip_field(&p);
	out->path = p;
	return 0;
}

int vgl_maps_next(struct vgl_maps *m, struct vgl_map *out)
{
	while (m->buf && m->pos < m->len) {
		char *line = m->buf + m->pos;
		size_t l = strcspn(line, "\n");

		m->pos += l + (line[l] == '\n');
		line[l] = 0;
		if (!vgl_maps_parse_line(line, out))
			return 1;
	}
	return 0;
}

void vgl_maps_close(struct vgl_maps *m)
{
	free(m->buf);
	m->buf = NULL;
	m->len = m->pos = 0;
}

char *vgl_proc_exe(pid_t pid)
{
	char path[64], exe[4096];
	ssize_t n;

	vgl_proc_path(path, (uint64_t)pid, "exe");
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = 0;
	return strdup(exe);
}
