/*
 * report-sampled.c - see report-sampled.h.
 *
 * Everything is computed from the reader's copies in one pass over the
 * samples (threads, memory) and one over the stacks (functions).  A
 * function is its module and the ELF address of its first byte, as in the
 * profile model; functions are found by binary search in a table sorted
 * once, so the cost is O(frames log functions).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "report-sampled.h"

#define TOP_DEFAULT 20

struct sthread {
	uint32_t tid;
	const char *name;          /* the last name it had */
	int from_start;            /* seen in the first sample */
	uint64_t first_run_ns, first_user_us, first_sys_us;
	uint64_t run_ns, user_us, sys_us;   /* over the run */
};

struct sfunc {
	uint32_t module;           /* symbolizer index or NO_MODULE */
	uint64_t addr;             /* ELF address of its start (runtime
	                            * address when no module) */
	const char *name;
	char *owned;               /* name made here */
	uint64_t self, total;
	size_t last_stack;         /* stack that last counted total */
};

struct summary {
	struct sthread *t;
	size_t nt;
	uint64_t duration_ns;
	size_t nmem;
	uint64_t min[4], max[4], last[4];
	struct sfunc *f;
	size_t nf;
};

static const char *const mem_names[4] = {
	"rss", "anon", "file", "swap",
};

static int cmp_thread(const void *a, const void *b)
{
	const struct sthread *x = a, *y = b;

	if (x->run_ns != y->run_ns)
		return x->run_ns < y->run_ns ? 1 : -1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_func_key(const void *a, const void *b)
{
	const struct sfunc *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

static int cmp_func_self(const void *a, const void *b)
{
	const struct sfunc *x = a, *y = b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void threads_of(const struct vgl_reader *r, struct summary *s)
{
	size_t i, k, n;

	s->t = calloc(r->nsample_threads + 1, sizeof(*s->t));
	if (!s->t)
		return;
	for (i = 0; i < r->nsamples; i++) {
		const struct vgl_sample *smp = &r->samples[i];

		for (n = 0; n < smp->nthreads; n++) {
			const struct vgl_sample_thread *th =
				&r->sample_threads[r->sample_first[i] + n];
			struct sthread *t = NULL;

			for (k = 0; k < s->nt; k++)
				if (s->t[k].tid == th->tid)
					t = &s->t[k];
			if (!t) {
				t = &s->t[s->nt++];
				t->tid = th->tid;
				/* A thread there at the first sample ran before
				 * the run; count only what it ran since. */
				t->from_start = i == 0;
				if (t->from_start) {
					t->first_run_ns = th->run_ns;
					t->first_user_us = th->user_us;
					t->first_sys_us = th->sys_us;
				}
			}
			t->name = th->name;
			t->run_ns = th->run_ns - (th->run_ns >= t->first_run_ns ?
						   t->first_run_ns : th->run_ns);
			t->user_us = th->user_us - (th->user_us >= t->first_user_us ?
						     t->first_user_us : th->user_us);
			t->sys_us = th->sys_us - (th->sys_us >= t->first_sys_us ?
						   t->first_sys_us : th->sys_us);
		}
	}
	qsort(s->t, s->nt, sizeof(*s->t), cmp_thread);
}

static void memory_of(const struct vgl_reader *r, struct summary *s)
{
	size_t i, k;

	for (i = 0; i < r->nsamples; i++) {
		const struct vgl_sample *smp = &r->samples[i];
		uint64_t v[4] = { smp->rss_bytes, smp->anon_bytes,
				  smp->file_bytes, smp->swap_bytes };

		if (!(smp->scan & VGL_SAMPLE_MEMORY))
			continue;
		for (k = 0; k < 4; k++) {
			if (!s->nmem || v[k] < s->min[k])
				s->min[k] = v[k];
			if (!s->nmem || v[k] > s->max[k])
				s->max[k] = v[k];
			s->last[k] = v[k];
		}
		s->nmem++;
	}
}

/* The function of one frame, as a key (module, address) and a name. */
static struct sfunc func_of(const struct vgl_reader *r,
			    struct vgl_symbolizer *sym,
			    const struct vgl_frame *fr, int caller)
{
	uint64_t look = caller && fr->addr ? fr->addr - 1 : fr->addr;
	struct sfunc f = { .module = VGL_PROFILE_NO_MODULE, .addr = look };
	struct vgl_func_sym *fs;
	char buf[64];

	if (fr->module != VGL_NO_MODULE)
		f.module = vgl_profile_module_index(r, fr->module);
	if (f.module == VGL_PROFILE_NO_MODULE) {
		snprintf(buf, sizeof(buf), "0x%" PRIx64, fr->addr);
		f.owned = strdup(buf);
		f.name = f.owned;
		return f;
	}
	fs = vgl_symbolizer_func(sym, f.module, look);
	if (fs) {
		f.addr = fs->start;
		f.name = vgl_func_sym_name(fs);
		return f;
	}
	/* No symbol: one entry per address, named module+offset. */
	f.addr = look - vgl_symbolizer_module_bias(sym, f.module);
	if (asprintf(&f.owned, "%s+0x%" PRIx64,
		     vgl_symbolizer_module_name(sym, f.module), f.addr) < 0)
		f.owned = NULL;
	f.name = f.owned;
	return f;
}

/*
 * Self and total samples per function.  Frames are named once per stack;
 * the functions found are kept sorted by key, so each later frame costs a
 * binary search (an insertion only for a new function).
 */
static void functions_of(const struct vgl_reader *r,
			 struct vgl_symbolizer *sym, struct summary *s)
{
	size_t cap = 0, i, j;

	for (i = 0; i < r->nstacks; i++) {
		const struct vgl_stack_info *st = &r->stacks[i];

		for (j = 0; j < st->nframes; j++) {
			struct sfunc key = func_of(r, sym,
						   &r->frames[st->first_frame + j],
						   j > 0);
			struct sfunc *f;
			size_t lo = 0, hi = s->nf;

			if (!key.name)
				continue;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				int c = cmp_func_key(&key, &s->f[mid]);

				if (!c) {
					lo = hi = mid;
					break;
				}
				if (c < 0)
					hi = mid;
				else
					lo = mid + 1;
			}
			if (lo < s->nf && !cmp_func_key(&key, &s->f[lo])) {
				free(key.owned);
			} else {
				if (s->nf == cap) {
					size_t c2 = cap ? cap * 2 : 64;
					struct sfunc *p = realloc(s->f, c2 * sizeof(*p));

					if (!p) {
						free(key.owned);
						continue;
					}
					s->f = p;
					cap = c2;
				}
				memmove(&s->f[lo + 1], &s->f[lo],
					(s->nf - lo) * sizeof(*s->f));
				key.last_stack = SIZE_MAX;
				s->f[lo] = key;
				s->nf++;
			}
			f = &s->f[lo];
			if (j == 0)
				f->self += st->count;
			/* A recursive function counts once per stack. */
			if (f->last_stack != i) {
				f->total += st->count;
				f->last_stack = i;
			}
		}
	}
	if (s->nf)
		qsort(s->f, s->nf, sizeof(*s->f), cmp_func_self);
}

static void summarize(const struct vgl_reader *r, struct vgl_symbolizer *sym,
		      struct summary *s)
{
	memset(s, 0, sizeof(*s));
	if (r->nsamples > 1)
		s->duration_ns = r->samples[r->nsamples - 1].elapsed_ns -
				 r->samples[0].elapsed_ns;
	threads_of(r, s);
	memory_of(r, s);
	functions_of(r, sym, s);
}

static void release(struct summary *s)
{
	size_t i;

	for (i = 0; i < s->nf; i++)
		free(s->f[i].owned);
	free(s->f);
	free(s->t);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void report_sampled_text(const struct vgl_reader *r, struct vgl_symbolizer *sym,
			 size_t top)
{
	struct summary s;
	size_t i, k;
	uint64_t total = r->stacks_head.samples;

	summarize(r, sym, &s);
	if (!top)
		top = TOP_DEFAULT;
	printf("samples: %zu over %.3fs\n", r->nsamples,
	       (double)s.duration_ns / 1e9);

	printf("\nThreads (CPU over the run, most first):\n\n");
	printf("%8s  %-16s %10s %7s %10s %10s\n", "tid", "name", "cpu_ms",
	       "%cpu", "user_ms", "sys_ms");
	for (i = 0; i < s.nt; i++)
		printf("%8u  %-16s %10.1f %6.1f%% %10.1f %10.1f\n", s.t[i].tid,
		       s.t[i].name, (double)s.t[i].run_ns / 1e6,
		       pct(s.t[i].run_ns, s.duration_ns),
		       (double)s.t[i].user_us / 1e3,
		       (double)s.t[i].sys_us / 1e3);

	printf("\nMemory over the run (KiB, %zu samples):\n\n", s.nmem);
	if (s.nmem) {
		printf("%-6s %12s %12s %12s\n", "", "min", "max", "last");
		for (k = 0; k < 4; k++)
			printf("%-6s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n",
			       mem_names[k], s.min[k] / 1024, s.max[k] / 1024,
			       s.last[k] / 1024);
	}

	printf("\nTop functions by self samples (%" PRIu64 " stack samples, %"
	       PRIu64 " lost):\n\n", total, r->stacks_head.lost);
	printf("%10s %7s %10s %7s  %s\n", "self", "%", "total", "%", "function");
	for (i = 0; i < s.nf && i < top; i++)
		printf("%10" PRIu64 " %6.2f%% %10" PRIu64 " %6.2f%%  %s\n",
		       s.f[i].self, pct(s.f[i].self, total), s.f[i].total,
		       pct(s.f[i].total, total), s.f[i].name);
	if (s.nf > top)
		printf("\nfolded away: %zu of %zu functions\n", s.nf - top, s.nf);
	release(&s);
}

void report_sampled_json(struct vgl_json *j, const struct vgl_reader *r,
			 struct vgl_symbolizer *sym)
{
	static const char *const keys[4] = {
		"rss_bytes", "anon_bytes", "file_bytes", "swap_bytes",
	};
	struct summary s;
	size_t i, k;

	summarize(r, sym, &s);
	vgl_json_begin_object(j, "sampled");
	vgl_json_u64(j, "samples", r->nsamples);
	vgl_json_u64(j, "duration_ns", s.duration_ns);
	vgl_json_begin_array(j, "threads");
	for (i = 0; i < s.nt; i++) {
		vgl_json_begin_object(j, NULL);
		vgl_json_u64(j, "tid", s.t[i].tid);
		vgl_json_str(j, "name", s.t[i].name);
		vgl_json_u64(j, "cpu_run_ns", s.t[i].run_ns);
		vgl_json_u64(j, "cpu_user_us", s.t[i].user_us);
		vgl_json_u64(j, "cpu_sys_us", s.t[i].sys_us);
		vgl_json_end_object(j);
	}
	vgl_json_end_array(j);
	if (s.nmem) {
		vgl_json_begin_object(j, "memory");
		vgl_json_u64(j, "samples", s.nmem);
		for (k = 0; k < 4; k++) {
			vgl_json_begin_object(j, keys[k]);
			vgl_json_u64(j, "min", s.min[k]);
			vgl_json_u64(j, "max", s.max[k]);
			vgl_json_u64(j, "last", s.last[k]);
			vgl_json_end_object(j);
		}
		vgl_json_end_object(j);
	} else {
		vgl_json_null(j, "memory");
	}
	vgl_json_u64(j, "stack_samples", r->stacks_head.samples);
	vgl_json_u64(j, "stack_lost", r->stacks_head.lost);
	vgl_json_u64(j, "frequency_hz", r->stacks_head.frequency);
	vgl_json_begin_array(j, "functions");
	for (i = 0; i < s.nf; i++) {
		vgl_json_begin_object(j, NULL);
		vgl_json_str(j, "name", s.f[i].name);
		if (s.f[i].module != VGL_PROFILE_NO_MODULE) {
			vgl_json_str(j, "module",
				     vgl_symbolizer_module_name(sym, s.f[i].module));
		} else {
			vgl_json_null(j, "module");
		}
		vgl_json_hex(j, "address", s.f[i].addr);
		vgl_json_u64(j, "self_samples", s.f[i].self);
		vgl_json_u64(j, "total_samples", s.f[i].total);
		vgl_json_end_object(j);
	}
	vgl_json_end_array(j);
	vgl_json_end_object(j);
	release(&s);
}
