/*
 * xml-text.c - text inside the SVG files vigil writes (vigil flame, vigil
 * plot): function and thread names are the program's, and may hold any
 * byte.  Markup characters become entities; bytes that are not UTF-8 and
 * characters XML 1.0 cannot hold (control characters) become U+FFFD, by
 * the text writer JSON uses too (text.h), so a name can never end an
 * element or make the file unreadable.
 */
#include <stdio.h>

#include "out.h"
#include "text.h"

void out_xml_text(FILE *f, const char *s)
{
	vgl_text_write(f, s, VGL_TEXT_XML);
}
