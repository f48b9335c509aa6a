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

/* Prepares to name addresses of pid's mappings (read from /proc/PID/maps
 * at the first name or sampler_symbols_ready, and again when an address
 * falls outside them, e.g. after dlopen or exec).  Returns NULL when out
 * of memory. */
struct sampler_symbols *sampler_symbols_open(pid_t pid);

/* Reads the maps now if they are not read yet: at the first sample, so
 * that addresses taken before an exec can be named after it. */
void sampler_symbols_ready(struct sampler_symbols *sy);

/* The process has exec'd since: sy names the old image's addresses only,
 * and never reads the (new) maps again. */
void sampler_symbols_hold(struct sampler_symbols *sy);

/* Reads the maps again now (new code was mapped), unless held or never
 * read yet; what was read before stands if they cannot be read. */
void sampler_symbols_refresh(struct sampler_symbols *sy);

/*
 * Writes the name of the function containing addr into buf: "name",
 * "module+0xOFF" when the module has no symbol there, "0xADDR" when no
 * module maps it.  caller is nonzero for a return address (looked up at
 * addr - 1, inside the call instruction).  Returns buf.
 */
const char *sampler_symbols_name(struct sampler_symbols *sy, uint64_t addr,
				 int caller, char *buf, size_t len);

/*
 * The functions inlined where addr is (caller as for sampler_symbols_name),
 * from the module's DWARF inline scopes: names[0] the innermost, the last
 * the one inlined straight into the function sampler_symbols_name names.
 * Plain names, valid until the next call of either function.  Returns
 * how many, at most max (0: no inlined copy there, or no DWARF).
 */
size_t sampler_symbols_inlined(struct sampler_symbols *sy, uint64_t addr,
			       int caller, const char **names, size_t max);

void sampler_symbols_close(struct sampler_symbols *sy);

#endif
