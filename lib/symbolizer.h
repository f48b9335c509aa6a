/*
 * symbolizer.h - turn addresses of a process into functions and source
 * lines, for a list of modules (path, build-id, load bias) that can come
 * from a .vgl file or from /proc/PID/maps.
 *
 * Tuned for a report of a million edges: each module's ELF symbol table is
 * read once into an array sorted by address, and every lookup is a binary
 * search in it; lines are read only when first asked for: of the CU that
 * .debug_aranges gives for the address, one CU at a time, or, in a module
 * without .debug_aranges (Clang's), of every CU at once, each into a
 * sorted array.  Names are never copied per
 * address: function names point into the ELF string table (kept mapped),
 * file names are interned so that equal names are equal pointers, and a
 * C++ name is demangled once per function.
 *
 * A module that cannot be read (missing, not a regular file, not ELF) or
 * whose build-id differs from the one recorded (without a build-id: whose
 * size, time and code all differ from the ones recorded) is named in one warning on
 * stderr, and has no functions: its callers show its addresses as
 * module+0xoffset.
 */
#ifndef VGL_SYMBOLIZER_H
#define VGL_SYMBOLIZER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vgl_reader.h"

/* One module as the caller knows it. */
struct vgl_symbolizer_module {
	const char *path;           /* copied */
	const uint8_t *build_id;    /* copied; NULL or length 0: not checked */
	size_t build_id_len;
	uint64_t bias;              /* runtime address minus ELF address */
	const struct vgl_module_file *file;  /* copied; NULL: not checked */
};

/* A function of a module's symbol table. */
struct vgl_func_sym {
	uint64_t start;             /* ELF address of its first byte */
	uint64_t size;              /* bytes; 0 when the symbol gives none */
	const char *name;           /* as in the symbol table (mangled) */
	const char *demangled;      /* NULL until vgl_func_sym_name() */
};

struct vgl_symbolizer;

/*
 * Prepares to symbolize addresses of the n modules at mods (index i of the
 * array is module i below).  Nothing is read until a module is first used.
 * Returns 0 or -ENOMEM; *out is released with vgl_symbolizer_free().
 */
int vgl_symbolizer_new(struct vgl_symbolizer **out,
		       const struct vgl_symbolizer_module *mods, size_t n);

/* Builds the module list from a .vgl file's modules, in file order. */
int vgl_symbolizer_from_reader(struct vgl_symbolizer **out,
			       const struct vgl_reader *r);

/*
 * Builds the module list of a running process from /proc/PID/maps: every
 * mapped regular file whose first mapping has offset 0, with the bias
 * computed from its ELF program headers (build-ids are not checked: the
 * mapped file is the one on disk).  Returns 0 or a negative errno.
 */
int vgl_symbolizer_from_pid(struct vgl_symbolizer **out, pid_t pid);

/*
 * What identifies the ELF file at path now (struct vgl_module_file: its
 * size, mtime and the CRC the runtime records for a module without
 * build-id), for a writer that knows only paths (a sampled profile's
 * modules, from /proc/PID/maps).  Returns 0 or a negative errno.
 */
int vgl_file_identity(const char *path, struct vgl_module_file *out);

void vgl_symbolizer_free(struct vgl_symbolizer *s);

size_t vgl_symbolizer_count(const struct vgl_symbolizer *s);

/* The base name of module mod's path. */
const char *vgl_symbolizer_module_name(const struct vgl_symbolizer *s,
				       size_t mod);

/* The full path and load bias of module mod. */
const char *vgl_symbolizer_module_path(const struct vgl_symbolizer *s,
				       size_t mod);
uint64_t vgl_symbolizer_module_bias(const struct vgl_symbolizer *s,
				    size_t mod);

/*
 * The function of module mod that holds the runtime address addr, or NULL
 * when the module is unusable or no function symbol covers addr (a sized
 * symbol covers [start, start + size); a sizeless one, up to the next
 * symbol).  Loads the module's symbols on first use.  The result lives as
 * long as s.
 */
struct vgl_func_sym *vgl_symbolizer_func(struct vgl_symbolizer *s,
					 size_t mod, uint64_t addr);

/*
 * Where no symbol covers runtime address addr of module mod (a stripped
 * binary's static functions): the ELF address of the first byte of the
 * function holding it, from its unwind table's FDE (.eh_frame), so that
 * its addresses can be grouped as one function.  Returns 0 with *start
 * set, -ENOENT when no FDE holds addr, -ENODEV when the module cannot be
 * read (or is not the one profiled): nothing is known of its functions.
 */
int vgl_symbolizer_fde_start(struct vgl_symbolizer *s, size_t mod,
			     uint64_t addr, uint64_t *start);

/*
 * How a code address is named: by the first of these that knows it.  A
 * name is one per function (or per module), never one per address.
 */
enum vgl_place_kind {
	VGL_PLACE_SYMBOL,       /* a function symbol covers it: sym */
	VGL_PLACE_FDE,          /* no symbol; its function's FDE (.eh_frame)
	                         * starts at ELF address addr */
	VGL_PLACE_MODULE,       /* no symbol, no FDE: the module's code as one
	                         * function */
	VGL_PLACE_OFFSET,       /* the module cannot be read (or is not the one
	                         * profiled): addr is the address's own ELF
	                         * address in it */
	VGL_PLACE_ADDRESS,      /* in no module: addr is the runtime address */
};

struct vgl_place {
	enum vgl_place_kind kind;
	size_t module;          /* symbolizer index; unused for ADDRESS */
	uint64_t addr;          /* SYMBOL: sym->start; MODULE: 0 */
	struct vgl_func_sym *sym;   /* SYMBOL only */
	/* Not NULL: the frame is an inlined copy of the function so named
	 * (interned), inside the function the fields above place; it is
	 * named "NAME (inlined)", as perf names it. */
	const char *inlined;
};

/* No module holds the address (a module argument). */
#define VGL_SYMBOLIZER_NO_MODULE ((size_t)-1)

/*
 * Where runtime address addr of module mod is (mod may be
 * VGL_SYMBOLIZER_NO_MODULE), as above.  Two addresses of one function
 * give equal places (kind, module, addr).
 */
void vgl_symbolizer_place(struct vgl_symbolizer *s, size_t mod, uint64_t addr,
			  struct vgl_place *out);

/*
 * The one spelling of a place's name, for every output: the demangled
 * symbol, "MODULE+0xSTART" (FDE), "[MODULE]", "MODULE+0xOFF" (offset) or
 * "0xADDR"; "NAME (inlined)" for an inlined copy.  Returns the symbol's
 * name (lives as long as s), or buf holding the others (cut at len).
 */
const char *vgl_place_name(struct vgl_symbolizer *s, const struct vgl_place *p,
			   char *buf, size_t len);

/*
 * The functions inlined at runtime address addr of module mod, from its
 * DWARF inline scopes (DW_TAG_inlined_subroutine, named after their
 * DW_AT_abstract_origin, demangled): names[0] is the innermost, the one
 * whose code addr is, names[n - 1] the one inlined straight into the
 * out-of-line function holding addr.  Names are interned.  Returns n
 * (0: not in an inlined copy, or no DWARF), at most max; each address is
 * looked up once.
 */
size_t vgl_symbolizer_inlined(struct vgl_symbolizer *s, size_t mod,
			      uint64_t addr, const char **names, size_t max);
/* The same, and in files[i] the file that declares names[i]
 * (DW_AT_decl_file, its base name, interned; NULL when not known). */
size_t vgl_symbolizer_inlined_decl(struct vgl_symbolizer *s, size_t mod,
				   uint64_t addr, const char **names,
				   const char **files, size_t max);

/* The directories searched for separate debug files instead of
 * /usr/lib/debug, as perf's --symfs: VIGIL_DEBUG_DIR (a colon-separated
 * list) when set and not empty, else "/usr/lib/debug". */
const char *vgl_debug_dirs(void);

/* f's name for people: demangled when it is a C++ name (done once). */
const char *vgl_func_sym_name(struct vgl_func_sym *f);

/*
 * The source file (base name, interned: equal names are equal pointers)
 * and line of runtime address addr in module mod.  Returns 0, -ENOENT when
 * nothing is known, or -ENOMEM.  Reads the lines of addr's CU (or of the
 * whole module, see above) on first use.
 */
int vgl_symbolizer_line(struct vgl_symbolizer *s, size_t mod, uint64_t addr,
			const char **file, int *line);

/* The ELF e_machine of module mod (EM_X86_64, ...), or -ENOENT when it
 * cannot be read. */
int vgl_symbolizer_machine(struct vgl_symbolizer *s, size_t mod);

/*
 * Points *bytes at the len bytes of module mod's code at ELF address
 * elf_addr (inside one executable section of the file, which stays mapped
 * as long as s).  Returns 0 or -ENOENT.
 */
int vgl_symbolizer_code(struct vgl_symbolizer *s, size_t mod,
			uint64_t elf_addr, size_t len, const uint8_t **bytes);

/*
 * Whether the function of module mod whose first byte is at runtime
 * address host holds an inlined copy of the function whose symbol is
 * name, by its DWARF (DW_TAG_inlined_subroutine).  0 when it does not or
 * nothing can tell.
 */
int vgl_symbolizer_inlines(struct vgl_symbolizer *s, size_t mod,
			   uint64_t host, const char *name);

/* The GNU build-id of the ELF file at path, copied into out (at most cap
 * bytes).  Returns its length (0: the file has none), or a negative
 * errno. */
int vgl_elf_file_build_id(const char *path, uint8_t *out, size_t cap);

/* The load bias of the ELF file at path whose file offset 0 is mapped at
 * start: 0, or a negative errno (-ENOEXEC: not ELF, or no PT_LOAD). */
int vgl_elf_load_bias(const char *path, uint64_t start, uint64_t *bias);

/* The module path a sampled profile gives the kernel's vDSO. */
#define VGL_VDSO_PATH "[vdso]"

/* The GNU build-id of this process's vDSO, as vgl_elf_file_build_id().
 * Every process on one kernel maps the same vDSO, so this is also the
 * build-id of a profiled process's: a reader whose own vDSO has the
 * recorded build-id names the profile's vDSO addresses from its own. */
int vgl_vdso_build_id(uint8_t *out, size_t cap);

/* Interns s in s's string table (copied once).  NULL on -ENOMEM. */
const char *vgl_symbolizer_intern(struct vgl_symbolizer *s, const char *str);

#endif
