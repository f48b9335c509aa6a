/*
 * out.h - the output formats of `vigil convert` and `vigil flame`: one file
 * per format (views/out-FORMAT.c), each writing a profile model
 * (lib/profile.h) to a stdio stream, plus the call-graph unfolding they
 * share (views/unfold.c).
 *
 * Writers return 0 or a negative errno; they do not print (but for
 * -ECANCELED: the writer has said on stderr what was wrong, in the one
 * case where only it knows which file): the command that called them
 * names the file and the problem.  A write error is
 * noticed by the command from the stream (ferror, fclose), so writers
 * need not check every fprintf.
 */
#ifndef VIGIL_OUT_H
#define VIGIL_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "profile.h"
#include "sprofile.h"

/* The deepest stack the unfolding follows; a longer path is cut there. */
#define STACKS_MAX_DEPTH 64

/*
 * The call graph of a counting profile seen with inlined copies put where
 * they ran (a call counted in a copy of F inlined in HOST, vgl_pcall's
 * inlined_in, is an edge HOST -> F), and with each cycle of calls (a
 * strongly connected component of more than one function) made one
 * frame: a graph of frames without cycles (the rule is in unfold.c).
 * Frames 0 .. nfuncs) are the profile's functions (a function in a
 * cycle has no edges of its own then); frames nfuncs + i are the cycles.
 */
struct stacks_edge {
	uint32_t callee;            /* a frame */
	uint64_t calls;
};

struct stacks_cycle {
	uint32_t frame;             /* nfuncs + its index */
	uint32_t comp;              /* its component (internal) */
	char *label;                /* "<cycle N: a, b, c, d and K more>" */
	uint32_t *members;          /* function indexes, most called first */
	size_t nmembers;
	uint64_t calls;             /* into its members, recursive calls
	                             * included: its members' calls added up */
	uint64_t entries;           /* of those, the calls from outside it */
};

struct stacks {
	const struct vgl_profile *p;
	struct vgl_pfunc *frames;     /* the functions, then the cycles (label
	                               * and name the cycle's label, calls its
	                               * calls, no module) */
	size_t nframes;
	uint32_t *frame_of;           /* the frame of each function */
	struct stacks_cycle *cycles;  /* most calls first; cycle i is "<cycle
	                               * i+1: ...>" */
	size_t ncycles;
	uint32_t *members;            /* storage of the cycles' members */
	size_t *first;                /* edges of frame f: edges[first[f] ..
	                               * first[f+1]), most calls first */
	struct stacks_edge *edges;
	size_t nedges;
	uint64_t *top;                /* calls into frame f from callers that
	                               * are not counted themselves (libc's
	                               * start code, a thread's creator) */
	uint64_t *entries;            /* calls into frame f from other frames
	                               * and from uncounted callers */
	double *incl;                 /* the calls in frame f and under it,
	                               * over all its entries */
};

int stacks_build(struct stacks *s, const struct vgl_profile *p);
void stacks_release(struct stacks *s);

/* The calls in the subtree of a frame per call entering it: incl /
 * entries (callgrind's inclusive cost of an edge into it is its calls
 * times this). */
double stacks_per_entry(const struct stacks *s, uint32_t frame);

/* The cycle a frame is, or NULL for a function's frame. */
const struct stacks_cycle *stacks_cycle_of(const struct stacks *s,
					   uint32_t frame);

/* "members: a 6, b 4; calls from outside: 2", malloc'd; NULL for
 * no memory. */
char *stacks_cycle_members(const struct stacks *s,
			   const struct stacks_cycle *c);

/*
 * Called once per stack, outermost frame first: frames[0 .. depth) are
 * frame indexes (s->frames), weight the calls of frames[depth - 1] given
 * to this path, at least 1.  Returns 0 to go on or a negative errno to
 * stop the walk.
 */
typedef int (*stacks_fn)(void *arg, const uint32_t *frames, size_t depth,
			 uint64_t weight);

/*
 * Unfolds the frame graph into stacks (the rule is in unfold.c, and in
 * `vigil convert --help`), calling fn for every stack in depth-first
 * order, most called first.  The weights add up to the profile's total
 * calls exactly.  Returns 0 or the first error fn returned.
 */
int stacks_walk(const struct stacks *s, stacks_fn fn, void *arg);

/* What every view of reconstructed stacks says about them. */
#define STACKS_NOTE "stacks reconstructed from exact call-edge counts: " \
	"widths are calls, not time; the calls into a function are shared " \
	"among the paths to it in proportion; a <cycle> frame holds " \
	"recursive calls whose order inside it is not known"

/* Writes s as the text of an SVG element: markup characters as entities,
 * invalid UTF-8 and control characters as U+FFFD (xml-text.c). */
void out_xml_text(FILE *f, const char *s);

/* The writers.  path is the profile's name, for the formats that record
 * it. */
int out_callgrind(const struct vgl_profile *p, const char *path, FILE *f);
int out_folded(const struct vgl_profile *p, FILE *f);
/* module: the module whose calls are written (base name or path); NULL
 * for the executable.  -ENOENT when no module has that name. */
int out_fdata(const struct vgl_profile *p, const char *module, FILE *f);
int out_pprof(const struct vgl_profile *p, FILE *f);
/* The schema of report --json (docs/report-json.md); in cmd-report.c. */
int report_json(const struct vgl_profile *p, const char *path, FILE *f);

/*
 * The sampled writers: the same formats from the stacks of a sampled
 * profile (vigil attach -o).  Their stacks are the distinct call chains
 * sampled, their weights samples.
 */
int out_callgrind_sampled(const struct vgl_sprofile *sp, const char *path,
			  FILE *f);
int out_folded_sampled(const struct vgl_sprofile *sp, FILE *f);
int out_fdata_sampled(const struct vgl_sprofile *sp, const char *module,
		      FILE *f);
int out_pprof_sampled(const struct vgl_sprofile *sp, FILE *f);

/*
 * A flame graph (out-flame.c) is drawn from weighted stacks of names,
 * added to a struct flame from either kind of profile; a differential
 * one from two, A (side 0) and B (side 1).
 */
struct flame;

int flame_new(struct flame **out);
void flame_free(struct flame *fl);
/* Adds the stacks of a counting profile (those of --to folded). */
int flame_add_profile(struct flame *fl, int side, const struct vgl_profile *p);
/* Adds note (malloc'd, taken over) to the tooltip of fn's frames. */
int flame_note(struct flame *fl, const struct vgl_pfunc *fn, char *note);
/* Adds the stacks of a sampled profile. */
int flame_add_sampled(struct flame *fl, int side,
		      const struct vgl_sprofile *sp);
/*
 * Writes the graph of side 1 (and side 0, unless diff), with subtitle
 * (NULL: none) under the title.  unit names
 * what a width counts ("calls", "samples").  With diff, the widths are
 * side 1's and each frame is coloured by how its own weight changed from
 * side 0, both normalised to their totals: red grew, blue shrank.
 */
int out_flame_svg(struct flame *fl, const char *title, const char *subtitle,
		  const char *unit, int diff, FILE *f);

struct out_input;
/*
 * The page of `vigil view` (out-view.c): one self-contained HTML file of
 * the counting profile c, the sampled profile s (with its model), or
 * both (either may be NULL, not both), titled title.  With base (NULL:
 * none), a profile of the same kind as the one given to compare with
 * (vigil view --diff BASE FILE).  0, -ENOMEM or -EIO.
 */
int out_view_html(const struct out_input *c, const struct out_input *s,
		  const struct out_input *base, const char *title, FILE *f);

/* One profile file read and modelled, as the converters take it. */
struct out_input {
	const char *path;
	struct vgl_reader r;
	struct vgl_symbolizer *sym;
	struct vgl_profile p;        /* the counting model (empty for a
	                              * sampled file but for its modules) */
	struct vgl_sprofile sp;      /* the sampled model, when sampled and
	                              * asked for */
	int sampled;                 /* META kind SAMPLED */
	int opened, built;
};

/* Reads and models path (a sampled file with lib/sprofile's model too
 * when sampled_model); prints one line and returns 1 (the exit status of
 * a bad file) on failure (nothing to close then), else 0.  In input.c. */
int out_input_open(struct out_input *in, const char *path, int sampled_model);
/* The same with only what thread (a tid, or a name from the samples;
 * NULL: all) did (views/by.h); a thread the file does not have is a bad
 * file. */
int out_input_open_thread(struct out_input *in, const char *path,
			  int sampled_model, const char *thread);
void out_input_close(struct out_input *in);

/*
 * Opens out (NULL: standard output), calls write, and finishes the file
 * (written whole, then renamed).  Prints one line for any failure, naming
 * path (the profile) or out; returns 0 or 1 (the exit status of a bad
 * file).  In input.c.
 */
int out_write(const char *path, const char *out,
	      int (*write)(FILE *f, void *arg), void *arg);

/*
 * Writes the profile at path in format to (a `vigil convert --to` name)
 * to out (NULL: standard output); module is convert's --module.  Returns
 * 0; 1 after one line naming the file or out; or -EINVAL, a usage error,
 * with its words in usage (an unknown format, --module with another).
 * In convert.c.
 */
int out_convert(const char *path, const char *to, const char *out,
		const char *module, char *usage, size_t usagelen);

/* A function's name as one frame of a folded stack: its label, with ';'
 * (the frame separator) replaced by ':' and line ends by spaces. */
void out_frame_name(const struct vgl_pfunc *fn, char *buf, size_t len);

#endif
