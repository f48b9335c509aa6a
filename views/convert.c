/*
 * convert.c - `vigil convert`'s formats: one row per format in the table
 * below; each format is one file, views/out-FORMAT.c, over the profile
 * model of a counting file (lib/profile.h) or of a sampled one
 * (lib/sprofile.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "message.h"
#include "callsite.h"
#include "out.h"
#include "profile.h"
#include "sprofile.h"

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
		vgl_error("%s: no module named '%s'", in->path,
			o->module ? o->module : "(the executable)");
	else if (err == -ELIBACC)
		vgl_error("%s: cannot write .fdata: its call instructions cannot be found without capstone (%s)",
			in->path, vgl_callsite_decoder());
	else if (err == -ENOTSUP)
		vgl_error("%s: cannot write .fdata: its call instructions are not x86-64 code",
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

int out_convert(const char *path, const char *to, const char *out,
		const char *module, char *usage, size_t usagelen)
{
	struct convert_job job = { 0 };
	struct out_input in;
	size_t i;
	int status;

	for (i = 0; i < NFORMATS; i++)
		if (!strcmp(formats[i].name, to))
			job.fmt = &formats[i];
	if (!job.fmt) {
		snprintf(usage, usagelen, "unknown format '%s'", to);
		return -EINVAL;
	}
	if (module && strcmp(to, "fdata")) {
		snprintf(usage, usagelen, "--module applies to --to fdata");
		return -EINVAL;
	}
	job.opts.module = module;
	status = out_input_open(&in, path, job.fmt->sampled_model);
	if (status)
		return status;
	job.in = &in;
	status = out_write(path, out, write_format, &job);
	out_input_close(&in);
	return status;
}
