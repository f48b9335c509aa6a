/*
 * symbols.h - function names for the addresses of a live process's stack
 * samples.  One small interface, so that the symbolizer behind it can be
 * swapped for the profile readers' one without touching its users.
 */
#ifndef VIGIL_SAMPLER_SYMBOLS_H
#define VIGIL_SAMPLER_SYMBOLS_H

#include <stdint.h>
#include <sys/types.h>

struct sampler_symbols;

struct proc_image;

/* Prepares to name addresses of img's process (image.h: where its modules
 * are mapped, read again when an address falls outside them, after a
 * dlopen or an exec).  Returns NULL when out of memory. */
struct sampler_symbols *sampler_symbols_open(struct proc_image *img);

/*
 * Writes the name of the function containing addr into buf: "name",
 * "module+0xOFF" when the module has no symbol there, "0xADDR" when no
 * module maps it.  caller is nonzero for a return address (looked up at
 * addr - 1, inside the call instruction); old for an address of the
 * image before the latest exec (a stack taken before it).  Returns buf.
 */
const char *sampler_symbols_name(struct sampler_symbols *sy, uint64_t addr,
				 int caller, int old, char *buf, size_t len);

/*
 * The functions inlined where addr is (caller and old as for
 * sampler_symbols_name),
 * from the module's DWARF inline scopes: names[0] the innermost, the last
 * the one inlined straight into the function sampler_symbols_name names.
 * Plain names, valid until the next call of either function.  Returns
 * how many, at most max (0: no inlined copy there, or no DWARF).
 */
size_t sampler_symbols_inlined(struct sampler_symbols *sy, uint64_t addr,
			       int caller, int old, const char **names,
			       size_t max);

void sampler_symbols_close(struct sampler_symbols *sy);

#endif
