/*
 * out-plot.h - `vigil plot`'s picture: the samples of a sampled profile
 * (SAMPLES, docs/format.md) over time, as one self-contained SVG file
 * (views/out-plot.c).
 */
#ifndef VIGIL_OUT_PLOT_H
#define VIGIL_OUT_PLOT_H

#include <stdio.h>

#include "vgl_reader.h"

/*
 * Writes the timeline of r's samples to f under the heading title: CPU
 * per thread (stacked areas), the process's RSS, and host CPU, each over
 * the time of the run.  r must hold at least one sample.  Returns 0,
 * -ENOMEM, or -EIO when the stream has an error (the caller learns why
 * from errno or the stream).
 */
int out_plot(const struct vgl_reader *r, const char *title, FILE *f);

#endif
