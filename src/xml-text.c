/*
 * xml-text.c - text inside the SVG files vigil writes (vigil flame, vigil
 * plot): function and thread names are the program's, and may hold any
 * byte.  Markup characters become entities and control characters are
 * dropped (XML 1.0 allows none but tab and newlines, which a name should
 * not have either), so a name can never end an element or break the file.
 */
#include <stdio.h>

#include "out.h"

void out_xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, f);
		}
	}
}
