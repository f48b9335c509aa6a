/*
 * unload.c - dlcloses under way, for the hooks' checks (dlclose.c calls
 * unload_begin and unload_end around the loader's dlclose).
 *
 * From unload_begin until unload_end, both hooks go through their check
 * stubs (dlclose.c points them there, with hook_loader_changed, after
 * unload_begin and again before unload_end): each call of each thread
 * looks at the loader's list of objects first, and drops the edges of the
 * objects it finds unloaded; and no check points the hooks back at their
 * fast paths while unload_busy says a dlclose is under way, since the
 * object may be unmapped after its look.  Only counters change here,
 * atomically, without a lock: safe in a signal handler and in any
 * thread.  A floor of the runtime: it calls nothing, so that the hooks
 * above it may ask it and a fork child's thread states (thread.c) may
 * set it anew.
 */
#include "state.h"
#include "unload.h"

/* dlcloses under way, in the process and in this thread (a fork child
 * has only the forking thread's). */
static int busy;
static __thread int busy_here;

void RT unload_begin(void)
{
	busy_here++;
	__atomic_add_fetch(&busy, 1, __ATOMIC_SEQ_CST);
}

void RT unload_end(void)
{
	__atomic_sub_fetch(&busy, 1, __ATOMIC_SEQ_CST);
	busy_here--;
}

int RT unload_busy(void)
{
	return __atomic_load_n(&busy, __ATOMIC_SEQ_CST) > 0;
}

/* In a fork child: only this thread's dlcloses can still return. */
void RT unload_after_fork_child(void)
{
	__atomic_store_n(&busy, busy_here, __ATOMIC_SEQ_CST);
}
