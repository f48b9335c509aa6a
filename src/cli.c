/*
 * cli.c - what every command shares in mapping a problem to its exit
 * status: a usage error (EXIT_USAGE) and a file that cannot be read
 * (EXIT_BAD_FILE), each one line on stderr; and a conversion (convert,
 * report -o) with its usage errors as the command's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "message.h"
#include "out.h"
#include "cli.h"

int parse_pid(const char *cmd, const char *arg, pid_t *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || v <= 0 || v > 0x7fffffff)
		return usage_error(cmd, "bad pid '%s'", arg);
	*pid = (pid_t)v;
	return 0;
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	vgl_say("vigil %s: %s (see 'vigil %s --help')", cmd, msg,
		cmd);
	return EXIT_USAGE;
}

int file_error(const struct vgl_reader *r, const char *path)
{
	/* One line through message.h, which escapes the path's (and the
	 * reader's words') control bytes: a file found in a directory is
	 * named by whoever made it. */
	vgl_error("%s: %s", path, r->err);
	return EXIT_BAD_FILE;
}

int convert_to(const char *cmd, const char *path, const char *to,
	       const char *out, const char *module)
{
	char usage[256];
	int status = out_convert(path, to, out, module, usage, sizeof(usage));

	if (status == -EINVAL)
		return usage_error(cmd, "%s", usage);
	return status;
}
