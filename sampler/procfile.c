/*
 * procfile.c - the few ways the sampler reads /proc: a whole small file
 * through a descriptor kept open (pread from offset 0 re-reads a proc
 * file's current contents), the fields of a stat line, and the errors.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

int sampler_err(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

ssize_t proc_pread(int fd, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	if (fd < 0 || len == 0)
		return -EBADF;
	/*
	 * The files read here are generated whole at each read from offset 0
	 * (single_open in the kernel), so a read shorter than asked is the
	 * end: no second read to see 0, which would cost a syscall per file
	 * per thread per sample.
	 */
	while (got < len - 1) {
		n = pread(fd, buf + got, len - 1 - got, (off_t)got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)n;
		if ((size_t)n < len - 1 - (got - (size_t)n) || n == 0)
			break;
	}
	buf[got] = 0;
	return (ssize_t)got;
}

uint64_t proc_tick_us(void)
{
	static uint64_t us;
	long hz;

	if (!us) {
		hz = sysconf(_SC_CLK_TCK);
		us = hz > 0 ? 1000000ull / (uint64_t)hz : 10000;
	}
	return us;
}

int proc_split_stat(char *text, char *comm, size_t commlen, char **fields,
		    int maxfields)
{
	char *open = strchr(text, '('), *close = strrchr(text, ')');
	size_t n;
	int nf = 0;
	char *p, *save = NULL;

	/* A thread may name itself ") R 1 (": only the last ')' ends it. */
	if (!open || !close || close < open)
		return -EINVAL;
	n = (size_t)(close - open - 1);
	if (n >= commlen)
		n = commlen - 1;
	memcpy(comm, open + 1, n);
	comm[n] = 0;
	for (p = strtok_r(close + 1, " \n", &save); p && nf < maxfields;
	     p = strtok_r(NULL, " \n", &save))
		fields[nf++] = p;
	return nf;
}
