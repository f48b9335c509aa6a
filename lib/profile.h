/*
 * profile.h - the one model of a profile that every reader builds on:
 * functions, the edges between them with their call sites, per-thread and
 * total counts, and the module list (through the symbolizer).
 *
 * A function is identified by its module and the ELF address of its first
 * byte, never by its name: two `static helper` of two files are two
 * functions.  Where names clash, a function's label adds the file it is
 * defined in (or its module, and its address when those are the same),
 * so people can tell them apart too.
 *
 * Built in O(n log n) for n edges: every address is symbolized once by
 * binary search, and everything a report walks (the calls into a
 * function, the callees of a function) is laid out once as index lists,
 * so no report rescans the edges per function.
 */
#ifndef VGL_PROFILE_H
#define VGL_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "symbolizer.h"
#include "vgl_reader.h"

#define VGL_PROFILE_NO_MODULE UINT32_MAX
#define VGL_PROFILE_NONE UINT32_MAX     /* no function */

struct vgl_pfunc {
	uint32_t module;        /* symbolizer module index, or
	                         * VGL_PROFILE_NO_MODULE */
	int known;              /* a function symbol names it */
	uint64_t addr;          /* ELF address of its first byte (of the
	                         * address itself when no symbol covers it;
	                         * the runtime address when no module does) */
	uint64_t size;          /* bytes, 0 when unknown */
	const char *name;       /* demangled name, "module+0xOFF" or "0xADDR" */
	const char *label;      /* name, or "name (file)" / "name (module)"
	                         * when another function has the same name,
	                         * "name (file, module+0xaddr)" / "name
	                         * (module+0xaddr)" when that is the same too */
	const char *module_name;   /* base name, or NULL */
	const char *file;       /* source file of its first byte, or NULL */
	int line;
	uint64_t calls;         /* calls into it, saturating */
	uint64_t inlined_calls; /* of those, the calls counted in inlined
	                         * copies of it (GCC and Clang instrument
	                         * those too): calls - inlined_calls are
	                         * real calls of the function */
	uint32_t inlined_hosts; /* the functions those copies were in */
	int inlined_copy;       /* sampled model only: the frames of code
	                         * inlined into other functions, "NAME
	                         * (inlined)" (DWARF); each copy's host is
	                         * the next frame out that is not one.  Its
	                         * file is the one declaring it, else its
	                         * host's; no line */
};

/* One edge of the file: callee entered from one return address. */
struct vgl_pedge {
	uint32_t caller;        /* function indexes */
	uint32_t callee;
	uint32_t site_mod;      /* symbolizer module index, or NO_MODULE */
	uint64_t site;          /* return address (ELF address in site_mod) */
	const char *site_file;  /* of the call (site - 1), or NULL */
	int site_line;
	uint64_t calls;
	uint32_t inlined_in;    /* the callee ran as an inlined copy in this
	                         * function (see callsite.h), or
	                         * VGL_PROFILE_NONE for a real call */
	const struct vgl_edge_info *raw;  /* per-thread counts, in the reader */
};

/* Edges of one caller, callee, call-site line and host, added up. */
struct vgl_pcall {
	uint32_t caller;
	uint32_t callee;
	const char *site_file;  /* NULL when the line is unknown */
	int site_line;
	uint32_t inlined_in;    /* as in vgl_pedge */
	uint64_t calls;
};

/* One callee of a function (as a real call, or inlined in one host), all
 * its call sites added up. */
struct vgl_pcallee {
	uint32_t callee;
	uint32_t inlined_in;
	uint64_t calls;
};

struct vgl_pthread {
	uint32_t tid;
	uint64_t calls;
};

struct vgl_profile {
	const struct vgl_reader *r;
	struct vgl_symbolizer *sym;       /* borrowed */

	struct vgl_pfunc *funcs;          /* most called first, then by label */
	size_t nfuncs;
	size_t ncalled;                   /* funcs[0 .. ncalled) have calls */
	struct vgl_pedge *edges;          /* in the reader's order */
	size_t nedges;
	struct vgl_pcall *calls;          /* most counted first */
	size_t ncalls;
	/* The calls into funcs[f]: calls[into[into_first[f] .. into_first[f+1])],
	 * most counted first. */
	size_t *into, *into_first;
	/* The callees of funcs[f]: callees[callees_first[f] ..
	 * callees_first[f+1]), in the order of their largest call row. */
	struct vgl_pcallee *callees;
	size_t *callees_first;
	size_t ncallees;
	struct vgl_pthread *threads;      /* by tid */
	size_t nthreads;
	uint64_t total_calls;

	char **owned;                     /* names we made, freed at release */
	size_t nowned;
};

/*
 * Builds the model of r, symbolized by sym (made from r's modules with
 * vgl_symbolizer_from_reader, so module ids map to indexes in r's order).
 * Both must outlive p.  Returns 0 or -ENOMEM; on failure p holds nothing
 * to release (vgl_profile_release is still harmless).
 */
int vgl_profile_build(struct vgl_profile *p, const struct vgl_reader *r,
		      struct vgl_symbolizer *sym);

void vgl_profile_release(struct vgl_profile *p);

/*
 * Indexes of p's edges in the order of their call sites (module, then
 * address): the order in which vgl_callsite_find decodes each function
 * once.  NULL for no memory; the caller frees it.
 */
size_t *vgl_profile_site_order(const struct vgl_profile *p);

/* The symbolizer index of r's module id, or VGL_PROFILE_NO_MODULE. */
uint32_t vgl_profile_module_index(const struct vgl_reader *r, uint32_t id);

/* Every call of fn was counted in an inlined copy of it (report's text
 * and JSON both say so). */
static inline int vgl_pfunc_inlined_only(const struct vgl_pfunc *fn)
{
	return fn->calls && fn->inlined_calls >= fn->calls;
}

#endif
