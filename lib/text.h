/*
 * text.h - names from profiled programs written into text that other
 * tools parse.  A function, file, thread or argument name is whatever
 * bytes the program made (an asm label, pthread_setname_np, a file name,
 * argv): not necessarily UTF-8, and free to hold quotes, markup or
 * newlines.  One writer serves every output, so JSON, XML and line-based
 * formats agree on what a name becomes:
 *
 *   - a byte that starts no valid UTF-8 sequence (a stray continuation
 *     byte, an overlong form, a surrogate, a code point above U+10FFFF, a
 *     sequence cut short) becomes U+FFFD, one per byte;
 *   - valid UTF-8 passes through unchanged;
 *   - the characters the format gives a meaning are escaped in its way.
 */
#ifndef VGL_TEXT_H
#define VGL_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum vgl_text_kind {
	/* The inside of a JSON string (no quotes): " and \ escaped, control
	 * characters as \n \t ... or \u00XX, U+FFFD as \ufffd. */
	VGL_TEXT_JSON,
	/* XML character data or an attribute value: & < > " ' as entities;
	 * what XML 1.0 cannot hold at all (control characters, U+FFFE,
	 * U+FFFF) becomes U+FFFD like an invalid byte. */
	VGL_TEXT_XML,
	/* One field of a line-based format (callgrind's header and names):
	 * control characters as C escapes (\n, \t, \r, \xNN) and a backslash
	 * as \\, so a field can never end its line or start another. */
	VGL_TEXT_LINE,
};

/*
 * The length (1 to 4) of the valid UTF-8 sequence at s, with its code
 * point in *cp; 0 if the byte at s starts none.  Reads no further than a
 * NUL (which is never a continuation byte), so s need only be a C string.
 */
size_t vgl_utf8_seq(const unsigned char *s, uint32_t *cp);

/* Writes the C string s (not NULL) as text of the given kind. */
void vgl_text_write(FILE *f, const char *s, enum vgl_text_kind kind);

#endif
