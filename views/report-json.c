/*
 * report-json.c - the JSON object of `vigil report --json` and `vigil
 * convert --to json` (docs/report-json.md): one object for a counting
 * profile, with a sampled file's samples and stacks under "sampled".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "out.h"
#include "profile.h"
#include "report-sampled.h"
#include "symbolizer.h"

/* "merged": how many processes a merge holds and how they ended (its
 * PROCESSES section); null for the profile of one process. */
static void report_json_merged(struct vgl_json *j, const struct vgl_reader *r)
{
	uint64_t cut = 0, running = 0;
	size_t i;

	if (!r->has_processes) {
		vgl_json_null(j, "merged");
		return;
	}
	vgl_json_begin_object(j, "merged");
	vgl_json_u64(j, "processes", r->processes);
	vgl_json_begin_array(j, "exit_statuses");
	for (i = 0; i < r->nendings; i++) {
		const struct vgl_ending *e = &r->endings[i];

		if (e->state == VGL_STATE_CUT_SHORT) {
			cut += e->processes;
			continue;
		}
		if (e->state == VGL_STATE_RUNNING) {
			running += e->processes;
			continue;
		}
		vgl_json_begin_object(j, NULL);
		vgl_json_i64(j, "exit_status", e->exit_status);
		vgl_json_u64(j, "processes", e->processes);
		vgl_json_end_object(j);
	}
	vgl_json_end_array(j);
	vgl_json_u64(j, "cut_short", cut);
	vgl_json_u64(j, "running", running);
	vgl_json_end_object(j);
}

/* "cycles": each cycle of calls (views/unfold.c), its members with their
 * exact calls. */
static int json_cycles(struct vgl_json *j, const struct vgl_profile *p)
{
	struct stacks s;
	size_t i, k;

	if (stacks_build(&s, p))
		return -ENOMEM;
	vgl_json_begin_array(j, "cycles");
	for (i = 0; i < s.ncycles; i++) {
		const struct stacks_cycle *c = &s.cycles[i];

		vgl_json_begin_object(j, NULL);
		vgl_json_u64(j, "id", i + 1);
		vgl_json_str(j, "label", c->label);
		vgl_json_u64(j, "calls", c->calls);
		vgl_json_u64(j, "calls_from_outside", c->entries);
		vgl_json_begin_array(j, "members");
		for (k = 0; k < c->nmembers; k++) {
			vgl_json_begin_object(j, NULL);
			vgl_json_u64(j, "function_id", c->members[k]);
			vgl_json_u64(j, "calls", p->funcs[c->members[k]].calls);
			vgl_json_end_object(j);
		}
		vgl_json_end_array(j);
		vgl_json_end_object(j);
	}
	vgl_json_end_array(j);
	stacks_release(&s);
	return 0;
}

/* The JSON object of report --json (and convert --to json) to f; 0,
 * -ENOMEM, or -EIO when f has a write error. */
int report_json(const struct vgl_profile *p, const char *path, FILE *f)
{
	const struct vgl_reader *r = p->r;
	struct vgl_json j;
	size_t i;

	vgl_json_init(&j, f);
	vgl_json_begin_object(&j, NULL);
	vgl_json_u64(&j, "schema_version", 4);
	vgl_json_str(&j, "file", path);
	vgl_json_str(&j, "state", vgl_liveness_name(r->liveness));
	if (r->liveness == VGL_LIVENESS_FINISHED)
		vgl_json_i64(&j, "exit_status", r->meta.exit_status);
	else
		vgl_json_null(&j, "exit_status");
	vgl_json_u64(&j, "pid", r->meta.pid);
	vgl_json_begin_array(&j, "command");
	for (i = 0; i < r->argc; i++)
		vgl_json_str(&j, NULL, r->argv[i]);
	vgl_json_end_array(&j);
	vgl_json_u64(&j, "start_time_ns", r->meta.start_ns);
	vgl_json_u64(&j, "end_time_ns", r->meta.end_ns);
	vgl_json_u64(&j, "total_calls", p->total_calls);
	vgl_json_u64(&j, "lost_calls", r->meta.lost_calls);
	/* NULL (no call counted): null. */
	vgl_json_str(&j, "mode", vgl_mode_name(vgl_reader_modes(r)));
	report_json_merged(&j, r);

	vgl_json_begin_array(&j, "modules");
	for (i = 0; i < r->nmodules; i++) {
		const struct vgl_module_info *m = &r->modules[i];

		vgl_json_begin_object(&j, NULL);
		vgl_json_u64(&j, "id", i);
		vgl_json_str(&j, "path", m->path);
		vgl_json_bytes_hex(&j, "build_id", m->build_id, m->build_id_len);
		vgl_json_hex(&j, "load_bias", m->bias);
		vgl_json_end_object(&j);
	}
	vgl_json_end_array(&j);

	vgl_json_begin_array(&j, "threads");
	for (i = 0; i < p->nthreads; i++) {
		vgl_json_begin_object(&j, NULL);
		vgl_json_u64(&j, "tid", p->threads[i].tid);
		vgl_json_u64(&j, "calls", p->threads[i].calls);
		vgl_json_end_object(&j);
	}
	vgl_json_end_array(&j);

	vgl_json_begin_array(&j, "functions");
	for (i = 0; i < p->nfuncs; i++) {
		const struct vgl_pfunc *f = &p->funcs[i];

		vgl_json_begin_object(&j, NULL);
		vgl_json_u64(&j, "id", i);
		vgl_json_str(&j, "name", f->name);
		vgl_json_str(&j, "label", f->label);
		if (f->module != VGL_PROFILE_NO_MODULE)
			vgl_json_u64(&j, "module_id", f->module);
		else
			vgl_json_null(&j, "module_id");
		vgl_json_str(&j, "module", f->module_name);
		vgl_json_hex(&j, "address", f->addr);
		vgl_json_u64(&j, "size_bytes", f->size);
		vgl_json_str(&j, "file", f->file);
		if (f->file)
			vgl_json_i64(&j, "line", f->line);
		else
			vgl_json_null(&j, "line");
		vgl_json_u64(&j, "calls", f->calls);
		vgl_json_bool(&j, "inlined_only", vgl_pfunc_inlined_only(f));
		vgl_json_u64(&j, "inlined_calls", f->inlined_calls);
		vgl_json_u64(&j, "inlined_hosts", f->inlined_hosts);
		vgl_json_end_object(&j);
	}
	vgl_json_end_array(&j);

	vgl_json_begin_array(&j, "edges");
	for (i = 0; i < p->ncalls; i++) {
		const struct vgl_pcall *c = &p->calls[i];

		vgl_json_begin_object(&j, NULL);
		vgl_json_str(&j, "caller", p->funcs[c->caller].name);
		vgl_json_str(&j, "callee", p->funcs[c->callee].name);
		vgl_json_u64(&j, "caller_id", c->caller);
		vgl_json_u64(&j, "callee_id", c->callee);
		if (c->site_file) {
			char site[4096];

			snprintf(site, sizeof(site), "%s:%d", c->site_file,
				 c->site_line);
			vgl_json_str(&j, "site", site);
		} else {
			vgl_json_null(&j, "site");
		}
		if (c->inlined_in != VGL_PROFILE_NONE) {
			vgl_json_str(&j, "inlined_in", p->funcs[c->inlined_in].name);
			vgl_json_u64(&j, "inlined_in_id", c->inlined_in);
		} else {
			vgl_json_null(&j, "inlined_in");
			vgl_json_null(&j, "inlined_in_id");
		}
		vgl_json_u64(&j, "calls", c->calls);
		vgl_json_end_object(&j);
	}
	vgl_json_end_array(&j);
	if (json_cycles(&j, p))
		return -ENOMEM;
	if (r->has_samples || r->has_stacks)
		report_sampled_json(&j, r, p->sym);
	vgl_json_end_object(&j);
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}
