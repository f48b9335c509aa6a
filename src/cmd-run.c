/*
 * cmd-run.c - `vigil run [-o DIR] [--linger D] -- CMD ARGS...`: run CMD
 * as our child with every instrumented descendant writing its profile
 * into a directory of this run's own inside DIR, wait for the tree, then
 * merge the profiles into one per program in DIR (run-merge.c).
 *
 * We are CMD's parent and a child subreaper, never a process inside the
 * profiled tree: nothing of ours holds CMD's descriptors, and whatever its
 * descendants orphan comes back to us to be waited for.  So "CMD's tree
 * has ended" is something we see (our children reaped, no process left
 * whose parent chain leads to us), and once it has, every profile is final
 * (its writer is gone).  A process has ended when all its threads have:
 * a main thread that is a zombie while others run on (pthread_exit), or
 * are still being torn down (SIGKILL ends the main thread first), is not
 * the end of the process (proc-ended.h); taken for it, the profile was
 * merged as "running" and moved while its writer still had it.  Profiles are merged while CMD runs, as their
 * processes end, so that the end has little left to do.  A descendant
 * that outlives CMD by more than --linger is named and left running: a
 * left-behind server must not hang the harness that runs us.
 *
 * Signals: every signal is blocked in vigil and taken with sigwaitinfo(),
 * so no handler runs, none kills us, and none is lost between fork and
 * wait.  CMD runs in a process group of its own, as a shell runs a job,
 * so that no signal meant for us reaches it but through us: each one we
 * get is passed on once, to CMD's group (a signal named to one process,
 * sigqueue() or tgkill(), to CMD alone).  siginfo does not say whether
 * kill() named our pid or our group, and in one group the two cannot be
 * told apart: a script's background jobs share its group, so a script's
 * `kill $!` looks like its `kill 0` or `timeout`'s group signal, and
 * taken for one it never reached CMD (issue 28.9).  When our group has
 * the terminal (stdin) in the foreground, we give it to CMD's group, as
 * a shell gives it to a job, so that Ctrl-C, Ctrl-\, Ctrl-Z, SIGWINCH
 * and CMD's reads of the terminal go to CMD as they did; when CMD stops
 * or ends we take it back, and on SIGCONT (`fg`) give it again while we
 * have it.  What the terminal did to CMD's group it would have done to
 * ours without us, so we do it to ours: a stop (Ctrl-Z, a background
 * read or write) stops our group (a script, say) and us, and CMD's death
 * by Ctrl-C or Ctrl-\ sends that signal to our group, so that a script
 * looping over `vigil run` stops as it did.  CMD gets the signal mask,
 * dispositions and limits we were started with; when CMD is killed by a
 * signal, we end by the same signal once the profiles are written, as
 * timeout(1) and env(1) do, so that a shell sees what it would without
 * us.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "duration.h"
#include "outfile.h"
#include "proc-ended.h"
#include "procid.h"
#include "run-merge.h"
#include "sampler.h"
#include "tree-sampler.h"
#include "vgl_merge.h"
#include "message.h"
#include "clock.h"
#include "cli.h"

const char cmd_run_usage[] =
	"usage: vigil run [-o DIR] [--linger DURATION] [--keep-files]\n"
	"                 [--scan LIST] [--frequency HZ] [--interval D]\n"
	"                 [--unwind auto|dwarf[,SIZE]|fp]\n"
	"                 -- CMD [ARGS...]\n"
	"\n"
	"Runs CMD with every instrumented process it starts (its children,\n"
	"theirs, ...) writing its profile into the run's own directory in\n"
	"DIR (VIGIL_FILE=DIR/running.XXXXXX/SECRET/%e.%p.vgl, which a\n"
	"process of the tree may write as any user, and no one outside\n"
	"it: SECRET is in the tree's environment only),\n"
	"waits for CMD and its descendants, and merges the profiles into one\n"
	"per program, DIR/NAME.vgl (see 'vigil merge --help': programs are\n"
	"told apart by build-id, modules without one are matched by path).\n"
	"Profiles are merged as their processes end, so little is left to do\n"
	"when CMD's tree has ended; about once a second the merged profiles\n"
	"so far are written into DIR.\n"
	"The per-process files are removed once merged (--keep-files keeps\n"
	"them, moved into DIR); those of processes left running are kept in\n"
	"DIR/running.XXXXXX, which a line names.  Window snapshots\n"
	"(VIGIL_INTERVAL) are merged by time into DIR/NAME.wNNNNNN.vgl, as\n"
	"'vigil merge' does.  One summary line on stderr says how many\n"
	"programs, processes and calls, and where.\n"
	"\n"
	"  -o DIR        where the profiles go (made if missing; profiles\n"
	"                already in it are not merged).  Default: a new\n"
	"                directory vigil-run.N in the current directory.\n"
	"                DIR is checked before CMD starts: one of another\n"
	"                user's, or one others may write without the sticky\n"
	"                bit (as /tmp has), is refused.  The processes\n"
	"                write into DIR/running.XXXXXX, the run's own, so\n"
	"                runs sharing DIR never merge each other's; a merged\n"
	"                profile whose name another run wrote meanwhile goes\n"
	"                to NAME.1.vgl (NAME.2.vgl, ...), said on stderr.\n"
	"  --linger D    after CMD has ended, wait at most D (default 1s) for\n"
	"                its remaining descendants; those still running then\n"
	"                are named in one warning and left running, never\n"
	"                killed.  Their profiles are merged as they are.\n"
	"  --scan LIST   also sample every process of the tree, rebuilt or\n"
	"                not, every --interval (default 1s), as 'vigil attach'\n"
	"                does (LIST as there: cpu, threads, memory, io, stacks,\n"
	"                ...; default cpu,threads,memory; stacks or counts\n"
	"                alone, or with each other, are added to the default,\n"
	"                any other list is the whole set): each process's\n"
	"                readings go into a sampled profile of its own,\n"
	"                DIR/samples/NAME.PID.vgl (NAME: its program; a\n"
	"                process sampled before an exec has a file for each\n"
	"                program it ran, the one before 'finished (exec'd\n"
	"                another program)'), streamed\n"
	"                as 'vigil attach -o' streams them: valid from the\n"
	"                start and committed about every second, so that a\n"
	"                killed vigil leaves the readings so far ('vigil\n"
	"                report', 'convert', 'flame' read them), and their\n"
	"                stacks, added up per program, into\n"
	"                DIR/NAME.sampled.vgl.\n"
	"                Processes are looked for every 20 ms: one that lives\n"
	"                shorter may not be sampled.\n"
	"  --frequency HZ  sample CPU stacks at HZ (adds stacks to the scans)\n"
	"  --interval D  the sampling interval (1ms to 24h)\n"
	"  --unwind auto|dwarf[,SIZE]|fp  how stacks are unwound, as for\n"
	"                'vigil attach' (adds stacks to the scans)\n"
	"\n"
	"When VIGIL_FILE is set already, it is left as it is and nothing is\n"
	"merged.  CMD gets vigil's stdin, stdout, stderr, limits, signal\n"
	"mask and dispositions; vigil writes only to stderr.  CMD runs in a\n"
	"process group of its own, as a shell runs a job: every signal sent\n"
	"to vigil, or to its process group (`kill 0`, `timeout`), is passed\n"
	"on to CMD's group, once.  When vigil's group has the terminal, CMD's\n"
	"group gets it, so that Ctrl-C, Ctrl-Z and reads of the terminal go\n"
	"to CMD.  When CMD stops, vigil stops too, as a job does (with its\n"
	"group, when the terminal stopped CMD); SIGCONT (`fg`, `bg`) goes on\n"
	"to CMD.  vigil ends when CMD's tree\n"
	"has: with CMD's exit status, or killed by the signal that killed CMD\n"
	"(after writing the profiles); 127 when CMD cannot be found, 126 when\n"
	"it cannot be run; 1 when DIR cannot hold profiles; 2 for a bad\n"
	"command line.\n";

/* A process that is still ours to wait for. */
struct proc {
	pid_t pid, ppid;
	char state;
	char comm[64];
};

/* Reads pid, ppid, state and comm of /proc/PID/stat.  Returns 0 or -1. */
static int read_stat(pid_t pid, struct proc *p)
{
	char path[64], buf[512], *l, *r;
	FILE *f;
	size_t n;
	int ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* comm may hold spaces and parentheses: it ends at the last ')'. */
	l = strchr(buf, '(');
	r = strrchr(buf, ')');
	if (!l || !r || r < l || sscanf(r + 1, " %c %d", &p->state,
					 &ppid) != 2)
		return -1;
	p->pid = pid;
	p->ppid = ppid;
	n = (size_t)(r - l - 1);
	if (n >= sizeof(p->comm))
		n = sizeof(p->comm) - 1;
	memcpy(p->comm, l + 1, n);
	p->comm[n] = 0;
	return 0;
}

/*
 * The processes whose parent chain leads to us and that have not ended
 * (a zombie whose threads are all gone has), in
 * *out (malloc'd; *n of them).  Returns 0 or -1 when /proc cannot be read.
 */
static int descendants(struct proc **out, size_t *n)
{
	struct proc *all = NULL, *t;
	size_t nall = 0, cap = 0, i, j, k, found;
	pid_t self = getpid();
	char *in = NULL;
	struct dirent *d;
	DIR *dir = opendir("/proc");

	*out = NULL;
	*n = 0;
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		if (nall == cap) {
			cap = cap ? cap * 2 : 256;
			t = realloc(all, cap * sizeof(*all));
			if (!t)
				break;
			all = t;
		}
		if (!read_stat((pid_t)atoi(d->d_name), &all[nall]))
			nall++;
	}
	closedir(dir);
	in = calloc(nall ? nall : 1, 1);
	if (!in) {
		free(all);
		return -1;
	}
	/* Marks descendants level by level: a tree of a few thousand
	 * processes is a few passes. */
	do {
		found = 0;
		for (i = 0; i < nall; i++) {
			if (in[i])
				continue;
			if (all[i].ppid == self) {
				in[i] = 1;
				found++;
				continue;
			}
			for (j = 0; j < nall; j++)
				if (in[j] && all[j].pid == all[i].ppid) {
					in[i] = 1;
					found++;
					break;
				}
		}
	} while (found);
	/* A zombie main thread with other threads left is a process that
	 * runs on, or is still being torn down (proc-ended.h): not ended. */
	for (i = k = 0; i < nall; i++)
		if (in[i] && ((all[i].state != 'Z' && all[i].state != 'X') ||
			      proc_threads_left(all[i].pid)))
			all[k++] = all[i];
	free(in);
	*out = all;
	*n = k;
	return 0;
}

/* Names the processes left running in one warning line. */
static void warn_left(const struct proc *ps, size_t n, const char *linger)
{
	char line[2048];
	size_t i, k;

	k = (size_t)snprintf(line, sizeof(line), "vigil: warning: %zu "
			     "process%s still running after --linger %s, "
			     "left running:", n, n == 1 ? "" : "es", linger);
	for (i = 0; i < n && k < sizeof(line) - 64; i++)
		k += (size_t)snprintf(line + k, sizeof(line) - k, "%s %d (%s)",
				      i ? "," : "", (int)ps[i].pid,
				      ps[i].comm);
	if (i < n)
		snprintf(line + k, sizeof(line) - k, " and %zu more", n - i);
	vgl_say("%s", line);
}

/* The pids of the tree now, for the tree sampler; n = 0 when /proc
 * cannot be read. */
static void update_sampler(struct tree_sampler *ts)
{
	struct proc *ps;
	pid_t *pids;
	size_t n, i;

	if (!ts || descendants(&ps, &n) < 0)
		return;
	pids = calloc(n ? n : 1, sizeof(*pids));
	if (pids) {
		for (i = 0; i < n; i++)
			pids[i] = ps[i].pid;
		tree_sampler_update(ts, pids, n);
	}
	free(pids);
	free(ps);
}

/* One run: its command line, where the profiles go, CMD. */
struct run {
	const char *out, *linger, *scan_arg, *freq_arg, *interval_arg,
		   *unwind_arg;
	int keep;
	char **argv;              /* CMD ARGS..., NULL-terminated */
	unsigned scan, freq, stack_copy;
	enum sampler_unwind unwind;
	uint64_t interval_ns, linger_ns;

	const char *user_file;    /* VIGIL_FILE as we found it, or NULL */
	char dir[4096];           /* DIR */
	int made_dir;             /* we made DIR */
	char spath[4200];         /* DIR/samples, when sampling */
	struct run_merge *rm;
	struct tree_sampler *tsam;

	struct rlimit nofile;     /* as we were started: CMD's */
	struct sigaction old_chld;
	sigset_t set, orig;
	int tty;                  /* stdin, when it is our terminal; or -1 */
	int stop_passed;          /* a stop signal we passed on, or 0 */

	pid_t cmd;
	int status, cmd_done;
};

static int sampling(const struct run *r)
{
	return r->scan_arg || r->freq_arg || r->interval_arg ||
	       r->unwind_arg;
}

/* Reads the command line into r.  Returns 0 or EXIT_USAGE. */
static int parse_args(struct run *r, int argc, char **argv)
{
	char serr[SAMPLER_ERR_LEN];
	const struct option_spec specs[] = {
		{ "-o", &r->out, NULL },
		{ "--output", &r->out, NULL },
		{ "--linger", &r->linger, NULL },
		{ "--keep-files", NULL, &r->keep },
		{ "--scan", &r->scan_arg, NULL },
		{ "--frequency", &r->freq_arg, NULL },
		{ "--interval", &r->interval_arg, NULL },
		{ "--unwind", &r->unwind_arg, NULL },
		{ NULL, NULL, NULL },
	};
	int first, err;

	r->linger = "1s";
	if ((err = parse_options_until_command("run", argc, argv, specs,
					       &first)))
		return err;
	if (first >= argc)
		return usage_error("run", "no command given");
	r->argv = argv + first;
	if (vgl_parse_duration(r->linger, &r->linger_ns) < 0)
		return usage_error("run", "'%s' is not a duration", r->linger);
	{
		const struct sampler_flags f = { r->interval_arg, r->scan_arg,
						 r->freq_arg, r->unwind_arg };
		struct sampler_config cfg;

		if (sampler_parse_flags(&f, &cfg, serr, sizeof(serr)))
			return usage_error("run", "%s", serr);
		r->interval_ns = cfg.interval_ns;
		r->scan = cfg.scan;
		r->freq = r->freq_arg ? cfg.frequency : 0;
		r->unwind = cfg.unwind;
		r->stack_copy = cfg.stack_copy;
	}
	/* Stacks and counts are views of the process beside what it uses:
	 * named alone (README's --scan stacks), they add to the default
	 * scans, which `vigil plot` draws; any other list is the set.  A
	 * frequency or an unwinding asks for stacks. */
	if (r->scan_arg && !(r->scan & ~(unsigned)(SAMPLER_SCAN_STACKS |
						   SAMPLER_SCAN_COUNTS)))
		r->scan |= SAMPLER_SCAN_DEFAULT;
	if (r->freq_arg || r->unwind_arg)
		r->scan |= SAMPLER_SCAN_STACKS;
	return 0;
}

/* Makes a new vigil-run.N in the current directory; its name in buf. */
static int fresh_dir(char *buf, size_t len)
{
	int i;

	for (i = 1; i < 100000; i++) {
		snprintf(buf, len, "vigil-run.%d", i);
		if (!mkdir(buf, 0775))
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* Undoes prepare_output() when CMD never ran: nothing is left behind. */
static void unprepare(struct run *r)
{
	struct tree_sampler_stats st;

	if (r->tsam) {
		tree_sampler_stop(r->tsam, &st);
		tree_sampler_stats_release(&st);
		r->tsam = NULL;
		rmdir(r->spath);
	}
	run_merge_free(r->rm);
	r->rm = NULL;
	if (r->made_dir)
		rmdir(r->dir);
}

/*
 * Whether DIR may hold the run's files: README's recipe puts it in the
 * shared /tmp, where another user may have made it first and laid links
 * in it to the victim's files (issue 28.3).  A directory of another
 * user's, or one others may write without the sticky bit, is refused in
 * one line (outfile_dir_check's rule, which every file made in it
 * follows too).  Returns 0 or an exit status after saying why; a DIR
 * that cannot be opened is left to run_merge_start to name.
 */
static int check_dir(const char *dir)
{
	char why[128];
	struct stat st;
	/* O_PATH: one we may write but not list is checked too. */
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return 0;
	if (!fstat(fd, &st) && outfile_dir_check(&st, why, sizeof(why))) {
		vgl_error("%s: cannot use the directory: %s",
			dir, why);
		err = EXIT_BAD_FILE;
	}
	close(fd);
	return err;
}

/*
 * Makes DIR and the run's directory in it, points VIGIL_FILE there, and
 * starts the tree sampler: everything that can fail before CMD runs, so
 * that a bad DIR is one line and CMD is not run.  Returns 0 or an exit
 * status after saying why.
 */
static int prepare_output(struct run *r)
{
	char serr[SAMPLER_ERR_LEN], *abs, *file;
	int err = 0;

	r->user_file = getenv("VIGIL_FILE");
	if (r->user_file && !*r->user_file)
		r->user_file = NULL;
	/* The samples need DIR even when VIGIL_FILE sends profiles
	 * elsewhere. */
	if (r->user_file && !sampling(r))
		return 0;
	/* Never writable by others, whatever the umask: check_dir would
	 * refuse it. */
	if (r->out) {
		snprintf(r->dir, sizeof(r->dir), "%s", r->out);
		if (!mkdir(r->dir, 0775))
			r->made_dir = 1;
		else if (errno != EEXIST)
			err = -errno;
	} else if (!(err = fresh_dir(r->dir, sizeof(r->dir)))) {
		r->made_dir = 1;
	}
	if (err) {
		vgl_error("%s: cannot make the directory: %s",
			r->out ? r->out : "vigil-run.N", strerror(-err));
		return EXIT_BAD_FILE;
	}
	if ((err = check_dir(r->dir))) {
		unprepare(r);
		return err;
	}
	if (!r->user_file) {
		if ((err = run_merge_start(&r->rm, r->dir, r->keep)) < 0) {
			vgl_error("%s: cannot write profiles "
				"there: %s", r->dir, strerror(-err));
			unprepare(r);
			return EXIT_BAD_FILE;
		}
		/* Absolute, since CMD may change directory (make -C). */
		abs = realpath(run_merge_dir(r->rm), NULL);
		if (!abs || asprintf(&file, "%s/%%e.%%p.vgl", abs) < 0) {
			vgl_error("%s: %s", run_merge_dir(r->rm),
				strerror(errno));
			free(abs);
			unprepare(r);
			return EXIT_BAD_FILE;
		}
		setenv("VIGIL_FILE", file, 1);
		free(file);
		free(abs);
	}
	if (sampling(r)) {
		struct sampler_config tmpl = { 0 };

		tmpl.interval_ns = r->interval_ns;
		tmpl.scan = r->scan;
		tmpl.frequency = r->freq;
		tmpl.unwind = r->unwind;
		tmpl.stack_copy = r->stack_copy;
		snprintf(r->spath, sizeof(r->spath), "%s/samples", r->dir);
		if (tree_sampler_start(&r->tsam, r->spath, &tmpl, serr,
				       sizeof(serr)) < 0) {
			vgl_error("%s", serr);
			unprepare(r);
			return EXIT_BAD_FILE;
		}
	}
	return 0;
}

/*
 * Blocks every signal (see the top of the file) and makes us a subreaper;
 * with --scan, raises our own limit on open files to the hard limit: a
 * sampler holds descriptors of its process, and a tree of a few hundred
 * processes is more than the usual 1024.  CMD gets the limit back.
 */
static void prepare_self(struct run *r)
{
	struct sigaction dfl;
	struct rlimit raised;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		vgl_warning("cannot become a subreaper "
			"(%s): orphaned descendants are not waited for",
			strerror(errno));
	/* SIGCHLD must not be ignored here (children would be reaped by
	 * the kernel); CMD gets back whatever it was. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &dfl, &r->old_chld);
	sigfillset(&r->set);
	sigprocmask(SIG_BLOCK, &r->set, &r->orig);
	/* The terminal is stdin's, as a shell's: a script's background job
	 * has /dev/null for stdin and must not take the terminal from the
	 * script, though it shares its group. */
	r->tty = tcgetpgrp(STDIN_FILENO) >= 0 ? STDIN_FILENO : -1;
	getrlimit(RLIMIT_NOFILE, &r->nofile);
	raised = r->nofile;
	raised.rlim_cur = raised.rlim_max;
	if (sampling(r) && r->nofile.rlim_cur < r->nofile.rlim_max &&
	    setrlimit(RLIMIT_NOFILE, &raised))
		vgl_warning("cannot raise the limit on "
			"open files to %llu: %s",
			(unsigned long long)raised.rlim_cur, strerror(errno));
}

/* Gives the terminal's foreground to CMD's group when our group has it,
 * as a shell gives it to the job it resumes.  SIGTTOU is blocked, so the
 * kernel would let a background vigil take it too: it must be ours. */
static void give_terminal(struct run *r)
{
	if (r->tty >= 0 && tcgetpgrp(r->tty) == getpgrp())
		tcsetpgrp(r->tty, r->cmd);
}

/* Takes the terminal back when CMD's group has it (CMD stopped or
 * ended), as a shell takes it back from a job. */
static void take_terminal(struct run *r)
{
	if (r->tty >= 0 && tcgetpgrp(r->tty) == r->cmd)
		tcsetpgrp(r->tty, getpgrp());
}

/*
 * Forks and runs CMD with what we were started with, in a process group
 * of its own, with the terminal when our group has it.  A CMD that cannot
 * be run is told back through a close-on-exec pipe, so that it leaves no
 * directory behind.  Returns 0, or an exit status after saying why.
 */
static int start_cmd(struct run *r)
{
	int pfd[2], e = 0, fg;
	ssize_t n;

	fflush(NULL);
	fg = r->tty >= 0 && tcgetpgrp(r->tty) == getpgrp();
	if (pipe2(pfd, O_CLOEXEC)) {
		vgl_error("cannot make a pipe: %s",
			strerror(errno));
		return EXIT_BAD_FILE;
	}
	r->cmd = fork();
	if (r->cmd < 0) {
		vgl_error("cannot fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return EXIT_BAD_FILE;
	}
	if (r->cmd == 0) {
		close(pfd[0]);
		/* Both here and in the parent, as shells do: whichever runs
		 * first, CMD is in its group, with the terminal, before it
		 * runs.  SIGTTOU is blocked, so a background group may take
		 * the terminal: we checked it was ours. */
		setpgid(0, 0);
		if (fg)
			tcsetpgrp(r->tty, getpid());
		setrlimit(RLIMIT_NOFILE, &r->nofile);
		sigaction(SIGCHLD, &r->old_chld, NULL);
		sigprocmask(SIG_SETMASK, &r->orig, NULL);
		execvp(r->argv[0], r->argv);
		e = errno;
		if (write(pfd[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(e == ENOENT ? 127 : 126);
	}
	close(pfd[1]);
	/* EACCES once CMD has exec'd: it did it itself then. */
	setpgid(r->cmd, r->cmd);
	if (fg)
		tcsetpgrp(r->tty, r->cmd);
	do
		n = read(pfd[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	if (n != sizeof(e))
		return 0;   /* exec'd: the pipe closed */
	waitpid(r->cmd, NULL, 0);
	take_terminal(r);
	vgl_error("%s: %s", r->argv[0], strerror(e));
	return e == ENOENT ? 127 : 126;
}

/*
 * Reaps every child that has ended; CMD's status goes to r.  When CMD
 * stops, we stop too, as a job does under a shell, and take the terminal
 * back.  A stop we did not pass on came from the terminal (Ctrl-Z to the
 * foreground group, SIGTTIN or SIGTTOU to a background group that used
 * it), which without us would have stopped our whole group: it stops
 * our group (a script that runs us, say), with the same signal.  So does
 * CMD's death by Ctrl-C or Ctrl-\ while its group had the terminal: a
 * script looping over `vigil run` stops as it would without us.  We get
 * those too, blocked, and drop them: they come from ourselves.
 */
static void reap(struct run *r)
{
	pid_t p;
	int st, sig, had_tty;

	while ((p = waitpid(-1, &st, WNOHANG | WUNTRACED)) > 0) {
		if (p != r->cmd)
			continue;
		had_tty = r->tty >= 0 && tcgetpgrp(r->tty) == r->cmd;
		if (WIFSTOPPED(st)) {
			/* Job control's stops only: a ptrace stop (SIGTRAP)
			 * is a tracer's business. */
			sig = WSTOPSIG(st);
			if (sig != SIGSTOP && sig != SIGTSTP &&
			    sig != SIGTTIN && sig != SIGTTOU)
				continue;
			take_terminal(r);
			if (sig != SIGSTOP && !r->stop_passed)
				kill(0, sig);
			r->stop_passed = 0;
			kill(getpid(), SIGSTOP);
			continue;
		}
		take_terminal(r);
		if (WIFSIGNALED(st) && had_tty &&
		    (WTERMSIG(st) == SIGINT || WTERMSIG(st) == SIGQUIT))
			kill(0, WTERMSIG(st));
		r->status = st;
		r->cmd_done = 1;
	}
}

static void pass_on(struct run *r, const siginfo_t *si);

/*
 * Takes the same signal from the same sender if it comes within 1 ms,
 * and passes on any other sender's.  timeout(1) signals us, then our
 * group, at once: without us CMD gets the second while the first is
 * still pending, which the kernel merges into one.  Passed on as they
 * came, CMD got two when it handled the first before we had the second
 * (1 run in 20, `timeout -s TERM 0.3 vigil run -- CMD`; 0 in 30
 * without vigil).  The wait is that of the sender's next kill(), not of
 * our own scheduling: one already pending is taken at once.
 */
static void twin(struct run *r, const siginfo_t *si)
{
	const struct timespec ms = { 0, 1000000 };
	siginfo_t again;
	sigset_t one;
	int n = 0;

	sigemptyset(&one);
	sigaddset(&one, si->si_signo);
	/* Bounded: a sender that never stops must not keep us from CMD. */
	while (n++ < 64 && sigtimedwait(&one, &again, &ms) == si->si_signo)
		if (again.si_code != SI_USER || again.si_pid != si->si_pid)
			pass_on(r, &again);
}

/*
 * Passes a signal on to CMD, as it would have got it without us: once,
 * to its process group (which shares ours when we are not there), or
 * to CMD alone when it was named to one process.  Not one we sent
 * ourselves (to our own group, above) or that the kernel made of our
 * own doing (SIGPIPE, SIGXFSZ: sent as if by ourselves), nor one of a
 * source CMD does not share (a timer, I/O).  The kernel's others come
 * from the terminal (Ctrl-C while our group has it) or from our group's
 * becoming orphaned (SIGHUP, SIGCONT): CMD's group would have had them.
 * SIGCONT gives CMD's group the terminal first, when ours has it (`fg`).
 * One that its sender sends again at once is passed on once (see
 * twin()).
 */
static void pass_on(struct run *r, const siginfo_t *si)
{
	int sig = si->si_signo;

	if (si->si_code != SI_KERNEL && si->si_code != SI_USER &&
	    si->si_code != SI_QUEUE && si->si_code != SI_TKILL)
		return;
	if (si->si_code != SI_KERNEL && si->si_pid == getpid())
		return;
	if (si->si_code == SI_USER)
		twin(r, si);
	if (sig == SIGCONT) {
		give_terminal(r);
		r->stop_passed = 0;
	}
	if (sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
		r->stop_passed = sig;
	if (si->si_code == SI_QUEUE)
		sigqueue(r->cmd, sig, si->si_value);
	else if (si->si_code == SI_TKILL || getpgid(r->cmd) != r->cmd)
		kill(r->cmd, sig);
	else
		kill(-r->cmd, sig);
}

/* Until CMD ends: reap, pass signals on; when sampling, look for new
 * processes every 20 ms too; merge the profiles of processes that ended
 * every 100 ms. */
static void supervise(struct run *r)
{
	uint64_t poll_ns = vgl_clock_ns(CLOCK_MONOTONIC);
	siginfo_t si;
	int sig;

	update_sampler(r->tsam);
	while (!r->cmd_done) {
		const struct timespec tick = { 0, r->tsam ? 20000000
							  : 100000000 };

		sig = r->tsam || r->rm ? sigtimedwait(&r->set, &si, &tick)
				       : sigwaitinfo(&r->set, &si);
		update_sampler(r->tsam);
		if (r->rm && vgl_clock_ns(CLOCK_MONOTONIC) - poll_ns >= 100000000ull) {
			run_merge_poll(r->rm);
			poll_ns = vgl_clock_ns(CLOCK_MONOTONIC);
		}
		if (sig < 0)
			continue;
		if (sig == SIGCHLD)
			reap(r);
		else
			pass_on(r, &si);
	}
}

/* Then CMD's descendants, for at most --linger (however long that is:
 * the deadline saturates). */
static void wait_tree(struct run *r)
{
	uint64_t deadline = vgl_clock_ns(CLOCK_MONOTONIC) + r->linger_ns;
	siginfo_t si;

	if (deadline < r->linger_ns)
		deadline = UINT64_MAX;
	for (;;) {
		struct proc *ps;
		size_t n;
		struct timespec ts;
		uint64_t now, step;

		reap(r);
		if (descendants(&ps, &n) < 0)
			break;
		if (!n) {
			free(ps);
			break;
		}
		now = vgl_clock_ns(CLOCK_MONOTONIC);
		if (now >= deadline) {
			warn_left(ps, n, r->linger);
			free(ps);
			break;
		}
		free(ps);
		update_sampler(r->tsam);
		/* A grandchild's end sends us nothing: look again soon. */
		step = deadline - now < 10000000ull ? deadline - now
						    : 10000000ull;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)step;
		/* CMD is gone: a signal now has no one to go to. */
		sigtimedwait(&r->set, &si, &ts);
	}
}

/* Says how many processes could not be sampled and why; out of
 * descriptors, that vigil's limit is already its hard limit (raised so
 * by prepare_self()), which only the user can raise. */
static void warn_unsampled(const struct tree_sampler_stats *st)
{
	struct rlimit now;
	char more[128] = "";

	if (st->first_errno == -EMFILE && !getrlimit(RLIMIT_NOFILE, &now))
		snprintf(more, sizeof(more), "; vigil may open %llu files%s "
			 "(ulimit -Hn)", (unsigned long long)now.rlim_cur,
			 now.rlim_cur == now.rlim_max ? ", its hard limit"
						      : "");
	vgl_warning("%zu of %zu processes could not be "
		"sampled (the first, %s)%s", st->unsampled,
		st->unsampled + st->processes, st->first_err, more);
}

/* Stops the sampler, merges, writes, says what was done. */
static void finish(struct run *r)
{
	struct tree_sampler_stats st;

	memset(&st, 0, sizeof(st));
	if (r->tsam) {
		tree_sampler_stop(r->tsam, &st);
		vgl_say("vigil run: %llu readings of %zu process%s -> "
			"%zu file%s in %s", (unsigned long long)st.samples,
			st.processes, st.processes == 1 ? "" : "es", st.files,
			st.files == 1 ? "" : "s", r->spath);
		if (st.unsampled)
			warn_unsampled(&st);
	}
	if (r->rm) {
		run_merge_finish(r->rm);
	} else if (r->user_file) {
		vgl_say("vigil run: VIGIL_FILE was set (%s): profiles "
			"left where it says, not merged", r->user_file);
	}
	/* After the counting profiles, which must not take these for
	 * inputs. */
	if (r->tsam)
		run_merge_samples(r->rm, r->spath, st.written, st.to_merge,
				  r->dir);
	tree_sampler_stats_release(&st);
	run_merge_free(r->rm);
	/* The default directory, when nothing went into it. */
	if (r->made_dir && !r->out)
		rmdir(r->dir);
}

/*
 * Ends as CMD did: its exit status, or killed by the same signal (with
 * no core of our own: the core that matters is CMD's), as timeout(1) and
 * env(1) do, so that a shell sees CMD's end.  128+N if we outlive it.
 */
static int end_as(int status)
{
	struct rlimit none = { 0, 0 };
	sigset_t one;
	int sig;

	if (!WIFSIGNALED(status))
		return WEXITSTATUS(status);
	sig = WTERMSIG(status);
	fflush(NULL);
	setrlimit(RLIMIT_CORE, &none);
	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	raise(sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	return 128 + sig;
}

int cmd_run(int argc, char **argv)
{
	struct run r;
	int ret;

	memset(&r, 0, sizeof(r));
	if ((ret = parse_args(&r, argc, argv)))
		return ret;
	if ((ret = prepare_output(&r)))
		return ret;
	prepare_self(&r);
	if ((ret = start_cmd(&r))) {
		unprepare(&r);
		return ret;
	}
	supervise(&r);
	wait_tree(&r);
	finish(&r);
	return end_as(r.status);
}
