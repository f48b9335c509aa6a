/*
 * tree-sampler.c - one sampler per process of a tree, all writing one
 * JSON-lines file (see tree-sampler.h).
 *
 * The caller finds the processes (cmd-run.c looks every 20 ms while it
 * samples), so a process that lives shorter than that may be missed:
 * sampling is for what runs long enough to matter.  Samplers call back on
 * their own threads; one mutex keeps their lines whole.  A sampler whose
 * process ended is released on the next update, from the caller's thread
 * (sampler_stop() may not be called from the callback).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "sampler.h"
#include "tree-sampler.h"

struct member {
	pid_t pid;
	struct sampler *s;
	int ended;              /* set by the callback, under the mutex */
	struct tree_sampler *t;
};

struct tree_sampler {
	FILE *f;
	pthread_mutex_t lock;
	unsigned scan, frequency;
	uint64_t interval_ns;
	struct member **m;
	size_t n;
	size_t processes;
	uint64_t samples;
	int warned;             /* said once why a process cannot be sampled */
};

int tree_sampler_start(struct tree_sampler **out, const char *path,
		       unsigned scan, unsigned frequency, uint64_t interval_ns,
		       char *err, size_t errlen)
{
	struct tree_sampler *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	t->f = fopen(path, "we");
	if (!t->f) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", path, strerror(e));
		free(t);
		return -e;
	}
	pthread_mutex_init(&t->lock, NULL);
	t->scan = scan;
	t->frequency = frequency;
	t->interval_ns = interval_ns;
	*out = t;
	return 0;
}

/* One line per sample: the process, then what its scans filled, with the
 * names `vigil attach --format jsonl` uses for the same fields. */
static void write_sample(FILE *f, pid_t pid, const struct sampler_sample *s)
{
	size_t i;

	fprintf(f, "{\"type\":\"sample\",\"pid\":%d,\"seq\":%" PRIu64
		",\"time_ns\":%" PRIu64 ",\"state\":\"%c\",\"exe\":",
		(int)pid, s->seq, s->time_ns, s->state ? s->state : '?');
	vgl_json_string(f, s->exe);
	if (s->scan & SAMPLER_SCAN_CPU)
		fprintf(f, ",\"cpu_user_us\":%" PRIu64 ",\"cpu_sys_us\":%" PRIu64
			",\"cpu_user_delta_us\":%" PRIu64
			",\"cpu_sys_delta_us\":%" PRIu64,
			s->cpu_user_us, s->cpu_sys_us, s->cpu_user_delta_us,
			s->cpu_sys_delta_us);
	if (s->scan & SAMPLER_SCAN_MEMORY)
		fprintf(f, ",\"rss_bytes\":%" PRIu64 ",\"vsize_bytes\":%" PRIu64,
			s->rss_bytes, s->vsize_bytes);
	if (s->scan & SAMPLER_SCAN_HOST_MEMORY)
		fprintf(f, ",\"host_mem_available_bytes\":%" PRIu64,
			s->host_mem_available_bytes);
	if ((s->scan & SAMPLER_SCAN_IO) && s->io_ok)
		fprintf(f, ",\"io_read_bytes\":%" PRIu64
			",\"io_write_bytes\":%" PRIu64, s->io_read_bytes,
			s->io_write_bytes);
	if (s->scan & SAMPLER_SCAN_THREADS) {
		fputs(",\"threads\":[", f);
		for (i = 0; i < s->nthreads; i++) {
			fprintf(f, "%s{\"tid\":%d,\"name\":", i ? "," : "",
				(int)s->threads[i].tid);
			vgl_json_string(f, s->threads[i].name);
			fputc('}', f);
		}
		fputc(']', f);
	}
	if (s->scan & SAMPLER_SCAN_STACKS)
		fprintf(f, ",\"frequency_hz\":%u,\"stack_samples\":%" PRIu64
			",\"stack_lost\":%" PRIu64, s->frequency,
			s->stack_samples, s->stack_lost);
	if (s->scan & SAMPLER_SCAN_COUNTS)
		fprintf(f, ",\"calls_total\":%" PRIu64 ",\"calls_delta\":%"
			PRIu64, s->calls_total, s->calls_delta);
	fputs("}\n", f);
}

static void on_sample(const struct sampler_sample *s, void *arg)
{
	struct member *m = arg;
	struct tree_sampler *t = m->t;

	pthread_mutex_lock(&t->lock);
	if (s->kind == SAMPLER_SAMPLE) {
		write_sample(t->f, m->pid, s);
		t->samples++;
	} else if (s->kind == SAMPLER_ENDED) {
		fprintf(t->f, "{\"type\":\"ended\",\"pid\":%d", (int)m->pid);
		if (s->exit_known)
			fprintf(t->f, ",\"wait_status\":%d", s->exit_status);
		fputs("}\n", t->f);
		m->ended = 1;
	}
	pthread_mutex_unlock(&t->lock);
}

void tree_sampler_update(struct tree_sampler *t, const pid_t *pids,
			 size_t n)
{
	struct sampler_config cfg;
	struct member **grown;
	char err[SAMPLER_ERR_LEN];
	size_t i, k;
	int ended, e;

	/* Release the ended ones: their pid may come back as a new process. */
	for (i = k = 0; i < t->n; i++) {
		pthread_mutex_lock(&t->lock);
		ended = t->m[i]->ended;
		pthread_mutex_unlock(&t->lock);
		if (ended) {
			sampler_stop(t->m[i]->s);
			free(t->m[i]);
		} else {
			t->m[k++] = t->m[i];
		}
	}
	t->n = k;
	for (i = 0; i < n; i++) {
		struct member *m;

		for (k = 0; k < t->n && t->m[k]->pid != pids[i]; k++)
			;
		if (k < t->n)
			continue;
		m = calloc(1, sizeof(*m));
		grown = realloc(t->m, (t->n + 1) * sizeof(*grown));
		if (!m || !grown) {
			free(m);
			if (grown)
				t->m = grown;
			return;
		}
		t->m = grown;
		m->pid = pids[i];
		m->t = t;
		memset(&cfg, 0, sizeof(cfg));
		cfg.pid = pids[i];
		cfg.interval_ns = t->interval_ns;
		cfg.scan = t->scan;
		cfg.frequency = t->frequency;
		cfg.fn = on_sample;
		cfg.arg = m;
		if ((e = sampler_start(&m->s, &cfg, err, sizeof(err)))) {
			/* Gone already is normal; anything else (not ours to
			 * read, perf refused) would silently empty the file
			 * if no one said it. */
			if (e != -ESRCH && !t->warned) {
				fprintf(stderr, "vigil: warning: cannot sample "
					"process %d: %s\n", (int)pids[i], err);
				t->warned = 1;
			}
			free(m);
			continue;
		}
		t->m[t->n++] = m;
		t->processes++;
	}
}

int tree_sampler_stop(struct tree_sampler *t, size_t *processes,
		      uint64_t *samples)
{
	size_t i;
	int err = 0;

	for (i = 0; i < t->n; i++) {
		sampler_stop(t->m[i]->s);
		free(t->m[i]);
	}
	free(t->m);
	if (ferror(t->f) | fclose(t->f))
		err = -EIO;
	pthread_mutex_destroy(&t->lock);
	*processes = t->processes;
	*samples = t->samples;
	free(t);
	return err;
}
