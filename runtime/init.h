/*
 * init.h - the runtime's life, as the hooks ask for it (init.c): set up
 * at the first call, a fork child's file taken over, the interval
 * thread started.
 */
#ifndef VGL_RT_INIT_H
#define VGL_RT_INIT_H

int rt_ensure_init(void);            /* called with vgl_rt.lock held */
void rt_start_interval(void);        /* called without it */
void rt_check_fork(void);            /* signals blocked, without the lock */

#endif
