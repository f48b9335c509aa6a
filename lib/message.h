/*
 * message.h - the one way the tools talk to people on stderr: every line
 * starts with "vigil: ", so a harness can tell our words from the profiled
 * program's.  Library code reports through these and returns an error; only
 * the command layer decides to exit.
 */
#ifndef VGL_MESSAGE_H
#define VGL_MESSAGE_H

/* Prints "vigil: <message>\n" on stderr.  Returns -1 so callers can write
 * `return vgl_error(...)` where a plain failure is enough. */
int vgl_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "vigil: warning: <message>\n" on stderr. */
void vgl_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints the line fmt makes, and a newline, on stderr, its control bytes
 * escaped as every line of text gives them (text.h): for the summary
 * lines of a command ("vigil run: ...") that name paths and programs. */
void vgl_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
