/*
 * The benchmark's plot: horizontal bars per scene and mode on a
 * logarithmic millisecond axis, drawn by vitrail itself (rects and text
 * through the canvas, one sequential renderer) and written with
 * vr_png_write.
 */
#ifndef BENCH_PLOT_H
#define BENCH_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#define PLOT_MAX_SERIES 8

struct plot_row {
	char label[64];
	double values[PLOT_MAX_SERIES]; /* ms; NaN or <= 0: no bar */
};

struct plot {
	const char *title;
	const char *series[PLOT_MAX_SERIES];
	size_t nseries;
	struct plot_row *rows;
	size_t nrows;
};

bool plot_write(const struct plot *plot, const char *path);

#endif
