/*
 * cmd-flame.c - `vigil flame FILE -o OUT.svg`: an interactive flame graph
 * of a counting profile, in one self-contained SVG (src/out-flame.c).
 */
#include <stdio.h>
#include <string.h>

#include "out.h"
#include "vigil.h"

const char cmd_flame_usage[] =
	"usage: vigil flame FILE [-o OUT.svg] [--title TEXT]\n"
	"\n"
	"Draws the call stacks of the counting profile FILE as a flame graph:\n"
	"one self-contained SVG file (no network, no other file), to OUT.svg\n"
	"or standard output.  The stacks are those of `vigil convert --to\n"
	"folded` (see its --help for how the call graph is unfolded); a frame's\n"
	"width is the calls into it along its path and the calls made under it.\n"
	"Open it in a browser: hovering a frame shows its name, calls and\n"
	"share; a click zooms into a frame (the bottom frame or \"Reset zoom\"\n"
	"zooms out); \"Search\" highlights the frames whose names contain a text\n"
	"and shows the share they hold.\n"
	"\n"
	"  -o OUT.svg      write to OUT.svg (whole, then renamed into place)\n"
	"  --title TEXT    the title above the graph (default: FILE)\n";

int convert_profile(const char *cmd, const char *path, const char *out,
		    int (*write)(const struct vgl_profile *p, const char *path,
				 FILE *f, void *arg),
		    void *arg);

static int write_flame(const struct vgl_profile *p, const char *path,
		       FILE *f, void *arg)
{
	const char *title = arg;

	return out_flame(p, title ? title : path, f);
}

int cmd_flame(int argc, char **argv)
{
	const char *out = NULL, *title = NULL, *path;
	const struct option_spec specs[] = {
		{ "-o", &out, NULL },
		{ "--output", &out, NULL },
		{ "--title", &title, NULL },
		{ NULL, NULL, NULL },
	};
	char *files[argc];
	int nfiles;

	if (parse_options("flame", argc, argv, specs, files, &nfiles))
		return EXIT_USAGE;
	path = one_operand("flame", files, nfiles);
	if (!path)
		return EXIT_USAGE;
	return convert_profile("flame", path, out, write_flame, (void *)title);
}
