/*
 * test_symbolizer_pid.c - a module list read from /proc/PID/maps as the
 * first thing a process asks of libelf (as `vigil attach` does): it once
 * came back empty, because libelf had not been told its version yet.  A
 * process of its own, so that no other test has called libelf before.
 */
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "symbolizer.h"

int main(void)
{
	struct vgl_symbolizer *s = NULL;
	struct vgl_func_sym *f = NULL;
	int err = vgl_symbolizer_from_pid(&s, getpid());
	size_t i, n = err ? 0 : vgl_symbolizer_count(s);
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (len > 0)
		self[len] = 0;
	for (i = 0; i < n; i++)
		if (len > 0 && !strcmp(vgl_symbolizer_module_path(s, i), self))
			f = vgl_symbolizer_func(s, i, (uint64_t)(uintptr_t)&main);
	CHECK("first libelf call: modules of /proc/self/maps", !err && n >= 2,
	      "err %d, %zu modules", err, n);
	CHECK("first libelf call: main is named", f &&
	      !strcmp(vgl_func_sym_name(f), "main"), "%s",
	      f ? vgl_func_sym_name(f) : "no function");
	vgl_symbolizer_free(s);
	return check_status();
}
