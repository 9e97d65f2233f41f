/*
 * The 2D engine's primitives on the GPU (vr_render: preparation, the
 * engine's tasks, the pipeline) against the pixman reference renderer,
 * which runs the same preparation and evaluates the same coverage on the
 * CPU (reference.c).
 *
 * Tolerances (largest per-channel difference, 8 bits), per primitive:
 *   SHAPES (2): rects, rounded rects, ellipses, fill and stroke, under any
 *     transform, rect and rounded clips: the same SDF in float on both
 *     sides; rounding of coverage and blend.
 *   TRIANGLES (2, and at most TRI_OUTLIERS pixels up to 24): strokes and
 *     paths: the same triangles; the GPU rasterises at 1/256 pixel and
 *     interpolates in its own precision, so a pixel centre within a hair
 *     of a shared or fringe edge may go to the other triangle.
 *   TEXT (1) 1:1 glyphs; TEXT_TRANSFORMED (3) bilinear sampling of the
 *     atlas (the GPU's 8-bit filter weights).
 *   SHADOW (2) texel-aligned: three 8-bit passes, exp() on both sides;
 *     SHADOW_TRANSFORMED (3): the bilinear composite.
 *   IMAGES: the quads' own rules (test_render.c): 1 pixel-exact, 3 scaled.
 * Parallel and sequential renderings are compared bit for bit, and so is
 * the CPU backend's text scrolled under a rounded clip with the same text
 * inside it.
 * A failing comparison writes <name>-actual.png, -expected.png and
 * -diff.png into $VITRAIL_TEST_OUT.
 */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vitrail/canvas.h>
#include <vitrail/renderer.h>

#include "render_fixture.h"
#include "engine_private.h"

#define PI 3.14159265358979f

#define SHAPES 2
#define TRIANGLES 2
#define TRI_OUTLIERS 12
#define TRI_OUTLIER_MAX 24
#define TEXT 1
#define TEXT_TRANSFORMED 3
#define SHADOW 2
#define SHADOW_TRANSFORMED 3
#define IMAGE_EXACT 1
#define IMAGE_SCALED 3

/* All pixels within tolerance but at most `outliers`, which stay within
 * outlier_max. */
static void compare(const char *name, const uint32_t *actual,
		const uint32_t *expected, int32_t w, int32_t h, int tolerance,
		size_t outliers, int outlier_max) {
	int max_diff;
	size_t bad = vr_pixels_compare(actual, w * 4, expected, w * 4, w, h,
			tolerance, &max_diff);
	bool ok =
			bad <= outliers && max_diff <= (bad > 0 ? outlier_max : tolerance);
	fprintf(stderr, "%s: max difference %d, %zu pixels over %d\n", name,
			max_diff, bad, tolerance);
	if (!ok) {
		write_failure_images(name, actual, expected, w, h);
	}
	ck_assert_msg(ok, "%s: %zu pixels differ by more than %d (max %d)", name,
			bad, tolerance, max_diff);
}

static uint32_t *reference(int32_t w, int32_t h, const struct vr_mat *view) {
	uint32_t *pixels = calloc((size_t)w * (size_t)h, 4);
	pixman_image_t *dst =
			pixman_image_create_bits(PIXMAN_a8r8g8b8, w, h, pixels, w * 4);
	vr_reference_render(tree, dst, view, (struct vr_color){ 0 });
	pixman_image_unref(dst);
	return pixels;
}

static uint32_t *cpu_render(int32_t w, int32_t h, const struct vr_mat *view,
		int workers) {
	uint32_t *pixels = calloc((size_t)w * (size_t)h, 4);
	pixman_image_t *dst =
			pixman_image_create_bits(PIXMAN_a8r8g8b8, w, h, pixels, w * 4);
	struct vr_cpu_renderer *cpu = vr_cpu_renderer_create(workers);
	ck_assert_ptr_nonnull(cpu);
	ck_assert(
			vr_cpu_render(cpu, tree, dst, view, (struct vr_color){ 0 }, NULL));
	vr_cpu_renderer_destroy(cpu);
	pixman_image_unref(dst);
	return pixels;
}

static uint32_t *render(struct vr_target *target, const struct vr_mat *view,
		const pixman_region32_t *damage) {
	struct vr_render_job job = { .target = target, .damage = damage };
	job.view = *view;
	ck_assert(vr_render(renderer, tree, &job, 1));
	int32_t w = vr_target_width(target), h = vr_target_height(target);
	uint32_t *pixels = calloc((size_t)w * (size_t)h, 4);
	vr_target_read(target, NULL, pixels, w * 4);
	return pixels;
}

#define W 256
#define H 192

/* Render the tree with both renderers and compare. */
static void render_compare(const char *name, const struct vr_mat *view,
		int tolerance, size_t outliers, int outlier_max) {
	struct vr_mat identity = { .a = 1, .d = 1 };
	if (view == NULL) {
		view = &identity;
	}
	vr_tree_update(tree, NULL);
	struct vr_target *target = vr_target_create(renderer, W, H);
	ck_assert_ptr_nonnull(target);
	uint32_t *actual = render(target, view, NULL);
	uint32_t *expected = reference(W, H, view);
	/* something was drawn at all */
	size_t drawn = 0;
	for (int32_t i = 0; i < W * H; i++) {
		drawn += expected[i] != 0;
	}
	ck_assert_msg(drawn > 100, "%s: the reference drew %zu pixels", name,
			drawn);
	compare(name, actual, expected, W, H, tolerance, outliers, outlier_max);
	/* the CPU backend (cpu_backend.c) against the same reference, with
	 * the same tolerances */
	uint32_t *cpu = cpu_render(W, H, view, 2);
	char cpu_name[64];
	snprintf(cpu_name, sizeof(cpu_name), "cpu-%s", name);
	compare(cpu_name, cpu, expected, W, H, tolerance, outliers, outlier_max);
	free(cpu);
	free(actual);
	free(expected);
	vr_target_destroy(target);
	ck_assert_msg(log_errors == 0, "%d renderer/validation errors logged",
			log_errors);
}

/* A node showing list at (x, y) (the list's reference is taken over). */
static struct vr_node *list_node(struct vr_display_list *list, float x,
		float y) {
	struct vr_node *node = vr_node_create(tree);
	vr_node_set_position(node, x, y);
	vr_node_set_display_list(node, list);
	vr_display_list_unref(list);
	vr_node_set_parent(node, root);
	return node;
}

static struct vr_paint paint(float r, float g, float b, float a) {
	return (struct vr_paint){ .color = { r, g, b, a } };
}

/* ---- shapes ------------------------------------------------------------- */

static void draw_shapes(struct vr_canvas *c) {
	struct vr_paint p = paint(0.9f, 0.2f, 0.1f, 1);
	vr_canvas_draw_rect(c, (struct vr_rectf){ 10.3f, 10.6f, 40.5f, 30.2f }, &p);
	p = paint(0.1f, 0.5f, 0.9f, 0.7f);
	vr_canvas_draw_rrect(c, (struct vr_rectf){ 30.5f, 20.25f, 70, 50 },
			(struct vr_radii){ 4, 12, 20.5f, 0 }, &p);
	p = paint(0.2f, 0.8f, 0.3f, 0.6f);
	vr_canvas_draw_ellipse(c, (struct vr_rectf){ 110.2f, 10.7f, 41, 41 }, &p);
	vr_canvas_draw_ellipse(c, (struct vr_rectf){ 160, 15, 80, 30.5f }, &p);
	p = paint(1, 1, 0.2f, 0.9f);
	p.stroke_width = 3.5f;
	vr_canvas_draw_rect(c, (struct vr_rectf){ 20, 90, 60, 40 }, &p);
	vr_canvas_draw_rrect(c, (struct vr_rectf){ 100.5f, 90.5f, 60, 40 },
			(struct vr_radii){ 10, 10, 10, 10 }, &p);
	p.stroke_width = 1.0f;
	vr_canvas_draw_ellipse(c, (struct vr_rectf){ 180, 80, 60, 60 }, &p);
	p.stroke_width = 6.0f;
	vr_canvas_draw_ellipse(c, (struct vr_rectf){ 190, 120, 50, 30 }, &p);
}

START_TEST(test_primitives_shapes) {
	struct vr_canvas *c = vr_canvas_begin();
	draw_shapes(c);
	list_node(vr_canvas_finish(c), 0, 0);
	render_compare("shapes", NULL, SHAPES, 0, 0);
}
END_TEST

START_TEST(test_primitives_shapes_transformed) {
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_translate(c, 128, 96);
	vr_canvas_rotate(c, 0.3f);
	vr_canvas_scale(c, 0.8f, 0.6f);
	vr_canvas_translate(c, -128, -96);
	draw_shapes(c);
	struct vr_node *node = list_node(vr_canvas_finish(c), 0, 0);
	vr_node_set_opacity(node, 0.8f);
	/* and a view that scales, as a HiDPI output does */
	struct vr_mat view = { .a = 1.25f, .d = 1.25f, .tx = -20, .ty = -10 };
	render_compare("shapes-transformed", &view, SHAPES, 0, 0);
}
END_TEST

START_TEST(test_primitives_clips) {
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_save(c);
	vr_canvas_clip_rect(c, (struct vr_rectf){ 20, 20, 100, 60 });
	vr_canvas_clip_rrect(c, (struct vr_rectf){ 10.5f, 10.5f, 90, 90 },
			(struct vr_radii){ 30, 5, 30, 5 });
	draw_shapes(c);
	vr_canvas_restore(c);
	vr_canvas_translate(c, 130, 60);
	vr_canvas_rotate(c, PI / 2);
	vr_canvas_clip_rrect(c, (struct vr_rectf){ 0, 0, 100, 80 },
			(struct vr_radii){ 25, 0, 10, 0 });
	struct vr_paint p = paint(0.3f, 0.3f, 1, 1);
	vr_canvas_draw_rect(c, (struct vr_rectf){ -10, -10, 200, 200 }, &p);
	struct vr_node *node = list_node(vr_canvas_finish(c), 0, 0);
	/* the node's own clip too */
	vr_node_set_clip(node, &(struct vr_rectf){ 0, 0, 240, 150 });
	render_compare("clips", NULL, SHAPES, 0, 0);
}
END_TEST

/* ---- strokes and paths -------------------------------------------------- */

START_TEST(test_primitives_strokes) {
	struct vr_canvas *c = vr_canvas_begin();
	const enum vr_line_cap caps[3] = { VR_CAP_BUTT, VR_CAP_ROUND,
		VR_CAP_SQUARE };
	const enum vr_line_join joins[3] = { VR_JOIN_MITER, VR_JOIN_ROUND,
		VR_JOIN_BEVEL };
	for (int i = 0; i < 3; i++) {
		struct vr_paint p = paint(0.9f, 0.3f * (float)i, 0.2f, 0.75f);
		p.stroke_width = 6.0f;
		p.cap = caps[i];
		vr_canvas_draw_line(c, 15.5f, 15.0f + 20.0f * (float)i, 110.25f,
				25.0f + 20.0f * (float)i, &p);
		const float zigzag[] = { 130, 20, 150, 70, 170, 25, 200, 60, 240, 20 };
		struct vr_paint q = paint(0.1f, 0.6f, 0.9f, 0.6f);
		q.stroke_width = 8.0f;
		q.join = joins[i];
		q.cap = caps[i];
		vr_canvas_save(c);
		vr_canvas_translate(c, 0, 50.0f * (float)i);
		vr_canvas_draw_polyline(c, zigzag, 5, false, &q);
		vr_canvas_restore(c);
	}
	/* a closed polyline, thin */
	const float tri[] = { 20, 120, 100, 110, 60, 180 };
	struct vr_paint t = paint(0, 0, 0, 1);
	t.stroke_width = 1.5f;
	vr_canvas_draw_polyline(c, tri, 3, true, &t);
	/* a zero-length line with round caps: a dot */
	t.stroke_width = 10;
	t.cap = VR_CAP_ROUND;
	vr_canvas_draw_line(c, 110, 160, 110, 160, &t);
	list_node(vr_canvas_finish(c), 0, 0);
	render_compare("strokes", NULL, TRIANGLES, TRI_OUTLIERS, TRI_OUTLIER_MAX);
}
END_TEST

static struct vr_path *star(float cx, float cy, float r) {
	struct vr_path *path = vr_path_create();
	for (int i = 0; i < 5; i++) {
		float a = -PI / 2 + (float)i * 4 * PI / 5;
		if (i == 0) {
			vr_path_move_to(path, cx + r * cosf(a), cy + r * sinf(a));
		} else {
			vr_path_line_to(path, cx + r * cosf(a), cy + r * sinf(a));
		}
	}
	vr_path_close(path);
	return path;
}

START_TEST(test_primitives_paths) {
	struct vr_canvas *c = vr_canvas_begin();
	struct vr_paint p = paint(0.8f, 0.1f, 0.5f, 0.8f);
	struct vr_path *s = star(50, 50, 40);
	vr_canvas_draw_path(c, s, &p); /* nonzero: the middle is filled */
	p.fill_rule = VR_FILL_EVEN_ODD;
	vr_canvas_translate(c, 90.5f, 0.25f);
	vr_canvas_draw_path(c, s, &p); /* even-odd: a hole */
	vr_path_destroy(s);
	/* curves, and a hole through a reversed contour */
	struct vr_path *blob = vr_path_create();
	vr_path_move_to(blob, 100, 110);
	vr_path_cubic_to(blob, 150, 60, 200, 160, 150, 180);
	vr_path_quad_to(blob, 100, 200, 100, 110);
	vr_path_close(blob);
	vr_path_move_to(blob, 120, 130);
	vr_path_line_to(blob, 120, 160);
	vr_path_line_to(blob, 140, 160);
	vr_path_line_to(blob, 140, 130);
	vr_path_close(blob);
	p = paint(0.2f, 0.7f, 0.4f, 1);
	vr_canvas_draw_path(c, blob, &p);
	/* stroked curves */
	p = paint(0.1f, 0.1f, 0.1f, 0.9f);
	p.stroke_width = 3;
	p.join = VR_JOIN_ROUND;
	vr_canvas_translate(c, -90.5f, 0);
	vr_canvas_draw_path(c, blob, &p);
	vr_path_destroy(blob);
	list_node(vr_canvas_finish(c), 0, 0);
	render_compare("paths", NULL, TRIANGLES, TRI_OUTLIERS, TRI_OUTLIER_MAX);

	/* rotated and scaled by the node */
	struct vr_canvas *c2 = vr_canvas_begin();
	s = star(0, 0, 30);
	p = paint(0.9f, 0.6f, 0.1f, 0.7f);
	vr_canvas_draw_path(c2, s, &p);
	p = paint(0, 0, 0.5f, 1);
	p.stroke_width = 2;
	p.join = VR_JOIN_MITER;
	p.miter_limit = 10;
	vr_canvas_draw_path(c2, s, &p);
	vr_path_destroy(s);
	struct vr_node *node = list_node(vr_canvas_finish(c2), 0, 0);
	struct vr_mat m = { .a = 1.5f * cosf(0.4f),
		.b = 1.5f * sinf(0.4f),
		.c = -1.5f * sinf(0.4f),
		.d = 1.5f * cosf(0.4f),
		.tx = 200,
		.ty = 120 };
	vr_node_set_transform(node, &m);
	render_compare("paths-transformed", NULL, TRIANGLES, TRI_OUTLIERS,
			TRI_OUTLIER_MAX);
}
END_TEST

/* ---- images ------------------------------------------------------------- */

START_TEST(test_primitives_images) {
	/* a PNG written, then loaded */
	enum { IW = 24, IH = 16 };
	uint32_t data[IW * IH];
	for (int y = 0; y < IH; y++) {
		for (int x = 0; x < IW; x++) {
			uint32_t a = 128 + (uint32_t)x * 5;
			uint32_t r = (uint32_t)(x * 10) * a / 255;
			uint32_t g = (uint32_t)(y * 15) * a / 255;
			data[y * IW + x] = a << 24 | r << 16 | g << 8 | (a / 2);
		}
	}
	char path[512];
	out_path(path, sizeof(path), "primitives-image", "source");
	ck_assert(vr_png_write(path, data, IW, IH, IW * 4, false));
	struct vr_image *image = vr_image_load_png(path);
	remove(path);
	ck_assert_ptr_nonnull(image);
	ck_assert_int_eq(vr_image_width(image), IW);
	ck_assert_ptr_null(vr_image_load_png("/nonexistent.png"));
	log_errors = 0; /* that one was expected */

	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_draw_image(c, image, NULL, (struct vr_rectf){ 10, 10, IW, IH },
			1.0f);
	vr_canvas_draw_image(c, image, &(struct vr_rectf){ 4, 4, 8, 8 },
			(struct vr_rectf){ 60, 10, 8, 8 }, 0.5f);
	vr_canvas_clip_rect(c, (struct vr_rectf){ 0, 0, 200, 100 });
	vr_canvas_draw_image(c, image, NULL, (struct vr_rectf){ 100, 40, 96, 64 },
			1.0f);
	/* under a rounded clip, translucent, rotated */
	vr_canvas_clip_rrect(c, (struct vr_rectf){ 10, 40, 80, 60 },
			(struct vr_radii){ 20, 4, 20, 4 });
	vr_canvas_draw_image(c, image, NULL, (struct vr_rectf){ 10, 40, 80, 60 },
			0.8f);
	vr_canvas_translate(c, 50, 70);
	vr_canvas_rotate(c, 0.4f);
	vr_canvas_draw_image(c, image, NULL, (struct vr_rectf){ 0, 0, IW, IH },
			1.0f);
	vr_image_unref(image); /* the list keeps it */
	list_node(vr_canvas_finish(c), 0, 0);
	render_compare("images", NULL, IMAGE_SCALED, 0, 0);
}
END_TEST

/* ---- text --------------------------------------------------------------- */

static const struct vr_font sans = { "DejaVu Sans", 16, 400 };

START_TEST(test_primitives_text) {
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_draw_text(c, 10, 30, "Hello, vitrail! fi AV", &sans,
			(struct vr_color){ 0, 0, 0, 1 });
	struct vr_font bold = { "DejaVu Sans", 24, 700 };
	vr_canvas_draw_text(c, 10.4f, 70.6f, "Bold \xc3\xa9t\xc3\xa9", &bold,
			(struct vr_color){ 0.8f, 0.1f, 0.1f, 0.7f });
	vr_canvas_clip_rrect(c, (struct vr_rectf){ 10, 80, 120, 40 },
			(struct vr_radii){ 12, 12, 12, 12 });
	vr_canvas_draw_text(c, 5, 110, "CLIPPED TEXT HERE", &bold,
			(struct vr_color){ 0.1f, 0.3f, 0.9f, 1 });
	list_node(vr_canvas_finish(c), 0.5f, 0.25f);
	render_compare("text", NULL, TEXT, 0, 0);
}
END_TEST

START_TEST(test_primitives_text_transformed) {
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_translate(c, 40, 40);
	vr_canvas_rotate(c, 0.35f);
	vr_canvas_draw_text(c, 0, 0, "Rotated text", &sans,
			(struct vr_color){ 0, 0, 0, 1 });
	vr_canvas_rotate(c, -0.35f);
	vr_canvas_scale(c, 2.5f, 2.5f);
	/* a uniform scale stays on whole pixels, rasterised at 40 px */
	vr_canvas_draw_text(c, 0, 40, "Big", &sans,
			(struct vr_color){ 0.2f, 0.5f, 0.2f, 1 });
	list_node(vr_canvas_finish(c), 0, 0);
	render_compare("text-transformed", NULL, TEXT_TRANSFORMED, 0, 0);
}
END_TEST

/*
 * A list scrolled under a rounded clip, as vitrail_scroll_v1 moves a
 * node frame: the viewport clips (radius 12), its content node is
 * translated by the scroll. A row's pixels are a function of the row,
 * wherever it is: on the CPU backend, text a rounded clip's edge meets
 * (the clip attached to its runs) must give the pixels the clip covers
 * fully the same values as text inside the viewport (no clip attached).
 * The oracle is the row drawn in the middle of the viewport; at every
 * position from half out of the top edge to half out of the bottom one,
 * each pixel of the row away from the corners (the clip's coverage 1)
 * equals it bit for bit. The colours are vitrail-scroll-list's (its odd
 * rows), whose glyph blends have near-ties.
 */
#define ROW_H 64

static struct vr_color rgb(uint32_t c) {
	return (struct vr_color){ (float)((c >> 16) & 0xff) / 255.0f,
		(float)((c >> 8) & 0xff) / 255.0f, (float)(c & 0xff) / 255.0f, 1.0f };
}

static uint32_t *cpu_render_scrolled(struct vr_cpu_renderer *cpu,
		struct vr_node *content, int32_t top) {
	struct vr_mat m = { .a = 1, .d = 1, .ty = (float)top };
	vr_node_set_transform(content, &m);
	vr_tree_update(tree, NULL);
	uint32_t *pixels = calloc((size_t)W * H, 4);
	ck_assert_ptr_nonnull(pixels);
	pixman_image_t *dst =
			pixman_image_create_bits(PIXMAN_a8r8g8b8, W, H, pixels, W * 4);
	struct vr_mat view = { .a = 1, .d = 1 };
	ck_assert(
			vr_cpu_render(cpu, tree, dst, &view, (struct vr_color){ 0 }, NULL));
	pixman_image_unref(dst);
	return pixels;
}

START_TEST(test_primitives_text_scrolled_clip) {
	struct vr_node *viewport = vr_node_create(tree);
	vr_node_set_clip_rounded(viewport, &(struct vr_rectf){ 0, 0, W, H }, 12.0f);
	vr_node_set_rect(viewport, W, H, rgb(0xe8e8ee));
	vr_node_set_parent(viewport, root);
	struct vr_node *content = vr_node_create(tree);
	vr_node_set_parent(content, viewport);
	struct vr_canvas *c = vr_canvas_begin();
	struct vr_paint bg = { .color = rgb(0xeef0f4) };
	vr_canvas_draw_rect(c, (struct vr_rectf){ 0, 0, W, ROW_H - 1 }, &bg);
	vr_canvas_draw_text(c, 76, 30, "Row 1",
			&(struct vr_font){ "DejaVu Sans", 22, 700 }, rgb(0x202028));
	vr_canvas_draw_text(c, 76, 52, "Item 2 of 1000",
			&(struct vr_font){ "DejaVu Sans", 14, 400 }, rgb(0x606070));
	struct vr_display_list *list = vr_canvas_finish(c);
	struct vr_node *row = vr_node_create(tree);
	vr_node_set_display_list(row, list);
	vr_display_list_unref(list);
	vr_node_set_parent(row, content);
	struct vr_cpu_renderer *cpu = vr_cpu_renderer_create(2);
	ck_assert_ptr_nonnull(cpu);
	const int32_t middle = (H - ROW_H) / 2;
	uint32_t *expected = cpu_render_scrolled(cpu, content, middle);
	uint32_t *want = malloc((size_t)W * H * 4);
	ck_assert_ptr_nonnull(want);
	for (int32_t top = -ROW_H / 2; top <= H - ROW_H / 2; top++) {
		uint32_t *actual = cpu_render_scrolled(cpu, content, top);
		/* the oracle's row moved to top, over this rendering's other
		 * pixels (the clip's edges and corners) */
		memcpy(want, actual, (size_t)W * H * 4);
		for (int32_t y = top > 1 ? top : 1; y < top + ROW_H && y < H - 1; y++) {
			memcpy(&want[y * W + 12], &expected[(y - top + middle) * W + 12],
					(W - 24) * 4);
		}
		int max_diff;
		size_t bad = vr_pixels_compare(actual, W * 4, want, W * 4, W, H, 0,
				&max_diff);
		if (bad > 0) {
			write_failure_images("cpu-text-scrolled-clip", actual, want, W, H);
		}
		ck_assert_msg(bad == 0,
				"text scrolled to %d: %zu pixels differ "
				"from the same text inside the clip (by up to %d)",
				top, bad, max_diff);
		free(actual);
	}
	free(want);
	free(expected);
	vr_cpu_renderer_destroy(cpu);
	ck_assert_int_eq(log_errors, 0);
}
END_TEST

/* ---- shadows ------------------------------------------------------------ */

START_TEST(test_primitives_shadow) {
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_draw_shadow(c, (struct vr_rectf){ 30, 30, 80, 50 },
			(struct vr_radii){ 10, 10, 10, 10 }, 12,
			(struct vr_color){ 0, 0, 0, 0.6f });
	vr_canvas_draw_rrect(c, (struct vr_rectf){ 30, 30, 80, 50 },
			(struct vr_radii){ 10, 10, 10, 10 },
			&(struct vr_paint){ .color = { 1, 1, 1, 1 } });
	/* no blur: just the shape, through the same passes */
	vr_canvas_draw_shadow(c, (struct vr_rectf){ 150.5f, 20, 40, 40 },
			(struct vr_radii){ 20, 20, 20, 20 }, 0,
			(struct vr_color){ 0.5f, 0, 0, 1 });
	/* under a rounded clip */
	vr_canvas_clip_rrect(c, (struct vr_rectf){ 140, 90, 100, 90 },
			(struct vr_radii){ 30, 30, 30, 30 });
	vr_canvas_draw_shadow(c, (struct vr_rectf){ 160, 110, 60, 50 },
			(struct vr_radii){ 0 }, 30, (struct vr_color){ 0, 0, 0.6f, 1 });
	list_node(vr_canvas_finish(c), 0, 0);
	render_compare("shadow", NULL, SHADOW, 0, 0);
}
END_TEST

START_TEST(test_primitives_shadow_transformed) {
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_translate(c, 120, 90);
	vr_canvas_rotate(c, 0.5f);
	vr_canvas_draw_shadow(c, (struct vr_rectf){ -50, -30, 100, 60 },
			(struct vr_radii){ 8, 8, 8, 8 }, 10,
			(struct vr_color){ 0, 0, 0, 0.8f });
	list_node(vr_canvas_finish(c), 0, 0);
	/* a huge blur: the frame is blurred smaller, then scaled */
	c = vr_canvas_begin();
	vr_canvas_draw_shadow(c, (struct vr_rectf){ 20, 20, 40, 40 },
			(struct vr_radii){ 0 }, 60, (struct vr_color){ 0.4f, 0, 0, 1 });
	list_node(vr_canvas_finish(c), 0, 0);
	render_compare("shadow-transformed", NULL, SHADOW_TRANSFORMED, 0, 0);
}
END_TEST

/* ---- frames ------------------------------------------------------------- */

/* Everything at once, many nodes (the workers share the glyph atlas). */
static void busy_scene(void) {
	for (int i = 0; i < 24; i++) {
		struct vr_canvas *c = vr_canvas_begin();
		float x = (float)(i % 6) * 42.0f, y = (float)(i / 6) * 46.0f;
		if (i % 4 == 0) {
			vr_canvas_draw_shadow(c, (struct vr_rectf){ 4, 4, 30, 30 },
					(struct vr_radii){ 6, 6, 6, 6 }, 6,
					(struct vr_color){ 0, 0, 0, 0.5f });
		}
		struct vr_paint p = paint(0.1f * (float)(i % 10), 0.5f, 0.7f, 0.9f);
		vr_canvas_draw_rrect(c, (struct vr_rectf){ 2, 2, 36, 36 },
				(struct vr_radii){ 6, 6, 6, 6 }, &p);
		char label[16];
		snprintf(label, sizeof(label), "n%d\xc3\xa5", i * 7);
		struct vr_font font = { "DejaVu Sans", 11.0f + (float)(i % 3), 400 };
		vr_canvas_draw_text(c, 5, 24, label, &font,
				(struct vr_color){ 0, 0, 0, 1 });
		struct vr_paint l = paint(1, 1, 1, 0.8f);
		l.stroke_width = 2;
		vr_canvas_draw_line(c, 4, 32, 34, 30, &l);
		list_node(vr_canvas_finish(c), x, y);
	}
}

START_TEST(test_primitives_parallel_identical) {
	busy_scene();
	vr_tree_update(tree, NULL);
	struct vr_mat view = { .a = 1, .d = 1 };
	struct vr_target *target = vr_target_create(renderer, W, H);
	vr_renderer_set_sequential(renderer, true);
	uint32_t *sequential = render(target, &view, NULL);
	vr_target_destroy(target);
	target = vr_target_create(renderer, W, H);
	vr_renderer_set_sequential(renderer, false);
	vr_renderer_set_workers(renderer, 3);
	uint32_t *parallel = render(target, &view, NULL);
	compare("parallel-vs-sequential", parallel, sequential, W, H, 0, 0, 0);
	/* and both match the reference */
	uint32_t *expected = reference(W, H, &view);
	compare("busy", parallel, expected, W, H, TRIANGLES, TRI_OUTLIERS,
			TRI_OUTLIER_MAX);
	uint32_t *cpu = cpu_render(W, H, &view, 3);
	compare("cpu-busy", cpu, expected, W, H, TRIANGLES, TRI_OUTLIERS,
			TRI_OUTLIER_MAX);
	free(cpu);
	free(sequential);
	free(parallel);
	free(expected);
	vr_target_destroy(target);
	ck_assert_int_eq(log_errors, 0);
}
END_TEST

START_TEST(test_primitives_damage) {
	/* redraw only a damaged region after a change: still equal to a full
	 * reference rendering */
	busy_scene();
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_draw_ellipse(c, (struct vr_rectf){ 0, 0, 30, 30 },
			&(struct vr_paint){ .color = { 1, 0, 0, 0.5f } });
	struct vr_node *moving = list_node(vr_canvas_finish(c), 100, 60);
	pixman_region32_t damage;
	pixman_region32_init(&damage);
	vr_tree_update(tree, NULL);
	struct vr_mat view = { .a = 1, .d = 1 };
	struct vr_target *target = vr_target_create(renderer, W, H);
	free(render(target, &view, NULL));
	vr_node_set_position(moving, 130.5f, 80.25f);
	vr_tree_update(tree, &damage);
	ck_assert(pixman_region32_not_empty(&damage));
	uint32_t *actual = render(target, &view, &damage);
	uint32_t *expected = reference(W, H, &view);
	compare("damage", actual, expected, W, H, TRIANGLES, TRI_OUTLIERS,
			TRI_OUTLIER_MAX);
	free(actual);
	free(expected);
	pixman_region32_fini(&damage);
	vr_target_destroy(target);
	ck_assert_int_eq(log_errors, 0);
}
END_TEST

START_TEST(test_primitives_glyphs_once) {
	/* Many tasks need the same new glyphs at once on several workers:
	 * each glyph is rasterised once (the others wait for it), and not
	 * again in the next frame. Each text lies over the previous node's
	 * rect, so the runs cannot batch: one task each. */
	for (int i = 0; i < 16; i++) {
		struct vr_canvas *c = vr_canvas_begin();
		struct vr_paint p = paint(0.9f, 0.9f, 0.8f, 1);
		vr_canvas_draw_rect(c, (struct vr_rectf){ 0, 0, 60, 14 }, &p);
		vr_canvas_draw_text(c, 2, 11, "WWWWWW",
				&(struct vr_font){ "DejaVu Sans", 9.5f, 400 },
				(struct vr_color){ 0, 0, 0, 1 });
		list_node(vr_canvas_finish(c), (float)(i % 4) * 8.0f, (float)i * 10.0f);
	}
	vr_tree_update(tree, NULL);
	vr_renderer_set_workers(renderer, 4);
	struct vr_mat view = { .a = 1, .d = 1 };
	struct vr_target *target = vr_target_create(renderer, W, H);
	size_t before = vr_glyph_atlas_rasterized();
	free(render(target, &view, NULL));
	ck_assert_uint_eq(vr_glyph_atlas_rasterized() - before, 1);
	uint32_t *actual = render(target, &view, NULL);
	ck_assert_uint_eq(vr_glyph_atlas_rasterized() - before, 1);
	uint32_t *expected = reference(W, H, &view);
	compare("glyphs-once", actual, expected, W, H, TEXT, 0, 0);
	free(actual);
	free(expected);
	vr_target_destroy(target);
	ck_assert_int_eq(log_errors, 0);
}
END_TEST

static Suite *primitives_suite(void) {
	Suite *s = suite_create("primitives");
	struct {
		const char *name;
		const TTest *tests[4];
	} cases[] = {
		{ "shapes",
				{ test_primitives_shapes, test_primitives_shapes_transformed,
						test_primitives_clips } },
		{ "triangles", { test_primitives_strokes, test_primitives_paths } },
		{ "images", { test_primitives_images } },
		{ "text",
				{ test_primitives_text, test_primitives_text_transformed,
						test_primitives_text_scrolled_clip } },
		{ "shadow",
				{ test_primitives_shadow,
						test_primitives_shadow_transformed } },
		{ "frames",
				{ test_primitives_parallel_identical, test_primitives_damage,
						test_primitives_glyphs_once } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TCase *tc = tcase_create(cases[i].name);
		tcase_add_checked_fixture(tc, setup, teardown);
		tcase_set_timeout(tc, 120);
		for (int j = 0; j < 4 && cases[i].tests[j] != NULL; j++) {
			tcase_add_test(tc, cases[i].tests[j]);
		}
		suite_add_tcase(s, tc);
	}
	return s;
}

int main(void) {
	return run_vulkan_suite(primitives_suite());
}
