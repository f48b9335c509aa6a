/*
 * json.h - the little JSON the tools write, straight to a FILE with
 * nothing built in memory: quoted strings with every character that JSON
 * forbids raw escaped, and an emitter that places the commas and keys of
 * nested objects and arrays, so a command writes a document (or one line of
 * a JSON Lines stream) as a sequence of calls without counting anything.
 */
#ifndef VGL_JSON_H
#define VGL_JSON_H

#include <stdint.h>
#include <stdio.h>

/* Writes s as a JSON string, quotes included; NULL is written as null.
 * Valid UTF-8 passes through; a byte that is not (a name the program
 * made) is written as \ufffd, so the document always parses (text.h). */
void vgl_json_string(FILE *f, const char *s);

#define VGL_JSON_MAX_DEPTH 32

/*
 * An emitter.  Every value call takes a key: inside an object it must be
 * the member's name, inside an array (or at the top) it must be NULL.
 * Nesting deeper than VGL_JSON_MAX_DEPTH is a programming error and is
 * written flat rather than overrunning.  Errors of the FILE are the
 * caller's to check (ferror) once at the end.
 */
struct vgl_json {
	FILE *f;
	int depth;
	unsigned char first[VGL_JSON_MAX_DEPTH];  /* nothing written yet */
};

void vgl_json_init(struct vgl_json *j, FILE *f);
void vgl_json_begin_object(struct vgl_json *j, const char *key);
void vgl_json_end_object(struct vgl_json *j);
void vgl_json_begin_array(struct vgl_json *j, const char *key);
void vgl_json_end_array(struct vgl_json *j);
void vgl_json_str(struct vgl_json *j, const char *key, const char *s);
void vgl_json_u64(struct vgl_json *j, const char *key, uint64_t v);
void vgl_json_i64(struct vgl_json *j, const char *key, int64_t v);
void vgl_json_null(struct vgl_json *j, const char *key);
/* v as a string "0x..." (JSON numbers lose precision above 2^53). */
void vgl_json_hex(struct vgl_json *j, const char *key, uint64_t v);
/* len bytes as a string of lowercase hex digits. */
void vgl_json_bytes_hex(struct vgl_json *j, const char *key,
			const uint8_t *b, size_t len);
/* true or false. */
void vgl_json_bool(struct vgl_json *j, const char *key, int v);

#endif
