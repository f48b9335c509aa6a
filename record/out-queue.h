/*
 * out-queue.h - a bounded queue of whole records between threads that
 * make them and one thread that writes them to a descriptor, so that a
 * reader who does not read (a full pipe) blocks only that thread: the
 * sampler's callback, which runs with the sampler's lock held, never
 * waits for the reader, and the end of a run never waits longer than
 * its caller chooses.
 *
 * Records are written whole, in the order they were queued, one write()
 * loop each.  Droppable records (samples) are refused when the queue holds
 * more than its bound; others (the attach, control, error and end records,
 * few and small) always go in.  Every droppable record is accounted:
 * written whole, or not written (refused, left in the queue at the end,
 * or cut by a write error).
 */
#ifndef VIGIL_OUT_QUEUE_H
#define VIGIL_OUT_QUEUE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

struct out_record;

struct out_queue {
	pthread_mutex_t lock;
	pthread_cond_t more, idle;
	pthread_t thread;
	int fd;
	size_t max_bytes, bytes;
	struct out_record *head, *tail;
	int writing;             /* the thread is in write() */
	int writing_droppable;   /* ... of a droppable record */
	int closing, failed, write_errno;
	uint64_t written, dropped;  /* droppable records */
	void (*on_fail)(void *arg);
	void *arg;
};

/* Starts the writer thread on fd; on_fail(arg) is called (on that thread)
 * once, at the first write error.  Returns 0 or a negative errno. */
int out_queue_start(struct out_queue *q, int fd, size_t max_bytes,
		    void (*on_fail)(void *), void *arg);

/* Queues len bytes of buf (taken over: freed by the queue).  droppable: a
 * record that is counted as not written when the queue is full. */
void out_queue_put(struct out_queue *q, char *buf, size_t len, int droppable);

/* Counts a droppable record that could not be made (no memory). */
void out_queue_drop(struct out_queue *q);

/* The droppable records not written so far. */
uint64_t out_queue_dropped(struct out_queue *q);

/*
 * Waits until every record is written, or until timeout_ns has passed.
 * Returns 0 when all are written (the thread is joined and q released);
 * -ETIMEDOUT when the writer is still blocked: *written and *dropped say
 * what became of the droppable records (a record being written counts as
 * not written), and the queue is left to the process's exit.
 */
int out_queue_finish(struct out_queue *q, uint64_t timeout_ns,
		     uint64_t *written, uint64_t *dropped);

#endif
