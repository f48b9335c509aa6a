/*
 * out-flame.c - a flame graph as one self-contained SVG file: the frames
 * of weighted stacks, a little JavaScript and CSS inside, nothing loaded
 * from anywhere.  Hovering a frame shows its name, weight and share (a
 * <title> tooltip and the line under the graph); clicking zooms into it
 * (again on the bottom frame, or "Reset zoom", zooms out); "Search" (or
 * calling search(term) from a script) highlights the frames whose names
 * contain the term and says what share they hold.
 *
 * The stacks come from a counting profile (its call graph unfolded by
 * views/unfold.c: a frame's width is the calls into it along its path plus
 * the calls made under it) or from a sampled one (a frame's width is the
 * samples with it on the stack along that path).  They are merged by
 * name into one tree, so that two profiles, A and B, can be laid over
 * each other for a differential graph, as Brendan Gregg's difffolded.pl
 * and flamegraph.pl draw it: the widths are B's; a frame is red where
 * its own weight (as a share of its profile's total: the totals are
 * normalised) grew from A to B, blue where it shrank, white where it
 * stayed, the deeper the colour the larger the change.
 *
 * Frames narrower than a tenth of a pixel are left out, so the file stays
 * small for large profiles.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"

#define WIDTH 1200.0
#define PAD 10.0
#define ROW 16
#define MIN_WIDTH 0.1

/* One frame of the merged tree; node 0 is the bottom frame, "all". */
struct fnode {
	const char *name;        /* interned: one pointer per name */
	uint32_t parent;
	uint32_t depth;          /* 0 for "all" */
	double self[2];          /* the weight of the stacks ending here */
	double total[2];         /* with everything above it */
	double x;                /* left edge, in side 1's weight */
};

struct flame {
	struct fnode *v;
	size_t n, cap;
	size_t *nodes;           /* (parent, name) -> index + 1 */
	size_t ncap;
	char **names;            /* interned names */
	size_t nnames, names_cap;
	size_t *nameh;           /* name -> index + 1 */
	size_t nhcap;
	struct fnote {           /* more for the tooltip of a name: a */
		const char *name;  /* cycle's members with their calls */
		char *note;
	} *notes;
	size_t nnotes;
	double sum[2];
	/* The last stack added, to skip its shared prefix in the next one
	 * (walks and sorted chains share long prefixes). */
	const void *from;
	uint32_t *prev, *prev_node;
	size_t prev_depth, prev_cap;
	/* The interned name of each function of that profile, made at its
	 * first frame: a function is named once, not once per frame. */
	const char **fname;
	size_t nfname;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static uint64_t hash_node(uint32_t parent, const char *name)
{
	uint64_t h = (uint64_t)parent * 0x9e3779b97f4a7c15ull ^
		     (uint64_t)(uintptr_t)name * 0xff51afd7ed558ccdull;

	return h ^ (h >> 29);
}

static int grow_table(size_t **t, size_t *cap, size_t used, void *ctx,
		      uint64_t (*key)(void *ctx, size_t i))
{
	size_t c = *cap ? 2 * *cap : 1024, i, *nt;

	if (2 * (used + 1) <= *cap)
		return 0;
	nt = calloc(c, sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	for (i = 0; i < used; i++) {
		size_t k = key(ctx, i) & (c - 1);

		while (nt[k])
			k = (k + 1) & (c - 1);
		nt[k] = i + 1;
	}
	free(*t);
	*t = nt;
	*cap = c;
	return 0;
}

static uint64_t name_key(void *ctx, size_t i)
{
	return hash_str(((struct flame *)ctx)->names[i]);
}

static uint64_t node_key(void *ctx, size_t i)
{
	const struct fnode *nd = &((struct flame *)ctx)->v[i];

	return hash_node(nd->parent, nd->name);
}

/* The one copy of name, or NULL on -ENOMEM. */
static const char *intern(struct flame *fl, const char *name)
{
	size_t k;

	if (grow_table(&fl->nameh, &fl->nhcap, fl->nnames, fl, name_key))
		return NULL;
	for (k = hash_str(name) & (fl->nhcap - 1); fl->nameh[k];
	     k = (k + 1) & (fl->nhcap - 1))
		if (!strcmp(fl->names[fl->nameh[k] - 1], name))
			return fl->names[fl->nameh[k] - 1];
	if (fl->nnames == fl->names_cap) {
		size_t c = fl->names_cap ? 2 * fl->names_cap : 256;
		char **v = realloc(fl->names, c * sizeof(*v));

		if (!v)
			return NULL;
		fl->names = v;
		fl->names_cap = c;
	}
	fl->names[fl->nnames] = strdup(name);
	if (!fl->names[fl->nnames])
		return NULL;
	fl->nameh[k] = ++fl->nnames;
	return fl->names[fl->nnames - 1];
}

/* The child of parent named name (made if new); SIZE_MAX on -ENOMEM. */
static size_t child(struct flame *fl, size_t parent, const char *name)
{
	struct fnode *nd;
	size_t k;

	if (grow_table(&fl->nodes, &fl->ncap, fl->n, fl, node_key))
		return SIZE_MAX;
	for (k = hash_node((uint32_t)parent, name) & (fl->ncap - 1);
	     fl->nodes[k]; k = (k + 1) & (fl->ncap - 1)) {
		nd = &fl->v[fl->nodes[k] - 1];
		if (nd->parent == parent && nd->name == name)
			return fl->nodes[k] - 1;
	}
	if (fl->n == fl->cap) {
		size_t c = fl->cap ? 2 * fl->cap : 1024;
		struct fnode *v = realloc(fl->v, c * sizeof(*v));

		if (!v)
			return SIZE_MAX;
		fl->v = v;
		fl->cap = c;
	}
	nd = &fl->v[fl->n];
	memset(nd, 0, sizeof(*nd));
	nd->name = name;
	nd->parent = (uint32_t)parent;
	nd->depth = fl->v[parent].depth + 1;
	fl->nodes[k] = ++fl->n;
	return fl->n - 1;
}

int flame_new(struct flame **out)
{
	struct flame *fl = calloc(1, sizeof(*fl));

	*out = NULL;
	if (!fl)
		return -ENOMEM;
	fl->v = calloc(1, sizeof(*fl->v));
	if (!fl->v || !intern(fl, "all")) {
		flame_free(fl);
		return -ENOMEM;
	}
	fl->cap = fl->n = 1;
	fl->v[0].name = fl->names[0];
	fl->v[0].parent = UINT32_MAX;
	*out = fl;
	return 0;
}

void flame_free(struct flame *fl)
{
	size_t i;

	if (!fl)
		return;
	for (i = 0; i < fl->nnames; i++)
		free(fl->names[i]);
	for (i = 0; i < fl->nnotes; i++)
		free(fl->notes[i].note);
	free(fl->notes);
	free(fl->names);
	free(fl->nameh);
	free(fl->nodes);
	free(fl->v);
	free(fl->prev);
	free(fl->prev_node);
	free(fl->fname);
	free(fl);
}

/*
 * Adds weight to the stack funcs[frames[0]] ; ... ; funcs[frames[depth -
 * 1]] of side.  from names the profile funcs[0 .. nfuncs) belongs to, so
 * the previous stack's prefix and the names are reused only within one
 * profile.
 */
static int add_path(struct flame *fl, int side, const void *from,
		    const struct vgl_pfunc *funcs, size_t nfuncs,
		    const uint32_t *frames, size_t depth, double weight)
{
	size_t i = 0, node = 0;
	char name[1024];

	if (depth > fl->prev_cap) {
		size_t c = depth + 64;
		uint32_t *a = realloc(fl->prev, c * sizeof(*a));
		uint32_t *b = a ? realloc(fl->prev_node, c * sizeof(*b)) : NULL;

		if (a)
			fl->prev = a;
		if (!b)
			return -ENOMEM;
		fl->prev_node = b;
		fl->prev_cap = c;
	}
	if (fl->from == from)
		for (; i < depth && i < fl->prev_depth && frames[i] == fl->prev[i]; i++)
			node = fl->prev_node[i];
	else {
		const char **v = realloc(fl->fname, (nfuncs + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v, 0, (nfuncs + 1) * sizeof(*v));
		fl->fname = v;
		fl->nfname = nfuncs;
	}
	fl->from = from;
	for (; i < depth; i++) {
		const char *n = fl->fname[frames[i]];

		if (!n) {
			out_frame_name(&funcs[frames[i]], name, sizeof(name));
			n = fl->fname[frames[i]] = intern(fl, name);
		}
		node = n ? child(fl, node, n) : SIZE_MAX;
		if (node == SIZE_MAX) {
			fl->from = NULL;
			return -ENOMEM;
		}
		fl->prev[i] = frames[i];
		fl->prev_node[i] = (uint32_t)node;
	}
	fl->prev_depth = depth;
	fl->v[node].self[side] += weight;
	fl->sum[side] += weight;
	return 0;
}

/* Gives the frames named name the tooltip note (taken over). */
static int set_note(struct flame *fl, const char *name, char *note)
{
	const char *n = intern(fl, name);
	struct fnote *v;
	size_t i;

	for (i = 0; n && i < fl->nnotes; i++)
		if (fl->notes[i].name == n) {
			free(fl->notes[i].note);
			fl->notes[i].note = note;
			return 0;
		}
	v = n ? realloc(fl->notes, (fl->nnotes + 1) * sizeof(*v)) : NULL;
	if (!v) {
		free(note);
		return -ENOMEM;
	}
	fl->notes = v;
	fl->notes[fl->nnotes].name = n;
	fl->notes[fl->nnotes++].note = note;
	return 0;
}

/* The note of a name: few have one (cycles), so a list does. */
static const char *note_of(const struct flame *fl, const char *name)
{
	size_t i;

	for (i = 0; i < fl->nnotes; i++)
		if (fl->notes[i].name == name)
			return fl->notes[i].note;
	return NULL;
}

int flame_note(struct flame *fl, const struct vgl_pfunc *fn, char *note)
{
	char name[1024];

	out_frame_name(fn, name, sizeof(name));
	return set_note(fl, name, note);
}

struct walk {
	struct flame *fl;
	int side;
	const struct stacks *s;
};

static int add_walked(void *arg, const uint32_t *frames, size_t depth,
		      uint64_t weight)
{
	struct walk *w = arg;

	return add_path(w->fl, w->side, w->s, w->s->frames, w->s->nframes,
			frames, depth, (double)weight);
}

int flame_add_profile(struct flame *fl, int side, const struct vgl_profile *p)
{
	struct stacks s;
	struct walk w = { fl, side, &s };
	char name[1024];
	size_t i;
	int err;

	err = stacks_build(&s, p);
	if (err)
		return err;
	err = stacks_walk(&s, add_walked, &w);
	/* Each cycle's members with their exact calls, on its tooltip. */
	for (i = 0; !err && i < s.ncycles; i++) {
		char *m = stacks_cycle_members(&s, &s.cycles[i]);

		out_frame_name(&s.frames[s.cycles[i].frame], name, sizeof(name));
		err = m ? set_note(fl, name, m) : -ENOMEM;
	}
	fl->from = NULL;        /* s.frames is gone */
	stacks_release(&s);
	return err;
}

int flame_add_sampled(struct flame *fl, int side,
		      const struct vgl_sprofile *sp)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < sp->nstacks; i++)
		err = add_path(fl, side, sp, sp->funcs, sp->nfuncs,
			       sp->chain + sp->stacks[i].first,
			       sp->stacks[i].depth,
			       (double)sp->stacks[i].count);
	return err;
}

/* A warm colour from the name, the same for a name in every graph. */
static void color(const char *name, int *r, int *g, int *b)
{
	uint32_t h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	*r = 205 + (int)(h % 50);
	*g = 80 + (int)((h >> 8) % 150);
	*b = (int)((h >> 16) % 55);
}

static const char script[] =
	"<![CDATA[\n"
	"(function () {\n"
	"  var svg = document.currentScript ? document.currentScript.closest('svg')\n"
	"                                   : document.querySelector('svg');\n"
	"  var W = +svg.getAttribute('data-width'), P = " "10" ";\n"
	"  var frames = Array.prototype.slice.call(svg.querySelectorAll('g.f'));\n"
	"  var details = svg.querySelector('#details');\n"
	"  var matched = svg.querySelector('#matched');\n"
	"  var total = +svg.getAttribute('data-total');\n"
	"  function pct(c) { return (total ? 100 * c / total : 0).toFixed(2) + '%'; }\n"
	"  var unit = svg.getAttribute('data-unit');\n"
	"  function info(g) { var d = g.getAttribute('data-delta'), m = g.getAttribute('data-note');\n"
	"    return g.getAttribute('data-name') + ' (' + g.getAttribute('data-value') + ' ' + unit +\n"
	"      ', ' + pct(+g.getAttribute('data-value')) + (d === null ? '' : '; ' + d) +\n"
	"      (m === null ? '' : '; ' + m) + ')'; }\n"
	"  function place(g, x, w) {\n"
	"    var r = g.querySelector('rect'), t = g.querySelector('text');\n"
	"    r.setAttribute('x', x); r.setAttribute('width', Math.max(w, 0));\n"
	"    t.setAttribute('x', x + 3);\n"
	"    var n = g.getAttribute('data-name'), fit = Math.floor((w - 6) / 7);\n"
	"    t.textContent = fit < 3 ? '' : n.length <= fit ? n : n.slice(0, fit - 2) + '..';\n"
	"  }\n"
	"  function zoom(g) {\n"
	"    var x0 = +g.getAttribute('data-x'), w0 = +g.getAttribute('data-w');\n"
	"    var d0 = +g.getAttribute('data-depth'), s = (W - 2 * P) / w0;\n"
	"    frames.forEach(function (f) {\n"
	"      var x = +f.getAttribute('data-x'), w = +f.getAttribute('data-w');\n"
	"      var d = +f.getAttribute('data-depth');\n"
	"      var inside = x >= x0 - 1e-9 && x + w <= x0 + w0 + 1e-9;\n"
	"      var below = d < d0 && x <= x0 + 1e-9 && x + w >= x0 + w0 - 1e-9;\n"
	"      if (d >= d0 && inside) { f.style.display = ''; place(f, P + (x - x0) * s, w * s); }\n"
	"      else if (below) { f.style.display = ''; f.classList.add('parent'); place(f, P, W - 2 * P); }\n"
	"      else f.style.display = 'none';\n"
	"      if (!below) f.classList.remove('parent');\n"
	"    });\n"
	"    svg.setAttribute('data-zoomed', g.getAttribute('data-name'));\n"
	"  }\n"
	"  function unzoom() { zoom(frames[0]); svg.removeAttribute('data-zoomed'); }\n"
	"  function search(term) {\n"
	"    var sum = 0, n = 0, seen = [];\n"
	"    frames.forEach(function (f) {\n"
	"      var hit = term && f.getAttribute('data-name').indexOf(term) >= 0;\n"
	"      f.classList.toggle('match', !!hit);\n"
	"      if (!hit) return;\n"
	"      n++;\n"
	"      var x = +f.getAttribute('data-x'), w = +f.getAttribute('data-w');\n"
	"      /* a match inside another match is already in its width */\n"
	"      if (!seen.some(function (s) { return x >= s[0] && x + w <= s[1] + 1e-9; })) {\n"
	"        seen.push([x, x + w]); sum += w;\n"
	"      }\n"
	"    });\n"
	"    matched.textContent = term ? 'Matched: ' + pct(sum) : '';\n"
	"    svg.setAttribute('data-matches', n);\n"
	"    return n;\n"
	"  }\n"
	"  frames.forEach(function (f) {\n"
	"    f.addEventListener('mouseover', function () { details.textContent = info(f); });\n"
	"    f.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
	"    f.addEventListener('click', function () {\n"
	"      if (f === frames[0]) unzoom(); else zoom(f);\n"
	"    });\n"
	"  });\n"
	"  svg.querySelector('#unzoom').addEventListener('click', unzoom);\n"
	"  svg.querySelector('#search').addEventListener('click', function () {\n"
	"    var t = window.prompt('Search for (a part of) a function name:', '');\n"
	"    if (t !== null) search(t);\n"
	"  });\n"
	"  window.vigilFlame = { zoom: function (name) {\n"
	"      var g = frames.filter(function (f) { return f.getAttribute('data-name') === name; })[0];\n"
	"      if (g) g.dispatchEvent(new MouseEvent('click', { bubbles: true })); return !!g; },\n"
	"    search: search, unzoom: unzoom };\n"
	"  frames.forEach(function (f) { place(f, +f.getAttribute('data-px'), +f.getAttribute('data-pw')); });\n"
	"})();\n"
	"]]>";


/* Gregg's difference colours: red for more, blue for less, white for
 * no change, deeper with the size of the change against the largest. */
static void diff_color(double delta, double maxdelta, int *r, int *g, int *b)
{
	int v = maxdelta > 0 ?
		(int)(210 * (maxdelta - fabs(delta)) / maxdelta) : 210;

	if (delta > 0) {
		*r = 255;
		*g = *b = v;
	} else if (delta < 0) {
		*b = 255;
		*r = *g = v;
	} else {
		*r = *g = *b = 255;
	}
}

/* The graph being drawn, as every frame of it needs to know it. */
struct canvas {
	FILE *f;
	const char *unit;
	double sum;              /* side 1's weight: the width of "all" */
	double scale;            /* pixels per unit of weight */
	double maxdelta;         /* the largest change of a drawn frame */
	int diff;
	int height;
};

/* Every node's totals: its own weight and its children's, which come
 * after their parent, so added up from the back. */
static void add_totals(struct flame *fl)
{
	size_t i;

	for (i = 0; i < fl->n; i++) {
		fl->v[i].total[0] = fl->v[i].self[0];
		fl->v[i].total[1] = fl->v[i].self[1];
	}
	for (i = fl->n; i-- > 1;) {
		struct fnode *nd = &fl->v[i];

		fl->v[nd->parent].total[0] += nd->total[0];
		fl->v[nd->parent].total[1] += nd->total[1];
	}
}

/*
 * Every node's left edge, its children side by side in the order they
 * were met, and, of the frames wide enough to draw, the deepest depth
 * and each one's change of its own weight from side 0 (scaled by norm)
 * to side 1: delta[i], the largest in *maxdelta.
 */
static int place_frames(struct flame *fl, double scale, double norm,
			double *delta, uint32_t *maxdepth, double *maxdelta)
{
	double *cursor = malloc(fl->n * sizeof(*cursor));
	size_t i;

	if (!cursor)
		return -ENOMEM;
	fl->v[0].x = 0;
	cursor[0] = 0;
	for (i = 1; i < fl->n; i++) {
		struct fnode *nd = &fl->v[i];

		nd->x = cursor[nd->parent];
		cursor[nd->parent] += nd->total[1];
		cursor[i] = nd->x;
		if (nd->total[1] * scale < MIN_WIDTH)
			continue;
		if (nd->depth > *maxdepth)
			*maxdepth = nd->depth;
		delta[i] = nd->self[1] - nd->self[0] * norm;
		if (fabs(delta[i]) > *maxdelta)
			*maxdelta = fabs(delta[i]);
	}
	free(cursor);
	return 0;
}

/* The svg element, its style, background, titles and controls. */
static void svg_head(const struct canvas *c, const char *title,
		     const char *subtitle)
{
	FILE *f = c->f;
	int height = c->height;

	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\" data-width=\"%d\" data-total=\"%.0f\" "
		"data-unit=\"%s\"%s>\n",
		(int)WIDTH, height, (int)WIDTH, height, (int)WIDTH, c->sum,
		c->unit, c->diff ? " data-diff=\"1\"" : "");
	fputs("<style>\n"
	      "text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; }\n"
	      "g.f text { pointer-events: none; }\n"
	      "g.f:hover rect { stroke: #000; stroke-width: 0.5; cursor: pointer; }\n"
	      "g.match rect { fill: #e040e0 !important; }\n"
	      "g.parent rect { opacity: 0.5; }\n"
	      "#title { font-size: 17px; }\n"
	      "#unzoom, #search { cursor: pointer; }\n"
	      "</style>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f0\"/>\n",
		(int)WIDTH, height);
	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">",
		(int)WIDTH / 2);
	out_xml_text(f, title);
	fputs("</text>\n", f);
	if (subtitle) {
		fprintf(f, "<text id=\"subtitle\" x=\"%d\" y=\"44\" "
			"text-anchor=\"middle\">", (int)WIDTH / 2);
		out_xml_text(f, subtitle);
		fputs("</text>\n", f);
	}
	fprintf(f, "<text id=\"unzoom\" x=\"%d\" y=\"24\">Reset zoom</text>\n", (int)PAD);
	fprintf(f, "<text id=\"search\" x=\"%d\" y=\"24\">Search</text>\n",
		(int)WIDTH - 120);
	fprintf(f, "<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n",
		(int)WIDTH - 200, height - 12);
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", (int)PAD,
		height - 12);
}

/* One frame above "all": its group, with what the script reads, its
 * tooltip, its box and its (empty, filled by the script) label.  delta is
 * its change of its own weight, in a diff. */
static void draw_frame(const struct canvas *c, const struct flame *fl,
		       const struct fnode *nd, double delta)
{
	const char *note = note_of(fl, nd->name);
	double sum = c->sum;
	char change[64] = "";
	FILE *f = c->f;
	int r, g, b;

	if (c->diff) {
		diff_color(delta, c->maxdelta, &r, &g, &b);
		/* The change of its own weight, in points of B's total. */
		snprintf(change, sizeof(change), "%+.2f%%",
			 sum > 0 ? 100.0 * delta / sum : 0.0);
	} else {
		color(nd->name, &r, &g, &b);
	}
	fputs("<g class=\"f\" data-name=\"", f);
	out_xml_text(f, nd->name);
	fprintf(f, "\" data-value=\"%.0f\" data-x=\"%.6f\" data-w=\"%.6f\" "
		"data-depth=\"%u\" data-px=\"%.2f\" data-pw=\"%.2f\"",
		floor(nd->total[1] + 0.5), nd->x, nd->total[1], nd->depth,
		PAD + nd->x * c->scale, nd->total[1] * c->scale);
	if (c->diff)
		fprintf(f, " data-delta=\"%s\"", change);
	if (note) {
		fputs(" data-note=\"", f);
		out_xml_text(f, note);
		fputc('"', f);
	}
	fputs("><title>", f);
	out_xml_text(f, nd->name);
	fprintf(f, " (%.0f %s, %.2f%%%s%s%s", floor(nd->total[1] + 0.5),
		c->unit, sum > 0 ? 100.0 * nd->total[1] / sum : 0.0,
		c->diff ? "; " : "", change, note ? "; " : "");
	if (note)
		out_xml_text(f, note);
	fprintf(f, ")</title>"
		"<rect y=\"%d\" height=\"%d\" rx=\"2\" fill=\"rgb(%d,%d,%d)\"/>"
		"<text y=\"%d\"></text></g>\n",
		c->height - 50 - (int)(nd->depth + 1) * ROW, ROW - 1, r, g, b,
		c->height - 50 - (int)nd->depth * ROW - 4);
}

int out_flame_svg(struct flame *fl, const char *title, const char *subtitle,
		  const char *unit, int diff, FILE *f)
{
	struct canvas c = { .f = f, .unit = unit, .diff = diff };
	double sum = fl->sum[1], *delta, norm = 0;
	uint32_t maxdepth = 0;
	size_t i;

	delta = calloc(fl->n, sizeof(*delta));
	if (!delta)
		return -ENOMEM;
	add_totals(fl);
	c.sum = sum;
	c.scale = sum > 0 ? (WIDTH - 2 * PAD) / sum : 0;
	if (diff && fl->sum[0] > 0)
		norm = sum / fl->sum[0];
	if (place_frames(fl, c.scale, norm, delta, &maxdepth, &c.maxdelta)) {
		free(delta);
		return -ENOMEM;
	}
	c.height = (int)(maxdepth + 1) * ROW + (subtitle ? 108 : 90);
	svg_head(&c, title, subtitle);

	/* The bottom frame, everything; then every frame, bottom up. */
	fprintf(f, "<g class=\"f\" data-name=\"all\" data-value=\"%.0f\" data-x=\"0\" "
		"data-w=\"%.6g\" data-depth=\"0\" data-px=\"%g\" data-pw=\"%g\">"
		"<title>all (%.0f %s, 100%%)</title>"
		"<rect y=\"%d\" height=\"%d\" rx=\"2\" fill=\"rgb(200,200,200)\"/>"
		"<text y=\"%d\"></text></g>\n",
		sum, sum > 0 ? sum : 1, PAD, WIDTH - 2 * PAD, sum, unit,
		c.height - 50 - ROW, ROW - 1, c.height - 50 - 4);
	for (i = 1; i < fl->n; i++) {
		if (fl->v[i].total[1] * c.scale < MIN_WIDTH)
			continue;
		draw_frame(&c, fl, &fl->v[i], delta[i]);
	}
	fprintf(f, "<script type=\"text/ecmascript\">%s</script>\n</svg>\n", script);
	free(delta);
	return ferror(f) ? -EIO : 0;
}
