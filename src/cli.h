/*
 * cli.h - what the subcommands of the `vigil` command share: their entry
 * points and usage texts (listed once, in the table in vigil.c) and the
 * helpers that make every command fail the same way.
 */
#ifndef VIGIL_CMD_H
#define VIGIL_CMD_H

#include <sys/types.h>

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

/* The pid of -p PID (1 .. 2^31-1): 0 and *pid set, or EXIT_USAGE with
 * "bad pid 'ARG'" said. */
int parse_pid(const char *cmd, const char *arg, pid_t *pid);

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

/* out_convert (views/out.h) for command cmd: its usage errors as the
 * command's ("vigil CMD: ..."); returns the exit status.  In cli.c. */
int convert_to(const char *cmd, const char *path, const char *to,
	       const char *out, const char *module);

/* Prints "vigil: FILE: <r->err>" (escaped, as message.h's lines are) and
 * returns EXIT_BAD_FILE. */
int file_error(const struct vgl_reader *r, const char *path);

#endif
