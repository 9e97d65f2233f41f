/*
 * The plot, drawn by vitrail (see plot.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plot.h"
#include "scene.h"

#define WIDTH 1400
#define LABEL_WIDTH 230
#define VALUE_WIDTH 90
#define BAR_HEIGHT 9
#define ROW_GAP 8
#define HEADER 70
#define FOOTER 40
#define AXIS_MIN_MS 0.1

static const struct vr_color palette[PLOT_MAX_SERIES] = {
	{ 0.45f, 0.45f, 0.45f, 1.0f }, /* seq */
	{ 0.55f, 0.75f, 0.95f, 1.0f },
	{ 0.20f, 0.50f, 0.85f, 1.0f },
	{ 0.10f, 0.30f, 0.65f, 1.0f },
	{ 0.30f, 0.70f, 0.40f, 1.0f },
	{ 0.15f, 0.50f, 0.25f, 1.0f },
	{ 0.60f, 0.40f, 0.80f, 1.0f },
	{ 0.95f, 0.55f, 0.15f, 1.0f },
};

static const struct vr_color ink = { 0.1f, 0.1f, 0.12f, 1.0f };
static const struct vr_color grid = { 0.85f, 0.85f, 0.88f, 1.0f };

static bool rect(struct bench_node *node, float x, float y, float w, float h,
		struct vr_color color) {
	struct bench_op *op = bench_dl_add(&node->dl, BENCH_OP_RECT);
	if (op == NULL) {
		return false;
	}
	op->rect = (struct vr_rectf){ x, y, w, h };
	op->paint.color = color;
	return true;
}

static bool text(struct bench_node *node, float x, float y, float size,
		struct vr_color color, const char *str) {
	struct bench_op *op = bench_dl_add(&node->dl, BENCH_OP_TEXT);
	if (op == NULL || (op->text = strdup(str)) == NULL) {
		return false;
	}
	op->v[0] = x;
	op->v[1] = y;
	op->font = (struct vr_font){ .family = bench_intern("DejaVu Sans"),
		.size = size,
		.weight = 400 };
	op->color = color;
	return true;
}

/* Series colours: "cairo" orange, "<mode> full" purple, modes in order. */
static struct vr_color series_color(const struct plot *plot, size_t i) {
	if (strcmp(plot->series[i], "cairo") == 0) {
		return palette[PLOT_MAX_SERIES - 1];
	}
	size_t len = strlen(plot->series[i]);
	if (len > 5 && strcmp(plot->series[i] + len - 5, " full") == 0) {
		return palette[PLOT_MAX_SERIES - 2];
	}
	return palette[i % (PLOT_MAX_SERIES - 1)];
}

/* A round grid step (1, 2 or 5 times a power of ten) giving at most
 * five steps up to max. */
static double linear_step(double max) {
	double base = pow(10.0, floor(log10(max / 5.0)));
	static const double mantissas[] = { 1, 2, 5, 10 };
	for (size_t i = 0; i < sizeof(mantissas) / sizeof(mantissas[0]); i++) {
		if (max / (base * mantissas[i]) <= 5.0) {
			return base * mantissas[i];
		}
	}
	return base * 10;
}

static bool build(const struct plot *plot, struct bench_scene *scene,
		int32_t height) {
	double max = 1.0;
	for (size_t r = 0; r < plot->nrows; r++) {
		for (size_t s = 0; s < plot->nseries; s++) {
			double v = plot->rows[r].values[s];
			if (isfinite(v) && v > max) {
				max = v;
			}
		}
	}
	double decades = ceil(log10(max / AXIS_MIN_MS));
	double axis_max = max; /* linear axis: its right end */
	float x0 = LABEL_WIDTH, span = WIDTH - LABEL_WIDTH - VALUE_WIDTH;
	struct bench_node *bg = bench_node_create(scene->root);
	struct bench_node *fg = bench_node_create(scene->root);
	if (bg == NULL || fg == NULL) {
		return false;
	}
	bool ok = text(fg, 20, 30, 20, ink, plot->title);
	char buf[128];
	/* legend */
	float lx = 20;
	for (size_t s = 0; s < plot->nseries && ok; s++) {
		ok = rect(fg, lx, 44, 14, 14, series_color(plot, s)) &&
				text(fg, lx + 20, 56, 13, ink, plot->series[s]);
		lx += 30 + 9 * (float)strlen(plot->series[s]);
	}
	ok = ok &&
			text(fg, lx + 20, 56, 13, ink,
					plot->note != NULL ?
							plot->note :
							"(modes: CPU frame time, render -> submit; full: "
							"the "
							"whole frame, GPU included; log scale)");
	float bottom = (float)height - FOOTER;
	const char *unit = plot->unit != NULL ? plot->unit : "ms";
	if (plot->linear) {
		/* grid: five steps of a round size */
		double step = linear_step(max);
		int steps = (int)ceil(max / step);
		axis_max = step * steps;
		for (int d = 0; d <= steps && ok; d++) {
			float x = x0 + span * (float)d / (float)steps;
			snprintf(buf, sizeof(buf), "%g %s", step * d, unit);
			ok = rect(bg, x, HEADER - 6, 1, bottom - HEADER + 6, grid) &&
					text(fg, x - 14, bottom + 18, 12, ink, buf);
		}
	}
	/* grid: one line per decade */
	for (int d = 0; !plot->linear && d <= (int)decades && ok; d++) {
		float x = x0 + span * (float)d / (float)decades;
		double v = AXIS_MIN_MS * pow(10.0, d);
		snprintf(buf, sizeof(buf), v < 1.0 ? "%.1f %s" : "%.0f %s", v, unit);
		ok = rect(bg, x, HEADER - 6, 1, bottom - HEADER + 6, grid) &&
				text(fg, x - 14, bottom + 18, 12, ink, buf);
	}
	/* bars */
	float row_height = (float)plot->nseries * BAR_HEIGHT + ROW_GAP;
	for (size_t r = 0; r < plot->nrows && ok; r++) {
		const struct plot_row *row = &plot->rows[r];
		float y = HEADER + row_height * (float)r;
		if (r % 2 == 1) {
			ok = rect(bg, 0, y - ROW_GAP / 2, WIDTH, row_height,
					(struct vr_color){ 0.96f, 0.96f, 0.97f, 1.0f });
		}
		ok = ok && text(fg, 10, y + row_height / 2 + 2, 13, ink, row->label);
		for (size_t s = 0; s < plot->nseries && ok; s++) {
			double v = row->values[s];
			if (!isfinite(v) || (v <= 0.0 && !plot->linear)) {
				continue;
			}
			double t = plot->linear ?
					fmax(v, 0.0) / axis_max :
					log10(fmax(v, AXIS_MIN_MS) / AXIS_MIN_MS) / decades;
			float w = fmaxf(1.0f, span * (float)t);
			float by = y + BAR_HEIGHT * (float)s;
			snprintf(buf, sizeof(buf), "%.2f", v);
			ok = rect(fg, x0, by, w, BAR_HEIGHT - 1, series_color(plot, s)) &&
					text(fg, x0 + w + 4, by + BAR_HEIGHT - 1, 9, ink, buf);
		}
	}
	return ok;
}

bool plot_write(const struct plot *plot, const char *path) {
	float row_height = (float)plot->nseries * BAR_HEIGHT + ROW_GAP;
	int32_t height = (int32_t)(HEADER + FOOTER +
			row_height * (float)(plot->nrows > 0 ? plot->nrows : 1));
	struct bench_scene *scene = bench_scene_create("plot", "ours");
	if (scene == NULL) {
		return false;
	}
	scene->noutputs = 1;
	scene->outputs[0] = (struct vr_box){ 0, 0, WIDTH, height };
	scene->clear = (struct vr_color){ 1.0f, 1.0f, 1.0f, 1.0f };
	bool ok = build(plot, scene, height);
	struct vr_tree *tree = ok ? bench_scene_realise(scene) : NULL;
	struct vr_renderer_options opts = { .sequential = true };
	struct vr_renderer *renderer =
			tree != NULL ? vr_renderer_create(&opts) : NULL;
	struct vr_target *target =
			renderer != NULL ? vr_target_create(renderer, WIDTH, height) : NULL;
	uint8_t *pixels = malloc((size_t)WIDTH * 4 * (size_t)height);
	ok = target != NULL && pixels != NULL;
	if (ok) {
		vr_tree_update(tree, NULL);
		struct vr_render_job job = {
			.target = target,
			.clear = scene->clear,
		};
		vr_mat_identity(&job.view);
		ok = vr_render(renderer, tree, &job, 1);
	}
	if (ok) {
		vr_target_read(target, NULL, pixels, WIDTH * 4);
		ok = vr_png_write(path, pixels, WIDTH, height, WIDTH * 4, true);
	}
	free(pixels);
	vr_target_destroy(target);
	vr_renderer_destroy(renderer);
	bench_scene_release(scene, tree);
	bench_scene_destroy(scene);
	if (!ok) {
		fprintf(stderr, "error: plot %s not written\n", path);
	}
	return ok;
}
