/*
 * cmd-flame.c - `vigil flame FILE -o OUT.svg` and `vigil flame --diff A B
 * -o OUT.svg`: an interactive flame graph of a counting or a sampled
 * profile, or the differential graph of two, in one self-contained SVG
 * (views/out-flame.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "message.h"
#include "out.h"
#include "cli.h"
#include "inlined.h"

const char cmd_flame_usage[] =
	"usage: vigil flame FILE [-o OUT.svg] [--title TEXT] [--thread TID|NAME]\n"
	"       vigil flame --diff A B [-o OUT.svg] [--title TEXT]\n"
	"       vigil flame COUNTING SAMPLED [-o OUT.svg] [--title TEXT]\n"
	"\n"
	"Draws the call stacks of the profile FILE as a flame graph: one\n"
	"self-contained SVG file (no network, no other file), to OUT.svg or\n"
	"standard output.  For a counting profile the stacks are those of\n"
	"`vigil convert --to folded` (see its --help for how they are\n"
	"reconstructed from the exact edge counts): a frame's width is the\n"
	"calls into it along its path and the calls made under it, calls and\n"
	"not time, as a subtitle says; a cycle's tooltip lists its members\n"
	"with their exact calls.  For a sampled profile (vigil attach -o) they\n"
	"are the stacks sampled: a frame's width is the samples with it on the\n"
	"stack along that path.  Open it in a browser: hovering a frame shows\n"
	"its name, weight and share; a click zooms into a frame (the bottom\n"
	"frame or \"Reset zoom\" zooms out); \"Search\" highlights the frames\n"
	"whose names contain a text and shows the share they hold.\n"
	"\n"
	"  -o OUT.svg      write to OUT.svg (whole, then renamed into place)\n"
	"  --title TEXT    the title above the graph (default: FILE, or A -> B)\n"
	"  --thread TID|NAME  only the calls or samples of one thread: its id,\n"
	"                  or its name as the samples saw it (a counting\n"
	"                  profile knows threads by id)\n"
	"  COUNTING SAMPLED  a counting and a sampled profile of one program\n"
	"                  (either order): the graph of the samples (time),\n"
	"                  each frame's tooltip with the function's exact\n"
	"                  calls from the counting profile\n"
	"  --diff A B      a differential flame graph, as Brendan Gregg's\n"
	"                  difffolded.pl and flamegraph.pl draw it: the frames\n"
	"                  and widths of B; each frame coloured by how its own\n"
	"                  weight (the stacks ending in it) changed from A to\n"
	"                  B, as shares of each profile's total, so profiles\n"
	"                  of different lengths compare: red grew, blue shrank,\n"
	"                  white stayed, deeper for larger changes; the\n"
	"                  tooltip gives the change in points of B's total.\n"
	"                  A and B are both counting or both sampled\n"
	"                  profiles: calls and CPU samples do not compare\n";

struct flame_job {
	struct out_input *in[2];
	size_t n;
	const char *title;
	int calls;               /* in[] are a counting and a sampled one */
};

static int add_input(struct flame *fl, int side, const struct out_input *in)
{
	if (in->sampled)
		return flame_add_sampled(fl, side, &in->sp);
	return flame_add_profile(fl, side, &in->p);
}

static int cmp_fkey(const struct vgl_pfunc *a, const struct vgl_pfunc *b)
{
	int c = strcmp(a->module_name ? a->module_name : "",
		       b->module_name ? b->module_name : "");

	return c ? c : a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int cmp_fptr(const void *a, const void *b)
{
	return cmp_fkey(*(const struct vgl_pfunc *const *)a,
			*(const struct vgl_pfunc *const *)b);
}

/* The exact calls of the counting profile c on the tooltips of the
 * sampled profile's frames: a function is the same in both when its
 * module has the same base name and it starts at the same address.  An
 * inlined copy has no calls of its own: its tooltip names its hosts and
 * their calls (views/inlined.h), where it said "0 calls"; so does a
 * function the counting profile has no calls of ("not counted"). */
static int add_calls(struct flame *fl, const struct out_input *c,
		     const struct out_input *s)
{
	const struct vgl_pfunc **v;
	struct inlined_hosts hosts;
	uint64_t *calls;
	size_t i, n = c->p.ncalled;
	int err;

	v = malloc((n + 1) * sizeof(*v));
	calls = calloc(s->sp.nfuncs + 1, sizeof(*calls));
	err = v && calls ? inlined_hosts_build(&hosts, &s->sp) : -ENOMEM;
	if (err) {
		free(v);
		free(calls);
		return err;
	}
	for (i = 0; i < n; i++)
		v[i] = &c->p.funcs[i];
	qsort(v, n, sizeof(*v), cmp_fptr);
	for (i = 0; i < s->sp.nfuncs; i++) {
		const struct vgl_pfunc *key = &s->sp.funcs[i];
		const struct vgl_pfunc **hit = bsearch(&key, v, n, sizeof(*v),
						       cmp_fptr);

		calls[i] = hit ? (*hit)->calls : 0;
	}
	for (i = 0; !err && i < s->sp.nfuncs; i++) {
		const struct vgl_pfunc *fn = &s->sp.funcs[i];
		char *note;

		if (fn->inlined_copy && !calls[i])
			note = inlined_note(&hosts, &s->sp, (uint32_t)i, calls);
		else if (!calls[i])
			/* Built without vigil's flags: unknown, not 0. */
			note = strdup("not counted");
		else if (asprintf(&note, "%llu calls",
				  (unsigned long long)calls[i]) < 0)
			note = NULL;
		err = note ? flame_note(fl, fn, note) : -ENOMEM;
	}
	inlined_hosts_release(&hosts);
	free(calls);
	free(v);
	return err;
}

static int write_flame(FILE *f, void *arg)
{
	const struct flame_job *job = arg;
	const struct out_input *b = job->in[job->n - 1];
	struct flame *fl;
	int err;

	err = flame_new(&fl);
	if (err)
		return err;
	if (job->calls) {
		/* Time from the samples, with the exact calls on hover. */
		const struct out_input *s = job->in[0]->sampled ? job->in[0] : job->in[1];
		const struct out_input *c = s == job->in[0] ? job->in[1] : job->in[0];

		err = add_input(fl, 1, s);
		if (!err)
			err = add_calls(fl, c, s);
		if (!err)
			err = out_flame_svg(fl, job->title, "Stack samples (time); "
					    "the tooltips give each function's "
					    "exact calls from the counting "
					    "profile", "samples", 0, f);
		flame_free(fl);
		return err;
	}
	err = add_input(fl, 1, b);
	if (!err && job->n == 2)
		err = add_input(fl, 0, job->in[0]);
	if (!err)
		err = out_flame_svg(fl, job->title,
				    b->sampled ? NULL : "Counting profile: "
				    STACKS_NOTE,
				    b->sampled ? "samples" : "calls",
				    job->n == 2, f);
	flame_free(fl);
	return err;
}

static const char *kind_name(const struct out_input *in)
{
	return in->sampled ? "a sampled profile: CPU samples" :
			     "a counting profile: calls";
}

int cmd_flame(int argc, char **argv)
{
	const char *out = NULL, *title = NULL, *thread = NULL;
	int diff = 0, status, nfiles;
	const struct option_spec specs[] = {
		{ "-o", &out, NULL },
		{ "--output", &out, NULL },
		{ "--title", &title, NULL },
		{ "--thread", &thread, NULL },
		{ "--diff", NULL, &diff },
		{ NULL, NULL, NULL },
	};
	struct out_input in[2];
	struct flame_job job = { { &in[0], &in[1] }, 0, NULL, 0 };
	char *files[argc];
	char deftitle[4096];

	if (parse_options("flame", argc, argv, specs, files, &nfiles))
		return EXIT_USAGE;
	if (diff && nfiles != 2)
		return usage_error("flame", "--diff takes two profiles, A and B");
	if (!diff && nfiles != 2 && !one_operand("flame", files, nfiles))
		return EXIT_USAGE;
	job.n = diff || nfiles == 2 ? 2 : 1;
	if (diff)
		snprintf(deftitle, sizeof(deftitle), "%s -> %s", files[0], files[1]);
	job.title = title ? title : diff ? deftitle : files[0];
	status = out_input_open_thread(&in[0], files[0], 1, thread);
	if (status)
		return status;
	if (job.n == 2) {
		status = out_input_open_thread(&in[1], files[1], 1, thread);
		if (status) {
			out_input_close(&in[0]);
			return status;
		}
	}
	/* Shares of calls and shares of CPU samples measure different things:
	 * a graph of one against the other would colour every frame by that
	 * difference and look like a result. */
	if (diff && in[0].sampled != in[1].sampled) {
		vgl_say("vigil flame: cannot compare %s (%s) with %s "
			"(%s); --diff takes two profiles of one kind",
			files[0], kind_name(&in[0]), files[1],
			kind_name(&in[1]));
		out_input_close(&in[0]);
		out_input_close(&in[1]);
		return EXIT_BAD_FILE;
	}
	if (!diff && job.n == 2) {
		if (in[0].sampled == in[1].sampled) {
			vgl_error("%s, %s: both are %s profiles; two files are drawn as one counting and one sampled profile of a program, side by side (--diff A B compares two of one kind)",
				files[0], files[1],
				in[0].sampled ? "sampled" : "counting");
			out_input_close(&in[0]);
			out_input_close(&in[1]);
			return EXIT_USAGE;
		}
		job.calls = 1;
		if (!title)
			job.title = in[0].sampled ? files[0] : files[1];
	}
	status = out_write(files[job.n - 1], out, write_flame, &job);
	out_input_close(&in[0]);
	if (job.n == 2)
		out_input_close(&in[1]);
	return status;
}
