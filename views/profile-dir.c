/*
 * profile-dir.c - the profiles of a directory (see profile-dir.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "message.h"
#include "profile-dir.h"

int profile_dir_is(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_profile(const char *dir, const char *name)
{
	size_t n = strlen(name);
	char *path;
	int dir_too;

	if (n <= 4 || strcmp(name + n - 4, ".vgl"))
		return 0;
	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return -ENOMEM;
	dir_too = profile_dir_is(path);
	free(path);
	return !dir_too;
}

int profile_dir_list(const char *dir, char ***names, size_t *n)
{
	struct dirent **ents = NULL;
	char **out;
	int m, i, err = 0;
	size_t k = 0;

	*names = NULL;
	*n = 0;
	m = scandir(dir, &ents, NULL, alphasort);
	if (m < 0)
		return -errno;
	out = calloc((size_t)m + 1, sizeof(*out));
	for (i = 0; i < m; i++) {
		int p = out && !err ? is_profile(dir, ents[i]->d_name) : 0;

		if (p < 0)
			err = p;
		else if (p && !(out[k++] = strdup(ents[i]->d_name)))
			err = -ENOMEM;
		free(ents[i]);
	}
	free(ents);
	if (!out || err) {
		profile_dir_free(out, k);
		return out ? err : -ENOMEM;
	}
	*names = out;
	*n = k;
	return 0;
}

void profile_dir_free(char **names, size_t n)
{
	size_t i;

	if (!names)
		return;
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

void profile_dir_none(const char *dir)
{
	vgl_error("%s: a directory with no profiles (*.vgl) in it", dir);
}
