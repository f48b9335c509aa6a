/*
 * cmd-view.c - `vigil view FILE|DIR [SAMPLED] -o OUT.html`: one
 * self-contained interactive HTML page of a counting profile, a sampled
 * one, or both joined, calls beside time (views/out-view.c).  Takes the
 * operands `vigil report` takes for calls beside time: a profile, a
 * counting and a sampled profile of one program (either order), or a
 * `vigil run -o DIR` directory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "message.h"
#include "out.h"
#include "profile-dir.h"
#include "cli.h"

const char cmd_view_usage[] =
	"usage: vigil view [-o OUT.html] [--title TEXT] FILE\n"
	"       vigil view [-o OUT.html] [--title TEXT] COUNTING SAMPLED\n"
	"       vigil view [-o OUT.html] [--title TEXT] DIR\n"
	"       vigil view --diff A B [-o OUT.html] [--title TEXT]\n"
	"\n"
	"Writes one self-contained HTML page (no network, no other file; any\n"
	"browser opens it) of a counting profile, a sampled one, or both of one\n"
	"program joined as `vigil report COUNTING SAMPLED` joins them: each\n"
	"function's exact calls beside its sampled time.  The page shows\n"
	"  - a flame graph (an icicle: callers above callees) of the stack\n"
	"    samples, or of a counting profile's stacks reconstructed from its\n"
	"    edges as `vigil convert --to folded` does; every frame gives its\n"
	"    function's exact calls and its samples; a click zooms into a\n"
	"    frame, \"Search\" highlights the frames whose names contain a text;\n"
	"  - the flat table: calls, self and total samples, time per call (total\n"
	"    samples times the period over the calls), sorted by a click on a\n"
	"    column's head;\n"
	"  - the callers and callees of the function selected (in the table or\n"
	"    the graph), with their calls and samples;\n"
	"  - a thread filter: every number, and the graph, for one thread;\n"
	"  - for a sampled profile of `vigil attach -o`, which keeps the stacks\n"
	"    of each reading, a CPU timeline: a drag across it counts only the\n"
	"    stacks of the readings under it (calls stay the whole run's).\n"
	"With --diff A B, the page of B compared with A, two profiles of one\n"
	"program (two runs, or two builds: functions are matched by name),\n"
	"both counting or both sampled: the table gives each function's\n"
	"change from A (calls, and points of the total for samples), and the\n"
	"graph, B's, colours each frame by how its own share changed, as\n"
	"`vigil flame --diff` does: red grew, blue shrank.\n"
	"The data is one JSON object in the page (docs/view.md).\n"
	"\n"
	"  -o OUT.html     write to OUT.html (whole, then renamed into place);\n"
	"                  default: standard output\n"
	"  --title TEXT    the page's title (default: the profile's path)\n"
	"  COUNTING SAMPLED  a counting and a sampled profile of one program,\n"
	"                  in either order\n"
	"  --diff A B      B compared with A (see above)\n"
	"  DIR             a `vigil run -o DIR` directory: the one program\n"
	"                  with both NAME.vgl and NAME.sampled.vgl there,\n"
	"                  joined; else the one profile there\n";

struct view_job {
	const struct out_input *c, *s, *base;
	const char *title;
};

static int write_view(FILE *f, void *arg)
{
	const struct view_job *job = arg;

	return out_view_html(job->c, job->s, job->base, job->title, f);
}

/*
 * The profiles of DIR for one page: its only pair NAME.vgl and
 * NAME.sampled.vgl (a `vigil run` of a script samples the shell too, but
 * counts only the program built with vigil), else its only profile.
 * Sets files[0..*n) (malloc'd paths) and returns 0, or prints one line
 * and returns EXIT_BAD_FILE.
 */
static int dir_files(const char *dir, char **files, int *n)
{
	char **names;
	size_t count, i, k, len, pairs = 0, pair = 0;
	int err, want = 0;

	if ((err = profile_dir_list(dir, &names, &count)) < 0) {
		vgl_error("%s: %s", dir, strerror(-err));
		return EXIT_BAD_FILE;
	}
	for (i = 0; i < count; i++) {
		len = strlen(names[i]) - 4;        /* without ".vgl" */
		for (k = 0; k < count; k++)
			if (k != i && !strncmp(names[k], names[i], len) &&
			    !strcmp(names[k] + len, ".sampled.vgl")) {
				pairs++;
				pair = i;
			}
	}
	*n = 0;
	if (!count)
		profile_dir_none(dir);
	else if (pairs == 1)
		want = 2;
	else if (count == 1)
		want = 1;
	else if (pairs)
		vgl_error("%s: holds %zu programs with both profiles; a page shows one: give its NAME.vgl and NAME.sampled.vgl",
			  dir, pairs);
	else
		vgl_error("%s: holds %zu profiles; a page shows one program: give its file",
			  dir, count);
	if (want == 1 && asprintf(&files[0], "%s/%s", dir, names[0]) >= 0)
		*n = 1;
	if (want == 2 && asprintf(&files[0], "%s/%s", dir, names[pair]) >= 0) {
		*n = 1;
		len = strlen(names[pair]) - 4;
		if (asprintf(&files[1], "%s/%.*s.sampled.vgl", dir, (int)len,
			     names[pair]) >= 0)
			*n = 2;
	}
	profile_dir_free(names, count);
	if (*n == want)
		return want ? 0 : EXIT_BAD_FILE;
	vgl_error("%s: %s", dir, strerror(ENOMEM));
	while (*n > 0)
		free(files[--*n]);
	return EXIT_BAD_FILE;
}

int cmd_view(int argc, char **argv)
{
	const char *out = NULL, *title = NULL;
	int diff = 0;
	const struct option_spec specs[] = {
		{ "-o", &out, NULL },
		{ "--output", &out, NULL },
		{ "--title", &title, NULL },
		{ "--diff", NULL, &diff },
		{ NULL, NULL, NULL },
	};
	struct out_input in[2];
	struct view_job job = { NULL, NULL, NULL, NULL };
	char *operands[argc], *files[2] = { NULL, NULL };
	char deftitle[4096];
	int nops, n = 0, status, i;

	if (parse_options("view", argc, argv, specs, operands, &nops))
		return EXIT_USAGE;
	if (diff && nops != 2)
		return usage_error("view", "--diff takes two profiles, A and B");
	if (nops == 1 && profile_dir_is(operands[0])) {
		status = dir_files(operands[0], files, &n);
		if (status)
			return status;
	} else if (nops == 1 || nops == 2) {
		for (i = 0; i < nops; i++)
			files[n++] = strdup(operands[i]);
		if (!files[0] || (nops == 2 && !files[1])) {
			vgl_error("%s: %s", operands[0], strerror(ENOMEM));
			free(files[0]);
			free(files[1]);
			return EXIT_BAD_FILE;
		}
	} else {
		return usage_error("view", nops ? "give one profile, a counting and a sampled one, or a directory" :
				   "a profile or a directory is required");
	}
	status = out_input_open(&in[0], files[0], 1);
	if (!status && n == 2) {
		status = out_input_open(&in[1], files[1], 1);
		if (status)
			out_input_close(&in[0]);
	}
	if (status)
		goto out;
	if (diff && in[0].sampled != in[1].sampled) {
		vgl_error("%s, %s: one is a counting and one a sampled profile; --diff compares two of one kind (calls and CPU samples do not compare)",
			  files[0], files[1]);
		status = EXIT_BAD_FILE;
	} else if (diff) {
		job.base = &in[0];
		if (in[1].sampled)
			job.s = &in[1];
		else
			job.c = &in[1];
		snprintf(deftitle, sizeof(deftitle), "%s -> %s", files[0],
			 files[1]);
		job.title = title ? title : deftitle;
		status = out_write(files[1], out, write_view, &job);
	} else if (n == 2 && in[0].sampled == in[1].sampled) {
		vgl_error("%s, %s: both are %s profiles; two files are shown as one counting and one sampled profile of a program, side by side",
			  files[0], files[1],
			  in[0].sampled ? "sampled" : "counting");
		status = EXIT_BAD_FILE;
	} else {
		for (i = 0; i < n; i++) {
			if (in[i].sampled)
				job.s = &in[i];
			else
				job.c = &in[i];
		}
		job.title = title ? title : operands[0];
		status = out_write(files[0], out, write_view, &job);
	}
	for (i = 0; i < n; i++)
		out_input_close(&in[i]);
out:
	for (i = 0; i < n; i++)
		free(files[i]);
	return status;
}
