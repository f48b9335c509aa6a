/*
 * out-folded.c - folded stacks, `frame;frame;frame count` one stack a line,
 * as flamegraph.pl, inferno and speedscope read them.  The stacks are the
 * call graph unfolded by src/stacks.c; a line's count is the calls into
 * its last frame along that path (rounded), so the width of a frame in a
 * flame graph is its calls plus the calls made under it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "out.h"

struct folded {
	const struct vgl_profile *p;
	FILE *f;
};

static int print_stack(void *arg, const uint32_t *frames, size_t depth,
		       double weight)
{
	struct folded *fo = arg;
	char name[1024];
	size_t i;

	for (i = 0; i < depth; i++) {
		out_frame_name(&fo->p->funcs[frames[i]], name, sizeof(name));
		if (i)
			fputc(';', fo->f);
		fputs(name, fo->f);
	}
	fprintf(fo->f, " %.0f\n", floor(weight + 0.5));
	return ferror(fo->f) ? -EIO : 0;
}

int out_folded(const struct vgl_profile *p, FILE *f)
{
	struct folded fo = { .p = p, .f = f };
	struct stacks s;
	int err;

	err = stacks_build(&s, p);
	if (err)
		return err;
	err = stacks_walk(&s, print_stack, &fo);
	stacks_release(&s);
	return err;
}
