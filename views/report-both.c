/*
 * report-both.c - `vigil report COUNTING.vgl SAMPLED.vgl`: calls beside
 * time.  The counting profile gives each function's exact calls, the
 * sampled one (of the same program) its self and total stack samples;
 * a function is the same in both when its module is (the same build-id,
 * else the same base name) and it starts at the same ELF address (names
 * alone would merge two `static helper`).  Time per call is the total samples times the
 * sampling period over the calls: the time a call takes, callees
 * included, on average.  A copy of a function inlined into others has
 * samples and no calls of its own: it is marked inlined, with its hosts
 * and their calls (inlined.h), not given 0 calls.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlined.h"
#include "json.h"
#include "out.h"
#include "report-both.h"
#include "report-sampled.h"
#include "text.h"

struct both {
	const struct vgl_pfunc *fn;    /* the counting one, else the sampled */
	const struct vgl_module_info *mod;   /* fn's, or NULL */
	uint64_t calls, self, total;
	size_t sampled;                /* the sampled function, or SIZE_MAX */
};

/* fn's module in the file r, or NULL. */
static const struct vgl_module_info *module_of(const struct vgl_reader *r,
					       const struct vgl_pfunc *fn)
{
	return fn->module < r->nmodules ? &r->modules[fn->module] : NULL;
}

/*
 * Which function: its module, then its ELF address.  A module is known in
 * both files by its build-id: the runtime names a library by the name
 * the loader loaded it by (libspin.so.1, its soname), the sampler as
 * /proc/PID/maps does, by the file that name leads to (libspin.so.1.0),
 * so base names told the two apart.  Without a build-id, the base name.
 */
static int cmp_key(const struct both *x, const struct both *y)
{
	const struct vgl_module_info *a = x->mod, *b = y->mod;
	int ha = a && a->build_id_len, hb = b && b->build_id_len, c;

	if (ha != hb)
		return hb - ha;
	if (ha) {
		if (a->build_id_len != b->build_id_len)
			return a->build_id_len < b->build_id_len ? -1 : 1;
		c = memcmp(a->build_id, b->build_id, a->build_id_len);
	} else {
		c = strcmp(x->fn->module_name ? x->fn->module_name : "",
			   y->fn->module_name ? y->fn->module_name : "");
	}
	if (c)
		return c;
	return x->fn->addr < y->fn->addr ? -1 : x->fn->addr > y->fn->addr;
}

static int cmp_both_key(const void *a, const void *b)
{
	const struct both *x = a, *y = b;
	int c = cmp_key(x, y);

	/* The counting entry first, so the sampled one joins it. */
	return c ? c : (x->calls < y->calls) - (x->calls > y->calls);
}

static int sort_by;     /* qsort has no argument: 0 self, 1 total, 2 calls */

static int cmp_rank(const void *a, const void *b)
{
	const struct both *x = a, *y = b;
	uint64_t kx[3] = { x->self, x->total, x->calls };
	uint64_t ky[3] = { y->self, y->total, y->calls };
	int i, order[3][3] = { { 0, 1, 2 }, { 1, 0, 2 }, { 2, 0, 1 } };

	for (i = 0; i < 3; i++) {
		int k = order[sort_by][i];

		if (kx[k] != ky[k])
			return kx[k] > ky[k] ? -1 : 1;
	}
	return strcmp(x->fn->label, y->fn->label);
}

/* "850ns", "1.20us", "3.40ms", "2.00s"; "-" without calls or samples. */
static void per_call(char *buf, size_t len, const struct both *b,
		     uint64_t period_ns)
{
	double ns;

	if (!b->calls || !period_ns) {
		snprintf(buf, len, "-");
		return;
	}
	ns = (double)b->total * (double)period_ns / (double)b->calls;
	if (ns < 1000)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.2fus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
}

/* What the rows print: the profiles, the rows, and for the inlined
 * copies their hosts and every sampled function's calls. */
struct both_rows {
	const struct out_input *c, *s;
	uint64_t period_ns;
	struct both *v;
	size_t n;
	struct inlined_hosts hosts;
	uint64_t *calls;               /* of sampled function i; 0: none */
};

/* An inlined copy (inlined.h): its row says so instead of 0 calls. */
static int is_copy(const struct both *b)
{
	return b->sampled != SIZE_MAX && !b->calls && b->fn->inlined_copy;
}

/* A function that ran but that the counting profile has no calls of: it
 * was built without vigil's flags (another library, a file compiled
 * without them), so its calls are unknown, which is not 0. */
static int not_counted(const struct both *b)
{
	return !b->calls && !is_copy(b);
}

static void print_json(const struct both_rows *b)
{
	const struct vgl_sprofile *sp = &b->s->sp;
	uint64_t period_ns = b->period_ns;
	const struct both *v = b->v;
	struct vgl_json j;
	size_t i, h;

	vgl_json_init(&j, stdout);
	vgl_json_begin_object(&j, NULL);
	vgl_json_u64(&j, "schema_version", 3);
	vgl_json_str(&j, "counting_file", b->c->path);
	vgl_json_str(&j, "sampled_file", b->s->path);
	vgl_json_u64(&j, "total_calls", b->c->p.total_calls);
	vgl_json_u64(&j, "stack_samples", sp->samples);
	vgl_json_u64(&j, "period_ns", period_ns);
	vgl_json_begin_array(&j, "functions");
	for (i = 0; i < b->n; i++) {
		vgl_json_begin_object(&j, NULL);
		vgl_json_str(&j, "label", v[i].fn->label);
		vgl_json_str(&j, "module", v[i].fn->module_name);
		vgl_json_hex(&j, "address", v[i].fn->addr);
		/* An inlined copy's calls are not counted, which is not 0;
		 * nor are an uncounted function's. */
		if (is_copy(&v[i]) || not_counted(&v[i]))
			vgl_json_null(&j, "calls");
		else
			vgl_json_u64(&j, "calls", v[i].calls);
		vgl_json_u64(&j, "self_samples", v[i].self);
		vgl_json_u64(&j, "total_samples", v[i].total);
		if (v[i].calls && period_ns)
			vgl_json_u64(&j, "total_ns_per_call",
				     (uint64_t)((double)v[i].total *
						(double)period_ns /
						(double)v[i].calls + 0.5));
		else
			vgl_json_null(&j, "total_ns_per_call");
		if (is_copy(&v[i])) {
			vgl_json_begin_array(&j, "inlined_into");
			for (h = b->hosts.first[v[i].sampled];
			     h < b->hosts.first[v[i].sampled + 1]; h++) {
				uint32_t g = b->hosts.v[h].host;

				vgl_json_begin_object(&j, NULL);
				vgl_json_str(&j, "function", sp->funcs[g].label);
				if (b->calls[g])
					vgl_json_u64(&j, "calls", b->calls[g]);
				else
					vgl_json_null(&j, "calls");
				vgl_json_u64(&j, "samples", b->hosts.v[h].samples);
				vgl_json_end_object(&j);
			}
			vgl_json_end_array(&j);
		}
		vgl_json_end_object(&j);
	}
	vgl_json_end_array(&j);
	vgl_json_end_object(&j);
	putchar('\n');
}

static int print_text(const struct both_rows *b)
{
	const struct vgl_sprofile *sp = &b->s->sp;
	uint64_t samples = sp->samples;
	size_t i, copies = 0, uncounted = 0;

	fputs("counting: ", stdout);
	vgl_text_line(stdout, b->c->path);
	printf(" (%" PRIu64 " calls)\nsampled: ", b->c->p.total_calls);
	vgl_text_line(stdout, b->s->path);
	printf(" (%" PRIu64 " stack samples, every %" PRIu64 " ns)\n\n",
	       samples, b->period_ns);
	printf("%12s  %7s  %7s  %10s  %s\n", "calls", "self %", "total %",
	       "time/call", "function");
	for (i = 0; i < b->n; i++) {
		const struct both *r = &b->v[i];
		char t[32];

		per_call(t, sizeof(t), r, b->period_ns);
		if (is_copy(r))
			printf("%12s", "inlined");
		else if (not_counted(r))
			printf("%12s", "not counted"), uncounted++;
		else
			printf("%12" PRIu64, r->calls);
		printf("  %6.2f%%  %6.2f%%  %10s  ",
		       samples ? 100.0 * (double)r->self / (double)samples : 0.0,
		       samples ? 100.0 * (double)r->total / (double)samples : 0.0,
		       t);
		vgl_text_line(stdout, r->fn->label);
		if (is_copy(r)) {
			char *note = inlined_note(&b->hosts, sp,
						  (uint32_t)r->sampled, b->calls);

			if (!note)
				return -ENOMEM;
			fputs("  [", stdout);
			vgl_text_line(stdout, note);
			putchar(']');
			free(note);
			copies++;
		}
		putchar('\n');
	}
	printf("\ncalls: exact, from the counting profile; self %% and total %%: the\n"
	       "stack samples that found the function running, or on the stack;\n"
	       "time/call: its total samples times the period over its calls.\n");
	/* Entry mode: a copy's calls are nowhere; enter/exit mode counts
	 * them as the function's own, on its row. */
	if (copies)
		printf("inlined: its code ran inlined into the functions in brackets, shown\n"
		       "with their exact calls; %s.\n",
		       vgl_reader_modes(&b->c->r) == VGL_META_MODE_ENTRY ?
		       "an inlined copy makes no call of its own (the\n"
		       "entry mode counts real calls only)" :
		       "the calls counted in its inlined copies are on\n"
		       "the function's own row");
	if (uncounted)
		printf("not counted: built without vigil's flags (another library, or a\n"
		       "file compiled without them): its calls are unknown, not 0.\n");
	report_hook_share(sp, samples);
	return 0;
}

/* The rows: the counting profile's called functions and the sampled
 * one's, a function in both joined into one row. */
static int join(struct both_rows *b)
{
	const struct vgl_profile *p = &b->c->p;
	const struct vgl_sprofile *sp = &b->s->sp;
	struct both *v;
	size_t i, n = 0, k;

	v = calloc(p->nfuncs + sp->nfuncs + 1, sizeof(*v));
	b->calls = calloc(sp->nfuncs + 1, sizeof(*b->calls));
	if (!v || !b->calls) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < p->ncalled; i++)
		v[n++] = (struct both){ &p->funcs[i],
					module_of(&b->c->r, &p->funcs[i]),
					p->funcs[i].calls, 0, 0, SIZE_MAX };
	for (i = 0; i < sp->nfuncs; i++)
		if (sp->total[i])
			v[n++] = (struct both){ &sp->funcs[i],
						module_of(&b->s->r, &sp->funcs[i]),
						0, sp->self[i], sp->total[i], i };
	qsort(v, n, sizeof(*v), cmp_both_key);
	/* A sampled entry right after the counting one of the same key
	 * joins it. */
	for (i = 0, k = 0; i < n; i++) {
		if (k && !cmp_key(&v[k - 1], &v[i]) && !v[i].calls &&
		    !v[k - 1].self && !v[k - 1].total) {
			v[k - 1].self = v[i].self;
			v[k - 1].total = v[i].total;
			v[k - 1].sampled = v[i].sampled;
			continue;
		}
		v[k++] = v[i];
	}
	for (i = 0; i < k; i++)
		if (v[i].sampled != SIZE_MAX)
			b->calls[v[i].sampled] = v[i].calls;
	b->v = v;
	b->n = k;
	return 0;
}

int report_both(const struct out_input *c, const struct out_input *s,
		const char *sort, size_t top, int json)
{
	uint32_t hz = s->r.stacks_head.frequency;
	struct both_rows b = { c, s, hz ? 1000000000ull / hz : 0, NULL, 0,
			       { NULL, NULL }, NULL };
	int err;

	sort_by = !strcmp(sort, "total") ? 1 : !strcmp(sort, "calls") ? 2 : 0;
	err = join(&b);
	if (!err)
		err = inlined_hosts_build(&b.hosts, &s->sp);
	if (err)
		goto out;
	qsort(b.v, b.n, sizeof(*b.v), cmp_rank);
	if (top && top < b.n)
		b.n = top;
	if (json)
		print_json(&b);
	else
		err = print_text(&b);
out:
	inlined_hosts_release(&b.hosts);
	free(b.calls);
	free(b.v);
	if (err)
		return err;
	return ferror(stdout) ? -EIO : 0;
}

/* A counting function and its index, for report_both_match's search. */
struct keyed {
	struct both b;
	uint32_t index;
};

static int cmp_keyed(const void *a, const void *b)
{
	return cmp_key(&((const struct keyed *)a)->b,
		       &((const struct keyed *)b)->b);
}

/*
 * The join of report_both for a view that keeps both models: a sorted
 * copy of c's functions searched once per function of s, by the same
 * key (module by build-id, else base name; then address).
 */
uint32_t *report_both_match(const struct out_input *c,
			    const struct out_input *s)
{
	const struct vgl_profile *p = &c->p;
	const struct vgl_sprofile *sp = &s->sp;
	struct keyed *v = malloc((p->nfuncs + 1) * sizeof(*v));
	uint32_t *match = malloc((sp->nfuncs + 1) * sizeof(*match));
	size_t i;

	if (!v || !match) {
		free(v);
		free(match);
		return NULL;
	}
	for (i = 0; i < p->nfuncs; i++) {
		v[i].b = (struct both){ &p->funcs[i],
					module_of(&c->r, &p->funcs[i]),
					0, 0, 0, SIZE_MAX };
		v[i].index = (uint32_t)i;
	}
	qsort(v, p->nfuncs, sizeof(*v), cmp_keyed);
	for (i = 0; i < sp->nfuncs; i++) {
		struct keyed key = { { &sp->funcs[i],
				       module_of(&s->r, &sp->funcs[i]),
				       0, 0, 0, i }, 0 };
		const struct keyed *hit = p->nfuncs ?
			bsearch(&key, v, p->nfuncs, sizeof(*v), cmp_keyed) :
			NULL;

		match[i] = hit ? hit->index : VGL_PROFILE_NONE;
	}
	free(v);
	return match;
}
