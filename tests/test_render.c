/*
 * Render tests: the Vulkan renderer against the pixman reference renderer.
 *
 * Tolerances (largest per-channel difference, 8-bit):
 *   PIXEL_EXACT (1): solid colours, opacity, clips, images mapped 1:1 in
 *     any buffer transform; only rounding of the blend may differ.
 *   BILINEAR (3): scaled images; the GPU filters with more fractional
 *     precision than pixman's 7-bit bilinear weights.
 * A failing comparison writes <name>-actual.png, -expected.png and
 * -diff.png into $VITRAIL_TEST_OUT.
 */
#include <check.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vitrail/canvas.h>
#include <vitrail/renderer.h>

#include "render_fixture.h"

#define PIXEL_EXACT 1
#define BILINEAR 3
/* group opacity over blurred shadows: test-primitives' SHADOW tolerance */
#define GROUP_SHADOW 2

static struct vr_node *rect(struct vr_node *parent, float x, float y, float w,
		float h, struct vr_color color) {
	struct vr_node *node = vr_node_create(tree);
	vr_node_set_position(node, x, y);
	vr_node_set_rect(node, w, h, color);
	vr_node_set_parent(node, parent);
	return node;
}

static struct vr_node *group(struct vr_node *parent, float x, float y) {
	struct vr_node *node = vr_node_create(tree);
	vr_node_set_position(node, x, y);
	vr_node_set_parent(node, parent);
	return node;
}

static struct vr_node *image_node(struct vr_node *parent, float x, float y,
		struct vr_image *image, const struct vr_rectf *src, float w, float h,
		enum vr_transform transform) {
	struct vr_node *node = vr_node_create(tree);
	vr_node_set_position(node, x, y);
	vr_node_set_image(node, image, src, w, h, transform);
	vr_node_set_parent(node, parent);
	return node;
}

/* Premultiplied BGRA pixel from straight components. */
static uint32_t pixel(uint8_t r, uint8_t g, uint8_t b, uint8_t a) {
	uint32_t pr = (r * a + 127) / 255, pg = (g * a + 127) / 255;
	uint32_t pb = (b * a + 127) / 255;
	return (uint32_t)a << 24 | pr << 16 | pg << 8 | pb;
}

/* An image with a distinct colour per pixel (and optional alpha ramp). */
static struct vr_image *pattern_image(int32_t w, int32_t h,
		enum vr_format format, bool translucent) {
	struct vr_image *image = vr_image_create(w, h, format);
	ck_assert_ptr_nonnull(image);
	uint32_t *data = malloc((size_t)w * (size_t)h * 4);
	for (int32_t y = 0; y < h; y++) {
		for (int32_t x = 0; x < w; x++) {
			uint8_t a = translucent ? (uint8_t)(64 + (x * 191) / w) : 255;
			uint32_t p = pixel((uint8_t)(x * 255 / w), (uint8_t)(y * 255 / h),
					(uint8_t)((x + y) * 37), a);
			if (format == VR_FORMAT_XRGB8888) {
				/* garbage alpha must be ignored */
				p = (p & 0x00ffffff) | (uint32_t)((x * 7) & 0xff) << 24;
			}
			data[y * w + x] = p;
		}
	}
	vr_image_write(image, data, w * 4, NULL);
	free(data);
	return image;
}

/* Smooth pixels: bilinear filtering of them is well conditioned. */
static void write_smooth(struct vr_image *image) {
	int32_t w = vr_image_width(image), h = vr_image_height(image);
	uint32_t *data = malloc((size_t)w * (size_t)h * 4);
	for (int32_t y = 0; y < h; y++) {
		for (int32_t x = 0; x < w; x++) {
			double fx = (double)x / (w - 1), fy = (double)y / (h - 1);
			data[y * w + x] =
					pixel((uint8_t)lround(255 * fx), (uint8_t)lround(255 * fy),
							(uint8_t)lround(255 * (0.5 + 0.5 * sin(6 * fx))),
							(uint8_t)lround(128 + 127 * fy));
		}
	}
	vr_image_write(image, data, w * 4, NULL);
	free(data);
}

/* A smooth image: bilinear filtering of it is well conditioned. */
static struct vr_image *smooth_image(int32_t w, int32_t h) {
	struct vr_image *image = vr_image_create(w, h, VR_FORMAT_ARGB8888);
	write_smooth(image);
	return image;
}

/* The reference rendering of the (updated) tree. Caller frees. */
static uint32_t *reference(int32_t w, int32_t h, const struct vr_mat *view,
		struct vr_color clear) {
	uint32_t *pixels = calloc((size_t)w * (size_t)h, 4);
	pixman_image_t *dst =
			pixman_image_create_bits(PIXMAN_a8r8g8b8, w, h, pixels, w * 4);
	vr_reference_render(tree, dst, view, clear);
	pixman_image_unref(dst);
	return pixels;
}

static uint32_t *read_target(struct vr_target *target) {
	int32_t w = vr_target_width(target), h = vr_target_height(target);
	uint32_t *pixels = calloc((size_t)w * (size_t)h, 4);
	vr_target_read(target, NULL, pixels, w * 4);
	return pixels;
}

/* Compare and write images on failure; returns the max difference. */
static int compare(const char *name, const uint32_t *actual,
		const uint32_t *expected, int32_t w, int32_t h, int tolerance) {
	int max_diff;
	size_t bad = vr_pixels_compare(actual, w * 4, expected, w * 4, w, h,
			tolerance, &max_diff);
	if (bad != 0) {
		write_failure_images(name, actual, expected, w, h);
	}
	ck_assert_msg(bad == 0,
			"%s: %zu pixels differ by more than %d "
			"(max %d)",
			name, bad, tolerance, max_diff);
	return max_diff;
}

/* Render the whole tree into a fresh w x h target with both renderers. */
static int render_compare(const char *name, int32_t w, int32_t h,
		const struct vr_mat *view, struct vr_color clear, int tolerance) {
	vr_tree_update(tree, NULL);
	struct vr_target *target = vr_target_create(renderer, w, h);
	ck_assert_ptr_nonnull(target);
	struct vr_render_job job = { .target = target, .clear = clear };
	if (view != NULL) {
		job.view = *view;
	} else {
		vr_mat_identity(&job.view);
	}
	ck_assert(vr_render(renderer, tree, &job, 1));
	uint32_t *actual = read_target(target);
	uint32_t *expected = reference(w, h, &job.view, clear);
	int max_diff = compare(name, actual, expected, w, h, tolerance);
	fprintf(stderr, "%s: max difference %d (tolerance %d)\n", name, max_diff,
			tolerance);
	free(actual);
	free(expected);
	vr_target_destroy(target);
	assert_no_errors();
	return max_diff;
}

static uint32_t at(const uint32_t *pixels, int32_t w, int32_t x, int32_t y) {
	return pixels[y * w + x];
}

/* ---- solid colours ------------------------------------------------------ */

START_TEST(test_render_solid_rects) {
	rect(root, 10, 10, 50, 30, (struct vr_color){ 1, 0, 0, 1 });
	rect(root, 40, 20, 50, 50, (struct vr_color){ 0, 0.5f, 1, 1 });
	rect(root, -10, 60, 200, 10, (struct vr_color){ 0.2f, 0.8f, 0.3f, 1 });
	render_compare("solid_rects", 120, 90, NULL,
			(struct vr_color){ 0.1f, 0.1f, 0.1f, 1 }, PIXEL_EXACT);

	/* spot check against hand-computed values, not only the oracle */
	vr_tree_update(tree, NULL);
	struct vr_target *target = vr_target_create(renderer, 120, 90);
	struct vr_render_job job = { .target = target, .clear = { 0, 0, 0, 0 } };
	vr_mat_identity(&job.view);
	ck_assert(vr_render(renderer, tree, &job, 1));
	uint32_t *px = read_target(target);
	ck_assert_uint_eq(at(px, 120, 10, 10), 0xffff0000u);
	ck_assert_uint_eq(at(px, 120, 9, 10), 0x00000000u);
	ck_assert_uint_eq(at(px, 120, 89, 69), 0xff33cc4du);
	ck_assert_uint_eq(at(px, 120, 0, 65), 0xff33cc4du);
	free(px);
	vr_target_destroy(target);
	assert_no_errors();
}
END_TEST

START_TEST(test_render_translucent_opacity) {
	rect(root, 0, 0, 60, 60, (struct vr_color){ 1, 1, 1, 1 });
	rect(root, 10, 10, 40, 40, (struct vr_color){ 1, 0, 0, 0.5f });
	struct vr_node *g = group(root, 20, 20);
	vr_node_set_opacity(g, 0.5f);
	struct vr_node *inner =
			rect(g, 0, 0, 30, 30, (struct vr_color){ 0, 0, 1, 0.8f });
	vr_node_set_opacity(inner, 0.6f); /* multiplied: 0.3 */
	rect(g, 15, 15, 30, 30, (struct vr_color){ 0, 1, 0, 1 });
	render_compare("translucent_opacity", 80, 80, NULL,
			(struct vr_color){ 0, 0, 0, 0 }, PIXEL_EXACT);
}
END_TEST

START_TEST(test_render_nested_clips) {
	struct vr_node *a = group(root, 10, 10);
	vr_node_set_clip(a, &(struct vr_rectf){ 0, 0, 60, 40 });
	struct vr_node *b = group(a, 20, 5);
	vr_node_set_clip(b, &(struct vr_rectf){ -5, -5, 30, 100 });
	rect(b, -50, -50, 200, 200, (struct vr_color){ 0, 1, 0, 1 });
	rect(a, -10, 30, 200, 30, (struct vr_color){ 1, 0, 1, 0.7f });
	/* clip on a node with content applies to its own content too */
	struct vr_node *c =
			rect(root, 70, 60, 40, 40, (struct vr_color){ 1, 1, 0, 1 });
	vr_node_set_clip(c, &(struct vr_rectf){ 10, 10, 10, 100 });
	render_compare("nested_clips", 120, 100, NULL,
			(struct vr_color){ 0, 0, 0.2f, 1 }, PIXEL_EXACT);
}
END_TEST

/* ---- images ------------------------------------------------------------- */

START_TEST(test_render_xrgb_argb) {
	struct vr_image *xrgb = pattern_image(32, 24, VR_FORMAT_XRGB8888, false);
	struct vr_image *argb = pattern_image(32, 24, VR_FORMAT_ARGB8888, true);
	rect(root, 0, 0, 100, 60, (struct vr_color){ 0.2f, 0.4f, 0.6f, 1 });
	image_node(root, 5, 5, xrgb, NULL, 32, 24, VR_TRANSFORM_NORMAL);
	image_node(root, 45, 5, argb, NULL, 32, 24, VR_TRANSFORM_NORMAL);
	struct vr_node *faded =
			image_node(root, 25, 30, argb, NULL, 32, 24, VR_TRANSFORM_NORMAL);
	vr_node_set_opacity(faded, 0.4f);
	/* a sub-rectangle of the image, still 1:1 */
	image_node(root, 70, 35, xrgb, &(struct vr_rectf){ 8, 4, 16, 12 }, 16, 12,
			VR_TRANSFORM_NORMAL);
	vr_image_unref(xrgb);
	vr_image_unref(argb);
	render_compare("xrgb_argb", 100, 60, NULL, (struct vr_color){ 0, 0, 0, 0 },
			PIXEL_EXACT);

	/* the XRGB image is opaque whatever its alpha bytes say */
	vr_tree_update(tree, NULL);
	struct vr_target *target = vr_target_create(renderer, 100, 60);
	struct vr_render_job job = { .target = target };
	vr_mat_identity(&job.view);
	ck_assert(vr_render(renderer, tree, &job, 1));
	uint32_t *px = read_target(target);
	for (int x = 5; x < 37; x++) {
		ck_assert_uint_eq(at(px, 100, x, 10) >> 24, 0xff);
	}
	free(px);
	vr_target_destroy(target);
}
END_TEST

START_TEST(test_render_buffer_transforms) {
	/* 6x4 image, every pixel distinct; nearest sampling (1:1) */
	struct vr_image *image = pattern_image(6, 4, VR_FORMAT_ARGB8888, false);
	const uint32_t *data = vr_image_data(image, NULL);
	for (int t = 0; t < 8; t++) {
		bool swap = t & 1;
		float w = swap ? 4 : 6, h = swap ? 6 : 4;
		image_node(root, 2 + 10 * (float)t, 3, image, NULL, w, h,
				(enum vr_transform)t);
	}
	/* and scaled x2 with a sub-rectangle, bilinear */
	for (int t = 0; t < 8; t++) {
		bool swap = t & 1;
		float w = swap ? 6 : 10, h = swap ? 10 : 6;
		image_node(root, 2 + 14 * (float)t, 20, image,
				&(struct vr_rectf){ 1, 1, 5, 3 }, w, h, (enum vr_transform)t);
	}
	render_compare("buffer_transforms", 120, 40, NULL,
			(struct vr_color){ 0, 0, 0, 1 }, BILINEAR);

	/* exact pixels against wl_output_transform semantics */
	vr_tree_update(tree, NULL);
	struct vr_target *target = vr_target_create(renderer, 120, 40);
	struct vr_render_job job = { .target = target };
	vr_mat_identity(&job.view);
	ck_assert(vr_render(renderer, tree, &job, 1));
	uint32_t *px = read_target(target);
	/* NORMAL: buffer (0,0) top-left */
	ck_assert_uint_eq(at(px, 120, 2, 3), data[0]);
	/* 90: buffer (0,0) at the top-right, buffer x runs down */
	ck_assert_uint_eq(at(px, 120, 12 + 3, 3), data[0]);
	ck_assert_uint_eq(at(px, 120, 12 + 3, 3 + 5), data[5]);
	/* 180: buffer (0,0) bottom-right */
	ck_assert_uint_eq(at(px, 120, 22 + 5, 3 + 3), data[0]);
	/* 270: buffer (0,0) bottom-left, buffer x runs up */
	ck_assert_uint_eq(at(px, 120, 32, 3 + 5), data[0]);
	ck_assert_uint_eq(at(px, 120, 32 + 3, 3 + 5), data[3 * 6]);
	/* FLIPPED: buffer (0,0) top-right */
	ck_assert_uint_eq(at(px, 120, 42 + 5, 3), data[0]);
	/* FLIPPED_90: buffer (0,0) top-left, buffer x runs down */
	ck_assert_uint_eq(at(px, 120, 52, 3), data[0]);
	ck_assert_uint_eq(at(px, 120, 52, 3 + 5), data[5]);
	/* FLIPPED_180: buffer (0,0) bottom-left */
	ck_assert_uint_eq(at(px, 120, 62, 3 + 3), data[0]);
	/* FLIPPED_270: buffer (0,0) bottom-right */
	ck_assert_uint_eq(at(px, 120, 72 + 3, 3 + 5), data[0]);
	free(px);
	vr_target_destroy(target);
	vr_image_unref(image);
	assert_no_errors();
}
END_TEST

START_TEST(test_render_scaled_bilinear) {
	struct vr_image *image = smooth_image(16, 16);
	rect(root, 0, 0, 100, 100, (struct vr_color){ 1, 1, 1, 1 });
	image_node(root, 3, 4, image, NULL, 40, 40, VR_TRANSFORM_NORMAL);
	/* down-scaled, fractional source rectangle */
	image_node(root, 50, 5, image, &(struct vr_rectf){ 0.5f, 0.5f, 15, 15 }, 11,
			11, VR_TRANSFORM_90);
	/* scaled by an ancestor */
	struct vr_node *g = group(root, 50, 50);
	struct vr_mat m = { .a = 1.5f, .d = 2.5f, .tx = 50, .ty = 50 };
	vr_node_set_transform(g, &m);
	image_node(g, 0, 0, image, NULL, 16, 16, VR_TRANSFORM_NORMAL);
	vr_image_unref(image);
	render_compare("scaled_bilinear", 100, 100, NULL,
			(struct vr_color){ 0, 0, 0, 1 }, BILINEAR);

	/* a view scaling the whole output (HiDPI) */
	struct vr_mat view = { .a = 2, .d = 2, .tx = -10, .ty = -10 };
	render_compare("scaled_view", 180, 180, &view,
			(struct vr_color){ 0, 0, 0, 1 }, BILINEAR);
}
END_TEST

START_TEST(test_render_rotated) {
	/* arbitrary rotation: edges may differ between rasterisers, so count
	 * the pixels off by more than the bilinear tolerance */
	struct vr_node *g = group(root, 0, 0);
	float c = cosf(0.3f), s = sinf(0.3f);
	struct vr_mat m = { .a = c, .b = s, .c = -s, .d = c, .tx = 40, .ty = 10 };
	vr_node_set_transform(g, &m);
	rect(g, 0, 0, 30, 20, (struct vr_color){ 1, 0.5f, 0, 1 });
	struct vr_image *image = smooth_image(16, 16);
	image_node(g, 5, 25, image, NULL, 30, 30, VR_TRANSFORM_NORMAL);
	vr_image_unref(image);
	vr_tree_update(tree, NULL);
	struct vr_target *target = vr_target_create(renderer, 80, 80);
	struct vr_render_job job = { .target = target };
	vr_mat_identity(&job.view);
	ck_assert(vr_render(renderer, tree, &job, 1));
	uint32_t *actual = read_target(target);
	uint32_t *expected = reference(80, 80, &job.view, job.clear);
	int max;
	size_t bad = vr_pixels_compare(actual, 80 * 4, expected, 80 * 4, 80, 80,
			BILINEAR, &max);
	fprintf(stderr, "rotated: %zu edge pixels differ (max %d)\n", bad, max);
	if (bad > 40) {
		write_failure_images("rotated", actual, expected, 80, 80);
	}
	ck_assert_uint_le(bad, 40); /* a few edge pixels of ~1800 covered */
	free(actual);
	free(expected);
	vr_target_destroy(target);
	assert_no_errors();
}
END_TEST

/* ---- damage and persistence --------------------------------------------- */

START_TEST(test_render_partial_damage) {
	const int32_t W = 100, H = 80;
	struct vr_node *a =
			rect(root, 10, 10, 30, 30, (struct vr_color){ 1, 0, 0, 1 });
	struct vr_node *b =
			rect(root, 60, 30, 30, 30, (struct vr_color){ 0, 1, 0, 1 });
	rect(root, 20, 20, 60, 20, (struct vr_color){ 0, 0, 1, 0.5f });
	pixman_region32_t damage;
	pixman_region32_init(&damage);
	vr_tree_update(tree, &damage);
	struct vr_target *target = vr_target_create(renderer, W, H);
	struct vr_render_job job = { .target = target,
		.damage = NULL,
		.clear = { 0.5f, 0.5f, 0.5f, 1 } };
	vr_mat_identity(&job.view);
	ck_assert(vr_render(renderer, tree, &job, 1));
	uint32_t *before = read_target(target);
	uint32_t *expected = reference(W, H, &job.view, job.clear);
	compare("partial_damage_full", before, expected, W, H, PIXEL_EXACT);
	free(expected);

	/* change a (and b), but render only a's damage */
	vr_node_set_rect(a, 30, 30, (struct vr_color){ 1, 1, 0, 1 });
	pixman_region32_clear(&damage);
	vr_tree_update(tree, &damage);
	vr_node_set_rect(b, 30, 30, (struct vr_color){ 0, 1, 1, 1 });
	vr_tree_update(tree, NULL); /* b's damage is dropped on purpose */
	job.damage = &damage;
	ck_assert(vr_render(renderer, tree, &job, 1));
	uint32_t *after = read_target(target);
	expected = reference(W, H, &job.view, job.clear);
	for (int32_t y = 0; y < H; y++) {
		for (int32_t x = 0; x < W; x++) {
			bool in = pixman_region32_contains_point(&damage, x, y, NULL);
			uint32_t want = in ? at(expected, W, x, y) : at(before, W, x, y);
			uint32_t got = at(after, W, x, y);
			/* damaged pixels are new, the rest persists exactly */
			if (!in) {
				ck_assert_msg(got == want, "(%d,%d) not kept", x, y);
			} else {
				int max;
				ck_assert_msg(vr_pixels_compare(&got, 4, &want, 4, 1, 1,
									  PIXEL_EXACT, &max) == 0,
						"(%d,%d) not redrawn", x, y);
			}
		}
	}
	/* b kept its stale colour: damage really limited the redraw */
	ck_assert_uint_eq(at(after, W, 85, 55), 0xff00ff00u);
	ck_assert_uint_eq(at(after, W, 12, 12), 0xffffff00u);
	ck_assert_uint_lt(job.timing.draws, 3 + 1);

	/* many damage rectangles: redraws their extents, still correct */
	pixman_region32_clear(&damage);
	for (int i = 0; i < 40; i++) {
		pixman_region32_union_rect(&damage, &damage, 2 * i, i, 1, 1);
	}
	vr_node_set_rect(b, 30, 30, (struct vr_color){ 0, 1, 1, 1 });
	vr_tree_update(tree, NULL);
	ck_assert(vr_render(renderer, tree, &job, 1));
	free(after);
	after = read_target(target);
	/* a full redraw now matches the reference everywhere */
	job.damage = NULL;
	ck_assert(vr_render(renderer, tree, &job, 1));
	free(after);
	after = read_target(target);
	compare("partial_damage_final", after, expected, W, H, PIXEL_EXACT);

	/* an empty damage draws nothing and keeps everything */
	pixman_region32_clear(&damage);
	job.damage = &damage;
	ck_assert(vr_render(renderer, tree, &job, 1));
	ck_assert_uint_eq(job.timing.draws, 0);
	uint32_t *same = read_target(target);
	ck_assert_int_eq(memcmp(same, after, (size_t)W * H * 4), 0);
	free(same);

	free(before);
	free(after);
	free(expected);
	pixman_region32_fini(&damage);
	vr_target_destroy(target);
	assert_no_errors();
}
END_TEST

/* A card: a blurred shadow under a white rounded rect, with a
 * translucent ellipse and a square overlapping on it in a nested group,
 * and a flattened group of two rects side by side. */
static void group_opacity_scene(void) {
	struct vr_canvas *c = vr_canvas_begin();
	struct vr_radii radii = { 6, 6, 6, 6 };
	vr_canvas_draw_shadow(c, (struct vr_rectf){ 14, 16, 60, 40 }, radii, 10,
			(struct vr_color){ 0, 0, 0, 0.7f });
	vr_canvas_draw_rrect(c, (struct vr_rectf){ 10, 10, 60, 40 }, radii,
			&(struct vr_paint){ .color = { 1, 1, 1, 1 } });
	struct vr_display_list *list = vr_canvas_finish(c);
	struct vr_node *card = vr_node_create(tree);
	vr_node_set_display_list(card, list);
	vr_display_list_unref(list);
	vr_node_set_opacity(card, 0.4f);
	vr_node_set_parent(card, root);
	struct vr_node *inner = group(card, 20, 20);
	vr_node_set_opacity(inner, 0.7f);
	c = vr_canvas_begin();
	vr_canvas_draw_ellipse(c, (struct vr_rectf){ 0, 0, 24, 20 },
			&(struct vr_paint){ .color = { 0.9f, 0.2f, 0.1f, 0.8f } });
	list = vr_canvas_finish(c);
	struct vr_node *ellipse = vr_node_create(tree);
	vr_node_set_display_list(ellipse, list);
	vr_display_list_unref(list);
	vr_node_set_parent(ellipse, inner);
	rect(inner, 12, 8, 20, 16, (struct vr_color){ 0.1f, 0.3f, 1, 0.6f });
	struct vr_node *flat = group(root, 80, 10);
	vr_node_set_opacity(flat, 0.5f);
	rect(flat, 0, 0, 10, 30, (struct vr_color){ 0, 0.6f, 0.2f, 1 });
	rect(flat, 12, 0, 10, 30, (struct vr_color){ 0.6f, 0, 0.8f, 1 });
}

START_TEST(test_render_group_opacity) {
	const int32_t W = 112, H = 80;
	group_opacity_scene();
	const struct vr_color clear = { 0.8f, 0.85f, 0.9f, 1 };
	render_compare("group_opacity", W, H, NULL, clear, GROUP_SHADOW);
	/* turned and scaled as an output at 1.5 under transform 90 */
	const struct vr_mat turned = { 0, 1.5f, -1.5f, 0, 1.5f * H, 0 };
	render_compare("group_opacity_turned", (int32_t)(1.5f * H),
			(int32_t)(1.5f * W), &turned, clear, GROUP_SHADOW);

	/* the card and the nested group are layers, the side-by-side rects
	 * are not */
	vr_tree_update(tree, NULL);
	struct vr_target *target = vr_target_create(renderer, W, H);
	struct vr_render_job job = { .target = target, .clear = clear };
	vr_mat_identity(&job.view);
	ck_assert(vr_render(renderer, tree, &job, 1));
	ck_assert_uint_eq(job.timing.layers, 2);
	uint32_t *full = read_target(target);

	/* damage cutting through the layers: only the damaged part of a
	 * layer is drawn, in the same coordinates as the whole one: the
	 * same pixels, bit for bit (and outside damage nothing changes) */
	pixman_region32_t damage;
	pixman_region32_init_rect(&damage, 30, 25, 17, 40);
	pixman_region32_union_rect(&damage, &damage, 0, 0, 15, 12);
	job.damage = &damage;
	ck_assert(vr_render(renderer, tree, &job, 1));
	ck_assert_uint_eq(job.timing.layers, 2);
	uint32_t *partial = read_target(target);
	compare("group_opacity_partial", partial, full, W, H, 0);

	/* damage over the card's shadow's corner only, where the shadow
	 * and the card overlap too: the card's decision does not depend on
	 * damage (still a layer, of which a few pixels are drawn: the same
	 * pixels as a whole one); the nested group lies outside, not drawn
	 * at all */
	pixman_region32_fini(&damage);
	pixman_region32_init_rect(&damage, 60, 45, 30, 20);
	ck_assert(vr_render(renderer, tree, &job, 1));
	ck_assert_uint_eq(job.timing.layers, 1);
	free(partial);
	partial = read_target(target);
	compare("group_opacity_partial_edge", partial, full, W, H, 0);
	pixman_region32_fini(&damage);
	free(partial);
	free(full);
	vr_target_destroy(target);
	assert_no_errors();
}
END_TEST

START_TEST(test_render_two_targets) {
	rect(root, 0, 0, 300, 200, (struct vr_color){ 0.3f, 0.3f, 0.3f, 1 });
	rect(root, 50, 40, 100, 60, (struct vr_color){ 1, 0, 0, 0.8f });
	struct vr_image *image = pattern_image(40, 30, VR_FORMAT_ARGB8888, true);
	image_node(root, 130, 80, image, NULL, 40, 30, VR_TRANSFORM_NORMAL);
	vr_image_unref(image);
	vr_tree_update(tree, NULL);

	struct vr_target *t1 = vr_target_create(renderer, 160, 120);
	struct vr_target *t2 = vr_target_create(renderer, 90, 50);
	struct vr_render_job jobs[2] = {
		{ .target = t1, .clear = { 0, 0, 0, 1 } },
		{ .target = t2, .clear = { 0, 0, 1, 1 } },
	};
	vr_mat_identity(&jobs[0].view);
	/* the second output shows root (120, 70) at its origin */
	vr_mat_translate(&jobs[1].view, -120, -70);
	ck_assert(vr_render(renderer, tree, jobs, 2));
	ck_assert_uint_gt(jobs[0].timing.draws, 0);
	ck_assert_uint_gt(jobs[1].timing.draws, 0);
	for (int i = 0; i < 2; i++) {
		struct vr_target *t = jobs[i].target;
		int32_t w = vr_target_width(t), h = vr_target_height(t);
		uint32_t *actual = read_target(t);
		uint32_t *expected = reference(w, h, &jobs[i].view, jobs[i].clear);
		compare(i == 0 ? "two_targets_0" : "two_targets_1", actual, expected, w,
				h, PIXEL_EXACT);
		free(actual);
		free(expected);
	}
	vr_target_destroy(t1);
	vr_target_destroy(t2);
	assert_no_errors();
}
END_TEST

START_TEST(test_render_image_partial_update) {
	const int32_t W = 64, H = 48;
	struct vr_image *image = pattern_image(W, H, VR_FORMAT_XRGB8888, false);
	struct vr_node *n =
			image_node(root, 0, 0, image, NULL, W, H, VR_TRANSFORM_NORMAL);
	vr_tree_update(tree, NULL);
	struct vr_target *target = vr_target_create(renderer, W, H);
	struct vr_render_job job = { .target = target };
	vr_mat_identity(&job.view);
	ck_assert(vr_render(renderer, tree, &job, 1));
	ck_assert_uint_eq(job.timing.uploads, 1);

	/* new client pixels everywhere, but only (10,12) 8x5 is committed */
	uint32_t *fresh = malloc((size_t)W * H * 4);
	for (int i = 0; i < W * H; i++) {
		fresh[i] = 0xff123456u;
	}
	pixman_region32_t region, damage;
	pixman_region32_init_rect(&region, 10, 12, 8, 5);
	vr_image_write(image, fresh, W * 4, &region);
	vr_node_damage_content(n, &region);
	pixman_region32_init(&damage);
	vr_tree_update(tree, &damage);
	ck_assert(pixman_region32_equal(&damage, &region));
	job.damage = &damage;
	ck_assert(vr_render(renderer, tree, &job, 1));
	ck_assert_uint_eq(job.timing.uploads, 1);
	uint32_t *actual = read_target(target);
	uint32_t *expected = reference(W, H, &job.view, job.clear);
	compare("image_partial_update", actual, expected, W, H, PIXEL_EXACT);
	ck_assert_uint_eq(at(actual, W, 10, 12), 0xff123456u);
	ck_assert_uint_ne(at(actual, W, 9, 12), 0xff123456u);

	/* nothing written: nothing uploaded */
	ck_assert(vr_render(renderer, tree, &job, 1));
	ck_assert_uint_eq(job.timing.uploads, 0);

	/* a write outside the damaged area is uploaded but not redrawn */
	pixman_region32_t other;
	pixman_region32_init_rect(&other, 40, 30, 4, 4);
	vr_image_write(image, fresh, W * 4, &other);
	ck_assert(vr_render(renderer, tree, &job, 1));
	ck_assert_uint_eq(job.timing.uploads, 1);
	free(actual);
	actual = read_target(target);
	ck_assert_uint_ne(at(actual, W, 41, 31), 0xff123456u);
	job.damage = NULL;
	ck_assert(vr_render(renderer, tree, &job, 1));
	free(actual);
	actual = read_target(target);
	ck_assert_uint_eq(at(actual, W, 41, 31), 0xff123456u);

	pixman_region32_fini(&other);
	pixman_region32_fini(&region);
	pixman_region32_fini(&damage);
	free(fresh);
	free(actual);
	free(expected);
	vr_target_destroy(target);
	vr_image_unref(image);
	assert_no_errors();
}
END_TEST

/* A pixel per texel that tells texels apart (hashed coordinates), opaque,
 * with `salt` for a second version of the pixels. */
static uint32_t hashed_pixel(int32_t x, int32_t y, uint32_t salt) {
	uint32_t h = (uint32_t)x * 0x9e3779b1u ^ (uint32_t)y * 0x85ebca77u ^
			salt * 0xc2b2ae3du;
	h ^= h >> 15;
	return 0xff000000u | (h & 0x00ffffffu);
}

/* The texels of `box` (all: NULL) of image written as hashed_pixel. */
static void write_hashed(struct vr_image *image, const struct vr_box *box,
		uint32_t salt) {
	int32_t w = vr_image_width(image), h = vr_image_height(image);
	struct vr_box all = { 0, 0, w, h };
	box = box != NULL ? box : &all;
	uint32_t *data = malloc((size_t)box->width * (size_t)box->height * 4);
	ck_assert_ptr_nonnull(data);
	for (int32_t y = 0; y < box->height; y++) {
		for (int32_t x = 0; x < box->width; x++) {
			data[(size_t)y * box->width + x] =
					hashed_pixel(box->x + x, box->y + y, salt);
		}
	}
	ck_assert(vr_image_write_box(image, data, box->width * 4, box));
	free(data);
}

/* Render the tree into target (all of it) and compare with the
 * reference. */
static void render_check(const char *name, struct vr_target *target,
		int tolerance) {
	int32_t w = vr_target_width(target), h = vr_target_height(target);
	vr_tree_update(tree, NULL);
	struct vr_render_job job = { .target = target };
	vr_mat_identity(&job.view);
	ck_assert(vr_render(renderer, tree, &job, 1));
	uint32_t *actual = read_target(target);
	uint32_t *expected = reference(w, h, &job.view, job.clear);
	compare(name, actual, expected, w, h, tolerance);
	free(actual);
	free(expected);
}

/*
 * An image of more than 2048x2048 texels is uploaded only where frames
 * sample it (resources.c, LARGE_TEXELS): every frame must still show
 * exactly the reference wherever the image moves, whatever was written
 * while it was out of sight, scaled down whole, rotated.
 */
START_TEST(test_render_large_image_visible) {
	const int32_t S = 2304, W = 320, H = 240;
	struct vr_image *image = vr_image_create(S, S, VR_FORMAT_ARGB8888);
	ck_assert_ptr_nonnull(image);
	write_hashed(image, NULL, 1);
	struct vr_node *n = image_node(root, -1000, -900, image, NULL, S, S,
			VR_TRANSFORM_NORMAL);
	struct vr_target *target = vr_target_create(renderer, W, H);
	render_check("large_image_first", target, PIXEL_EXACT);

	/* texels never shown before come into sight */
	vr_node_set_position(n, -1500, -1200);
	render_check("large_image_moved", target, PIXEL_EXACT);

	/* written out of sight (its rows too: the old texels are pending
	 * only there), then shown */
	write_hashed(image, &(struct vr_box){ 100, 100, 200, 150 }, 2);
	write_hashed(image, &(struct vr_box){ 0, 1300, S, 16 }, 3);
	render_check("large_image_written_hidden", target, PIXEL_EXACT);
	vr_node_set_position(n, -50, -60);
	render_check("large_image_written_shown", target, PIXEL_EXACT);
	vr_node_set_position(n, -1400, -1250);
	render_check("large_image_rows_shown", target, PIXEL_EXACT);

	/* written where it shows, with partial damage */
	write_hashed(image, &(struct vr_box){ 1450, 1300, 40, 30 }, 4);
	vr_node_damage_content(n, NULL);
	render_check("large_image_written_visible", target, PIXEL_EXACT);

	/* new smooth pixels everywhere, the whole image scaled into the
	 * target (every texel may be sampled), then rotated */
	write_smooth(image);
	vr_node_set_position(n, 0, 0);
	vr_node_set_image(n, image, NULL, W, H, VR_TRANSFORM_NORMAL);
	render_check("large_image_scaled", target, BILINEAR);
	vr_node_set_position(n, -600, -700);
	vr_node_set_image(n, image, &(struct vr_rectf){ 10, 20, 1800, 2000 }, 1800,
			2000, VR_TRANSFORM_90);
	render_check("large_image_rotated", target, PIXEL_EXACT);

	vr_target_destroy(target);
	vr_image_unref(image);
	assert_no_errors();
}
END_TEST

START_TEST(test_render_image_lifetime) {
	/* an image dropped after drawing, a target and an image outliving
	 * nothing: ASan and validation check the frees */
	struct vr_image *image = pattern_image(8, 8, VR_FORMAT_ARGB8888, false);
	struct vr_node *n =
			image_node(root, 0, 0, image, NULL, 8, 8, VR_TRANSFORM_NORMAL);
	vr_tree_update(tree, NULL);
	struct vr_target *target = vr_target_create(renderer, 16, 16);
	struct vr_render_job job = { .target = target };
	vr_mat_identity(&job.view);
	ck_assert(vr_render(renderer, tree, &job, 1));
	vr_node_clear_content(n);
	vr_image_unref(image); /* last reference: GPU copy released */
	vr_tree_update(tree, NULL);
	ck_assert(vr_render(renderer, tree, &job, 1));
	uint32_t *px = read_target(target);
	ck_assert_uint_eq(at(px, 16, 3, 3), 0);

	/* an image alive when the renderer goes */
	struct vr_image *kept = pattern_image(8, 8, VR_FORMAT_ARGB8888, false);
	vr_node_set_image(n, kept, NULL, 8, 8, VR_TRANSFORM_NORMAL);
	vr_tree_update(tree, NULL);
	ck_assert(vr_render(renderer, tree, &job, 1));
	vr_target_destroy(target);
	vr_renderer_destroy(renderer);
	renderer = NULL;
	vr_image_unref(kept); /* the node still holds it */
	free(px);
	assert_no_errors();
}
END_TEST

/* ---- timing ------------------------------------------------------------- */

START_TEST(test_render_timing_1080p) {
	struct vr_image *image = pattern_image(400, 300, VR_FORMAT_ARGB8888, true);
	rect(root, 0, 0, 1920, 1080, (struct vr_color){ 0.2f, 0.3f, 0.4f, 1 });
	struct vr_node *last = NULL;
	for (int i = 0; i < 24; i++) {
		last = image_node(root, (float)(i % 6) * 300 + 20,
				(float)(i / 6) * 250 + 20, image, NULL, 400, 300,
				VR_TRANSFORM_NORMAL);
	}
	vr_image_unref(image);
	vr_tree_update(tree, NULL);
	struct vr_target *target = vr_target_create(renderer, 1920, 1080);
	struct vr_render_job job = { .target = target };
	vr_mat_identity(&job.view);
	ck_assert(vr_render(renderer, tree, &job, 1)); /* warm-up, uploads */
	ck_assert(vr_render(renderer, tree, &job, 1));
	const struct vr_frame_timing *t = &job.timing;
	ck_assert_uint_ge(t->end_ns, t->start_ns);
	ck_assert_uint_gt(t->gpu_ns, 0);
	ck_assert_uint_eq(t->draws, 25);
	ck_assert_uint_eq(t->uploads, 0);
	fprintf(stderr,
			"1920x1080 full frame: total %.2f ms (prepare %.3f, "
			"execute %.3f, commit %.3f, gpu %.2f, readback %.3f), %u draws\n",
			(t->end_ns - t->start_ns) / 1e6, t->prepare_ns / 1e6,
			t->execute_ns / 1e6, t->commit_ns / 1e6, t->gpu_ns / 1e6,
			t->readback_ns / 1e6, t->draws);

	/* a small damage: one 32x32 area of the top window */
	vr_node_set_position(last, 1520, 770);
	pixman_region32_t damage;
	pixman_region32_init_rect(&damage, 1600, 800, 32, 32);
	vr_tree_update(tree, NULL);
	job.damage = &damage;
	ck_assert(vr_render(renderer, tree, &job, 1));
	fprintf(stderr,
			"1920x1080 32x32 damage: total %.2f ms (prepare %.3f, "
			"execute %.3f, commit %.3f, gpu %.2f, readback %.3f), %u draws\n",
			(t->end_ns - t->start_ns) / 1e6, t->prepare_ns / 1e6,
			t->execute_ns / 1e6, t->commit_ns / 1e6, t->gpu_ns / 1e6,
			t->readback_ns / 1e6, t->draws);
	/* background + the four windows overlapping (1600, 800) */
	ck_assert_uint_eq(t->draws, 5);
	pixman_region32_fini(&damage);
	vr_target_destroy(target);
	assert_no_errors();
}
END_TEST

/* ---- PNG ---------------------------------------------------------------- */

START_TEST(test_render_png_roundtrip) {
	const int32_t W = 13, H = 7;
	uint32_t data[13 * 7];
	for (int i = 0; i < W * H; i++) {
		data[i] = pixel((uint8_t)(i * 19), (uint8_t)(i * 7), (uint8_t)(255 - i),
				(uint8_t)(i * 3));
	}
	char path[512];
	out_path(path, sizeof(path), "png_roundtrip", "tmp");
	ck_assert(vr_png_write(path, data, W, H, W * 4, false));
	int32_t w, h;
	uint32_t *back = vr_png_read(path, &w, &h);
	ck_assert_ptr_nonnull(back);
	ck_assert_int_eq(w, W);
	ck_assert_int_eq(h, H);
	int max;
	ck_assert_uint_eq(
			vr_pixels_compare(data, W * 4, back, W * 4, W, H, 0, &max), 0);
	free(back);

	/* opaque: RGB, alpha comes back as 255 */
	for (int i = 0; i < W * H; i++) {
		data[i] |= 0xff000000u;
	}
	ck_assert(vr_png_write(path, data, W, H, W * 4, true));
	back = vr_png_read(path, &w, &h);
	ck_assert_ptr_nonnull(back);
	ck_assert_uint_eq(
			vr_pixels_compare(data, W * 4, back, W * 4, W, H, 0, &max), 0);
	free(back);
	remove(path);

	/* compare counts and reports the largest difference */
	uint32_t x[2] = { 0xff000000u, 0xff000000u };
	uint32_t y[2] = { 0xff000002u, 0xff050000u };
	ck_assert_uint_eq(vr_pixels_compare(x, 8, y, 8, 2, 1, 2, &max), 1);
	ck_assert_int_eq(max, 5);
	ck_assert_ptr_null(vr_png_read("/nonexistent.png", &w, &h));
	log_errors = 0; /* that one was expected */
}
END_TEST

/* ---- frames in flight, output buffers -------------------------------------
 */

/* A page-aligned "output buffer" of w x h pixels with stride, filled with
 * sentinel, and its import; NULL import when the device cannot. */
struct out_buffer {
	uint32_t *data;
	size_t size;
	int32_t stride; /* bytes */
	struct vr_dst_buffer *dst;
};

static void out_buffer_init(struct out_buffer *b, int32_t w, int32_t h,
		int32_t stride, uint32_t sentinel) {
	b->stride = stride;
	b->size = ((size_t)stride * (size_t)h + 4095) / 4096 * 4096;
	b->data = aligned_alloc(4096, b->size);
	ck_assert_ptr_nonnull(b->data);
	for (size_t i = 0; i < b->size / 4; i++) {
		b->data[i] = sentinel;
	}
	b->dst = vr_dst_buffer_import(renderer, b->data, b->size, w, h, stride);
}

static void out_buffer_finish(struct out_buffer *b) {
	vr_dst_buffer_destroy(b->dst);
	free(b->data);
}

/* The w x h pixels of an out buffer, packed. Caller frees. */
static uint32_t *out_buffer_pixels(const struct out_buffer *b, int32_t w,
		int32_t h) {
	uint32_t *pixels = malloc((size_t)w * (size_t)h * 4);
	for (int32_t y = 0; y < h; y++) {
		memcpy(pixels + (size_t)y * (size_t)w,
				(const uint8_t *)b->data + (size_t)y * (size_t)b->stride,
				(size_t)w * 4);
	}
	return pixels;
}

#define INFLIGHT_FRAMES 6

static bool fd_readable(int fd, int timeout_ms) {
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	return poll(&pfd, 1, timeout_ms) == 1 && (pfd.revents & POLLIN);
}

START_TEST(test_render_frames_in_flight) {
	ck_assert_int_ge(VR_FRAMES_IN_FLIGHT, INFLIGHT_FRAMES);
	if (!vr_renderer_can_import_host(renderer)) {
		fprintf(stderr, "no host memory import: frames in flight only\n");
	}
	const int32_t sizes[2][2] = { { 80, 60 }, { 56, 40 } };
	rect(root, 0, 0, 200, 150, (struct vr_color){ 0.2f, 0.3f, 0.4f, 1 });
	struct vr_node *moving =
			rect(root, 5, 5, 30, 20, (struct vr_color){ 1, 0, 0, 0.7f });
	struct vr_image *image = pattern_image(24, 18, VR_FORMAT_ARGB8888, true);
	struct vr_node *picture =
			image_node(root, 30, 20, image, NULL, 24, 18, VR_TRANSFORM_NORMAL);
	struct vr_target *targets[2];
	struct vr_mat views[2];
	for (int j = 0; j < 2; j++) {
		targets[j] = vr_target_create(renderer, sizes[j][0], sizes[j][1]);
		ck_assert_ptr_nonnull(targets[j]);
		vr_mat_identity(&views[j]);
	}
	vr_mat_translate(&views[1], -20, -10);
	struct vr_color clear = { 0, 0, 0, 1 };

	struct out_buffer outs[INFLIGHT_FRAMES][2];
	uint32_t *expected[INFLIGHT_FRAMES][2];
	uint64_t ids[INFLIGHT_FRAMES];
	pixman_region32_t damage;
	pixman_region32_init(&damage);
	for (int f = 0; f < INFLIGHT_FRAMES; f++) {
		/* change the tree and an image right after the previous submit:
		 * the frames in flight must not see it */
		if (f > 0) {
			vr_node_set_position(moving, 5.0f + 9.0f * (float)f,
					5.0f + 4.0f * (float)f);
			uint32_t fresh[24 * 18];
			for (int i = 0; i < 24 * 18; i++) {
				fresh[i] = 0xff000000u | (uint32_t)(f * 40) << 16 |
						(uint32_t)(i * 7 & 0xff);
			}
			pixman_region32_t written;
			pixman_region32_init_rect(&written, 0, 0, 12, 9 + (unsigned)f);
			vr_image_write(image, fresh, 24 * 4, &written);
			pixman_region32_fini(&written);
			vr_node_damage_content(picture, NULL);
		}
		pixman_region32_clear(&damage);
		vr_tree_update(tree, &damage);
		struct vr_render_job jobs[2];
		for (int j = 0; j < 2; j++) {
			int32_t w = sizes[j][0], h = sizes[j][1];
			expected[f][j] = reference(w, h, &views[j], clear);
			out_buffer_init(&outs[f][j], w, h, w * 4, 0xdeadbeefu);
			jobs[j] = (struct vr_render_job){
				.target = targets[j],
				.view = views[j],
				/* the first frame redraws everything */
				.damage = f == 0 ? NULL : &damage,
				.clear = clear,
				.dst = outs[f][j].dst,
			};
		}
		/* damage is in root coordinates: the second job's view moves it */
		pixman_region32_t damage1;
		pixman_region32_init(&damage1);
		pixman_region32_copy(&damage1, &damage);
		pixman_region32_translate(&damage1, -20, -10);
		if (f > 0) {
			jobs[1].damage = &damage1;
		}
		ids[f] = vr_render_submit(renderer, tree, jobs, 2);
		pixman_region32_fini(&damage1);
		ck_assert_uint_ne(ids[f], 0);
		if (f > 0) {
			ck_assert_uint_eq(ids[f], ids[f - 1] + 1);
		}
		ck_assert(!vr_frame_poll(renderer, ids[f] + 1)); /* not submitted */
		ck_assert_uint_eq(jobs[0].timing.cpu_copies,
				outs[f][0].dst != NULL ? 0 : 1);
	}
	pixman_region32_fini(&damage);

	/* completion reaches the event loop through the fd */
	int fd = vr_renderer_get_fd(renderer);
	ck_assert_int_ge(fd, 0);
	ck_assert(vr_frame_wait(renderer, ids[INFLIGHT_FRAMES - 1],
			10ull * 1000 * 1000 * 1000));
	ck_assert(fd_readable(fd, 5000));
	ck_assert_uint_ge(vr_renderer_dispatch(renderer), ids[INFLIGHT_FRAMES - 1]);
	ck_assert(!fd_readable(fd, 0)); /* drained */
	for (int f = 0; f < INFLIGHT_FRAMES; f++) {
		/* in order: the last one done means every earlier one is */
		ck_assert(vr_frame_poll(renderer, ids[f]));
		for (int j = 0; j < 2; j++) {
			struct vr_frame_timing timing;
			ck_assert(
					vr_frame_get_timing(renderer, ids[f], (size_t)j, &timing));
			ck_assert_uint_ge(timing.end_ns, timing.start_ns);
			ck_assert_uint_gt(timing.gpu_ns, 0);
			ck_assert_uint_gt(timing.draws, 0);
			if (outs[f][j].dst == NULL) {
				continue;
			}
			ck_assert_uint_eq(timing.cpu_copies, 0);
			ck_assert(!timing.mirror_updated);
			int32_t w = sizes[j][0], h = sizes[j][1];
			uint32_t *actual = out_buffer_pixels(&outs[f][j], w, h);
			char name[64];
			snprintf(name, sizeof(name), "in_flight_%d_%d", f, j);
			compare(name, actual, expected[f][j], w, h, PIXEL_EXACT);
			free(actual);
		}
	}
	ck_assert(!vr_frame_get_timing(renderer, ids[0], 2,
			&(struct vr_frame_timing){ 0 }));
	/* the mirrors were not written (dst given): vr_target_read reads
	 * the stale pixels back from the images */
	for (int j = 0; j < 2; j++) {
		int32_t w = sizes[j][0], h = sizes[j][1];
		uint32_t *actual = read_target(targets[j]);
		compare(j == 0 ? "in_flight_read_0" : "in_flight_read_1", actual,
				expected[INFLIGHT_FRAMES - 1][j], w, h, PIXEL_EXACT);
		free(actual);
	}
	for (int f = 0; f < INFLIGHT_FRAMES; f++) {
		for (int j = 0; j < 2; j++) {
			out_buffer_finish(&outs[f][j]);
			free(expected[f][j]);
		}
	}
	vr_image_unref(image);
	for (int j = 0; j < 2; j++) {
		vr_target_destroy(targets[j]);
	}
	assert_no_errors();
}
END_TEST

START_TEST(test_render_dst_region) {
	if (!vr_renderer_can_import_host(renderer)) {
		fprintf(stderr, "no VK_EXT_external_memory_host: skipped\n");
		return;
	}
	const int32_t w = 64, h = 48, stride = (64 + 8) * 4;
	const uint32_t sentinel = 0x5a5a5a5au;
	rect(root, 0, 0, 64, 48, (struct vr_color){ 0, 0.5f, 0, 1 });
	rect(root, 10, 8, 30, 20, (struct vr_color){ 1, 1, 0, 0.5f });
	vr_tree_update(tree, NULL);
	struct vr_target *target = vr_target_create(renderer, w, h);
	struct out_buffer out;
	out_buffer_init(&out, w, h, stride, sentinel);
	ck_assert_ptr_nonnull(out.dst);
	pixman_region32_t region;
	pixman_region32_init_rect(&region, 4, 4, 20, 10);
	pixman_region32_union_rect(&region, &region, 30, 20, 50, 40); /* clipped */
	struct vr_render_job job = {
		.target = target,
		.clear = { 0, 0, 0, 1 },
		.dst = out.dst,
		.dst_region = &region,
		.update_mirror = true,
	};
	vr_mat_identity(&job.view);
	ck_assert(vr_render(renderer, tree, &job, 1));
	ck_assert(job.timing.mirror_updated);
	ck_assert_uint_eq(job.timing.cpu_copies, 0);
	ck_assert_uint_eq(job.timing.dst_rects, 2);
	uint32_t *expected = reference(w, h, &job.view, job.clear);
	for (int32_t y = 0; y < h; y++) {
		const uint32_t *row = (const uint32_t *)((const uint8_t *)out.data +
				(size_t)y * (size_t)stride);
		for (int32_t x = 0; x < stride / 4; x++) {
			bool inside = x < w &&
					pixman_region32_contains_point(&region, x, y, NULL);
			uint32_t want = inside ? at(expected, w, x, y) : sentinel;
			ck_assert_msg(row[x] == want, "(%d, %d): %08x, expected %08x", x, y,
					row[x], want);
		}
	}
	/* nothing after the last row either */
	for (size_t i = (size_t)stride * (size_t)h / 4; i < out.size / 4; i++) {
		ck_assert_uint_eq(out.data[i], sentinel);
	}
	/* update_mirror: the mirror has everything */
	uint32_t *mirror = read_target(target);
	compare("dst_region_mirror", mirror, expected, w, h, PIXEL_EXACT);
	free(mirror);
	free(expected);
	pixman_region32_fini(&region);

	/* unsuitable memory is refused (NULL, no error) */
	ck_assert_ptr_null(vr_dst_buffer_import(renderer, (uint8_t *)out.data + 4,
			out.size - 4096, w, h, stride));
	ck_assert_ptr_null(
			vr_dst_buffer_import(renderer, out.data, 16, w, h, stride));
	vr_dst_buffer_destroy(NULL);
	/* destroyed while a frame still writes into it: released later */
	job.dst_region = NULL;
	uint64_t id = vr_render_submit(renderer, tree, &job, 1);
	ck_assert_uint_ne(id, 0);
	vr_dst_buffer_destroy(out.dst);
	ck_assert(vr_frame_wait(renderer, id, UINT64_MAX));
	free(out.data);
	vr_target_destroy(target);
	assert_no_errors();
}
END_TEST

static Suite *render_suite(void) {
	Suite *s = suite_create("render");
	struct {
		const char *name;
		const TTest *tests[8];
	} cases[] = {
		{ "solid",
				{ test_render_solid_rects, test_render_translucent_opacity,
						test_render_nested_clips } },
		{ "images",
				{ test_render_xrgb_argb, test_render_buffer_transforms,
						test_render_scaled_bilinear, test_render_rotated,
						test_render_image_partial_update,
						test_render_image_lifetime,
						test_render_large_image_visible } },
		{ "damage", { test_render_partial_damage, test_render_two_targets } },
		{ "group opacity", { test_render_group_opacity } },
		{ "timing", { test_render_timing_1080p } },
		{ "async", { test_render_frames_in_flight, test_render_dst_region } },
		{ "png", { test_render_png_roundtrip } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TCase *tc = tcase_create(cases[i].name);
		tcase_add_checked_fixture(tc, setup, teardown);
		tcase_set_timeout(tc, 120);
		for (int j = 0; j < 8 && cases[i].tests[j] != NULL; j++) {
			tcase_add_test(tc, cases[i].tests[j]);
		}
		suite_add_tcase(s, tc);
	}
	return s;
}

int main(void) {
	return run_vulkan_suite(render_suite());
}
