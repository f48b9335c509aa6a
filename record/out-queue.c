/*
 * out-queue.c - see out-queue.h.  Bounded by bytes, not records: a
 * sample with stacks of a busy process is a hundred times larger than
 * one without.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "out-queue.h"

struct out_record {
	struct out_record *next;
	char *buf;
	size_t len;
	int droppable;
};

/* Writes all of buf; returns 0 or a negative errno. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static void free_record(struct out_record *r)
{
	free(r->buf);
	free(r);
}

static void *writer(void *arg)
{
	struct out_queue *q = arg;
	struct out_record *r;
	int err, tell;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		while (!q->head && !q->closing)
			pthread_cond_wait(&q->more, &q->lock);
		r = q->head;
		if (!r)
			break;
		q->head = r->next;
		if (!q->head)
			q->tail = NULL;
		q->bytes -= r->len;
		if (q->failed) {
			q->dropped += r->droppable;
			free_record(r);
			continue;
		}
		q->writing = 1;
		q->writing_droppable = r->droppable;
		pthread_mutex_unlock(&q->lock);
		err = write_all(q->fd, r->buf, r->len);
		pthread_mutex_lock(&q->lock);
		q->writing = 0;
		tell = err && !q->failed;
		if (err) {
			q->failed = 1;
			q->write_errno = -err;
			q->dropped += r->droppable;
		} else {
			q->written += r->droppable;
		}
		free_record(r);
		if (tell && q->on_fail) {
			pthread_mutex_unlock(&q->lock);
			q->on_fail(q->arg);
			pthread_mutex_lock(&q->lock);
		}
		if (!q->head)
			pthread_cond_broadcast(&q->idle);
	}
	pthread_cond_broadcast(&q->idle);
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

int out_queue_start(struct out_queue *q, int fd, size_t max_bytes,
		    void (*on_fail)(void *), void *arg)
{
	pthread_condattr_t ca;
	int err;

	*q = (struct out_queue){ .fd = fd, .max_bytes = max_bytes,
				 .on_fail = on_fail, .arg = arg };
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->more, NULL);
	/* The deadline of out_queue_finish is on the monotonic clock. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q->idle, &ca);
	pthread_condattr_destroy(&ca);
	err = pthread_create(&q->thread, NULL, writer, q);
	return -err;
}

void out_queue_put(struct out_queue *q, char *buf, size_t len, int droppable)
{
	struct out_record *r = NULL;

	pthread_mutex_lock(&q->lock);
	if (droppable && (q->failed || q->bytes + len > q->max_bytes))
		goto drop;
	r = malloc(sizeof(*r));
	if (!r)
		goto drop;
	*r = (struct out_record){ NULL, buf, len, droppable };
	if (q->tail)
		q->tail->next = r;
	else
		q->head = r;
	q->tail = r;
	q->bytes += len;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->lock);
	return;
drop:
	q->dropped += droppable;
	pthread_mutex_unlock(&q->lock);
	free(buf);
}

void out_queue_drop(struct out_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->dropped++;
	pthread_mutex_unlock(&q->lock);
}

uint64_t out_queue_dropped(struct out_queue *q)
{
	uint64_t n;

	pthread_mutex_lock(&q->lock);
	n = q->dropped;
	pthread_mutex_unlock(&q->lock);
	return n;
}

int out_queue_finish(struct out_queue *q, uint64_t timeout_ns,
		     uint64_t *written, uint64_t *dropped)
{
	struct out_record *r;
	struct timespec end;
	int late = 0;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)(timeout_ns / 1000000000ull);
	end.tv_nsec += (long)(timeout_ns % 1000000000ull);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&q->lock);
	while ((q->head || q->writing) && !late)
		late = pthread_cond_timedwait(&q->idle, &q->lock, &end) ==
		       ETIMEDOUT;
	if (q->head || q->writing) {
		/* The reader does not read: what is left is not written,
		 * the record in write() included. */
		*written = q->written;
		*dropped = q->dropped + (uint64_t)(q->writing &&
						   q->writing_droppable);
		for (r = q->head; r; r = r->next)
			*dropped += r->droppable;
		pthread_mutex_unlock(&q->lock);
		return -ETIMEDOUT;
	}
	q->closing = 1;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->thread, NULL);
	*written = q->written;
	*dropped = q->dropped;
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->more);
	pthread_cond_destroy(&q->idle);
	return 0;
}
