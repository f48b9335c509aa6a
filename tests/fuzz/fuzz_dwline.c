/*
 * fuzz_dwline.c - libFuzzer target for the DWARF line-program reader
 * (lib/dwline.c), which reads .debug_line of any file a profile names:
 * for any bytes (the section, and a string section after it), every
 * unit is run both ways (with names, and the walk for sequence bounds)
 * with no read outside the buffers (ASan) and no undefined arithmetic
 * (UBSan); every file name given is a string inside the sections; and
 * the walk reports exactly the first rows and the ends that the full run
 * reports.  Built and run by tests/fuzz/run.sh.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dwline.h"

#define FAIL() __builtin_trap()

struct seen {
	const struct vgl_dwline_sections *sec;
	uint64_t v[64];         /* the first rows' and ends' addresses */
	size_t n;
	int first;
	int names;
};

static int inside(const struct vgl_dwline_sections *sec, const char *s)
{
	const uint8_t *p = (const uint8_t *)s;

	return (p >= sec->line && p < sec->line + sec->line_size) ||
	       (p >= sec->line_str && p < sec->line_str + sec->line_str_size) ||
	       (p >= sec->str && p < sec->str + sec->str_size);
}

static int row(void *arg, uint64_t addr, const char *file, int line, int end)
{
	struct seen *w = arg;

	(void)line;
	if (file && (!w->names || end || !inside(w->sec, file) ||
		     strlen(file) > w->sec->line_size + w->sec->str_size))
		FAIL();
	if (w->first || end) {
		if (w->n < 64)
			w->v[w->n] = addr;
		w->n++;
	}
	w->first = end;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vgl_dwline_sections sec = { 0 };
	uint8_t *line, *str;
	size_t off = 0, n1, n2;

	/* Two bytes give the length of .debug_line, which follows; the rest
	 * serves as both string sections.  Copies, so ASan sees their exact
	 * ends. */
	if (size < 2)
		return 0;
	n1 = (size_t)data[0] | (size_t)data[1] << 8;
	data += 2;
	size -= 2;
	if (n1 > size)
		n1 = size;
	n2 = size - n1;
	line = malloc(n1 ? n1 : 1);
	str = malloc(n2 ? n2 : 1);
	memcpy(line, data, n1);
	if (n2)
		memcpy(str, data + n1, n2);
	sec.line = line;
	sec.line_size = n1;
	sec.line_str = n2 ? str : NULL;
	sec.line_str_size = n2;
	sec.str = sec.line_str;
	sec.str_size = n2;
	while (off < n1) {
		struct seen full = { &sec, { 0 }, 0, 1, 1 };
		struct seen walk = { &sec, { 0 }, 0, 1, 0 };
		size_t next1 = 0, next2 = 0;
		int r1 = vgl_dwline_unit(&sec, off, 1, row, &full, &next1);
		int r2 = vgl_dwline_unit(&sec, off, 0, row, &walk, &next2);

		if (r1 == -ENOENT || next1 != next2 || next1 <= off)
			FAIL();
		/* The walk skips the file table, so a unit whose table is
		 * bad fails only with names; else both see the same. */
		if (!r1 && (r2 || full.n != walk.n ||
			    memcmp(full.v, walk.v,
				   (full.n < 64 ? full.n : 64) * sizeof(uint64_t))))
			FAIL();
		off = next1;
	}
	free(line);
	free(str);
	return 0;
}
