/*
 * Unit tests of the canvas and of in-order preparation (CPU only): the
 * recording state (save/restore, transforms, clips), display-list bounds
 * and reference counts, display lists as tree content, the batching rules
 * of preparation, and the CPU geometry the engine and the reference share
 * (flattening, tessellation coverage, glyph shaping), and cold glyphs
 * rasterised by several threads at once (the bitmaps and the atlas as a
 * single thread makes them).
 */
#include <check.h>

#define M_PI 3.14159265358979323846
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vitrail/canvas.h>
#include "display_list.h"
#include "engine_private.h"

static int log_errors;

static void test_log(enum vr_log_level level, const char *fmt, va_list args) {
	if (level == VR_LOG_ERROR) {
		log_errors++;
		vfprintf(stderr, fmt, args);
		fputc('\n', stderr);
	}
}

static void setup(void) {
	vr_set_log_func(test_log);
	log_errors = 0;
}

static void teardown(void) {
	ck_assert_int_eq(log_errors, 0);
	vr_set_log_func(NULL);
}

static const struct vr_paint red = { .color = { 1, 0, 0, 1 } };

#define ck_assert_float_near(a, b) ck_assert_float_eq_tol((a), (b), 1e-4f)

static void assert_mat(const struct vr_mat *m, float a, float b, float c,
		float d, float tx, float ty) {
	ck_assert_float_near(m->a, a);
	ck_assert_float_near(m->b, b);
	ck_assert_float_near(m->c, c);
	ck_assert_float_near(m->d, d);
	ck_assert_float_near(m->tx, tx);
	ck_assert_float_near(m->ty, ty);
}

static void assert_rect(struct vr_rectf r, float x, float y, float w, float h) {
	ck_assert_float_near(r.x, x);
	ck_assert_float_near(r.y, y);
	ck_assert_float_near(r.width, w);
	ck_assert_float_near(r.height, h);
}

/* ---- state -------------------------------------------------------------- */

START_TEST(test_canvas_save_restore) {
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_translate(c, 10, 20);
	vr_canvas_save(c);
	vr_canvas_scale(c, 2, 3);
	vr_canvas_draw_rect(c, (struct vr_rectf){ 1, 1, 4, 4 }, &red);
	vr_canvas_save(c);
	vr_canvas_rotate(c, (float)M_PI / 2);
	vr_canvas_draw_rect(c, (struct vr_rectf){ 0, 0, 1, 1 }, &red);
	vr_canvas_restore(c);
	vr_canvas_restore(c);
	vr_canvas_draw_rect(c, (struct vr_rectf){ 0, 0, 1, 1 }, &red);
	/* unbalanced: ignored, the state stays */
	vr_canvas_restore(c);
	vr_canvas_restore(c);
	vr_canvas_draw_rect(c, (struct vr_rectf){ 0, 0, 1, 1 }, &red);
	struct vr_mat m = { .a = 1, .b = 0, .c = 0, .d = 1, .tx = 5, .ty = 0 };
	vr_canvas_concat(c, &m);
	vr_canvas_draw_rect(c, (struct vr_rectf){ 0, 0, 1, 1 }, &red);
	struct vr_display_list *list = vr_canvas_finish(c);
	ck_assert_uint_eq(vr_display_list_command_count(list), 5);
	const struct vr_dl_command *cmd = list->commands;
	assert_mat(&cmd[0].mat, 2, 0, 0, 3, 10, 20);
	/* scale then a quarter turn: x' = -3y..., y' = 2x... */
	assert_mat(&cmd[1].mat, 0, 3, -2, 0, 10, 20);
	assert_mat(&cmd[2].mat, 1, 0, 0, 1, 10, 20);
	assert_mat(&cmd[3].mat, 1, 0, 0, 1, 10, 20);
	assert_mat(&cmd[4].mat, 1, 0, 0, 1, 15, 20);
	assert_rect(cmd[0].bounds, 12, 23, 8, 12);
	assert_rect(cmd[1].bounds, 8, 20, 2, 3);
	vr_display_list_unref(list);
}
END_TEST

START_TEST(test_canvas_clip_intersection) {
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_clip_rect(c, (struct vr_rectf){ 0, 0, 100, 100 });
	vr_canvas_save(c);
	vr_canvas_translate(c, 50, 50);
	vr_canvas_clip_rect(c, (struct vr_rectf){ 0, 0, 100, 100 });
	vr_canvas_draw_rect(c, (struct vr_rectf){ -50, -50, 200, 200 }, &red);
	/* entirely outside the clip: not recorded at all */
	vr_canvas_draw_rect(c, (struct vr_rectf){ -45, -45, 10, 10 }, &red);
	vr_canvas_restore(c);
	vr_canvas_draw_rect(c, (struct vr_rectf){ -10, -10, 30, 30 }, &red);
	/* rotation: the clip is the bounding box of the rotated rect */
	vr_canvas_save(c);
	vr_canvas_translate(c, 50, 50);
	vr_canvas_rotate(c, (float)M_PI / 4);
	vr_canvas_clip_rect(c, (struct vr_rectf){ -10, -10, 20, 20 });
	vr_canvas_draw_rect(c, (struct vr_rectf){ -50, -50, 100, 100 }, &red);
	vr_canvas_restore(c);
	struct vr_display_list *list = vr_canvas_finish(c);
	ck_assert_uint_eq(vr_display_list_command_count(list), 3);
	const struct vr_dl_command *cmd = list->commands;
	ck_assert(cmd[0].has_clip);
	assert_rect(cmd[0].clip, 50, 50, 50, 50);
	assert_rect(cmd[0].bounds, 50, 50, 50, 50);
	assert_rect(cmd[1].clip, 0, 0, 100, 100);
	assert_rect(cmd[1].bounds, 0, 0, 20, 20);
	float half = 10.0f * sqrtf(2.0f);
	assert_rect(cmd[2].clip, 50 - half, 50 - half, 2 * half, 2 * half);
	ck_assert_uint_eq(cmd[2].nrclips, 0);
	assert_rect(list->bounds, 0, 0, 100, 100);
	vr_display_list_unref(list);
}
END_TEST

START_TEST(test_canvas_clip_rrect) {
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_translate(c, 10, 10);
	vr_canvas_scale(c, 2, 2);
	/* radii too big for the rect: scaled down to fit */
	vr_canvas_clip_rrect(c, (struct vr_rectf){ 0, 0, 50, 20 },
			(struct vr_radii){ 15, 15, 5, 5 });
	vr_canvas_draw_rect(c, (struct vr_rectf){ 0, 0, 100, 100 }, &red);
	vr_canvas_clip_rrect(c, (struct vr_rectf){ 10, 5, 20, 20 },
			(struct vr_radii){ 2, 2, 2, 2 });
	vr_canvas_draw_rect(c, (struct vr_rectf){ 0, 0, 100, 100 }, &red);
	/* flipped: the corners follow */
	vr_canvas_scale(c, -1, 1);
	vr_canvas_clip_rrect(c, (struct vr_rectf){ -30, 5, 20, 20 },
			(struct vr_radii){ 1, 2, 3, 4 });
	vr_canvas_draw_rect(c, (struct vr_rectf){ -100, 0, 100, 100 }, &red);
	struct vr_display_list *list = vr_canvas_finish(c);
	const struct vr_dl_command *cmd = list->commands;
	/* each kept in its own coordinates with the transform of then */
	ck_assert_uint_eq(cmd[0].nrclips, 1);
	assert_rect(cmd[0].rclips[0].rrect.rect, 0, 0, 50, 20);
	assert_mat(&cmd[0].rclips[0].mat, 2, 0, 0, 2, 10, 10);
	/* 15 + 5 > 20: scale 20 / 20 = 1 keeps them */
	ck_assert_float_near(cmd[0].rclips[0].rrect.radii.tl, 15);
	ck_assert_float_near(cmd[0].rclips[0].rrect.radii.br, 5);
	assert_rect(cmd[0].bounds, 10, 10, 100, 40);
	/* the second nests: both keep their corners, the box is both's */
	ck_assert_uint_eq(cmd[1].nrclips, 2);
	assert_rect(cmd[1].rclips[0].rrect.rect, 0, 0, 50, 20);
	assert_rect(cmd[1].rclips[1].rrect.rect, 10, 5, 20, 20);
	assert_rect(cmd[1].clip, 30, 20, 40, 30);
	ck_assert_float_near(cmd[1].rclips[1].rrect.radii.tl, 2);
	/* a third: the oldest clips by its box only */
	ck_assert_uint_eq(cmd[2].nrclips, VR_DL_RCLIP_MAX);
	assert_rect(cmd[2].rclips[0].rrect.rect, 10, 5, 20, 20);
	assert_mat(&cmd[2].rclips[1].mat, -2, 0, 0, 2, 10, 10);
	/* the flip swaps left and right corners: local tr (2, 4 pixels) is
	 * the pixels' top-left, local tl (1, 2 pixels) their top-right */
	struct vr_rclip rc;
	ck_assert(
			vr_rclip_init(&rc, &cmd[2].rclips[1].mat, &cmd[2].rclips[1].rrect));
	ck_assert(vr_rclip_coverage(&rc, 30.5f, 20.5f) < 0.01f);
	ck_assert(vr_rclip_coverage(&rc, 69.5f, 20.5f) > 0.3f);
	ck_assert_float_eq(vr_rclip_coverage(&rc, 50.5f, 40.5f), 1.0f);
	vr_display_list_unref(list);
}
END_TEST

START_TEST(test_canvas_bounds) {
	struct vr_canvas *c = vr_canvas_begin();
	struct vr_display_list *empty = vr_canvas_finish(c);
	ck_assert_uint_eq(vr_display_list_command_count(empty), 0);
	ck_assert(vr_rectf_empty(&empty->bounds));
	vr_display_list_unref(empty);

	c = vr_canvas_begin();
	struct vr_paint stroke = red;
	stroke.stroke_width = 4;
	vr_canvas_draw_rect(c, (struct vr_rectf){ 10, 10, 10, 10 }, &stroke);
	vr_canvas_draw_ellipse(c, (struct vr_rectf){ 100, 0, 20, 10 }, &red);
	stroke.cap = VR_CAP_SQUARE;
	stroke.join = VR_JOIN_BEVEL;
	vr_canvas_draw_line(c, 0, 50, 10, 50, &stroke);
	vr_canvas_draw_shadow(c, (struct vr_rectf){ 0, 0, 10, 10 },
			(struct vr_radii){ 0 }, 4, (struct vr_color){ 0, 0, 0, 1 });
	/* no paint or nothing to draw: ignored */
	vr_canvas_draw_rect(c, (struct vr_rectf){ 0, 0, 0, 10 }, &red);
	vr_canvas_draw_line(c, 0, 0, 10, 10, &red); /* width 0 */
	struct vr_display_list *list = vr_canvas_finish(c);
	ck_assert_uint_eq(vr_display_list_command_count(list), 4);
	const struct vr_dl_command *cmd = list->commands;
	assert_rect(cmd[0].bounds, 8, 8, 14, 14);
	assert_rect(cmd[1].bounds, 100, 0, 20, 10);
	float sq = 2.0f * 1.41421356f;
	assert_rect(cmd[2].bounds, -sq, 50 - sq, 10 + 2 * sq, 2 * sq);
	assert_rect(cmd[3].bounds, -7, -7, 24, 24);
	struct vr_rectf b = vr_display_list_bounds(list);
	assert_rect(b, -7, -7, 127, 50 + sq + 7);
	vr_display_list_unref(list);
}
END_TEST

START_TEST(test_canvas_refcounts) {
	struct vr_image *image = vr_image_create(4, 4, VR_FORMAT_ARGB8888);
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_draw_image(c, image, NULL, (struct vr_rectf){ 0, 0, 8, 8 }, 1.0f);
	struct vr_display_list *list = vr_canvas_finish(c);
	ck_assert_int_eq(image->refs, 2); /* the command holds one */
	ck_assert_int_eq(list->refs, 1);

	struct vr_tree *tree = vr_tree_create();
	struct vr_node *a = vr_node_create(tree), *b = vr_node_create(tree);
	vr_node_set_display_list(a, list);
	vr_node_set_display_list(b, list);
	vr_node_set_display_list(b, list); /* the same: no new reference */
	ck_assert_int_eq(list->refs, 3);
	vr_display_list_ref(list);
	ck_assert_int_eq(list->refs, 4);
	vr_display_list_unref(list);
	vr_display_list_unref(list); /* the nodes keep it alive */
	ck_assert_int_eq(list->refs, 2);
	vr_node_set_rect(a, 1, 1, (struct vr_color){ 1, 1, 1, 1 });
	ck_assert_int_eq(list->refs, 1);
	ck_assert_int_eq(image->refs, 2);
	vr_node_destroy(b); /* the last reference: the list and its image's */
	ck_assert_int_eq(image->refs, 1);
	vr_display_list_unref(NULL);
	vr_image_unref(image);
	vr_tree_destroy(tree);
}
END_TEST

START_TEST(test_canvas_node_content) {
	struct vr_tree *tree = vr_tree_create();
	struct vr_node *root = vr_tree_root(tree);
	struct vr_node *node = vr_node_create(tree);
	vr_node_set_position(node, 100, 50);
	vr_node_set_parent(node, root);
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_draw_rect(c, (struct vr_rectf){ -10, -5, 20, 10 }, &red);
	struct vr_display_list *list = vr_canvas_finish(c);
	vr_node_set_display_list(node, list);
	pixman_region32_t damage;
	pixman_region32_init(&damage);
	vr_tree_update(tree, &damage);
	struct vr_box box;
	ck_assert(vr_node_get_bounds(node, &box));
	ck_assert_int_eq(box.x, 90);
	ck_assert_int_eq(box.y, 45);
	ck_assert_int_eq(box.width, 20);
	ck_assert_int_eq(box.height, 10);
	ck_assert(pixman_region32_contains_point(&damage, 95, 47, NULL));

	/* the same list again: nothing changes, nothing is damaged */
	pixman_region32_clear(&damage);
	vr_node_set_display_list(node, list);
	vr_tree_update(tree, &damage);
	ck_assert(!pixman_region32_not_empty(&damage));

	/* another list: the old and the new bounds are damaged */
	c = vr_canvas_begin();
	vr_canvas_draw_rect(c, (struct vr_rectf){ 50, 0, 10, 10 }, &red);
	struct vr_display_list *other = vr_canvas_finish(c);
	vr_node_set_display_list(node, other);
	vr_tree_update(tree, &damage);
	ck_assert(pixman_region32_contains_point(&damage, 95, 47, NULL));
	ck_assert(pixman_region32_contains_point(&damage, 155, 55, NULL));
	ck_assert(!pixman_region32_contains_point(&damage, 130, 52, NULL));

	/* NULL clears it */
	vr_node_set_display_list(node, NULL);
	vr_tree_update(tree, NULL);
	ck_assert(!vr_node_get_bounds(node, NULL));
	vr_display_list_unref(list);
	vr_display_list_unref(other);
	pixman_region32_fini(&damage);
	vr_tree_destroy(tree);
}
END_TEST

/* ---- preparation -------------------------------------------------------- */

#define MAX_PUSHED 256

struct capture {
	struct vr_task tasks[MAX_PUSHED];
	uint32_t counts_at_push[MAX_PUSHED]; /* payload->count when pushed */
	size_t ntasks;
	void *allocations[4096];
	size_t nallocations;
};

static void *capture_alloc(void *data, size_t size) {
	struct capture *cap = data;
	ck_assert_uint_lt(cap->nallocations, 4096);
	void *p = calloc(1, size);
	cap->allocations[cap->nallocations++] = p;
	return p;
}

static bool capture_push(void *data, const struct vr_task *task) {
	struct capture *cap = data;
	ck_assert_uint_lt(cap->ntasks, MAX_PUSHED);
	cap->counts_at_push[cap->ntasks] = task->payload->count;
	cap->tasks[cap->ntasks] = *task;
	cap->tasks[cap->ntasks].index = (uint32_t)cap->ntasks;
	cap->ntasks++;
	return true;
}

static void capture_free(struct capture *cap) {
	for (size_t i = 0; i < cap->nallocations; i++) {
		free(cap->allocations[i]);
	}
	free(cap);
}

/* Prepare tree into a 400x300 target (identity view unless given). */
static struct capture *prepare(struct vr_tree *tree,
		const struct vr_prepare_options *options, const struct vr_mat *view,
		const struct vr_box *extents) {
	struct capture *cap = calloc(1, sizeof(*cap));
	struct vr_task_sink sink = { .alloc = capture_alloc,
		.push = capture_push,
		.data = cap };
	struct vr_prepare_job job = {
		.view = { .a = 1, .d = 1 },
		.target = { 0, 0, 400, 300 },
		.extents = { 0, 0, 400, 300 },
	};
	if (view != NULL) {
		job.view = *view;
	}
	if (extents != NULL) {
		job.extents = *extents;
	}
	vr_tree_update(tree, NULL);
	ck_assert(vr_prepare_tasks(&sink, tree, &job, options));
	/* pushed tasks are final; the chain is in drawing order */
	for (size_t i = 0; i < cap->ntasks; i++) {
		ck_assert_uint_eq(cap->tasks[i].payload->count, cap->counts_at_push[i]);
		ck_assert_uint_gt(cap->tasks[i].payload->count, 0);
		ck_assert_ptr_nonnull(cap->tasks[i].out);
		const struct vr_box *a = &cap->tasks[i].aabb;
		ck_assert(!vr_box_empty(a));
		ck_assert_int_ge(a->x, job.extents.x);
		ck_assert_int_ge(a->y, job.extents.y);
		ck_assert_int_le(a->x + a->width, job.extents.x + job.extents.width);
		ck_assert_int_le(a->y + a->height, job.extents.y + job.extents.height);
	}
	return cap;
}

static struct vr_node *list_node(struct vr_tree *tree,
		struct vr_display_list *list) {
	struct vr_node *node = vr_node_create(tree);
	vr_node_set_display_list(node, list);
	vr_node_set_parent(node, vr_tree_root(tree));
	vr_display_list_unref(list);
	return node;
}

static void add_path(struct vr_canvas *c, float x, float y) {
	struct vr_paint p = red;
	p.stroke_width = 2;
	vr_canvas_draw_line(c, x, y, x + 20, y + 20, &p);
}

START_TEST(test_canvas_batch_coalesce) {
	struct vr_tree *tree = vr_tree_create();
	struct vr_canvas *c = vr_canvas_begin();
	for (int i = 0; i < 10; i++) {
		vr_canvas_draw_rect(c, (struct vr_rectf){ 30.0f * i, 0, 20, 20 }, &red);
	}
	/* a second node: batching crosses node boundaries */
	list_node(tree, vr_canvas_finish(c));
	c = vr_canvas_begin();
	vr_canvas_draw_ellipse(c, (struct vr_rectf){ 0, 100, 20, 20 }, &red);
	list_node(tree, vr_canvas_finish(c));
	struct capture *cap = prepare(tree, NULL, NULL, NULL);
	ck_assert_uint_eq(cap->ntasks, 1);
	ck_assert_int_eq(cap->tasks[0].kind, VR_TASK_SHAPES);
	ck_assert_uint_eq(cap->tasks[0].payload->count, 11);
	/* the AABB covers all of them (and a pixel of AA) */
	ck_assert_int_eq(cap->tasks[0].aabb.x, 0);
	/* clipped to the node's bounds: the fringe has no coverage there */
	ck_assert_int_eq(cap->tasks[0].aabb.width, 290);
	ck_assert_int_eq(cap->tasks[0].aabb.height, 120);
	capture_free(cap);

	/* without batching: one task per primitive, in order */
	struct vr_prepare_options none = { .no_batching = true };
	cap = prepare(tree, &none, NULL, NULL);
	ck_assert_uint_eq(cap->ntasks, 11);
	ck_assert(cap->tasks[10].payload->shapes[0].ellipse);
	ck_assert_int_lt(cap->tasks[0].aabb.x, cap->tasks[1].aabb.x);
	capture_free(cap);
	vr_tree_destroy(tree);
}
END_TEST

START_TEST(test_canvas_batch_overlap) {
	/* rect, an overlapping path, a rect overlapping the path: the second
	 * rect must not join the first (it would be drawn under the path) */
	struct vr_tree *tree = vr_tree_create();
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_draw_rect(c, (struct vr_rectf){ 0, 0, 20, 20 }, &red);
	add_path(c, 10, 10);
	vr_canvas_draw_rect(c, (struct vr_rectf){ 25, 25, 10, 10 }, &red);
	list_node(tree, vr_canvas_finish(c));
	struct capture *cap = prepare(tree, NULL, NULL, NULL);
	ck_assert_uint_eq(cap->ntasks, 3);
	ck_assert_int_eq(cap->tasks[0].kind, VR_TASK_SHAPES);
	ck_assert_int_eq(cap->tasks[1].kind, VR_TASK_TRIANGLES);
	ck_assert_int_eq(cap->tasks[2].kind, VR_TASK_SHAPES);
	capture_free(cap);
	vr_tree_destroy(tree);

	/* the same with the second rect clear of the path: it joins */
	tree = vr_tree_create();
	c = vr_canvas_begin();
	vr_canvas_draw_rect(c, (struct vr_rectf){ 0, 0, 20, 20 }, &red);
	add_path(c, 10, 10);
	vr_canvas_draw_rect(c, (struct vr_rectf){ 100, 100, 10, 10 }, &red);
	list_node(tree, vr_canvas_finish(c));
	cap = prepare(tree, NULL, NULL, NULL);
	ck_assert_uint_eq(cap->ntasks, 2);
	ck_assert_int_eq(cap->tasks[0].kind, VR_TASK_SHAPES);
	ck_assert_uint_eq(cap->tasks[0].payload->count, 2);
	ck_assert(cap->tasks[0].payload->shapes[1].rect.x == 100.0f);
	capture_free(cap);
	vr_tree_destroy(tree);
}
END_TEST

START_TEST(test_canvas_batch_lookback) {
	for (int shadows = 2; shadows <= 3; shadows++) {
		struct vr_tree *tree = vr_tree_create();
		struct vr_canvas *c = vr_canvas_begin();
		vr_canvas_draw_rect(c, (struct vr_rectf){ 0, 0, 10, 10 }, &red);
		for (int i = 0; i < shadows; i++) {
			/* shadows never batch: each is an open task */
			vr_canvas_draw_shadow(c,
					(struct vr_rectf){ 50.0f + 40.0f * i, 0, 10, 10 },
					(struct vr_radii){ 0 }, 2, (struct vr_color){ 0, 0, 0, 1 });
		}
		vr_canvas_draw_rect(c, (struct vr_rectf){ 0, 200, 10, 10 }, &red);
		list_node(tree, vr_canvas_finish(c));
		struct vr_prepare_options options = { .lookback = 3 };
		struct capture *cap = prepare(tree, &options, NULL, NULL);
		if (shadows == 2) {
			/* the rect task is still in the window */
			ck_assert_uint_eq(cap->ntasks, 3);
			ck_assert_uint_eq(cap->tasks[0].payload->count, 2);
		} else {
			/* pushed out of the window before the second rect */
			ck_assert_uint_eq(cap->ntasks, 5);
			ck_assert_uint_eq(cap->tasks[0].payload->count, 1);
			ck_assert_int_eq(cap->tasks[4].kind, VR_TASK_SHAPES);
		}
		capture_free(cap);
		vr_tree_destroy(tree);
	}
}
END_TEST

START_TEST(test_canvas_batch_quads) {
	struct vr_tree *tree = vr_tree_create();
	struct vr_node *root = vr_tree_root(tree);
	struct vr_image *image = vr_image_create(8, 8, VR_FORMAT_ARGB8888);
	for (int i = 0; i < 4; i++) {
		struct vr_node *n = vr_node_create(tree);
		vr_node_set_position(n, 20.0f * i, 0);
		vr_node_set_rect(n, 10, 10, (struct vr_color){ 0, 1, 0, 1 });
		vr_node_set_parent(n, root);
	}
	/* a clipped one: another scissor, another task */
	struct vr_node *clipped = vr_node_create(tree);
	vr_node_set_position(clipped, 0, 50);
	vr_node_set_rect(clipped, 10, 10, (struct vr_color){ 0, 1, 0, 1 });
	vr_node_set_clip(clipped, &(struct vr_rectf){ 0, 0, 5, 5 });
	vr_node_set_parent(clipped, root);
	/* images: their own batch */
	for (int i = 0; i < 2; i++) {
		struct vr_node *n = vr_node_create(tree);
		vr_node_set_position(n, 20.0f * i, 100);
		vr_node_set_image(n, image, NULL, 8, 8, VR_TRANSFORM_NORMAL);
		vr_node_set_parent(n, root);
	}
	struct capture *cap = prepare(tree, NULL, NULL, NULL);
	ck_assert_uint_eq(cap->ntasks, 3);
	ck_assert_uint_eq(cap->tasks[0].payload->count, 4);
	ck_assert_ptr_null(cap->tasks[0].payload->quads[0].image);
	ck_assert_uint_eq(cap->tasks[1].payload->count, 1);
	ck_assert_int_eq(cap->tasks[1].payload->quads[0].clip.width, 5);
	ck_assert_uint_eq(cap->tasks[2].payload->count, 2);
	ck_assert_ptr_eq(cap->tasks[2].payload->quads[1].image, image);
	capture_free(cap);

	/* culling: only what meets the damaged extents */
	struct vr_box extents = { 0, 95, 15, 20 };
	cap = prepare(tree, NULL, NULL, &extents);
	ck_assert_uint_eq(cap->ntasks, 1);
	ck_assert_uint_eq(cap->tasks[0].payload->count, 1);
	ck_assert_int_eq(cap->tasks[0].aabb.x, 0);
	ck_assert_int_eq(cap->tasks[0].aabb.y, 100);
	ck_assert_int_eq(cap->tasks[0].aabb.width, 8);
	capture_free(cap);
	vr_image_unref(image);
	vr_tree_destroy(tree);
}
END_TEST

/* Which rounded clips a primitive carries (vr_rclips_for): none where
 * every clip covers it fully; of three nested ones that all cut it, the
 * inner two (the outermost clips by its box); of five nested on nodes,
 * the node keeps four; none containing another. */
START_TEST(test_canvas_rclip_reduction) {
	struct vr_tree *tree = vr_tree_create();
	/* a [0, 100]^2, b [50, 150] x [0, 100], c [25, 125] x [50, 150],
	 * r 20 each: their intersection is [50, 100]^2, and each one's
	 * corner reaches into it (a's (100, 100), b's (50, 100), c's
	 * top-left centre (45, 70) is 20.6 from (50, 50)) */
	const struct vr_rectf rects[3] = { { 0, 0, 100, 100 }, { 50, 0, 100, 100 },
		{ 25, 50, 100, 100 } };
	struct vr_node *parent = vr_tree_root(tree);
	for (int i = 0; i < 3; i++) {
		struct vr_node *n = vr_node_create(tree);
		vr_node_set_clip_rounded(n, &rects[i], 20);
		vr_node_set_parent(n, parent);
		parent = n;
	}
	struct vr_canvas *c = vr_canvas_begin();
	/* deep inside all three: no clip to evaluate */
	vr_canvas_draw_rect(c, (struct vr_rectf){ 70, 70, 10, 10 }, &red);
	/* everything */
	vr_canvas_draw_rect(c, (struct vr_rectf){ 0, 0, 200, 200 }, &red);
	struct vr_display_list *list = vr_canvas_finish(c);
	struct vr_node *node = vr_node_create(tree);
	vr_node_set_display_list(node, list);
	vr_display_list_unref(list);
	vr_node_set_parent(node, parent);
	struct capture *cap = prepare(tree, NULL, NULL, NULL);
	/* two tasks: shapes with rounded clips and without draw with
	 * different pipelines (engine_private.h, struct vr_vertex_clip) */
	ck_assert_uint_eq(cap->ntasks, 2);
	ck_assert_uint_eq(cap->tasks[0].payload->count, 1);
	ck_assert_uint_eq(cap->tasks[1].payload->count, 1);
	const struct vr_shape *s = cap->tasks[0].payload->shapes;
	ck_assert_uint_eq(s[0].state.nrclips, 0);
	s = cap->tasks[1].payload->shapes;
	ck_assert_uint_eq(s[0].state.nrclips, 2);
	/* b and c, in that order: (local x = px - centre x) */
	ck_assert_float_near(s[0].state.rclips[0].x[2], -100);
	ck_assert_float_near(s[0].state.rclips[1].x[2], -75);
	ck_assert_float_near(s[0].state.rclips[1].y[2], -100);
	/* a clips by its box: the clip box is the boxes' intersection */
	ck_assert_int_eq(s[0].state.clip.x, 50);
	ck_assert_int_eq(s[0].state.clip.y, 50);
	ck_assert_int_eq(s[0].state.clip.width, 50);
	ck_assert_int_eq(s[0].state.clip.height, 50);
	capture_free(cap);

	/* five nested on nodes, all cutting: a node keeps the inner four
	 * (VR_RCLIP_NEST_MAX), a primitive the inner two */
	vr_tree_destroy(tree);
	tree = vr_tree_create();
	parent = vr_tree_root(tree);
	for (int i = 0; i < 5; i++) {
		struct vr_node *n = vr_node_create(tree);
		vr_node_set_clip_rounded(n,
				&(struct vr_rectf){ 0, 0, 100.0f + (float)i, 100 }, 10);
		vr_node_set_parent(n, parent);
		parent = n;
	}
	c = vr_canvas_begin();
	vr_canvas_draw_rect(c, (struct vr_rectf){ 0, 0, 200, 200 }, &red);
	list = vr_canvas_finish(c);
	node = vr_node_create(tree);
	vr_node_set_display_list(node, list);
	vr_display_list_unref(list);
	vr_node_set_parent(node, parent);
	cap = prepare(tree, NULL, NULL, NULL);
	ck_assert_uint_eq(node->abs.nrclips, VR_RCLIP_NEST_MAX);
	ck_assert_float_near(node->abs.rclips[0].rrect.rect.width, 101);
	s = cap->tasks[0].payload->shapes;
	ck_assert_uint_eq(s[0].state.nrclips, VR_RCLIP_MAX);
	ck_assert_float_near(s[0].state.rclips[0].x[3], 51.5f);
	ck_assert_float_near(s[0].state.rclips[1].x[3], 52);
	ck_assert_int_eq(s[0].state.clip.width, 100);
	capture_free(cap);

	/* b alone inside a's fully covered part: a is dropped */
	vr_tree_destroy(tree);
	tree = vr_tree_create();
	struct vr_node *a = vr_node_create(tree);
	vr_node_set_clip_rounded(a, &(struct vr_rectf){ 0, 0, 200, 200 }, 20);
	vr_node_set_parent(a, vr_tree_root(tree));
	struct vr_node *b = vr_node_create(tree);
	vr_node_set_clip_rounded(b, &(struct vr_rectf){ 20, 20, 160, 160 }, 20);
	vr_node_set_parent(b, a);
	c = vr_canvas_begin();
	vr_canvas_draw_rect(c, (struct vr_rectf){ 0, 0, 200, 200 }, &red);
	list = vr_canvas_finish(c);
	node = vr_node_create(tree);
	vr_node_set_display_list(node, list);
	vr_display_list_unref(list);
	vr_node_set_parent(node, b);
	cap = prepare(tree, NULL, NULL, NULL);
	ck_assert_uint_eq(cap->ntasks, 1);
	s = cap->tasks[0].payload->shapes;
	ck_assert_uint_eq(s[0].state.nrclips, 1);
	ck_assert_float_near(s[0].state.rclips[0].x[3], 80);
	capture_free(cap);
	vr_tree_destroy(tree);
}
END_TEST

START_TEST(test_canvas_absolute_state) {
	struct vr_tree *tree = vr_tree_create();
	struct vr_node *parent = vr_node_create(tree);
	vr_node_set_position(parent, 10, 20);
	vr_node_set_opacity(parent, 0.5f);
	vr_node_set_clip(parent, &(struct vr_rectf){ 0, 0, 100, 60 });
	vr_node_set_parent(parent, vr_tree_root(tree));
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_translate(c, 5, 5);
	vr_canvas_clip_rrect(c, (struct vr_rectf){ 0, 0, 40, 40 },
			(struct vr_radii){ 4, 4, 4, 4 });
	struct vr_paint paint = { .color = { 1, 0.5f, 0, 0.8f },
		.stroke_width = 2 };
	vr_canvas_draw_rrect(c, (struct vr_rectf){ 0, 0, 30, 30 },
			(struct vr_radii){ 3, 3, 3, 3 }, &paint);
	struct vr_display_list *list = vr_canvas_finish(c);
	struct vr_node *node = vr_node_create(tree);
	vr_node_set_display_list(node, list);
	vr_display_list_unref(list);
	vr_node_set_parent(node, parent);

	struct vr_mat view = { .a = 2, .d = 2, .tx = 1, .ty = 0 };
	struct capture *cap = prepare(tree, NULL, &view, NULL);
	ck_assert_uint_eq(cap->ntasks, 1);
	const struct vr_shape *s = &cap->tasks[0].payload->shapes[0];
	/* view * node * command */
	assert_mat(&s->state.mat, 2, 0, 0, 2, 31, 50);
	/* the parent's clip in target pixels, and the rounded clip's box */
	ck_assert_int_eq(s->state.clip.x, 31);
	ck_assert_int_eq(s->state.clip.y, 50);
	/* ... and the node's bounds: (5, 5) + 31 (the stroke, clipped) */
	ck_assert_int_eq(s->state.clip.width, 62);
	ck_assert_int_eq(s->state.clip.height, 62);
	/* the rounded clip in its own coordinates (40 x 40, radius 4),
	 * from target pixels: (31, 50, 80, 80) with radius 8 */
	ck_assert_uint_eq(s->state.nrclips, 1);
	const struct vr_rclip *rc = &s->state.rclips[0];
	ck_assert_float_near(rc->x[3], 20);
	ck_assert_float_near(rc->y[3], 20);
	ck_assert_float_near(rc->radii[2], 4);
	ck_assert_float_eq(vr_rclip_coverage(rc, 71, 90), 1.0f);
	/* 10.6 pixels from the top-left corner's centre (39, 58) */
	ck_assert_float_eq(vr_rclip_coverage(rc, 31.5f, 50.5f), 0.0f);
	ck_assert_float_eq(vr_rclip_coverage(rc, 39.5f, 50.5f), 1.0f);
	/* premultiplied, times the inherited opacity */
	ck_assert_float_near(s->state.color[3], 0.4f);
	ck_assert_float_near(s->state.color[0], 0.4f);
	ck_assert_float_near(s->state.color[1], 0.2f);
	ck_assert_float_near(s->stroke_width, 2);
	capture_free(cap);
	vr_tree_destroy(tree);
}
END_TEST

START_TEST(test_canvas_text_shaping) {
	struct vr_font font = { "DejaVu Sans", 20, 400 };
	struct vr_text *text = vr_text_shape("AVA fi", &font, 10, 30);
	ck_assert_ptr_nonnull(text);
	/* DejaVu's "fi" ligature: 5 glyphs */
	ck_assert_uint_eq(text->count, 5);
	ck_assert_float_near(text->positions[0], 10);
	ck_assert_float_near(text->positions[1], 30);
	/* advances grow; kerning pulls "AV" closer than "A " + "V" */
	for (uint32_t i = 1; i < text->count; i++) {
		ck_assert_float_gt(text->positions[2 * i],
				text->positions[2 * (i - 1)]);
	}
	ck_assert_float_lt(text->bounds.y, 30 - 14);
	ck_assert_float_gt(text->bounds.y + text->bounds.height, 30);
	struct vr_glyph_bitmap bitmap;
	ck_assert(vr_font_face_rasterize(text->face, text->glyphs[0], 20.0f,
			&bitmap));
	ck_assert_int_gt(bitmap.width, 5);
	ck_assert_int_gt(bitmap.top, 10); /* 'A' stands on the baseline */
	int full = 0;
	for (int32_t i = 0; i < bitmap.width * bitmap.height; i++) {
		full += bitmap.coverage[i] == 255;
	}
	ck_assert_int_gt(full, 10);
	free(bitmap.coverage);
	vr_text_destroy(text);
	/* bold is another face */
	font.weight = 700;
	struct vr_text *bold = vr_text_shape("A", &font, 0, 0);
	ck_assert_ptr_nonnull(bold);
	ck_assert_ptr_ne(bold->face, vr_font_face_get("DejaVu Sans", 400));
	vr_text_destroy(bold);
}
END_TEST

/* ---- geometry ----------------------------------------------------------- */

START_TEST(test_canvas_flatten) {
	/* a circle of radius 100 from four cubics */
	const float k = 0.5522847f * 100;
	struct vr_path *path = vr_path_create();
	vr_path_move_to(path, 100, 0);
	vr_path_cubic_to(path, 100, k, k, 100, 0, 100);
	vr_path_cubic_to(path, -k, 100, -100, k, -100, 0);
	vr_path_cubic_to(path, -100, -k, -k, -100, 0, -100);
	vr_path_cubic_to(path, k, -100, 100, -k, 100, 0);
	vr_path_close(path);
	vr_path_line_to(path, 50, 50); /* starts at the closed contour's start */
	struct vr_polylines lines = { 0 };
	struct vr_mat m = { .a = 2, .d = 2 };
	ck_assert(vr_path_flatten(path, &m, 0.25f, &lines));
	ck_assert_uint_eq(lines.ncontours, 2);
	ck_assert(lines.contours[0].closed);
	ck_assert(!lines.contours[1].closed);
	ck_assert_float_near(lines.points[lines.contours[1].start * 2], 200);
	const struct vr_contour *ct = &lines.contours[0];
	ck_assert_uint_gt(ct->count, 16);
	/* every chord's midpoint is within the tolerance (plus the cubic
	 * approximation's own 0.03%) of the circle of radius 200 */
	for (uint32_t i = 0; i < ct->count; i++) {
		const float *p = &lines.points[(ct->start + i) * 2];
		const float *q = &lines.points[(ct->start + (i + 1) % ct->count) * 2];
		float mx = (p[0] + q[0]) / 2, my = (p[1] + q[1]) / 2;
		ck_assert_float_le(fabsf(hypotf(mx, my) - 200.0f), 0.25f + 0.06f);
		ck_assert_float_le(fabsf(hypotf(p[0], p[1]) - 200.0f), 0.06f);
	}
	vr_polylines_finish(&lines);
	vr_path_destroy(path);
}
END_TEST

/* Render one display list with the reference renderer. */
static uint32_t *reference(struct vr_display_list *list, int32_t w, int32_t h) {
	struct vr_tree *tree = vr_tree_create();
	list_node(tree, list);
	vr_tree_update(tree, NULL);
	pixman_image_t *dst =
			pixman_image_create_bits(PIXMAN_a8r8g8b8, w, h, NULL, w * 4);
	struct vr_mat view = { .a = 1, .d = 1 };
	vr_reference_render(tree, dst, &view, (struct vr_color){ 0 });
	uint32_t *pixels = malloc((size_t)w * (size_t)h * 4);
	memcpy(pixels, pixman_image_get_data(dst), (size_t)w * (size_t)h * 4);
	pixman_image_unref(dst);
	vr_tree_destroy(tree);
	return pixels;
}

static double alpha_sum(const uint32_t *pixels, int32_t n) {
	double sum = 0;
	for (int32_t i = 0; i < n; i++) {
		sum += (double)(pixels[i] >> 24) / 255.0;
	}
	return sum;
}

START_TEST(test_canvas_coverage_area) {
	/* The shared geometry covers the right area: anti-aliasing moves
	 * coverage between edge pixels but keeps the total. */
	struct {
		const char *what;
		double area, tolerance;
	} expect[] = {
		{ "circle r=20.3 at a fraction", M_PI * 20.3 * 20.3, 1.0 },
		{ "rrect stroke", 0, 2.0 },
		{ "butt line 50x4", 200, 1.0 },
		{ "square-capped line", 54 * 4, 1.0 },
		{ "round-capped line", 200 + M_PI * 4, 1.5 },
		{ "filled triangle", 0.5 * 40 * 30, 20.0 },
		{ "even-odd square ring", 40 * 40 - 20 * 20, 40.0 },
		{ "nonzero square ring, same direction", 40 * 40, 40.0 },
		{ "rotated rect", 30 * 10, 0.5 },
	};
	const int32_t w = 100, h = 100;
	for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
		struct vr_canvas *c = vr_canvas_begin();
		struct vr_paint p = { .color = { 1, 1, 1, 1 } };
		struct vr_path *path = vr_path_create();
		switch (i) {
		case 0:
			vr_canvas_draw_ellipse(c,
					(struct vr_rectf){ 20.3f, 20.7f, 40.6f, 40.6f }, &p);
			break;
		case 1:
			p.stroke_width = 3;
			vr_canvas_draw_rrect(c, (struct vr_rectf){ 10, 10, 60, 40 },
					(struct vr_radii){ 8, 8, 8, 8 }, &p);
			/* the path of the stroke's centre line times its width */
			expect[i].area = 3 * (2 * (60 - 16) + 2 * (40 - 16) + 2 * M_PI * 8);
			break;
		case 2:
		case 3:
		case 4:
			p.stroke_width = 4;
			p.cap = i == 2 ? VR_CAP_BUTT :
					i == 3 ? VR_CAP_SQUARE :
							 VR_CAP_ROUND;
			vr_canvas_draw_line(c, 20.25f, 50.5f, 70.25f, 50.5f, &p);
			break;
		case 5:
			vr_path_move_to(path, 10, 10);
			vr_path_line_to(path, 50, 10);
			vr_path_line_to(path, 10, 40);
			vr_canvas_draw_path(c, path, &p);
			break;
		case 6:
		case 7:
			p.fill_rule = i == 6 ? VR_FILL_EVEN_ODD : VR_FILL_NONZERO;
			vr_path_move_to(path, 10, 10);
			vr_path_line_to(path, 50, 10);
			vr_path_line_to(path, 50, 50);
			vr_path_line_to(path, 10, 50);
			vr_path_close(path);
			vr_path_move_to(path, 20, 20);
			vr_path_line_to(path, 40, 20);
			vr_path_line_to(path, 40, 40);
			vr_path_line_to(path, 20, 40);
			vr_path_close(path);
			vr_canvas_draw_path(c, path, &p);
			break;
		case 8:
			vr_canvas_translate(c, 50, 50);
			vr_canvas_rotate(c, 0.5f);
			vr_canvas_draw_rect(c, (struct vr_rectf){ -15, -5, 30, 10 }, &p);
			break;
		}
		vr_path_destroy(path);
		uint32_t *pixels = reference(vr_canvas_finish(c), w, h);
		double area = alpha_sum(pixels, w * h);
		ck_assert_msg(fabs(area - expect[i].area) <= expect[i].tolerance,
				"%s: area %.2f, expected %.2f", expect[i].what, area,
				expect[i].area);
		free(pixels);
	}
}
END_TEST

START_TEST(test_canvas_stroke_joins) {
	/* A translucent polyline with sharp joins: the inside of each join
	 * is drawn once (no pixel darker than the colour), and miter, round
	 * and bevel cover decreasing areas at the corner. */
	const float pts[] = { 20, 80, 50, 20, 80, 80 };
	double areas[3];
	for (int j = 0; j < 3; j++) {
		struct vr_canvas *c = vr_canvas_begin();
		struct vr_paint p = { .color = { 1, 1, 1, 0.5f },
			.stroke_width = 8,
			.join = j == 0 ? VR_JOIN_MITER :
					j == 1 ? VR_JOIN_ROUND :
							 VR_JOIN_BEVEL };
		vr_canvas_draw_polyline(c, pts, 3, false, &p);
		uint32_t *pixels = reference(vr_canvas_finish(c), 100, 100);
		for (int32_t i = 0; i < 100 * 100; i++) {
			ck_assert_msg(pixels[i] >> 24 <= 128,
					"join %d: alpha %u at "
					"(%d, %d)",
					j, pixels[i] >> 24, i % 100, i / 100);
		}
		areas[j] = alpha_sum(pixels, 100 * 100) * 2;
		free(pixels);
	}
	ck_assert_msg(areas[0] > areas[1] && areas[1] > areas[2],
			"miter %.1f, round %.1f, bevel %.1f", areas[0], areas[1], areas[2]);
	/* two segments of length ~67 and width 8, plus the corner */
	double body = 2 * hypot(30, 60) * 8;
	ck_assert_double_gt(areas[2], body - 40);
	ck_assert_double_lt(areas[0], body + 80);
}
END_TEST

START_TEST(test_canvas_reference_region) {
	/* The pixman path of last resort redraws only the damage: the result
	 * must equal a full redraw. A translucent rect wider than the damage
	 * would blend twice outside it if drawing leaked out of the region. */
	const int32_t w = 160, h = 120;
	struct vr_tree *tree = vr_tree_create();
	struct vr_node *bg = vr_node_create(tree);
	vr_node_set_parent(bg, vr_tree_root(tree));
	vr_node_set_rect(bg, (float)w, (float)h,
			(struct vr_color){ 0.1f, 0.2f, 0.3f, 1 });
	struct vr_node *veil = vr_node_create(tree);
	vr_node_set_parent(veil, vr_tree_root(tree));
	vr_node_set_rect(veil, 140, 30, (struct vr_color){ 1, 1, 1, 0.5f });
	vr_node_set_position(veil, 10.5f, 40.25f);
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_draw_shadow(c, (struct vr_rectf){ 10, 10, 40, 30 },
			(struct vr_radii){ 6, 6, 6, 6 }, 8,
			(struct vr_color){ 0, 0, 0, 0.6f });
	vr_canvas_draw_rrect(c, (struct vr_rectf){ 10, 10, 40, 30 },
			(struct vr_radii){ 6, 6, 6, 6 }, &red);
	vr_canvas_draw_ellipse(c, (struct vr_rectf){ 30.5f, 20.25f, 35, 25 },
			&(struct vr_paint){ .color = { 0, 1, 0, 0.7f } });
	struct vr_node *shapes = list_node(tree, vr_canvas_finish(c));
	vr_tree_update(tree, NULL);

	pixman_image_t *a =
			pixman_image_create_bits(PIXMAN_a8r8g8b8, w, h, NULL, w * 4);
	pixman_image_t *b =
			pixman_image_create_bits(PIXMAN_a8r8g8b8, w, h, NULL, w * 4);
	struct vr_mat view = { .a = 1, .d = 1 };
	struct vr_color clear = { 0, 0, 0, 1 };
	vr_reference_render_region(tree, a, &view, clear, NULL);
	for (int step = 1; step <= 3; step++) {
		vr_node_set_position(shapes, 17.0f * (float)step, 9.0f * (float)step);
		pixman_region32_t damage;
		pixman_region32_init(&damage);
		vr_tree_update(tree, &damage);
		ck_assert(pixman_region32_not_empty(&damage));
		vr_reference_render_region(tree, a, &view, clear, &damage);
		pixman_region32_fini(&damage);
		vr_reference_render(tree, b, &view, clear);
		int max_diff = 0;
		size_t bad = vr_pixels_compare(pixman_image_get_data(a), w * 4,
				pixman_image_get_data(b), w * 4, w, h, 0, &max_diff);
		ck_assert_msg(bad == 0,
				"step %d: %zu pixels differ (by up to %d) "
				"between the damage redraw and a full one",
				step, bad, max_diff);
	}
	pixman_image_unref(a);
	pixman_image_unref(b);
	vr_tree_destroy(tree);
}
END_TEST

/* ---- glyphs from several threads ----------------------------------------- */

#define GLYPH_THREADS 4

/* Every printable ASCII and Latin-1 character: about 190 glyphs. */
static struct vr_text *many_glyphs(void) {
	char utf8[512];
	size_t n = 0;
	for (unsigned c = 0x21; c < 0x7f; c++) {
		utf8[n++] = (char)c;
	}
	for (unsigned c = 0xa1; c <= 0xff; c++) {
		utf8[n++] = (char)(0xc0 | (c >> 6));
		utf8[n++] = (char)(0x80 | (c & 0x3f));
	}
	utf8[n] = '\0';
	struct vr_font font = { "DejaVu Sans", 16, 400 };
	struct vr_text *text = vr_text_shape(utf8, &font, 0, 0);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_gt(text->count, 150);
	return text;
}

static size_t distinct_glyphs(const struct vr_text *text) {
	size_t n = 0;
	for (uint32_t i = 0; i < text->count; i++) {
		uint32_t k = 0;
		while (k < i && text->glyphs[k] != text->glyphs[i]) {
			k++;
		}
		n += k == i;
	}
	return n;
}

static double now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

struct raster_job {
	const struct vr_text *text;
	pthread_barrier_t *start;
	/* sizes size0 + i px (i < nsizes), glyphs from `first` on */
	float size0;
	int nsizes;
	uint32_t first;
	struct vr_glyph_bitmap *out; /* nsizes x count, or NULL: freed */
	bool warm; /* through the atlas (vr_glyph_atlas_warm) instead */
	size_t warmed;
	double t0, t1; /* ms */
	bool ok;
};

static void *raster_thread(void *data) {
	struct raster_job *job = data;
	const struct vr_text *text = job->text;
	if (job->start != NULL) {
		pthread_barrier_wait(job->start);
	}
	job->t0 = now_ms();
	job->ok = true;
	for (int s = 0; s < job->nsizes; s++) {
		float size = job->size0 + (float)s;
		if (job->warm) {
			job->warmed += vr_glyph_atlas_warm(text, size);
			continue;
		}
		for (uint32_t k = 0; k < text->count; k++) {
			uint32_t i = (job->first + k) % text->count;
			struct vr_glyph_bitmap b;
			job->ok = vr_font_face_rasterize(text->face, text->glyphs[i], size,
							  &b) &&
					job->ok;
			if (job->out != NULL) {
				job->out[(size_t)s * text->count + i] = b;
			} else {
				free(b.coverage);
			}
		}
	}
	job->t1 = now_ms();
	return NULL;
}

/* Run jobs on threads at once; the wall time in ms (the threads' own
 * clocks: the caller may not run again before they are done). */
static double run_jobs(struct raster_job *jobs, int n) {
	pthread_barrier_t start;
	pthread_barrier_init(&start, NULL, (unsigned)n + 1);
	pthread_t threads[GLYPH_THREADS];
	for (int i = 0; i < n; i++) {
		jobs[i].start = &start;
		ck_assert_int_eq(
				pthread_create(&threads[i], NULL, raster_thread, &jobs[i]), 0);
	}
	pthread_barrier_wait(&start);
	double t0 = INFINITY, t1 = -INFINITY;
	for (int i = 0; i < n; i++) {
		pthread_join(threads[i], NULL);
		ck_assert(jobs[i].ok);
		t0 = fmin(t0, jobs[i].t0);
		t1 = fmax(t1, jobs[i].t1);
	}
	double t = t1 - t0;
	pthread_barrier_destroy(&start);
	return t;
}

static void assert_bitmap_eq(const struct vr_glyph_bitmap *a,
		const struct vr_glyph_bitmap *b) {
	ck_assert_int_eq(a->width, b->width);
	ck_assert_int_eq(a->height, b->height);
	if (a->width > 0) {
		/* the atlas keeps no place of an empty glyph */
		ck_assert_int_eq(a->left, b->left);
		ck_assert_int_eq(a->top, b->top);
		ck_assert_mem_eq(a->coverage, b->coverage,
				(size_t)a->width * (size_t)a->height);
	}
}

static void free_bitmaps(struct vr_glyph_bitmap *bitmaps, size_t n) {
	for (size_t i = 0; i < n; i++) {
		free(bitmaps[i].coverage);
	}
	free(bitmaps);
}

/*
 * The same cold text rasterised by GLYPH_THREADS threads at once, each
 * starting at another glyph: bitmaps bit-identical to one thread's; then
 * warmed into the atlas by GLYPH_THREADS threads at once: each glyph
 * rasterised once, the atlas's pixels those of one thread, in its deltas
 * and once moved to its pages.
 */
START_TEST(test_canvas_glyphs_threads) {
	struct vr_text *text = many_glyphs();
	enum { NSIZES = 3 };
	const float size0 = 11.5f;
	size_t n = (size_t)NSIZES * text->count;
	struct vr_glyph_bitmap *ref = calloc(n, sizeof(*ref));
	ck_assert_ptr_nonnull(ref);
	struct raster_job single = { .text = text,
		.size0 = size0,
		.nsizes = NSIZES,
		.out = ref };
	raster_thread(&single);
	ck_assert(single.ok);

	struct raster_job jobs[GLYPH_THREADS];
	for (int t = 0; t < GLYPH_THREADS; t++) {
		jobs[t] = (struct raster_job){ .text = text,
			.size0 = size0,
			.nsizes = NSIZES,
			.first = (uint32_t)t * text->count / GLYPH_THREADS,
			.out = calloc(n, sizeof(struct vr_glyph_bitmap)) };
		ck_assert_ptr_nonnull(jobs[t].out);
	}
	run_jobs(jobs, GLYPH_THREADS);
	for (int t = 0; t < GLYPH_THREADS; t++) {
		for (size_t i = 0; i < n; i++) {
			assert_bitmap_eq(&jobs[t].out[i], &ref[i]);
		}
		free_bitmaps(jobs[t].out, n);
	}

	for (int t = 0; t < GLYPH_THREADS; t++) {
		jobs[t] = (struct raster_job){ .text = text,
			.size0 = size0,
			.nsizes = NSIZES,
			.warm = true };
	}
	run_jobs(jobs, GLYPH_THREADS);
	size_t warmed = 0;
	for (int t = 0; t < GLYPH_THREADS; t++) {
		warmed += jobs[t].warmed;
	}
	ck_assert_uint_eq(warmed, NSIZES * distinct_glyphs(text));
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			struct vr_glyph_bitmap b;
			ck_assert(vr_glyph_atlas_lookup(text->face,
					size0 + (float)(i / text->count),
					text->glyphs[i % text->count], &b));
			assert_bitmap_eq(&b, &ref[i]);
			free(b.coverage);
		}
		/* into the pages */
		vr_glyph_atlas_begin_frame();
	}
	free_bitmaps(ref, n);
	vr_text_destroy(text);
}
END_TEST

/* The fastest of ROUNDS runs, ms: 1 thread rasterising SIZES sizes of
 * text, or 2 threads half of them each; through the atlas or not. Round r
 * offsets the sizes by r/64 px: distinct glyphs for the atlas (cold), as
 * costly as the others. */
#define ROUNDS 5
#define SIZES 8

static double best_time(const struct vr_text *text, int threads, bool warm,
		float offset, size_t *warmed) {
	double best = INFINITY;
	for (int r = 0; r < ROUNDS; r++) {
		float size0 = 12.0f + offset + (float)r / 64.0f;
		struct raster_job jobs[2];
		for (int i = 0; i < threads; i++) {
			jobs[i] = (struct raster_job){ .text = text,
				.size0 = size0 + (float)(i * SIZES / threads),
				.nsizes = SIZES / threads,
				.warm = warm };
		}
		best = fmin(best, run_jobs(jobs, threads));
		for (int i = 0; i < threads; i++) {
			*warmed += jobs[i].warmed;
		}
	}
	return best;
}

/*
 * Cold text rasterised by 1 and 2 threads: the times are printed (meson
 * test -v), not asserted; with 2 cores free, 2 threads should take about
 * half the time of 1.
 */
START_TEST(test_canvas_glyphs_timing) {
	struct vr_text *text = many_glyphs();
	/* warm-up: FreeType's first use of the face */
	struct raster_job warmup = { .text = text, .size0 = 10, .nsizes = 1 };
	raster_thread(&warmup);

	size_t warmed = 0;
	double t1 = best_time(text, 1, false, 0, &warmed);
	double t2 = best_time(text, 2, false, 0, &warmed);
	double a1 = best_time(text, 1, true, 0, &warmed);
	double a2 = best_time(text, 2, true, (float)ROUNDS / 64.0f, &warmed);
	/* every glyph of every size rasterised once */
	ck_assert_uint_eq(warmed, 2 * ROUNDS * SIZES * distinct_glyphs(text));
	printf("cold text, %u glyphs x %d sizes (best of %d): "
		   "vr_font_face_rasterize 1 thread %.1f ms, 2 threads %.1f ms "
		   "(x%.2f); vr_glyph_atlas_warm 1 thread %.1f ms, 2 threads %.1f ms "
		   "(x%.2f)\n",
			text->count, SIZES, ROUNDS, t1, t2, t1 / t2, a1, a2, a1 / a2);
	fflush(stdout);
	vr_text_destroy(text);
}
END_TEST

static Suite *canvas_suite(void) {
	Suite *s = suite_create("canvas");
	struct {
		const char *name;
		const TTest *tests[8];
	} cases[] = {
		{ "state",
				{ test_canvas_save_restore, test_canvas_clip_intersection,
						test_canvas_clip_rrect, test_canvas_bounds,
						test_canvas_refcounts, test_canvas_node_content } },
		{ "batching",
				{ test_canvas_batch_coalesce, test_canvas_batch_overlap,
						test_canvas_batch_lookback, test_canvas_batch_quads,
						test_canvas_absolute_state,
						test_canvas_rclip_reduction } },
		{ "geometry",
				{ test_canvas_text_shaping, test_canvas_flatten,
						test_canvas_coverage_area, test_canvas_stroke_joins,
						test_canvas_reference_region } },
		{ "glyphs", { test_canvas_glyphs_threads, test_canvas_glyphs_timing } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TCase *tc = tcase_create(cases[i].name);
		tcase_add_checked_fixture(tc, setup, teardown);
		for (int j = 0; j < 8 && cases[i].tests[j] != NULL; j++) {
			tcase_add_test(tc, cases[i].tests[j]);
		}
		suite_add_tcase(s, tc);
	}
	return s;
}

int main(void) {
	SRunner *sr = srunner_create(canvas_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
