/*
 * profile-dir.h - the profiles of a directory, as `vigil report DIR` and
 * `vigil show DIR` take them (a `vigil run -o DIR` directory).
 */
#ifndef VIGIL_PROFILE_DIR_H
#define VIGIL_PROFILE_DIR_H

#include <stddef.h>

/* Whether path names a directory (following symbolic links). */
int profile_dir_is(const char *path);

/*
 * The names (not paths) of dir's profiles: its entries named *.vgl that
 * are not directories, in name order (alphasort); subdirectories (run's
 * samples/) are not looked into.  Sets *names (an array of *n strings,
 * for profile_dir_free) and returns 0, or returns -errno.
 */
int profile_dir_list(const char *dir, char ***names, size_t *n);
void profile_dir_free(char **names, size_t n);

/* The one line for a directory with no profile in it, for report and
 * show alike. */
void profile_dir_none(const char *dir);

#endif
