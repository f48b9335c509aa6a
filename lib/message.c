/*
 * message.c - see message.h.  One fprintf per line so that a line is not
 * interleaved with another writer's output more than stdio makes it, its
 * names' control bytes escaped.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "message.h"
#include "text.h"

static void emit(const char *prefix, const char *fmt, va_list ap)
{
	char *line, *esc;

	/* Whole, however long the paths it names (a fixed buffer cut
	 * them), and written as one line of text (text.h): a message names
	 * files, programs and functions, whose names hold any byte, so no
	 * control byte of theirs reaches the terminal, nor can a newline
	 * start a line that looks like another message. */
	if (vasprintf(&line, fmt, ap) < 0) {
		fprintf(stderr, "vigil: %sout of memory for a message\n",
			prefix);
		return;
	}
	esc = vgl_text_line_dup(line);
	/* One fprintf of the whole line, so that lines of two threads do
	 * not interleave. */
	if (esc)
		fprintf(stderr, "vigil: %s%s\n", prefix, esc);
	else
		fprintf(stderr, "vigil: %sout of memory for a message\n",
			prefix);
	free(esc);
	free(line);
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

void vgl_say(const char *fmt, ...)
{
	va_list ap;
	char *line, *esc;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	if (!line)
		return;
	esc = vgl_text_line_dup(line);
	/* One fprintf of the whole line, as emit() does. */
	if (esc)
		fprintf(stderr, "%s\n", esc);
	free(esc);
	free(line);
}
