/*
 * cmd-run.c - `vigil run [-o DIR] [--linger D] -- CMD ARGS...`: run CMD
 * as our child with every instrumented descendant writing its profile
 * into DIR, wait for the tree, then merge the profiles into one per
 * program.
 *
 * We are CMD's parent and a child subreaper, never a process inside the
 * profiled tree: nothing of ours holds CMD's descriptors, and whatever its
 * descendants orphan comes back to us to be waited for.  So "CMD's tree
 * has ended" is something we see (our children reaped, no process left
 * whose parent chain leads to us), and once it has, every profile is final
 * (its writer is gone).  Profiles are merged while CMD runs, as their
 * processes end (run-merge.c), so that the end has little left to do.  A descendant that outlives CMD by more than
 * --linger is named and left running: a left-behind server must not hang
 * the harness that runs us.
 *
 * Signals: SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGCHLD are blocked in
 * vigil and taken with sigwaitinfo(), so no handler runs and no signal is
 * lost between fork and wait.  One that a process sent to us (SI_USER,
 * SI_QUEUE, SI_TKILL) is forwarded to CMD; one the kernel generated (the
 * terminal's Ctrl-C, Ctrl-\, hangup) is not, because the terminal sent it
 * to the whole foreground process group, CMD included, and CMD must get it
 * once.  CMD gets the signal mask and the dispositions we were started
 * with.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "duration.h"
#include "procid.h"
#include "run-merge.h"
#include "sampler.h"
#include "tree-sampler.h"
#include "vgl_merge.h"
#include "vigil.h"

const char cmd_run_usage[] =
	"usage: vigil run [-o DIR] [--linger DURATION] [--keep-files]\n"
	"                 [--scan LIST] [--frequency HZ] [--interval D]\n"
	"                 -- CMD [ARGS...]\n"
	"\n"
	"Runs CMD with every instrumented process it starts (its children,\n"
	"theirs, ...) writing its profile into DIR (VIGIL_FILE=DIR/%e.%p.vgl),\n"
	"waits for CMD and its descendants, and merges the profiles into one\n"
	"per program, DIR/NAME.vgl (see 'vigil merge --help': programs are\n"
	"told apart by build-id, modules without one are matched by path).\n"
	"Profiles are merged as their processes end, so little is left to do\n"
	"when CMD's tree has ended; about once a second the merged profiles\n"
	"so far are written into DIR.\n"
	"The per-process files are removed once merged (--keep-files keeps\n"
	"them); those of processes left running are kept.  Window snapshots\n"
	"(VIGIL_INTERVAL) are merged by time into DIR/NAME.wNNNNNN.vgl, as\n"
	"'vigil merge' does.  One summary line on stderr says how many\n"
	"programs, processes and calls, and where.\n"
	"\n"
	"  -o DIR        where the profiles go (made if missing; profiles\n"
	"                already in it are not merged).  Default: a new\n"
	"                directory vigil-run.N in the current directory.\n"
	"  --linger D    after CMD has ended, wait at most D (default 1s) for\n"
	"                its remaining descendants; those still running then\n"
	"                are named in one warning and left running, never\n"
	"                killed.  Their profiles are merged as they are.\n"
	"  --scan LIST   also sample every process of the tree, rebuilt or\n"
	"                not, every --interval (default 1s), as 'vigil attach'\n"
	"                does (LIST as there: cpu, threads, memory, io, stacks,\n"
	"                ...; default cpu,threads,memory): each process's\n"
	"                samples go into a sampled profile of its own,\n"
	"                DIR/samples/NAME.PID.vgl, as 'vigil attach -o' writes\n"
	"                them ('vigil report', 'convert', 'flame' read them),\n"
	"                and their stacks, added up per program, into\n"
	"                DIR/NAME.sampled.vgl.\n"
	"                Processes are looked for every 20 ms: one that lives\n"
	"                shorter may not be sampled.\n"
	"  --frequency HZ  sample CPU stacks at HZ (adds stacks to the scans)\n"
	"  --interval D  the sampling interval (1ms to 24h)\n"
	"\n"
	"When VIGIL_FILE is set already, it is left as it is and nothing is\n"
	"merged.  CMD gets vigil's stdin, stdout, stderr, process group, signal\n"
	"mask and dispositions; vigil writes only to stderr.  SIGINT, SIGTERM,\n"
	"SIGHUP and SIGQUIT sent to vigil are passed on to CMD (once: a\n"
	"terminal's Ctrl-C, which reaches CMD itself, is not sent again).\n"
	"Exit status: CMD's, or 128+N when signal N killed it; 127 when CMD\n"
	"cannot be run; 2 for a bad command line.\n";

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
 * The live (not zombie) processes whose parent chain leads to us, in
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
	for (i = k = 0; i < nall; i++)
		if (in[i] && all[i].state != 'Z')
			all[k++] = all[i];
	free(in);
	*out = all;
	*n = k;
	return 0;
}

/* Reaps every child that has ended; CMD's status goes to *status. */
static void reap(pid_t cmd, int *status, int *cmd_done)
{
	pid_t p;
	int st;

	while ((p = waitpid(-1, &st, WNOHANG)) > 0)
		if (p == cmd) {
			*status = st;
			*cmd_done = 1;
		}
}

/* Makes a new vigil-run.N in the current directory; its name in buf. */
static int fresh_dir(char *buf, size_t len)
{
	int i;

	for (i = 1; i < 100000; i++) {
		snprintf(buf, len, "vigil-run.%d", i);
		if (!mkdir(buf, 0777))
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
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
	fprintf(stderr, "%s\n", line);
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

int cmd_run(int argc, char **argv)
{
	const char *out = NULL, *linger = "1s", *user_file;
	const char *scan_arg = NULL, *freq_arg = NULL, *interval_arg = NULL;
	struct tree_sampler *tsam = NULL;
	unsigned scan = SAMPLER_SCAN_DEFAULT, freq = 0;
	uint64_t interval_ns = 1000000000ull;
	char serr[SAMPLER_ERR_LEN], spath[4200];
	int keep = 0, i, status = 0, cmd_done = 0, sig;
	uint64_t linger_ns, deadline, poll_ns;
	char dir[4096], *abs = NULL, *file = NULL;
	struct run_merge *rm = NULL;
	struct sigaction dfl, old_chld;
	sigset_t set, orig;
	siginfo_t si;
	pid_t cmd;

	for (i = 1; i < argc; i++) {
		const char **val = NULL;

		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (argv[i][0] != '-')
			break;
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output"))
			val = &out;
		else if (!strcmp(argv[i], "--linger"))
			val = &linger;
		else if (!strncmp(argv[i], "--linger=", 9))
			linger = argv[i] + 9;
		else if (!strncmp(argv[i], "--output=", 9))
			out = argv[i] + 9;
		else if (!strcmp(argv[i], "--keep-files"))
			keep = 1;
		else if (!strcmp(argv[i], "--scan"))
			val = &scan_arg;
		else if (!strcmp(argv[i], "--frequency"))
			val = &freq_arg;
		else if (!strcmp(argv[i], "--interval"))
			val = &interval_arg;
		else
			return usage_error("run", "unknown option '%s'",
					   argv[i]);
		if (val) {
			if (++i >= argc)
				return usage_error("run", "%s needs a value",
						   argv[i - 1]);
			*val = argv[i];
		}
	}
	if (i >= argc)
		return usage_error("run", "no command given");
	if (vgl_parse_duration(linger, &linger_ns) < 0)
		return usage_error("run", "'%s' is not a duration", linger);
	if (scan_arg && sampler_parse_scan(scan_arg, &scan, serr,
					   sizeof(serr)) < 0)
		return usage_error("run", "%s", serr);
	if (freq_arg) {
		if (sampler_parse_hz(freq_arg, &freq) < 0)
			return usage_error("run", "'%s' is not a frequency "
					   "(1 to %u Hz)", freq_arg,
					   SAMPLER_FREQ_MAX);
		scan |= SAMPLER_SCAN_STACKS;
	}
	if (interval_arg &&
	    (vgl_parse_duration(interval_arg, &interval_ns) < 0 ||
	     interval_ns < SAMPLER_INTERVAL_MIN_NS ||
	     interval_ns > SAMPLER_INTERVAL_MAX_NS))
		return usage_error("run", "'%s' is not an interval (1ms to "
				   "24h)", interval_arg);

	user_file = getenv("VIGIL_FILE");
	if (user_file && !*user_file)
		user_file = NULL;
	/* The samples need DIR even when VIGIL_FILE sends profiles elsewhere. */
	if (!user_file || scan_arg || freq_arg || interval_arg) {
		int err = 0;

		if (out) {
			snprintf(dir, sizeof(dir), "%s", out);
			if (mkdir(dir, 0777) && errno != EEXIST)
				err = -errno;
		} else {
			err = fresh_dir(dir, sizeof(dir));
		}
		if (err) {
			fprintf(stderr, "vigil: %s: cannot make the directory: "
				"%s\n", out ? out : "vigil-run.N",
				strerror(-err));
			return EXIT_BAD_FILE;
		}
		if (!user_file && run_merge_start(&rm, dir, keep) < 0) {
			fprintf(stderr, "vigil: out of memory\n");
			return EXIT_BAD_FILE;
		}
		/* Absolute, since CMD may change directory (make -C). */
		abs = realpath(dir, NULL);
		if (!abs || asprintf(&file, "%s/%%e.%%p.vgl", abs) < 0) {
			fprintf(stderr, "vigil: %s: %s\n", dir,
				strerror(errno));
			return EXIT_BAD_FILE;
		}
		if (!user_file)
			setenv("VIGIL_FILE", file, 1);
	}
	if (scan_arg || freq_arg || interval_arg) {
		snprintf(spath, sizeof(spath), "%s/samples", dir);
		if (tree_sampler_start(&tsam, spath, scan, freq, interval_ns,
				       serr, sizeof(serr)) < 0) {
			fprintf(stderr, "vigil: %s\n", serr);
			return EXIT_BAD_FILE;
		}
	}

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		fprintf(stderr, "vigil: warning: cannot become a subreaper "
			"(%s): orphaned descendants are not waited for\n",
			strerror(errno));
	/* SIGCHLD must not be ignored here (children would be reaped by
	 * the kernel); CMD gets back whatever it was. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &dfl, &old_chld);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigprocmask(SIG_BLOCK, &set, &orig);
	fflush(NULL);

	cmd = fork();
	if (cmd < 0) {
		fprintf(stderr, "vigil: cannot fork: %s\n", strerror(errno));
		return EXIT_BAD_FILE;
	}
	if (cmd == 0) {
		sigaction(SIGCHLD, &old_chld, NULL);
		sigprocmask(SIG_SETMASK, &orig, NULL);
		execvp(argv[i], argv + i);
		fprintf(stderr, "vigil: %s: %s\n", argv[i], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}

	/* Until CMD ends: reap, and pass signals on; when sampling, look for
	 * new processes every 20 ms too; merge the profiles of processes
	 * that ended every 100 ms. */
	update_sampler(tsam);
	poll_ns = vigil_now_ns();
	while (!cmd_done) {
		const struct timespec tick = { 0, tsam ? 20000000 : 100000000 };

		sig = tsam || rm ? sigtimedwait(&set, &si, &tick)
				 : sigwaitinfo(&set, &si);
		update_sampler(tsam);
		if (rm && vigil_now_ns() - poll_ns >= 100000000ull) {
			run_merge_poll(rm);
			poll_ns = vigil_now_ns();
		}
		if (sig < 0)
			continue;
		if (sig == SIGCHLD) {
			reap(cmd, &status, &cmd_done);
			continue;
		}
		if (si.si_code == SI_USER || si.si_code == SI_QUEUE ||
		    si.si_code == SI_TKILL)
			kill(cmd, sig);
	}

	/* Then its descendants, for at most --linger. */
	deadline = vigil_now_ns() + linger_ns;
	for (;;) {
		struct proc *ps;
		size_t n;
		struct timespec ts;
		uint64_t now, step;

		reap(cmd, &status, &cmd_done);
		if (descendants(&ps, &n) < 0)
			break;
		if (!n) {
			free(ps);
			break;
		}
		now = vigil_now_ns();
		if (now >= deadline) {
			warn_left(ps, n, linger);
			free(ps);
			break;
		}
		free(ps);
		update_sampler(tsam);
		/* A grandchild's end sends us nothing: look again soon. */
		step = deadline - now < 10000000ull ? deadline - now
						    : 10000000ull;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)step;
		sigtimedwait(&set, &si, &ts);
	}

	if (tsam) {
		size_t nproc, nfiles;
		uint64_t nsamples;

		tree_sampler_stop(tsam, &nproc, &nfiles, &nsamples);
		fprintf(stderr, "vigil run: %llu samples of %zu process%s -> "
			"%zu file%s in %s\n", (unsigned long long)nsamples,
			nproc, nproc == 1 ? "" : "es", nfiles,
			nfiles == 1 ? "" : "s", spath);
	}
	if (rm) {
		run_merge_finish(rm);
	} else if (user_file) {
		fprintf(stderr, "vigil run: VIGIL_FILE was set (%s): profiles "
			"left where it says, not merged\n", user_file);
	}
	/* After the counting profiles, which must not take these for
	 * inputs. */
	if (tsam)
		run_merge_samples(spath, dir);

	free(abs);
	free(file);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
