/*
 * cli.h - what the subcommands of the `vigil` command share: their entry
 * points and usage texts (listed once, in the table in vigil.c) and the
 * helpers that make every command fail the same way.
 */
#ifndef VIGIL_CMD_H
#define VIGIL_CMD_H

#include "vgl_reader.h"

/* Exit statuses: 1 for a bad input file, 2 for a bad command line. */
#define EXIT_BAD_FILE 1
#define EXIT_USAGE 2

/* Each subcommand gets argv with argv[0] its own name; returns the exit
 * status.  "--help" never reaches it: vigil.c answers that from the table. */
int cmd_show(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_flame(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_wait(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_run(int argc, char **argv);

extern const char cmd_show_usage[];
extern const char cmd_report_usage[];
extern const char cmd_convert_usage[];
extern const char cmd_flame_usage[];
extern const char cmd_plot_usage[];
extern const char cmd_view_usage[];
extern const char cmd_wait_usage[];
extern const char cmd_check_usage[];
extern const char cmd_attach_usage[];
extern const char cmd_merge_usage[];
extern const char cmd_run_usage[];

/* Prints "vigil CMD: <message> (see 'vigil CMD --help')" and returns
 * EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A long option of a subcommand: a flag (value NULL, *flag set to 1) or
 * an option with a value (*value set).  Lists end with a NULL name. */
struct option_spec {
	const char *name;        /* "--json" */
	const char **value;
	int *flag;
};

/*
 * Parses argv[1..argc) against specs; operands (everything else, and all
 * after "--") go to operands, which has room for argc entries, in order.
 * Returns 0, or EXIT_USAGE after printing the error.
 */
int parse_options(const char *cmd, int argc, char **argv,
		  const struct option_spec *specs, char **operands,
		  int *noperands);

/*
 * The same for a command that runs another (vigil run -- CMD ARGS...):
 * the first operand, or what follows "--", is CMD, and it and what
 * follows it are not parsed; *first is its index (argc: none given).
 * Returns 0 or EXIT_USAGE after printing the error.
 */
int parse_options_until_command(const char *cmd, int argc, char **argv,
				const struct option_spec *specs, int *first);

/* The single FILE operand, or NULL after saying there is none or more. */
const char *one_operand(const char *cmd, char **operands, int noperands);

/* Writes the profile at path in format to (a `vigil convert --to` name)
 * to out (NULL: standard output); module is convert's --module.  Errors
 * are one line ("vigil CMD: ..." for a bad format); returns the exit
 * status.  In cmd-convert.c. */
int convert_to(const char *cmd, const char *path, const char *to,
	       const char *out, const char *module);

/* Prints the "state: ..." line of r, and for a merge the "merged: ..."
 * line after it (how many processes, and how they ended). */
void print_state(const struct vgl_reader *r);

/* Prints the "file: PATH" line of show and report, the path's control
 * bytes escaped (text.h). */
void print_file(const char *path);

/* Prints "vigil: FILE: <r->err>" (escaped, as message.h's lines are) and
 * returns EXIT_BAD_FILE. */
int file_error(const struct vgl_reader *r, const char *path);

/* CLOCK_MONOTONIC in ns, for deadlines and elapsed times. */
uint64_t vigil_now_ns(void);

/* Formats ns since the epoch as ISO-8601 UTC with milliseconds, or "-" for
 * 0.  Returns buf. */
const char *format_time(uint64_t ns, char *buf, size_t len);

/* Shared by merge and run (cmd-merge.c): the summary of a merge, "N
 * profiles of P programs, C calls, ..." with what was special about them
 * (bad: unreadable inputs skipped), and the warning about modules matched
 * by path, if any. */
struct vgl_merge;
void merge_summary(const struct vgl_merge *m, size_t bad, char *buf,
		   size_t len);
void merge_by_path_warning(const struct vgl_merge *m);

#endif
