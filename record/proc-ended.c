/*
 * proc-ended.c - see proc-ended.h.
 *
 * /proc/PID/stat gives the state of the main thread only.  It reads 'Z'
 * as soon as the main thread has exited, which after pthread_exit may be
 * long before the process ends, and after SIGKILL is before the other
 * threads have released the process's memory: measured here, on a loaded
 * 2-core machine with two CPU hogs, the main thread of a SIGKILLed
 * process was a zombie for 0.85 s while its other thread (at nice 19)
 * still mapped the profile.  The kernel removes a thread other than the
 * main one from /proc/PID/task only after it has let go of the memory,
 * and reports the main thread to the parent (and lets it be reaped) only
 * when no other is left, so "a zombie whose task directory holds no other
 * thread" is a process that is gone but for its exit status.
 */
#include <dirent.h>
#include <stdlib.h>

#include "proc-ended.h"
#include "procid.h"

int proc_threads_left(pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int left = 0;

	vgl_proc_path(path, (uint64_t)pid, "task");
	dir = opendir(path);
	if (!dir)
		return 0;   /* gone meanwhile */
	while (!left && (d = readdir(dir)))
		if (d->d_name[0] >= '0' && d->d_name[0] <= '9' &&
		    atoi(d->d_name) != (int)pid)
			left = 1;
	closedir(dir);
	return left;
}

int proc_ended(pid_t pid)
{
	uint64_t start;
	char state;

	if (vgl_proc_stat((uint64_t)pid, &start, &state))
		return 1;   /* gone (or not ours to read: nothing to wait for) */
	return (state == 'Z' || state == 'X') && !proc_threads_left(pid);
}
