/*
 * cmd-convert.c - `vigil convert FILE --to FORMAT [-o OUT]`: a profile in
 * the format another tool reads.  One row per format in the table below;
 * each format is one file, views/out-FORMAT.c, over the profile model of a
 * counting file (lib/profile.h) or of a sampled one (lib/sprofile.h).
 * Also the loading and writing that `vigil flame` shares (out_input,
 * out_write).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "callsite.h"
#include "out.h"
#include "outfile.h"
#include "by.h"
#include "profile.h"
#include "sprofile.h"
#include "symbolizer.h"
#include "cli.h"

const char cmd_convert_usage[] =
	"usage: vigil convert FILE --to FORMAT [-o OUT] [--module NAME]\n"
	"\n"
	"Writes the profile FILE in FORMAT, to OUT (written whole under a\n"
	"temporary name, then renamed) or to standard output.  FILE is a\n"
	"counting profile (a program built with -finstrument-functions) or a\n"
	"sampled one (vigil attach -o); each format says what it makes of\n"
	"either.\n"
	"\n"
	"  --to callgrind  valgrind's callgrind format (callgrind_annotate,\n"
	"                  KCachegrind): event CallsFromEdges; a function's\n"
	"                  self cost is the calls into it (exact); each call\n"
	"                  row (cfn=, calls=) costs the calls along it and\n"
	"                  those made under them, reconstructed from the edge\n"
	"                  counts as for --to folded, so main holds every\n"
	"                  call; a call within a cycle costs 0 into a\n"
	"                  function entered from outside the cycle; each\n"
	"                  cycle is a function \"<cycle N: ...>\" of no cost\n"
	"                  whose rows give its members' exact calls.\n"
	"                  Sampled: event Samples; self cost the samples that\n"
	"                  found a function running; a call row (a step seen on\n"
	"                  the stacks; calls= gives its samples, as samples do\n"
	"                  not count calls) costs the samples under it; a step\n"
	"                  back into a function further out on the stack\n"
	"                  (recursion) is left out\n"
	"  --to folded     one stack a line, \"main;parse;lex 10\" (flamegraph.pl,\n"
	"                  inferno, speedscope).  The stacks are reconstructed\n"
	"                  from the exact edge counts, and their counts add up\n"
	"                  to the profile's total calls: each cycle of calls\n"
	"                  (functions that call each other, directly or not:\n"
	"                  ping->pong->ping, an interpreter's loop) is one\n"
	"                  frame \"<cycle N: a, b, ...>\" holding all its\n"
	"                  members' calls (the order of calls inside it is not\n"
	"                  known); a function calling itself is one frame with\n"
	"                  all its calls.  Between frames, stacks start at\n"
	"                  those called from uncounted code (libc's start, a\n"
	"                  thread's creator); the calls that enter a frame\n"
	"                  along a path carry their share of everything under\n"
	"                  it, split between the frame's own calls and its\n"
	"                  callees in the proportions of its edges, in whole\n"
	"                  calls; a line's count is the calls of its last frame\n"
	"                  on that path.  At most 64 frames.  A call counted in\n"
	"                  an inlined copy is under the function it ran in.\n"
	"                  Sampled: one line per distinct\n"
	"                  stack of functions sampled (all threads), outermost\n"
	"                  first, sorted, its count the samples\n"
	"  --to fdata      llvm-bolt's profile (-data=): one line per real call\n"
	"                  edge, \"1 CALLER OFFSET 1 CALLEE 0 0 COUNT\", OFFSET the\n"
	"                  call instruction's (decoded with capstone) in CALLER;\n"
	"                  local symbols as BOLT names them (NAME/FILE/1);\n"
	"                  calls counted in inlined copies are left out;\n"
	"                  only the calls within one module: the executable,\n"
	"                  or the one --module NAME names (base name or path).\n"
	"                  Sampled: BOLT's no_lbr profile (as perf2bolt -nl\n"
	"                  writes it): \"no_lbr\", then \"1 FUNCTION OFFSET COUNT\"\n"
	"                  for each instruction the samples found running in\n"
	"                  that module, COUNT its samples\n"
	"  --to pprof      gzipped profile.proto (go tool pprof, Pyroscope,\n"
	"                  Parca, speedscope): sample type calls/count, one\n"
	"                  sample per folded stack, locations with function,\n"
	"                  file and line, mappings with build-ids; comments\n"
	"                  say how the stacks were made and give each cycle's\n"
	"                  members with their exact calls.  Sampled:\n"
	"                  sample types samples/count and cpu/nanoseconds (the\n"
	"                  samples times the period, 1 s / the frequency asked\n"
	"                  for), one sample per folded stack, period type\n"
	"                  cpu/nanoseconds\n"
	"  --to json       the JSON object of `vigil report --json` (schema in\n"
	"                  docs/report-json.md; a sampled file's is under\n"
	"                  \"sampled\")\n"
	"  -o OUT          write to OUT instead of standard output\n";

struct convert_opts {
	const char *module;
};

struct format {
	const char *name;
	int (*write)(const struct out_input *in, FILE *f,
		     const struct convert_opts *o);
	int sampled_model;      /* reads lib/sprofile's model of a sampled
	                         * file (json has report-sampled make its own) */
};

static int w_callgrind(const struct out_input *in, FILE *f,
		       const struct convert_opts *o)
{
	(void)o;
	if (in->sampled)
		return out_callgrind_sampled(&in->sp, in->path, f);
	return out_callgrind(&in->p, in->path, f);
}

static int w_folded(const struct out_input *in, FILE *f,
		    const struct convert_opts *o)
{
	(void)o;
	if (in->sampled)
		return out_folded_sampled(&in->sp, f);
	return out_folded(&in->p, f);
}

static int w_fdata(const struct out_input *in, FILE *f,
		   const struct convert_opts *o)
{
	int err = in->sampled ? out_fdata_sampled(&in->sp, o->module, f) :
		  out_fdata(&in->p, o->module, f);

	if (err == -ENOENT)
		fprintf(stderr, "vigil: %s: no module named '%s'\n", in->path,
			o->module ? o->module : "(the executable)");
	else if (err == -ELIBACC)
		fprintf(stderr, "vigil: %s: cannot write .fdata: its call instructions cannot be found without capstone (%s)\n",
			in->path, vgl_callsite_decoder());
	else if (err == -ENOTSUP)
		fprintf(stderr, "vigil: %s: cannot write .fdata: its call instructions are not x86-64 code\n",
			in->path);
	else
		return err;
	return -ECANCELED;
}

static int w_pprof(const struct out_input *in, FILE *f,
		   const struct convert_opts *o)
{
	(void)o;
	if (in->sampled)
		return out_pprof_sampled(&in->sp, f);
	return out_pprof(&in->p, f);
}

static int w_json(const struct out_input *in, FILE *f,
		  const struct convert_opts *o)
{
	(void)o;
	/* The same object for both kinds: a sampled file's is under
	 * "sampled" (docs/report-json.md). */
	return report_json(&in->p, in->path, f);
}

static const struct format formats[] = {
	{ "callgrind", w_callgrind, 1 },
	{ "folded", w_folded, 1 },
	{ "fdata", w_fdata, 1 },
	{ "pprof", w_pprof, 1 },
	{ "json", w_json, 0 },
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

int out_input_open(struct out_input *in, const char *path, int sampled_model)
{
	return out_input_open_thread(in, path, sampled_model, NULL);
}

int out_input_open_thread(struct out_input *in, const char *path,
			  int sampled_model, const char *thread)
{
	uint32_t tid;
	int err;

	memset(in, 0, sizeof(*in));
	in->path = path;
	outfile_note_input(path);
	if (vgl_reader_open(&in->r, path) < 0)
		return file_error(&in->r, path);
	in->opened = 1;
	in->sampled = in->r.meta.kind == VGL_KIND_SAMPLED;
	if (thread) {
		err = by_find_thread(&in->r, thread, &tid);
		if (err) {
			fprintf(stderr, "vigil: %s: %s '%s'\n", path,
				err == -EINVAL ? "more than one thread is named" :
				"no thread", thread);
			out_input_close(in);
			return EXIT_BAD_FILE;
		}
		by_keep_thread(&in->r, tid);
	}
	err = vgl_symbolizer_from_reader(&in->sym, &in->r);
	if (!err)
		err = vgl_profile_build(&in->p, &in->r, in->sym);
	if (!err)
		in->built = 1;
	if (!err && in->sampled && sampled_model)
		err = vgl_sprofile_build(&in->sp, &in->r, in->sym);
	if (err) {
		fprintf(stderr, "vigil: %s: %s\n", path, strerror(-err));
		out_input_close(in);
		return EXIT_BAD_FILE;
	}
	return 0;
}

void out_input_close(struct out_input *in)
{
	if (in->built)
		vgl_profile_release(&in->p);
	vgl_sprofile_release(&in->sp);
	vgl_symbolizer_free(in->sym);
	if (in->opened)
		vgl_reader_close(&in->r);
	memset(in, 0, sizeof(*in));
}

int out_write(const char *path, const char *out,
	      int (*write)(FILE *f, void *arg), void *arg)
{
	struct outfile o;
	int err, werr;

	err = outfile_open(&o, out);
	if (err) {
		fprintf(stderr, "vigil: %s: cannot create: %s\n", out,
			outfile_strerror(err));
		return EXIT_BAD_FILE;
	}
	errno = 0;
	err = write(o.f, arg);
	werr = errno;
	if (err == -EIO || !err) {
		int cerr = outfile_close(&o, !err);

		if (cerr || err) {
			/* The errno of the write that failed says why (a full
			 * disk), where the stream only says that one did. */
			int why = err && werr ? werr : cerr ? -cerr : EIO;

			fprintf(stderr, "vigil: %s: write error: %s\n",
				out ? out : "standard output", strerror(why));
			/* Said once: vigil.c's last check of stdout is quiet. */
			if (!out || !strcmp(out, "-"))
				clearerr(stdout);
			return EXIT_BAD_FILE;
		}
		return 0;
	}
	outfile_close(&o, 0);
	/* -ECANCELED: the writer has said what was wrong. */
	if (err != -ECANCELED)
		fprintf(stderr, "vigil: %s: %s\n", path, strerror(-err));
	return EXIT_BAD_FILE;
}

struct convert_job {
	const struct format *fmt;
	struct convert_opts opts;
	const struct out_input *in;
};

static int write_format(FILE *f, void *arg)
{
	const struct convert_job *job = arg;

	return job->fmt->write(job->in, f, &job->opts);
}

int convert_to(const char *cmd, const char *path, const char *to,
	       const char *out, const char *module)
{
	struct convert_job job = { 0 };
	struct out_input in;
	size_t i;
	int status;

	for (i = 0; i < NFORMATS; i++)
		if (!strcmp(formats[i].name, to))
			job.fmt = &formats[i];
	if (!job.fmt)
		return usage_error(cmd, "unknown format '%s'", to);
	if (module && strcmp(to, "fdata"))
		return usage_error(cmd, "--module applies to --to fdata");
	job.opts.module = module;
	status = out_input_open(&in, path, job.fmt->sampled_model);
	if (status)
		return status;
	job.in = &in;
	status = out_write(path, out, write_format, &job);
	out_input_close(&in);
	return status;
}

int cmd_convert(int argc, char **argv)
{
	const char *to = NULL, *out = NULL, *module = NULL, *path;
	const struct option_spec specs[] = {
		{ "--to", &to, NULL },
		{ "--module", &module, NULL },
		{ "-o", &out, NULL },
		{ "--output", &out, NULL },
		{ NULL, NULL, NULL },
	};
	char *files[argc];
	int nfiles;

	if (parse_options("convert", argc, argv, specs, files, &nfiles))
		return EXIT_USAGE;
	if (!to)
		return usage_error("convert", "--to FORMAT is required");
	path = one_operand("convert", files, nfiles);
	if (!path)
		return EXIT_USAGE;
	return convert_to("convert", path, to, out, module);
}
