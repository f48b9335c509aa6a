/*
 * dwline.h - DWARF line programs (versions 2 to 5) read straight from the
 * bytes of .debug_line, one unit at a time.
 *
 * The symbolizer reads lines through libdw, except from a debug file whose
 * sections are compressed (SHF_COMPRESSED: Debian's libc6-dbg, and any
 * file linked with --compress-debug-sections).  libdw 0.188 inflates every
 * debug section of such a file when it opens it, .debug_info and
 * .debug_loclists included: 205 million instructions for libc's, to give
 * the line of one call site (main's).  A line needs .debug_line alone
 * (and .debug_line_str for DWARF 5's names), a tenth of that.
 *
 * Only what a line lookup needs: each row's address, file name, line and
 * whether it ends a sequence; no column, discriminator or directory.
 */
#ifndef VGL_DWLINE_H
#define VGL_DWLINE_H

#include <stddef.h>
#include <stdint.h>

/* The bytes of the sections a line program refers to (size 0: absent). */
struct vgl_dwline_sections {
	const uint8_t *line;
	size_t line_size;
	const uint8_t *line_str;        /* .debug_line_str (DW_FORM_line_strp) */
	size_t line_str_size;
	const uint8_t *str;             /* .debug_str (DW_FORM_strp) */
	size_t str_size;
};

/*
 * Called for each row of a unit in program order: its address, file name
 * (a NUL-terminated string inside the sections, or NULL when the file
 * index names no entry), line, and end (1 for the row that ends a
 * sequence: it has no file and line).  A non-zero return stops the unit
 * and is returned by vgl_dwline_unit.
 */
typedef int (*vgl_dwline_row_fn)(void *arg, uint64_t addr, const char *file,
				 int line, int end);

/*
 * Runs the line program of the unit at offset off of .debug_line, calling
 * row for each row; with names 0 the file table is not read, every row's
 * file is NULL, and only the first row of each sequence and its end are
 * reported (a walk for where the sequences are).  Sets *next to the offset of the next unit.  Returns
 * 0; what row returned when it stopped the unit; -EINVAL when the unit is
 * malformed or uses what we do not read (a form of file entry without a
 * known size), after the rows before the fault; -ENOENT when off is at or
 * past the end.  *next is set whenever the unit's length could be read,
 * so a bad unit can be skipped.
 */
int vgl_dwline_unit(const struct vgl_dwline_sections *sec, size_t off,
		    int names, vgl_dwline_row_fn row, void *arg, size_t *next);

#endif
