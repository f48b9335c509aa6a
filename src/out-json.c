/*
 * out-json.c - the profile model as one JSON object, the documented
 * schema of `vigil report --json` (docs/report-json.md): written by
 * `vigil report --json` and `vigil convert --to json`.
 */
#include <errno.h>
#include <stdio.h>

#include "json.h"
#include "out.h"

int out_json(const struct vgl_profile *p, const char *path, FILE *f)
{
	const struct vgl_reader *r = p->r;
	struct vgl_json j;
	size_t i;

	vgl_json_init(&j, f);
	vgl_json_begin_object(&j, NULL);
	vgl_json_u64(&j, "schema_version", 1);
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
	vgl_json_end_object(&j);
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}
