/*
 * cmd-plot.c - `vigil plot FILE -o OUT.svg`: the samples of a sampled
 * profile (`vigil attach -o FILE.vgl`) over time, in one self-contained
 * SVG file (views/out-plot.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "message.h"
#include "out-plot.h"
#include "outfile.h"
#include "cli.h"

const char cmd_plot_usage[] =
	"usage: vigil plot FILE [-o OUT.svg] [--title TEXT]\n"
	"\n"
	"Draws the readings of the sampled profile FILE (written by `vigil\n"
	"attach -p PID -o FILE.vgl`, or by `vigil run --scan` for each\n"
	"process, DIR/samples/NAME.PID.vgl) over the time of the run, as one\n"
	"self-contained SVG file (no network, no other file), to OUT.svg or\n"
	"standard output:\n"
	"\n"
	"  CPU per thread  stacked areas, one colour per thread, in % of one\n"
	"                  CPU between two readings; a legend with each\n"
	"                  thread's name, tid and CPU time over the run (the\n"
	"                  19 busiest threads, the others as one series);\n"
	"                  a dashed line the whole process's CPU time, which\n"
	"                  holds the threads that ran between two readings too\n"
	"                  (from its CPU clock; from 10 ms clock ticks in a\n"
	"                  file of an older vigil, in steps of 200 ms or more,\n"
	"                  its error shown as a band).  No step is over 100 %\n"
	"                  per thread: time read beyond (the kernel counts in\n"
	"                  ticks of 1 to 10 ms) is drawn in the next steps.\n"
	"                  Dashed vertical lines mark the sampling interval\n"
	"                  where it began and wherever it changed\n"
	"  memory          the process's resident set size (RSS)\n"
	"  host CPU        user, system and iowait time of the whole machine,\n"
	"                  in % of all its CPUs\n"
	"\n"
	"A panel whose data the sampler did not collect (see `vigil attach\n"
	"--scan`: threads, memory, host-cpu) says so.  Open the file in a\n"
	"browser: hovering a series shows its name and its value at that time;\n"
	"a click in a panel zooms every panel to a quarter of the time shown,\n"
	"around the click (\"Reset zoom\" shows the whole run again);\n"
	"\"Search\" highlights the threads whose name holds the text typed,\n"
	"dims the others and says how many matched and their share of CPU.\n"
	"\n"
	"  -o OUT.svg      write to OUT.svg (whole, then renamed into place)\n"
	"  --title TEXT    the title above the plot (default: FILE)\n";

int cmd_plot(int argc, char **argv)
{
	const char *out = NULL, *title = NULL, *path;
	const struct option_spec specs[] = {
		{ "-o", &out, NULL },
		{ "--output", &out, NULL },
		{ "--title", &title, NULL },
		{ NULL, NULL, NULL },
	};
	char *files[argc];
	int nfiles, err, werr, cerr, status = EXIT_BAD_FILE;
	struct vgl_reader r;
	struct outfile o;
	size_t i;

	if (parse_options("plot", argc, argv, specs, files, &nfiles))
		return EXIT_USAGE;
	path = one_operand("plot", files, nfiles);
	if (!path)
		return EXIT_USAGE;
	outfile_note_input(path);
	if (vgl_reader_open(&r, path) < 0)
		return file_error(&r, path);
	if (!r.nsamples) {
		if (r.meta.kind == VGL_KIND_SAMPLED && r.has_processes &&
		    r.processes)
			/* A merge keeps stacks, not the processes' readings:
			 * "stopped before its first reading" would be wrong. */
			vgl_error("%s: no readings to plot: a merge of sampled files keeps their stacks, not their readings (plot one process's file, as vigil run --scan leaves in DIR/samples/)",
				path);
		else if (r.meta.kind == VGL_KIND_SAMPLED)
			vgl_error("%s: no readings to plot: the sampler stopped before its first reading",
				path);
		else
			vgl_error("%s: not a sampled profile (a %s profile, without readings): plot draws the readings that `vigil attach -o FILE.vgl` records",
				path, vgl_kind_name(r.meta.kind));
		goto out;
	}
	/* The sampler's clock is monotonic: a time that goes back is a
	 * damaged file, which would be drawn as nonsense. */
	for (i = 1; i < r.nsamples; i++)
		if (r.samples[i].elapsed_ns < r.samples[i - 1].elapsed_ns) {
			vgl_error("%s: reading %zu is earlier than reading %zu (elapsed_ns %" PRIu64 " < %" PRIu64 ")",
				path, i + 1, i, r.samples[i].elapsed_ns,
				r.samples[i - 1].elapsed_ns);
			goto out;
		}
	err = outfile_open(&o, out);
	if (err) {
		vgl_error("%s: cannot create: %s", out,
			outfile_strerror(err));
		goto out;
	}
	errno = 0;
	err = out_plot(&r, title ? title : path, o.f);
	werr = errno;
	if (err && err != -EIO) {
		outfile_close(&o, 0);
		vgl_error("%s: %s", path, strerror(-err));
		goto out;
	}
	cerr = outfile_close(&o, !err);
	if (cerr || err) {
		/* The errno of the write that failed says why (a full disk),
		 * where the stream only says that one did. */
		vgl_error("%s: write error: %s",
			out && strcmp(out, "-") ? out : "standard output",
			strerror(err && werr ? werr : cerr ? -cerr : EIO));
		/* Said once: vigil.c's last check of stdout is quiet. */
		if (!out || !strcmp(out, "-"))
			clearerr(stdout);
		goto out;
	}
	status = 0;
out:
	vgl_reader_close(&r);
	return status;
}
