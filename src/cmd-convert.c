/*
 * cmd-convert.c - `vigil convert FILE --to FORMAT [-o OUT]`: a profile in
 * the format another tool reads.  The formats and their table are
 * views/convert.c, each format one file, views/out-FORMAT.c.
 */
#include "cli.h"

const char cmd_convert_usage[] =
	"usage: vigil convert FILE --to FORMAT [-o OUT] [--module NAME]\n"
	"\n"
	"Writes the profile FILE in FORMAT, to OUT (written whole under a\n"
	"temporary name, then renamed) or to standard output.  FILE is a\n"
	"counting profile (of a program built with `pkg-config --cflags\n"
	"--libs vigil`) or a sampled one (vigil attach -o, vigil run --scan);\n"
	"each format says what it makes of either.\n"
	"\n"
	"  --to callgrind  valgrind's callgrind format (callgrind_annotate,\n"
	"                  KCachegrind): event CallsFromEdges; a function's\n"
	"                  self cost is the calls into it (exact); each call\n"
	"                  row (cfn=, calls=) costs the calls along it and\n"
	"                  those made under them, reconstructed from the edge\n"
	"                  counts as for --to folded, so main holds every\n"
	"                  call; a call within a cycle costs 0 into a\n"
	"                  function entered from outside the cycle; each\n"
	"                  cycle is a function \"<cycle N: ...>\" of no cost\n"
	"                  whose rows give its members' exact calls.\n"
	"                  Sampled: event Samples; self cost the samples that\n"
	"                  found a function running; a call row (a step seen on\n"
	"                  the stacks; calls= gives its samples, as samples do\n"
	"                  not count calls) costs the samples under it; a step\n"
	"                  back into a function further out on the stack\n"
	"                  (recursion) is left out\n"
	"  --to folded     one stack a line, \"main;parse;lex 10\" (flamegraph.pl,\n"
	"                  inferno, speedscope).  The stacks are reconstructed\n"
	"                  from the exact edge counts, and their counts add up\n"
	"                  to the profile's total calls: each cycle of calls\n"
	"                  (functions that call each other, directly or not:\n"
	"                  ping->pong->ping, an interpreter's loop) is one\n"
	"                  frame \"<cycle N: a, b, ...>\" holding all its\n"
	"                  members' calls (the order of calls inside it is not\n"
	"                  known); a function calling itself is one frame with\n"
	"                  all its calls.  Between frames, stacks start at\n"
	"                  those called from uncounted code (libc's start, a\n"
	"                  thread's creator); the calls that enter a frame\n"
	"                  along a path carry their share of everything under\n"
	"                  it, split between the frame's own calls and its\n"
	"                  callees in the proportions of its edges, in whole\n"
	"                  calls; a line's count is the calls of its last frame\n"
	"                  on that path.  At most 64 frames.  A call counted in\n"
	"                  an inlined copy is under the function it ran in.\n"
	"                  Sampled: one line per distinct\n"
	"                  stack of functions sampled (all threads), outermost\n"
	"                  first, sorted, its count the samples\n"
	"  --to fdata      llvm-bolt's profile (-data=): one line per real call\n"
	"                  edge, \"1 CALLER OFFSET 1 CALLEE 0 0 COUNT\", OFFSET the\n"
	"                  call instruction's (decoded with capstone) in CALLER;\n"
	"                  local symbols as BOLT names them (NAME/FILE/1);\n"
	"                  calls counted in inlined copies are left out;\n"
	"                  only the calls within one module: the executable,\n"
	"                  or the one --module NAME names (base name or path).\n"
	"                  Sampled: BOLT's no_lbr profile (as perf2bolt -nl\n"
	"                  writes it): \"no_lbr\", then \"1 FUNCTION OFFSET COUNT\"\n"
	"                  for each instruction the samples found running in\n"
	"                  that module, COUNT its samples\n"
	"  --to pprof      gzipped profile.proto (go tool pprof, Pyroscope,\n"
	"                  Parca, speedscope): sample type calls/count, one\n"
	"                  sample per folded stack, locations with function,\n"
	"                  file and line, mappings with build-ids; comments\n"
	"                  say how the stacks were made and give each cycle's\n"
	"                  members with their exact calls.  Sampled:\n"
	"                  sample types samples/count and cpu/nanoseconds (the\n"
	"                  samples times the period, 1 s / the frequency asked\n"
	"                  for), one sample per folded stack, period type\n"
	"                  cpu/nanoseconds\n"
	"  --to json       the JSON object of `vigil report --json` (schema in\n"
	"                  docs/report-json.md; a sampled file's is under\n"
	"                  \"sampled\")\n"
	"  -o OUT          write to OUT instead of standard output\n";

int cmd_convert(int argc, char **argv)
{
	const char *to = NULL, *out = NULL, *module = NULL, *path;
	const struct option_spec specs[] = {
		{ "--to", &to, NULL },
		{ "--module", &module, NULL },
		{ "-o", &out, NULL },
		{ "--output", &out, NULL },
		{ NULL, NULL, NULL },
	};
	char *files[argc];
	int nfiles;

	if (parse_options("convert", argc, argv, specs, files, &nfiles))
		return EXIT_USAGE;
	if (!to)
		return usage_error("convert", "--to FORMAT is required");
	path = one_operand("convert", files, nfiles);
	if (!path)
		return EXIT_USAGE;
	return convert_to("convert", path, to, out, module);
}
