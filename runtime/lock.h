/*
 * lock.h - the runtime's lock and the blocking of signals around it
 * (lock.c).  A floor of the runtime: it calls nothing above it.  The
 * fast paths of the lock and the signal masks are inline: the hooks'
 * slow path takes them once per new edge, where a call would cost more
 * than they do.
 */
#ifndef VGL_RT_LOCK_H
#define VGL_RT_LOCK_H

#include <linux/futex.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "state.h"

/*
 * The runtime's lock, vgl_rt.lock: 0 free, 1 held, 2 held with a thread
 * waiting in the kernel (the futex mutex of Drepper's "Futexes Are
 * Tricky").  pthread_mutex_lock and _unlock cost 55 instructions per new
 * edge, this 8 when no other thread holds it.  Not recursive, as the
 * mutex it replaces was not: signals are blocked wherever it is held.  A
 * fork child sets it free (thread_after_fork_child).
 */
void lock_wait(int c);

static inline void RT lock_take(void)
{
	int c = 0;

	if (!__atomic_compare_exchange_n(&vgl_rt.lock, &c, 1, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		lock_wait(c);
}

static inline void RT lock_drop(void)
{
	if (__atomic_exchange_n(&vgl_rt.lock, 0, __ATOMIC_RELEASE) == 2) {
		int saved_errno = errno;

		syscall(SYS_futex, &vgl_rt.lock, FUTEX_WAKE_PRIVATE, 1, NULL,
			NULL, 0);
		errno = saved_errno;
	}
}

/* Blocks every signal; returns the mask to restore, in the kernel's
 * form.  Raw system calls: glibc's wrappers keep its own internal signals
 * unblocked, and those are never sent to a thread inside the runtime. */
static inline void RT rt_block_signals(uint64_t *old)
{
	uint64_t all = ~0ull;

	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, old, sizeof(all));
}

static inline void RT rt_restore_signals(const uint64_t *old)
{
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, old, NULL, sizeof(*old));
}

/* Takes the lock with every signal blocked, and gives both back. */
void rt_lock(uint64_t *old);
void rt_unlock(const uint64_t *old);

#endif
