/*
 * module.h - the map of loaded objects (module.c) and the executable's
 * path.
 */
#ifndef VGL_RT_MODULE_H
#define VGL_RT_MODULE_H

#include <stdint.h>

#include "state.h"

/* Fills vgl_rt.exe, once; without vgl_rt.lock. */
void module_find_exe(void);

/* The module ids of a new edge, found before the lock and checked under
 * it. */
struct module_ids {
	uint64_t stamp;          /* the table's changes when they were found */
	uint32_t fn, site;
};
/* Without vgl_rt.lock; ids NULL: only the loader's unload counter. */
void module_prepare(uintptr_t fn, uintptr_t site, struct module_ids *ids);
int module_dead(uint32_t id);
uint64_t module_deaths(void);
unsigned long long module_subs(void);       /* without vgl_rt.lock */
unsigned long long module_seen_subs(void);
void module_ids(struct rt *rt, uintptr_t fn, uintptr_t site,
		struct module_ids *ids);              /* with it */

#endif
