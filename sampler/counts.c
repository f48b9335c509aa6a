/*
 * counts.c - exact call counts of a target linked with vigil's runtime,
 * read from outside: the runtime keeps its profile in a .vgl file mapped
 * shared into the target (so it shows in /proc/PID/maps), and the file is
 * the profile, live.  Each scan reads it with the profile reader
 * (lib/vgl_reader: every byte checked, the file treated as hostile) and
 * hands out, per edge, the count since the previous scan.  Nothing runs in
 * the target for this.
 *
 * The deltas of a run add up to the counts of the last read; the sampler
 * reads once more after the target has ended, when the profile is final
 * (G2), so the deltas of a whole run add up to the final profile.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "maps.h"
#include "vgl_reader.h"

int counts_init(struct counts_state *c, pid_t pid, int procfd, int pidfd,
		int taskfd)
{
	memset(c, 0, sizeof(*c));
	c->mapsfd = openat(procfd, "maps", O_RDONLY | O_CLOEXEC);
	live_init(&c->live, pid, procfd, pidfd, taskfd);
	return c->mapsfd < 0 ? -errno : 0;
}

/* Finds the first mapped file named *.vgl in the maps into c->path.
 * Returns 0, or -ENOENT when there is none. */
static int find_profile(struct counts_state *c)
{
	struct vgl_maps maps;
	struct vgl_map m;
	int ret = vgl_maps_read_fd(&maps, c->mapsfd);

	if (ret)
		return ret;
	ret = -ENOENT;
	while (vgl_maps_next(&maps, &m)) {
		size_t l = strlen(m.path);

		if (m.path[0] == '/' && l > 4 && !strcmp(m.path + l - 4, ".vgl") &&
		    l < sizeof(c->path)) {
			memcpy(c->path, m.path, l + 1);
			ret = 0;
			break;
		}
	}
	vgl_maps_close(&maps);
	return ret;
}

/* Where the profile is: the memfd of a program switched on live, else
 * the first *.vgl file mapped. */
static int find_file(struct counts_state *c)
{
	const char *live = live_profile(&c->live);

	if (!live)
		return find_profile(c);
	snprintf(c->path, sizeof(c->path), "%s", live);
	return 0;
}

/* The reader's order, module ids included: a plugin dlclosed and another
 * loaded where it was have edges with the same addresses, told apart only
 * by their modules, and each must be joined with its own previous count. */
int counts_cmp_edge(const struct vgl_edge_info *a,
		    const struct vgl_edge_info *b)
{
	if (a->callee != b->callee)
		return a->callee < b->callee ? -1 : 1;
	if (a->site != b->site)
		return a->site < b->site ? -1 : 1;
	if (a->callee_mod != b->callee_mod)
		return a->callee_mod < b->callee_mod ? -1 : 1;
	if (a->site_mod != b->site_mod)
		return a->site_mod < b->site_mod ? -1 : 1;
	return 0;
}

int counts_scan(struct counts_state *c, struct sampler_sample *s, int final)
{
	struct vgl_reader r;
	struct vgl_edge_info *e;
	size_t i, j = 0, n = 0;
	int ret;

	s->counts_error = NULL;
	/* The file is looked up in the maps while the target runs (after
	 * its end they are gone, but the file is where it was). */
	if (c->live.err[0]) {
		s->counts_error = c->live.err;
		return 0;
	}
	if (!c->path[0]) {
		if ((c->live.on || c->live.ctl) && !live_profile(&c->live)) {
			s->counts_error = "counting switched on live: no call counted yet";
			return 0;
		}
		if ((final && !live_profile(&c->live)) || find_file(c)) {
			s->counts_error = "no .vgl profile mapped (not linked with vigil's runtime?)";
			return 0;
		}
		/* Another file (an exec, vigil_set_file): counts start anew. */
		if (strcmp(c->path, c->prev_path)) {
			c->nprev = 0;
			memcpy(c->prev_path, c->path, sizeof(c->path));
		}
	}
	ret = vgl_reader_open(&r, c->path);
	if (ret) {
		snprintf(c->err, sizeof(c->err), "%s: %s", c->path, r.err);
		s->counts_error = c->err;
		c->path[0] = 0;
		return 0;
	}
	if (r.nedges > c->cap_out) {
		struct sampler_edge *p = realloc(c->out, r.nedges * sizeof(*p));

		if (!p) {
			vgl_reader_close(&r);
			return -ENOMEM;
		}
		c->out = p;
		c->cap_out = r.nedges;
	}
	s->calls_total = 0;
	s->calls_delta = 0;
	/* Both lists are sorted by (callee, site, callee_mod, site_mod): one
	 * merge. */
	for (i = 0; i < r.nedges; i++) {
		uint64_t before = 0;

		e = &r.edges[i];
		while (j < c->nprev && counts_cmp_edge(&c->prev[j], e) < 0)
			j++;
		if (j < c->nprev && !counts_cmp_edge(&c->prev[j], e))
			before = c->prev[j].count;
		s->calls_total += e->count;
		if (e->count <= before)
			continue;
		c->out[n] = (struct sampler_edge){
			.callee = e->callee, .site = e->site,
			.delta = e->count - before, .total = e->count,
			.callee_mod = e->callee_mod, .site_mod = e->site_mod,
		};
		s->calls_delta += e->count - before;
		n++;
	}
	/* This scan's totals are the next one's "before". */
	if (r.nedges > c->cap_prev) {
		struct vgl_edge_info *p = realloc(c->prev,
						  r.nedges * sizeof(*p));

		if (!p) {
			vgl_reader_close(&r);
			return -ENOMEM;
		}
		c->prev = p;
		c->cap_prev = r.nedges;
	}
	if (r.nedges)
		memcpy(c->prev, r.edges, r.nedges * sizeof(*r.edges));
	c->nprev = r.nedges;
	if (c->window_closing) {
		c->window_closing = 0;
		ret = window_write(c, &r, s->time_ns, final);
		if (ret && c->window_stem) {
			snprintf(c->err, sizeof(c->err),
				 "%s.w%06llu.vgl: cannot write: %s",
				 c->window_stem,
				 (unsigned long long)c->window_seq,
				 strerror(-ret));
			s->counts_error = c->err;
		}
		s->counts_window_file = c->window_file[0] ? c->window_file
							    : NULL;
		s->counts_window_calls = c->window_calls;
		s->counts_window_seq = c->window_seq;
	}
	vgl_reader_close(&r);
	s->counts_file = c->path;
	s->edges = c->out;
	s->nedges = n;
	return 0;
}

void counts_forget_file(struct counts_state *c)
{
	c->path[0] = 0;
	/* A new image's file starts anew, even where its path is the old
	 * one's (a memfd's /proc/self/fd/N, N reused). */
	c->prev_path[0] = 0;
	c->nprev = 0;
	c->in_window = 0;
	live_forget(&c->live);
}

void counts_release(struct counts_state *c)
{
	live_forget(&c->live);
	if (c->mapsfd >= 0)
		close(c->mapsfd);
	free(c->base);
	free(c->prev);
	free(c->out);
	memset(c, 0, sizeof(*c));
	c->mapsfd = -1;
}
