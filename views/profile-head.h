/*
 * profile-head.h - the lines that open what show, report and wait print
 * of a file (profile-head.c).
 */
#ifndef VIGIL_PROFILE_HEAD_H
#define VIGIL_PROFILE_HEAD_H

#include "vgl_reader.h"

/* "file: PATH", its control bytes escaped (text.h). */
void print_file(const char *path);
/* "state: ..." and, for a merge, the "merged: ..." line of how its
 * processes ended. */
void print_state(const struct vgl_reader *r);

#endif
