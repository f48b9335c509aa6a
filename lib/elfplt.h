/*
 * elfplt.h - the names of an x86-64 ELF file's PLT stubs.
 *
 * A stub has no symbol of its own: samples and calls that land in one
 * would take the name of the last symbol before it (_init, whose size is
 * 0).  Each stub jumps through a GOT slot that a relocation names; the
 * stub is named after that symbol, NAME@plt, as objdump and perf name it.
 */
#ifndef VGL_ELFPLT_H
#define VGL_ELFPLT_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct vgl_plt_stub {
	uint64_t start, size;   /* ELF addresses */
	const char *name;       /* "NAME@plt", in the names buffer */
};

/*
 * The stubs of elf's .plt, .plt.sec and .plt.got sections whose jump's
 * slot a JUMP_SLOT or GLOB_DAT relocation names: *stubs (malloc'd,
 * *nstubs of them) and their names in *names (malloc'd, one buffer the
 * stubs point into).  A file with no PLT has none.  Returns 0 or -ENOMEM.
 */
int vgl_plt_stubs(Elf *elf, struct vgl_plt_stub **stubs, size_t *nstubs,
		  char **names);

#endif
