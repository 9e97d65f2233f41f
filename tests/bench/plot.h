/*
 * The benchmarks' plot: horizontal bars per row and series on a
 * logarithmic millisecond axis (bench-render) or a linear axis from 0
 * (bench-dvsync), drawn by vitrail itself (rects and text through the
 * canvas, one sequential renderer) and written with vr_png_write.
 */
#ifndef BENCH_PLOT_H
#define BENCH_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#define PLOT_MAX_SERIES 8

struct plot_row {
	char label[64];
	/* in the axis unit; NaN: no bar; <= 0: no bar on the log axis, a
	 * hairline on the linear one */
	double values[PLOT_MAX_SERIES];
};

struct plot {
	const char *title;
	const char *series[PLOT_MAX_SERIES];
	size_t nseries;
	struct plot_row *rows;
	size_t nrows;
	/* After the legend; NULL: bench-render's note on its modes. */
	const char *note;
	/* Linear axis from 0 in `unit` (NULL: "ms"), instead of the
	 * logarithmic millisecond axis. */
	bool linear;
	const char *unit;
};

bool plot_write(const struct plot *plot, const char *path);

#endif
