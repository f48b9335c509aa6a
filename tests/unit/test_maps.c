/* test_maps.c - lib/maps.c: lines of /proc/PID/maps as the kernel prints
 * them, and the reader on this process's own maps. */
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check.h"
#include "maps.h"

int main(void)
{
	char l1[] = "55d0c8a00000-55d0c8a21000 r-xp 00002000 08:01 1311 "
		    "                      /usr/bin/my prog (deleted)";
	char l2[] = "7ffd1e3f0000-7ffd1e411000 rw-p 00000000 00:00 0"
		    "                          [stack]";
	char l3[] = "7f0000000000-7f0000001000 ---p 00000000 00:00 0 ";
	char l4[] = "not a mapping";
	char l5[] = "1000-2000 r--s 00000000 103:1a 4294967296 /dev/shm/x";
	char l6[] = "1000-2000 r--p 00000000 zz - /odd";
	struct stat exe;
	struct vgl_maps maps;
	struct vgl_map m;
	int found = 0, n = 0;

	CHECK("file mapping parses", !vgl_maps_parse_line(l1, &m), "rejected");
	CHECK("file mapping range", m.lo == 0x55d0c8a00000ull &&
	      m.hi == 0x55d0c8a21000ull, "got %llx-%llx",
	      (unsigned long long)m.lo, (unsigned long long)m.hi);
	CHECK("file mapping perms and offset",
	      !strcmp(m.perms, "r-xp") && m.offset == 0x2000,
	      "got %s %llx", m.perms, (unsigned long long)m.offset);
	CHECK("file mapping device and inode",
	      m.dev == makedev(8, 1) && m.inode == 1311,
	      "got %llx %llu", (unsigned long long)m.dev,
	      (unsigned long long)m.inode);
	CHECK("path keeps its blanks and (deleted)",
	      !strcmp(m.path, "/usr/bin/my prog (deleted)"), "got '%s'", m.path);
	CHECK("device in hex, inode past 32 bits",
	      !vgl_maps_parse_line(l5, &m) && m.dev == makedev(0x103, 0x1a) &&
	      m.inode == 4294967296ull && !strcmp(m.path, "/dev/shm/x"),
	      "got %llx %llu '%s'", (unsigned long long)m.dev,
	      (unsigned long long)m.inode, m.path);
	CHECK("unreadable device and inode: 0, still a mapping",
	      !vgl_maps_parse_line(l6, &m) && m.dev == 0 && m.inode == 0 &&
	      !strcmp(m.path, "/odd"),
	      "got %llx %llu '%s'", (unsigned long long)m.dev,
	      (unsigned long long)m.inode, m.path);
	CHECK("kernel name", !vgl_maps_parse_line(l2, &m) &&
	      !strcmp(m.path, "[stack]"), "got '%s'", m.path);
	CHECK("anonymous", !vgl_maps_parse_line(l3, &m) && !m.path[0] &&
	      !strcmp(m.perms, "---p"), "got '%s'", m.path);
	CHECK("junk refused", vgl_maps_parse_line(l4, &m) < 0, "accepted");

	CHECK("own maps open", !vgl_maps_open(&maps, getpid()), "failed");
	while (vgl_maps_next(&maps, &m)) {
		n++;
		if ((uintptr_t)main >= m.lo && (uintptr_t)main < m.hi &&
		    m.path[0] == '/' && m.perms[2] == 'x' &&
		    !stat("/proc/self/exe", &exe) &&
		    m.dev == (uint64_t)exe.st_dev && m.inode == exe.st_ino)
			found = 1;
	}
	vgl_maps_close(&maps);
	CHECK("own maps hold main in an executable mapping of this file",
	      found, "not found in %d mappings", n);
	return check_status();
}
