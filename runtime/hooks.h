/*
 * hooks.h - what of the hooks (hooks.c and its assembly half, fentry.S)
 * the rest of the runtime calls: the checks after a dlclose (dlclose.c).
 * The slow paths that fentry.S calls are declared for hooks.c itself.
 */
#ifndef VGL_RT_HOOKS_H
#define VGL_RT_HOOKS_H

#include <stdint.h>

void hook_slow_enter(uintptr_t fn, uintptr_t site);
/* Called by fentry.S with every argument register saved. */
void hook_slow_fentry(uintptr_t ret, uintptr_t site);
void hook_fentry_early(uintptr_t ret, uintptr_t site);
void hook_fentry_check(uintptr_t ret, uintptr_t site);
void hook_short_stack(void);
void hook_check_unloads(void);
void hook_loader_changed(void);    /* any thread, signal handlers too */

#endif
