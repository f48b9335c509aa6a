/*
 * proc-ended.h - whether a process has ended, all of it: `vigil run`
 * merges a profile as final, and moves it, only once its writer has.
 */
#ifndef VIGIL_PROC_ENDED_H
#define VIGIL_PROC_ENDED_H

#include <sys/types.h>

/*
 * Whether process pid, whose main thread is a zombie, still has other
 * threads: running on after the main thread's pthread_exit, or still
 * being torn down after a fatal signal (SIGKILL ends the main thread
 * first, and a thread waiting for a CPU keeps the process's memory, its
 * profile's mapping with it, until it runs).  1 or 0.
 */
int proc_threads_left(pid_t pid);

/*
 * 1 when process pid has ended: gone, or a zombie (state Z or X) with no
 * thread left; else 0, also while it is still ending.
 */
int proc_ended(pid_t pid);

#endif
