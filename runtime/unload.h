/*
 * unload.h - dlcloses under way (unload.c), as dlclose.c counts them and
 * the hooks ask.  A floor of the runtime.
 */
#ifndef VGL_RT_UNLOAD_H
#define VGL_RT_UNLOAD_H

void unload_begin(void);
void unload_end(void);
int unload_busy(void);
void unload_after_fork_child(void);

#endif
