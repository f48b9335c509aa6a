/*
 * cmd-report.c - `vigil report [--json] [--top N] [--function NAME] FILE`:
 * the counted call edges, symbolized, as a flat profile and a call graph
 * for people, or as one JSON object for programs (schema in
 * docs/report-json.md).
 *
 * Everything comes from the profile model (lib/profile.h), which
 * identifies functions by module and address and lays out the calls into
 * and out of each function once; this file only prints, so its cost is
 * linear in what it prints.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "by.h"
#include "profile-dir.h"
#include "json.h"
#include "message.h"
#include "profile.h"
#include "report-both.h"
#include "report-sampled.h"
#include "symbolizer.h"
#include "text.h"
#include "profile-head.h"
#include "cli.h"
#include "out.h"

const char cmd_report_usage[] =
	"usage: vigil report [--json] [--top N] [--no-inlined] [--function NAME] FILE\n"
	"       vigil report --by thread|module FILE\n"
	"       vigil report [--json] [--top N] [--sort calls|self|total] COUNTING SAMPLED\n"
	"       vigil report [--json] [--top N] [--sort calls|self|total] DIR\n"
	"       vigil report --output FORMAT [-o OUT] FILE\n"
	"\n"
	"Prints the flat profile of FILE (each function's calls and share of\n"
	"all calls, most called first) and its call graph (for each function,\n"
	"its callers with the call site's file:line, and its callees).\n"
	"Functions are told apart by module and address: where two have the\n"
	"same name, each is shown with its source file, as \"helper (a.c)\"\n"
	"(its module without debug info), and where that is the same too,\n"
	"with its address, as \"twice (h.h, prog+0x1139)\".\n"
	"A call counted in an inlined copy of a function is shown with its\n"
	"host, as \"(inlined in HOST)\": the call instruction at the site\n"
	"(decoded with capstone) calls HOST, or, at an indirect call, HOST's\n"
	"DWARF holds the inlined copy.  A function counted in inlined copies is\n"
	"marked in the flat profile and its call graph entry: \"[inlined only,\n"
	"in H hosts]\" when it was never called itself, \"[N calls, M in inlined\n"
	"copies in H hosts]\" when it was called too.\n"
	"\n"
	"  --json           print one JSON object instead (its schema is in\n"
	"                   docs/report-json.md): file, state, exit_status,\n"
	"                   pid, command, total_calls, lost_calls (calls\n"
	"                   tallied but not attributed to an edge), modules,\n"
	"                   threads, functions and edges\n"
	"  --output FORMAT  write FORMAT instead, as `vigil convert FILE --to\n"
	"                   FORMAT [-o OUT]` does: text (the default), json,\n"
	"                   callgrind, folded, fdata, pprof\n"
	"  COUNTING SAMPLED a counting and a sampled profile of one program (in\n"
	"                   either order): each function's exact calls beside\n"
	"                   its self and total share of the stack samples and\n"
	"                   its time per call (total samples times the period\n"
	"                   over the calls), by self share or as --sort says;\n"
	"                   code inlined into other functions, \"NAME\n"
	"                   (inlined)\" in the stacks, makes no call of its\n"
	"                   own: it reads \"inlined\" in the calls column, with\n"
	"                   its hosts and their calls (JSON: calls null,\n"
	"                   inlined_into)\n"
	"  --by thread      calls (a sampled file: stack samples) per thread,\n"
	"                   most first, with each thread's most called function\n"
	"  --by module      calls per module of the called function (sampled:\n"
	"                   the samples per module of the running function)\n"
	"  --no-inlined     leave the functions that were only ever inlined out\n"
	"                   of the flat profile and the call graph, and say how\n"
	"                   many and how many calls\n"
	"  --top N          only the N most called functions, then a line\n"
	"                   saying how many functions and call edges were left\n"
	"                   out\n"
	"  --function NAME  only the call graph entry of the function(s) named\n"
	"                   NAME (a name, or a label such as \"helper (a.c)\");\n"
	"                   of a sampled file, its self and total samples and,\n"
	"                   by samples, its callers and callees\n"
	"\n"
	"A sampled file (vigil attach -o) is reported as its per-thread CPU\n"
	"over the run, its memory over the run (min, max, last) and its top\n"
	"functions by self and total stack samples (--top N of them); with\n"
	"--json, under the key \"sampled\"; with --output FORMAT, in that\n"
	"format as `vigil convert` writes sampled files.\n"
	"\n"
	"A directory DIR (vigil run -o DIR) is reported profile by profile:\n"
	"its *.vgl files in name order, text reports separated by a blank\n"
	"line, JSON one document per line.  A program with both kinds there,\n"
	"NAME.vgl (counted) and NAME.sampled.vgl (its stacks: vigil run --scan\n"
	"stacks), is reported once, calls beside time as for COUNTING SAMPLED,\n"
	"in NAME.vgl's place (not with --by, --function or --no-inlined).\n"
	"\n"
	"Control characters in names, paths and command lines are shown as C\n"
	"escapes (\\x1b, \\t; a backslash as \\\\); --function takes a name as\n"
	"it is or as shown.\n";

static double percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* A name of the program's (a function, a file) as report prints it:
 * control bytes as C escapes (text.h), never raw to the terminal. */
static void put_name(const char *s)
{
	vgl_text_line(stdout, s);
}

/* The mark after a function counted in inlined copies (explained by
 * legend[]); nothing for others.  Returns whether it printed one. */
static int print_inlined(const struct vgl_pfunc *fn)
{
	unsigned h = fn->inlined_hosts;

	if (!fn->inlined_calls)
		return 0;
	if (vgl_pfunc_inlined_only(fn))
		printf("  [inlined only, in %u host%s]", h, h == 1 ? "" : "s");
	else
		printf("  [%llu calls, %llu in inlined copies in %u host%s]",
		       (unsigned long long)(fn->calls - fn->inlined_calls),
		       (unsigned long long)fn->inlined_calls, h,
		       h == 1 ? "" : "s");
	return 1;
}

static const char legend[] =
	"[inlined only]: every call counted was in a copy inlined in another\n"
	"function (GCC and Clang instrument those too); the function itself was\n"
	"never called (--no-inlined leaves it out).  [N calls, M in inlined\n"
	"copies]: N real calls, and M counted in inlined copies.\n";

/* Prints funcs[f]'s entry of the call graph; returns the call rows
 * (caller, callee, site line) it printed. */
static size_t print_entry(const struct vgl_profile *p, size_t f)
{
	const struct vgl_pfunc *fn = &p->funcs[f];
	size_t k, rows = 0;

	putchar('\n');
	put_name(fn->label);
	printf(" (%llu calls)", (unsigned long long)fn->calls);
	print_inlined(fn);
	putchar('\n');
	printf("  called from:\n");
	for (k = p->into_first[f]; k < p->into_first[f + 1]; k++) {
		const struct vgl_pcall *c = &p->calls[p->into[k]];

		printf("%12llu  ", (unsigned long long)c->calls);
		put_name(p->funcs[c->caller].label);
		fputs("  ", stdout);
		if (c->site_file) {
			put_name(c->site_file);
			printf(":%d", c->site_line);
		} else {
			putchar('?');
		}
		if (c->inlined_in != VGL_PROFILE_NONE) {
			fputs("  (inlined in ", stdout);
			put_name(p->funcs[c->inlined_in].label);
			putchar(')');
		}
		putchar('\n');
		rows++;
	}
	if (p->callees_first[f] == p->callees_first[f + 1])
		return rows;
	printf("  calls:\n");
	for (k = p->callees_first[f]; k < p->callees_first[f + 1]; k++) {
		const struct vgl_pcallee *ce = &p->callees[k];

		printf("%12llu  ", (unsigned long long)ce->calls);
		put_name(p->funcs[ce->callee].label);
		if (ce->inlined_in != VGL_PROFILE_NONE) {
			fputs(" (inlined in ", stdout);
			put_name(p->funcs[ce->inlined_in].label);
			putchar(')');
		}
		putchar('\n');
	}
	return rows;
}

static void print_head(const struct vgl_profile *p, const char *path)
{
	print_file(path);
	print_state(p->r);
	printf("total calls: %llu\n", (unsigned long long)p->total_calls);
	if (vgl_reader_modes(p->r))
		printf("mode: %s\n", vgl_mode_name(vgl_reader_modes(p->r)));
}

/*
 * The flat profile and the call graph of the top functions: the called
 * ones, most called first, without the inlined-only ones when
 * no_inlined, at most top of them when limited.
 */
static int print_human(const struct vgl_profile *p, const char *path,
		       size_t top, int limited, int no_inlined)
{
	size_t i, n = 0, shown, rows = 0, *idx, out = 0, marked = 0;
	uint64_t out_calls = 0;

	idx = malloc((p->ncalled + 1) * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (i = 0; i < p->ncalled; i++) {
		if (no_inlined && vgl_pfunc_inlined_only(&p->funcs[i])) {
			out++;
			out_calls += p->funcs[i].calls;
			continue;
		}
		idx[n++] = i;
	}
	shown = limited && top < n ? top : n;
	print_head(p, path);
	printf("\nFlat profile:\n\n");
	printf("%12s  %7s  %s\n", "calls", "%", "function");
	for (i = 0; i < shown; i++) {
		const struct vgl_pfunc *fn = &p->funcs[idx[i]];

		printf("%12llu  %6.2f%%  ", (unsigned long long)fn->calls,
		       percent(fn->calls, p->total_calls));
		put_name(fn->label);
		marked += print_inlined(fn);
		putchar('\n');
	}
	if (marked)
		printf("\n%s", legend);

	printf("\nCall graph:\n");
	for (i = 0; i < shown; i++)
		rows += print_entry(p, idx[i]);
	if (limited)
		printf("\nfolded away: %zu of %zu functions, %zu of %zu call edges (--top %zu)\n",
		       n - shown, n, p->ncalls - rows, p->ncalls, top);
	if (no_inlined)
		printf("%sleft out: %zu inlined-only function%s, %llu calls (--no-inlined)\n",
		       limited ? "" : "\n", out, out == 1 ? "" : "s",
		       (unsigned long long)out_calls);
	free(idx);
	return 0;
}

/* The entries of every function named (or labelled) name; 0 if none. */
static size_t print_function(const struct vgl_profile *p, const char *path,
			     const char *name)
{
	size_t i, found = 0, called = 0, rows = 0;

	for (i = 0; i < p->nfuncs; i++) {
		const struct vgl_pfunc *f = &p->funcs[i];

		if (!report_function_named(f, name))
			continue;
		called += f->calls != 0;
		if (!found++) {
			print_head(p, path);
			printf("\nCall graph:\n");
		}
		rows += print_entry(p, i);
	}
	if (found)
		printf("\nfolded away: %zu of %zu functions, %zu of %zu call edges (--function)\n",
		       p->ncalled - called, p->ncalled, p->ncalls - rows, p->ncalls);
	return found;
}

static void print_json(const struct vgl_profile *p, const char *path)
{
	report_json(p, path, stdout);
}

/* report COUNTING SAMPLED (either order). */
static int report_two(char **files, const char *sort, size_t top, int json)
{
	struct out_input in[2];
	int status, err, c;

	status = out_input_open(&in[0], files[0], 1);
	if (status)
		return status;
	status = out_input_open(&in[1], files[1], 1);
	if (status) {
		out_input_close(&in[0]);
		return status;
	}
	c = in[0].sampled ? 1 : 0;
	if (in[c].sampled || !in[1 - c].sampled) {
		vgl_error("%s, %s: both are %s profiles; two files are read as one counting and one sampled profile of a program, side by side ('vigil merge' adds up profiles of one kind)",
			files[0], files[1],
			in[c].sampled ? "sampled" : "counting");
		status = EXIT_USAGE;
	} else {
		err = report_both(&in[c], &in[1 - c], sort, top, json);
		if (err) {
			vgl_error("%s: %s", files[0], strerror(-err));
			status = EXIT_BAD_FILE;
		}
	}
	out_input_close(&in[0]);
	out_input_close(&in[1]);
	return status;
}

/* The report of one profile, text or JSON; returns the exit status. */
static int report_one(const char *path, int json, size_t top, int top_given,
		      const char *function, int no_inlined, const char *by)
{
	struct vgl_reader r;
	struct vgl_symbolizer *sym = NULL;
	struct vgl_profile p;
	int status = 0, err;

	if (vgl_reader_open(&r, path) < 0)
		return file_error(&r, path);
	err = vgl_symbolizer_from_reader(&sym, &r);
	if (!err)
		err = vgl_profile_build(&p, &r, sym);
	if (!err) {
		if (by) {
			if (r.meta.kind == VGL_KIND_SAMPLED) {
				print_file(path);
				print_state(&r);
			} else {
				print_head(&p, path);
			}
			err = by_print(&p, by);
		} else if (json)
			print_json(&p, path);
		else if (r.meta.kind == VGL_KIND_SAMPLED && !function) {
			/* No calls are counted in a sampled file. */
			print_file(path);
			print_state(&r);
			report_sampled_text(&r, sym, top);
		} else if (r.meta.kind == VGL_KIND_SAMPLED) {
			err = report_sampled_function(&r, sym, path, function);
			if (err == -ENOENT) {
				vgl_error("%s: no function named '%s'",
					path, function);
				status = EXIT_BAD_FILE;
				err = 0;
			}
		}
		else if (function && !print_function(&p, path, function)) {
			vgl_error("%s: no function named '%s'",
				path, function);
			status = EXIT_BAD_FILE;
		} else if (!function)
			err = print_human(&p, path, top, top_given,
					  no_inlined);
		vgl_profile_release(&p);
	}
	if (err) {
		vgl_error("%s: %s", path, strerror(-err));
		status = EXIT_BAD_FILE;
	}
	vgl_symbolizer_free(sym);
	vgl_reader_close(&r);
	return status;
}

/* The index of NAME.sampled.vgl among names[0..n) for NAME.vgl, or -1:
 * the stacks `vigil run --scan stacks` wrote for the program whose
 * counting profile NAME.vgl is. */
static long sampled_twin(char **names, size_t n, const char *name)
{
	size_t len = strlen(name) - 4, i;

	for (i = 0; i < n; i++)
		if (!strncmp(names[i], name, len) &&
		    !strcmp(names[i] + len, ".sampled.vgl"))
			return (long)i;
	return -1;
}

/*
 * vigil report DIR: a `vigil run -o DIR` directory (or any directory of
 * profiles) is reported profile by profile, its *.vgl files in name
 * order (profile-dir.c), text reports separated by a blank line, JSON one
 * document per line.  A program with both kinds (NAME.vgl counted,
 * NAME.sampled.vgl its stacks, as `vigil run --scan stacks` writes them)
 * is reported once, calls beside time (report_two), in NAME.vgl's place,
 * unless --by, --function or --no-inlined asks for the reports of single
 * profiles.
 */
static int report_dir(const char *dir, int json, size_t top, int top_given,
		      const char *function, int no_inlined, const char *by,
		      const char *sort)
{
	char **names;
	size_t n, total, i;
	int status = 0, shown = 0, pairs = 0, st, pair, err;
	char *taken;
	long *twin_of;

	if ((err = profile_dir_list(dir, &names, &n)) < 0) {
		vgl_error("%s: %s", dir, strerror(-err));
		return EXIT_BAD_FILE;
	}
	total = n;
	pair = !by && !function && !no_inlined;
	/* twin_of[i]: 1 + the index of NAME.vgl's NAME.sampled.vgl, which is
	 * then taken (it may come first in name order). */
	twin_of = calloc(n + 1, sizeof(*twin_of));
	taken = calloc(n + 1, 1);
	if (!taken || !twin_of) {
		vgl_error("%s: %s", dir, strerror(ENOMEM));
		free(taken);
		free(twin_of);
		profile_dir_free(names, n);
		return EXIT_BAD_FILE;
	}
	for (i = 0; pair && i < n; i++) {
		long t = sampled_twin(names, n, names[i]);

		if (t >= 0 && (size_t)t != i && !taken[i]) {
			twin_of[i] = t + 1;
			taken[t] = 1;
			pairs++;
		}
	}
	if (sort && !pairs && n) {
		vgl_error("%s: no program with both a counting and a sampled profile (NAME.vgl, NAME.sampled.vgl): --sort goes with them",
			dir);
		status = EXIT_USAGE;
		n = 0;
	}
	for (i = 0; i < n; i++) {
		char *path = NULL, *twin = NULL;
		long t = twin_of[i] - 1;

		if (taken[i] || asprintf(&path, "%s/%s", dir, names[i]) < 0)
			continue;
		if (t >= 0 && asprintf(&twin, "%s/%s", dir, names[t]) < 0)
			twin = NULL;
		if (shown++ && !json)
			putchar('\n');
		fflush(stdout);
		if (twin) {
			char *two[2] = { path, twin };

			st = report_two(two, sort ? sort : "self", top, json);
		} else {
			st = report_one(path, json, top, top_given, function,
					no_inlined, by);
		}
		fflush(stdout);
		if (st)
			status = st;
		free(path);
		free(twin);
	}
	profile_dir_free(names, total);
	free(taken);
	free(twin_of);
	if (!shown && !status) {
		profile_dir_none(dir);
		return EXIT_BAD_FILE;
	}
	return status;
}

int cmd_report(int argc, char **argv)
{
	int json = 0, nfiles, no_inlined = 0;
	const char *top_arg = NULL, *function = NULL, *output = NULL;
	const char *out = NULL, *by = NULL, *sort = NULL;
	const struct option_spec specs[] = {
		{ "--by", &by, NULL },
		{ "--sort", &sort, NULL },
		{ "--json", NULL, &json },
		{ "--top", &top_arg, NULL },
		{ "--function", &function, NULL },
		{ "--no-inlined", NULL, &no_inlined },
		{ "--output", &output, NULL },
		{ "-o", &out, NULL },
		{ NULL, NULL, NULL },
	};
	char *files[argc];
	const char *path;
	size_t top = 0;

	if (parse_options("report", argc, argv, specs, files, &nfiles))
		return EXIT_USAGE;
	if (top_arg) {
		char *end;

		errno = 0;
		top = strtoul(top_arg, &end, 10);
		if (errno || end == top_arg || *end || top_arg[0] == '-')
			return usage_error("report", "--top needs a number, not '%s'",
					   top_arg);
	}
	if (json && (top_arg || function || no_inlined))
		return usage_error("report", "--top, --function and --no-inlined apply to the text report, not --json");
	if (top_arg && function)
		return usage_error("report", "give --top or --function, not both");
	if (by && strcmp(by, "thread") && strcmp(by, "module"))
		return usage_error("report", "--by takes thread or module, not '%s'", by);
	if (by && (json || top_arg || function || no_inlined || output))
		return usage_error("report", "--by is a report of its own: not with --json, --top, --function, --no-inlined or --output");
	if (output && !strcmp(output, "text"))
		output = NULL;
	if (output && (json || top_arg || function || no_inlined))
		return usage_error("report", "--output writes a whole format: not with --json, --top, --function or --no-inlined");
	if (out && !output)
		return usage_error("report", "-o goes with --output FORMAT");
	if (sort && strcmp(sort, "calls") && strcmp(sort, "self") &&
	    strcmp(sort, "total"))
		return usage_error("report", "--sort takes calls, self or total, not '%s'", sort);
	if (nfiles == 2 && !by && !function && !output && !no_inlined)
		return report_two(files, sort ? sort : "self", top, json);
	path = one_operand("report", files, nfiles);
	if (!path)
		return EXIT_USAGE;
	if (sort && (!profile_dir_is(path) || by || function || no_inlined || output))
		return usage_error("report", "--sort goes with a counting and a sampled profile, or a directory of both");
	if (output && profile_dir_is(path)) {
		vgl_error("%s: is a directory; --output writes one profile: give one of its files",
			path);
		return EXIT_BAD_FILE;
	}
	if (output)
		return convert_to("report", path, output, out, NULL);
	if (profile_dir_is(path))
		return report_dir(path, json, top, top_arg != NULL, function,
				  no_inlined, by, sort);
	return report_one(path, json, top, top_arg != NULL, function,
			  no_inlined, by);
}
