/*
 * cmd-merge.c - `vigil merge FILE|DIR|@LIST ... -o OUT`: add up the
 * counting profiles of one program (or, with --keep-apart, of each
 * program apart) into one profile, through lib/vgl_merge.
 *
 * Inputs are read one at a time, in the order given (a directory's *.vgl
 * files in name order, a list file's lines in order), so thousands of
 * files merge in the memory of one file plus the distinct edges.  Window
 * snapshots among them are read again at the end, to be merged by time.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "duration.h"
#include "outfile.h"
#include "vgl_merge.h"
#include "message.h"
#include "cli.h"

const char cmd_merge_usage[] =
	"usage: vigil merge INPUT... -o OUT [--keep-apart] [--by-path]\n"
	"                   [--skip-bad] [--window D] [--lock-wait D]\n"
	"\n"
	"Adds up the call counts of counting profiles of the same program\n"
	"into the profile OUT.  An INPUT is a .vgl file, a directory (its\n"
	"*.vgl files, not its subdirectories) or @LIST (a file naming one\n"
	"input per line).  The main executable and the shared libraries are\n"
	"matched by build-id, so the processes' load addresses do not matter.\n"
	"\n"
	"  --keep-apart  profiles of different programs are merged each apart:\n"
	"                OUT is then a directory (made if missing) that gets\n"
	"                one NAME.vgl per program, NAME the executable's base\n"
	"                name (plus 8 hex digits of its build-id when two\n"
	"                programs share a name).  Without it, profiles of two\n"
	"                programs are refused, naming both.\n"
	"  --by-path     match modules that have no build-id by their path\n"
	"                (with a warning; without it they are refused)\n"
	"  --skip-bad    a truncated or corrupt input is named and left out\n"
	"                instead of stopping the merge; the summary says how\n"
	"                many were\n"
	"  --window D    the length of a merged window (see below; default:\n"
	"                the median length of the program's windows)\n"
	"  --lock-wait D how long to wait for OUT's lock (see below) when\n"
	"                another merge (or anyone who may read OUT) holds\n"
	"                it; then the merge fails, nothing written (default:\n"
	"                10s)\n"
	"\n"
	"The merged profile holds each edge's count summed over every input.\n"
	"The inputs of one process keep their threads; once the inputs hold\n"
	"two or more processes, their threads are summed into one, thread 0\n"
	"(the tids of different processes say nothing about each other, and\n"
	"the merged file stays the size of the program's edges; report --by\n"
	"thread says so).  The merged file is written\n"
	"under a temporary name, then renamed (a FIFO or a character device\n"
	"OUT is written into; - is standard output).  OUT may be one of the\n"
	"inputs: every input is read before OUT is replaced, so its old\n"
	"counts are merged in, and the summary says so; OUT is locked from\n"
	"the first read to the rename, so merges into one OUT at once take\n"
	"turns and none is lost (with --keep-apart, the directory OUT is\n"
	"locked, from before it is read to the last rename: a plain merge\n"
	"into one file in it is not held off).  Inputs still being written or\n"
	"cut short are merged as they are, and counted in the summary line on\n"
	"stderr.  The merged profile is finished when every input is (with\n"
	"the highest exit status of theirs), cut short otherwise; its pid\n"
	"and command are those of the input that started first, whatever\n"
	"the order of the inputs.\n"
	"\n"
	"Sampled profiles (vigil attach -o, vigil run --scan) are merged\n"
	"apart from counting ones (with --keep-apart, into NAME.sampled.vgl):\n"
	"their stacks are added up by thread and call chain, modules matched\n"
	"by path; their readings, each a time series of one process, are left\n"
	"out and counted in the summary.\n"
	"\n"
	"Window snapshots (VIGIL_INTERVAL's NAME.wNNNNNN.vgl) are merged by\n"
	"time: the windows of one program, from all its processes, go into\n"
	"slots of one window length laid from the earliest window's start,\n"
	"each window into the slot its middle falls in, and slot N is written\n"
	"next to the program's profile as OUT.wNNNNNN.vgl (a slot that no\n"
	"window falls in is a gap in the numbers).  Every call of every\n"
	"input window is in exactly one merged window.\n"
	"\n"
	"Exit status: 0, 1 for an unreadable input or output, 2 for a bad\n"
	"command line.\n";

struct merge_run {
	struct vgl_merge m;
	int skip_bad;
	size_t bad;
	struct stat out;        /* OUT as it was before the merge */
	int have_out;
	int out_read;           /* OUT was among the inputs */
	int progress;           /* on a terminal: show how far we are */
	int fatal;
};

static void progress(struct merge_run *mr)
{
	size_t n = mr->m.inputs + mr->bad + mr->m.npending;

	if (mr->progress && n % 100 == 0)
		fprintf(stderr, "\rvigil merge: %zu profiles read", n);
}

/* Merges one file.  Returns 0, or EXIT_BAD_FILE when the merge must stop. */
static int one(struct merge_run *mr, const char *path)
{
	struct vgl_reader r;
	struct stat st;
	int err;

	/* OUT among the inputs is merged like any of them: every input is
	 * read before OUT is renamed over, so its old counts are kept, and
	 * the summary says so. */
	if (mr->have_out && !stat(path, &st) && st.st_dev == mr->out.st_dev &&
	    st.st_ino == mr->out.st_ino)
		mr->out_read = 1;
	outfile_note_input(path);
	err = vgl_reader_open_flags(&r, path, VGL_READ_UNSORTED);
	if (err) {
		if (mr->progress)
			fputc('\n', stderr);
		if (!mr->skip_bad)
			return file_error(&r, path);
		vgl_say("vigil: %s: %s (skipped)", path, r.err);
		mr->bad++;
		return 0;
	}
	err = vgl_merge_add(&mr->m, &r, path);
	vgl_reader_close(&r);
	if (err) {
		if (mr->progress)
			fputc('\n', stderr);
		vgl_error("%s", mr->m.err);
		return EXIT_BAD_FILE;
	}
	progress(mr);
	return 0;
}

static int vgl_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && !strcmp(d->d_name + n - 4, ".vgl");
}

static int one_dir(struct merge_run *mr, const char *dir)
{
	struct dirent **names;
	int n, i, status = 0;
	char *path;

	n = scandir(dir, &names, vgl_name, alphasort);
	if (n < 0) {
		vgl_error("%s: %s", dir, strerror(errno));
		return EXIT_BAD_FILE;
	}
	for (i = 0; i < n; i++) {
		if (!status) {
			if (asprintf(&path, "%s/%s", dir,
				     names[i]->d_name) < 0) {
				vgl_error("out of memory");
				status = EXIT_BAD_FILE;
			} else {
				status = one(mr, path);
				free(path);
			}
		}
		free(names[i]);
	}
	free(names);
	return status;
}

static int one_input(struct merge_run *mr, const char *arg);

static int one_list(struct merge_run *mr, const char *list)
{
	FILE *f = fopen(list, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int status = 0;

	if (!f) {
		vgl_error("%s: %s", list, strerror(errno));
		return EXIT_BAD_FILE;
	}
	while (!status && (len = getline(&line, &cap, f)) >= 0) {
		while (len > 0 && (line[len - 1] == '\n' ||
				   line[len - 1] == '\r'))
			line[--len] = 0;
		if (len)   /* a list names files and directories, not lists */
			status = line[0] == '@' ? one(mr, line)
						: one_input(mr, line);
	}
	free(line);
	fclose(f);
	return status;
}

static int one_input(struct merge_run *mr, const char *arg)
{
	struct stat st;

	if (arg[0] == '@')
		return one_list(mr, arg + 1);
	if (!stat(arg, &st) && S_ISDIR(st.st_mode))
		return one_dir(mr, arg);
	return one(mr, arg);
}

/* Reads the window snapshots again and merges them by time. */
static int merge_windows(struct merge_run *mr)
{
	size_t k, n = vgl_merge_plan_windows(&mr->m);

	for (k = 0; k < n; k++) {
		const char *name = vgl_merge_window_name(&mr->m, k);
		struct vgl_reader r;
		int err;

		if (vgl_reader_open_flags(&r, name, VGL_READ_UNSORTED)) {
			if (!mr->skip_bad)
				return file_error(&r, name);
			vgl_say("vigil: %s: %s (skipped)", name,
				r.err);
			mr->bad++;
			continue;
		}
		err = vgl_merge_add_window(&mr->m, k, &r);
		vgl_reader_close(&r);
		if (err) {
			vgl_error("%s", mr->m.err);
			return EXIT_BAD_FILE;
		}
	}
	return 0;
}

int cmd_merge(int argc, char **argv)
{
	const char *out = NULL, *window = NULL, *lock_wait = NULL;
	int keep = 0, by_path = 0, skip = 0, n, i, status = 0, err;
	const struct option_spec specs[] = {
		{ "-o", &out, NULL },
		{ "--output", &out, NULL },
		{ "--keep-apart", NULL, &keep },
		{ "--by-path", NULL, &by_path },
		{ "--skip-bad", NULL, &skip },
		{ "--window", &window, NULL },
		{ "--lock-wait", &lock_wait, NULL },
		{ NULL, NULL, NULL },
	};
	char *inputs[argc], summary[512], path[4096], name[1024];
	struct merge_run mr;
	size_t g, nwin, unwritten = 0;
	int stream, lock = -1, made_dir = 0;
	uint64_t wait_ns = 10ull * 1000000000ull;

	if (parse_options("merge", argc, argv, specs, inputs, &n))
		return EXIT_USAGE;
	if (!out)
		return usage_error("merge", "no output given (-o OUT)");
	if (!n)
		return usage_error("merge", "no input given");

	memset(&mr, 0, sizeof(mr));
	vgl_merge_init(&mr.m);
	if (window && (vgl_parse_duration(window, &mr.m.window_ns) < 0 ||
		       !mr.m.window_ns))
		return usage_error("merge", "'%s' is not a window length "
				   "(e.g. 250ms, 1s)", window);
	if (lock_wait && vgl_parse_duration(lock_wait, &wait_ns) < 0)
		return usage_error("merge", "'%s' is not a time to wait "
				   "(e.g. 10s, 0)", lock_wait);
	mr.m.by_path = by_path;
	mr.m.keep_apart = keep;
	mr.skip_bad = skip;
	/* OUT is locked from before the first read to after the rename:
	 * merges into one total that run at once (each with OUT among its
	 * inputs) take turns, and each reads the one before's result.  With
	 * --keep-apart the names written in OUT are known only once the
	 * inputs are read (and a scan of OUT reads names not there yet), so
	 * the directory is locked, made first if missing. */
	if (keep && mkdir(out, 0775)) {
		if (errno != EEXIST) {
			vgl_error("%s: %s", out,
				strerror(errno));
			return EXIT_BAD_FILE;
		}
	} else if (keep) {
		made_dir = 1;
	}
	err = keep ? outfile_lock_dir(out, wait_ns, &lock)
		   : outfile_lock(out, wait_ns, &lock);
	if (err == -ETIMEDOUT) {
		vgl_error("%s: locked by another merge for %s",
			out, lock_wait ? lock_wait : "10s");
		status = EXIT_BAD_FILE;
		goto out;
	}
	if (err) {
		vgl_error("%s: cannot lock: %s", out,
			strerror(-err));
		status = EXIT_BAD_FILE;
		goto out;
	}
	mr.have_out = !keep && lock >= 0 && !fstat(lock, &mr.out);
	stream = !keep && outfile_is_stream(out) == 1;
	mr.progress = isatty(2);
	for (i = 0; i < n && !status; i++)
		status = one_input(&mr, inputs[i]);
	if (!status)
		status = merge_windows(&mr);
	if (mr.progress && mr.m.inputs + mr.bad >= 100)
		fputc('\n', stderr);
	if (status)
		goto out;
	if (!mr.m.ngroups) {
		vgl_error("merge: no profile to merge%s",
			mr.bad ? " (every input was unreadable)" : "");
		status = EXIT_BAD_FILE;
		goto out;
	}
	vgl_merge_by_path_warning(&mr.m);
	for (g = 0; g < mr.m.ngroups; g++) {
		if (keep) {
			vgl_merge_name(&mr.m, g, name, sizeof(name));
			snprintf(path, sizeof(path), "%s/%s", out, name);
		} else {
			snprintf(path, sizeof(path), "%s", out);
		}
		err = vgl_merge_write(&mr.m, g, path);
		if (err) {
			vgl_error("%s: cannot write: %s", path,
				outfile_strerror(err));
			status = EXIT_BAD_FILE;
			goto out;
		}
		/* Windows go next to OUT: a stream (a FIFO, /dev/null) has
		 * no "next to", and writing them into the stream too would
		 * make it more than one profile. */
		if (stream) {
			unwritten += vgl_merge_group_windows(&mr.m, g);
			continue;
		}
		if (vgl_merge_write_windows(&mr.m, g, path, &nwin)) {
			vgl_error("%s", mr.m.err);
			status = EXIT_BAD_FILE;
			goto out;
		}
	}
	if (unwritten)
		vgl_warning("%s is not a regular file: "
			"%zu merged window%s not written", out, unwritten,
			unwritten == 1 ? "" : "s");
	vgl_merge_summary(&mr.m, mr.bad, summary, sizeof(summary));
	if (mr.out_read)
		vgl_say("vigil merge: %s (the old %s among them) -> "
			"%s", summary, out, out);
	else
		vgl_say("vigil merge: %s -> %s", summary, out);
out:
	if (lock >= 0)
		close(lock);
	/* Only if still empty: a failed merge leaves no directory of its
	 * own behind. */
	if (status && made_dir)
		rmdir(out);
	vgl_merge_release(&mr.m);
	return status;
}
