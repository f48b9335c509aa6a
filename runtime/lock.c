/*
 * lock.c - the runtime's lock, vgl_rt.lock, where it must wait, and as
 * the runtime's files other than the hooks take it (lock.h says what it
 * is).  A floor of the runtime: it calls nothing above it.
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lock.h"
#include "state.h"
#include "thread.h"

void RT lock_wait(int c)
{
	int saved_errno = errno;

	if (c != 2)
		c = __atomic_exchange_n(&vgl_rt.lock, 2, __ATOMIC_ACQUIRE);
	while (c != 0) {
		syscall(SYS_futex, &vgl_rt.lock, FUTEX_WAIT_PRIVATE, 2, NULL,
			NULL, 0);
		c = __atomic_exchange_n(&vgl_rt.lock, 2, __ATOMIC_ACQUIRE);
	}
	errno = saved_errno;
}

/*
 * Takes the runtime's lock outside the slow path (fork, vigil_reset,
 * vigil_set_file, the exit handler), with every signal blocked so that no
 * handler on this thread runs while it is held.
 */
void RT rt_lock(uint64_t *old)
{
	rt_block_signals(old);
	vgl_in_slow = 1;
	lock_take();
}

void RT rt_unlock(const uint64_t *old)
{
	lock_drop();
	vgl_in_slow = 0;
	rt_restore_signals(old);
}
