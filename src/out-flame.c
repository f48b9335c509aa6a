/*
 * out-flame.c - a flame graph as one self-contained SVG file: the frames
 * of the unfolded call graph (src/stacks.c), a little JavaScript and CSS
 * inside, nothing loaded from anywhere.  Hovering a frame shows its name,
 * calls and share (a <title> tooltip and the line under the graph);
 * clicking zooms into it (again on the bottom frame, or "Reset zoom",
 * zooms out); "Search" (or calling search(term) from a script) highlights
 * the frames whose names contain the term and says what share they hold.
 *
 * A frame's width is the calls into it along its path plus the calls made
 * under it.  Frames narrower than a tenth of a pixel are left out, so the
 * file stays small for large profiles.
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

struct node {
	uint32_t func;
	uint32_t depth;          /* 1 for the first frame; 0 is "all" */
	size_t parent;           /* index, SIZE_MAX for the top frames */
	double self;             /* the stack's own weight */
	double total;            /* with everything under it */
	double x;                /* left edge, in calls from the left */
};

struct collect {
	struct node *v;
	size_t n, cap;
	size_t path[STACKS_MAX_DEPTH];   /* node index of each depth */
	int overflow;
};

static int add_stack(void *arg, const uint32_t *frames, size_t depth,
		     double weight)
{
	struct collect *c = arg;
	struct node *nd;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 1024;
		struct node *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	nd = &c->v[c->n];
	nd->func = frames[depth - 1];
	nd->depth = (uint32_t)depth;
	nd->parent = depth > 1 ? c->path[depth - 2] : SIZE_MAX;
	nd->self = weight;
	nd->total = weight;
	nd->x = 0;
	c->path[depth - 1] = c->n++;
	return 0;
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, f);
		}
	}
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
	"  function info(g) { return g.getAttribute('data-name') + ' (' +\n"
	"    g.getAttribute('data-calls') + ' calls, ' + pct(+g.getAttribute('data-calls')) + ')'; }\n"
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

int out_flame(const struct vgl_profile *p, const char *title, FILE *f)
{
	struct collect c = { 0 };
	struct stacks s;
	double sum = 0, scale, *cursor = NULL, top_cursor = 0;
	uint32_t maxdepth = 0;
	size_t i;
	int err, height;

	err = stacks_build(&s, p);
	if (err)
		return err;
	err = stacks_walk(&s, add_stack, &c);
	stacks_release(&s);
	if (err)
		goto out;
	/* Children follow their parent in depth-first order: totals from
	 * the back, positions from the front. */
	for (i = c.n; i-- > 0;)
		if (c.v[i].parent != SIZE_MAX)
			c.v[c.v[i].parent].total += c.v[i].total;
		else
			sum += c.v[i].total;
	err = -ENOMEM;
	cursor = malloc((c.n + 1) * sizeof(*cursor));
	if (!cursor)
		goto out;
	for (i = 0; i < c.n; i++) {
		struct node *nd = &c.v[i];

		if (nd->parent == SIZE_MAX) {
			nd->x = top_cursor;
			top_cursor += nd->total;
		} else {
			nd->x = cursor[nd->parent];
			cursor[nd->parent] += nd->total;
		}
		cursor[i] = nd->x;
		if (nd->depth > maxdepth)
			maxdepth = nd->depth;
	}
	scale = sum > 0 ? (WIDTH - 2 * PAD) / sum : 0;
	height = (int)(maxdepth + 1) * ROW + 90;

	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\" data-width=\"%d\" data-total=\"%.0f\">\n",
		(int)WIDTH, height, (int)WIDTH, height, (int)WIDTH, sum);
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
	xml_text(f, title);
	fputs("</text>\n", f);
	fprintf(f, "<text id=\"unzoom\" x=\"%d\" y=\"24\">Reset zoom</text>\n", (int)PAD);
	fprintf(f, "<text id=\"search\" x=\"%d\" y=\"24\">Search</text>\n",
		(int)WIDTH - 120);
	fprintf(f, "<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n",
		(int)WIDTH - 200, height - 12);
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", (int)PAD,
		height - 12);

	/* The bottom frame, all calls; then every frame, bottom up. */
	fprintf(f, "<g class=\"f\" data-name=\"all\" data-calls=\"%.0f\" data-x=\"0\" "
		"data-w=\"%.6g\" data-depth=\"0\" data-px=\"%g\" data-pw=\"%g\">"
		"<title>all (%.0f calls, 100%%)</title>"
		"<rect y=\"%d\" height=\"%d\" rx=\"2\" fill=\"rgb(200,200,200)\"/>"
		"<text y=\"%d\"></text></g>\n",
		sum, sum > 0 ? sum : 1, PAD, WIDTH - 2 * PAD, sum,
		height - 50 - ROW, ROW - 1, height - 50 - 4);
	for (i = 0; i < c.n; i++) {
		const struct node *nd = &c.v[i];
		char name[1024];
		int r, g, b;

		if (nd->total * scale < MIN_WIDTH)
			continue;
		out_frame_name(&p->funcs[nd->func], name, sizeof(name));
		color(name, &r, &g, &b);
		fputs("<g class=\"f\" data-name=\"", f);
		xml_text(f, name);
		fprintf(f, "\" data-calls=\"%.0f\" data-x=\"%.6f\" data-w=\"%.6f\" "
			"data-depth=\"%u\" data-px=\"%.2f\" data-pw=\"%.2f\"><title>",
			floor(nd->total + 0.5), nd->x, nd->total, nd->depth,
			PAD + nd->x * scale, nd->total * scale);
		xml_text(f, name);
		fprintf(f, " (%.0f calls, %.2f%%)</title>"
			"<rect y=\"%d\" height=\"%d\" rx=\"2\" fill=\"rgb(%d,%d,%d)\"/>"
			"<text y=\"%d\"></text></g>\n",
			floor(nd->total + 0.5),
			sum > 0 ? 100.0 * nd->total / sum : 0.0,
			height - 50 - (int)(nd->depth + 1) * ROW, ROW - 1, r, g, b,
			height - 50 - (int)nd->depth * ROW - 4);
	}
	fprintf(f, "<script type=\"text/ecmascript\">%s</script>\n</svg>\n", script);
	err = ferror(f) ? -EIO : 0;
out:
	free(cursor);
	free(c.v);
	return err;
}
