/*
 * interval.h - the window snapshots and their thread (interval.c).
 */
#ifndef VGL_RT_INTERVAL_H
#define VGL_RT_INTERVAL_H

#include "state.h"

int interval_start(struct rt *rt);
void interval_stop_and_flush(struct rt *rt, int status);
int interval_snapshot(struct rt *rt);
void interval_lock(void);
void interval_unlock(void);
void interval_forget(int new_file);
void interval_after_fork(struct rt *rt);

#endif
