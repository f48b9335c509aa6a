/*
 * cmd-report.c - `vigil report [--json] FILE`: the counted call edges,
 * symbolized, as a flat profile and a call graph for people, or as one JSON
 * object for programs.
 *
 * An edge in the file is (callee address, call-site return address).  The
 * caller is the function that contains site - 1 (the call instruction; the
 * return address itself may already be the next function), and the site's
 * file:line is that of site - 1 too.  Edges are then added up by
 * (caller, callee, site line), since several addresses map to one name.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "sortsum.h"
#include "symtab.h"
#include "vigil.h"

const char cmd_report_usage[] =
	"usage: vigil report [--json] FILE\n"
	"\n"
	"Prints the flat profile of FILE (each function's calls and share of\n"
	"all calls, most called first) and its call graph (for each function,\n"
	"its callers with the call site's file:line, and its callees).\n"
	"\n"
	"  --json   print one JSON object instead: file, state, exit_status,\n"
	"           pid, command, total_calls, lost_calls (calls tallied but\n"
	"           not attributed to an edge: disk full, or a signal handler\n"
	"           interrupting the runtime), functions [{name, module,\n"
	"           calls}] and edges [{caller, callee, site, count}]\n";

struct row {
	const char *caller;
	const char *callee;
	const char *module;     /* the callee's */
	char *site;             /* "file:line" (owned), or NULL */
	uint64_t count;
};

struct func {
	const char *name;
	const char *module;
	uint64_t calls;
};

static int strcmp0(const char *a, const char *b)
{
	if (!a || !b)
		return a ? 1 : b ? -1 : 0;
	return strcmp(a, b);
}

static void drop_row(void *rec)
{
	free(((struct row *)rec)->site);
}

static int cmp_row_key(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = strcmp(x->caller, y->caller);

	if (!c)
		c = strcmp(x->callee, y->callee);
	if (!c)
		c = strcmp0(x->module, y->module);
	if (!c)
		c = strcmp0(x->site, y->site);
	return c;
}

/* Most counted first; ties in name order, so the output is stable. */
static int cmp_row_count(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return cmp_row_key(a, b);
}

static int cmp_func_key(const void *a, const void *b)
{
	const struct func *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp0(x->module, y->module);
}

static int cmp_func_calls(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return cmp_func_key(a, b);
}

struct report {
	struct row *rows;
	size_t nrows;
	struct func *funcs;
	size_t nfuncs;
	uint64_t total;
};

static int build(struct report *rep, const struct vgl_reader *r,
		 struct vgl_symtab *st)
{
	size_t i;
	int err = 0;

	rep->total = r->total_calls;
	rep->rows = calloc(r->nedges ? r->nedges : 1, sizeof(*rep->rows));
	rep->funcs = calloc(r->nedges ? r->nedges : 1, sizeof(*rep->funcs));
	if (!rep->rows || !rep->funcs)
		return -ENOMEM;
	for (i = 0; i < r->nedges; i++) {
		const struct vgl_edge_info *e = &r->edges[i];
		struct row *row = &rep->rows[rep->nrows++];
		struct vgl_sym callee, site;

		err = vgl_symtab_lookup(st, e->callee_mod, e->callee, &callee);
		if (!err)
			err = vgl_symtab_lookup(st, e->site_mod,
						e->site ? e->site - 1 : 0, &site);
		if (err)
			goto out;
		row->caller = site.func;
		row->callee = callee.func;
		row->module = callee.module;
		row->count = e->count;
		if (site.file &&
		    asprintf(&row->site, "%s:%d", site.file, site.line) < 0) {
			row->site = NULL;
			err = -ENOMEM;
			goto out;
		}
	}
	rep->nrows = vgl_sort_sum(rep->rows, rep->nrows, sizeof(*rep->rows),
				  cmp_row_key, offsetof(struct row, count),
				  drop_row);
	qsort(rep->rows, rep->nrows, sizeof(*rep->rows), cmp_row_count);

	for (i = 0; i < rep->nrows; i++) {
		struct func *f = &rep->funcs[rep->nfuncs++];

		f->name = rep->rows[i].callee;
		f->module = rep->rows[i].module;
		f->calls = rep->rows[i].count;
	}
	rep->nfuncs = vgl_sort_sum(rep->funcs, rep->nfuncs, sizeof(*rep->funcs),
				   cmp_func_key, offsetof(struct func, calls),
				   NULL);
	qsort(rep->funcs, rep->nfuncs, sizeof(*rep->funcs), cmp_func_calls);
out:
	return err;
}

static void release(struct report *rep)
{
	size_t i;

	if (rep->rows)
		for (i = 0; i < rep->nrows; i++)
			free(rep->rows[i].site);
	free(rep->rows);
	free(rep->funcs);
}

static double percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_human(const struct report *rep, const struct vgl_reader *r,
			const char *path)
{
	char state[128];
	size_t i, j;

	printf("file: %s\n", path);
	printf("state: %s\n", vgl_reader_state(r, state, sizeof(state)));
	printf("total calls: %llu\n", (unsigned long long)rep->total);
	printf("\nFlat profile:\n\n");
	printf("%12s  %7s  %s\n", "calls", "%", "function");
	for (i = 0; i < rep->nfuncs; i++)
		printf("%12llu  %6.2f%%  %s\n",
		       (unsigned long long)rep->funcs[i].calls,
		       percent(rep->funcs[i].calls, rep->total),
		       rep->funcs[i].name);

	printf("\nCall graph:\n");
	for (i = 0; i < rep->nfuncs; i++) {
		const struct func *f = &rep->funcs[i];
		uint64_t sum;

		printf("\n%s (%llu calls)\n", f->name,
		       (unsigned long long)f->calls);
		printf("  called from:\n");
		/* Rows are in count order already. */
		for (j = 0; j < rep->nrows; j++) {
			const struct row *row = &rep->rows[j];

			if (strcmp(row->callee, f->name) ||
			    strcmp0(row->module, f->module))
				continue;
			printf("%12llu  %s  %s\n",
			       (unsigned long long)row->count, row->caller,
			       row->site ? row->site : "?");
		}
		/* Callees by name: rows of one (caller, callee) differ in
		 * site only, and are added up here. */
		sum = 0;
		for (j = 0; j < rep->nrows; j++)
			if (!strcmp(rep->rows[j].caller, f->name))
				sum++;
		if (!sum)
			continue;
		printf("  calls:\n");
		for (j = 0; j < rep->nrows; j++) {
			const struct row *row = &rep->rows[j];
			uint64_t total = 0;
			size_t k;
			int seen = 0;

			if (strcmp(row->caller, f->name))
				continue;
			for (k = 0; k < j && !seen; k++)
				seen = !strcmp(rep->rows[k].caller, f->name) &&
				       !strcmp(rep->rows[k].callee, row->callee);
			if (seen)
				continue;
			for (k = j; k < rep->nrows; k++)
				if (!strcmp(rep->rows[k].caller, f->name) &&
				    !strcmp(rep->rows[k].callee, row->callee))
					total = vgl_sat_add(total, rep->rows[k].count);
			printf("%12llu  %s\n", (unsigned long long)total,
			       row->callee);
		}
	}
}

static void print_json(const struct report *rep, const struct vgl_reader *r,
		       const char *path)
{
	size_t i;

	printf("{\"file\":");
	vgl_json_string(stdout, path);
	printf(",\"state\":");
	vgl_json_string(stdout, vgl_liveness_name(r->liveness));
	if (r->liveness == VGL_LIVENESS_FINISHED)
		printf(",\"exit_status\":%d", r->meta.exit_status);
	else
		printf(",\"exit_status\":null");
	printf(",\"pid\":%llu,\"command\":[", (unsigned long long)r->meta.pid);
	for (i = 0; i < r->argc; i++) {
		if (i)
			putchar(',');
		vgl_json_string(stdout, r->argv[i]);
	}
	printf("],\"total_calls\":%llu,\"lost_calls\":%llu,\"functions\":[",
	       (unsigned long long)rep->total,
	       (unsigned long long)r->meta.lost_calls);
	for (i = 0; i < rep->nfuncs; i++) {
		printf("%s{\"name\":", i ? "," : "");
		vgl_json_string(stdout, rep->funcs[i].name);
		printf(",\"module\":");
		vgl_json_string(stdout, rep->funcs[i].module);
		printf(",\"calls\":%llu}",
		       (unsigned long long)rep->funcs[i].calls);
	}
	printf("],\"edges\":[");
	for (i = 0; i < rep->nrows; i++) {
		printf("%s{\"caller\":", i ? "," : "");
		vgl_json_string(stdout, rep->rows[i].caller);
		printf(",\"callee\":");
		vgl_json_string(stdout, rep->rows[i].callee);
		printf(",\"site\":");
		vgl_json_string(stdout, rep->rows[i].site);
		printf(",\"count\":%llu}", (unsigned long long)rep->rows[i].count);
	}
	printf("]}\n");
}

int cmd_report(int argc, char **argv)
{
	struct vgl_reader r;
	struct vgl_symtab st;
	struct report rep = { 0 };
	int json = 0, status = 0, err, nfiles;
	const struct option_spec specs[] = {
		{ "--json", NULL, &json },
		{ NULL, NULL, NULL },
	};
	char *files[argc];
	const char *path;

	if (parse_options("report", argc, argv, specs, files, &nfiles))
		return EXIT_USAGE;
	path = one_operand("report", files, nfiles);
	if (!path)
		return EXIT_USAGE;
	if (vgl_reader_open(&r, path) < 0)
		return file_error(&r, path);
	err = vgl_symtab_init(&st, &r);
	if (!err) {
		err = build(&rep, &r, &st);
		if (!err && json)
			print_json(&rep, &r, path);
		else if (!err)
			print_human(&rep, &r, path);
		release(&rep);
		vgl_symtab_release(&st);
	}
	if (err) {
		fprintf(stderr, "vigil: %s: %s\n", path, strerror(-err));
		status = EXIT_BAD_FILE;
	}
	vgl_reader_close(&r);
	return status;
}
