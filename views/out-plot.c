/*
 * out-plot.c - the timeline of a sampled profile as one self-contained SVG
 * file: three panels over the time of the run, with a little JavaScript
 * and CSS inside and nothing loaded from anywhere.
 *
 *   CPU per thread   stacked areas, one colour per thread, in % of one
 *                    CPU: each thread's CPU time (schedstat's run time,
 *                    or user + system time where the kernel gave none)
 *                    gained between two samples, over the time between
 *                    them; a legend names each thread and its tid; a
 *                    dashed line the whole process's CPU, which holds
 *                    the threads that lived between two samples too
 *                    (its CPU clock, or clock ticks averaged over 200 ms
 *                    steps with their error where a file has no clock);
 *                    no step above 100 % of a CPU per thread (what the
 *                    kernel's ticks put beyond is drawn in the next
 *                    steps); the sampling interval marked where it began
 *                    and changed
 *   memory           the process's RSS at each sample
 *   host CPU         user, system and iowait time of every CPU of the
 *                    host between two samples, in % of all of them
 *
 * Hovering a series shows its name and its value at that time (a tooltip
 * drawn by the script; every series also has a <title>).  A click in a
 * panel zooms every panel in time, around the click ("Reset zoom" shows
 * the whole run again); "Search" highlights the threads whose name holds
 * a text.  The values are in the elements too (data-values, data-times,
 * the window shown in data-view), so a script can check what is drawn.
 *
 * Tuned for long runs: at most MAX_BUCKETS steps or points per series
 * (consecutive intervals are added up, so a step is still the CPU time
 * over its span; memory keeps each group's highest point), and at most
 * MAX_THREAD_SERIES thread series (the threads that used least CPU are
 * one "other threads" series), so the file's size does not grow with the
 * samples or the threads.  Threads are told apart by tid, as in `vigil
 * report`; a tid whose CPU time goes down is a new thread that reused it.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out-plot.h"
#include "out.h"

#define WIDTH 1200
#define X0 90.0                /* plot area, left: room for value labels */
#define X1 920.0               /* plot area, right: the legend beyond */
#define LEGEND_X 940
#define CPU_TOP 80.0
#define CPU_H 300.0
#define MEM_TOP 450.0
#define MEM_H 160.0
#define HOST_TOP 680.0
#define HOST_H 160.0
#define HEIGHT 900
#define MAX_BUCKETS 1000
#define MAX_THREAD_SERIES 20

static const char *const palette[MAX_THREAD_SERIES] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2", "#bcbd22", "#17becf", "#aec7e8",
	"#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94",
	"#f7b6d2", "#dbdb8d", "#9edae5", "#7f7f7f", "#393b79",
};
#define OTHER_COLOR "#555555"

/* One tid seen in the samples. */
struct tstate {
	uint32_t tid;
	const char *name;          /* the last name it had */
	uint64_t prev;             /* its CPU ns at its last sample */
	int seen;
	uint64_t total;            /* CPU ns gained over the run */
	double carry;              /* ns read beyond 100 % of a CPU, drawn
	                            * in the next intervals */
	size_t series;             /* which series draws it */
};

/* Intervals between consecutive samples that hold one kind of data,
 * added up into buckets: bucket b spans times[b] .. times[b + 1]. */
struct buckets {
	size_t *idx;               /* the samples holding the data */
	size_t n;                  /* how many */
	size_t per;                /* intervals per bucket (at least) */
	size_t nb;                 /* buckets (0 with fewer than 2 samples) */
	double *times;             /* nb + 1 bounds, s since the first sample */
	size_t *of;                /* of[j]: the bucket of the interval that
	                            * ends at idx[j] (j >= 1) */
};

struct plot {
	const struct vgl_reader *r;
	FILE *f;
	double span;               /* s from the first sample to the last */
	uint64_t t0;               /* elapsed_ns of the first sample */
};

static double secs(const struct plot *pl, size_t i)
{
	return (double)(pl->r->samples[i].elapsed_ns - pl->t0) / 1e9;
}

static double xpos(const struct plot *pl, double t)
{
	return X0 + (X1 - X0) * t / pl->span;
}

/*
 * Collects the samples whose scan has bit and lays their intervals into
 * at most MAX_BUCKETS buckets, each spanning min_span s or more (0: any):
 * a bucket ends after `per` intervals once it spans min_span, and a last
 * one shorter than min_span joins the one before.  Returns 0 or -ENOMEM.
 */
static int buckets_make_span(struct buckets *b, const struct plot *pl,
			     uint32_t bit, double min_span)
{
	const struct vgl_reader *r = pl->r;
	size_t i, j, nint, count = 0;

	memset(b, 0, sizeof(*b));
	b->idx = malloc((r->nsamples + 1) * sizeof(*b->idx));
	b->of = malloc((r->nsamples + 1) * sizeof(*b->of));
	if (!b->idx || !b->of)
		return -ENOMEM;
	for (i = 0; i < r->nsamples; i++)
		if (r->samples[i].scan & bit)
			b->idx[b->n++] = i;
	if (b->n < 2)
		return 0;
	nint = b->n - 1;
	b->per = (nint + MAX_BUCKETS - 1) / MAX_BUCKETS;
	b->times = malloc((nint + 2) * sizeof(*b->times));
	if (!b->times)
		return -ENOMEM;
	b->times[0] = secs(pl, b->idx[0]);
	for (j = 1; j <= nint; j++) {
		double t = secs(pl, b->idx[j]);

		b->of[j] = b->nb;
		/* 1e-9: spans are differences of exact nanoseconds in s. */
		if (++count >= b->per && t - b->times[b->nb] >= min_span - 1e-9) {
			b->times[++b->nb] = t;
			count = 0;
		}
	}
	if (count) {
		/* The rest: its own bucket if long enough, else the last
		 * one's. */
		double t = secs(pl, b->idx[nint]);

		if (b->nb && t - b->times[b->nb] < min_span - 1e-9) {
			for (j = nint; j > 0 && b->of[j] == b->nb; j--)
				b->of[j] = b->nb - 1;
			b->times[b->nb] = t;
		} else {
			b->times[++b->nb] = t;
		}
	}
	return 0;
}

static int buckets_make(struct buckets *b, const struct plot *pl,
			uint32_t bit)
{
	return buckets_make_span(b, pl, bit, 0);
}

static void buckets_release(struct buckets *b)
{
	free(b->idx);
	free(b->times);
	free(b->of);
}

/* A step of about a quarter of max, as 1, 2 or 5 times a power of ten. */
static double nice_step(double max)
{
	double x = max > 0 ? max / 4 : 0.25, e = pow(10, floor(log10(x)));
	double m = x / e;

	return (m < 1.5 ? 1 : m < 3 ? 2 : m < 7 ? 5 : 10) * e;
}

/* The value axis of a panel from 0 to a multiple of step above max,
 * with its label; returns the top of the axis. */
static double value_axis(const struct plot *pl, double top, double h,
			 double max, const char *label)
{
	double step = nice_step(max), ymax = step * ceil(max / step), v;
	FILE *f = pl->f;

	if (ymax <= 0)
		ymax = step;
	for (v = 0; v <= ymax + step / 2; v += step) {
		double y = top + h - h * v / ymax;

		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
			X0, y, X1, y, X0 - 6, y + 4, v);
	}
	fprintf(f, "<text class=\"label\" transform=\"translate(%.1f,%.1f) rotate(-90)\" "
		"text-anchor=\"middle\">", X0 - 60, top + h / 2);
	out_xml_text(f, label);
	fputs("</text>\n", f);
	return ymax;
}

/*
 * The time axis under a panel, labelled in seconds.  The ticks are in a
 * group of their own (g.taxis), which the script redraws, the same way,
 * for the time window a click zooms to: a tick at each k * step.
 */
static void time_axis(const struct plot *pl, double top, double h)
{
	double step = nice_step(pl->span), t;
	FILE *f = pl->f;
	long k;

	fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		"<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		X0, top + h, X1, top + h, X0, top, X0, top + h);
	fputs("<g class=\"taxis\">", f);
	for (k = 0; (t = (double)k * step) <= pl->span * (1 + 1e-9); k++)
		fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
			xpos(pl, t), top + h, xpos(pl, t), top + h + 5,
			xpos(pl, t), top + h + 18, t);
	fputs("</g>\n", f);
	fprintf(f, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">time (s)</text>\n",
		(X0 + X1) / 2, top + h + 34);
}

/*
 * Opens a panel: its group says where its plot area is (data-x0, -x1,
 * -y0, -y1: the script finds the panel a click is in, and the time under
 * the pointer, from them), what it draws and the bounds of its steps.
 */
static void panel_begin(const struct plot *pl, const char *id,
			const char *heading, const char *kind,
			const char *unit, const double *times, size_t ntimes,
			double top, double h)
{
	FILE *f = pl->f;
	size_t i;

	fprintf(f, "<g class=\"panel\" id=\"%s\" data-kind=\"%s\" data-unit=\"%s\" "
		"data-x0=\"%g\" data-x1=\"%g\" data-y0=\"%g\" data-y1=\"%g\" data-times=\"",
		id, kind, unit, X0, X1, top, top + h);
	for (i = 0; i < ntimes; i++)
		fprintf(f, "%s%.9g", i ? "," : "", times[i]);
	fprintf(f, "\">\n<text class=\"heading\" x=\"%.1f\" y=\"%.1f\">%s</text>\n",
		X0, top - 10, heading);
}

/*
 * The series of a panel go into a nested <svg> over its plot area: it
 * clips them to the area, and its viewBox is what the script changes to
 * zoom in time (x only: preserveAspectRatio="none"), with no url()
 * reference and no path rewritten.  zoom_end closes it.
 */
static void zoom_begin(const struct plot *pl, double top, double h)
{
	fprintf(pl->f, "<svg class=\"zoom\" x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" "
		"viewBox=\"%g %g %g %g\" preserveAspectRatio=\"none\">\n",
		X0, top, X1 - X0, h, X0, top, X1 - X0, h);
}

static void zoom_end(const struct plot *pl)
{
	fputs("</svg>\n", pl->f);
}

/*
 * The next change of the sampling interval from sample *i on (the first
 * interval in force counts as one): its interval *iv and time *t (the
 * sample before the first taken at it).  Returns 0 after the last; *i and
 * *prev carry the walk from call to call.  Files of older writers, without
 * intervals, have none.
 */
static int interval_change(const struct plot *pl, size_t *i, uint64_t *prev,
			   uint64_t *iv, double *t)
{
	const struct vgl_reader *r = pl->r;

	for (; *i < r->nsamples; (*i)++) {
		uint64_t v = r->samples[*i].interval_ns;

		if (!v || v == *prev)
			continue;
		*prev = *iv = v;
		*t = secs(pl, *i ? *i - 1 : 0);
		(*i)++;
		return 1;
	}
	return 0;
}

/*
 * The sampling interval's changes, on the time axis of a panel: a dashed
 * line where each interval in force begins (the first sample's, then
 * each change: from the sample before the first taken at the new
 * interval), inside the panel's zoomed viewport, with its <title>.
 * Files of older writers, without intervals, have none.
 */
static void interval_lines(const struct plot *pl, double top, double h)
{
	uint64_t prev = 0, iv;
	size_t i = 0;
	double t;

	while (interval_change(pl, &i, &prev, &iv, &t)) {
		fprintf(pl->f, "<line class=\"interval\" data-time=\"%.9g\" data-interval-ms=\"%.6g\" "
			"x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"><title>sampled every %.6g ms from %.3f s</title></line>\n",
			t, (double)iv / 1e6, xpos(pl, t), top, xpos(pl, t), top + h,
			(double)iv / 1e6, t);
	}
}

/* Their labels, at the top of the panel (outside the zoomed viewport,
 * so that text is not stretched: the script moves them on a zoom). */
static void interval_labels(const struct plot *pl, double top)
{
	uint64_t prev = 0, iv;
	size_t i = 0;
	double t;

	while (interval_change(pl, &i, &prev, &iv, &t)) {
		fprintf(pl->f, "<text class=\"interval\" data-time=\"%.9g\" x=\"%.1f\" y=\"%.1f\">",
			t, xpos(pl, t) + 3, top + 11);
		if (iv >= 1000000000ull)
			fprintf(pl->f, "%.6g s</text>\n", (double)iv / 1e9);
		else
			fprintf(pl->f, "%.6g ms</text>\n", (double)iv / 1e6);
	}
}

static void nothing_to_draw(const struct plot *pl, double top, double h,
			    const char *why)
{
	fprintf(pl->f, "<text class=\"none\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
		(X0 + X1) / 2, top + h / 2, why);
}

/* What sets one panel of steps apart from another. */
struct steps_panel {
	const char *id, *heading, *unit;    /* as panel_begin takes them */
	const char *label;                  /* the value axis' */
	const char *one, *none;             /* why nothing is drawn: one
	                                     * reading, or none at all */
	double top, h;
};

/*
 * Opens a panel of steps over b's buckets, its value axis up to max
 * (the axis' top is returned), its time axis, why nothing is drawn when
 * there is no interval, and the zoomed viewport its series go in.
 */
static double steps_panel_begin(const struct plot *pl,
				const struct steps_panel *sp,
				const struct buckets *b, double max)
{
	double ymax;

	panel_begin(pl, sp->id, sp->heading, "steps", sp->unit, b->times,
		    b->nb ? b->nb + 1 : 0, sp->top, sp->h);
	ymax = value_axis(pl, sp->top, sp->h, max, sp->label);
	time_axis(pl, sp->top, sp->h);
	if (!b->nb)
		nothing_to_draw(pl, sp->top, sp->h, b->n ? sp->one : sp->none);
	zoom_begin(pl, sp->top, sp->h);
	return ymax;
}

/* Closes what steps_panel_begin opened: the sampling interval's lines in
 * the zoomed viewport, then their labels above it. */
static void steps_panel_end(const struct plot *pl, const struct steps_panel *sp)
{
	interval_lines(pl, sp->top, sp->h);
	zoom_end(pl);
	interval_labels(pl, sp->top);
}

/*
 * One stacked area between the cumulative values lo and hi (nb buckets
 * spanning times, on an axis up to ymax), as steps.
 */
static void area_path(const struct plot *pl, const double *times,
		      const double *lo, const double *hi, size_t nb,
		      double top, double h, double ymax)
{
	FILE *f = pl->f;
	size_t i;

#define Y(v) (top + h - h * ((v) > ymax ? ymax : (v)) / ymax)
	fputs(" d=\"", f);
	for (i = 0; i < nb; i++)
		fprintf(f, "%s%.1f,%.1f L%.1f,%.1f ", i ? "L" : "M",
			xpos(pl, times[i]), Y(hi[i]), xpos(pl, times[i + 1]),
			Y(hi[i]));
	for (i = nb; i-- > 0;)
		fprintf(f, "L%.1f,%.1f L%.1f,%.1f ", xpos(pl, times[i + 1]),
			Y(lo[i]), xpos(pl, times[i]), Y(lo[i]));
	fputs("Z\"", f);
#undef Y
}

static void values_attr(FILE *f, const double *v, size_t n)
{
	size_t i;

	fputs(" data-values=\"", f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%.4g", i ? "," : "", v[i]);
	fputc('"', f);
}

/* A thread's CPU time at one sample, in ns. */
static uint64_t thread_ns(const struct vgl_sample_thread *th, int use_run)
{
	return use_run ? th->run_ns : (th->user_us + th->sys_us) * 1000;
}

/* CPU ns gained since the thread's last sample (0 at the first sample
 * that has threads: what ran before the run is not in it). */
static uint64_t thread_gain(struct tstate *t, uint64_t ns, int baseline)
{
	uint64_t d;

	if (baseline)
		d = 0;
	else if (t->seen && ns >= t->prev)
		d = ns - t->prev;
	else
		d = ns;     /* new since the last sample, or a reused tid */
	t->prev = ns;
	t->seen = 1;
	return d;
}

static int cmp_tid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int cmp_rank(const void *a, const void *b)
{
	const struct tstate *x = *(const struct tstate *const *)a;
	const struct tstate *y = *(const struct tstate *const *)b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static struct tstate *find_tid(struct tstate *t, size_t n, uint32_t tid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t[mid].tid == tid)
			return &t[mid];
		if (t[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * ns drawn for an interval of dt_ns in which x ns were read (with what
 * earlier intervals read beyond their span, *carry): never more than
 * the interval itself, 100 % of a CPU per thread.  A thread's time is
 * read in steps of the kernel's tick (4 ms at 250 Hz; 10 ms for clock
 * ticks), so a 5 ms interval of a thread that never left its CPU reads
 * 4 or 8 ms: the 3 ms beyond go to the next intervals, and the run's
 * total is unchanged.
 */
static double draw_capped(double x, double cap, double *carry)
{
	double v = x + *carry;

	if (v > cap) {
		*carry = v - cap;
		return cap;
	}
	*carry = 0;
	return v;
}

/* Runs over the thread records of the samples in b, adding each thread's
 * gains to its total, and (capped, see draw_capped) to
 * vals[series * nb + bucket] when vals is not NULL. */
static void thread_pass(const struct plot *pl, const struct buckets *b,
			struct tstate *t, size_t nt, int use_run, double *vals)
{
	const struct vgl_reader *r = pl->r;
	size_t j, k;

	for (k = 0; k < nt; k++) {
		t[k].seen = 0;
		t[k].carry = 0;
	}
	for (j = 0; j < b->n; j++) {
		size_t i = b->idx[j];
		double dt = j ? (secs(pl, i) - secs(pl, b->idx[j - 1])) * 1e9 : 0;

		for (k = 0; k < r->samples[i].nthreads; k++) {
			const struct vgl_sample_thread *th =
				&r->sample_threads[r->sample_first[i] + k];
			struct tstate *st = find_tid(t, nt, th->tid);
			uint64_t d;

			if (!st)
				continue;
			d = thread_gain(st, thread_ns(th, use_run), j == 0);
			st->name = th->name;
			st->total += d;
			if (vals && j > 0)
				vals[st->series * b->nb + b->of[j]] +=
					draw_capped((double)d, dt, &st->carry);
		}
	}
}

/* /proc/PID/stat's clock ticks: USER_HZ, 100 on every Linux ABI. */
#define TICK_NS 10000000.0
/* A step of the process line drawn from clock ticks spans this many
 * ticks or more: its error, 2 ticks (each of user and system time is
 * cut to a tick at both ends), is then at most 10 % of a CPU. */
#define MIN_TICKS_PER_STEP 20

/* The process line: values in % of one CPU, and for clock ticks the
 * error of each step. */
struct process_line {
	struct buckets b;
	double *v, *err;
	int clock;                 /* from the CPU clock (cpu_run_ns) */
	double max_err;
};

/* Threads sample i shows, or 0 when it has no thread records. */
static size_t live_threads(const struct vgl_sample *s)
{
	return (s->scan & VGL_SAMPLE_THREADS) ? s->nthreads : 0;
}

/*
 * The process's own CPU time (every thread of it, ended ones included)
 * gained in each step, in % of one CPU, into pl_->v.  From the process's
 * CPU clock (cpu_run_ns) where the file has it, interval by interval;
 * else from user + system clock ticks, whose steps span at least
 * MIN_TICKS_PER_STEP ticks, with their error in pl_->err.  Either way a
 * step never holds more than the threads seen at its ends could use (100
 * % each; draw_capped carries the rest on).  A thread that starts and
 * ends between two samples is in no thread record: the gap between this
 * line and the stacked threads is where it ran.  Returns 0 or -ENOMEM.
 */
static int process_cpu(const struct plot *pl, struct process_line *pr)
{
	const struct vgl_reader *r = pl->r;
	struct buckets *b = &pr->b;
	double carry = 0, *cap;
	size_t i, j;
	int err;

	memset(pr, 0, sizeof(*pr));
	for (i = 0; i < r->nsamples; i++)
		if ((r->samples[i].scan & VGL_SAMPLE_CPU) &&
		    r->samples[i].cpu_run_ns)
			pr->clock = 1;
	err = buckets_make_span(b, pl, VGL_SAMPLE_CPU, pr->clock ? 0 :
				MIN_TICKS_PER_STEP * TICK_NS / 1e9);
	if (err)
		return err;
	pr->v = calloc(b->nb + 1, sizeof(*pr->v));
	pr->err = calloc(b->nb + 1, sizeof(*pr->err));
	cap = calloc(b->nb + 1, sizeof(*cap));
	if (!pr->v || !pr->err || !cap) {
		free(cap);
		return -ENOMEM;
	}
	for (j = 1; j < b->n; j++) {
		const struct vgl_sample *s = &r->samples[b->idx[j]];
		const struct vgl_sample *q = &r->samples[b->idx[j - 1]];
		uint64_t now = pr->clock ? s->cpu_run_ns :
			       (s->cpu_user_us + s->cpu_sys_us) * 1000;
		uint64_t then = pr->clock ? q->cpu_run_ns :
				(q->cpu_user_us + q->cpu_sys_us) * 1000;
		size_t nth = live_threads(s) > live_threads(q) ?
			     live_threads(s) : live_threads(q);
		double dt = (secs(pl, b->idx[j]) - secs(pl, b->idx[j - 1])) * 1e9;
		double gain = now >= then ? (double)(now - then) : 0;

		/* Without thread records nothing bounds it but itself. */
		if (!nth)
			nth = SIZE_MAX;
		if (pr->clock)
			pr->v[b->of[j]] += draw_capped(gain, nth == SIZE_MAX ?
						       gain + carry :
						       dt * (double)nth, &carry);
		else {
			pr->v[b->of[j]] += gain;
			cap[b->of[j]] += nth == SIZE_MAX ? HUGE_VAL :
					 dt * (double)nth;
		}
	}
	for (j = 0; j < b->nb; j++) {
		double dt = b->times[j + 1] - b->times[j];

		if (!pr->clock) {
			pr->v[j] = draw_capped(pr->v[j], cap[j], &carry);
			pr->err[j] = dt > 0 ? 2 * TICK_NS / (dt * 1e9) * 100 : 0;
			if (pr->err[j] > pr->max_err)
				pr->max_err = pr->err[j];
		}
		pr->v[j] = dt > 0 ? pr->v[j] / (dt * 1e9) * 100 : 0;
	}
	free(cap);
	return 0;
}

static void process_line_release(struct process_line *pr)
{
	buckets_release(&pr->b);
	free(pr->v);
	free(pr->err);
}

/*
 * Whether thread series i of nseries, for nt threads, is the "other
 * threads" series: the last one, when there are more threads than series.
 */
static int is_other(size_t i, size_t nseries, size_t nt)
{
	return i == nseries - 1 && nt > nseries;
}

/*
 * Thread series i of nseries (rank: the nt threads, most CPU first):
 * its name (the thread's, or "other threads (N)" written into buf) and,
 * in *total, the CPU ns it draws: the thread's own, or those of every
 * thread the "other threads" series holds.
 */
static const char *series_label(struct tstate *const *rank, size_t i,
				size_t nseries, size_t nt, char *buf,
				size_t size, uint64_t *total)
{
	size_t k;

	*total = rank[i]->total;
	if (!is_other(i, nseries, nt))
		return rank[i]->name;
	for (k = i + 1; k < nt; k++)
		*total += rank[k]->total;
	snprintf(buf, size, "other threads (%zu)", nt - i);
	return buf;
}

/*
 * Every distinct tid of the thread records of the samples in b, sorted
 * for a binary search per record, into *tids (malloc'd, the caller
 * frees it; set even on failure) and their count into *nt; *use_run
 * says whether any record has a run time.  0, or -ENOMEM.
 */
static int thread_tids(const struct plot *pl, const struct buckets *b,
		       uint32_t **tids, size_t *nt, int *use_run)
{
	const struct vgl_reader *r = pl->r;
	uint32_t *id;
	size_t i, k, n = 0;

	*tids = id = malloc((r->nsample_threads + 1) * sizeof(*id));
	if (!id)
		return -ENOMEM;
	for (i = 0; i < b->n; i++)
		for (k = 0; k < r->samples[b->idx[i]].nthreads; k++) {
			const struct vgl_sample_thread *th =
				&r->sample_threads[r->sample_first[b->idx[i]] + k];

			id[n++] = th->tid;
			/* A kernel without schedstats gives no run time:
			 * then user + system time, for every thread alike. */
			if (th->run_ns)
				*use_run = 1;
		}
	qsort(id, n, sizeof(*id), cmp_tid);
	for (i = k = 0; i < n; i++)
		if (!k || id[i] != id[k - 1])
			id[k++] = id[i];
	*nt = k;
	return 0;
}

/*
 * Turns the ns each of nseries series gained per bucket of b, in
 * vals[series * nb + bucket], into % of one CPU over the bucket's span,
 * in place; raises *max to the highest sum of a bucket's series.
 */
static void cpu_percent(const struct buckets *b, double *vals,
			size_t nseries, double *max)
{
	size_t i, k;

	/* ns gained -> % of one CPU over the bucket's span. */
	for (k = 0; k < b->nb; k++) {
		double dt = b->times[k + 1] - b->times[k], sum = 0;

		for (i = 0; i < nseries; i++) {
			double *v = &vals[i * b->nb + k];

			*v = dt > 0 ? *v / (dt * 1e9) * 100 : 0;
			sum += *v;
		}
		if (sum > *max)
			*max = sum;
	}
}

/*
 * Writes the nseries thread series (rank: the nt threads, most CPU
 * first; vals as cpu_percent leaves them) as areas stacked in bucket
 * order, scaled to ymax.  lo and hi are the caller's scratch of b->nb
 * zeroed doubles: the bottom and top of the series being drawn.
 */
static void thread_areas(const struct plot *pl, const struct buckets *b,
			 struct tstate *const *rank, size_t nseries, size_t nt,
			 const double *vals, double *lo, double *hi,
			 double ymax)
{
	FILE *f = pl->f;
	char label[64];
	size_t i, k;

	for (i = 0; i < nseries && b->nb; i++) {
		int other = is_other(i, nseries, nt);
		uint64_t total;
		const char *name = series_label(rank, i, nseries, nt, label,
						sizeof(label), &total);

		for (k = 0; k < b->nb; k++) {
			lo[k] = hi[k];
			hi[k] += vals[i * b->nb + k];
		}
		fputs("<path class=\"series\" data-name=\"", f);
		out_xml_text(f, name);
		if (other)
			fputs("\" data-tid=\"\"", f);
		else
			fprintf(f, "\" data-tid=\"%" PRIu32 "\"", rank[i]->tid);
		fprintf(f, " data-cpu-ns=\"%" PRIu64 "\" fill=\"%s\"", total,
			other ? OTHER_COLOR : palette[i]);
		values_attr(f, &vals[i * b->nb], b->nb);
		area_path(pl, b->times, lo, hi, b->nb, CPU_TOP, CPU_H, ymax);
		fputs("><title>", f);
		out_xml_text(f, name);
		if (!other)
			fprintf(f, " (tid %" PRIu32 ")", rank[i]->tid);
		fprintf(f, ": %.1f ms of CPU over the run</title></path>\n",
			(double)total / 1e6);
	}
}

#define Y(v) (CPU_TOP + CPU_H - CPU_H * ((v) > ymax ? ymax : (v)) / ymax)

/*
 * Writes the process's line (pr, as process_cpu fills it; nothing when
 * it has no bucket), scaled to ymax: from clock ticks, with the band of
 * their error around it first.
 */
static void process_path(const struct plot *pl, const struct process_line *pr,
			 double ymax)
{
	FILE *f = pl->f;
	size_t k;

	if (pr->b.nb && !pr->clock) {
		/* The error of the clock ticks, as a band around the line. */
		fputs("<path class=\"band\" fill=\"#000\" fill-opacity=\"0.08\" d=\"", f);
		for (k = 0; k < pr->b.nb; k++)
			fprintf(f, "%s%.1f,%.1f L%.1f,%.1f ", k ? "L" : "M",
				xpos(pl, pr->b.times[k]), Y(pr->v[k] + pr->err[k]),
				xpos(pl, pr->b.times[k + 1]), Y(pr->v[k] + pr->err[k]));
		for (k = pr->b.nb; k-- > 0;)
			fprintf(f, "L%.1f,%.1f L%.1f,%.1f ",
				xpos(pl, pr->b.times[k + 1]),
				Y(pr->v[k] > pr->err[k] ? pr->v[k] - pr->err[k] : 0),
				xpos(pl, pr->b.times[k]),
				Y(pr->v[k] > pr->err[k] ? pr->v[k] - pr->err[k] : 0));
		fprintf(f, "Z\"><title>the process from clock ticks: within %.3g %% of a CPU</title></path>\n",
			pr->max_err);
	}
	if (pr->b.nb) {
		fprintf(f, "<path class=\"series\" data-name=\"process\" data-source=\"%s\"",
			pr->clock ? "cpu clock" : "clock ticks");
		if (!pr->clock) {
			fputs(" data-error=\"", f);
			for (k = 0; k < pr->b.nb; k++)
				fprintf(f, "%s%.4g", k ? "," : "", pr->err[k]);
			fputc('"', f);
		}
		fputs(" data-times=\"", f);
		for (k = 0; k <= pr->b.nb; k++)
			fprintf(f, "%s%.9g", k ? "," : "", pr->b.times[k]);
		fputc('"', f);
		values_attr(f, pr->v, pr->b.nb);
		fputs(" fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\" stroke-dasharray=\"5,3\" d=\"", f);
		for (k = 0; k < pr->b.nb; k++)
			fprintf(f, "%s%.1f,%.1f L%.1f,%.1f ", k ? "L" : "M",
				xpos(pl, pr->b.times[k]), Y(pr->v[k]),
				xpos(pl, pr->b.times[k + 1]), Y(pr->v[k]));
		if (pr->clock)
			fputs("\"><title>the process: all its threads, ended ones too (its CPU clock)</title></path>\n", f);
		else
			fprintf(f, "\"><title>the process: all its threads, ended ones too (clock ticks: within %.3g %% of a CPU)</title></path>\n",
				pr->max_err);
	}
}

#undef Y

/*
 * Writes the legend beside the plot (not zoomed): the nseries thread
 * series of rank (nt threads, most CPU first) when b has buckets, then
 * the process's line of pr when it has any.
 */
static void cpu_legend(const struct plot *pl, const struct buckets *b,
		       struct tstate *const *rank, size_t nseries, size_t nt,
		       const struct process_line *pr)
{
	FILE *f = pl->f;
	char label[64];
	size_t i;

	/* The legend, most CPU first, beside the plot (not zoomed).  A
	 * thread's entry has its series' name and tid, for the search. */
	for (i = 0; i < nseries && b->nb; i++) {
		int other = is_other(i, nseries, nt);
		uint64_t total;
		const char *name = series_label(rank, i, nseries, nt, label,
						sizeof(label), &total);

		fputs("<g class=\"legend\" data-name=\"", f);
		out_xml_text(f, name);
		if (other)
			fputs("\" data-tid=\"\">", f);
		else
			fprintf(f, "\" data-tid=\"%" PRIu32 "\">", rank[i]->tid);
		fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"%.1f\">", LEGEND_X, CPU_TOP + 14.0 * (double)i,
			other ? OTHER_COLOR : palette[i], LEGEND_X + 18,
			CPU_TOP + 14.0 * (double)i + 10);
		out_xml_text(f, name);
		if (!other)
			fprintf(f, " (tid %" PRIu32 ")", rank[i]->tid);
		fprintf(f, " %.1f ms</text></g>\n", (double)total / 1e6);
	}
	if (pr->b.nb) {
		double y = CPU_TOP + 14.0 * (double)(b->nb ? nseries : 0) + 6;

		fprintf(f, "<g class=\"legend\"><line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"#000\" stroke-width=\"1.5\" stroke-dasharray=\"5,3\"/>"
			"<text x=\"%d\" y=\"%.1f\">process (all threads",
			LEGEND_X, y, LEGEND_X + 12, y, LEGEND_X + 18, y + 4);
		if (!pr->clock)
			fprintf(f, "; ticks, \xc2\xb1%.3g %%", pr->max_err);
		fputs(")</text></g>\n", f);
	}
}

static const struct steps_panel cpu_steps = {
	.id = "cpu", .heading = "CPU per thread", .unit = "% of a CPU",
	.label = "CPU (% of one CPU)",
	.one = "one reading of the threads: no interval to draw",
	.none = "no thread readings (add threads to the --scan of vigil attach or vigil run)",
	.top = CPU_TOP, .h = CPU_H,
};

/*
 * The "CPU per thread" panel: each thread's CPU as stacked areas (the
 * MAX_THREAD_SERIES - 1 busiest, the rest as one "other threads"), the
 * process's own line over them, and the legend.  0, or a negative errno.
 */
static int cpu_panel(const struct plot *pl)
{
	struct buckets b;
	struct process_line pr;
	struct tstate *t = NULL, **rank = NULL;
	uint32_t *tids = NULL;
	double *vals = NULL, *lo = NULL, *hi = NULL, ymax, max = 0;
	size_t i, nt = 0, ns, nseries = 0;
	int use_run = 0, err;

	memset(&pr, 0, sizeof(pr));
	err = buckets_make(&b, pl, VGL_SAMPLE_THREADS);
	if (!err)
		err = process_cpu(pl, &pr);
	if (err)
		goto out;
	for (i = 0; i < pr.b.nb; i++)
		if (pr.v[i] > max)
			max = pr.v[i];
	err = thread_tids(pl, &b, &tids, &nt, &use_run);
	if (err)
		goto out;
	err = -ENOMEM;
	t = calloc(nt + 1, sizeof(*t));
	rank = calloc(nt + 1, sizeof(*rank));
	if (!t || !rank)
		goto out;
	for (i = 0; i < nt; i++) {
		t[i].tid = tids[i];
		rank[i] = &t[i];
	}
	thread_pass(pl, &b, t, nt, use_run, NULL);
	qsort(rank, nt, sizeof(*rank), cmp_rank);
	nseries = nt <= MAX_THREAD_SERIES ? nt : MAX_THREAD_SERIES;
	for (i = 0; i < nt; i++)
		rank[i]->series = i < nseries ? i : nseries - 1;
	ns = nseries ? nseries : 1;
	vals = calloc(ns * b.nb + 1, sizeof(*vals));
	lo = calloc(b.nb + 1, sizeof(*lo));
	hi = calloc(b.nb + 1, sizeof(*hi));
	if (!vals || !lo || !hi)
		goto out;
	for (i = 0; i < nt; i++)
		t[i].total = 0;
	thread_pass(pl, &b, t, nt, use_run, vals);
	cpu_percent(&b, vals, nseries, &max);

	ymax = steps_panel_begin(pl, &cpu_steps, &b, max);
	thread_areas(pl, &b, rank, nseries, nt, vals, lo, hi, ymax);
	process_path(pl, &pr, ymax);
	steps_panel_end(pl, &cpu_steps);
	cpu_legend(pl, &b, rank, nseries, nt, &pr);
	fputs("</g>\n", pl->f);
	err = 0;
out:
	process_line_release(&pr);
	buckets_release(&b);
	free(tids);
	free(t);
	free(rank);
	free(vals);
	free(lo);
	free(hi);
	return err;
}

static int memory_panel(const struct plot *pl)
{
	const struct vgl_reader *r = pl->r;
	struct buckets b;
	double *times = NULL, *v = NULL, max = 0, ymax, scale;
	size_t i, n = 0;
	const char *unit, *label;
	int err;
	FILE *f = pl->f;

	err = buckets_make(&b, pl, VGL_SAMPLE_MEMORY);
	if (err)
		goto out;
	err = -ENOMEM;
	times = malloc((b.n + 1) * sizeof(*times));
	v = malloc((b.n + 1) * sizeof(*v));
	if (!times || !v)
		goto out;
	/* Points, not intervals: each group keeps its highest. */
	for (i = 0; i < b.n; i++) {
		const struct vgl_sample *s = &r->samples[b.idx[i]];
		int start = b.per <= 1 || i % b.per == 0;

		if (start || (double)s->rss_bytes > v[n - 1]) {
			if (start)
				n++;
			times[n - 1] = secs(pl, b.idx[i]);
			v[n - 1] = (double)s->rss_bytes;
		}
		if ((double)s->rss_bytes > max)
			max = (double)s->rss_bytes;
	}
	if (max >= 1024.0 * 1024 * 1024) {
		scale = 1024.0 * 1024 * 1024;
		unit = "GiB";
		label = "RSS (GiB)";
	} else if (max >= 1024.0 * 1024) {
		scale = 1024.0 * 1024;
		unit = "MiB";
		label = "RSS (MiB)";
	} else {
		scale = 1024.0;
		unit = "KiB";
		label = "RSS (KiB)";
	}
	for (i = 0; i < n; i++)
		v[i] /= scale;
	panel_begin(pl, "memory", "Memory (resident set size)", "points", unit,
		    times, n, MEM_TOP, MEM_H);
	ymax = value_axis(pl, MEM_TOP, MEM_H, max / scale, label);
	time_axis(pl, MEM_TOP, MEM_H);
	if (!n) {
		nothing_to_draw(pl, MEM_TOP, MEM_H,
				"no memory readings (add memory to the --scan of vigil attach or vigil run)");
	} else {
#define Y(x) (MEM_TOP + MEM_H - MEM_H * (x) / ymax)
		zoom_begin(pl, MEM_TOP, MEM_H);
		fputs("<path class=\"series\" data-name=\"RSS\" fill=\"#4e79a7\" fill-opacity=\"0.35\" "
		      "stroke=\"#4e79a7\" stroke-width=\"1.5\"", f);
		values_attr(f, v, n);
		fprintf(f, " d=\"M%.1f,%.1f ", xpos(pl, times[0]), Y(0.0));
		for (i = 0; i < n; i++)
			fprintf(f, "L%.1f,%.1f ", xpos(pl, times[i]), Y(v[i]));
		fprintf(f, "L%.1f,%.1f Z\"><title>RSS: %.1f %s at most</title></path>\n",
			xpos(pl, times[n - 1]), Y(0.0), max / scale, unit);
		if (n == 1)
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#4e79a7\"/>\n",
				xpos(pl, times[0]), Y(v[0]));
		interval_lines(pl, MEM_TOP, MEM_H);
		zoom_end(pl);
		interval_labels(pl, MEM_TOP);
#undef Y
	}
	fputs("</g>\n", f);
	err = 0;
out:
	buckets_release(&b);
	free(times);
	free(v);
	return err;
}

static const struct steps_panel host_steps = {
	.id = "host", .heading = "Host CPU (every CPU of the machine)",
	.unit = "% of all CPUs", .label = "host CPU (% of all CPUs)",
	.one = "one reading of the host: no interval to draw",
	.none = "no host CPU readings (add host-cpu to the --scan of vigil attach or vigil run)",
	.top = HOST_TOP, .h = HOST_H,
};

static int host_panel(const struct plot *pl)
{
	static const char *const names[3] = { "user", "system", "iowait" };
	static const char *const colors[3] = { "#59a14f", "#e15759", "#edc948" };
	const struct vgl_reader *r = pl->r;
	struct buckets b;
	double *vals = NULL, *lo = NULL, *hi = NULL, ymax, max = 0;
	size_t i, j, k;
	int err;
	FILE *f = pl->f;

	err = buckets_make(&b, pl, VGL_SAMPLE_HOST_CPU);
	if (err)
		goto out;
	err = -ENOMEM;
	/* vals[kind * nb + bucket]; kind 3 is idle, not drawn. */
	vals = calloc(4 * b.nb + 1, sizeof(*vals));
	lo = calloc(b.nb + 1, sizeof(*lo));
	hi = calloc(b.nb + 1, sizeof(*hi));
	if (!vals || !lo || !hi)
		goto out;
	/* The first sample's times are since boot: only a start. */
	for (j = 1; j < b.n; j++) {
		const struct vgl_sample *s = &r->samples[b.idx[j]];
		size_t bk = b.of[j];

		vals[0 * b.nb + bk] += (double)s->host_user_us;
		vals[1 * b.nb + bk] += (double)s->host_sys_us;
		vals[2 * b.nb + bk] += (double)s->host_iowait_us;
		vals[3 * b.nb + bk] += (double)s->host_idle_us;
	}
	for (k = 0; k < b.nb; k++) {
		double all = 0, busy = 0;

		for (i = 0; i < 4; i++)
			all += vals[i * b.nb + k];
		for (i = 0; i < 3; i++) {
			vals[i * b.nb + k] = all > 0 ? 100 * vals[i * b.nb + k] / all : 0;
			busy += vals[i * b.nb + k];
		}
		if (busy > max)
			max = busy;
	}
	ymax = steps_panel_begin(pl, &host_steps, &b, max > 0 ? max : 100);
	for (i = 0; i < 3 && b.nb; i++) {
		for (k = 0; k < b.nb; k++) {
			lo[k] = hi[k];
			hi[k] += vals[i * b.nb + k];
		}
		fprintf(f, "<path class=\"series\" data-name=\"host %s\" fill=\"%s\"",
			names[i], colors[i]);
		values_attr(f, &vals[i * b.nb], b.nb);
		area_path(pl, b.times, lo, hi, b.nb, HOST_TOP, HOST_H, ymax);
		fprintf(f, "><title>host %s</title></path>\n", names[i]);
	}
	steps_panel_end(pl, &host_steps);
	for (i = 0; i < 3 && b.nb; i++)
		fprintf(f, "<g class=\"legend\"><rect x=\"%d\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"%.1f\">host %s</text></g>\n",
			LEGEND_X, HOST_TOP + 14.0 * (double)i, colors[i],
			LEGEND_X + 18, HOST_TOP + 14.0 * (double)i + 10, names[i]);
	fputs("</g>\n", f);
	err = 0;
out:
	buckets_release(&b);
	free(vals);
	free(lo);
	free(hi);
	return err;
}

/*
 * The script: hovering a series shows the tooltip, its value under the
 * pointer (the step whose span holds its time, or the nearest point);
 * a click in a panel shows a quarter of the time window around it in
 * every panel ("Reset zoom" shows the whole run again); "Search" asks
 * for (a part of) a thread name and highlights the thread series that
 * hold it, dimming the others.  window.vigilPlot answers the same for a
 * script: at(name, t), zoom(a, b), unzoom(), search(term).  The window
 * shown is in the svg's data-view ("from,to" in s), the search in its
 * data-search.
 */
static const char script[] =
	"<![CDATA[\n"
	"(function () {\n"
	"  var NS = 'http://www.w3.org/2000/svg';\n"
	"  var svg = document.currentScript ? document.currentScript.closest('svg')\n"
	"                                   : document.querySelector('svg');\n"
	"  var span = +svg.getAttribute('data-span'), view = [0, span];\n"
	"  var each = function (list, f) { Array.prototype.forEach.call(list, f); };\n"
	"  var panels = Array.prototype.slice.call(svg.querySelectorAll('g.panel'));\n"
	"  var tip = svg.querySelector('#tip'), box = tip.querySelector('rect'),\n"
	"      line = tip.querySelector('text');\n"
	"  function num(g, a) { return +g.getAttribute(a); }\n"
	"  function nums(s) { return s ? s.split(',').map(Number) : []; }\n"
	"  function label(p) {\n"
	"    var tid = p.getAttribute('data-tid');\n"
	"    return p.getAttribute('data-name') + (tid ? ' (tid ' + tid + ')' : '');\n"
	"  }\n"
	"  function fmt(v) { return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2); }\n"
	"  function at(p, t) {\n"
	"    var g = p.closest('g.panel');\n"
	"    var ts = nums(p.getAttribute('data-times') || g.getAttribute('data-times'));\n"
	"    var vs = nums(p.getAttribute('data-values')), unit = g.getAttribute('data-unit'), i;\n"
	"    if (!vs.length) return null;\n"
	"    if (g.getAttribute('data-kind') === 'steps') {\n"
	"      for (i = 0; i + 1 < vs.length && ts[i + 1] <= t; i++);\n"
	"      return label(p) + ': ' + fmt(vs[i]) + ' ' + unit + ' from ' +\n"
	"        ts[i].toFixed(2) + ' s to ' + ts[i + 1].toFixed(2) + ' s';\n"
	"    }\n"
	"    for (i = 0; i + 1 < vs.length && Math.abs(ts[i + 1] - t) < Math.abs(ts[i] - t); i++);\n"
	"    return label(p) + ': ' + fmt(vs[i]) + ' ' + unit + ' at ' + ts[i].toFixed(2) + ' s';\n"
	"  }\n"
	"  function where(e) {\n"
	"    var pt = svg.createSVGPoint(), m = svg.getScreenCTM();\n"
	"    pt.x = e.clientX; pt.y = e.clientY;\n"
	"    return m ? pt.matrixTransform(m.inverse()) : pt;\n"
	"  }\n"
	"  /* The time at x in panel g, in the window shown. */\n"
	"  function time(g, x) {\n"
	"    var x0 = num(g, 'data-x0'), x1 = num(g, 'data-x1');\n"
	"    return view[0] + (x - x0) / (x1 - x0) * (view[1] - view[0]);\n"
	"  }\n"
	"  function show(p, e) {\n"
	"    var q = where(e), text = at(p, time(p.closest('g.panel'), q.x));\n"
	"    if (!text) return;\n"
	"    line.textContent = text;\n"
	"    var w = text.length * 7 + 12, x = Math.min(q.x + 12, 1200 - w - 4);\n"
	"    box.setAttribute('x', x); box.setAttribute('y', q.y + 12);\n"
	"    box.setAttribute('width', w);\n"
	"    line.setAttribute('x', x + 6); line.setAttribute('y', q.y + 27);\n"
	"    tip.setAttribute('visibility', 'visible');\n"
	"    svg.setAttribute('data-hover', label(p));\n"
	"  }\n"
	"  each(svg.querySelectorAll('.series'), function (p) {\n"
	"    p.addEventListener('mousemove', function (e) { show(p, e); });\n"
	"    p.addEventListener('mouseover', function (e) { show(p, e); });\n"
	"    p.addEventListener('mouseout', function () {\n"
	"      tip.setAttribute('visibility', 'hidden'); svg.removeAttribute('data-hover');\n"
	"    });\n"
	"  });\n"
	"  /* The time axis as the C side draws it: a tick at each k * step,\n"
	"   * step 1, 2 or 5 times a power of ten, about a quarter of the window;\n"
	"   * labels as printf's %g. */\n"
	"  function nice(max) {\n"
	"    var x = max > 0 ? max / 4 : 0.25, e = Math.pow(10, Math.floor(Math.log10(x)));\n"
	"    var m = x / e;\n"
	"    return (m < 1.5 ? 1 : m < 3 ? 2 : m < 7 ? 5 : 10) * e;\n"
	"  }\n"
	"  function add(parent, tag, attrs) {\n"
	"    var el = document.createElementNS(NS, tag), k;\n"
	"    for (k in attrs) el.setAttribute(k, attrs[k]);\n"
	"    return parent.appendChild(el);\n"
	"  }\n"
	"  function ticks(g) {\n"
	"    var ax = g.querySelector('g.taxis'), x0 = num(g, 'data-x0'), x1 = num(g, 'data-x1');\n"
	"    var y = num(g, 'data-y1'), a = view[0], b = view[1], step = nice(b - a), k, t, x;\n"
	"    while (ax.firstChild) ax.removeChild(ax.firstChild);\n"
	"    for (k = Math.ceil(a / step - 1e-9); (t = k * step) <= b + (b - a) * 1e-9; k++) {\n"
	"      x = x0 + (x1 - x0) * (t - a) / (b - a);\n"
	"      add(ax, 'line', { 'class': 'axis', x1: x, y1: y, x2: x, y2: y + 5 });\n"
	"      add(ax, 'text', { 'class': 'tick', x: x, y: y + 18, 'text-anchor': 'middle' })\n"
	"        .textContent = String(parseFloat(t.toPrecision(6)) || 0);\n"
	"    }\n"
	"  }\n"
	"  /* Shows the times a to b in every panel: the viewBox of its series'\n"
	"   * viewport narrows in x, the ticks are redrawn. */\n"
	"  function zoom(a, b) {\n"
	"    view = [a, b];\n"
	"    panels.forEach(function (g) {\n"
	"      var x0 = num(g, 'data-x0'), w = num(g, 'data-x1') - x0, s = g.querySelector('svg.zoom');\n"
	"      if (s) s.setAttribute('viewBox', [x0 + w * a / span, num(g, 'data-y0'),\n"
	"        w * (b - a) / span, num(g, 'data-y1') - num(g, 'data-y0')].join(' '));\n"
	"      ticks(g);\n"
	"      each(g.querySelectorAll('text.interval'), function (l) {\n"
	"        var t = +l.getAttribute('data-time');\n"
	"        l.setAttribute('x', x0 + w * (t - a) / (b - a) + 3);\n"
	"        l.setAttribute('visibility', t < a || t > b ? 'hidden' : 'visible');\n"
	"      });\n"
	"    });\n"
	"    svg.setAttribute('data-view', a + ',' + b);\n"
	"    svg.querySelector('#view').textContent = a === 0 && b === span ?\n"
	"      'click a panel to zoom in on that time' :\n"
	"      'showing ' + a.toFixed(3) + ' s to ' + b.toFixed(3) + ' s of ' + span.toFixed(3) + ' s';\n"
	"  }\n"
	"  function unzoom() { zoom(0, span); }\n"
	"  /* A click zooms in 4 times, centred on its time (kept inside the run). */\n"
	"  function zoomAt(t) {\n"
	"    var w = Math.max((view[1] - view[0]) / 4, span / 1e4);\n"
	"    var a = Math.min(Math.max(t - w / 2, 0), span - w);\n"
	"    zoom(a, a + w);\n"
	"  }\n"
	"  svg.addEventListener('click', function (e) {\n"
	"    var q = where(e);\n"
	"    panels.forEach(function (g) {\n"
	"      if (q.x >= num(g, 'data-x0') && q.x <= num(g, 'data-x1') &&\n"
	"          q.y >= num(g, 'data-y0') && q.y <= num(g, 'data-y1'))\n"
	"        zoomAt(time(g, q.x));\n"
	"    });\n"
	"  });\n"
	"  /* Highlights the thread series (and legend entries) whose name holds\n"
	"   * term, dims the other threads, and says how many matched and their\n"
	"   * share of the threads' CPU time; '' clears.  Returns the matches. */\n"
	"  function search(term) {\n"
	"    var n = 0, all = 0, hit = 0, sum = 0;\n"
	"    each(svg.querySelectorAll('#cpu .series[data-tid], #cpu g.legend[data-tid]'), function (p) {\n"
	"      var m = !!term && p.getAttribute('data-name').indexOf(term) >= 0;\n"
	"      p.classList.toggle('match', m);\n"
	"      p.classList.toggle('dim', !!term && !m);\n"
	"      if (p.tagName !== 'path') return;\n"
	"      all++; sum += num(p, 'data-cpu-ns');\n"
	"      if (m) { n++; hit += num(p, 'data-cpu-ns'); }\n"
	"    });\n"
	"    svg.querySelector('#matched').textContent = term ? n + ' of ' + all +\n"
	"      ' threads match \"' + term + '\": ' + (sum ? 100 * hit / sum : 0).toFixed(1) +\n"
	"      ' % of their CPU' : ' ';\n"
	"    if (term) svg.setAttribute('data-search', term); else svg.removeAttribute('data-search');\n"
	"    return n;\n"
	"  }\n"
	"  svg.querySelector('#unzoom').addEventListener('click', unzoom);\n"
	"  svg.querySelector('#search').addEventListener('click', function () {\n"
	"    var t = window.prompt('Search for (a part of) a thread name:',\n"
	"                          svg.getAttribute('data-search') || '');\n"
	"    if (t !== null) search(t);\n"
	"  });\n"
	"  window.vigilPlot = { at: function (name, t) {\n"
	"      var p = Array.prototype.filter.call(svg.querySelectorAll('.series'),\n"
	"        function (s) { return s.getAttribute('data-name') === name; })[0];\n"
	"      return p ? at(p, t) : null; },\n"
	"    zoom: zoom, unzoom: unzoom, search: search };\n"
	"})();\n"
	"]]>";

int out_plot(const struct vgl_reader *r, const char *title, FILE *f)
{
	struct plot pl = { .r = r, .f = f };
	const char *exe = r->exe ? strrchr(r->exe, '/') : NULL;
	int err;

	if (!r->nsamples)
		return -EINVAL;
	pl.t0 = r->samples[0].elapsed_ns;
	pl.span = (double)(r->samples[r->nsamples - 1].elapsed_ns - pl.t0) / 1e9;
	if (pl.span <= 0)
		pl.span = 1;    /* one sample: still a time axis */
	exe = exe ? exe + 1 : r->exe ? r->exe : "?";

	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\" data-span=\"%.9g\" data-view=\"0,%.9g\" "
		"data-samples=\"%zu\">\n",
		WIDTH, HEIGHT, WIDTH, HEIGHT, pl.span, pl.span, r->nsamples);
	fputs("<style>\n"
	      "text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; }\n"
	      "#title { font-size: 17px; }\n"
	      ".heading { font-size: 14px; font-weight: bold; }\n"
	      ".tick { font-size: 11px; fill: #444; }\n"
	      ".none { fill: #888; }\n"
	      "line.grid { stroke: #ddd; stroke-width: 1; }\n"
	      "line.axis { stroke: #000; stroke-width: 1; }\n"
	      ".series:hover { stroke: #000; stroke-width: 1; }\n"
	      "#tip rect { fill: #ffffe8; stroke: #444; }\n"
	      "#tip, #tip text { pointer-events: none; }\n"
	      "svg.zoom * { vector-effect: non-scaling-stroke; }\n"
	      ".dim { opacity: 0.2; }\n"
	      "path.match { stroke: #000; stroke-width: 2; }\n"
	      "g.match text { font-weight: bold; }\n"
	      "#unzoom, #search { cursor: pointer; fill: #0645ad; }\n"
	      "#view { fill: #666; }\n"
	      "line.interval { stroke: #888; stroke-width: 1; stroke-dasharray: 4,3; }\n"
	      "text.interval { font-size: 10px; fill: #666; }\n"
	      "</style>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
		WIDTH, HEIGHT);
	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">",
		WIDTH / 2);
	out_xml_text(f, title);
	fprintf(f, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"44\" text-anchor=\"middle\">",
		WIDTH / 2);
	out_xml_text(f, exe);
	fprintf(f, ", pid %" PRIu64 ": %zu readings over %.3f s</text>\n",
		r->meta.pid, r->nsamples,
		(double)(r->samples[r->nsamples - 1].elapsed_ns - pl.t0) / 1e9);
	/* The script's controls and what it says (see script above). */
	fputs("<text id=\"unzoom\" x=\"10\" y=\"24\">Reset zoom</text>\n"
	      "<text id=\"view\" x=\"10\" y=\"44\">click a panel to zoom in on that time</text>\n", f);
	fprintf(f, "<text id=\"search\" x=\"%d\" y=\"24\" text-anchor=\"end\">Search</text>\n"
		"<text id=\"matched\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\"> </text>\n",
		WIDTH - 10, X1, CPU_TOP - 10);

	err = cpu_panel(&pl);
	if (!err)
		err = memory_panel(&pl);
	if (!err)
		err = host_panel(&pl);
	if (err)
		return err;
	fputs("<g id=\"tip\" visibility=\"hidden\"><rect height=\"22\" rx=\"3\"/><text></text></g>\n", f);
	fprintf(f, "<script type=\"text/ecmascript\">%s</script>\n</svg>\n", script);
	return ferror(f) ? -EIO : 0;
}
