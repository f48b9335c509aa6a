/*
 * report-sampled.h - the part of `vigil report` for a file with SAMPLES
 * and STACKS (vigil attach -o): per-thread CPU over the run, memory over
 * the run, and the top functions by self and total stack samples,
 * symbolized through lib/symbolizer with the file's modules.
 */
#ifndef VIGIL_REPORT_SAMPLED_H
#define VIGIL_REPORT_SAMPLED_H

#include <stddef.h>
#include <stdint.h>

#include "json.h"
#include "profile.h"
#include "symbolizer.h"
#include "vgl_reader.h"

/* Prints the three tables for people; top limits the functions (0: 20). */
void report_sampled_text(const struct vgl_reader *r, struct vgl_symbolizer *sym,
			 size_t top);

/* After a table of sampled functions: the share of the samples that
 * found the program in vigil's own hooks (by name, sp's functions), in
 * one line, or nothing when none did. */
struct vgl_sprofile;
void report_hook_share(const struct vgl_sprofile *sp, uint64_t samples);

/* Whether --function NAME names fn (of a counting or a sampled file):
 * its name or its label, as they are or as a report shows them, control
 * bytes escaped (text.h), so that a name can be given as it was seen. */
int report_function_named(const struct vgl_pfunc *fn, const char *name);

/* --function NAME of a sampled file: the function's self and total
 * samples, and by samples the functions it was called from and those it
 * called (the frames beside it in each stack, each stack counted once
 * for each).  Returns 0, -ENOENT when no function has that name or
 * label, or -ENOMEM. */
int report_sampled_function(const struct vgl_reader *r,
			    struct vgl_symbolizer *sym, const char *path,
			    const char *name);

/* Adds the "sampled" object (docs/report-json.md) to the open object. */
void report_sampled_json(struct vgl_json *j, const struct vgl_reader *r,
			 struct vgl_symbolizer *sym);

#endif
