/*
 * window.c - each window of a live switch (live.c) as a profile of its own:
 * NAME.wNNNNNN.vgl, the counting runtime's window file (VGL_KIND_WINDOW,
 * as VIGIL_INTERVAL writes them), with the window's bounds and exactly the
 * calls counted while it was on.
 *
 * A window begins at the reading after which counting was switched on,
 * and ends at the reading taken once it was switched off again (or once
 * the process ended): its counts are the second reading's totals minus
 * the first one's, edge by edge.  The window file is written whole
 * (vgl_writer_file: a temporary name, renamed when complete), with the
 * modules and the command line of the profile read at its end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "vgl_reader.h"
#include "vgl_writer.h"

void window_begin(struct counts_state *c, uint64_t now_ns)
{
	/* The totals of the reading just taken, of the file read; none
	 * when the runtime has no memfd yet (it starts from zero). */
	c->nbase = 0;
	if (c->path[0] && c->nprev) {
		struct vgl_edge_info *p = realloc(c->base,
						  c->nprev * sizeof(*p));

		if (!p) {
			c->in_window = 0;
			return;
		}
		c->base = p;
		memcpy(c->base, c->prev, c->nprev * sizeof(*p));
		c->nbase = c->nprev;
	}
	c->in_window = 1;
	c->window_start_ns = now_ns;
}

/* The window's edges: r's counts minus the base, those that grew. */
static struct vgl_edge *window_edges(const struct counts_state *c,
				     const struct vgl_reader *r, size_t *n,
				     uint64_t *calls)
{
	struct vgl_edge *e = malloc((r->nedges ? r->nedges : 1) * sizeof(*e));
	size_t i, j = 0;

	*n = 0;
	*calls = 0;
	if (!e)
		return NULL;
	for (i = 0; i < r->nedges; i++) {
		const struct vgl_edge_info *x = &r->edges[i];
		uint64_t before = 0;

		while (j < c->nbase && counts_cmp_edge(&c->base[j], x) < 0)
			j++;
		if (j < c->nbase && !counts_cmp_edge(&c->base[j], x))
			before = c->base[j].count;
		if (x->count <= before)
			continue;
		e[*n] = (struct vgl_edge){ x->callee, x->site, x->count - before,
					   x->callee_mod, x->site_mod };
		*calls += x->count - before;
		(*n)++;
	}
	return e;
}

int window_write(struct counts_state *c, const struct vgl_reader *r,
		 uint64_t now_ns, int ended)
{
	struct vgl_writer_module *mods;
	struct vgl_writer_block block;
	struct vgl_writer w;
	struct vgl_edge *edges;
	uint64_t calls;
	size_t i, n;
	int ret;

	c->window_file[0] = 0;
	if (!c->in_window)
		return 0;
	c->in_window = 0;
	c->window_seq++;
	if (!c->window_stem)
		return 0;
	mods = calloc(r->nmodules ? r->nmodules : 1, sizeof(*mods));
	edges = window_edges(c, r, &n, &calls);
	if (!mods || !edges) {
		free(mods);
		free(edges);
		return -ENOMEM;
	}
	for (i = 0; i < r->nmodules; i++) {
		const struct vgl_module_info *m = &r->modules[i];

		mods[i] = (struct vgl_writer_module){
			.id = m->id, .bias = m->bias, .lo = m->lo, .hi = m->hi,
			.build_id = m->build_id,
			.build_id_len = m->build_id_len, .path = m->path,
			.file = m->has_file ? &m->file : NULL,
		};
	}
	block = (struct vgl_writer_block){ 0, edges, n };
	memset(&w, 0, sizeof(w));
	w.meta = r->meta;
	w.meta.kind = VGL_KIND_WINDOW;
	w.meta.state = VGL_STATE_FINISHED;
	w.meta.exit_status = ended ? r->meta.exit_status : 0;
	w.meta.end_ns = ended ? r->meta.end_ns : 0;
	w.meta.window_start_ns = c->window_start_ns;
	w.meta.window_end_ns = now_ns;
	w.meta.window_seq = c->window_seq;
	w.meta.lost_calls = 0;
	w.meta.windows = 0;
	w.meta.windowed_calls = 0;
	w.meta.flags &= ~(uint32_t)VGL_META_INCOMPLETE;
	w.exe = r->exe;
	w.host = r->host;
	w.argv = r->argv;
	w.argc = r->argc;
	w.modules = mods;
	w.nmodules = r->nmodules;
	w.blocks = &block;
	w.nblocks = 1;
	if ((size_t)snprintf(c->window_file, sizeof(c->window_file),
			     "%s.w%06llu.vgl", c->window_stem,
			     (unsigned long long)c->window_seq) >=
	    sizeof(c->window_file))
		ret = -ENAMETOOLONG;
	else
		ret = vgl_writer_file(&w, c->window_file);
	if (ret)
		c->window_file[0] = 0;
	c->window_calls = calls;
	free(mods);
	free(edges);
	return ret;
}
