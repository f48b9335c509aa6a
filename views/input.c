/*
 * input.c - a profile read and modelled for a writer (struct out_input,
 * out.h), and a writer's output written whole (out_write): what convert,
 * flame, report and view share.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "by.h"
#include "out.h"
#include "outfile.h"
#include "profile.h"
#include "sprofile.h"
#include "message.h"
#include "symbolizer.h"

/* What a failure returns, after its one line: a command exits with it. */
#define FAILED 1

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
	{
		/* One line through message.h, which escapes the path's
		 * control bytes (a file found in a directory is named by
		 * whoever made it). */
		vgl_error("%s: %s", path, in->r.err);
		return FAILED;
	}
	in->opened = 1;
	in->sampled = in->r.meta.kind == VGL_KIND_SAMPLED;
	if (thread) {
		err = by_find_thread(&in->r, thread, &tid);
		if (err) {
			vgl_error("%s: %s '%s'", path,
				err == -EINVAL ? "more than one thread is named" :
				"no thread", thread);
			out_input_close(in);
			return FAILED;
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
		vgl_error("%s: %s", path, strerror(-err));
		out_input_close(in);
		return FAILED;
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
		vgl_error("%s: cannot create: %s", out,
			outfile_strerror(err));
		return FAILED;
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

			vgl_error("%s: write error: %s",
				out ? out : "standard output", strerror(why));
			/* Said once: vigil.c's last check of stdout is quiet. */
			if (!out || !strcmp(out, "-"))
				clearerr(stdout);
			return FAILED;
		}
		return 0;
	}
	outfile_close(&o, 0);
	/* -ECANCELED: the writer has said what was wrong. */
	if (err != -ECANCELED)
		vgl_error("%s: %s", path, strerror(-err));
	return FAILED;
}
