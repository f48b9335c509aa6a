/*
 * vigil.c - the `vigil` command: finds the subcommand in the one table
 * below and runs it.  Adding a command is one file (cmd-NAME.c) and one row.
 */
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "message.h"
#include "text.h"
#include "vgl_format.h"
#include "cli.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	const char *usage;
};

static const struct cmd commands[] = {
	{ "show", cmd_show, "print a profile's metadata and check it",
	  cmd_show_usage },
	{ "report", cmd_report, "flat profile and call graph, or JSON",
	  cmd_report_usage },
	{ "convert", cmd_convert, "write a profile as callgrind, folded stacks, BOLT fdata, pprof",
	  cmd_convert_usage },
	{ "flame", cmd_flame, "draw a profile as an interactive flame graph (SVG)",
	  cmd_flame_usage },
	{ "view", cmd_view, "one interactive HTML page: flame graph, table, callers and callees, threads",
	  cmd_view_usage },
	{ "plot", cmd_plot, "draw a sampled profile's CPU per thread, memory, host CPU over time (SVG)",
	  cmd_plot_usage },
	{ "wait", cmd_wait, "block until a profile's writer has finished",
	  cmd_wait_usage },
	{ "check", cmd_check, "is a program instrumented and linked with vigil?",
	  cmd_check_usage },
	{ "attach", cmd_attach, "watch a running process live (CPU, threads, memory, stacks)",
	  cmd_attach_usage },
	{ "merge", cmd_merge, "add up profiles of the same program into one",
	  cmd_merge_usage },
	{ "run", cmd_run, "run a command, profile its whole process tree, merge",
	  cmd_run_usage },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void main_usage(FILE *f)
{
	size_t i;

	fputs("usage: vigil COMMAND [ARGS]\n"
	      "       vigil help COMMAND | vigil COMMAND --help\n"
	      "       vigil --version\n\n"
	      "Commands:\n", f);
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
}

static const struct cmd *find(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static const struct cmd *find_or_complain(const char *name)
{
	const struct cmd *c = find(name);

	if (!c)
		vgl_error("'%s' is not a vigil command (see 'vigil --help')",
			name);
	return c;
}

/*
 * Every command's last step: what it printed must have reached stdout.  A
 * full disk or a closed pipe is one line and a non-zero exit, never a
 * silent success with half the output missing.
 */
static int check_stdout(int status)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return status;
	vgl_error("write error on standard output: %s",
		strerror(errno ? errno : EIO));
	return status ? status : EXIT_BAD_FILE;
}

int main(int argc, char **argv)
{
	const struct cmd *c;
	int i;

	if (argc < 2) {
		main_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		main_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		/* The release, then the newest profile format it writes (it
		 * reads every older one). */
		printf("vigil %s (profile format %u)\n", VIGIL_VERSION,
		       (unsigned)VGL_VERSION);
		return check_stdout(0);
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			main_usage(stdout);
			return 0;
		}
		c = find_or_complain(argv[2]);
		if (!c)
			return EXIT_USAGE;
		fputs(c->usage, stdout);
		return check_stdout(0);
	}
	/* Every file is read whole into one buffer and freed after; a merge
	 * of a thousand files would otherwise have each buffer mapped fresh
	 * and zeroed by the kernel (half of a merge's time went to page
	 * faults).  Freed memory stays in the heap for the next file. */
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	c = find_or_complain(argv[1]);
	if (!c)
		return EXIT_USAGE;
	/* Answered here so that every command's help is its table row. */
	for (i = 2; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(c->usage, stdout);
			return check_stdout(0);
		}
	return check_stdout(c->fn(argc - 1, argv + 1));
}
