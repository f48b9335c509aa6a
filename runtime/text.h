/*
 * text.h - strings without stdio or allocation, and the runtime's one
 * line on stderr (text.c).  A floor of the runtime.
 */
#ifndef VGL_RT_TEXT_H
#define VGL_RT_TEXT_H

#include <stddef.h>
#include <stdint.h>

struct rt_text {
	char *buf;
	size_t len, size;
	int overflow;            /* something did not fit */
};
void rt_text_init(struct rt_text *t, char *buf, size_t size);
void rt_text_str(struct rt_text *t, const char *s);
void rt_text_strn(struct rt_text *t, const char *s, size_t n);
void rt_text_u64(struct rt_text *t, uint64_t v, int width);
const char *rt_strerror(int err, char *buf, size_t size);
/* One line, once per process: "vigil: WHAT 'PATH': ERROR; THEN"
 * (THEN NULL: "the program runs on without it"). */
void rt_warn(const char *what, const char *path, int err, const char *then);
/* The same line once per *flag (NULL: always), without ": ERROR" when err
 * is 0: problems of their own, not silenced by the file's warning. */
void rt_warn_once(int *flag, const char *what, const char *path, int err,
		  const char *then);
void rt_warn_setting(const char *name, const char *value);
void rt_say_once(int *flag, const char *line);
/* The calling thread has (on) or no longer has a descriptor table of its
 * own: rt_warn then borrows the program's stderr. */
void rt_private_fds_thread(int on);

#endif
