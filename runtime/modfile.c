/*
 * modfile.c - what identifies a loaded object that has no build-id, so
 * that a reader can tell whether the file now at its path is the one that
 * ran: a program linked with --build-id=none and rebuilt in place keeps
 * its path, and its functions would be named from the new file's symbols
 * at the old file's addresses.
 *
 * Recorded once per object, when module.c first finds it loaded: the
 * file's size and modification time (one stat), and a CRC-32 of the bytes
 * of its readable, non-writable PT_LOAD segments, read from memory (the
 * loader copies them from the file unchanged; relocations write only
 * writable segments).  The CRC costs a pass over the object's code (100
 * MB/s measured on a loaded machine, bytewise), which is why objects with
 * a build-id, which identifies them already, are never read, and why an
 * object with more than CRC_MAX such bytes gets none: readers then go by
 * size and time alone.
 */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/stat.h>

#include "crc32.h"
#include "modfile.h"
#include "state.h"

#define CRC_MAX (16u << 20)

static int RT readonly_load(const ElfW(Phdr) *ph)
{
	return ph->p_type == PT_LOAD && (ph->p_flags & PF_R) &&
	       !(ph->p_flags & PF_W);
}

void RT module_file_id(const struct dl_phdr_info *info, const char *path,
		       struct vgl_module_file *out)
{
	int saved_errno = errno;
	struct stat st;
	uint64_t total = 0;
	uint32_t crc = 0;
	int i;

	memset(out, 0, sizeof(*out));
	if (stat(path, &st) == 0) {
		out->size = (uint64_t)st.st_size;
		out->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u +
				(uint64_t)st.st_mtim.tv_nsec;
		out->flags |= VGL_FILE_STAT;
	}
	for (i = 0; i < info->dlpi_phnum; i++)
		if (readonly_load(&info->dlpi_phdr[i]))
			total += info->dlpi_phdr[i].p_filesz;
	if (total <= CRC_MAX) {
		for (i = 0; i < info->dlpi_phnum; i++) {
			const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

			if (readonly_load(ph))
				crc = vgl_crc32(crc,
						(const void *)(info->dlpi_addr +
							       ph->p_vaddr),
						ph->p_filesz);
		}
		out->load_crc = crc;
		out->flags |= VGL_FILE_CRC;
	}
	errno = saved_errno;
}
