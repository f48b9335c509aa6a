/*
 * cmd-show.c - `vigil show FILE|DIR...`: the metadata of each profile as
 * "key: value" lines, after checking the whole file.  Meant for people and
 * for scripts that grep one key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile-dir.h"
#include "text.h"
#include "message.h"
#include "profile-head.h"
#include "cli.h"

const char cmd_show_usage[] =
	"usage: vigil show FILE|DIR...\n"
	"\n"
	"Checks each profile and prints its metadata as 'key: value' lines:\n"
	"file, format, kind, state, merged (a merge: how many processes, and\n"
	"how they ended), pid, command, exe, host, started, ended,\n"
	"window (window files), modules, threads, edges, calls, mode,\n"
	"incomplete (only when some calls could not be stored) and valid.\n"
	"A sampled file (vigil attach -o, vigil run --scan), which has no\n"
	"counts, has readings (one per interval), duration, sampled threads\n"
	"(each as TID:NAME) and stack samples in place of threads, edges,\n"
	"calls and mode; a merge of sampled files keeps their stacks, not\n"
	"their readings, and its readings line says so.  Files are\n"
	"separated by a blank line.  A directory DIR (vigil run -o DIR) is\n"
	"shown file by file: its *.vgl files in name order, as vigil report\n"
	"DIR takes them.  Control characters in names and\n"
	"commands are shown as C escapes (\\n, \\t, \\xNN).  Exits 1 if any file is not a valid\n"
	"profile, after one line on stderr naming it and the problem.\n";

/* ns since the epoch as ISO 8601 UTC with milliseconds; "-" for 0. */
static const char *format_time(uint64_t ns, char *buf, size_t len)
{
	time_t secs = (time_t)(ns / 1000000000ull);
	struct tm tm;
	char day[32];           /* 19 chars until the year 10000 */

	if (!ns || !gmtime_r(&secs, &tm) ||
	    !strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm)) {
		snprintf(buf, len, "-");
		return buf;
	}
	snprintf(buf, len, "%s.%03uZ", day,
		 (unsigned)(ns / 1000000ull % 1000));
	return buf;
}

/* A name of the program's as one line (text.h): a newline in a command
 * line or a path cannot make a line of its own ("state: ..."). */
static void line_text(const char *s)
{
	vgl_text_write(stdout, s, VGL_TEXT_LINE);
}

/* The readings and stack samples of a file that has them.  A merge of
 * sampled files keeps their stacks, not their readings (a time series of
 * one process each, docs/format.md): "readings: 0", "duration: 0.000s"
 * and "sampled threads: 0" read as if nothing had been sampled, so one
 * line says what a merge keeps instead. */
static void show_sampled(const struct vgl_reader *r)
{
	size_t *last, i;

	if (r->has_samples && r->has_processes && r->processes &&
	    !r->nsamples) {
		printf("readings: not kept by a merge (it keeps the stacks of "
		       "its %llu process%s; each process's readings are in "
		       "its own file)\n", (unsigned long long)r->processes,
		       r->processes == 1 ? "" : "es");
	} else if (r->has_samples) {
		uint64_t span = r->nsamples ?
			r->samples[r->nsamples - 1].elapsed_ns -
			r->samples[0].elapsed_ns : 0;

		printf("readings: %zu\n", r->nsamples);
		printf("duration: %.3fs\n", (double)span / 1e9);
		/* Threads by tid (the reader's sample_tids are), each with
		 * the last name it had: one pass, not a search per record. */
		last = malloc((r->nsample_tids + 1) * sizeof(*last));
		if (last) {
			for (i = 0; i < r->nsample_threads; i++)
				last[r->sample_tid_index[i]] = i;
			printf("sampled threads: %zu", r->nsample_tids);
			for (i = 0; i < r->nsample_tids; i++) {
				printf(" %u:", r->sample_tids[i]);
				line_text(r->sample_threads[last[i]].name);
			}
			putchar('\n');
			free(last);
		}
	}
	if (r->has_stacks)
		printf("stack samples: %llu (%zu distinct stacks, %llu lost, %u Hz)\n",
		       (unsigned long long)r->stacks_head.samples, r->nstacks,
		       (unsigned long long)r->stacks_head.lost,
		       r->stacks_head.frequency);
}


static void show(const struct vgl_reader *r, const char *path)
{
	const struct vgl_meta *m = &r->meta;
	char t0[64], t1[64];
	size_t i;

	print_file(path);
	printf("format: vgl %u\n", VGL_VERSION);
	printf("kind: %s\n", vgl_kind_name(m->kind));
	/* A merge's pid and command are its first process's
	 * (docs/format.md). */
	print_state(r);
	printf("pid: %llu\n", (unsigned long long)m->pid);
	printf("command:");
	for (i = 0; i < r->argc; i++) {
		putchar(' ');
		line_text(r->argv[i]);
	}
	printf("%s\nexe: ", r->argc ? "" : " -");
	line_text(r->exe ? r->exe : "-");
	printf("\nhost: ");
	line_text(r->host ? r->host : "-");
	putchar('\n');
	printf("started: %s\n", format_time(m->start_ns, t0, sizeof(t0)));
	printf("ended: %s\n", format_time(m->end_ns, t0, sizeof(t0)));
	if (m->kind == VGL_KIND_WINDOW)
		printf("window: %llu (%s .. %s)\n",
		       (unsigned long long)m->window_seq,
		       format_time(m->window_start_ns, t0, sizeof(t0)),
		       format_time(m->window_end_ns, t1, sizeof(t1)));
	printf("modules: %zu\n", r->nmodules);
	/* A sampled file has no counts: its zeros here meant "none",
	 * beside the sampled threads that it has. */
	if (m->kind != VGL_KIND_SAMPLED || r->nthreads || r->nedges ||
	    r->total_calls) {
		printf("threads: %zu\n", r->nthreads);
		printf("edges: %zu\n", r->nedges);
		printf("calls: %llu\n", (unsigned long long)r->total_calls);
		/* Which hook counted: real calls only, or inlined copies
		 * too. */
		printf("mode: %s\n", vgl_mode_name(vgl_reader_modes(r)) ?
				    vgl_mode_name(vgl_reader_modes(r)) : "-");
	}
	if (m->flags & VGL_META_INCOMPLETE)
		printf("incomplete: %llu calls not stored\n",
		       (unsigned long long)m->lost_calls);
	if (m->kind == VGL_KIND_LIVE && m->windows &&
	    r->total_calls + m->lost_calls > m->windowed_calls)
		printf("calls in no window: %llu (after window %llu)\n",
		       (unsigned long long)(r->total_calls + m->lost_calls -
					    m->windowed_calls),
		       (unsigned long long)m->windows);
	if (m->skipped_calls)
		printf("skipped calls: %llu (made before the runtime could "
		       "count them, e.g. by IFUNC resolvers)\n",
		       (unsigned long long)m->skipped_calls);
	show_sampled(r);
	printf("valid: yes\n");
}

/* Shows one file; returns 0 or the exit status of its error.  *shown
 * counts the files shown, for the blank line between two. */
static int show_file(const char *path, int *shown)
{
	struct vgl_reader r;

	if (vgl_reader_open(&r, path) < 0) {
		/* Keep stdout and stderr in file order on a terminal. */
		fflush(stdout);
		return file_error(&r, path);
	}
	if ((*shown)++)
		putchar('\n');
	show(&r, path);
	vgl_reader_close(&r);
	return 0;
}

/* A directory (vigil run -o DIR): its profiles in name order, as
 * `vigil report DIR` takes them (profile-dir.c). */
static int show_dir(const char *dir, int *shown)
{
	char **names;
	size_t n, i;
	int status = 0, err, st;

	if ((err = profile_dir_list(dir, &names, &n)) < 0) {
		fflush(stdout);
		vgl_error("%s: %s", dir, strerror(-err));
		return EXIT_BAD_FILE;
	}
	for (i = 0; i < n; i++) {
		char *path;

		if (asprintf(&path, "%s/%s", dir, names[i]) < 0) {
			status = EXIT_BAD_FILE;
			continue;
		}
		if ((st = show_file(path, shown)))
			status = st;
		free(path);
	}
	profile_dir_free(names, n);
	if (!n) {
		fflush(stdout);
		profile_dir_none(dir);
		return EXIT_BAD_FILE;
	}
	return status;
}

int cmd_show(int argc, char **argv)
{
	static const struct option_spec specs[] = { { NULL, NULL, NULL } };
	char *files[argc];
	int i, status = 0, shown = 0, nfiles, st;

	if (parse_options("show", argc, argv, specs, files, &nfiles))
		return EXIT_USAGE;
	if (!nfiles)
		return usage_error("show", "no file given");
	for (i = 0; i < nfiles; i++) {
		st = profile_dir_is(files[i]) ? show_dir(files[i], &shown) :
						 show_file(files[i], &shown);
		if (st)
			status = st;
	}
	return status;
}
