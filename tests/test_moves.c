/*
 * Shift-and-expose (vr_tree_update_moves, renderer.h): a change that only
 * moved pixels comes back as a move plus the strip it exposes, and every
 * engine that applies the moves and redraws the damage ends with the same
 * pixels as a whole frame of the new tree.
 *
 * - what the tree reports, against hand-computed boxes: a scroll window
 *   moved over an opaque image (a move, damage = the exposed strip); an
 *   image with alpha over a uniform rectangle (a move) and over two
 *   rectangles (no move: its box is damaged); a subtree translated inside
 *   its parent's clip (a move of the clip); the same under a rounded clip
 *   whose own display list fills it (a move of the rows the corners leave
 *   whole, the corner rows redrawn: a scroll list's viewport); something
 *   drawn above the
 *   moved pixels (damaged where it is and where it was moved to);
 * - pixels, per engine (Vulkan where a device exists, the CPU engine, the
 *   reference renderer): a random walk of scrolls, with a rectangle above
 *   coming and going, drawn into three buffers in turn through the one
 *   engine interface, the same calls for every engine (buffer age 3,
 *   pending changes composed with vr_changes_compose as the compositor
 *   does; page-aligned memory, so that Vulkan copies into the buffers
 *   itself from its target) and each frame compared with a
 *   whole frame of the same tree drawn by the reference renderer, which
 *   shares no code with the moves.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vitrail/canvas.h>
#include <vitrail/renderer.h>
#include "vulkan_test.h"

#define W 96
#define H 80
/* the scrolled content: taller and wider than its window */
#define CW 120
#define CH 400
#define BUFFERS 3

static const struct vr_color GREY = { 0.5f, 0.5f, 0.5f, 1 };
static const struct vr_color WHITE = { 1, 1, 1, 1 };
static const struct vr_color ORANGE = { 1, 0.5f, 0, 1 };
static const struct vr_color TEAL = { 0, 0.5f, 0.5f, 1 };

/* A pattern no shift maps onto itself. */
static void fill_content(uint32_t *px, bool alpha) {
	for (int y = 0; y < CH; y++) {
		for (int x = 0; x < CW; x++) {
			uint32_t r = (uint32_t)(x * 7 + y * 3) & 0xff;
			uint32_t g = (uint32_t)(y * 5) & 0xff;
			uint32_t b = (uint32_t)((x ^ y) * 11) & 0xff;
			uint32_t a = 0xff;
			if (alpha && ((x / 8 + y / 8) & 1)) {
				a = 0x80; /* premultiplied */
				r /= 2;
				g /= 2;
				b /= 2;
			}
			px[y * CW + x] = a << 24 | r << 16 | g << 8 | b;
		}
	}
}

struct scene {
	struct vr_tree *tree;
	struct vr_image *content;
	struct vr_node *under; /* solid, under the window */
	struct vr_node *under2; /* a second rectangle under it (disabled) */
	struct vr_node *crop; /* the window over the content */
	struct vr_node *above; /* over the window (disabled) */
	struct vr_node *clipper; /* a clipped parent ... */
	struct vr_node *sub; /* ... with a subtree translated inside */
	float scroll[2];
	float sub_offset;
};

/* The clip's corners rounded (radius ROUND), its background the clipped
 * node's own display list rather than a rectangle under it. */
#define ROUND 6

static void scene_init_rounded(struct scene *s, enum vr_format format,
		bool rounded) {
	memset(s, 0, sizeof(*s));
	s->tree = vr_tree_create();
	struct vr_node *root = vr_tree_root(s->tree);
	struct vr_node *bg = vr_node_create(s->tree);
	vr_node_set_rect(bg, W, H, GREY);
	vr_node_set_parent(bg, root);

	s->under = vr_node_create(s->tree);
	vr_node_set_rect(s->under, 50, 50, WHITE);
	vr_node_set_position(s->under, 4, 4);
	vr_node_set_parent(s->under, root);
	s->under2 = vr_node_create(s->tree);
	vr_node_set_rect(s->under2, 20, 20, TEAL);
	vr_node_set_position(s->under2, 10, 10);
	vr_node_set_enabled(s->under2, false);
	vr_node_set_parent(s->under2, root);

	s->content = vr_image_create(CW, CH, format);
	uint32_t *px = malloc(CW * CH * 4);
	fill_content(px, format == VR_FORMAT_ARGB8888);
	ck_assert(vr_image_write(s->content, px, CW * 4, NULL));
	free(px);
	s->crop = vr_node_create(s->tree);
	vr_node_set_position(s->crop, 6, 6);
	vr_node_set_parent(s->crop, root);

	s->above = vr_node_create(s->tree);
	vr_node_set_rect(s->above, 12, 9, ORANGE);
	vr_node_set_position(s->above, 20, 25);
	vr_node_set_enabled(s->above, false);
	vr_node_set_parent(s->above, root);

	/* right of the window: a clip (x 60..92, y 8..72) over a solid
	 * rectangle, a subtree of rectangles inside, one at a fractional
	 * position (antialiased edges move too) */
	struct vr_rectf clip = { 60, 8, 32, 64 };
	s->clipper = vr_node_create(s->tree);
	if (rounded) {
		vr_node_set_clip_rounded(s->clipper, &clip, ROUND);
		struct vr_canvas *canvas = vr_canvas_begin();
		vr_canvas_draw_rect(canvas, clip, &(struct vr_paint){ .color = WHITE });
		struct vr_display_list *list = vr_canvas_finish(canvas);
		vr_node_set_display_list(s->clipper, list);
		vr_display_list_unref(list);
	} else {
		struct vr_node *clip_bg = vr_node_create(s->tree);
		vr_node_set_rect(clip_bg, 32, 64, WHITE);
		vr_node_set_position(clip_bg, 60, 8);
		vr_node_set_parent(clip_bg, root);
		vr_node_set_clip(s->clipper, &clip);
	}
	vr_node_set_parent(s->clipper, root);
	s->sub = vr_node_create(s->tree);
	vr_node_set_parent(s->sub, s->clipper);
	for (int i = 0; i < 8; i++) {
		struct vr_node *r = vr_node_create(s->tree);
		struct vr_color c = { (float)(i % 3) / 2, (float)(i % 5) / 4,
			(float)(i % 2), 1 };
		vr_node_set_rect(r, 20.5f, 11.25f, c);
		vr_node_set_position(r, 64 + (float)(i % 3), 10 + 17.5f * (float)i);
		vr_node_set_parent(r, s->sub);
	}
}

static void scene_init(struct scene *s, enum vr_format format) {
	scene_init_rounded(s, format, false);
}

static void scene_show(struct scene *s) {
	vr_node_set_image(s->crop, s->content,
			&(struct vr_rectf){ s->scroll[0], s->scroll[1], 40, 36 }, 40, 36,
			VR_TRANSFORM_NORMAL);
	vr_node_set_position(s->sub, 0, -s->sub_offset);
}

static void scene_finish(struct scene *s) {
	vr_tree_destroy(s->tree);
	vr_image_unref(s->content);
}

static int region_area(pixman_region32_t *region) {
	int n, area = 0;
	const pixman_box32_t *b = pixman_region32_rectangles(region, &n);
	for (int i = 0; i < n; i++) {
		area += (b[i].x2 - b[i].x1) * (b[i].y2 - b[i].y1);
	}
	return area;
}

static size_t update(struct scene *s, pixman_region32_t *damage,
		struct vr_move *moves) {
	pixman_region32_clear(damage);
	return vr_tree_update_moves(s->tree, damage, moves, VR_MOVES_MAX);
}

/* ---- what the tree reports ---------------------------------------------- */

START_TEST(test_moves_found) {
	struct scene s;
	scene_init(&s, VR_FORMAT_XRGB8888);
	pixman_region32_t damage;
	pixman_region32_init(&damage);
	struct vr_move moves[VR_MOVES_MAX];
	scene_show(&s);
	ck_assert_uint_eq(update(&s, &damage, moves), 0); /* first frame */

	/* the window scrolls 7 rows down the content: its pixels move up */
	s.scroll[1] = 7;
	scene_show(&s);
	ck_assert_uint_eq(update(&s, &damage, moves), 1);
	ck_assert_int_eq(moves[0].box.x, 6);
	ck_assert_int_eq(moves[0].box.y, 6);
	ck_assert_int_eq(moves[0].box.width, 40);
	ck_assert_int_eq(moves[0].box.height, 36);
	ck_assert_int_eq(moves[0].dx, 0);
	ck_assert_int_eq(moves[0].dy, -7);
	ck_assert_int_eq(region_area(&damage), 40 * 7);
	ck_assert(pixman_region32_contains_point(&damage, 6, 41, NULL));
	ck_assert(!pixman_region32_contains_point(&damage, 6, 34, NULL));

	/* and 3 columns right at once */
	s.scroll[0] = 3;
	s.scroll[1] = 5;
	scene_show(&s);
	ck_assert_uint_eq(update(&s, &damage, moves), 1);
	ck_assert_int_eq(moves[0].dx, -3);
	ck_assert_int_eq(moves[0].dy, 2);
	ck_assert_int_eq(region_area(&damage), 40 * 36 - 37 * 34);

	/* a rectangle above: damaged where it is and where it moved to */
	vr_node_set_enabled(s.above, true);
	ck_assert_uint_eq(update(&s, &damage, moves), 0);
	s.scroll[1] = 9;
	scene_show(&s);
	ck_assert_uint_eq(update(&s, &damage, moves), 1);
	ck_assert_int_eq(moves[0].dy, -4);
	/* its place (20..32 x 25..34), its place moved (y 21..30), the strip */
	ck_assert(pixman_region32_contains_point(&damage, 25, 33, NULL));
	ck_assert(pixman_region32_contains_point(&damage, 25, 21, NULL));
	ck_assert(!pixman_region32_contains_point(&damage, 25, 36, NULL));
	ck_assert_int_eq(region_area(&damage), 40 * 4 + 12 * 13);
	vr_node_set_enabled(s.above, false);
	update(&s, &damage, moves);

	/* the subtree inside the clip: a move of the clip */
	s.sub_offset = 5;
	scene_show(&s);
	ck_assert_uint_eq(update(&s, &damage, moves), 1);
	ck_assert_int_eq(moves[0].box.x, 60);
	ck_assert_int_eq(moves[0].box.y, 8);
	ck_assert_int_eq(moves[0].box.width, 32);
	ck_assert_int_eq(moves[0].box.height, 64);
	ck_assert_int_eq(moves[0].dy, -5);
	ck_assert_int_eq(region_area(&damage), 32 * 5);

	/* both at once: two moves */
	s.sub_offset = 8;
	s.scroll[1] = 10;
	scene_show(&s);
	ck_assert_uint_eq(update(&s, &damage, moves), 2);
	ck_assert_int_eq(region_area(&damage), 32 * 3 + 40 * 1);

	/* a fractional scroll is no move: the window is damaged */
	s.scroll[1] = 10.5f;
	scene_show(&s);
	ck_assert_uint_eq(update(&s, &damage, moves), 0);
	ck_assert_int_eq(region_area(&damage), 40 * 36);

	/* old vr_tree_update: moves come back as damage */
	s.scroll[1] = 20;
	scene_show(&s);
	pixman_region32_clear(&damage);
	vr_tree_update(s.tree, &damage);
	ck_assert_int_eq(region_area(&damage), 40 * 36);

	/* the subtree also changed inside: no move, damage as before */
	s.sub_offset = 12;
	scene_show(&s);
	struct vr_node *extra = vr_node_create(s.tree);
	vr_node_set_rect(extra, 4, 4, ORANGE);
	vr_node_set_position(extra, 70, 30);
	vr_node_set_parent(extra, s.sub);
	ck_assert_uint_eq(update(&s, &damage, moves), 0);
	/* (the first rectangle where it was, the new one, moved along) */
	ck_assert(pixman_region32_contains_point(&damage, 65, 12, NULL));
	ck_assert(pixman_region32_contains_point(&damage, 71, 19, NULL));
	pixman_region32_fini(&damage);
	scene_finish(&s);
}
END_TEST

START_TEST(test_moves_rounded) {
	struct scene s;
	scene_init_rounded(&s, VR_FORMAT_XRGB8888, true);
	pixman_region32_t damage;
	pixman_region32_init(&damage);
	struct vr_move moves[VR_MOVES_MAX];
	scene_show(&s);
	update(&s, &damage, moves);
	s.sub_offset = 5;
	scene_show(&s);
	ck_assert_uint_eq(update(&s, &damage, moves), 1);
	ck_assert_int_eq(moves[0].box.x, 60);
	ck_assert_int_eq(moves[0].box.y, 8 + ROUND);
	ck_assert_int_eq(moves[0].box.width, 32);
	ck_assert_int_eq(moves[0].box.height, 64 - 2 * ROUND);
	/* the corner rows and the strip */
	ck_assert_int_eq(region_area(&damage), 32 * (2 * ROUND + 5));
	ck_assert(pixman_region32_contains_point(&damage, 61, 9, NULL));
	ck_assert(pixman_region32_contains_point(&damage, 61, 70, NULL));
	ck_assert(!pixman_region32_contains_point(&damage, 61, 40, NULL));
	/* the list also draws across the box: no move */
	struct vr_canvas *canvas = vr_canvas_begin();
	vr_canvas_draw_rect(canvas, (struct vr_rectf){ 60, 8, 32, 64 },
			&(struct vr_paint){ .color = WHITE });
	vr_canvas_draw_rect(canvas, (struct vr_rectf){ 70, 30, 4, 4 },
			&(struct vr_paint){ .color = TEAL });
	struct vr_display_list *list = vr_canvas_finish(canvas);
	vr_node_set_display_list(s.clipper, list);
	vr_display_list_unref(list);
	update(&s, &damage, moves);
	s.sub_offset = 9;
	scene_show(&s);
	ck_assert_uint_eq(update(&s, &damage, moves), 0);
	pixman_region32_fini(&damage);
	scene_finish(&s);
}
END_TEST

START_TEST(test_moves_backdrop) {
	/* an image with alpha shows what is under it */
	struct scene s;
	scene_init(&s, VR_FORMAT_ARGB8888);
	pixman_region32_t damage;
	pixman_region32_init(&damage);
	struct vr_move moves[VR_MOVES_MAX];
	scene_show(&s);
	update(&s, &damage, moves);
	s.scroll[1] = 6;
	scene_show(&s);
	/* over one opaque rectangle that covers the window: a move */
	ck_assert_uint_eq(update(&s, &damage, moves), 1);
	ck_assert_int_eq(region_area(&damage), 40 * 6);
	/* over two: no move */
	vr_node_set_enabled(s.under2, true);
	update(&s, &damage, moves);
	s.scroll[1] = 12;
	scene_show(&s);
	ck_assert_uint_eq(update(&s, &damage, moves), 0);
	ck_assert_int_eq(region_area(&damage), 40 * 36);
	/* an opaque image does not mind */
	pixman_region32_fini(&damage);
	scene_finish(&s);
	scene_init(&s, VR_FORMAT_XRGB8888);
	pixman_region32_init(&damage);
	vr_node_set_enabled(s.under2, true);
	scene_show(&s);
	update(&s, &damage, moves);
	s.scroll[1] = 12;
	scene_show(&s);
	ck_assert_uint_eq(update(&s, &damage, moves), 1);
	/* the clip's backdrop stops being uniform: no move there */
	struct vr_node *spot = vr_node_create(s.tree);
	vr_node_set_rect(spot, 3, 3, TEAL);
	vr_node_set_position(spot, 70, 40);
	vr_node_set_parent(spot, vr_tree_root(s.tree));
	vr_node_place_below(spot, s.clipper);
	update(&s, &damage, moves);
	s.sub_offset = 4;
	scene_show(&s);
	ck_assert_uint_eq(update(&s, &damage, moves), 0);
	ck_assert_int_eq(region_area(&damage), 32 * 64);
	pixman_region32_fini(&damage);
	scene_finish(&s);
}
END_TEST

/* ---- pixels, per engine ------------------------------------------------- */

enum kind { KIND_VULKAN, KIND_CPU, KIND_REFERENCE };

static const char *const kind_names[] = { "vulkan", "cpu", "reference" };

struct dest {
	uint32_t *pixels; /* page-aligned, as an output buffer's mapping */
	struct vr_engine_buffer *buffer;
	struct vr_changes changes; /* since this buffer's frame */
};

static uint32_t lcg(uint32_t *state) {
	*state = *state * 1664525u + 1013904223u;
	return *state >> 8;
}

static void check_pixels(enum kind kind, enum vr_format format, bool rounded) {
	struct vr_renderer *vulkan = NULL;
	struct vr_cpu_renderer *cpu = NULL;
	struct vr_engine *engine = NULL;
	switch (kind) {
	case KIND_VULKAN:
		vulkan = vr_renderer_create(&(struct vr_renderer_options){ 0 });
		if (vulkan == NULL) {
			printf("vulkan: no device, skipped\n");
			return;
		}
		engine = vr_engine_create_vulkan(vulkan);
		break;
	case KIND_CPU:
		cpu = vr_cpu_renderer_create(2);
		ck_assert_ptr_nonnull(cpu);
		engine = vr_engine_create_cpu(cpu);
		break;
	case KIND_REFERENCE: engine = vr_engine_create_reference(); break;
	}
	ck_assert_ptr_nonnull(engine);
	/* the same for every engine from here on */
	struct vr_engine_output *output = vr_engine_output_create(engine, W, H);
	ck_assert_ptr_nonnull(output);
	struct dest *dests = calloc(BUFFERS, sizeof(*dests));
	size_t bytes = ((size_t)W * H * 4 + 4095) / 4096 * 4096;
	for (int i = 0; i < BUFFERS; i++) {
		dests[i].pixels = aligned_alloc(4096, bytes);
		ck_assert_ptr_nonnull(dests[i].pixels);
		dests[i].buffer = vr_engine_buffer_create(engine, dests[i].pixels, W, H,
				W * 4, true);
		ck_assert_ptr_nonnull(dests[i].buffer);
		vr_changes_init(&dests[i].changes);
		vr_changes_damage_all(&dests[i].changes,
				&(struct vr_box){ 0, 0, W, H });
	}
	uint32_t *expected = malloc(W * H * 4);
	pixman_image_t *expected_image = pixman_image_create_bits_no_clear(
			PIXMAN_x8r8g8b8, W, H, expected, W * 4);
	pixman_region32_t whole;
	pixman_region32_init_rect(&whole, 0, 0, W, H);

	struct scene s;
	scene_init_rounded(&s, format, rounded);
	pixman_region32_t damage;
	pixman_region32_init(&damage);
	struct vr_mat view;
	vr_mat_identity(&view);
	uint32_t rng = 12345;
	size_t total_moves = 0;
	for (int frame = 0; frame < 60; frame++) {
		/* scroll a few pixels either way, now and then sideways, the
		 * subtree too; the rectangle above comes and goes */
		if (frame > 0) {
			int step = (int)(lcg(&rng) % 13) - 6;
			s.scroll[1] += (float)step;
			if (s.scroll[1] < 0 || s.scroll[1] > CH - 36) {
				s.scroll[1] -= (float)(2 * step);
			}
			if (lcg(&rng) % 4 == 0) {
				s.scroll[0] = (float)(lcg(&rng) % (CW - 40));
			}
			s.sub_offset += (float)((int)(lcg(&rng) % 9) - 4);
			if (lcg(&rng) % 5 == 0) {
				vr_node_set_enabled(s.above, lcg(&rng) % 2 == 0);
			}
			if (lcg(&rng) % 7 == 0) {
				vr_node_set_position(s.above, (float)(lcg(&rng) % 40),
						(float)(lcg(&rng) % 40));
			}
		}
		scene_show(&s);
		struct vr_move moves[VR_MOVES_MAX];
		pixman_region32_clear(&damage);
		size_t n = vr_tree_update_moves(s.tree, &damage, moves, VR_MOVES_MAX);
		total_moves += n;
		/* one move per destination, the others as damage */
		for (size_t i = 1; i < n; i++) {
			pixman_region32_union_rect(&damage, &damage, moves[i].box.x,
					moves[i].box.y, (unsigned)moves[i].box.width,
					(unsigned)moves[i].box.height);
		}
		const struct vr_move *move = n > 0 ? &moves[0] : NULL;
		struct dest *d = &dests[frame % BUFFERS];
		for (int i = 0; i < BUFFERS; i++) {
			vr_changes_compose(&dests[i].changes, move, &damage);
		}
		struct vr_engine_frame ef = {
			.output = output,
			.buffer = d->buffer,
			.view = view,
			.clear = { 0, 0, 0, 1 },
			.move = move,
			/* the first frame: all of it */
			.damage = frame == 0 ? &whole : &damage,
			.buffer_changes = &d->changes,
		};
		uint64_t id = vr_engine_submit(engine, s.tree, &ef);
		ck_assert_uint_ne(id, 0);
		ck_assert(vr_engine_wait(engine, id, UINT64_MAX));
		if (!vr_engine_buffer_direct(d->buffer)) {
			ck_assert(vr_engine_output_read(output, d->buffer,
					&d->changes.damage, d->pixels, W * 4));
		}
		vr_changes_clear(&d->changes);

		vr_reference_render(s.tree, expected_image, &view,
				(struct vr_color){ 0, 0, 0, 1 });
		int max_diff = 0;
		size_t bad = vr_pixels_compare(d->pixels, W * 4, expected, W * 4, W, H,
				2, &max_diff);
		if (bad > 0) {
			char name[64];
			snprintf(name, sizeof(name), "moves-%s-%d", kind_names[kind],
					frame);
			write_failure_images(name, d->pixels, expected, W, H);
		}
		ck_assert_msg(bad == 0, "%s frame %d: %zu pixels off (max %d)",
				kind_names[kind], frame, bad, max_diff);
	}
	/* the walk did move pixels (not only redraw them) */
	ck_assert_uint_gt(total_moves, 40);

	pixman_region32_fini(&damage);
	pixman_region32_fini(&whole);
	scene_finish(&s);
	for (int i = 0; i < BUFFERS; i++) {
		vr_changes_fini(&dests[i].changes);
		vr_engine_buffer_destroy(dests[i].buffer);
		free(dests[i].pixels);
	}
	free(dests);
	pixman_image_unref(expected_image);
	free(expected);
	vr_engine_output_destroy(output);
	vr_engine_destroy(engine);
	vr_renderer_destroy(vulkan);
	vr_cpu_renderer_destroy(cpu);
	ck_assert_int_eq(log_errors, 0);
}

START_TEST(test_moves_vulkan) {
	check_pixels(KIND_VULKAN, VR_FORMAT_XRGB8888, false);
	check_pixels(KIND_VULKAN, VR_FORMAT_ARGB8888, false);
	check_pixels(KIND_VULKAN, VR_FORMAT_XRGB8888, true);
}
END_TEST

START_TEST(test_moves_cpu) {
	check_pixels(KIND_CPU, VR_FORMAT_XRGB8888, false);
	check_pixels(KIND_CPU, VR_FORMAT_ARGB8888, false);
	check_pixels(KIND_CPU, VR_FORMAT_XRGB8888, true);
}
END_TEST

START_TEST(test_moves_reference) {
	check_pixels(KIND_REFERENCE, VR_FORMAT_XRGB8888, false);
	check_pixels(KIND_REFERENCE, VR_FORMAT_ARGB8888, false);
	check_pixels(KIND_REFERENCE, VR_FORMAT_XRGB8888, true);
}
END_TEST

int main(void) {
	pin_vulkan_driver(); /* LeakSanitizer names its module */
	vr_set_log_func(test_log);
	Suite *suite = suite_create("moves");
	TCase *tc = tcase_create("moves");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_moves_found);
	tcase_add_test(tc, test_moves_rounded);
	tcase_add_test(tc, test_moves_backdrop);
	tcase_add_test(tc, test_moves_vulkan);
	tcase_add_test(tc, test_moves_cpu);
	tcase_add_test(tc, test_moves_reference);
	suite_add_tcase(suite, tc);
	SRunner *runner = srunner_create(suite);
	srunner_run_all(runner, CK_NORMAL);
	int failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? 0 : 1;
}
