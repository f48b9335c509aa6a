/*
 * cmd-convert.c - `vigil convert FILE --to FORMAT [-o OUT]`: a profile in
 * the format another tool reads.  One row per format in the table below;
 * each format is one file, src/out-FORMAT.c, over the profile model.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "out.h"
#include "outfile.h"
#include "profile.h"
#include "symbolizer.h"
#include "vigil.h"

const char cmd_convert_usage[] =
	"usage: vigil convert FILE --to FORMAT [-o OUT] [--module NAME]\n"
	"\n"
	"Writes the counting profile FILE in FORMAT, to OUT (written whole\n"
	"under a temporary name, then renamed) or to standard output.\n"
	"\n"
	"  --to callgrind  valgrind's callgrind format (callgrind_annotate,\n"
	"                  KCachegrind): event Calls; a function's self cost\n"
	"                  is the calls into it; each call row (cfn=, calls=)\n"
	"                  costs the calls along it and those made under them\n"
	"  --to folded     one stack a line, \"main;parse;lex 10\" (flamegraph.pl,\n"
	"                  inferno, speedscope).  The call graph is unfolded:\n"
	"                  stacks start at functions called from uncounted code\n"
	"                  (libc's start, a thread's creator); the calls into a\n"
	"                  frame are split among its callees in the proportions\n"
	"                  of the function's own call edges; a line's count is\n"
	"                  the calls into its last frame along that path.\n"
	"                  Recursion is collapsed: a function's frame where a\n"
	"                  stack enters its cycle (f->f, or ping->pong->ping)\n"
	"                  holds the recursive calls it led to; at most 64\n"
	"                  frames; stacks that would count 0 are left out.  A\n"
	"                  call counted in an inlined copy is under the\n"
	"                  function it ran in.\n"
	"  --to fdata      llvm-bolt's profile (-data=): one line per real call\n"
	"                  edge, \"1 CALLER OFFSET 1 CALLEE 0 0 COUNT\", OFFSET the\n"
	"                  call instruction's (decoded with capstone) in CALLER;\n"
	"                  local symbols as BOLT names them (NAME/FILE/1);\n"
	"                  calls counted in inlined copies are left out;\n"
	"                  only the calls within one module: the executable,\n"
	"                  or the one --module NAME names (base name or path)\n"
	"  --to pprof      gzipped profile.proto (go tool pprof, Pyroscope,\n"
	"                  Parca, speedscope): sample type calls/count, one\n"
	"                  sample per folded stack, locations with function,\n"
	"                  file and line, mappings with build-ids\n"
	"  --to json       the JSON object of `vigil report --json` (schema in\n"
	"                  docs/report-json.md)\n"
	"  -o OUT          write to OUT instead of standard output\n";

struct convert_opts {
	const char *module;
};

struct format {
	const char *name;
	int (*write)(const struct vgl_profile *p, const char *path, FILE *f,
		     const struct convert_opts *o);
};

static int w_callgrind(const struct vgl_profile *p, const char *path, FILE *f,
		       const struct convert_opts *o)
{
	(void)o;
	return out_callgrind(p, path, f);
}

static int w_folded(const struct vgl_profile *p, const char *path, FILE *f,
		    const struct convert_opts *o)
{
	(void)path, (void)o;
	return out_folded(p, f);
}

static int w_fdata(const struct vgl_profile *p, const char *path, FILE *f,
		   const struct convert_opts *o)
{
	int err = out_fdata(p, o->module, f);

	if (err == -ENOENT)
		fprintf(stderr, "vigil: %s: no module named '%s'\n", path,
			o->module ? o->module : "(the executable)");
	return err == -ENOENT ? -ECANCELED : err;
}

static int w_pprof(const struct vgl_profile *p, const char *path, FILE *f,
		   const struct convert_opts *o)
{
	(void)path, (void)o;
	return out_pprof(p, f);
}

static int w_json(const struct vgl_profile *p, const char *path, FILE *f,
		  const struct convert_opts *o)
{
	(void)o;
	return report_json(p, path, f);
}

static const struct format formats[] = {
	{ "callgrind", w_callgrind },
	{ "folded", w_folded },
	{ "fdata", w_fdata },
	{ "pprof", w_pprof },
	{ "json", w_json },
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

/*
 * Reads the profile at path, builds its model and hands it to write, whose
 * output goes to out (NULL: standard output).  Shared with `vigil flame`.
 * Prints one line for any failure; returns the exit status.
 */
int convert_profile(const char *cmd, const char *path, const char *out,
		    int (*write)(const struct vgl_profile *p, const char *path,
				 FILE *f, void *arg),
		    void *arg)
{
	struct vgl_reader r;
	struct vgl_symbolizer *sym = NULL;
	struct vgl_profile p;
	struct outfile o;
	int err, werr, built = 0;

	if (vgl_reader_open(&r, path) < 0)
		return file_error(&r, path);
	/* The formats are written from counted call edges; a file of
	 * another kind (a sampled profile) would come out empty. */
	if (r.meta.kind != VGL_KIND_LIVE && r.meta.kind != VGL_KIND_WINDOW &&
	    r.meta.kind != VGL_KIND_MERGED) {
		fprintf(stderr, "vigil: %s: not a counting profile (kind %u): %s reads the call counts of programs built with -finstrument-functions\n",
			path, (unsigned)r.meta.kind, cmd);
		vgl_reader_close(&r);
		return EXIT_BAD_FILE;
	}
	err = vgl_symbolizer_from_reader(&sym, &r);
	if (!err)
		err = vgl_profile_build(&p, &r, sym);
	if (err) {
		fprintf(stderr, "vigil: %s: %s\n", path, strerror(-err));
		goto fail;
	}
	built = 1;
	err = outfile_open(&o, out);
	if (err) {
		fprintf(stderr, "vigil: %s: cannot create: %s\n", out,
			strerror(-err));
		goto fail;
	}
	errno = 0;
	err = write(&p, path, o.f, arg);
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
			goto fail;
		}
	} else {
		outfile_close(&o, 0);
		/* -ECANCELED: the writer has said what was wrong. */
		if (err != -ECANCELED)
			fprintf(stderr, "vigil: %s: %s\n", path,
				strerror(-err));
		goto fail;
	}
	vgl_profile_release(&p);
	vgl_symbolizer_free(sym);
	vgl_reader_close(&r);
	return 0;
fail:
	if (built)
		vgl_profile_release(&p);
	vgl_symbolizer_free(sym);
	vgl_reader_close(&r);
	return EXIT_BAD_FILE;
}

struct convert_job {
	const struct format *fmt;
	struct convert_opts opts;
};

static int write_format(const struct vgl_profile *p, const char *path,
			FILE *f, void *arg)
{
	const struct convert_job *job = arg;

	return job->fmt->write(p, path, f, &job->opts);
}

int convert_to(const char *cmd, const char *path, const char *to,
	       const char *out, const char *module)
{
	struct convert_job job = { 0 };
	size_t i;

	for (i = 0; i < NFORMATS; i++)
		if (!strcmp(formats[i].name, to))
			job.fmt = &formats[i];
	if (!job.fmt)
		return usage_error(cmd, "unknown format '%s'", to);
	if (module && strcmp(to, "fdata"))
		return usage_error(cmd, "--module applies to --to fdata");
	job.opts.module = module;
	return convert_profile(cmd, path, out, write_format, &job);
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
