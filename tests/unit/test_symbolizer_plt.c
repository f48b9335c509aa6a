/*
 * test_symbolizer_plt.c - an address in a PLT stub is named NAME@plt, as
 * objdump and perf name it: the stubs have no symbol of their own, and
 * the last symbol before them (_init, of size 0 in .init) once took
 * them all, so the demo's samples in __ctype_b_loc's stub read "_init".
 * The stub's address is read from this test's own code: a jmp through
 * the PLT whose target the linker wrote.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "symbolizer.h"

/* The address of getpid's PLT stub in this executable. */
static uint64_t getpid_plt(void)
{
	const unsigned char *jmp;
	int32_t rel;

	__asm__("lea 1f(%%rip), %0\n\t"
		"jmp 2f\n"
		"1:\tjmp getpid@PLT\n"
		"2:" : "=r"(jmp));
	memcpy(&rel, jmp + 1, sizeof(rel));
	return (uint64_t)(uintptr_t)(jmp + 5 + rel);
}

int main(void)
{
	struct vgl_symbolizer *s = NULL;
	struct vgl_func_sym *f = NULL, *mid = NULL;
	int err = vgl_symbolizer_from_pid(&s, getpid());
	size_t i, n = err ? 0 : vgl_symbolizer_count(s);
	uint64_t plt = getpid_plt();
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (len > 0)
		self[len] = 0;
	for (i = 0; i < n; i++)
		if (len > 0 && !strcmp(vgl_symbolizer_module_path(s, i), self)) {
			f = vgl_symbolizer_func(s, i, plt);
			mid = vgl_symbolizer_func(s, i, plt + 6);
		}
	CHECK("plt: the jmp's target is a stub", ((const unsigned char *)
	      (uintptr_t)plt)[0] == 0xff || ((const unsigned char *)
	      (uintptr_t)plt)[0] == 0xf3, "byte %#x",
	      ((const unsigned char *)(uintptr_t)plt)[0]);
	CHECK("plt: a stub's first byte is named NAME@plt", f &&
	      !strcmp(vgl_func_sym_name(f), "getpid@plt"), "%s",
	      f ? vgl_func_sym_name(f) : "no function");
	CHECK("plt: a stub's middle is named NAME@plt", mid &&
	      !strcmp(vgl_func_sym_name(mid), "getpid@plt"), "%s",
	      mid ? vgl_func_sym_name(mid) : "no function");
	vgl_symbolizer_free(s);
	return check_status();
}
