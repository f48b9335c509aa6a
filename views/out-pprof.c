/*
 * out-pprof.c - a gzipped profile.proto (proto/profile.proto), as go tool
 * pprof, Pyroscope, Parca and speedscope read it, encoded by protobuf-c
 * and compressed by zlib.
 *
 * A sampled profile becomes one sample per distinct chain of functions
 * sampled, sample types samples/count and cpu/nanoseconds.
 * A counting profile becomes one sample per stack of the call-graph
 * unfolding (views/unfold.c), sample type calls/count, the value the calls
 * of the stack's leaf given to that path, so pprof's flat view shows each
 * function's calls and its cumulative view the calls under it, and the
 * values add up to the profile's total calls; a cycle of calls is one
 * function, "<cycle N: ...>", whose members' calls a comment gives.  Each
 * function is one Function and one Location (at its first byte, with its
 * source file and line) in the Mapping of its module, which carries the
 * module's path and build-id (hex), as pprof matches binaries by them.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "out.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile PProfile;
typedef Perftools__Profiles__Sample PSample;
typedef Perftools__Profiles__Location PLocation;
typedef Perftools__Profiles__Line PLine;
typedef Perftools__Profiles__Function PFunction;
typedef Perftools__Profiles__Mapping PMapping;
typedef Perftools__Profiles__ValueType PValueType;

/* The string table, each string once: a hash table on content, so that a
 * profile of a million functions stays linear. */
struct strtab {
	char **v;
	size_t n, cap;
	size_t *hash;           /* open addressing: index + 1, 0 empty */
	size_t hcap;
};

static uint64_t fnv(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int strtab_grow(struct strtab *t)
{
	size_t i, cap = t->hcap ? 2 * t->hcap : 1024;
	size_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		size_t k = fnv(t->v[i]) & (cap - 1);

		while (h[k])
			k = (k + 1) & (cap - 1);
		h[k] = i + 1;
	}
	free(t->hash);
	t->hash = h;
	t->hcap = cap;
	return 0;
}

/* The index of s in t (added if new), or -1 on -ENOMEM.  NULL is "". */
static int64_t strtab_add(struct strtab *t, const char *s)
{
	size_t k;

	if (!s)
		s = "";
	if (2 * (t->n + 1) > t->hcap && strtab_grow(t))
		return -1;
	for (k = fnv(s) & (t->hcap - 1); t->hash[k]; k = (k + 1) & (t->hcap - 1))
		if (!strcmp(t->v[t->hash[k] - 1], s))
			return (int64_t)(t->hash[k] - 1);
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		char **v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -1;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n] = strdup(s);
	if (!t->v[t->n])
		return -1;
	t->hash[k] = ++t->n;
	return (int64_t)(t->n - 1);
}

static void strtab_free(struct strtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	free(t->hash);
}

struct samples {
	PSample **v;
	size_t n, cap;
	int nomem;
};

/* Appends a sample of the stack frames[0 .. depth) (outermost first)
 * with room for nvalues values; NULL on -ENOMEM. */
static PSample *new_sample(struct samples *s, const uint32_t *frames,
			   size_t depth, size_t nvalues)
{
	PSample *sm;
	size_t i;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		PSample **v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		s->v = v;
		s->cap = cap;
	}
	sm = malloc(sizeof(*sm) + depth * sizeof(uint64_t) +
		    nvalues * sizeof(int64_t));
	if (!sm)
		return NULL;
	perftools__profiles__sample__init(sm);
	sm->n_location_id = depth;
	sm->location_id = (uint64_t *)(sm + 1);
	sm->n_value = nvalues;
	sm->value = (int64_t *)(sm->location_id + depth);
	/* Leaf first; location ids are function indexes + 1. */
	for (i = 0; i < depth; i++)
		sm->location_id[i] = (uint64_t)frames[depth - 1 - i] + 1;
	s->v[s->n++] = sm;
	return sm;
}

static int add_sample(void *arg, const uint32_t *frames, size_t depth,
		      uint64_t weight)
{
	PSample *sm = new_sample(arg, frames, depth, 1);

	if (!sm)
		return -ENOMEM;
	sm->value[0] = (int64_t)weight;
	return 0;
}

/* Compresses len bytes at buf into f as one gzip member. */
static int write_gzip(const uint8_t *buf, size_t len, FILE *f)
{
	unsigned char out[65536];
	z_stream z;
	int ret;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)buf;
	z.avail_in = (uInt)len;     /* a profile under 4 GiB */
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		ret = deflate(&z, Z_FINISH);
		if (ret == Z_STREAM_ERROR)
			break;
		if (fwrite(out, 1, sizeof(out) - z.avail_out, f) !=
		    sizeof(out) - z.avail_out) {
			ret = Z_ERRNO;
			break;
		}
	} while (ret != Z_STREAM_END);
	deflateEnd(&z);
	return ret == Z_STREAM_END ? 0 : ret == Z_ERRNO ? -EIO : -EINVAL;
}

/* A sample type, as pprof names it. */
struct vtype {
	const char *type, *unit;
};

/*
 * Writes the profile of the samples sm (location ids: function indexes +
 * 1) over the functions funcs[0 .. nf) of r's modules: one Function and
 * one Location per function, one Mapping per module.  The values of each
 * sample are of the ntypes types; the period is of the type period_type
 * (an index in types).
 */
static int write_profile(const struct vgl_reader *r, struct vgl_symbolizer *sym,
			 const struct vgl_pfunc *fs, size_t nf,
			 const struct samples *sm, const struct vtype *types,
			 size_t ntypes, size_t period_type, int64_t period,
			 char *const *comments, size_t ncomments, FILE *f)
{
	int64_t *cidx = NULL;
	PProfile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	PValueType vt[4], *vtp[4];
	PMapping *maps = NULL, **mapp = NULL;
	PLocation *locs = NULL, **locp = NULL;
	PLine *lines = NULL, **linep = NULL;
	PFunction *funcs = NULL, **funcp = NULL;
	struct strtab st = { 0 };
	size_t i, nm = r->nmodules, len;
	uint8_t *buf = NULL;
	int err = -ENOMEM;

	maps = calloc(nm + 1, sizeof(*maps));
	mapp = calloc(nm + 1, sizeof(*mapp));
	locs = calloc(nf + 1, sizeof(*locs));
	locp = calloc(nf + 1, sizeof(*locp));
	lines = calloc(nf + 1, sizeof(*lines));
	linep = calloc(nf + 1, sizeof(*linep));
	funcs = calloc(nf + 1, sizeof(*funcs));
	funcp = calloc(nf + 1, sizeof(*funcp));
	cidx = calloc(ncomments + 1, sizeof(*cidx));
	if (!maps || !mapp || !locs || !locp || !lines || !linep || !funcs ||
	    !funcp || !cidx || strtab_add(&st, "") < 0 || ntypes > 4)
		goto out;
	for (i = 0; i < ncomments; i++)
		if ((cidx[i] = strtab_add(&st, comments[i])) < 0)
			goto out;

	for (i = 0; i < ntypes; i++) {
		perftools__profiles__value_type__init(&vt[i]);
		vt[i].type = strtab_add(&st, types[i].type);
		vt[i].unit = strtab_add(&st, types[i].unit);
		if (vt[i].type < 0 || vt[i].unit < 0)
			goto out;
		vtp[i] = &vt[i];
	}
	for (i = 0; i < nm; i++) {
		const struct vgl_module_info *m = &r->modules[i];
		char hex[2 * VGL_BUILD_ID_MAX + 1];
		size_t k;

		for (k = 0; k < m->build_id_len && k < VGL_BUILD_ID_MAX; k++)
			sprintf(hex + 2 * k, "%02x", m->build_id[k]);
		hex[2 * k] = 0;
		perftools__profiles__mapping__init(&maps[i]);
		maps[i].id = i + 1;
		maps[i].memory_start = m->lo;
		maps[i].memory_limit = m->hi;
		maps[i].filename = strtab_add(&st, m->path);
		maps[i].build_id = strtab_add(&st, hex);
		maps[i].has_functions = 1;
		maps[i].has_filenames = 1;
		maps[i].has_line_numbers = 1;
		mapp[i] = &maps[i];
		if (maps[i].filename < 0 || maps[i].build_id < 0)
			goto out;
	}
	for (i = 0; i < nf; i++) {
		const struct vgl_pfunc *fn = &fs[i];
		uint64_t bias = 0;

		perftools__profiles__function__init(&funcs[i]);
		funcs[i].id = i + 1;
		funcs[i].name = strtab_add(&st, fn->label);
		funcs[i].system_name = strtab_add(&st, fn->name);
		funcs[i].filename = strtab_add(&st, fn->file);
		funcs[i].start_line = fn->file ? fn->line : 0;
		if (funcs[i].name < 0 || funcs[i].system_name < 0 ||
		    funcs[i].filename < 0)
			goto out;
		funcp[i] = &funcs[i];

		perftools__profiles__line__init(&lines[i]);
		lines[i].function_id = i + 1;
		lines[i].line = funcs[i].start_line;
		linep[i] = &lines[i];

		perftools__profiles__location__init(&locs[i]);
		locs[i].id = i + 1;
		if (fn->module != VGL_PROFILE_NO_MODULE) {
			locs[i].mapping_id = fn->module + 1;
			bias = vgl_symbolizer_module_bias(sym, fn->module);
		}
		locs[i].address = fn->addr + bias;
		locs[i].n_line = 1;
		locs[i].line = &linep[i];
		locp[i] = &locs[i];
	}
	prof.n_sample_type = ntypes;
	prof.sample_type = vtp;
	prof.n_sample = sm->n;
	prof.sample = sm->v;
	prof.n_mapping = nm;
	prof.mapping = mapp;
	prof.n_location = nf;
	prof.location = locp;
	prof.n_function = nf;
	prof.function = funcp;
	prof.n_string_table = st.n;
	prof.string_table = st.v;
	prof.time_nanos = (int64_t)r->meta.start_ns;
	if (r->meta.end_ns > r->meta.start_ns)
		prof.duration_nanos = (int64_t)(r->meta.end_ns - r->meta.start_ns);
	prof.n_comment = ncomments;
	prof.comment = cidx;
	prof.period_type = vtp[period_type];
	prof.period = period;

	len = perftools__profiles__profile__get_packed_size(&prof);
	buf = malloc(len + 1);
	if (!buf)
		goto out;
	perftools__profiles__profile__pack(&prof, buf);
	err = write_gzip(buf, len, f);
out:
	free(cidx);
	free(buf);
	free(maps);
	free(mapp);
	free(locs);
	free(locp);
	free(lines);
	free(linep);
	free(funcs);
	free(funcp);
	strtab_free(&st);
	return err;
}

static void free_samples(struct samples *sm)
{
	size_t i;

	for (i = 0; i < sm->n; i++)
		free(sm->v[i]);
	free(sm->v);
}

/*
 * A counting profile: the stacks of views/unfold.c, a cycle of calls one
 * Function "<cycle N: ...>" without a mapping; comments say what the
 * stacks are and give each cycle's members with their exact calls.
 */
int out_pprof(const struct vgl_profile *p, FILE *f)
{
	static const struct vtype calls = { "calls", "count" };
	struct samples sm = { 0 };
	struct stacks s;
	char **comments = NULL;
	size_t i, n = 0;
	int err;

	err = stacks_build(&s, p);
	if (err)
		return err;
	err = stacks_walk(&s, add_sample, &sm);
	if (!err) {
		comments = calloc(s.ncycles + 1, sizeof(*comments));
		if (!comments || !(comments[n++] = strdup("vigil: " STACKS_NOTE)))
			err = -ENOMEM;
	}
	for (i = 0; !err && i < s.ncycles; i++) {
		char *m = stacks_cycle_members(&s, &s.cycles[i]);

		if (!m || asprintf(&comments[n], "%s %s", s.cycles[i].label,
				   m) < 0) {
			comments[n] = NULL;
			err = -ENOMEM;
		} else {
			n++;
		}
		free(m);
	}
	if (!err)
		err = write_profile(p->r, p->sym, s.frames, s.nframes, &sm,
				    &calls, 1, 0, 1, comments, n, f);
	for (i = 0; i < n; i++)
		free(comments[i]);
	free(comments);
	stacks_release(&s);
	free_samples(&sm);
	return err;
}

/*
 * A sampled profile: one sample per distinct chain, its values the
 * samples and the CPU time they stand for (samples times the sampling
 * period, 1 s / the frequency asked for), the period of cpu/nanoseconds,
 * as pprof's own CPU profiles have them.
 */
int out_pprof_sampled(const struct vgl_sprofile *sp, FILE *f)
{
	static const struct vtype types[2] = {
		{ "samples", "count" }, { "cpu", "nanoseconds" },
	};
	uint32_t hz = sp->r->stacks_head.frequency;
	int64_t period = hz ? (int64_t)(1000000000ull / hz) : 0;
	struct samples sm = { 0 };
	size_t i;
	int err = 0;

	for (i = 0; i < sp->nstacks; i++) {
		const struct vgl_sstack *st = &sp->stacks[i];
		PSample *s = new_sample(&sm, sp->chain + st->first, st->depth, 2);

		if (!s) {
			err = -ENOMEM;
			break;
		}
		s->value[0] = (int64_t)st->count;
		s->value[1] = (int64_t)st->count * period;
	}
	if (!err)
		err = write_profile(sp->r, sp->sym, sp->funcs, sp->nfuncs, &sm,
				    types, 2, 1, period, NULL, 0, f);
	free_samples(&sm);
	return err;
}
