/*
 * out-folded.c - folded stacks, `frame;frame;frame count` one stack a line,
 * as flamegraph.pl, inferno and speedscope read them.  The stacks are the
 * call graph unfolded by views/unfold.c; a line's count is the calls of
 * its last frame given to that path, so the width of a frame in a flame
 * graph is its calls plus the calls made under it, and the counts add up
 * to the profile's total calls.  A cycle of calls is one frame, "<cycle
 * N: a, b>" (the format has no place for its members' counts: the other
 * views give them).  A sampled
 * profile's lines are its sampled stacks, their counts samples.  Names
 * are written as every line of text gives them (text.h): a newline or a
 * terminal's control byte in a name is a C escape, never raw.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "text.h"

/*
 * A frame of a line: its label, a ';' (the frame separator) as ':', and
 * every control byte as a C escape (text.h: \n, \t, \x1b, a backslash
 * as \\), so that a name can neither end the line nor drive the terminal
 * the file is shown on.  flamegraph.pl, inferno and speedscope show the
 * escape as it is written.
 */
static void put_frame(FILE *f, const struct vgl_pfunc *fn)
{
	char *name = strdup(fn->label), *c;

	if (!name) {
		fputs("?", f);
		return;
	}
	for (c = name; *c; c++)
		if (*c == ';')
			*c = ':';
	vgl_text_line(f, name);
	free(name);
}

struct folded {
	const struct stacks *s;
	FILE *f;
};

static int print_stack(void *arg, const uint32_t *frames, size_t depth,
		       uint64_t weight)
{
	struct folded *fo = arg;
	size_t i;

	for (i = 0; i < depth; i++) {
		if (i)
			fputc(';', fo->f);
		put_frame(fo->f, &fo->s->frames[frames[i]]);
	}
	fprintf(fo->f, " %llu\n", (unsigned long long)weight);
	return ferror(fo->f) ? -EIO : 0;
}

int out_folded(const struct vgl_profile *p, FILE *f)
{
	struct stacks s;
	struct folded fo = { .s = &s, .f = f };
	int err;

	err = stacks_build(&s, p);
	if (err)
		return err;
	err = stacks_walk(&s, print_stack, &fo);
	stacks_release(&s);
	return err;
}

/*
 * A sampled profile's stacks as they were sampled: one line per distinct
 * chain of functions, outermost first, and its samples.  The chains come
 * sorted by name (lib/sprofile.h), so chains that print the same (two
 * functions of one label) are next to each other and become one line.
 */
int out_folded_sampled(const struct vgl_sprofile *sp, FILE *f)
{
	char *line = NULL, *prev = NULL;
	size_t cap = 0, i, j;
	uint64_t count = 0;
	FILE *m;
	int err = 0;

	for (i = 0; i <= sp->nstacks && !err; i++) {
		const struct vgl_sstack *st = i < sp->nstacks ? &sp->stacks[i] : NULL;

		if (st) {
			m = open_memstream(&line, &cap);
			if (!m) {
				err = -ENOMEM;
				break;
			}
			for (j = 0; j < st->depth; j++) {
				if (j)
					fputc(';', m);
				put_frame(m, &sp->funcs[sp->chain[st->first + j]]);
			}
			if (fclose(m)) {
				err = -ENOMEM;
				break;
			}
			if (prev && !strcmp(prev, line)) {
				count += st->count;
				continue;
			}
		}
		if (prev)
			fprintf(f, "%s %llu\n", prev, (unsigned long long)count);
		if (!st)
			break;
		free(prev);
		prev = line;
		line = NULL;
		cap = 0;
		count = st->count;
	}
	free(prev);
	free(line);
	if (!err && ferror(f))
		err = -EIO;
	return err;
}
