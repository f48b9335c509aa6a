/*
 * options.c - the command line of every subcommand: long options (flags,
 * and options with a value as "--name VALUE" or "--name=VALUE"), "--" to
 * end them, and the rest as operands, in order.  One parser, so every
 * command refuses a bad command line the same way.
 */
#include <string.h>

#include "cli.h"

static const struct option_spec *find_spec(const struct option_spec *specs,
					   const char *arg, const char **eq)
{
	size_t len;

	for (; specs->name; specs++) {
		len = strlen(specs->name);
		if (strncmp(arg, specs->name, len))
			continue;
		if (!arg[len]) {
			*eq = NULL;
			return specs;
		}
		if (arg[len] == '=' && specs->value) {
			*eq = arg + len + 1;
			return specs;
		}
	}
	return NULL;
}

/*
 * The one parser.  stop: the first operand (or what follows "--") ends
 * the options, and its index goes to *first (argc when there is none);
 * else operands go to operands, in order.
 */
static int parse(const char *cmd, int argc, char **argv,
		 const struct option_spec *specs, char **operands,
		 int *noperands, int stop, int *first)
{
	const struct option_spec *s;
	int i, dashdash = 0;
	const char *eq;

	if (noperands)
		*noperands = 0;
	for (i = 1; i < argc; i++) {
		if (!dashdash && !strcmp(argv[i], "--")) {
			dashdash = 1;
			continue;
		}
		if (dashdash || argv[i][0] != '-' || !argv[i][1]) {
			if (stop)
				break;
			operands[(*noperands)++] = argv[i];
			continue;
		}
		s = find_spec(specs, argv[i], &eq);
		if (!s)
			return usage_error(cmd, "unknown option '%s'", argv[i]);
		if (!s->value) {
			*s->flag = 1;
		} else if (eq) {
			*s->value = eq;
		} else if (++i < argc) {
			*s->value = argv[i];
		} else {
			return usage_error(cmd, "%s needs a value", s->name);
		}
	}
	if (first)
		*first = i;
	return 0;
}

int parse_options(const char *cmd, int argc, char **argv,
		  const struct option_spec *specs, char **operands,
		  int *noperands)
{
	return parse(cmd, argc, argv, specs, operands, noperands, 0, NULL);
}

int parse_options_until_command(const char *cmd, int argc, char **argv,
				const struct option_spec *specs, int *first)
{
	return parse(cmd, argc, argv, specs, NULL, NULL, 1, first);
}

const char *one_operand(const char *cmd, char **operands, int noperands)
{
	if (noperands == 1)
		return operands[0];
	usage_error(cmd, noperands ? "more than one file given"
				   : "no file given");
	return NULL;
}
