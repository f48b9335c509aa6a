/*
 * report-sampled.c - see report-sampled.h.
 *
 * Everything is computed from the reader's copies in one pass over the
 * samples (threads, memory); the functions with their self and total
 * samples come from the model of the stacks (lib/sprofile.h), which the
 * converters read too.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "report-sampled.h"
#include "sprofile.h"
#include "text.h"
#include "profile-head.h"

#define TOP_DEFAULT 20

struct sthread {
	uint32_t tid;
	const char *name;          /* the last name it had */
	int seen;                  /* a record of it was read */
	int from_start;            /* seen in the first sample */
	uint64_t first_run_ns, first_user_us, first_sys_us;
	uint64_t run_ns, user_us, sys_us;   /* over the run */
};


struct summary {
	struct sthread *t;
	size_t nt;
	uint64_t duration_ns;
	size_t nmem;
	uint64_t min[4], max[4], last[4];
	struct vgl_sprofile sp;     /* the functions */
	/* The threads that ended unseen, or ran on after their last
	 * sample: the process's CPU over the run minus the threads'. */
	int has_ended;
	uint64_t ended_user_us, ended_sys_us;
};

/* A merge of sampled files: their stacks, none of their readings (each
 * process's time series stays in its own file). */
static int not_kept(const struct vgl_reader *r)
{
	return r->has_processes && r->processes && !r->nsamples;
}

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

/* The "ended threads" row, from the first and last samples that have
 * both the process's CPU and the threads. */
static void ended_of(const struct vgl_reader *r, struct summary *s)
{
	const unsigned both = VGL_SAMPLE_CPU | VGL_SAMPLE_THREADS;
	const struct vgl_sample *first = NULL, *last = NULL;
	uint64_t user = 0, sys = 0, pu, ps;
	size_t i;

	for (i = 0; i < r->nsamples; i++)
		if ((r->samples[i].scan & both) == both) {
			if (!first)
				first = &r->samples[i];
			last = &r->samples[i];
		}
	if (!first)
		return;
	for (i = 0; i < s->nt; i++) {
		user += s->t[i].user_us;
		sys += s->t[i].sys_us;
	}
	pu = last->cpu_user_us >= first->cpu_user_us ?
	     last->cpu_user_us - first->cpu_user_us : 0;
	ps = last->cpu_sys_us >= first->cpu_sys_us ?
	     last->cpu_sys_us - first->cpu_sys_us : 0;
	s->has_ended = 1;
	s->ended_user_us = pu > user ? pu - user : 0;
	s->ended_sys_us = ps > sys ? ps - sys : 0;
}

/* One pass over the thread records: the reader gives each record its
 * thread's place in sample_tids, which is its row here. */
static void threads_of(const struct vgl_reader *r, struct summary *s)
{
	size_t i, n;

	s->t = calloc(r->nsample_tids + 1, sizeof(*s->t));
	if (!s->t)
		return;
	s->nt = r->nsample_tids;
	for (i = 0; i < r->nsamples; i++) {
		const struct vgl_sample *smp = &r->samples[i];

		for (n = 0; n < smp->nthreads; n++) {
			size_t rec = r->sample_first[i] + n;
			const struct vgl_sample_thread *th =
				&r->sample_threads[rec];
			struct sthread *t = &s->t[r->sample_tid_index[rec]];

			if (!t->seen) {
				t->seen = 1;
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
	ended_of(r, s);
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

static void summarize(const struct vgl_reader *r, struct vgl_symbolizer *sym,
		      struct summary *s)
{
	memset(s, 0, sizeof(*s));
	if (r->nsamples > 1)
		s->duration_ns = r->samples[r->nsamples - 1].elapsed_ns -
				 r->samples[0].elapsed_ns;
	threads_of(r, s);
	memory_of(r, s);
	/* On -ENOMEM the table is empty; the other tables still print. */
	vgl_sprofile_build(&s->sp, r, sym);
}

static void release(struct summary *s)
{
	vgl_sprofile_release(&s->sp);
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
	if (not_kept(r))
		/* A merge keeps the processes' stacks, not their sample
		 * records (one process's time series each): "0 over
		 * 0.000s" read as if nothing had been sampled. */
		printf("readings: not kept by a merge (it keeps the stacks of "
		       "its %llu process%s; each process's readings are in "
		       "its own file)\n", (unsigned long long)r->processes,
		       r->processes == 1 ? "" : "es");
	else
		printf("readings: %zu over %.3fs\n", r->nsamples,
		       (double)s.duration_ns / 1e9);

	/* A section whose scan was not asked for (--scan stacks has no
	 * thread or memory samples, --scan memory no stacks) is left out
	 * rather than printed as an empty table. */
	if (s.nt) {
		printf("\nThreads (CPU over the run, most first):\n\n");
		printf("%8s  %-16s %10s %7s %10s %10s\n", "tid", "name",
		       "cpu_ms", "%cpu", "user_ms", "sys_ms");
	}
	for (i = 0; i < s.nt; i++) {
		/* Padded by what is written: a name's escapes are wider
		 * than its bytes. */
		printf("%8u  ", s.t[i].tid);
		vgl_text_line_pad(stdout, s.t[i].name, 16);
		printf(" %10.1f %6.1f%% %10.1f %10.1f\n",
		       (double)s.t[i].run_ns / 1e6,
		       pct(s.t[i].run_ns, s.duration_ns),
		       (double)s.t[i].user_us / 1e3,
		       (double)s.t[i].sys_us / 1e3);
	}
	if (s.nt && s.has_ended)
		printf("%8s  %-16s %10.1f %6.1f%% %10.1f %10.1f\n", "-",
		       "(ended threads)",
		       (double)(s.ended_user_us + s.ended_sys_us) / 1e3,
		       pct((s.ended_user_us + s.ended_sys_us) * 1000,
			   s.duration_ns),
		       (double)s.ended_user_us / 1e3,
		       (double)s.ended_sys_us / 1e3);

	if (s.nmem) {
		printf("\nMemory over the run (KiB, %zu readings):\n\n", s.nmem);
		printf("%-6s %12s %12s %12s\n", "", "min", "max", "last");
		for (k = 0; k < 4; k++)
			printf("%-6s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n",
			       mem_names[k], s.min[k] / 1024, s.max[k] / 1024,
			       s.last[k] / 1024);
	}

	if (!total && !r->stacks_head.lost && !s.sp.nfuncs) {
		release(&s);
		return;
	}
	printf("\nTop functions by self samples (%" PRIu64 " stack samples, %"
	       PRIu64 " lost):\n\n", total, r->stacks_head.lost);
	printf("%10s %7s %10s %7s  %s\n", "self", "%", "total", "%", "function");
	for (i = 0; i < s.sp.nfuncs && i < top; i++) {
		printf("%10" PRIu64 " %6.2f%% %10" PRIu64 " %6.2f%%  ",
		       s.sp.self[i], pct(s.sp.self[i], total), s.sp.total[i],
		       pct(s.sp.total[i], total));
		vgl_text_line(stdout, s.sp.funcs[i].label);
		putchar('\n');
	}
	if (s.sp.nfuncs > top)
		printf("\nfolded away: %zu of %zu functions\n",
		       s.sp.nfuncs - top, s.sp.nfuncs);
	report_hook_share(&s.sp, total);
	release(&s);
}

/*
 * vigil's hooks, as the sampler names them: the entry mode's __fentry__
 * (the program's own calls go to __wrap___fentry__, alias vgl_fentry_hot;
 * new edges through save_call), the inline mode's enter hook (its fast
 * path enter_hot, static, named from the symbol table) and exit hook.
 * A program counted and sampled at once spends time there only because
 * it is counted (Lua's bench.lua: 30% of its samples), and a report that
 * showed the name at its top without a word left that to be guessed.
 */
static const char *const hook_names[] = {
	"__fentry__", "__wrap___fentry__", "vgl_fentry_hot",
	"vgl_fentry_early", "vgl_fentry_check", "save_call",
	"__cyg_profile_func_enter", "__wrap___cyg_profile_func_enter",
	"__cyg_profile_func_exit", "enter_hot", "enter_early", "enter_check",
};

void report_hook_share(const struct vgl_sprofile *sp, uint64_t samples)
{
	uint64_t self = 0;
	char names[256];
	size_t i, k, len = 0;

	names[0] = 0;
	for (i = 0; i < sp->nfuncs; i++) {
		const char *n = sp->funcs[i].name;

		if (!sp->self[i] || !n)
			continue;
		for (k = 0; k < sizeof(hook_names) / sizeof(*hook_names); k++)
			if (!strcmp(n, hook_names[k]))
				break;
		if (k == sizeof(hook_names) / sizeof(*hook_names))
			continue;
		self += sp->self[i];
		if (len < sizeof(names))
			len += (size_t)snprintf(names + len, sizeof(names) - len,
						"%s%s", len ? ", " : "", n);
	}
	if (!self || !samples)
		return;
	printf("%.2f%% of the stack samples found the program in vigil's "
	       "counting hooks (%s): time it spends only because it is "
	       "counted.\n", pct(self, samples), names);
}

/* One function beside another in the stacks, and the samples of those
 * stacks (report_sampled_function). */
struct beside {
	uint32_t fn;
	uint64_t samples;
};

static const struct vgl_sprofile *beside_sp;  /* for cmp_beside */

static int cmp_beside(const void *a, const void *b)
{
	const struct beside *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(beside_sp->funcs[x->fn].label,
		      beside_sp->funcs[y->fn].label);
}

/* Adds count to fn's entry of v (made if new), once per stack: seen
 * holds the functions this stack added to already. */
static int beside_add(struct beside **v, size_t *n, uint32_t fn,
		      uint64_t count, uint32_t *seen, size_t *nseen)
{
	struct beside *grown;
	size_t i;

	for (i = 0; i < *nseen; i++)
		if (seen[i] == fn)
			return 0;
	seen[(*nseen)++] = fn;
	for (i = 0; i < *n; i++)
		if ((*v)[i].fn == fn) {
			(*v)[i].samples += count;
			return 0;
		}
	grown = realloc(*v, (*n + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	*v = grown;
	grown[(*n)++] = (struct beside){ fn, count };
	return 0;
}

static void beside_print(const char *head, struct beside *v, size_t n,
			 const struct vgl_sprofile *sp)
{
	size_t i;

	beside_sp = sp;
	if (n)
		qsort(v, n, sizeof(*v), cmp_beside);
	printf("  %s:\n", head);
	for (i = 0; i < n; i++) {
		printf("%12" PRIu64 "  ", v[i].samples);
		vgl_text_line(stdout, sp->funcs[v[i].fn].label);
		putchar('\n');
	}
}

/* The callers and callees of function f by samples, printed. */
static int sampled_entry(const struct vgl_sprofile *sp, uint32_t f)
{
	struct beside *up = NULL, *down = NULL;
	size_t nup = 0, ndown = 0, k, j;
	uint32_t seen_up[VGL_STACK_MAX_FRAMES], seen_down[VGL_STACK_MAX_FRAMES];
	int err = 0;

	for (k = 0; k < sp->nstacks && !err; k++) {
		const struct vgl_sstack *st = &sp->stacks[k];
		const uint32_t *c = sp->chain + st->first;
		size_t nsu = 0, nsd = 0;

		for (j = 0; j < st->depth && !err; j++) {
			if (c[j] != f)
				continue;
			if (j > 0)
				err = beside_add(&up, &nup, c[j - 1], st->count,
						 seen_up, &nsu);
			if (!err && j + 1 < st->depth)
				err = beside_add(&down, &ndown, c[j + 1],
						 st->count, seen_down, &nsd);
		}
	}
	if (!err) {
		putchar('\n');
		vgl_text_line(stdout, sp->funcs[f].label);
		printf(" (%" PRIu64 " self, %" PRIu64 " total)\n",
		       sp->self[f], sp->total[f]);
		beside_print("called from", up, nup, sp);
		beside_print("calls", down, ndown, sp);
	}
	free(up);
	free(down);
	return err;
}

int report_function_named(const struct vgl_pfunc *fn, const char *name)
{
	return !strcmp(fn->name, name) || !strcmp(fn->label, name) ||
	       vgl_text_line_is(fn->name, name) ||
	       vgl_text_line_is(fn->label, name);
}

int report_sampled_function(const struct vgl_reader *r,
			    struct vgl_symbolizer *sym, const char *path,
			    const char *name)
{
	struct vgl_sprofile sp;
	size_t i, found = 0;
	int err = 0;

	if (vgl_sprofile_build(&sp, r, sym))
		return -ENOMEM;
	for (i = 0; i < sp.nfuncs && !err; i++) {
		if (!report_function_named(&sp.funcs[i], name))
			continue;
		if (!found++) {
			print_file(path);
			print_state(r);
			printf("\nStack samples (%" PRIu64 " in all):\n",
			       sp.samples);
		}
		err = sampled_entry(&sp, (uint32_t)i);
	}
	vgl_sprofile_release(&sp);
	return err ? err : found ? 0 : -ENOENT;
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
	/* A merge keeps its processes' stacks, not their readings: null,
	 * not 0 readings over 0 ns of no thread (as report's text says). */
	if (not_kept(r)) {
		vgl_json_null(j, "samples");
		vgl_json_null(j, "duration_ns");
		vgl_json_null(j, "threads");
	} else {
		vgl_json_u64(j, "samples", r->nsamples);
		vgl_json_u64(j, "duration_ns", s.duration_ns);
		vgl_json_begin_array(j, "threads");
	}
	for (i = 0; i < s.nt && !not_kept(r); i++) {
		vgl_json_begin_object(j, NULL);
		vgl_json_u64(j, "tid", s.t[i].tid);
		vgl_json_str(j, "name", s.t[i].name);
		vgl_json_u64(j, "cpu_run_ns", s.t[i].run_ns);
		vgl_json_u64(j, "cpu_user_us", s.t[i].user_us);
		vgl_json_u64(j, "cpu_sys_us", s.t[i].sys_us);
		vgl_json_end_object(j);
	}
	if (!not_kept(r))
		vgl_json_end_array(j);
	if (s.has_ended) {
		vgl_json_begin_object(j, "ended_threads");
		vgl_json_u64(j, "cpu_user_us", s.ended_user_us);
		vgl_json_u64(j, "cpu_sys_us", s.ended_sys_us);
		vgl_json_end_object(j);
	} else {
		vgl_json_null(j, "ended_threads");
	}
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
	for (i = 0; i < s.sp.nfuncs; i++) {
		const struct vgl_pfunc *f = &s.sp.funcs[i];

		vgl_json_begin_object(j, NULL);
		vgl_json_str(j, "name", f->name);
		if (f->module != VGL_PROFILE_NO_MODULE) {
			vgl_json_str(j, "module",
				     vgl_symbolizer_module_name(sym, f->module));
		} else {
			vgl_json_null(j, "module");
		}
		vgl_json_hex(j, "address", f->addr);
		vgl_json_u64(j, "self_samples", s.sp.self[i]);
		vgl_json_u64(j, "total_samples", s.sp.total[i]);
		vgl_json_end_object(j);
	}
	vgl_json_end_array(j);
	vgl_json_end_object(j);
	release(&s);
}
