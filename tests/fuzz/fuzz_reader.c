/*
 * fuzz_reader.c - libFuzzer target for the .vgl parser: any bytes must give
 * either a clean error message or a reader whose every pointer and count
 * can be walked.  Built and run by tests/fuzz/run.sh.
 */
#include <stdint.h>
#include <string.h>

#include "vgl_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vgl_reader r;
	volatile size_t sink = 0;
	size_t i;
	char state[128];

	if (vgl_reader_parse(&r, data, size, "fuzz") < 0) {
		/* The message must be a terminated, non-empty sentence. */
		if (!r.err[0] || strlen(r.err) >= sizeof(r.err))
			__builtin_trap();
		return 0;
	}
	if (r.exe)
		sink += strlen(r.exe);
	if (r.host)
		sink += strlen(r.host);
	for (i = 0; i < r.argc; i++)
		sink += strlen(r.argv[i]);
	for (i = 0; i < r.nmodules; i++) {
		sink += strlen(r.modules[i].path);
		if (!vgl_reader_module(&r, r.modules[i].id))
			__builtin_trap();
	}
	for (i = 0; i < r.nedges; i++) {
		sink += r.edges[i].count;
		vgl_reader_module(&r, r.edges[i].callee_mod);
	}
	vgl_reader_state(&r, state, sizeof(state));
	vgl_reader_close(&r);
	(void)sink;
	return 0;
}
