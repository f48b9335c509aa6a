/*
 * json.h - the little JSON the tools write: quoted strings with every
 * character that JSON forbids raw escaped.  Output goes straight to a FILE;
 * nothing is built in memory.
 */
#ifndef VGL_JSON_H
#define VGL_JSON_H

#include <stdio.h>

/* Writes s as a JSON string, quotes included; NULL is written as null.
 * Bytes >= 0x80 pass through, so UTF-8 stays UTF-8. */
void vgl_json_string(FILE *f, const char *s);

#endif
