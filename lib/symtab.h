/*
 * symtab.h - turn the runtime addresses of a profile into function names
 * and source lines, with elfutils (libdwfl), one module at a time.
 *
 * Each module is reported to its own Dwfl at bias 0, so the addresses asked
 * for are the ELF's own virtual addresses (runtime address minus the bias
 * the profile recorded).  Modules are opened on first use and every answer
 * is cached, since a report asks about the same few thousand addresses
 * over and over.
 */
#ifndef VGL_SYMTAB_H
#define VGL_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

#include "vgl_reader.h"

struct vgl_sym {
	const char *func;    /* demangled name; "module+0xOFF" when the module
	                      * has no symbol there; "0xADDR" when no module */
	const char *module;  /* base name of the module's path, or NULL */
	const char *file;    /* base name of the source file, or NULL */
	int line;            /* 0 when file is NULL */
};

struct symtab_module;
struct symtab_entry;

struct vgl_symtab {
	const struct vgl_reader *r;
	struct symtab_module *mods;     /* one per reader module, same order */
	struct symtab_entry *cache;     /* open addressing, power of 2 */
	size_t cache_cap, cache_len;
	char **strs;                    /* every string we handed out */
	size_t nstrs, cap_strs;
};

/* Prepares to symbolize the addresses of r, which must outlive st. */
int vgl_symtab_init(struct vgl_symtab *st, const struct vgl_reader *r);
void vgl_symtab_release(struct vgl_symtab *st);

/*
 * Symbolizes the runtime address addr, which the profile says lies in module
 * mod (VGL_NO_MODULE if none).  out's strings belong to st.  Warns on
 * stderr, once per module, when its file cannot be read or its build-id
 * differs from the profiled one.  Returns 0 or -ENOMEM.
 */
int vgl_symtab_lookup(struct vgl_symtab *st, uint32_t mod, uint64_t addr,
		      struct vgl_sym *out);

#endif
