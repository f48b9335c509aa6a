/*
 * message.c - see message.h.  One fprintf per line so that a line is not
 * interleaved with another writer's output more than stdio makes it.
 */
#include <stdarg.h>
#include <stdio.h>

#include "message.h"

static void emit(const char *prefix, const char *fmt, va_list ap)
{
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "vigil: %s%s\n", prefix, line);
}

int vgl_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit("", fmt, ap);
	va_end(ap);
	return -1;
}

void vgl_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit("warning: ", fmt, ap);
	va_end(ap);
}
