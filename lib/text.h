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
 *
 * Text for people (a terminal, a log) is VGL_TEXT_LINE, through
 * vgl_text_line() and its kin below: every text view, summary and error
 * line that holds a name, a path or a command line writes it so.  A name
 * can hold ESC or BEL ("\x1b]0;title\x07" sets a terminal's title, a
 * thread can call itself "\x1b[2J" with PR_SET_NAME), and a terminal acts
 * on them: no control character of a name reaches one (G9).
 */
#ifndef VGL_TEXT_H
#define VGL_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum vgl_text_kind {
	/* The inside of a JSON string (no quotes): " and \ escaped, control
	 * characters (below 0x20, DEL, C1) as \n \t ... or \u00XX, U+FFFD
	 * as \ufffd. */
	VGL_TEXT_JSON,
	/* The same for JSON inside an HTML <script> element (vigil view):
	 * also < > & as \u003c \u003e \u0026, so that no string can end
	 * the element ("</script>") or open a comment in it ("<!--"), and
	 * U+2028, U+2029 as \u2028, \u2029 (line ends to older JavaScript
	 * parsers, though legal raw in JSON). */
	VGL_TEXT_JSON_SCRIPT,
	/* XML character data or an attribute value: & < > " ' as entities;
	 * what XML 1.0 cannot hold at all (control characters, U+FFFE,
	 * U+FFFF) becomes U+FFFD like an invalid byte. */
	VGL_TEXT_XML,
	/* One field of a line-based format (callgrind's header and names,
	 * folded stacks) or of text for people: control characters (below
	 * 0x20, DEL, and the C1 controls U+0080 to U+009F, which some
	 * terminals obey too) as C escapes (\n, \t, \r, \xNN; a C1
	 * control as its two UTF-8 bytes, \xc2\x9b) and a backslash as \\,
	 * so a field can never end its line or start another, nor drive a
	 * terminal, and reads back unambiguously. */
	VGL_TEXT_LINE,
};

/*
 * The length (1 to 4) of the valid UTF-8 sequence at s, with its code
 * point in *cp; 0 if the byte at s starts none.  Reads no further than a
 * NUL (which is never a continuation byte), so s need only be a C string.
 */
size_t vgl_utf8_seq(const unsigned char *s, uint32_t *cp);

/* Writes the C string s (not NULL) as text of the given kind; returns
 * the bytes written. */
size_t vgl_text_write(FILE *f, const char *s, enum vgl_text_kind kind);

/* Writes s as VGL_TEXT_LINE, the one form text for people gives a name;
 * returns the bytes written (the columns, for ASCII). */
size_t vgl_text_line(FILE *f, const char *s);

/* vgl_text_line(), then spaces up to width bytes, as printf's "%-*s"
 * pads: a column of names stays aligned whatever they hold. */
void vgl_text_line_pad(FILE *f, const char *s, size_t width);

/* s as VGL_TEXT_LINE into buf (len bytes, NUL-ended when len > 0, cut
 * short if need be), as snprintf does; returns the length the whole
 * would have, without the NUL. */
size_t vgl_text_line_buf(char *buf, size_t len, const char *s);

/* s as VGL_TEXT_LINE in a new string (the caller frees it); NULL when
 * out of memory. */
char *vgl_text_line_dup(const char *s);

/* Whether shown is what vgl_text_line() writes for s: a name given on
 * the command line as a report printed it finds the function. */
int vgl_text_line_is(const char *s, const char *shown);

#endif
