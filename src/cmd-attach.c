/*
 * cmd-attach.c - `vigil attach -p PID`: watch a running process with the
 * live sampler (sampler/sampler.h) and stream what it sees, one JSON
 * object per line (docs/attach.md has the schema) or as a table for
 * people.  Reads control lines on stdin while it runs.
 *
 * Three threads of control meet here: the sampler thread delivers samples
 * (and the target's end) through a callback; this thread waits in poll()
 * on stdin, a signalfd (SIGINT, SIGTERM), an eventfd the callback writes
 * when the run must end, and a timerfd for --duration.  Records are made
 * whole in memory under one lock and handed to a bounded queue whose own
 * thread writes them (out-queue.h): a reader of the pipe never sees half
 * a record, and one who does not read blocks only that thread, never the
 * sampler's callback (which holds the sampler's lock, so sampler_stop
 * would wait for it) nor the end of the run.  The target is only read:
 * never stopped, never ptraced; the one write is the live switch of an
 * ondemand program's counting sites (sampler/live.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "message.h"
#include "attach-vgl.h"
#include "image.h"
#include "duration.h"
#include "json.h"
#include "out-queue.h"
#include "outfile.h"
#include "sampler.h"
#include "symbols.h"
#include "tally.h"
#include "text.h"
#include "clock.h"
#include "cli.h"

const char cmd_attach_usage[] =
	"usage: vigil attach -p PID [--interval D] [--scan LIST|MASK]\n"
	"                    [--frequency HZ] [--duration D] [--count N]\n"
	"                    [--format jsonl|text] [-o FILE.vgl]\n"
	"                    [--unwind auto|dwarf[,SIZE]|fp]\n"
	"\n"
	"Reads the running process PID (-p or --pid) every interval D\n"
	"(default 1s; 1ms to 24h, like 250ms, 10s, 2m) and prints one record\n"
	"per reading: JSON Lines (the default; schema in docs/attach.md) or a\n"
	"table (--format text).\n"
	"The process is only read, never stopped or traced; the one write is\n"
	"the live switch of an ondemand program's counting (counts, below).\n"
	"\n"
	"--scan picks what each reading holds, as a comma-separated list or a\n"
	"bit mask (debugserver's scan_type bits):\n"
	"  host-cpu 0x1    host CPU time by kind since the previous reading\n"
	"  cpu 0x2         the process's user and system CPU time\n"
	"  threads 0x4     per thread: id, name, state, CPU time; new and ended\n"
	"  host-memory 0x20  host memory total and available\n"
	"  memory 0x40     RSS, anonymous, file, shared, swap, virtual size\n"
	"  io 0x100        bytes read and written (where permitted)\n"
	"  stacks 0x200    CPU stack samples at --frequency HZ (default 99),\n"
	"                  user space, unwound as --unwind says: dwarf, from\n"
	"                  the binaries' unwind tables (.eh_frame) and a copy\n"
	"                  of the stack (dwarf,SIZE: SIZE bytes of it, 1024\n"
	"                  to 65528, a multiple of 8; default 16384: see\n"
	"                  docs/attach.md for what each size reaches and\n"
	"                  costs); fp, the frame-pointer chain;\n"
	"                  auto (default), dwarf where the kernel allows\n"
	"  counts 0x400    exact calls per edge since the previous reading, read\n"
	"                  from the .vgl profile of a program linked with vigil;\n"
	"                  a program built with vigil-ondemand and started\n"
	"                  without VIGIL_FILE has its counting switched on\n"
	"                  while counts are scanned, and off again after\n"
	"                  (docs/ondemand.md)\n"
	"  all             every one of them\n"
	"Default: cpu,threads,memory.\n"
	"\n"
	"Lines read on stdin while it runs:\n"
	"  interval D      new interval, at once (the next reading in D)\n"
	"  scan LIST|MASK  new scan set, at once\n"
	"  frequency HZ    new stack sampling frequency\n"
	"  sample          one reading now\n"
	"  stop            end\n"
	"A good line is answered by a 'control' record, a bad one (or one\n"
	"longer than 4095 bytes, skipped to its newline) by one 'error'\n"
	"record, and changes nothing.  Lines are read only when stdin is a\n"
	"pipe, a socket or a terminal; /dev/null, a file or a closed stdin\n"
	"(cron, systemd, a script's background job) is no controller.\n"
	"\n"
	"Ends on SIGINT, SIGTERM, end of a controlling stdin, 'stop',\n"
	"--duration D, --count N readings, or the process's end, always with a\n"
	"last 'end' record saying why (and the process's exit status when the\n"
	"kernel showed it).\n"
	"With -o FILE.vgl, also writes every reading and stack sample to a\n"
	"sampled profile as the run goes (committed every second: valid\n"
	"even if vigil is killed), for 'vigil show' and 'vigil report';\n"
	"records still go to stdout.  Each window of counting switched on\n"
	"live goes to a profile of its own, FILE's name with .wNNNNNN.vgl.\n"
	"A FILE\n"
	"that cannot be created is refused before the first reading.\n"
	"\n"
	"Exits 0 then; 1 when PID cannot be watched (no such process, not\n"
	"permitted, stack sampling refused by kernel.perf_event_paranoid) or\n"
	"FILE.vgl cannot be created;\n"
	"2 for a bad command line.\n";

enum format { FORMAT_JSONL, FORMAT_TEXT };

/* The end of a run, in the order they are checked when two coincide. */
enum reason {
	REASON_NONE,
	REASON_EXITED,
	REASON_COUNT,
	REASON_SIGNAL,
	REASON_STOP,
	REASON_EOF,
	REASON_DURATION,
};

static const char *const reason_names[] = {
	"none", "exited", "count", "signal", "stop", "eof", "duration",
};

/* The longest control line acted on, newline not counted; a longer one
 * is refused whole (control_read). */
#define CONTROL_LINE_MAX 4095

/* Control input being split into lines. */
struct control_input {
	char line[CONTROL_LINE_MAX + 1];
	size_t have;
	int skipping;            /* in a refused over-long line */
};

/* How much output may wait for a slow reader before samples are dropped
 * (counted in the end record); 8 MiB is minutes of 1 ms samples without
 * stacks, seconds with. */
#define QUEUE_MAX_BYTES (8u << 20)
/* How long the end of a run waits for a reader who does not read. */
#define END_WAIT_NS 300000000ull

struct attach {
	pthread_mutex_t out_lock;
	FILE *out;               /* the record being made (a memstream) */
	char *rec;
	size_t rec_len;
	struct out_queue q;
	enum format format;
	pid_t pid;
	struct sampler *sampler;
	struct proc_image *image;     /* the target's maps (image.h) */
	struct sampler_symbols *syms;
	unsigned scan, frequency;
	uint64_t count_max, nsamples;
	uint64_t end_missed;     /* intervals after the last sample with none */
	uint64_t start_mono, prev_mono;
	uint64_t prev_ended_us;  /* text: the ended threads' CPU so far */
	int endfd;               /* eventfd: the callback says "end now" */
	/* Set by the callback under out_lock. */
	enum reason cb_reason;
	int exit_known, exit_status;
	int output_failed;
	int controller;          /* stdin is read; its end ends the run */
	struct control_input in;
	struct attach_vgl *vgl;  /* -o: what the file will hold */
	const char *vgl_path;
	int kernel_said;         /* stack_kernel_off told, once */
};

/* The functions of one sample's stacks, by name, with their self and
 * total samples (the "top" of the sample). */
struct tallies {
	char **names;            /* function i's */
	size_t n, cap;
	struct vgl_tally t;
	uint32_t *funcs;         /* one stack's functions, being added */
	size_t cap_funcs;
	size_t *order;           /* functions by self, total, name (fold_stacks) */
	size_t norder;
};

/* The number of the function called name, or VGL_TALLY_NONE when out of
 * memory. */
static uint32_t tally_of(struct tallies *ts, const char *name)
{
	size_t i;

	for (i = 0; i < ts->n; i++)
		if (!strcmp(ts->names[i], name))
			return (uint32_t)i;
	if (ts->n == ts->cap) {
		size_t cap = ts->cap ? ts->cap * 2 : 64;
		char **p = realloc(ts->names, cap * sizeof(*p));

		if (!p)
			return VGL_TALLY_NONE;
		ts->names = p;
		ts->cap = cap;
	}
	ts->names[ts->n] = strdup(name);
	if (!ts->names[ts->n])
		return VGL_TALLY_NONE;
	return (uint32_t)ts->n++;
}

static int cmp_tally(const void *a, const void *b, void *arg)
{
	const struct tallies *ts = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (ts->t.self[x] != ts->t.self[y])
		return ts->t.self[x] < ts->t.self[y] ? 1 : -1;
	if (ts->t.total[x] != ts->t.total[y])
		return ts->t.total[x] < ts->t.total[y] ? 1 : -1;
	return strcmp(ts->names[x], ts->names[y]);
}

static void tallies_free(struct tallies *ts)
{
	size_t i;

	for (i = 0; i < ts->n; i++)
		free(ts->names[i]);
	free(ts->names);
	vgl_tally_release(&ts->t);
	free(ts->funcs);
	free(ts->order);
}

#define MAX_FRAMES_OUT 64
#define MAX_INLINED 16   /* inlined functions per frame, at most */

/* ts->funcs[i] = fn, growing the array; -1 when out of memory. */
static int push_func(struct tallies *ts, size_t i, uint32_t fn)
{
	if (i >= ts->cap_funcs) {
		size_t cap = ts->cap_funcs ? ts->cap_funcs * 2 : 64;
		uint32_t *p = realloc(ts->funcs, cap * sizeof(*p));

		if (!p)
			return -1;
		ts->funcs = p;
		ts->cap_funcs = cap;
	}
	ts->funcs[i] = fn;
	return 0;
}

#define TOP_N 10

/* Names the frames of every stack and adds up self and total samples per
 * function; writes the stacks as JSON when f is not NULL. */
static void fold_stacks(struct attach *a, const struct sampler_sample *s,
			struct tallies *ts, FILE *f)
{
	char name[512];
	size_t i, nf;
	uint32_t j;

	if (f)
		fputs(",\"stacks\":[", f);
	for (i = 0; i < s->nstacks; i++) {
		const struct sampler_stack *st = &s->stacks[i];
		struct sampler_symbols *sy = a->syms;
		int old = st->before_exec;
		int ok = 1, cut = 0;

		/* A chain cut at MAX_FRAMES_OUT is truncated too: its outer
		 * frames are not in the line. */
		if (f) {
			const char *inl[MAX_INLINED];

			for (j = 0, nf = 0; j < st->nips; j++)
				nf += 1 + sampler_symbols_inlined(sy, st->ips[j],
						j > 0, old, inl, MAX_INLINED);
			cut = nf > MAX_FRAMES_OUT;
			fprintf(f, "%s{\"tid\":%d,\"count\":%" PRIu64
				",\"truncated\":%s,\"frames\":[", i ? "," : "",
				(int)st->tid, st->count,
				st->truncated || cut ? "true" : "false");
		}
		/* Each frame's inlined functions come before it, innermost
		 * first, "NAME (inlined)", as the files' outputs show them. */
		nf = 0;
		for (j = 0; j < st->nips; j++) {
			const char *inl[MAX_INLINED];
			size_t k, ni;

			sampler_symbols_name(sy, st->ips[j], j > 0, old, name,
					     sizeof(name));
			ni = sampler_symbols_inlined(sy, st->ips[j], j > 0, old,
						     inl, MAX_INLINED);
			for (k = 0; k <= ni; k++) {
				char both[512 + 16];
				const char *fn = name;

				if (k < ni) {
					snprintf(both, sizeof(both),
						 "%s (inlined)", inl[k]);
					fn = both;
				}
				if (f && nf < MAX_FRAMES_OUT) {
					if (nf)
						fputc(',', f);
					vgl_json_string(f, fn);
				}
				if (push_func(ts, nf, tally_of(ts, fn)))
					ok = 0;
				nf++;
			}
		}
		if (ok)
			vgl_tally_add(&ts->t, ts->funcs, nf, st->count);
		if (f)
			fputs("]}", f);
	}
	if (f)
		fputc(']', f);
	/* Every function named has its counts, if only 0s. */
	ts->order = malloc((ts->n + 1) * sizeof(*ts->order));
	if (!ts->order || vgl_tally_reserve(&ts->t, ts->n))
		return;
	for (i = 0; i < ts->n; i++)
		ts->order[i] = i;
	ts->norder = ts->n;
	qsort_r(ts->order, ts->norder, sizeof(*ts->order), cmp_tally, ts);
}

static const char *state_name(char c, char *buf)
{
	buf[0] = c ? c : '?';
	buf[1] = 0;
	return buf;
}

static int cmp_edge_delta(const void *x, const void *y)
{
	const struct sampler_edge *a = x, *b = y;

	if (a->delta != b->delta)
		return a->delta < b->delta ? 1 : -1;
	return (a->callee > b->callee) - (a->callee < b->callee);
}

/* The counts of a sample as JSON: every edge that grew, named. */
static void write_json_counts(struct attach *a, const struct sampler_sample *s)
{
	FILE *f = a->out;
	char name[512];
	size_t i;

	/* The reading that ended a window of the live switch. */
	if (s->counts_window_seq) {
		fprintf(f, ",\"counts_window\":%" PRIu64
			",\"counts_window_calls\":%" PRIu64
			",\"counts_window_file\":", s->counts_window_seq,
			s->counts_window_calls);
		if (s->counts_window_file)
			vgl_json_string(f, s->counts_window_file);
		else
			fputs("null", f);
	}
	if (s->counts_error) {
		fputs(",\"counts_error\":", f);
		vgl_json_string(f, s->counts_error);
		return;
	}
	fputs(",\"counts_file\":", f);
	vgl_json_string(f, s->counts_file);
	fprintf(f, ",\"counts_final\":%s,\"calls_delta\":%" PRIu64
		",\"calls_total\":%" PRIu64 ",\"edges\":[",
		s->final ? "true" : "false", s->calls_delta, s->calls_total);
	for (i = 0; i < s->nedges; i++) {
		const struct sampler_edge *e = &s->edges[i];

		fputs(i ? ",{\"caller\":" : "{\"caller\":", f);
		vgl_json_string(f, sampler_symbols_name(a->syms, e->site, 1, 0,
							name, sizeof(name)));
		fputs(",\"callee\":", f);
		vgl_json_string(f, sampler_symbols_name(a->syms, e->callee, 0, 0,
							name, sizeof(name)));
		fprintf(f, ",\"site\":\"0x%" PRIx64 "\",\"delta\":%" PRIu64
			",\"total\":%" PRIu64 "}", e->site, e->delta, e->total);
	}
	fputc(']', f);
}

/* The counts of a sample for people: the edges that grew most. */
static void write_text_counts(struct attach *a, const struct sampler_sample *s)
{
	struct sampler_edge *e;
	char caller[512], callee[512];
	FILE *f = a->out;
	size_t i;

	if (s->counts_error) {
		/* It may name the target's profile, a path it chose. */
		fputs("  counts: ", f);
		vgl_text_line(f, s->counts_error);
		fputc('\n', f);
		return;
	}
	fprintf(f, "  %12s  %s (%" PRIu64 " calls since the previous reading, %"
		PRIu64 " in all)\n", "CALLS", "CALLER -> CALLEE", s->calls_delta,
		s->calls_total);
	e = malloc(s->nedges * sizeof(*e) + 1);
	if (!e)
		return;
	if (s->nedges)
		memcpy(e, s->edges, s->nedges * sizeof(*e));
	qsort(e, s->nedges, sizeof(*e), cmp_edge_delta);
	for (i = 0; i < s->nedges && i < TOP_N; i++) {
		fprintf(f, "  %12" PRIu64 "  ", e[i].delta);
		vgl_text_line(f, sampler_symbols_name(a->syms, e[i].site, 1, 0,
						      caller, sizeof(caller)));
		fputs(" -> ", f);
		vgl_text_line(f, sampler_symbols_name(a->syms, e[i].callee, 0, 0,
						      callee, sizeof(callee)));
		fputc('\n', f);
	}
	free(e);
}

static void write_json_sample(struct attach *a, const struct sampler_sample *s)
{
	FILE *f = a->out;
	char st[2];
	size_t i;
	int first = 1;

	fprintf(f, "{\"type\":\"sample\",\"seq\":%" PRIu64 ",\"pid\":%d,"
		"\"time_ns\":%" PRIu64 ",\"elapsed_us\":%" PRIu64
		",\"interval_us\":%" PRIu64 ",\"missed_ticks\":%" PRIu64
		",\"state\":\"%s\",\"stopped\":%s,\"exe\":",
		s->seq, (int)a->pid, s->time_ns,
		(s->mono_ns - a->start_mono) / 1000, s->interval_ns / 1000,
		s->missed_ticks,
		state_name(s->state, st), s->stopped ? "true" : "false");
	vgl_json_string(f, s->exe);
	fprintf(f, ",\"exe_changed\":%s,\"scan\":[",
		s->exe_changed ? "true" : "false");
	for (i = 0; i < 16; i++)
		if (s->scan & (1u << i) && sampler_scan_name(1u << i)) {
			fprintf(f, "%s\"%s\"", first ? "" : ",",
				sampler_scan_name(1u << i));
			first = 0;
		}
	fputc(']', f);
	/* Scans the end of the run cut short: said, not left out silently. */
	if (s->scan_cut) {
		fputs(",\"cut_short\":[", f);
		for (i = 0, first = 1; i < 16; i++)
			if (s->scan_cut & (1u << i) && sampler_scan_name(1u << i)) {
				fprintf(f, "%s\"%s\"", first ? "" : ",",
					sampler_scan_name(1u << i));
				first = 0;
			}
		fputc(']', f);
	}
	/* An idle ondemand program whose counting was switched from here
	 * (issue 29): whether it is on now, in every reading since. */
	if (s->counts_live_switches)
		fprintf(f, ",\"counts_live\":%s,\"counts_live_sites\":%" PRIu64
			",\"counts_live_switches\":%" PRIu64
			",\"counts_live_switch_us\":%" PRIu64,
			s->counts_live ? "true" : "false", s->counts_live_sites,
			s->counts_live_switches, s->counts_live_switch_ns / 1000);
	if (s->scan & SAMPLER_SCAN_CPU)
		fprintf(f, ",\"cpu_user_us\":%" PRIu64 ",\"cpu_sys_us\":%" PRIu64
			",\"cpu_user_delta_us\":%" PRIu64
			",\"cpu_sys_delta_us\":%" PRIu64
			",\"cpu_run_ns\":%" PRIu64 ",\"cpu_run_delta_ns\":%" PRIu64,
			s->cpu_user_us, s->cpu_sys_us, s->cpu_user_delta_us,
			s->cpu_sys_delta_us, s->cpu_run_ns, s->cpu_run_delta_ns);
	if (s->scan & SAMPLER_SCAN_HOST_CPU)
		fprintf(f, ",\"host_user_us\":%" PRIu64 ",\"host_sys_us\":%" PRIu64
			",\"host_idle_us\":%" PRIu64 ",\"host_iowait_us\":%" PRIu64,
			s->host_user_us, s->host_sys_us, s->host_idle_us,
			s->host_iowait_us);
	if (s->scan & SAMPLER_SCAN_MEMORY)
		fprintf(f, ",\"rss_bytes\":%" PRIu64 ",\"anon_bytes\":%" PRIu64
			",\"file_bytes\":%" PRIu64 ",\"shmem_bytes\":%" PRIu64
			",\"swap_bytes\":%" PRIu64 ",\"vsize_bytes\":%" PRIu64,
			s->rss_bytes, s->anon_bytes, s->file_bytes,
			s->shmem_bytes, s->swap_bytes, s->vsize_bytes);
	if (s->scan & SAMPLER_SCAN_HOST_MEMORY)
		fprintf(f, ",\"host_mem_total_bytes\":%" PRIu64
			",\"host_mem_available_bytes\":%" PRIu64,
			s->host_mem_total_bytes, s->host_mem_available_bytes);
	if ((s->scan & SAMPLER_SCAN_IO) && s->io_ok)
		fprintf(f, ",\"io_read_bytes\":%" PRIu64 ",\"io_write_bytes\":%" PRIu64
			",\"io_rchar_bytes\":%" PRIu64 ",\"io_wchar_bytes\":%" PRIu64,
			s->io_read_bytes, s->io_write_bytes, s->io_rchar,
			s->io_wchar);
	else if (s->scan & SAMPLER_SCAN_IO) {
		fputs(",\"io_error\":", f);
		vgl_json_string(f, strerror(s->io_errno));
	}
	if (s->scan & SAMPLER_SCAN_THREADS) {
		fputs(",\"threads\":[", f);
		for (i = 0; i < s->nthreads; i++) {
			const struct sampler_thread *t = &s->threads[i];

			fprintf(f, "%s{\"tid\":%d,\"name\":", i ? "," : "",
				(int)t->tid);
			vgl_json_string(f, t->name);
			fprintf(f, ",\"state\":\"%s\",\"new\":%s,\"cpu_user_us\":%"
				PRIu64 ",\"cpu_sys_us\":%" PRIu64
				",\"cpu_run_ns\":%" PRIu64
				",\"cpu_run_delta_ns\":%" PRIu64 "}",
				state_name(t->state, st),
				t->is_new ? "true" : "false", t->user_us,
				t->sys_us, t->run_ns, t->run_delta_ns);
		}
		fputs("],\"threads_ended\":[", f);
		for (i = 0; i < s->nended; i++)
			fprintf(f, "%s%d", i ? "," : "", (int)s->ended[i]);
		fprintf(f, "],\"ended_cpu_user_us\":%" PRIu64
			",\"ended_cpu_sys_us\":%" PRIu64, s->ended_user_us,
			s->ended_sys_us);
	}
	if (s->scan & SAMPLER_SCAN_STACKS) {
		struct tallies ts = { 0 };

		fprintf(f, ",\"frequency_hz\":%u,\"unwind\":\"%s\""
			",\"stack_samples\":%" PRIu64 ",\"stack_lost\":%" PRIu64,
			s->frequency, sampler_unwind_name(s->unwind),
			s->stack_samples, s->stack_lost);
		fold_stacks(a, s, &ts, f);
		fputs(",\"top\":[", f);
		for (i = 0; i < ts.norder && i < TOP_N; i++) {
			size_t k = ts.order[i];

			fputs(i ? ",{\"function\":" : "{\"function\":", f);
			vgl_json_string(f, ts.names[k]);
			fprintf(f, ",\"self\":%" PRIu64 ",\"total\":%" PRIu64 "}",
				ts.t.self[k], ts.t.total[k]);
		}
		fputc(']', f);
		tallies_free(&ts);
	}
	if (s->scan & SAMPLER_SCAN_COUNTS)
		write_json_counts(a, s);
	fputs("}\n", f);
}

static int cmp_thread_cpu(const void *a, const void *b)
{
	const struct sampler_thread *x = a, *y = b;

	if (x->run_delta_ns != y->run_delta_ns)
		return x->run_delta_ns < y->run_delta_ns ? 1 : -1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Like pidstat -t: one header line per sample, then threads by CPU share,
 * then the top functions. */
static void write_text_sample(struct attach *a, const struct sampler_sample *s)
{
	uint64_t span = s->mono_ns - a->prev_mono;
	FILE *f = a->out;
	size_t i;

	if (!span)
		span = 1;
	fprintf(f, "# %.3fs pid %d state %c%s", (double)(s->mono_ns -
		a->start_mono) / 1e9, (int)a->pid, s->state ? s->state : '?',
		s->stopped ? " (stopped)" : "");
	if (s->exe_changed) {
		fputs(" exec ", f);
		vgl_text_line(f, s->exe ? s->exe : "?");
	}
	if (s->missed_ticks)
		fprintf(f, " (%" PRIu64 " ticks missed)", s->missed_ticks);
	if (s->scan_cut & SAMPLER_SCAN_THREADS)
		fputs(" (threads cut short: stopped)", f);
	if (s->scan & SAMPLER_SCAN_CPU)
		fprintf(f, " usr %.1f%% sys %.1f%%",
			100.0 * (double)s->cpu_user_delta_us * 1000 / (double)span,
			100.0 * (double)s->cpu_sys_delta_us * 1000 / (double)span);
	if (s->scan & SAMPLER_SCAN_MEMORY)
		fprintf(f, " rss %.1fMiB anon %.1fMiB swap %.1fMiB vsz %.1fMiB",
			(double)s->rss_bytes / 1048576, (double)s->anon_bytes / 1048576,
			(double)s->swap_bytes / 1048576, (double)s->vsize_bytes / 1048576);
	if (s->scan & SAMPLER_SCAN_HOST_MEMORY)
		fprintf(f, " host-avail %.1fMiB",
			(double)s->host_mem_available_bytes / 1048576);
	if ((s->scan & SAMPLER_SCAN_IO) && s->io_ok)
		fprintf(f, " read %" PRIu64 "B written %" PRIu64 "B",
			s->io_read_bytes, s->io_write_bytes);
	fputc('\n', f);
	if (s->scan & SAMPLER_SCAN_THREADS) {
		struct sampler_thread *t = malloc(s->nthreads * sizeof(*t) + 1);

		if (t) {
			if (s->nthreads)
				memcpy(t, s->threads, s->nthreads * sizeof(*t));
			qsort(t, s->nthreads, sizeof(*t), cmp_thread_cpu);
			fprintf(f, "  %8s %-16s %s %6s\n", "TID", "NAME", "S", "%CPU");
			/* The first sample has no previous one to share
			 * CPU time since. */
			for (i = 0; i < s->nthreads; i++) {
				char cpu[32] = "-";

				if (s->seq > 1)
					snprintf(cpu, sizeof(cpu), "%.1f",
						 100.0 * (double)t[i].run_delta_ns /
						 (double)span);
				/* A thread names itself (PR_SET_NAME):
				 * its name's control bytes are escaped,
				 * as every text view gives them (text.h). */
				fprintf(f, "  %8d ", (int)t[i].tid);
				vgl_text_line_pad(f, t[i].name, 16);
				fprintf(f, " %c %6s%s\n", t[i].state, cpu,
					t[i].is_new ? " new" : "");
			}
			free(t);
		}
		for (i = 0; i < s->nended; i++)
			fprintf(f, "  %8d ended\n", (int)s->ended[i]);
		{
			/* The CPU of the threads that ended since the
			 * previous sample, seen or not (clock ticks). */
			uint64_t e = s->ended_user_us + s->ended_sys_us;
			char cpu[32] = "-";

			if (s->seq > 1 && e >= a->prev_ended_us)
				snprintf(cpu, sizeof(cpu), "%.1f",
					 100.0 * (double)(e - a->prev_ended_us) *
					 1000 / (double)span);
			fprintf(f, "  %8s %-16s %c %6s\n", "-", "(ended threads)",
				'-', cpu);
			a->prev_ended_us = e;
		}
	}
	if ((s->scan & SAMPLER_SCAN_STACKS) && s->stack_samples) {
		struct tallies ts = { 0 };

		fold_stacks(a, s, &ts, NULL);
		fprintf(f, "  %6s %6s  %s (%" PRIu64 " stack samples)\n",
			"SELF%", "TOTAL%", "FUNCTION", s->stack_samples);
		for (i = 0; i < ts.norder && i < TOP_N; i++) {
			size_t k = ts.order[i];

			fprintf(f, "  %6.1f %6.1f  ",
				100.0 * (double)ts.t.self[k] / (double)s->stack_samples,
				100.0 * (double)ts.t.total[k] / (double)s->stack_samples);
			vgl_text_line(f, ts.names[k]);
			fputc('\n', f);
		}
		tallies_free(&ts);
	}
	if (s->scan & SAMPLER_SCAN_COUNTS)
		write_text_counts(a, s);
}

static void signal_end(struct attach *a)
{
	uint64_t one = 1;

	if (write(a->endfd, &one, sizeof(one)) < 0) {
		/* Full counter: the main loop is already told. */
	}
}

/* Starts a record in memory (a->out); returns 0, or -ENOMEM when there
 * is no memory for it (the record is then not made). */
static int rec_begin(struct attach *a)
{
	a->rec = NULL;
	a->rec_len = 0;
	a->out = open_memstream(&a->rec, &a->rec_len);
	return a->out ? 0 : -ENOMEM;
}

/* Hands the record to the writer's queue. */
static void rec_end(struct attach *a, int droppable)
{
	if (!a->out || fclose(a->out)) {
		free(a->rec);
		a->rec = NULL;
		a->rec_len = 0;
	}
	a->out = NULL;
	if (a->rec)
		out_queue_put(&a->q, a->rec, a->rec_len, droppable);
	else if (droppable)
		out_queue_drop(&a->q);
	a->rec = NULL;
}

/* The writer could not write (the reader went away): end as if our
 * stdin had ended.  On the writer's thread. */
static void on_output_failed(void *arg)
{
	struct attach *a = arg;

	pthread_mutex_lock(&a->out_lock);
	a->output_failed = 1;
	pthread_mutex_unlock(&a->out_lock);
	signal_end(a);
}

/* The sampler's callback: on the sampler thread, with its lock held.  It
 * never writes: the record goes to the queue. */
static void on_sample(const struct sampler_sample *s, void *arg)
{
	struct attach *a = arg;

	pthread_mutex_lock(&a->out_lock);
	if (s->kind == SAMPLER_MAPS) {
		/* The sampler read the maps again: the modules now, while
		 * the target lives; no record. */
		if (a->vgl)
			attach_vgl_maps(a->vgl);
		goto out;
	}
	if (s->kind == SAMPLER_ENDED) {
		if (a->cb_reason == REASON_NONE) {
			a->cb_reason = REASON_EXITED;
			a->exit_known = s->exit_known;
			a->exit_status = s->exit_status;
		}
		signal_end(a);
		goto out;
	}
	/* Past --count, the run is ending: no more samples. */
	if (a->cb_reason != REASON_NONE)
		goto out;
	if (s->stack_kernel_off && !a->kernel_said) {
		a->kernel_said = 1;
		vgl_warning("stack sampling: %s",
			s->stack_kernel_off);
	}
	if (a->vgl)
		attach_vgl_sample(a->vgl, s);
	if (!rec_begin(a)) {
		if (a->format == FORMAT_JSONL)
			write_json_sample(a, s);
		else
			write_text_sample(a, s);
	}
	rec_end(a, 1);
	a->prev_mono = s->mono_ns;
	if (++a->nsamples == a->count_max) {
		a->cb_reason = REASON_COUNT;
		signal_end(a);
	}
out:
	pthread_mutex_unlock(&a->out_lock);
}

/* Writes one record from this thread: "control" or "error". */
static void write_record(struct attach *a, const char *type, const char *line,
			 const char *key, const char *value)
{
	pthread_mutex_lock(&a->out_lock);
	if (rec_begin(a))
		goto out;
	if (a->format == FORMAT_JSONL) {
		fprintf(a->out, "{\"type\":\"%s\",\"line\":", type);
		vgl_json_string(a->out, line);
		fprintf(a->out, ",\"%s\":", key);
		vgl_json_string(a->out, value);
		fputs("}\n", a->out);
	} else {
		fprintf(a->out, "# %s: %s: %s\n", type, line, value);
	}
	rec_end(a, 0);
out:
	pthread_mutex_unlock(&a->out_lock);
}

static void scan_list(unsigned scan, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; i < 16; i++)
		if ((scan & (1u << i)) && sampler_scan_name(1u << i) &&
		    n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? "," : "",
					      sampler_scan_name(1u << i));
}

/* How much of a refused over-long line its error record echoes. */
#define CONTROL_ECHO_MAX 64

/*
 * The first bytes of s (at most max), cut back to the start of a UTF-8
 * character so that the echo never ends inside one.  Returns the length.
 */
static size_t utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	while (max && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}

/*
 * Acts on one control line (len bytes, no newline; line[len] is writable
 * and becomes 0).  Returns REASON_STOP for "stop", else REASON_NONE; a bad
 * line gets one error record and changes nothing.
 */
static enum reason control(struct attach *a, char *line, size_t len)
{
	char err[SAMPLER_ERR_LEN], *echo, *cmd = line, *arg;
	uint64_t ns;
	unsigned v;
	int r;

	line[len] = 0;
	if (memchr(line, 0, len)) {
		/* Not a shorter command, nor an empty line: an error,
		 * echoed with each NUL shown as U+FFFD (JSON strings are
		 * C strings here). */
		char *shown = malloc(len * 3 + 1), *o = shown;
		size_t i;

		if (shown) {
			for (i = 0; i < len; i++)
				if (line[i])
					*o++ = line[i];
				else
				{
					memcpy(o, "\xef\xbf\xbd", 3);
					o += 3;
				}
			*o = 0;
		}
		write_record(a, "error", shown ? shown : "", "error",
			     "control line holds a NUL byte");
		free(shown);
		return REASON_NONE;
	}
	while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' ||
		       line[len - 1] == '\t'))
		line[--len] = 0;
	while (*cmd == ' ' || *cmd == '\t')
		cmd++;
	if (!*cmd)
		return REASON_NONE;
	arg = strpbrk(cmd, " \t");
	if (arg) {
		*arg++ = 0;
		while (*arg == ' ' || *arg == '\t')
			arg++;
	}
	if (!strcmp(cmd, "stop") && !arg)
		return REASON_STOP;
	/* The line as answered: the command and its argument, whole (a
	 * line is at most CONTROL_LINE_MAX bytes). */
	if (asprintf(&echo, "%s%s%s", cmd, arg ? " " : "", arg ? arg : "") < 0)
		echo = NULL;
	r = 0;
	if (!strcmp(cmd, "sample") && !arg) {
		sampler_sample_now(a->sampler);
		write_record(a, "control", "sample", "ok", "sample");
	} else if (!strcmp(cmd, "interval") && arg) {
		r = vgl_parse_duration(arg, &ns);
		if (r)
			snprintf(err, sizeof(err), "bad interval '%s' (like 250ms, 10s, 2m)", arg);
		else
			r = sampler_set_interval(a->sampler, ns, err, sizeof(err));
		write_record(a, r ? "error" : "control", echo ? echo : cmd,
			     r ? "error" : "ok", r ? err : "interval");
	} else if (!strcmp(cmd, "scan") && arg) {
		r = sampler_parse_scan(arg, &v, err, sizeof(err));
		if (!r)
			r = sampler_set_scan(a->sampler, v, 0, err, sizeof(err));
		if (!r)
			a->scan = v;
		write_record(a, r ? "error" : "control", echo ? echo : cmd,
			     r ? "error" : "ok", r ? err : "scan");
	} else if (!strcmp(cmd, "frequency") && arg) {
		r = sampler_parse_hz(arg, &v);
		if (r)
			snprintf(err, sizeof(err),
				 "bad frequency '%s' (1 to %u Hz)", arg,
				 SAMPLER_FREQ_MAX);
		else
			r = sampler_set_scan(a->sampler, a->scan, v, err,
					     sizeof(err));
		if (!r)
			a->frequency = v;
		write_record(a, r ? "error" : "control", echo ? echo : cmd,
			     r ? "error" : "ok", r ? err : "frequency");
	} else {
		write_record(a, "error", echo ? echo : cmd, "error",
			     "unknown control line (interval D, scan LIST, frequency HZ, sample, stop)");
	}
	free(echo);
	return REASON_NONE;
}


/*
 * Takes n bytes read from stdin and acts on every line they complete.  A
 * line longer than CONTROL_LINE_MAX is refused with one error record as
 * soon as it is too long (echoing its start), and the rest of it, up to
 * its newline, is skipped: its tail is never taken for a line of its own.
 * Returns REASON_STOP for a "stop" line, else REASON_NONE.
 */
static enum reason control_read(struct attach *a, struct control_input *in,
				const char *p, size_t n)
{
	char echo[CONTROL_ECHO_MAX + 4];

	while (n) {
		const char *nl = memchr(p, '\n', n);
		size_t seg = nl ? (size_t)(nl - p) : n;

		if (!in->skipping && in->have + seg > CONTROL_LINE_MAX) {
			size_t k = CONTROL_LINE_MAX - in->have;

			memcpy(in->line + in->have, p, k);
			k = utf8_cut(in->line, CONTROL_LINE_MAX,
				     CONTROL_ECHO_MAX);
			memcpy(echo, in->line, k);
			memcpy(echo + k, "...", 4);
			write_record(a, "error", echo, "error",
				     "control line too long (more than 4095 bytes): skipped to its end");
			in->skipping = 1;
			in->have = 0;
		}
		if (!in->skipping) {
			memcpy(in->line + in->have, p, seg);
			in->have += seg;
		}
		if (!nl)
			break;
		if (!in->skipping && control(a, in->line, in->have) == REASON_STOP)
			return REASON_STOP;
		in->have = 0;
		in->skipping = 0;
		p = nl + 1;
		n -= seg + 1;
	}
	return REASON_NONE;
}

/* At the end of the input: a last line without a newline counts too. */
static enum reason control_eof(struct attach *a, struct control_input *in)
{
	enum reason r = REASON_NONE;

	if (!in->skipping && in->have)
		r = control(a, in->line, in->have);
	in->have = 0;
	return r == REASON_STOP ? REASON_STOP : REASON_EOF;
}

/* The end record: samples written (all before it in the queue) and not
 * written (dropped while the reader did not keep up). */
static void write_end(struct attach *a, enum reason why, int sig)
{
	uint64_t dropped;
	FILE *f;

	pthread_mutex_lock(&a->out_lock);
	if (rec_begin(a))
		goto out;
	f = a->out;
	dropped = out_queue_dropped(&a->q);
	if (a->format == FORMAT_JSONL) {
		fprintf(f, "{\"type\":\"end\",\"reason\":\"%s\",\"pid\":%d,"
			"\"samples\":%" PRIu64 ",\"dropped\":%" PRIu64
			",\"missed_ticks\":%" PRIu64,
			reason_names[why], (int)a->pid, a->nsamples - dropped,
			dropped, a->end_missed);
		if (why == REASON_SIGNAL)
			fprintf(f, ",\"signal\":\"%s\"",
				sig == SIGINT ? "SIGINT" : "SIGTERM");
		if (why == REASON_EXITED) {
			if (!a->exit_known)
				fputs(",\"exit_code\":null,\"exit_signal\":null", f);
			else if (WIFSIGNALED(a->exit_status))
				fprintf(f, ",\"exit_code\":null,\"exit_signal\":%d",
					WTERMSIG(a->exit_status));
			else
				fprintf(f, ",\"exit_code\":%d,\"exit_signal\":null",
					WEXITSTATUS(a->exit_status));
		}
		fputs("}\n", f);
	} else {
		fprintf(f, "# end: %s", reason_names[why]);
		if (why == REASON_EXITED && a->exit_known) {
			if (WIFSIGNALED(a->exit_status))
				fprintf(f, " (signal %d)", WTERMSIG(a->exit_status));
			else
				fprintf(f, " (exit %d)", WEXITSTATUS(a->exit_status));
		}
		fprintf(f, ", %" PRIu64 " readings", a->nsamples - dropped);
		if (dropped)
			fprintf(f, " (%" PRIu64 " not written: the reader did not keep up)",
				dropped);
		fputc('\n', f);
	}
	rec_end(a, 0);
out:
	pthread_mutex_unlock(&a->out_lock);
}

/* Lets us keep a descriptor per thread per CPU for stacks. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Parses the command line into a and cfg; returns 0 or an exit status. */
static int parse(int argc, char **argv, struct attach *a,
		 struct sampler_config *cfg, uint64_t *duration)
{
	const char *pid = NULL, *pid2 = NULL, *interval = NULL, *scan = NULL,
		   *freq = NULL, *dur = NULL, *count = NULL, *format = NULL,
		   *out = NULL, *unwind = NULL;
	const struct option_spec specs[] = {
		{ "-p", &pid, NULL }, { "--pid", &pid2, NULL },
		{ "--interval", &interval, NULL }, { "--scan", &scan, NULL },
		{ "--frequency", &freq, NULL }, { "--duration", &dur, NULL },
		{ "--count", &count, NULL }, { "--format", &format, NULL },
		{ "-o", &out, NULL }, { "--unwind", &unwind, NULL },
		{ NULL, NULL, NULL },
	};
	char **operands, err[SAMPLER_ERR_LEN], *end;
	int nops, ret;
	unsigned long long c;

	operands = calloc((size_t)argc + 1, sizeof(*operands));
	if (!operands)
		return usage_error("attach", "out of memory");
	ret = parse_options("attach", argc, argv, specs, operands, &nops);
	if (!ret && nops)
		ret = usage_error("attach", "unexpected operand '%s'", operands[0]);
	free(operands);
	if (ret)
		return ret;
	if (pid2)
		pid = pid2;
	if (!pid)
		return usage_error("attach", "no process given (-p PID)");
	if ((ret = parse_pid("attach", pid, &cfg->pid)))
		return ret;
	{
		const struct sampler_flags f = { interval, scan, freq, unwind };

		if (sampler_parse_flags(&f, cfg, err, sizeof(err)))
			return usage_error("attach", "%s", err);
	}
	*duration = 0;
	if (dur && (vgl_parse_duration(dur, duration) || !*duration))
		return usage_error("attach", "bad --duration '%s' (like 500ms, 10s, 2m)",
				   dur);
	a->count_max = 0;
	if (count) {
		errno = 0;
		c = strtoull(count, &end, 10);
		if (errno || *end || end == count || !c || count[0] == '-')
			return usage_error("attach", "bad --count '%s' (a number of readings, 1 or more)",
					   count);
		a->count_max = c;
	}
	a->format = FORMAT_JSONL;
	if (format && !strcmp(format, "text"))
		a->format = FORMAT_TEXT;
	else if (format && strcmp(format, "jsonl"))
		return usage_error("attach", "bad --format '%s' (jsonl or text)",
				   format);
	if (out && !*out)
		return usage_error("attach", "-o needs a file name");
	a->vgl_path = out;
	a->scan = cfg->scan;
	a->frequency = cfg->frequency;
	return 0;
}

/*
 * Whether the -o file can be created, checked before the first sample so
 * that a run is not spent on a file that cannot be written: a temporary
 * file is made beside it, as the writer will, and removed.  A stream (a
 * FIFO, a device) is checked by outfile's rule alone, as the writer will
 * open it only at the end.  Returns 0 or a negative errno, for
 * outfile_strerror (which names a refused directory or link, and why).
 */
static int output_creatable(const char *path)
{
	struct outfile o;
	int err;

	err = outfile_is_stream(path);
	if (err)
		return err < 0 ? err : 0;
	err = outfile_open(&o, path);
	if (!err)
		err = outfile_close(&o, 0);
	return err;
}

/* Arms a one-shot timerfd for --duration; -1 when there is none. */
static int duration_fd(uint64_t ns)
{
	struct itimerspec it = { 0 };
	int fd;

	if (!ns)
		return -1;
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (fd < 0)
		return -1;
	it.it_value.tv_sec = (time_t)(ns / 1000000000ull);
	it.it_value.tv_nsec = (long)(ns % 1000000000ull);
	timerfd_settime(fd, 0, &it, NULL);
	return fd;
}

/*
 * Waits for the end of the run, acting on control lines meanwhile (when
 * a->controller: stdin is read, and its end ends the run).  Returns the
 * reason, with *sig the signal for REASON_SIGNAL.
 */
static enum reason run_loop(struct attach *a, int sigfd, int durfd, int *sig)
{
	char buf[4096];
	struct pollfd pfd[4];

	for (;;) {
		pfd[0] = (struct pollfd){ .fd = a->endfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = sigfd, .events = POLLIN };
		pfd[2] = (struct pollfd){ .fd = a->controller ? 0 : -1,
					  .events = POLLIN };
		pfd[3] = (struct pollfd){ .fd = durfd, .events = POLLIN };
		if (poll(pfd, 4, -1) < 0) {
			if (errno == EINTR)
				continue;
			return REASON_EOF;
		}
		if (pfd[0].revents) {
			enum reason r;

			pthread_mutex_lock(&a->out_lock);
			r = a->cb_reason;
			pthread_mutex_unlock(&a->out_lock);
			/* Output that cannot be written ends us as if the
			 * reader had closed our stdin. */
			return r != REASON_NONE ? r : REASON_EOF;
		}
		if (pfd[1].revents) {
			struct signalfd_siginfo si;

			if (read(sigfd, &si, sizeof(si)) == sizeof(si))
				*sig = (int)si.ssi_signo;
			return REASON_SIGNAL;
		}
		if (pfd[3].revents)
			return REASON_DURATION;
		if (pfd[2].revents) {
			ssize_t n = read(0, buf, sizeof(buf));

			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0)
				return control_eof(a, &a->in);
			if (control_read(a, &a->in, buf, (size_t)n) == REASON_STOP)
				return REASON_STOP;
		}
	}
}

/*
 * Where the live switch's windows go (docs/ondemand.md): next to the
 * -o file, NAME.wNNNNNN.vgl for -o NAME.vgl; none without -o, or when -o
 * names a FIFO or a device (a stream has no "next to").
 */
static char *window_stem(const char *path)
{
	struct stat st;
	size_t n;
	char *stem;

	if (!path || (stat(path, &st) == 0 && !S_ISREG(st.st_mode)))
		return NULL;
	n = strlen(path);
	if (n > 4 && !strcmp(path + n - 4, ".vgl"))
		n -= 4;
	stem = malloc(n + 1);
	if (stem) {
		memcpy(stem, path, n);
		stem[n] = 0;
	}
	return stem;
}

/*
 * Whether stdin is a controller whose end means "stop": a pipe, a socket
 * or a terminal.  /dev/null (what cron, systemd and a script's background
 * job give), a regular file or a closed stdin is no controller: nothing
 * is read from it and the run goes on to its other ends.  Called before
 * anything is opened, so that a closed 0 is seen as closed.
 */
static int stdin_is_controller(void)
{
	struct stat st;

	if (fstat(0, &st))
		return 0;
	if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
		return 1;
	return S_ISCHR(st.st_mode) && isatty(0);
}

int cmd_attach(int argc, char **argv)
{
	struct sampler_config cfg = { 0 };
	char *windows = NULL;
	struct attach a;
	struct attach_vgl vgl;
	char err[SAMPLER_ERR_LEN], scans[160];
	sigset_t set;
	uint64_t duration;
	enum reason why;
	uint64_t written, dropped;
	int ret, sigfd = -1, durfd = -1, sig = 0, queued = 0;

	memset(&a, 0, sizeof(a));
	a.controller = stdin_is_controller();
	a.endfd = -1;
	ret = parse(argc, argv, &a, &cfg, &duration);
	if (ret)
		return ret;
	if (a.vgl_path && (ret = output_creatable(a.vgl_path))) {
		vgl_error("%s: cannot write: %s", a.vgl_path,
			outfile_strerror(ret));
		return EXIT_BAD_FILE;
	}
	raise_nofile();
	/* Signals arrive through a signalfd; blocked before the sampler
	 * thread starts so that it inherits the mask. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigfd = signalfd(-1, &set, SFD_CLOEXEC);
	a.endfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (sigfd < 0 || a.endfd < 0) {
		vgl_error("attach: %s", strerror(errno));
		ret = EXIT_BAD_FILE;
		goto out;
	}
	pthread_mutex_init(&a.out_lock, NULL);
	ret = out_queue_start(&a.q, 1, QUEUE_MAX_BYTES, on_output_failed, &a);
	if (ret) {
		vgl_error("attach: %s", strerror(-ret));
		ret = EXIT_BAD_FILE;
		goto out;
	}
	queued = 1;
	a.pid = cfg.pid;
	a.start_mono = a.prev_mono = vgl_clock_ns(CLOCK_MONOTONIC);
	a.image = proc_image_open(cfg.pid);
	a.syms = a.image ? sampler_symbols_open(a.image) : NULL;
	if (!a.syms) {
		vgl_error("attach: %s", strerror(ENOMEM));
		ret = EXIT_BAD_FILE;
		goto out;
	}
	cfg.image = a.image;
	windows = window_stem(a.vgl_path);
	cfg.windows = windows;
	if (a.vgl_path) {
		attach_vgl_init(&vgl, cfg.pid, a.image);
		a.vgl = &vgl;
	}
	cfg.fn = on_sample;
	cfg.arg = &a;
	/* --duration counts from here, not from the first sample: opening
	 * the stack events of 3,000 threads takes 0.1 s to a second. */
	durfd = duration_fd(duration);
	/* The attach record comes first although the sampler writes its
	 * first sample at once: its callback waits for out_lock. */
	pthread_mutex_lock(&a.out_lock);
	ret = sampler_start(&a.sampler, &cfg, err, sizeof(err));
	if (ret) {
		pthread_mutex_unlock(&a.out_lock);
		vgl_error("%s", err);
		ret = EXIT_BAD_FILE;
		goto out;
	}
	/* -o is written as the run goes, from here on (the samples the
	 * sampler took meanwhile wait for out_lock). */
	if (a.vgl && (ret = attach_vgl_stream(a.vgl, a.vgl_path))) {
		pthread_mutex_unlock(&a.out_lock);
		sampler_stop(a.sampler);
		vgl_error("%s: cannot write: %s", a.vgl_path,
			outfile_strerror(ret));
		ret = EXIT_BAD_FILE;
		goto out;
	}
	scan_list(cfg.scan, scans, sizeof(scans));
	if (a.format == FORMAT_JSONL && !rec_begin(&a)) {
		fprintf(a.out, "{\"type\":\"attach\",\"pid\":%d,\"interval_us\":%"
			PRIu64 ",\"scan\":\"%s\",\"frequency_hz\":%u}\n",
			(int)cfg.pid, cfg.interval_ns / 1000, scans,
			cfg.frequency);
		rec_end(&a, 0);
	}
	pthread_mutex_unlock(&a.out_lock);
	why = run_loop(&a, sigfd, durfd, &sig);
	sampler_stop_missed(a.sampler, &a.end_missed);
	ret = 0;
	if (a.vgl) {
		int err = attach_vgl_write(a.vgl, a.vgl_path,
					   why == REASON_EXITED, a.exit_known,
					   a.exit_status);

		if (err) {
			vgl_error("%s: cannot write: %s",
				a.vgl_path, strerror(-err));
			ret = EXIT_BAD_FILE;
		}
	}
	write_end(&a, why, sig);
	queued = 0;
	if (out_queue_finish(&a.q, END_WAIT_NS, &written, &dropped) < 0) {
		/* A reader who does not read: what it has not taken is
		 * lost, and said here since the end record cannot be. */
		vgl_error("stdout: blocked at the end: %" PRIu64
			  " readings taken, %" PRIu64 " written, %" PRIu64
			  " not written", a.nsamples, written, dropped);
		ret = EXIT_BAD_FILE;
	}
out:
	if (queued)
		out_queue_finish(&a.q, END_WAIT_NS, &written, &dropped);
	if (a.vgl)
		attach_vgl_release(a.vgl);
	sampler_symbols_close(a.syms);
	proc_image_close(a.image);
	if (durfd >= 0)
		close(durfd);
	if (a.endfd >= 0)
		close(a.endfd);
	if (sigfd >= 0)
		close(sigfd);
	free(windows);
	return ret;
}
