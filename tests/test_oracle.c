/*
 * Independent oracles of the renderer: small trees built through the
 * public API, rendered by the Vulkan renderer (vr_render) and by the pixman
 * reference renderer (vr_reference_render), and specific pixels of both
 * compared with values worked out by hand in this file.
 *
 * The reference renderer shares preparation (prepare.c), batching, the
 * quad rules and the coverage functions with the Vulkan renderer, so the
 * render tests that compare the two cannot see a bug in what they share.
 * Here every expected value comes from plain arithmetic on the geometry
 * the test itself chose, with its derivation in a comment; nothing calls
 * the renderer to compute an expectation.
 *
 * Coverage rules the expectations rely on (the renderer's documented
 * behaviour, <vitrail/renderer.h> and <vitrail/canvas.h>):
 * - tree content (rect and image nodes) is aliased: a pixel is covered
 *   when its centre (x + 0.5, y + 0.5) lies inside the quad;
 * - display-list shapes are anti-aliased. Along a straight axis-aligned
 *   edge every sane rule gives the exact area coverage: the fraction of
 *   the pixel inside the edge. Elsewhere (corners, arcs) the expectation
 *   is the exact area (supersampled here) within the error of a
 *   distance-based approximation (at most 0.045 for a straight edge at
 *   45 degrees, up to 12 of 255), and also the distance rule itself
 *   (coverage = 0.5 - signed distance of the pixel centre, clamped),
 *   computed here from the circle's centre and radius;
 * - clip rectangles with integer edges keep the pixels whose centres lie
 *   inside them.
 *
 * Tolerances are at most 12 of 255 for the area oracles and 1 or 2
 * otherwise; an offset of half a pixel changes an edge pixel by about
 * 128 and a corner pixel by about 90, a wrong corner by 255.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vitrail/canvas.h>
#include <vitrail/renderer.h>

#include "render_fixture.h"

static const struct vr_color transparent = { 0, 0, 0, 0 };
static const struct vr_color white = { 1, 1, 1, 1 };

/* One pixel's expectation: every channel within tolerance of pixel. */
struct expect {
	int32_t x, y;
	uint32_t pixel; /* premultiplied A, R, G, B */
	int tolerance;
	const char *why;
};

/* The rendering of both renderers. */
struct renders {
	int32_t width, height;
	uint32_t *vulkan;
	uint32_t *reference;
	uint32_t layers; /* group-opacity layers of the Vulkan frame */
};

/* A grey pixel of coverage c of opaque white over transparent black. */
static uint32_t grey(double c) {
	uint32_t v = (uint32_t)lround(255.0 * c);
	return v << 24 | v << 16 | v << 8 | v;
}

static int channel_diff(uint32_t a, uint32_t b) {
	int worst = 0;
	for (int shift = 0; shift < 32; shift += 8) {
		int d = abs((int)((a >> shift) & 0xff) - (int)((b >> shift) & 0xff));
		worst = d > worst ? d : worst;
	}
	return worst;
}

static struct vr_node *rect_node(struct vr_node *parent, float x, float y,
		float w, float h, struct vr_color color) {
	struct vr_node *node = vr_node_create(tree);
	vr_node_set_position(node, x, y);
	vr_node_set_rect(node, w, h, color);
	vr_node_set_parent(node, parent);
	return node;
}

/* A node at the origin showing the canvas's display list. */
static struct vr_node *list_node(struct vr_node *parent,
		struct vr_canvas *canvas) {
	struct vr_display_list *list = vr_canvas_finish(canvas);
	ck_assert_ptr_nonnull(list);
	struct vr_node *node = vr_node_create(tree);
	vr_node_set_display_list(node, list);
	vr_display_list_unref(list);
	vr_node_set_parent(node, parent);
	return node;
}

/* Render the whole tree into a fresh target of w x h with both renderers
 * through view. */
static struct renders render_both_view(int32_t w, int32_t h,
		struct vr_color clear, const struct vr_mat *view) {
	vr_tree_update(tree, NULL);
	struct vr_target *target = vr_target_create(renderer, w, h);
	ck_assert_ptr_nonnull(target);
	struct vr_render_job job = { .target = target,
		.clear = clear,
		.view = *view };
	ck_assert(vr_render(renderer, tree, &job, 1));
	struct renders r = {
		.width = w,
		.height = h,
		.vulkan = calloc((size_t)w * (size_t)h, 4),
		.reference = calloc((size_t)w * (size_t)h, 4),
	};
	ck_assert(r.vulkan != NULL && r.reference != NULL);
	r.layers = job.timing.layers;
	vr_target_read(target, NULL, r.vulkan, w * 4);
	vr_target_destroy(target);
	pixman_image_t *dst =
			pixman_image_create_bits(PIXMAN_a8r8g8b8, w, h, r.reference, w * 4);
	vr_reference_render(tree, dst, &job.view, clear);
	pixman_image_unref(dst);
	assert_no_errors();
	return r;
}

/* The same with the identity view. */
static struct renders render_both(int32_t w, int32_t h, struct vr_color clear) {
	struct vr_mat identity;
	vr_mat_identity(&identity);
	return render_both_view(w, h, clear, &identity);
}

static void renders_finish(struct renders *r) {
	free(r->vulkan);
	free(r->reference);
}

/* Check one rendering against the expectations; on failure write it as
 * <name>-<which>.png and fail naming the first pixel that is off. */
static void check_pixels(const char *name, const char *which,
		const uint32_t *pixels, int32_t w, int32_t h,
		const struct expect *expects, size_t n) {
	for (size_t i = 0; i < n; i++) {
		const struct expect *e = &expects[i];
		ck_assert(e->x >= 0 && e->x < w && e->y >= 0 && e->y < h);
		uint32_t actual = pixels[e->y * w + e->x];
		if (channel_diff(actual, e->pixel) <= e->tolerance) {
			continue;
		}
		char path[512];
		out_path(path, sizeof(path), name, which);
		vr_png_write(path, pixels, w, h, w * 4, false);
		ck_abort_msg("%s (%s): pixel (%d, %d) is 0x%08x, expected "
					 "0x%08x within %d: %s (image: %s)",
				name, which, e->x, e->y, actual, e->pixel, e->tolerance, e->why,
				path);
	}
}

static void check_both(const char *name, const struct renders *r,
		const struct expect *expects, size_t n) {
	check_pixels(name, "vulkan", r->vulkan, r->width, r->height, expects, n);
	check_pixels(name, "reference", r->reference, r->width, r->height, expects,
			n);
}

#define CHECK_BOTH(name, renders, expects) \
	check_both((name), (renders), (expects), \
			sizeof(expects) / sizeof((expects)[0]))

/* ---- plain geometry, independent of the renderer ------------------------ */

/* A rounded rectangle [x0, x1] x [y0, y1] with one radius per corner
 * (top-left, top-right, bottom-right, bottom-left). */
struct rrect {
	double x0, y0, x1, y1;
	double tl, tr, br, bl;
};

static bool rrect_contains(const struct rrect *rr, double x, double y) {
	if (x < rr->x0 || x > rr->x1 || y < rr->y0 || y > rr->y1) {
		return false;
	}
	/* in a corner's r x r square, inside the quarter disc of radius r */
	double cx, cy, r;
	if (x < rr->x0 + rr->tl && y < rr->y0 + rr->tl) {
		cx = rr->x0 + rr->tl, cy = rr->y0 + rr->tl, r = rr->tl;
	} else if (x > rr->x1 - rr->tr && y < rr->y0 + rr->tr) {
		cx = rr->x1 - rr->tr, cy = rr->y0 + rr->tr, r = rr->tr;
	} else if (x > rr->x1 - rr->br && y > rr->y1 - rr->br) {
		cx = rr->x1 - rr->br, cy = rr->y1 - rr->br, r = rr->br;
	} else if (x < rr->x0 + rr->bl && y > rr->y1 - rr->bl) {
		cx = rr->x0 + rr->bl, cy = rr->y1 - rr->bl, r = rr->bl;
	} else {
		return true;
	}
	return (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r;
}

/* The exact area of pixel (px, py) inside rr, by 64 x 64 samples (an
 * error under 1/64 of the boundary's length in the pixel, 0.5 of 255). */
static double rrect_area(const struct rrect *rr, int32_t px, int32_t py) {
	const int n = 64;
	int inside = 0;
	for (int j = 0; j < n; j++) {
		for (int i = 0; i < n; i++) {
			inside +=
					rrect_contains(rr, px + (i + 0.5) / n, py + (j + 0.5) / n);
		}
	}
	return (double)inside / (n * n);
}

/* The distance rule at a pixel whose centre lies in the corner square of
 * the circle (cx, cy, r): 0.5 - (|centre - c| - r), clamped to [0, 1]. */
static double corner_distance_rule(int32_t px, int32_t py, double cx, double cy,
		double r) {
	double dx = px + 0.5 - cx, dy = py + 0.5 - cy;
	double c = 0.5 - (sqrt(dx * dx + dy * dy) - r);
	return c < 0.0 ? 0.0 : c > 1.0 ? 1.0 : c;
}

/* Two expectations for a pixel on a rounded corner: the exact area within
 * the distance approximation's error, and the distance rule itself. */
static void corner_expects(struct expect out[2], const struct rrect *rr,
		int32_t px, int32_t py, double cx, double cy, double r,
		uint32_t opaque) {
	double area = rrect_area(rr, px, py);
	double rule = corner_distance_rule(px, py, cx, cy, r);
	/* opaque colour scaled by coverage, per channel */
	uint32_t scaled[2] = { 0, 0 };
	double cov[2] = { area, rule };
	for (int k = 0; k < 2; k++) {
		for (int shift = 0; shift < 32; shift += 8) {
			double v = ((opaque >> shift) & 0xff) * cov[k];
			scaled[k] |= (uint32_t)lround(v) << shift;
		}
	}
	out[0] = (struct expect){ px, py, scaled[0], 12,
		"exact area of the pixel inside the rounded corner" };
	out[1] = (struct expect){ px, py, scaled[1], 2,
		"distance rule: 0.5 - (|centre - corner centre| - r)" };
}

/* ---- coverage of a rect at a fractional position ------------------------ */

START_TEST(test_oracle_rect_fractional_coverage) {
	/* A display-list rect from x = 10.25 to 20.75 and y = 4.75 to 8.5,
	 * opaque white over transparent black: a pixel's value is 255 times
	 * its coverage in every channel. Per column, the fraction of the
	 * pixel inside [10.25, 20.75]: 9 -> 0, 10 -> 11 - 10.25 = 0.75,
	 * 11..19 -> 1, 20 -> 20.75 - 20 = 0.75, 21 -> 0. Per row inside
	 * [4.75, 8.5]: 3 -> 0, 4 -> 5 - 4.75 = 0.25, 5..7 -> 1,
	 * 8 -> 8.5 - 8 = 0.5, 9 -> 0. */
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_draw_rect(c, (struct vr_rectf){ 10.25f, 4.75f, 10.5f, 3.75f },
			&(struct vr_paint){ .color = white });
	list_node(root, c);
	struct renders r = render_both(32, 14, transparent);
	const struct expect expects[] = {
		{ 15, 6, grey(1.0), 1, "interior" },
		{ 10, 6, grey(0.75), 1, "left edge: 11 - 10.25" },
		{ 20, 6, grey(0.75), 1, "right edge: 20.75 - 20" },
		{ 15, 4, grey(0.25), 1, "top edge: 5 - 4.75" },
		{ 15, 8, grey(0.5), 1, "bottom edge: 8.5 - 8" },
		{ 11, 6, grey(1.0), 1, "first full column" },
		{ 19, 7, grey(1.0), 1, "last full column" },
		{ 9, 6, 0, 0, "left of the rect" },
		{ 21, 6, 0, 0, "right of the rect" },
		{ 15, 3, 0, 0, "above the rect" },
		{ 15, 9, 0, 0, "below the rect" },
		/* corners: the exact area is the product 0.75 * 0.25 =
		 * 0.1875, the distance rule gives the smaller factor 0.25:
		 * accept [0.1875, 0.25] * 255 = [47.8, 63.75] */
		{ 10, 4, grey(0.21875), 9, "top-left corner: 0.75 x 0.25" },
		/* bottom-right: 0.75 x 0.5 = 0.375, rule 0.5: [95.6, 127.5] */
		{ 20, 8, grey(0.4375), 17, "bottom-right corner: 0.75 x 0.5" },
	};
	CHECK_BOTH("oracle_rect_fractional", &r, expects);
	renders_finish(&r);
}
END_TEST

START_TEST(test_oracle_node_rect_pixel_centres) {
	/* Tree rects are aliased: a pixel is drawn when its centre lies in
	 * the rect. Rect A spans x in [3.25, 13.75), y in [2.75, 7.25):
	 * centres i + 0.5 inside give columns 3..13 (3.5 >= 3.25,
	 * 13.5 < 13.75, 14.5 is out) and rows 3..6 (2.5 < 2.75 is out,
	 * 6.5 < 7.25, 7.5 is out). Rect B starts a quarter pixel later,
	 * x = 3.75 (width 2): 3.5 < 3.75, so its first column is 4 and its
	 * last 5 (5.5 < 5.75). The colour (0.2, 0.4, 0.6) is
	 * (51, 102, 153) = 0x336699. */
	const struct vr_color blue = { 0.2f, 0.4f, 0.6f, 1 };
	rect_node(root, 3.25f, 2.75f, 10.5f, 4.5f, blue);
	rect_node(root, 3.75f, 10.0f, 2.0f, 2.0f, blue);
	struct renders r = render_both(20, 14, transparent);
	const uint32_t in = 0xff336699;
	const struct expect expects[] = {
		{ 3, 3, in, 1, "A's top-left pixel: centre (3.5, 3.5)" },
		{ 13, 6, in, 1, "A's bottom-right pixel: centre (13.5, 6.5)" },
		{ 2, 3, 0, 0, "centre 2.5 < 3.25" },
		{ 14, 3, 0, 0, "centre 14.5 > 13.75" },
		{ 3, 2, 0, 0, "centre 2.5 < 2.75" },
		{ 3, 7, 0, 0, "centre 7.5 > 7.25" },
		{ 3, 10, 0, 0, "B: centre 3.5 < 3.75" },
		{ 4, 10, in, 1, "B: centre 4.5 in [3.75, 5.75)" },
		{ 5, 11, in, 1, "B: centre 5.5 in [3.75, 5.75)" },
		{ 6, 11, 0, 0, "B: centre 6.5 > 5.75" },
	};
	CHECK_BOTH("oracle_node_rect", &r, expects);
	renders_finish(&r);
}
END_TEST

/* ---- rounded corners ---------------------------------------------------- */

START_TEST(test_oracle_rrect_corners) {
	/* A rounded rect [8, 48] x [8, 38] with radii top-left 12,
	 * top-right 0, bottom-right 4, bottom-left 0, opaque white. Each
	 * corner has its own radius, so a radius applied at the wrong
	 * corner changes a whole pixel. */
	const struct rrect rr = { 8, 8, 48, 38, 12, 0, 4, 0 };
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_draw_rrect(c, (struct vr_rectf){ 8, 8, 40, 30 },
			(struct vr_radii){ .tl = 12, .tr = 0, .br = 4, .bl = 0 },
			&(struct vr_paint){ .color = white });
	list_node(root, c);
	struct renders r = render_both(56, 44, transparent);

	struct expect arcs[8];
	/* top-left circle: centre (20, 20), r 12. Pixel (11, 11): centre
	 * distance 8.5 * sqrt(2) = 12.02, on the arc (about half).
	 * Pixel (12, 11): sqrt(8.5^2 + 7.5^2) = 11.34, mostly inside.
	 * Pixel (10, 12): sqrt(9.5^2 + 7.5^2) = 12.10, about 0.4. */
	corner_expects(&arcs[0], &rr, 11, 11, 20, 20, 12, 0xffffffff);
	corner_expects(&arcs[2], &rr, 12, 11, 20, 20, 12, 0xffffffff);
	corner_expects(&arcs[4], &rr, 10, 12, 20, 20, 12, 0xffffffff);
	/* bottom-right circle: centre (44, 34), r 4. Pixel (46, 36):
	 * 2.5 * sqrt(2) = 3.54 from the centre, mostly inside. */
	corner_expects(&arcs[6], &rr, 46, 36, 44, 34, 4, 0xffffffff);
	CHECK_BOTH("oracle_rrect_arcs", &r, arcs);

	const struct expect expects[] = {
		/* top-left pixel (8, 8): its nearest point (9, 9) is
		 * 11 * sqrt(2) = 15.6 from (20, 20), beyond r = 12 */
		{ 8, 8, 0, 0, "top-left corner rounded away (r 12)" },
		{ 9, 9, 0, 0, "top-left corner rounded away (r 12)" },
		{ 47, 8, grey(1.0), 1, "top-right corner square (r 0)" },
		{ 8, 37, grey(1.0), 1, "bottom-left corner square (r 0)" },
		/* bottom-right pixel (47, 37): its nearest point (47, 37)
		 * is 3 * sqrt(2) = 4.24 from (44, 34), beyond r = 4 */
		{ 47, 37, 0, 0, "bottom-right corner rounded away (r 4)" },
		{ 28, 8, grey(1.0), 1, "top edge between the corners" },
		{ 28, 7, 0, 0, "above the top edge" },
		{ 48, 20, 0, 0, "right of the right edge" },
	};
	CHECK_BOTH("oracle_rrect_corners", &r, expects);
	renders_finish(&r);
}
END_TEST

START_TEST(test_oracle_clipped_rrect_corner) {
	/* Left: a rounded rect [4, 44] x [4, 34], r 10, opaque white, under
	 * a clip rect [0, 24] x [0, 40] (integer edges: the pixels with
	 * centres inside, columns 0..23). Its right half with both right
	 * corners is clipped away; the top-left corner stays.
	 * Right: a rounded clip [60, 100] x [4, 34], r 10, over a green
	 * rect that covers it all: the rect takes the clip's rounded
	 * corners. Green (0, 1, 0) = 0xff00ff00. */
	const struct rrect left = { 4, 4, 44, 34, 10, 10, 10, 10 };
	const struct rrect right = { 60, 4, 100, 34, 10, 10, 10, 10 };
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_save(c);
	vr_canvas_clip_rect(c, (struct vr_rectf){ 0, 0, 24, 40 });
	vr_canvas_draw_rrect(c, (struct vr_rectf){ 4, 4, 40, 30 },
			(struct vr_radii){ 10, 10, 10, 10 },
			&(struct vr_paint){ .color = white });
	vr_canvas_restore(c);
	vr_canvas_save(c);
	vr_canvas_clip_rrect(c, (struct vr_rectf){ 60, 4, 40, 30 },
			(struct vr_radii){ 10, 10, 10, 10 });
	vr_canvas_draw_rect(c, (struct vr_rectf){ 52, 0, 56, 40 },
			&(struct vr_paint){ .color = { 0, 1, 0, 1 } });
	vr_canvas_restore(c);
	list_node(root, c);
	struct renders r = render_both(108, 40, transparent);

	struct expect arcs[4];
	/* left, top-left circle (14, 14): pixel (6, 7) has its centre
	 * sqrt(7.5^2 + 6.5^2) = 9.92 away, on the arc */
	corner_expects(&arcs[0], &left, 6, 7, 14, 14, 10, 0xffffffff);
	/* right, bottom-right clip circle (90, 24): pixel (96, 31),
	 * sqrt(6.5^2 + 7.5^2) = 9.92 away */
	corner_expects(&arcs[2], &right, 96, 31, 90, 24, 10, 0xff00ff00);
	CHECK_BOTH("oracle_clipped_rrect_arcs", &r, arcs);

	const struct expect expects[] = {
		{ 23, 20, grey(1.0), 1, "last column inside the clip" },
		{ 24, 20, 0, 0, "first column outside the clip (24.5 > 24)" },
		{ 42, 5, 0, 0, "the clipped top-right corner" },
		{ 4, 4, 0, 0, "top-left corner rounded away" },
		{ 60, 4, 0, 0, "rounded clip's top-left corner" },
		{ 99, 33, 0, 0, "rounded clip's bottom-right corner" },
		{ 80, 20, 0xff00ff00, 1, "inside the rounded clip" },
		{ 59, 20, 0, 0, "left of the rounded clip" },
		{ 100, 20, 0, 0, "right of the rounded clip" },
	};
	CHECK_BOTH("oracle_clipped_rrect", &r, expects);
	renders_finish(&r);
}
END_TEST

/* A rounded clip on a node (vr_node_set_clip_rounded), applied at render
 * time to the draws of its descendants: a display list and a tree rect
 * that know nothing of it, moved under it without new display lists. */
START_TEST(test_oracle_node_rounded_clip) {
	/* Left: a node clipped to [4, 44] x [4, 34], r 10, over a child list
	 * of one white rect [0, 48] x [0, 40] (translated by 2, 3: it still
	 * covers the clip). Right: a node clipped to [60, 100] x [4, 34],
	 * r 10, over a green tree rect [52, 108] x [0, 40]. Both take the
	 * clip's rounded corners. */
	const struct rrect left = { 4, 4, 44, 34, 10, 10, 10, 10 };
	const struct rrect right = { 60, 4, 100, 34, 10, 10, 10, 10 };
	struct vr_node *lclip = vr_node_create(tree);
	vr_node_set_clip_rounded(lclip, &(struct vr_rectf){ 4, 4, 40, 30 }, 10);
	vr_node_set_parent(lclip, root);
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_draw_rect(c, (struct vr_rectf){ -2, -3, 48, 40 },
			&(struct vr_paint){ .color = white });
	struct vr_node *list = list_node(lclip, c);
	vr_node_set_position(list, 2, 3);
	struct vr_node *rclip = vr_node_create(tree);
	vr_node_set_clip_rounded(rclip, &(struct vr_rectf){ 60, 4, 40, 30 }, 10);
	vr_node_set_parent(rclip, root);
	struct vr_node *green =
			rect_node(rclip, 52, 0, 56, 40, (struct vr_color){ 0, 1, 0, 1 });
	struct renders r = render_both(108, 40, transparent);
	struct expect arcs[4];
	/* left, top-left circle (14, 14): pixel (6, 7) on the arc */
	corner_expects(&arcs[0], &left, 6, 7, 14, 14, 10, 0xffffffff);
	/* right, bottom-right circle (90, 24): pixel (96, 31) */
	corner_expects(&arcs[2], &right, 96, 31, 90, 24, 10, 0xff00ff00);
	CHECK_BOTH("oracle_node_rounded_clip_arcs", &r, arcs);
	const struct expect expects[] = {
		{ 4, 4, 0, 0, "left clip's top-left corner rounded away" },
		{ 43, 33, 0, 0, "left clip's bottom-right corner rounded away" },
		{ 24, 20, grey(1.0), 1, "inside the left clip" },
		{ 3, 20, 0, 0, "left of the left clip" },
		{ 60, 4, 0, 0, "right clip's top-left corner rounded away" },
		{ 99, 33, 0, 0, "right clip's bottom-right corner rounded away" },
		{ 80, 20, 0xff00ff00, 1, "inside the right clip" },
		{ 100, 20, 0, 0, "right of the right clip" },
	};
	CHECK_BOTH("oracle_node_rounded_clip", &r, expects);
	renders_finish(&r);

	/* Move both children by (3, -2): the clips stay where they are and
	 * still round what the children draw (the list: [1, 49] x [-2, 38],
	 * the rect [55, 111] x [-2, 38], both still covering their clip). */
	vr_node_set_position(list, 5, 1);
	vr_node_set_position(green, 55, -2);
	r = render_both(108, 40, transparent);
	CHECK_BOTH("oracle_node_rounded_clip_moved_arcs", &r, arcs);
	CHECK_BOTH("oracle_node_rounded_clip_moved", &r, expects);
	renders_finish(&r);

	/* A list with a rounded clip of its own under the node's: both
	 * keep their corners. The list's clip [24, 64] x [0, 40], r 10,
	 * crossed with the left node's [4, 44] x [4, 34], r 10: at (43, 4)
	 * and (43, 33) the node's corners (centres (34, 14), (34, 24), 13.4
	 * pixels away) are rounded away; at (24, 4) the list's (centre
	 * (34, 10), 11 pixels away) inside the node's rectangle. */
	vr_node_destroy(list);
	c = vr_canvas_begin();
	vr_canvas_clip_rrect(c, (struct vr_rectf){ 24, 0, 40, 40 },
			(struct vr_radii){ 10, 10, 10, 10 });
	vr_canvas_draw_rect(c, (struct vr_rectf){ 0, 0, 48, 40 },
			&(struct vr_paint){ .color = white });
	list_node(lclip, c);
	r = render_both(108, 40, transparent);
	const struct expect nested[] = {
		{ 43, 4, 0, 0, "the node's corner rounded away" },
		{ 43, 33, 0, 0, "the node's other corner rounded away" },
		{ 24, 4, 0, 0, "the list's own corner rounded away" },
		{ 38, 8, grey(1.0), 1, "inside both, near the node's corner" },
		{ 23, 20, 0, 0, "left of the list's own clip" },
		{ 30, 20, grey(1.0), 1, "inside both" },
		{ 44, 20, 0, 0, "right of the node's rectangle" },
	};
	CHECK_BOTH("oracle_node_rounded_clip_nested", &r, nested);
	renders_finish(&r);
}
END_TEST

/* ---- nested and rotated rounded clips (issue #13) ------------------------ */

/* Signed distance (pixels) from (px, py) to the rounded rectangle
 * [x0, x1] x [y0, y1] with radius r: outside its core rectangle
 * [x0 + r, x1 - r] x [y0 + r, y1 - r], the distance to the core's
 * nearest point (a corner's centre in a corner) minus r; inside the core,
 * -r (the true distance is at least that deep). Its sign, and its value
 * wherever it is above -r, are exact. */
static double rrect_distance(double px, double py, double x0, double y0,
		double x1, double y1, double r) {
	double cx = px < x0 + r ? x0 + r : px > x1 - r ? x1 - r : px;
	double cy = py < y0 + r ? y0 + r : py > y1 - r ? y1 - r : py;
	return hypot(px - cx, py - cy) - r;
}

/* The signed distance of a pixel centre to what a case covers. */
typedef double (*region_fn)(double x, double y);

/* Every pixel of both renderings (and of the CPU backend's, of the same
 * tree): `color` where the centre lies deeper than margin inside the
 * region, transparent where it lies farther than margin outside; the
 * anti-aliased band between is skipped. */
static void check_region(const char *name, const struct renders *r,
		region_fn region, double margin, uint32_t color) {
	struct expect *expects =
			calloc((size_t)r->width * (size_t)r->height, sizeof(*expects));
	ck_assert_ptr_nonnull(expects);
	size_t n = 0, inside = 0, outside = 0;
	for (int32_t y = 0; y < r->height; y++) {
		for (int32_t x = 0; x < r->width; x++) {
			double d = region(x + 0.5, y + 0.5);
			if (d < -margin) {
				expects[n++] =
						(struct expect){ x, y, color, 1, "inside every clip" };
				inside++;
			} else if (d > margin) {
				expects[n++] = (struct expect){ x, y, 0, 0, "outside a clip" };
				outside++;
			}
		}
	}
	ck_assert(inside > 0 && outside > 0);
	check_both(name, r, expects, n);
	/* the CPU backend evaluates the same primitive state */
	struct vr_cpu_renderer *cpu = vr_cpu_renderer_create(2);
	ck_assert_ptr_nonnull(cpu);
	uint32_t *pixels = calloc((size_t)r->width * (size_t)r->height, 4);
	ck_assert_ptr_nonnull(pixels);
	pixman_image_t *dst = pixman_image_create_bits(PIXMAN_a8r8g8b8, r->width,
			r->height, pixels, r->width * 4);
	struct vr_mat identity;
	vr_mat_identity(&identity);
	ck_assert(vr_cpu_render(cpu, tree, dst, &identity, transparent, NULL));
	pixman_image_unref(dst);
	vr_cpu_renderer_destroy(cpu);
	check_pixels(name, "cpu", pixels, r->width, r->height, expects, n);
	free(pixels);
	free(expects);
}

static const struct vr_color red = { 1, 0, 0, 1 };
#define RED 0xffff0000u

/* Case 1: an outer clip [0, 100]^2, r 20, and an inner one [50, 150]^2,
 * r 20, nested: the drawn pixels are the intersection, both clips'
 * corners rounded (the outer's bottom-right, centre (80, 80), and the
 * inner's top-left, centre (70, 70), are the ones inside the other). */
static double nested_region(double x, double y) {
	return fmax(rrect_distance(x, y, 0, 0, 100, 100, 20),
			rrect_distance(x, y, 50, 50, 150, 150, 20));
}

START_TEST(test_oracle_nested_rounded_clips) {
	struct vr_node *outer = vr_node_create(tree);
	vr_node_set_clip_rounded(outer, &(struct vr_rectf){ 0, 0, 100, 100 }, 20);
	vr_node_set_parent(outer, root);
	struct vr_node *inner = vr_node_create(tree);
	vr_node_set_clip_rounded(inner, &(struct vr_rectf){ 50, 50, 100, 100 }, 20);
	vr_node_set_parent(inner, outer);
	/* tree content (quads) filling everything */
	struct vr_node *fill = rect_node(inner, 0, 0, 160, 160, red);
	struct renders r = render_both(160, 160, transparent);
	/* a few by hand: (96, 96) is 22.6 from (80, 80): the outer's corner
	 * rounds it away (the inner alone covers it); (54, 54) is 22.6 from
	 * (70, 70): the inner's; (90, 60) lies inside both */
	const struct expect corners[] = {
		{ 96, 96, 0, 0, "the outer clip's bottom-right corner" },
		{ 54, 54, 0, 0, "the inner clip's top-left corner" },
		{ 90, 60, RED, 1, "inside both" },
		{ 60, 100, 0, 0, "below the outer clip" },
		{ 60, 99, RED, 1, "above the outer clip's bottom edge" },
	};
	CHECK_BOTH("oracle_nested_rclips_quads", &r, corners);
	check_region("oracle_nested_rclips_quads", &r, nested_region, 1.5, RED);
	renders_finish(&r);

	/* the same through a display list (shapes) */
	vr_node_destroy(fill);
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_draw_rect(c, (struct vr_rectf){ 0, 0, 160, 160 },
			&(struct vr_paint){ .color = red });
	list_node(inner, c);
	r = render_both(160, 160, transparent);
	check_region("oracle_nested_rclips_shapes", &r, nested_region, 1.5, RED);
	renders_finish(&r);
}
END_TEST

/* Case 2: a circle clip (rect [0, 64]^2, radius 32) turned by 30 degrees
 * about its centre, placed at (48, 48): the circle of radius 32 there,
 * not the rounded bounding box of the turned square (whose corners lie
 * 45 pixels from the centre). */
static double circle_region(double x, double y) {
	return hypot(x - 48.0, y - 48.0) - 32.0;
}

/* translate(48, 48) * rotate(30 degrees) * translate(-32, -32) */
static struct vr_mat turned_circle_mat(void) {
	double a = 3.14159265358979323846 / 6.0;
	float c = (float)cos(a), s = (float)sin(a);
	return (struct vr_mat){ .a = c,
		.b = s,
		.c = -s,
		.d = c,
		.tx = 48.0f - 32.0f * c + 32.0f * s,
		.ty = 48.0f - 32.0f * s - 32.0f * c };
}

START_TEST(test_oracle_rotated_rounded_clip) {
	struct vr_mat m = turned_circle_mat();
	struct vr_node *clip = vr_node_create(tree);
	vr_node_set_transform(clip, &m);
	vr_node_set_clip_rounded(clip, &(struct vr_rectf){ 0, 0, 64, 64 }, 32);
	vr_node_set_parent(clip, root);
	/* the turned square [0, 64]^2 filled: it holds the circle */
	struct vr_node *fill = rect_node(clip, 0, 0, 64, 64, red);
	struct renders r = render_both(96, 96, transparent);
	/* covered closer than 30 pixels to the centre, bare past 34; the
	 * turned square's corners, e.g. (48 - 32 cos 30 + 32 sin 30,
	 * 48 - 32 sin 30 - 32 cos 30) = (36.3, 4.3) (43.7 from the centre),
	 * were covered by the bounding-box approximation */
	const struct expect corners[] = {
		{ 36, 5, 0, 0, "the turned square's top corner" },
		{ 48, 48, RED, 1, "the centre" },
		{ 48, 19, RED, 1, "29 pixels above the centre" },
	};
	CHECK_BOTH("oracle_rotated_rclip_quads", &r, corners);
	check_region("oracle_rotated_rclip_quads", &r, circle_region, 2.0, RED);
	renders_finish(&r);

	/* a display list under it (shapes) */
	vr_node_destroy(fill);
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_draw_rect(c, (struct vr_rectf){ 0, 0, 64, 64 },
			&(struct vr_paint){ .color = red });
	struct vr_node *list = list_node(clip, c);
	r = render_both(96, 96, transparent);
	check_region("oracle_rotated_rclip_shapes", &r, circle_region, 2.0, RED);
	renders_finish(&r);

	/* the canvas's own rounded clip under the canvas's rotation */
	vr_node_destroy(list);
	vr_node_destroy(clip);
	c = vr_canvas_begin();
	vr_canvas_concat(c, &m);
	vr_canvas_clip_rrect(c, (struct vr_rectf){ 0, 0, 64, 64 },
			(struct vr_radii){ 32, 32, 32, 32 });
	vr_canvas_draw_rect(c, (struct vr_rectf){ 0, 0, 64, 64 },
			&(struct vr_paint){ .color = red });
	list_node(root, c);
	r = render_both(96, 96, transparent);
	check_region("oracle_rotated_rclip_canvas", &r, circle_region, 2.0, RED);
	renders_finish(&r);
}
END_TEST

/* Case 3: the turned circle of case 2 around an axis-aligned clip
 * [40, 100] x [20, 76], r 12 (target pixels: its node undoes the turn):
 * the circle's arc on the right, the inner clip's rounded left corners
 * (centres (52, 32) and (52, 64), inside the circle) both show. */
static double nested_turned_region(double x, double y) {
	return fmax(circle_region(x, y), rrect_distance(x, y, 40, 20, 100, 76, 12));
}

START_TEST(test_oracle_nested_rotated_rounded_clips) {
	struct vr_mat m = turned_circle_mat();
	struct vr_node *outer = vr_node_create(tree);
	vr_node_set_transform(outer, &m);
	vr_node_set_clip_rounded(outer, &(struct vr_rectf){ 0, 0, 64, 64 }, 32);
	vr_node_set_parent(outer, root);
	struct vr_mat back;
	ck_assert(vr_mat_invert(&back, &m));
	struct vr_node *inner = vr_node_create(tree);
	vr_node_set_transform(inner, &back);
	vr_node_set_clip_rounded(inner, &(struct vr_rectf){ 40, 20, 60, 56 }, 12);
	vr_node_set_parent(inner, outer);
	struct vr_node *fill = rect_node(inner, 0, 0, 96, 96, red);
	struct renders r = render_both(96, 96, transparent);
	/* (41, 21) is 15.6 from (52, 32) (the inner's corner rounds it
	 * away) and 27.9 from the circle's centre; (79, 48) is 31 from the
	 * centre (inside the circle, not deep enough: skipped) and (81, 48)
	 * 33, bare though inside the inner clip */
	const struct expect corners[] = {
		{ 41, 21, 0, 0, "the inner clip's top-left corner" },
		{ 41, 75, 0, 0, "the inner clip's bottom-left corner" },
		{ 81, 48, 0, 0, "the circle's arc" },
		{ 60, 48, RED, 1, "inside both" },
	};
	CHECK_BOTH("oracle_nested_rotated_rclips_quads", &r, corners);
	check_region("oracle_nested_rotated_rclips_quads", &r, nested_turned_region,
			2.0, RED);
	renders_finish(&r);

	vr_node_destroy(fill);
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_draw_rect(c, (struct vr_rectf){ 0, 0, 96, 96 },
			&(struct vr_paint){ .color = red });
	list_node(inner, c);
	r = render_both(96, 96, transparent);
	check_region("oracle_nested_rotated_rclips_shapes", &r,
			nested_turned_region, 2.0, RED);
	renders_finish(&r);
}
END_TEST

/* Occlusion: within the damaged pixels, a node covered by an opaque node
 * drawn after it (an opaque rect, an XRGB image at whole pixels) is not
 * drawn at all; an ARGB image, a translucent one or one that does not
 * cover the damage occludes nothing. Draws counted by the renderer. */
static uint32_t render_draws(struct vr_target *target,
		const pixman_region32_t *damage, uint32_t *pixels) {
	vr_tree_update(tree, NULL);
	struct vr_render_job job = { .target = target, .damage = damage };
	vr_mat_identity(&job.view);
	ck_assert(vr_render(renderer, tree, &job, 1));
	vr_target_read(target, NULL, pixels, 64 * 4);
	return job.timing.draws;
}

START_TEST(test_oracle_occlusion) {
	/* red [0, 64)^2 under an image [8, 56)^2 of opaque blue pixels */
	rect_node(root, 0, 0, 64, 64, (struct vr_color){ 1, 0, 0, 1 });
	struct vr_image *image = vr_image_create(48, 48, VR_FORMAT_XRGB8888);
	uint32_t *blue = malloc(48 * 48 * 4);
	ck_assert_ptr_nonnull(blue);
	for (int i = 0; i < 48 * 48; i++) {
		blue[i] = 0x000000ff; /* alpha ignored: XRGB */
	}
	vr_image_write(image, blue, 48 * 4, NULL);
	struct vr_node *cover = vr_node_create(tree);
	vr_node_set_image(cover, image, NULL, 48, 48, VR_TRANSFORM_NORMAL);
	vr_node_set_position(cover, 8, 8);
	vr_node_set_parent(cover, root);
	struct vr_target *target = vr_target_create(renderer, 64, 64);
	uint32_t *px = malloc(64 * 64 * 4);
	ck_assert_ptr_nonnull(px);
	/* everything: the red rect shows around the image, both drawn */
	ck_assert_uint_eq(render_draws(target, NULL, px), 2);
	ck_assert_uint_eq(px[2 * 64 + 2], 0xffff0000);
	ck_assert_uint_eq(px[30 * 64 + 30], 0xff0000ff);
	/* damage inside the image: the red rect is not drawn */
	pixman_region32_t damage;
	pixman_region32_init_rect(&damage, 16, 16, 32, 32);
	ck_assert_uint_eq(render_draws(target, &damage, px), 1);
	ck_assert_uint_eq(px[30 * 64 + 30], 0xff0000ff);
	ck_assert_uint_eq(px[2 * 64 + 2], 0xffff0000);
	/* half a pixel off: it no longer covers whole pixels */
	vr_node_set_position(cover, 8.5f, 8);
	ck_assert_uint_eq(render_draws(target, &damage, px), 2);
	vr_node_set_position(cover, 8, 8);
	/* translucent: no cover */
	vr_node_set_opacity(cover, 0.5f);
	ck_assert_uint_eq(render_draws(target, &damage, px), 2);
	vr_node_set_opacity(cover, 1.0f);
	/* an ARGB image may be transparent anywhere: no cover */
	struct vr_image *argb = vr_image_create(48, 48, VR_FORMAT_ARGB8888);
	vr_image_write(argb, blue, 48 * 4, NULL);
	vr_node_set_image(cover, argb, NULL, 48, 48, VR_TRANSFORM_NORMAL);
	ck_assert_uint_eq(render_draws(target, &damage, px), 2);
	/* an opaque rect covers; damage reaching past it: both drawn */
	vr_node_set_rect(cover, 48, 48, (struct vr_color){ 0, 1, 0, 1 });
	ck_assert_uint_eq(render_draws(target, &damage, px), 1);
	ck_assert_uint_eq(px[30 * 64 + 30], 0xff00ff00);
	pixman_region32_fini(&damage);
	pixman_region32_init_rect(&damage, 4, 16, 32, 32);
	ck_assert_uint_eq(render_draws(target, &damage, px), 2);
	ck_assert_uint_eq(px[30 * 64 + 5], 0xffff0000);
	pixman_region32_fini(&damage);
	vr_target_destroy(target);
	vr_image_unref(image);
	vr_image_unref(argb);
	free(blue);
	free(px);
	assert_no_errors();
}
END_TEST

/* ---- culling ------------------------------------------------------------ */

START_TEST(test_oracle_culled_by_clip) {
	/* A group clipped to [0, 20) x [0, 20) holds a red rect at (30, 30)
	 * entirely outside the clip, and a green one straddling the clip's
	 * right edge at (15, 5), 10 x 4: its columns 20..24 are clipped. */
	struct vr_node *group = vr_node_create(tree);
	vr_node_set_clip(group, &(struct vr_rectf){ 0, 0, 20, 20 });
	vr_node_set_parent(group, root);
	struct vr_node *culled =
			rect_node(group, 30, 30, 10, 10, (struct vr_color){ 1, 0, 0, 1 });
	rect_node(group, 15, 5, 10, 4, (struct vr_color){ 0, 1, 0, 1 });
	struct renders r = render_both(48, 48, transparent);
	struct vr_box box;
	ck_assert_msg(!vr_node_get_bounds(culled, &box),
			"the culled node "
			"has bounds (%d, %d, %d, %d)",
			box.x, box.y, box.width, box.height);
	const struct expect expects[] = {
		{ 30, 30, 0, 0, "culled node's first pixel" },
		{ 35, 35, 0, 0, "culled node's middle" },
		{ 39, 39, 0, 0, "culled node's last pixel" },
		{ 15, 5, 0xff00ff00, 0, "visible part: first pixel" },
		{ 19, 8, 0xff00ff00, 0, "visible part: last column" },
		{ 20, 5, 0, 0, "clipped part: column 20" },
		{ 24, 8, 0, 0, "clipped part: last column" },
	};
	CHECK_BOTH("oracle_culled_by_clip", &r, expects);
	renders_finish(&r);
}
END_TEST

START_TEST(test_oracle_culled_by_damage) {
	/* Frame 1 draws red A = [0, 20)^2 over opaque black. Then A turns
	 * green and blue B = [40, 48) x [4, 12) appears, but frame 2
	 * redraws only the damage [0, 10)^2: there A is green, the rest of
	 * A stays red from frame 1 and B, entirely outside the damage, is
	 * not drawn (black). Frame 3 redraws everything. Vulkan only: the
	 * reference renderer always draws every pixel. */
	const int32_t w = 56, h = 24;
	struct vr_node *a =
			rect_node(root, 0, 0, 20, 20, (struct vr_color){ 1, 0, 0, 1 });
	vr_tree_update(tree, NULL);
	struct vr_target *target = vr_target_create(renderer, w, h);
	ck_assert_ptr_nonnull(target);
	struct vr_render_job job = { .target = target, .clear = { 0, 0, 0, 1 } };
	vr_mat_identity(&job.view);
	ck_assert(vr_render(renderer, tree, &job, 1));

	vr_node_set_rect(a, 20, 20, (struct vr_color){ 0, 1, 0, 1 });
	rect_node(root, 40, 4, 8, 8, (struct vr_color){ 0, 0, 1, 1 });
	vr_tree_update(tree, NULL);
	pixman_region32_t damage;
	pixman_region32_init_rect(&damage, 0, 0, 10, 10);
	job.damage = &damage;
	ck_assert(vr_render(renderer, tree, &job, 1));
	pixman_region32_fini(&damage);
	uint32_t *pixels = calloc((size_t)w * (size_t)h, 4);
	ck_assert_ptr_nonnull(pixels);
	vr_target_read(target, NULL, pixels, w * 4);
	const struct expect partial[] = {
		{ 0, 0, 0xff00ff00, 0, "damaged part of A: redrawn green" },
		{ 9, 9, 0xff00ff00, 0, "damaged part of A: last pixel" },
		{ 10, 5, 0xffff0000, 0, "A outside the damage: still red" },
		{ 19, 19, 0xffff0000, 0, "A outside the damage: still red" },
		{ 40, 4, 0xff000000, 0, "B outside the damage: not drawn" },
		{ 47, 11, 0xff000000, 0, "B outside the damage: not drawn" },
	};
	check_pixels("oracle_damage_partial", "vulkan", pixels, w, h, partial,
			sizeof(partial) / sizeof(partial[0]));

	job.damage = NULL;
	ck_assert(vr_render(renderer, tree, &job, 1));
	vr_target_read(target, NULL, pixels, w * 4);
	const struct expect full[] = {
		{ 19, 19, 0xff00ff00, 0, "all of A green" },
		{ 40, 4, 0xff0000ff, 0, "B drawn once damaged" },
		{ 47, 11, 0xff0000ff, 0, "B's last pixel" },
		{ 48, 11, 0xff000000, 0, "right of B" },
	};
	check_pixels("oracle_damage_full", "vulkan", pixels, w, h, full,
			sizeof(full) / sizeof(full[0]));
	free(pixels);
	vr_target_destroy(target);
	assert_no_errors();
}
END_TEST

/* ---- batches ------------------------------------------------------------ */

START_TEST(test_oracle_batch_across_clip) {
	/* Shapes of one display list batch into one draw whatever their
	 * clips: red [4, 28) x [4, 12) under the clip [0, 16) x [0, 32)
	 * shows columns 4..15 only; blue [4, 28) x [16, 24) after the
	 * restore is not clipped. Tree quads batch only under one clip:
	 * under a parent clipped to [40, 50) x [0, 32), yellow
	 * [40, 70) x [4, 12) shows columns 40..49; its unclipped sibling
	 * of the same colour [40, 70) x [16, 24) shows all of it. */
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_save(c);
	vr_canvas_clip_rect(c, (struct vr_rectf){ 0, 0, 16, 32 });
	vr_canvas_draw_rect(c, (struct vr_rectf){ 4, 4, 24, 8 },
			&(struct vr_paint){ .color = { 1, 0, 0, 1 } });
	vr_canvas_restore(c);
	vr_canvas_draw_rect(c, (struct vr_rectf){ 4, 16, 24, 8 },
			&(struct vr_paint){ .color = { 0, 0, 1, 1 } });
	list_node(root, c);
	const struct vr_color yellow = { 1, 1, 0, 1 };
	struct vr_node *clipped = vr_node_create(tree);
	vr_node_set_clip(clipped, &(struct vr_rectf){ 40, 0, 10, 32 });
	vr_node_set_parent(clipped, root);
	rect_node(clipped, 40, 4, 30, 8, yellow);
	rect_node(root, 40, 16, 30, 8, yellow);
	struct renders r = render_both(76, 28, transparent);
	const struct expect expects[] = {
		{ 4, 4, 0xffff0000, 1, "clipped shape: first pixel" },
		{ 15, 11, 0xffff0000, 1, "clipped shape: last column" },
		{ 16, 8, 0, 0, "clipped shape: clipped at 16" },
		{ 27, 8, 0, 0, "clipped shape: clipped at 27" },
		{ 4, 16, 0xff0000ff, 1, "unclipped shape: first pixel" },
		{ 16, 20, 0xff0000ff, 1, "unclipped shape: past the clip" },
		{ 27, 23, 0xff0000ff, 1, "unclipped shape: last pixel" },
		{ 28, 20, 0, 0, "unclipped shape: right of it" },
		{ 49, 8, 0xffffff00, 0, "clipped quad: last column" },
		{ 50, 8, 0, 0, "clipped quad: clipped at 50" },
		{ 69, 8, 0, 0, "clipped quad: clipped at 69" },
		{ 50, 20, 0xffffff00, 0, "unclipped quad: past the clip" },
		{ 69, 23, 0xffffff00, 0, "unclipped quad: last pixel" },
	};
	CHECK_BOTH("oracle_batch_clip", &r, expects);
	renders_finish(&r);
}
END_TEST

START_TEST(test_oracle_batch_keeps_order) {
	/* Back to front: red quad [0, 20) x [0, 10), a green display-list
	 * rect [10, 30) x [0, 10), a blue quad [20, 40) x [0, 10). The two
	 * quads could share a batch, but the green shape between them
	 * overlaps the blue one: blue must still be drawn over green. */
	rect_node(root, 0, 0, 20, 10, (struct vr_color){ 1, 0, 0, 1 });
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_draw_rect(c, (struct vr_rectf){ 10, 0, 20, 10 },
			&(struct vr_paint){ .color = { 0, 1, 0, 1 } });
	list_node(root, c);
	rect_node(root, 20, 0, 20, 10, (struct vr_color){ 0, 0, 1, 1 });
	struct renders r = render_both(44, 12, transparent);
	const struct expect expects[] = {
		{ 5, 5, 0xffff0000, 0, "red alone" },
		{ 15, 5, 0xff00ff00, 1, "green over red" },
		{ 20, 5, 0xff0000ff, 0, "blue over green: first column" },
		{ 29, 5, 0xff0000ff, 0, "blue over green: last column" },
		{ 35, 5, 0xff0000ff, 0, "blue alone" },
		{ 40, 5, 0, 0, "right of everything" },
	};
	CHECK_BOTH("oracle_batch_order", &r, expects);
	renders_finish(&r);
}
END_TEST

/* ---- opacity ------------------------------------------------------------ */

START_TEST(test_oracle_opacity) {
	/* Orange (1, 0.5, 0) under a group of opacity 0.5 with opacity 0.5
	 * itself: alpha 0.25. Premultiplied source (0.25, 0.125, 0, 0.25)
	 * over opaque white: each channel s + 1 * (1 - 0.25), i.e.
	 * (1, 0.875, 0.75, 1) = (255, 223.1, 191.25, 255) = 0xffffdfbf;
	 * quantising the source to 8 bits first (64, 32, 0, 64) gives
	 * 64 + 191 = 255, 32 + 191 = 223, 191: the same.
	 * As a quad (tree rect) at x 0..9 and as a display-list rect with
	 * colour alpha 0.5 under a node of opacity 0.5 at x 10..19. */
	struct vr_node *group = vr_node_create(tree);
	vr_node_set_opacity(group, 0.5f);
	vr_node_set_parent(group, root);
	struct vr_node *quad =
			rect_node(group, 0, 0, 10, 8, (struct vr_color){ 1, 0.5f, 0, 1 });
	vr_node_set_opacity(quad, 0.5f);
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_draw_rect(c, (struct vr_rectf){ 10, 0, 10, 8 },
			&(struct vr_paint){ .color = { 1, 0.5f, 0, 0.5f } });
	list_node(group, c);
	struct renders r = render_both(24, 10, white);
	const struct expect expects[] = {
		{ 4, 4, 0xffffdfbf, 1, "quad at opacity 0.25 over white" },
		{ 14, 4, 0xffffdfbf, 1, "shape at alpha 0.25 over white" },
		{ 22, 4, 0xffffffff, 0, "white clear colour" },
	};
	CHECK_BOTH("oracle_opacity", &r, expects);
	renders_finish(&r);
}
END_TEST

/* ---- group opacity ------------------------------------------------------ */

/* The same expectations on the CPU backend's rendering (2 workers) of the
 * tree, over clear. */
static void check_cpu(const char *name, const struct renders *r,
		struct vr_color clear, const struct expect *expects, size_t n) {
	struct vr_cpu_renderer *cpu = vr_cpu_renderer_create(2);
	ck_assert_ptr_nonnull(cpu);
	uint32_t *pixels = calloc((size_t)r->width * (size_t)r->height, 4);
	ck_assert_ptr_nonnull(pixels);
	pixman_image_t *dst = pixman_image_create_bits(PIXMAN_a8r8g8b8, r->width,
			r->height, pixels, r->width * 4);
	struct vr_mat identity;
	vr_mat_identity(&identity);
	ck_assert(vr_cpu_render(cpu, tree, dst, &identity, clear, NULL));
	pixman_image_unref(dst);
	vr_cpu_renderer_destroy(cpu);
	check_pixels(name, "cpu", pixels, r->width, r->height, expects, n);
	free(pixels);
}

#define CHECK_CPU(name, renders, clear, expects) \
	check_cpu((name), (renders), (clear), (expects), \
			sizeof(expects) / sizeof((expects)[0]))

/* A group node at the origin with this opacity. */
static struct vr_node *group_node(struct vr_node *parent, float opacity) {
	struct vr_node *node = vr_node_create(tree);
	vr_node_set_opacity(node, opacity);
	vr_node_set_parent(node, parent);
	return node;
}

START_TEST(test_oracle_group_opacity_card) {
	/* A card under a group of opacity 0.25 over opaque white: a black
	 * "shadow" rect [4, 24) x [4, 16), then an opaque red card
	 * [0, 16) x [0, 10) over it. As a group, the card hides the shadow
	 * and the whole picture is composited at alpha 64/255 (0.25 in 8
	 * bits, 0.25098):
	 * - card (and card over shadow, e.g. (8, 6)): red (1, 0, 0, 1) *
	 *   0.25098 + white * (1 - 0.25098): R = 0.25098 + 0.74902 = 1
	 *   (255), G = B = 0.74902 * 255 = 191.0: 0xffffbfbf;
	 * - shadow only ((20, 12)): black, 0 + 191 = 0xffbfbfbf;
	 * - outside ((30, 20)): white.
	 * Per-draw opacity (what flattening would do) shows the shadow
	 * through the card at (8, 6): black 64 over white gives 191, red
	 * (64, 0, 0, 64) over that R = 64 + 191 * 191 / 255 = 207,
	 * G = B = 143: 0xffcf8f8f, far from the group's. */
	struct vr_node *group = group_node(root, 0.25f);
	rect_node(group, 4, 4, 20, 12, (struct vr_color){ 0, 0, 0, 1 });
	rect_node(group, 0, 0, 16, 10, (struct vr_color){ 1, 0, 0, 1 });
	struct renders r = render_both(32, 24, white);
	const struct expect expects[] = {
		{ 2, 2, 0xffffbfbf, 1, "card only" },
		{ 8, 6, 0xffffbfbf, 1, "card over its shadow: shadow hidden" },
		{ 15, 9, 0xffffbfbf, 1, "card's last pixel over the shadow" },
		{ 20, 12, 0xffbfbfbf, 1, "shadow only: 255 * 0.75" },
		{ 16, 10, 0xffbfbfbf, 1, "shadow's pixel next to the card" },
		{ 30, 20, 0xffffffff, 0, "white clear colour" },
	};
	CHECK_BOTH("oracle_group_card", &r, expects);
	CHECK_CPU("oracle_group_card", &r, white, expects);
	ck_assert_uint_eq(r.layers, 1);
	renders_finish(&r);
}
END_TEST

START_TEST(test_oracle_group_opacity_shadow) {
	/* The card of issue #13: one display list, a black shadow (blur 2:
	 * sigma 1, its kernel reaches 3 pixels) of [16, 56) x [18, 48), then
	 * an opaque white rect [10, 50) x [10, 40) over it, the node at
	 * opacity 0.25 (64 / 255 = 0.25098, 1 - 0.25098 = 0.74902) over
	 * grey 0.5 (128):
	 * - in the card over the shadow ((30, 25), (48, 38): a pixel and a
	 *   half inside the card's edges): the layer holds opaque white,
	 *   64 + 128 * 0.74902 = 159.9 (160): 0xffa0a0a0. Per draw, the
	 *   shadow would show through: black at 64 over 128 gives 96, white
	 *   at 64 over that 64 + 96 * 0.74902 = 135.9 (136);
	 * - shadow only at full coverage ((52, 44): 3.5 pixels inside the
	 *   shadow's right and bottom edges, outside the card): opaque black
	 *   in the layer, 128 * 0.74902 = 95.9 (96): 0xff606060;
	 * - far from both: the grey. */
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_draw_shadow(c, (struct vr_rectf){ 16, 18, 40, 30 },
			(struct vr_radii){ 0 }, 2, (struct vr_color){ 0, 0, 0, 1 });
	vr_canvas_draw_rect(c, (struct vr_rectf){ 10, 10, 40, 30 },
			&(struct vr_paint){ .color = white });
	struct vr_node *card = list_node(root, c);
	vr_node_set_opacity(card, 0.25f);
	const struct vr_color background = { 0.5f, 0.5f, 0.5f, 1 };
	struct renders r = render_both(64, 56, background);
	const struct expect expects[] = {
		{ 30, 25, 0xffa0a0a0, 1, "card over its shadow" },
		{ 48, 38, 0xffa0a0a0, 1, "card's corner over its shadow" },
		{ 52, 44, 0xff606060, 1, "shadow only" },
		{ 60, 4, 0xff808080, 0, "grey clear colour" },
	};
	CHECK_BOTH("oracle_group_shadow", &r, expects);
	CHECK_CPU("oracle_group_shadow", &r, background, expects);
	ck_assert_uint_eq(r.layers, 1);
	renders_finish(&r);
}
END_TEST

START_TEST(test_oracle_group_opacity_translucent_children) {
	/* Two translucent children under a group of opacity 0.5 over
	 * transparent black: blue at alpha 0.5 on [0, 12) x [0, 8), green
	 * at alpha 0.5 on [6, 18) x [0, 8). Colours are premultiplied to 8
	 * bits (0.5 -> 128, i.e. a = 128 / 255 = 0.50196):
	 * in the layer (transparent at first)
	 * - blue only: (0, 0, 128, 128);
	 * - both: green over blue, G = 128, B = 128 * (1 - 0.50196) = 63.75
	 *   (64), A = 128 + 63.75 = 191.75 (192): (0, 128, 64, 192);
	 * - green only: (0, 128, 0, 128);
	 * composited at 0.5 (128 / 255) over transparent black: every
	 * channel times 0.50196:
	 * - blue only (2, 4): B = A = 128 * 0.50196 = 64.25: 0x40000040;
	 * - both (8, 4): G = 64.25 (64), B = 64 * 0.50196 = 32.1 (32),
	 *   A = 192 * 0.50196 = 96.4 (96): 0x60004020;
	 * - green only (15, 4): 0x40004000.
	 * Per draw (alpha 0.25 each, 64), the overlap would be green 64 over
	 * blue 64: B = 64 * 191 / 255 = 47.9 (48), A = 112: 0x70004030. */
	struct vr_node *group = group_node(root, 0.5f);
	rect_node(group, 0, 0, 12, 8, (struct vr_color){ 0, 0, 1, 0.5f });
	rect_node(group, 6, 0, 12, 8, (struct vr_color){ 0, 1, 0, 0.5f });
	struct renders r = render_both(24, 10, transparent);
	const struct expect expects[] = {
		{ 2, 4, 0x40000040, 1, "blue only" },
		{ 8, 4, 0x60004020, 1, "green over blue, as a group" },
		{ 15, 4, 0x40004000, 1, "green only" },
		{ 20, 4, 0x00000000, 0, "transparent clear colour" },
	};
	CHECK_BOTH("oracle_group_translucent", &r, expects);
	CHECK_CPU("oracle_group_translucent", &r, transparent, expects);
	ck_assert_uint_eq(r.layers, 1);
	renders_finish(&r);
}
END_TEST

START_TEST(test_oracle_group_opacity_nested) {
	/* Over opaque white, an outer group of opacity 0.5 holding a black
	 * rect [0, 16) x [0, 8) and an inner group of opacity 0.5 holding
	 * an opaque blue rect [8, 24) and an opaque green one [12, 28) over
	 * it (same rows). Alpha 0.5 is 128 / 255 = 0.50196 and
	 * 1 - 0.50196 = 0.49804.
	 * The inner layer: blue on x 8..11, green on x 12..27 (opaque).
	 * Composited into the outer layer, where black (0, 0, 0, 1) lies on
	 * x 0..15:
	 * - x 10: blue * 0.50196 over black: B = 128, A = 0.50196 + 0.49804
	 *   = 1: (0, 0, 128, 255);
	 * - x 14: the same in green: (0, 128, 0, 255);
	 * - x 20: green * 0.50196 alone: (0, 128, 0, 128).
	 * The outer layer at 0.50196 over white (each channel c * 0.50196 +
	 * 255 * (1 - a * 0.50196)):
	 * - x 4, black: 0 + 255 * 0.49804 = 127.0: 0xff7f7f7f;
	 * - x 10: R = G = 127, B = 128 * 0.50196 + 127 = 191.25:
	 *   0xff7f7fbf;
	 * - x 14: 0xff7fbf7f;
	 * - x 20: a = 128 / 255 * 0.50196 = 0.25196, R = B = 255 *
	 *   0.74804 = 190.75 (191), G = 64.25 + 190.75 = 255: 0xffbfffbf;
	 * - x 30: white. */
	struct vr_node *outer = group_node(root, 0.5f);
	rect_node(outer, 0, 0, 16, 8, (struct vr_color){ 0, 0, 0, 1 });
	struct vr_node *inner = group_node(outer, 0.5f);
	rect_node(inner, 8, 0, 16, 8, (struct vr_color){ 0, 0, 1, 1 });
	rect_node(inner, 12, 0, 16, 8, (struct vr_color){ 0, 1, 0, 1 });
	struct renders r = render_both(32, 10, white);
	const struct expect expects[] = {
		{ 4, 4, 0xff7f7f7f, 1, "black at 0.5" },
		{ 10, 4, 0xff7f7fbf, 1, "inner blue over black" },
		{ 14, 4, 0xff7fbf7f, 1, "inner green over black, not blue" },
		{ 20, 4, 0xffbfffbf, 1, "inner green at 0.25" },
		{ 30, 4, 0xffffffff, 0, "white clear colour" },
	};
	CHECK_BOTH("oracle_group_nested", &r, expects);
	CHECK_CPU("oracle_group_nested", &r, white, expects);
	ck_assert_uint_eq(r.layers, 2);
	renders_finish(&r);
}
END_TEST

START_TEST(test_oracle_group_opacity_flattened) {
	/* A group of opacity 0.5 whose children do not overlap: red on
	 * [0, 8) x [0, 8), blue on [10, 18): no layer, the opacity
	 * multiplies each draw. Red at 0.5 premultiplied to 8 bits is
	 * (128, 0, 0, 128); over white R = 128 + 255 * 127 / 255 = 255,
	 * G = B = 127: 0xffff7f7f; blue alike 0xff7f7fff. */
	struct vr_node *group = group_node(root, 0.5f);
	struct vr_node *left =
			rect_node(group, 0, 0, 8, 8, (struct vr_color){ 1, 0, 0, 1 });
	struct vr_node *right =
			rect_node(group, 10, 0, 8, 8, (struct vr_color){ 0, 0, 1, 1 });
	struct renders r = render_both(20, 10, white);
	const struct expect expects[] = {
		{ 4, 4, 0xffff7f7f, 1, "red at 0.5" },
		{ 14, 4, 0xff7f7fff, 1, "blue at 0.5" },
		{ 9, 4, 0xffffffff, 0, "between them" },
	};
	CHECK_BOTH("oracle_group_flattened", &r, expects);
	CHECK_CPU("oracle_group_flattened", &r, white, expects);
	ck_assert_uint_eq(r.layers, 0);

	/* the same picture as the opacity on each child, bit for bit (what
	 * per-draw opacity rendered before groups) */
	vr_node_set_opacity(group, 1.0f);
	vr_node_set_opacity(left, 0.5f);
	vr_node_set_opacity(right, 0.5f);
	struct renders per_draw = render_both(20, 10, white);
	ck_assert_uint_eq(per_draw.layers, 0);
	size_t bytes = (size_t)r.width * (size_t)r.height * 4;
	ck_assert(memcmp(r.vulkan, per_draw.vulkan, bytes) == 0);
	ck_assert(memcmp(r.reference, per_draw.reference, bytes) == 0);
	renders_finish(&per_draw);

	/* overlapping children at opacity 1: no layer either */
	vr_node_set_opacity(left, 1.0f);
	vr_node_set_opacity(right, 1.0f);
	vr_node_set_position(right, 4, 0);
	struct renders opaque = render_both(20, 10, white);
	ck_assert_uint_eq(opaque.layers, 0);
	renders_finish(&opaque);
	renders_finish(&r);
}
END_TEST

/* ---- images ------------------------------------------------------------- */

/* Six distinct premultiplied pixels (3 x 2), two of them translucent. */
static const uint32_t image_pixels[6] = {
	0xffff0000,
	0xff00ff00,
	0xff0000ff,
	0x80402010,
	0xffffffff,
	0x40000040,
};

START_TEST(test_oracle_image_exact) {
	/* The 3 x 2 image at the integer offset (5, 4) as a tree node, and
	 * as a display-list image at (5, 10), both 1:1: target pixel
	 * (5 + x, 4 + y) (or 10 + y) is source pixel (x, y) exactly, over
	 * transparent black. The same image with buffer transform 90 at
	 * (12, 4): per wl_surface.set_buffer_transform the buffer holds the
	 * content rotated 90 degrees counter-clockwise, so the surface is
	 * 2 x 3 and its pixel (x, y) is buffer pixel (y, 1 - x): the
	 * surface's top-left shows the buffer's bottom-left. */
	struct vr_image *image = vr_image_create(3, 2, VR_FORMAT_ARGB8888);
	ck_assert_ptr_nonnull(image);
	ck_assert(vr_image_write(image, image_pixels, 3 * 4, NULL));
	struct vr_node *node = vr_node_create(tree);
	vr_node_set_position(node, 5, 4);
	vr_node_set_image(node, image, NULL, 3, 2, VR_TRANSFORM_NORMAL);
	vr_node_set_parent(node, root);
	struct vr_node *rotated = vr_node_create(tree);
	vr_node_set_position(rotated, 12, 4);
	vr_node_set_image(rotated, image, NULL, 2, 3, VR_TRANSFORM_90);
	vr_node_set_parent(rotated, root);
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_draw_image(c, image, NULL, (struct vr_rectf){ 5, 10, 3, 2 },
			1.0f);
	list_node(root, c);
	vr_image_unref(image);
	struct renders r = render_both(20, 14, transparent);

	struct expect expects[6 * 3 + 8];
	size_t n = 0;
	for (int32_t y = 0; y < 2; y++) {
		for (int32_t x = 0; x < 3; x++) {
			uint32_t p = image_pixels[y * 3 + x];
			expects[n++] = (struct expect){ 5 + x, 4 + y, p, 0,
				"node image pixel at (5 + x, 4 + y)" };
			expects[n++] = (struct expect){ 5 + x, 10 + y, p, 0,
				"display-list image pixel at (5 + x, 10 + y)" };
		}
	}
	for (int32_t y = 0; y < 3; y++) {
		for (int32_t x = 0; x < 2; x++) {
			expects[n++] = (struct expect){ 12 + x, 4 + y,
				image_pixels[(1 - x) * 3 + y], 0,
				"transform 90: surface (x, y) = buffer (y, 1 - x)" };
		}
	}
	const struct expect outside[] = {
		{ 4, 4, 0, 0, "left of the image" },
		{ 8, 5, 0, 0, "right of the image" },
		{ 5, 3, 0, 0, "above the image" },
		{ 5, 6, 0, 0, "below the image" },
		{ 11, 4, 0, 0, "left of the rotated image" },
		{ 14, 4, 0, 0, "right of the rotated image" },
		{ 12, 7, 0, 0, "below the rotated image" },
		{ 4, 10, 0, 0, "left of the display-list image" },
	};
	memcpy(&expects[n], outside, sizeof(outside));
	n += sizeof(outside) / sizeof(outside[0]);
	check_both("oracle_image", &r, expects, n);
	renders_finish(&r);
}
END_TEST

/* ---- a view that turns and scales (output transforms) -------------------- */

START_TEST(test_oracle_view_turned_scaled) {
	/* An 8 x 6 box of four quadrant rects (red, green / blue, yellow),
	 * drawn through the view of an output whose layout box it is, at a
	 * scale s and one of its transforms: scaled, the box is 8s x 6s
	 * (tw x th); turned into the buffer as wl_output's transform says.
	 * Every buffer pixel is checked: its centre (u + 0.5, v + 0.5) is
	 * taken back by hand into the scaled box, divided by s, and the
	 * quadrant holding that point gives its colour (the rects are
	 * aliased; with these scales no centre falls on an edge). */
	static const uint32_t colours[4] = {
		0xffff0000u,
		0xff00ff00u,
		0xff0000ffu,
		0xffffff00u,
	};
	const struct vr_color fill[4] = {
		{ 1, 0, 0, 1 },
		{ 0, 1, 0, 1 },
		{ 0, 0, 1, 1 },
		{ 1, 1, 0, 1 },
	};
	for (int q = 0; q < 4; q++) {
		rect_node(root, q % 2 == 0 ? 0 : 4, q / 2 == 0 ? 0 : 3, 4, 3, fill[q]);
	}
	static const struct {
		const char *name;
		float s;
		int transform; /* wl_output's numbering */
	} cases[] = {
		{ "90 at 1.5", 1.5f, 1 },
		{ "flipped at 2", 2.0f, 4 },
		{ "180 at 1", 1.0f, 2 },
		{ "270 at 2", 2.0f, 3 },
		{ "flipped-90 at 1.5", 1.5f, 5 },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		float s = cases[c].s;
		float tw = 8 * s, th = 6 * s;
		bool turned = cases[c].transform % 2 == 1;
		int32_t w = (int32_t)(turned ? th : tw),
				h = (int32_t)(turned ? tw : th);
		/* buffer (u, v) from scaled (x, y):
		 * 90: (y, tw - x), turned 90 degrees counter-clockwise;
		 * 180: (tw - x, th - y); 270: (th - y, x);
		 * flipped: (tw - x, y), mirrored left to right;
		 * flipped-90: (y, x), mirrored then turned 90 degrees. */
		struct vr_mat turn;
		switch (cases[c].transform) {
		case 1: turn = (struct vr_mat){ .b = -1, .c = 1, .ty = tw }; break;
		case 2:
			turn = (struct vr_mat){ .a = -1, .d = -1, .tx = tw, .ty = th };
			break;
		case 3: turn = (struct vr_mat){ .b = 1, .c = -1, .tx = th }; break;
		case 4: turn = (struct vr_mat){ .a = -1, .d = 1, .tx = tw }; break;
		default: turn = (struct vr_mat){ .b = 1, .c = 1 }; break;
		}
		struct vr_mat scale = { .a = s, .d = s }, view;
		vr_mat_multiply(&view, &turn, &scale);
		struct renders r = render_both_view(w, h, transparent, &view);
		struct expect *expects =
				calloc((size_t)w * (size_t)h, sizeof(*expects));
		ck_assert_ptr_nonnull(expects);
		size_t n = 0;
		for (int32_t v = 0; v < h; v++) {
			for (int32_t u = 0; u < w; u++) {
				double cu = u + 0.5, cv = v + 0.5, x, y;
				/* the inverse of each mapping above */
				switch (cases[c].transform) {
				case 1: x = tw - cv, y = cu; break;
				case 2: x = tw - cu, y = th - cv; break;
				case 3: x = cv, y = th - cu; break;
				case 4: x = tw - cu, y = cv; break;
				default: x = cv, y = cu; break;
				}
				x /= s, y /= s;
				int q = (x < 4 ? 0 : 1) + (y < 3 ? 0 : 2);
				expects[n++] =
						(struct expect){ u, v, colours[q], 0, cases[c].name };
			}
		}
		check_both(cases[c].name, &r, expects, n);
		free(expects);
		renders_finish(&r);
	}
}
END_TEST

static Suite *oracle_suite(void) {
	Suite *s = suite_create("oracle");
	TCase *tc = tcase_create("coverage");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_oracle_rect_fractional_coverage);
	tcase_add_test(tc, test_oracle_node_rect_pixel_centres);
	tcase_add_test(tc, test_oracle_rrect_corners);
	tcase_add_test(tc, test_oracle_clipped_rrect_corner);
	tcase_add_test(tc, test_oracle_node_rounded_clip);
	tcase_add_test(tc, test_oracle_nested_rounded_clips);
	tcase_add_test(tc, test_oracle_rotated_rounded_clip);
	tcase_add_test(tc, test_oracle_nested_rotated_rounded_clips);
	suite_add_tcase(s, tc);
	tc = tcase_create("culling");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_oracle_culled_by_clip);
	tcase_add_test(tc, test_oracle_occlusion);
	tcase_add_test(tc, test_oracle_culled_by_damage);
	suite_add_tcase(s, tc);
	tc = tcase_create("batching");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_oracle_batch_across_clip);
	tcase_add_test(tc, test_oracle_batch_keeps_order);
	suite_add_tcase(s, tc);
	tc = tcase_create("colour");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_oracle_opacity);
	tcase_add_test(tc, test_oracle_image_exact);
	tcase_add_test(tc, test_oracle_view_turned_scaled);
	suite_add_tcase(s, tc);
	tc = tcase_create("group opacity");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_oracle_group_opacity_card);
	tcase_add_test(tc, test_oracle_group_opacity_shadow);
	tcase_add_test(tc, test_oracle_group_opacity_translucent_children);
	tcase_add_test(tc, test_oracle_group_opacity_nested);
	tcase_add_test(tc, test_oracle_group_opacity_flattened);
	suite_add_tcase(s, tc);
	return s;
}

int main(void) {
	return run_vulkan_suite(oracle_suite());
}
