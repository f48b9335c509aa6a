/*
 * modfile.h - the identity of a module without build-id (modfile.c;
 * vgl_format.h says what it is).
 */
#ifndef VGL_RT_MODFILE_H
#define VGL_RT_MODFILE_H

#include "vgl_format.h"

struct dl_phdr_info;
void module_file_id(const struct dl_phdr_info *info, const char *path,
		    struct vgl_module_file *out);

#endif
