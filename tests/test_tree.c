/*
 * Unit tests of the render tree: relative -> absolute state, clips, z-order,
 * enable/disable, detach/destroy, damage, the absolute-state cache and the
 * generation counter.
 */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <vitrail/renderer.h>

static const struct vr_color red = { 1, 0, 0, 1 };

static struct vr_tree *tree;
static struct vr_node *root;
static int log_errors;

static void count_errors(enum vr_log_level level, const char *fmt,
		va_list args) {
	if (level == VR_LOG_ERROR) {
		log_errors++;
	}
}

static void setup(void) {
	tree = vr_tree_create();
	ck_assert_ptr_nonnull(tree);
	root = vr_tree_root(tree);
}

static void teardown(void) {
	vr_tree_destroy(tree);
	tree = NULL;
}

static struct vr_node *rect_node(struct vr_node *parent, float x, float y,
		float w, float h) {
	struct vr_node *node = vr_node_create(tree);
	ck_assert_ptr_nonnull(node);
	vr_node_set_position(node, x, y);
	if (w > 0 && h > 0) {
		vr_node_set_rect(node, w, h, red);
	}
	if (parent != NULL) {
		vr_node_set_parent(node, parent);
	}
	return node;
}

#define ck_assert_box(box, bx, by, bw, bh) \
	do { \
		ck_assert_int_eq((box).x, (bx)); \
		ck_assert_int_eq((box).y, (by)); \
		ck_assert_int_eq((box).width, (bw)); \
		ck_assert_int_eq((box).height, (bh)); \
	} while (0)

static struct vr_box bounds_of(struct vr_node *node) {
	struct vr_box box;
	ck_assert_msg(vr_node_get_bounds(node, &box), "node not drawn");
	return box;
}

/* Update and return the damage as one region (caller finishes it). */
static void update_damage(pixman_region32_t *damage) {
	pixman_region32_init(damage);
	vr_tree_update(tree, damage);
}

static bool region_equals_boxes(pixman_region32_t *region,
		const struct vr_box *boxes, int n) {
	pixman_region32_t expected;
	pixman_region32_init(&expected);
	for (int i = 0; i < n; i++) {
		pixman_region32_union_rect(&expected, &expected, boxes[i].x, boxes[i].y,
				(unsigned)boxes[i].width, (unsigned)boxes[i].height);
	}
	bool equal = pixman_region32_equal(region, &expected);
	pixman_region32_fini(&expected);
	return equal;
}

/* ---- transforms --------------------------------------------------------- */

START_TEST(test_tree_nested_translation) {
	struct vr_node *a = rect_node(root, 10, 20, 0, 0);
	struct vr_node *b = rect_node(a, 5, 7, 0, 0);
	struct vr_node *c = rect_node(b, 1, 1, 30, 40);
	vr_tree_update(tree, NULL);
	ck_assert_box(bounds_of(c), 16, 28, 30, 40);
	ck_assert(!vr_node_get_bounds(a, NULL)); /* no content */

	vr_node_set_position(a, -10, 0);
	vr_tree_update(tree, NULL);
	ck_assert_box(bounds_of(c), -4, 8, 30, 40);
}
END_TEST

START_TEST(test_tree_scale) {
	struct vr_node *a = rect_node(root, 0, 0, 0, 0);
	struct vr_mat m = { .a = 2, .d = 3, .tx = 10, .ty = 5 };
	vr_node_set_transform(a, &m);
	struct vr_node *c = rect_node(a, 1, 2, 10, 10);
	vr_tree_update(tree, NULL);
	/* x: 10 + 2 * 1 = 12, width 20; y: 5 + 3 * 2 = 11, height 30 */
	ck_assert_box(bounds_of(c), 12, 11, 20, 30);
}
END_TEST

START_TEST(test_tree_rotation_bounds) {
	struct vr_node *a = rect_node(root, 100, 100, 0, 0);
	struct vr_mat rot90 = { .a = 0,
		.b = 1,
		.c = -1,
		.d = 0,
		.tx = 100,
		.ty = 100 };
	vr_node_set_transform(a, &rot90);
	struct vr_node *c = rect_node(a, 0, 0, 10, 20);
	vr_tree_update(tree, NULL);
	/* (x, y) -> (100 - y, 100 + x): 10x20 becomes 20x10 left of x=100 */
	ck_assert_box(bounds_of(c), 80, 100, 20, 10);

	/* 45 degrees: corners (0,0) (10,0) (0,20) (10,20) spread over
	 * x in [50 - 20s, 50 + 10s], y in [50, 50 + 30s] */
	float s = sqrtf(0.5f);
	struct vr_mat rot45 = { .a = s,
		.b = s,
		.c = -s,
		.d = s,
		.tx = 50,
		.ty = 50 };
	vr_node_set_transform(a, &rot45);
	vr_tree_update(tree, NULL);
	struct vr_box box = bounds_of(c);
	ck_assert_int_eq(box.x, (int)floorf(50 - 20 * s));
	ck_assert_int_eq(box.y, 50);
	ck_assert_int_eq(box.x + box.width, (int)ceilf(50 + 10 * s));
	ck_assert_int_eq(box.y + box.height, (int)ceilf(50 + 30 * s));
}
END_TEST

START_TEST(test_tree_mat_helpers) {
	struct vr_mat t, s = { .a = 2, .d = 2 }, out;
	vr_mat_translate(&t, 3, 4);
	vr_mat_multiply(&out, &t, &s); /* scale first, then translate */
	float x, y;
	vr_mat_apply(&out, 1, 1, &x, &y);
	ck_assert_float_eq(x, 5);
	ck_assert_float_eq(y, 6);
	ck_assert(vr_mat_is_integer_translation(&t));
	ck_assert(!vr_mat_is_integer_translation(&out));
	vr_mat_translate(&t, 0.5f, 0);
	ck_assert(!vr_mat_is_integer_translation(&t));
	vr_mat_multiply(&s, &s, &s); /* aliasing */
	ck_assert_float_eq(s.a, 4);
	struct vr_rectf r = { 0.25f, 0.5f, 1, 1 };
	vr_mat_identity(&t);
	struct vr_box box = vr_mat_map_rect_bounds(&t, &r);
	ck_assert_box(box, 0, 0, 2, 2);
}
END_TEST

/* ---- clips -------------------------------------------------------------- */

START_TEST(test_tree_clip_nested) {
	struct vr_node *a = rect_node(root, 10, 10, 0, 0);
	vr_node_set_clip(a, &(struct vr_rectf){ 0, 0, 50, 50 }); /* 10..60 */
	struct vr_node *b = rect_node(a, 5, 5, 0, 0);
	vr_node_set_clip(b, &(struct vr_rectf){ 20, 20, 100, 100 }); /* 35.. */
	struct vr_node *c = rect_node(b, 0, 0, 200, 200);
	struct vr_node *d = rect_node(a, 0, 0, 200, 200);
	vr_tree_update(tree, NULL);
	ck_assert_box(bounds_of(c), 35, 35, 25, 25);
	ck_assert_box(bounds_of(d), 10, 10, 50, 50);

	/* a clip outside the parent's hides the subtree */
	vr_node_set_clip(b, &(struct vr_rectf){ 100, 100, 10, 10 });
	vr_tree_update(tree, NULL);
	ck_assert(!vr_node_get_bounds(c, NULL));

	/* removing clips restores the full bounds */
	vr_node_set_clip(b, NULL);
	vr_node_set_clip(a, NULL);
	vr_tree_update(tree, NULL);
	ck_assert_box(bounds_of(c), 15, 15, 200, 200);
}
END_TEST

START_TEST(test_tree_clip_rotated) {
	struct vr_node *a = rect_node(root, 0, 0, 0, 0);
	struct vr_mat rot90 = { .a = 0, .b = 1, .c = -1, .d = 0, .tx = 100 };
	vr_node_set_transform(a, &rot90);
	vr_node_set_clip(a, &(struct vr_rectf){ 0, 0, 10, 30 });
	struct vr_node *c = rect_node(a, 0, 0, 100, 100);
	vr_tree_update(tree, NULL);
	/* clip maps to x in [70, 100], y in [0, 10] */
	ck_assert_box(bounds_of(c), 70, 0, 30, 10);
}
END_TEST

/* ---- z-order ------------------------------------------------------------ */

static void collect(struct vr_node *node, void *data) {
	struct vr_node **out = data;
	while (*out != NULL) {
		out++;
	}
	*out = node;
}

static void check_order(struct vr_node *const *expected, int n,
		const struct vr_box *area) {
	struct vr_node *got[16] = { 0 };
	vr_tree_for_each_drawn(tree, area, collect, got);
	for (int i = 0; i < n; i++) {
		ck_assert_msg(got[i] == expected[i], "node %d out of order", i);
	}
	ck_assert_ptr_null(got[n]);
}

START_TEST(test_tree_zorder_restack) {
	struct vr_node *a = rect_node(root, 0, 0, 10, 10);
	struct vr_node *b = rect_node(root, 5, 5, 10, 10);
	struct vr_node *c = rect_node(root, 100, 100, 10, 10);
	struct vr_node *g = rect_node(b, 1, 1, 2, 2); /* child of b */
	vr_tree_update(tree, NULL);
	check_order((struct vr_node *[]){ a, b, g, c }, 4, NULL);

	vr_node_raise_to_top(a);
	pixman_region32_t damage;
	update_damage(&damage);
	check_order((struct vr_node *[]){ b, g, c, a }, 4, NULL);
	/* restacking damages the node's bounds */
	ck_assert(region_equals_boxes(&damage,
			(struct vr_box[]){ { 0, 0, 10, 10 } }, 1));
	pixman_region32_fini(&damage);

	vr_node_place_below(a, b);
	vr_tree_update(tree, NULL);
	check_order((struct vr_node *[]){ a, b, g, c }, 4, NULL);
	vr_node_place_above(a, c);
	vr_tree_update(tree, NULL);
	check_order((struct vr_node *[]){ b, g, c, a }, 4, NULL);
	vr_node_place_above(b, a);
	vr_tree_update(tree, NULL);
	check_order((struct vr_node *[]){ c, a, b, g }, 4, NULL);

	/* the area culls: only what intersects (0,0)-(8,8) */
	check_order((struct vr_node *[]){ a, b, g }, 3,
			&(struct vr_box){ 0, 0, 8, 8 });
	check_order((struct vr_node *[]){ c }, 1,
			&(struct vr_box){ 105, 105, 1, 1 });
}
END_TEST

/* ---- enable/disable ----------------------------------------------------- */

START_TEST(test_tree_enable_disable) {
	struct vr_node *a = rect_node(root, 10, 10, 20, 20);
	struct vr_node *c = rect_node(a, 5, 5, 5, 5);
	vr_tree_update(tree, NULL);
	ck_assert(vr_node_get_bounds(c, NULL));

	vr_node_set_enabled(a, false);
	ck_assert(!vr_node_enabled(a));
	pixman_region32_t damage;
	update_damage(&damage);
	ck_assert(!vr_node_get_bounds(a, NULL));
	ck_assert(!vr_node_get_bounds(c, NULL));
	ck_assert(region_equals_boxes(&damage,
			(struct vr_box[]){ { 10, 10, 20, 20 } }, 1));
	pixman_region32_fini(&damage);
	check_order(NULL, 0, NULL);

	vr_node_set_enabled(a, true);
	update_damage(&damage);
	ck_assert_box(bounds_of(c), 15, 15, 5, 5);
	ck_assert(region_equals_boxes(&damage,
			(struct vr_box[]){ { 10, 10, 20, 20 } }, 1));
	pixman_region32_fini(&damage);

	/* opacity 0 draws nothing */
	vr_node_set_opacity(a, 0.0f);
	vr_tree_update(tree, NULL);
	ck_assert(!vr_node_get_bounds(c, NULL));
}
END_TEST

/* ---- detach/destroy ----------------------------------------------------- */

START_TEST(test_tree_destroy_with_live_children) {
	struct vr_node *a = rect_node(root, 10, 10, 20, 20);
	struct vr_node *c = rect_node(a, 100, 0, 5, 5);
	struct vr_node *gc = rect_node(c, 0, 100, 5, 5);
	int data;
	vr_node_set_user_data(c, &data);
	vr_tree_update(tree, NULL);

	vr_node_destroy(a);
	pixman_region32_t damage;
	update_damage(&damage);
	ck_assert_ptr_null(vr_node_parent(c));
	ck_assert_ptr_eq(vr_node_parent(gc), c);
	ck_assert_ptr_eq(vr_node_user_data(c), &data);
	ck_assert(!vr_node_get_bounds(c, NULL));
	ck_assert(!vr_node_get_bounds(gc, NULL));
	ck_assert(region_equals_boxes(&damage,
			(struct vr_box[]){ { 10, 10, 20, 20 }, { 110, 10, 5, 5 },
					{ 110, 110, 5, 5 } },
			3));
	pixman_region32_fini(&damage);
	check_order(NULL, 0, NULL);

	/* the detached subtree can live on and be attached again */
	vr_node_set_parent(c, root);
	update_damage(&damage);
	ck_assert_box(bounds_of(gc), 100, 100, 5, 5);
	ck_assert(region_equals_boxes(&damage,
			(struct vr_box[]){ { 100, 0, 5, 5 }, { 100, 100, 5, 5 } }, 2));
	pixman_region32_fini(&damage);

	/* detached nodes are freed by vr_tree_destroy (ASan checks) */
	struct vr_node *orphan = rect_node(NULL, 0, 0, 5, 5);
	rect_node(orphan, 0, 0, 5, 5);
	vr_node_destroy(NULL);
}
END_TEST

START_TEST(test_tree_detach_reparent) {
	struct vr_node *p1 = rect_node(root, 0, 0, 0, 0);
	struct vr_node *p2 = rect_node(root, 50, 0, 0, 0);
	struct vr_node *c = rect_node(p1, 0, 0, 10, 10);
	vr_tree_update(tree, NULL);

	vr_node_set_parent(c, NULL);
	pixman_region32_t damage;
	update_damage(&damage);
	ck_assert(!vr_node_get_bounds(c, NULL));
	ck_assert(region_equals_boxes(&damage,
			(struct vr_box[]){ { 0, 0, 10, 10 } }, 1));
	pixman_region32_fini(&damage);

	/* changes while detached are drawn once attached */
	vr_node_set_position(c, 5, 5);
	vr_tree_update(tree, NULL);
	ck_assert(!vr_node_get_bounds(c, NULL));
	vr_node_set_parent(c, p2);
	vr_tree_update(tree, NULL);
	ck_assert_box(bounds_of(c), 55, 5, 10, 10);

	/* cycles are refused, with a logged error */
	log_errors = 0;
	vr_set_log_func(count_errors);
	vr_node_set_parent(p2, c);
	vr_set_log_func(NULL);
	ck_assert_int_eq(log_errors, 1);
	ck_assert_ptr_eq(vr_node_parent(p2), root);
}
END_TEST

/* ---- damage ------------------------------------------------------------- */

START_TEST(test_tree_damage_move) {
	struct vr_node *a = rect_node(root, 0, 0, 10, 10);
	pixman_region32_t damage;
	update_damage(&damage);
	ck_assert(region_equals_boxes(&damage,
			(struct vr_box[]){ { 0, 0, 10, 10 } }, 1));
	pixman_region32_fini(&damage);

	vr_node_set_position(a, 100, 50);
	update_damage(&damage);
	ck_assert(region_equals_boxes(&damage,
			(struct vr_box[]){ { 0, 0, 10, 10 }, { 100, 50, 10, 10 } }, 2));
	pixman_region32_fini(&damage);

	/* resize damages old and new */
	vr_node_set_rect(a, 20, 5, red);
	update_damage(&damage);
	ck_assert(region_equals_boxes(&damage,
			(struct vr_box[]){ { 100, 50, 10, 10 }, { 100, 50, 20, 5 } }, 2));
	pixman_region32_fini(&damage);

	/* a parent's move damages the children */
	struct vr_node *p = rect_node(root, 0, 0, 0, 0);
	vr_node_set_parent(a, p);
	vr_tree_update(tree, NULL);
	vr_node_set_position(p, 0, 10);
	update_damage(&damage);
	ck_assert(region_equals_boxes(&damage,
			(struct vr_box[]){ { 100, 50, 20, 5 }, { 100, 60, 20, 5 } }, 2));
	pixman_region32_fini(&damage);
}
END_TEST

START_TEST(test_tree_damage_content) {
	struct vr_node *p = rect_node(root, 10, 10, 0, 0);
	struct vr_mat m = { .a = 2, .d = 2, .tx = 10, .ty = 10 };
	vr_node_set_transform(p, &m);
	vr_node_set_clip(p, &(struct vr_rectf){ 0, 0, 20, 3 }); /* y < 16 */
	struct vr_image *image = vr_image_create(30, 30, VR_FORMAT_ARGB8888);
	struct vr_node *n = vr_node_create(tree);
	vr_node_set_image(n, image, NULL, 30, 30, VR_TRANSFORM_NORMAL);
	vr_image_unref(image); /* the node keeps it */
	vr_node_set_parent(n, p);
	vr_tree_update(tree, NULL);
	ck_assert_box(bounds_of(n), 10, 10, 40, 6);

	pixman_region32_t local, damage;
	pixman_region32_init_rect(&local, 1, 1, 2, 2);
	uint64_t gen = vr_tree_generation(tree);
	vr_node_damage_content(n, &local);
	ck_assert_uint_gt(vr_tree_generation(tree), gen);
	update_damage(&damage);
	ck_assert(region_equals_boxes(&damage,
			(struct vr_box[]){ { 12, 12, 4, 4 } }, 1));
	pixman_region32_fini(&damage);

	/* clipped by the ancestors' clip */
	pixman_region32_init_rect(&local, 0, 2, 1, 10);
	vr_node_damage_content(n, &local);
	update_damage(&damage);
	ck_assert(region_equals_boxes(&damage,
			(struct vr_box[]){ { 10, 14, 2, 2 } }, 1));
	pixman_region32_fini(&damage);
	pixman_region32_fini(&local);

	/* NULL: the whole node */
	vr_node_damage_content(n, NULL);
	update_damage(&damage);
	ck_assert(region_equals_boxes(&damage,
			(struct vr_box[]){ { 10, 10, 40, 6 } }, 1));
	pixman_region32_fini(&damage);
}
END_TEST

static void count_release(void *data) {
	(*(int *)data)++;
}

/* An external image of w x h over pixels, counting its release. */
static struct vr_image *counted_image(int32_t w, int32_t h, uint32_t *pixels,
		int *released) {
	struct vr_image *image = vr_image_create_external(w, h, VR_FORMAT_XRGB8888,
			&(struct vr_image_source){ .pixels = pixels,
					.stride = w * 4,
					.fd = -1,
					.release = count_release,
					.data = released });
	ck_assert_ptr_nonnull(image);
	return image;
}

/* A client's next buffer (vr_node_replace_image): only its damage is
 * redrawn, the image it replaced is let go; a replacement the node cannot
 * take as one (another size, another mapping) damages the bounds. */
START_TEST(test_tree_damage_replace_image) {
	static uint32_t pixels[30 * 30];
	int released[4] = { 0 };
	struct vr_image *a = counted_image(30, 30, pixels, &released[0]);
	struct vr_node *n = vr_node_create(tree);
	vr_node_set_image(n, a, NULL, 30, 30, VR_TRANSFORM_NORMAL);
	vr_image_unref(a);
	vr_node_set_position(n, 5, 5);
	vr_node_set_parent(n, root);
	vr_tree_update(tree, NULL);

	pixman_region32_t local, damage;
	pixman_region32_init_rect(&local, 1, 1, 2, 2);
	struct vr_image *b = counted_image(30, 30, pixels, &released[1]);
	uint64_t gen = vr_tree_generation(tree);
	vr_node_replace_image(n, b, NULL, 30, 30, VR_TRANSFORM_NORMAL, &local);
	vr_image_unref(b);
	ck_assert_int_eq(released[0], 1); /* the node let a go */
	ck_assert_int_eq(released[1], 0);
	ck_assert_uint_gt(vr_tree_generation(tree), gen);
	update_damage(&damage);
	ck_assert(region_equals_boxes(&damage, (struct vr_box[]){ { 6, 6, 2, 2 } },
			1));
	pixman_region32_fini(&damage);

	/* no damage: nothing redrawn, the image is still replaced */
	pixman_region32_clear(&local);
	struct vr_image *c = counted_image(30, 30, pixels, &released[2]);
	vr_node_replace_image(n, c, NULL, 30, 30, VR_TRANSFORM_NORMAL, &local);
	vr_image_unref(c);
	ck_assert_int_eq(released[1], 1);
	update_damage(&damage);
	ck_assert(!pixman_region32_not_empty(&damage));
	pixman_region32_fini(&damage);

	/* another size: its bounds, old and new */
	pixman_region32_init_rect(&local, 1, 1, 2, 2);
	struct vr_image *d = counted_image(20, 40, pixels, &released[3]);
	vr_node_replace_image(n, d, NULL, 20, 40, VR_TRANSFORM_NORMAL, &local);
	vr_image_unref(d);
	ck_assert_int_eq(released[2], 1);
	update_damage(&damage);
	ck_assert(region_equals_boxes(&damage,
			(struct vr_box[]){ { 5, 5, 30, 30 }, { 5, 5, 20, 40 } }, 2));
	pixman_region32_fini(&damage);

	/* the same size shown another way (a viewport's source): the bounds */
	struct vr_image *e = counted_image(20, 40, pixels, &released[0]);
	vr_node_replace_image(n, e, &(struct vr_rectf){ 0, 0, 10, 20 }, 20, 40,
			VR_TRANSFORM_NORMAL, &local);
	vr_image_unref(e);
	ck_assert_int_eq(released[3], 1);
	update_damage(&damage);
	ck_assert(region_equals_boxes(&damage,
			(struct vr_box[]){ { 5, 5, 20, 40 } }, 1));
	pixman_region32_fini(&damage);
	pixman_region32_fini(&local);
	vr_node_destroy(n);
	ck_assert_int_eq(released[0], 2);
}
END_TEST

/* Direct scan-out's question, against boxes worked out by hand: a node
 * that draws its whole image at its size by whole pixels, opaque and
 * unclipped, and each way of drawing it otherwise. */
START_TEST(test_tree_draws_image_exactly) {
	static uint32_t pixels[40 * 30];
	int released = 0;
	struct vr_image *image = counted_image(40, 30, pixels, &released);
	struct vr_node *parent = vr_node_create(tree);
	struct vr_node *n = vr_node_create(tree);
	vr_node_set_parent(parent, root);
	vr_node_set_parent(n, parent);
	vr_node_set_position(parent, 100, 50);
	vr_node_set_position(n, 7, 3);
	vr_node_set_image(n, image, NULL, 40, 30, VR_TRANSFORM_NORMAL);
	vr_tree_update(tree, NULL);
	struct vr_box box = { 0 };
	ck_assert(vr_node_draws_image_exactly(n, &box));
	ck_assert_int_eq(box.x, 107);
	ck_assert_int_eq(box.y, 53);
	ck_assert_int_eq(box.width, 40);
	ck_assert_int_eq(box.height, 30);

	/* half a pixel off */
	vr_node_set_position(parent, 100.5f, 50);
	vr_tree_update(tree, NULL);
	ck_assert(!vr_node_draws_image_exactly(n, &box));
	vr_node_set_position(parent, 100, 50);
	/* an ancestor's opacity */
	vr_node_set_opacity(parent, 0.5f);
	vr_tree_update(tree, NULL);
	ck_assert(!vr_node_draws_image_exactly(n, &box));
	vr_node_set_opacity(parent, 1.0f);
	/* clipped by an ancestor, square or rounded */
	vr_node_set_clip(parent, &(struct vr_rectf){ 0, 0, 20, 20 });
	vr_tree_update(tree, NULL);
	ck_assert(!vr_node_draws_image_exactly(n, &box));
	vr_node_set_clip_rounded(parent, &(struct vr_rectf){ 0, 0, 200, 200 },
			8.0f);
	vr_tree_update(tree, NULL);
	ck_assert(!vr_node_draws_image_exactly(n, &box));
	vr_node_set_clip(parent, NULL);
	/* scaled, a part of the image, turned */
	vr_node_set_image(n, image, NULL, 80, 60, VR_TRANSFORM_NORMAL);
	vr_tree_update(tree, NULL);
	ck_assert(!vr_node_draws_image_exactly(n, &box));
	vr_node_set_image(n, image, &(struct vr_rectf){ 0, 0, 20, 30 }, 20, 30,
			VR_TRANSFORM_NORMAL);
	vr_tree_update(tree, NULL);
	ck_assert(!vr_node_draws_image_exactly(n, &box));
	vr_node_set_image(n, image, NULL, 40, 30, VR_TRANSFORM_180);
	vr_tree_update(tree, NULL);
	ck_assert(!vr_node_draws_image_exactly(n, &box));
	/* as it was: exact again; hidden: not drawn at all */
	vr_node_set_image(n, image, NULL, 40, 30, VR_TRANSFORM_NORMAL);
	vr_tree_update(tree, NULL);
	ck_assert(vr_node_draws_image_exactly(n, &box));
	vr_node_set_enabled(parent, false);
	vr_tree_update(tree, NULL);
	ck_assert(!vr_node_draws_image_exactly(n, &box));
	vr_image_unref(image);
	vr_node_destroy(n);
	vr_node_destroy(parent);
	ck_assert_int_eq(released, 1);
}
END_TEST

/* The topmost drawn node over an area, against the stacking worked out
 * by hand: a child above its parent's content, a later sibling above an
 * earlier one, hidden nodes skipped. */
START_TEST(test_tree_top_drawn) {
	struct vr_color grey = { 0.5f, 0.5f, 0.5f, 1.0f };
	struct vr_node *a = vr_node_create(tree);
	struct vr_node *b = vr_node_create(tree);
	struct vr_node *c = vr_node_create(tree);
	vr_node_set_parent(a, root);
	vr_node_set_parent(b, a);
	vr_node_set_parent(c, root);
	vr_node_set_rect(a, 100, 100, grey);
	vr_node_set_rect(b, 10, 10, grey);
	vr_node_set_position(b, 50, 50);
	vr_node_set_rect(c, 10, 10, grey);
	vr_node_set_position(c, 200, 200);
	vr_tree_update(tree, NULL);
	ck_assert_ptr_eq(
			vr_tree_top_drawn(tree, &(struct vr_box){ 0, 0, 300, 300 }), c);
	ck_assert_ptr_eq(
			vr_tree_top_drawn(tree, &(struct vr_box){ 0, 0, 100, 100 }), b);
	ck_assert_ptr_eq(vr_tree_top_drawn(tree, &(struct vr_box){ 0, 0, 40, 40 }),
			a);
	ck_assert_ptr_null(
			vr_tree_top_drawn(tree, &(struct vr_box){ 120, 120, 50, 50 }));
	vr_node_set_enabled(b, false);
	vr_node_set_enabled(c, false);
	vr_tree_update(tree, NULL);
	ck_assert_ptr_eq(
			vr_tree_top_drawn(tree, &(struct vr_box){ 0, 0, 300, 300 }), a);
	vr_node_destroy(b);
	vr_node_destroy(c);
	vr_node_destroy(a);
}
END_TEST

START_TEST(test_tree_damage_unchanged) {
	struct vr_node *a = rect_node(root, 3, 4, 10, 10);
	vr_tree_update(tree, NULL);
	pixman_region32_t damage;
	update_damage(&damage);
	ck_assert(!pixman_region32_not_empty(&damage));
	pixman_region32_fini(&damage);

	/* setting the same state again changes nothing */
	vr_node_set_position(a, 3, 4);
	vr_node_set_opacity(a, 1.0f);
	vr_node_set_enabled(a, true);
	update_damage(&damage);
	ck_assert(!pixman_region32_not_empty(&damage));
	pixman_region32_fini(&damage);
	ck_assert_uint_eq(vr_tree_last_update_count(tree), 0);

	/* a node without content moving damages nothing */
	struct vr_node *empty = rect_node(root, 0, 0, 0, 0);
	vr_tree_update(tree, NULL);
	vr_node_set_position(empty, 50, 50);
	update_damage(&damage);
	ck_assert(!pixman_region32_not_empty(&damage));
	pixman_region32_fini(&damage);

	/* the same content again damages nothing either */
	vr_node_set_rect(a, 10, 10, red);
	update_damage(&damage);
	ck_assert(!pixman_region32_not_empty(&damage));
	pixman_region32_fini(&damage);

	/* opacity change damages the bounds although they stay the same */
	vr_node_set_opacity(a, 0.5f);
	update_damage(&damage);
	ck_assert(region_equals_boxes(&damage,
			(struct vr_box[]){ { 3, 4, 10, 10 } }, 1));
	pixman_region32_fini(&damage);
}
END_TEST

/* ---- cache and generation ----------------------------------------------- */

START_TEST(test_tree_cache_dirty_subtrees_only) {
	enum { GROUPS = 10, LEAVES = 100 };
	struct vr_node *groups[GROUPS];
	struct vr_node *leaf = NULL;
	for (int g = 0; g < GROUPS; g++) {
		groups[g] = rect_node(root, (float)g * 100, 0, 0, 0);
		for (int i = 0; i < LEAVES; i++) {
			struct vr_node *n = rect_node(groups[g], (float)i, (float)i, 5, 5);
			if (g == 3 && i == 42) {
				leaf = n;
			}
		}
	}
	vr_tree_update(tree, NULL);
	size_t total = 1 + GROUPS + GROUPS * LEAVES;
	ck_assert_uint_eq(vr_tree_last_update_count(tree), total);

	vr_tree_update(tree, NULL);
	ck_assert_uint_eq(vr_tree_last_update_count(tree), 0);

	vr_node_set_position(leaf, 1000, 1000);
	pixman_region32_t damage;
	update_damage(&damage);
	ck_assert_uint_eq(vr_tree_last_update_count(tree), 1);
	ck_assert_box(bounds_of(leaf), 1300, 1000, 5, 5);
	ck_assert(region_equals_boxes(&damage,
			(struct vr_box[]){ { 342, 42, 5, 5 }, { 1300, 1000, 5, 5 } }, 2));
	pixman_region32_fini(&damage);

	/* a group's move recomputes the group and its leaves only */
	vr_node_set_position(groups[7], 0, 500);
	vr_tree_update(tree, NULL);
	ck_assert_uint_eq(vr_tree_last_update_count(tree), 1 + LEAVES);

	/* culling still sees the moved leaf through the cached bounds */
	check_order((struct vr_node *[]){ leaf }, 1,
			&(struct vr_box){ 1300, 1000, 1, 1 });
}
END_TEST

START_TEST(test_tree_generation) {
	uint64_t g0 = vr_tree_generation(tree);
	struct vr_node *a = rect_node(root, 0, 0, 10, 10);
	uint64_t g1 = vr_tree_generation(tree);
	ck_assert_uint_gt(g1, g0);

	vr_tree_update(tree, NULL);
	ck_assert_uint_eq(vr_tree_generation(tree), g1);
	vr_node_set_position(a, 0, 0); /* no change */
	ck_assert_uint_eq(vr_tree_generation(tree), g1);

	vr_node_set_position(a, 1, 0);
	uint64_t g2 = vr_tree_generation(tree);
	ck_assert_uint_gt(g2, g1);
	vr_node_set_rect(a, 10, 10, (struct vr_color){ 0, 1, 0, 1 });
	uint64_t g3 = vr_tree_generation(tree);
	ck_assert_uint_gt(g3, g2);
	vr_node_set_clip(a, &(struct vr_rectf){ 0, 0, 5, 5 });
	ck_assert_uint_gt(vr_tree_generation(tree), g3);
	g3 = vr_tree_generation(tree);
	vr_node_destroy(a);
	ck_assert_uint_gt(vr_tree_generation(tree), g3);
}
END_TEST

/* A stride under width * 4 would make rows overlap or read past the
 * caller's memory: refused, nothing written. */
START_TEST(test_tree_image_write_stride) {
	struct vr_image *image = vr_image_create(4, 2, VR_FORMAT_ARGB8888);
	ck_assert_ptr_nonnull(image);
	uint32_t pixels[8];
	for (int i = 0; i < 8; i++) {
		pixels[i] = 0xff000000u | (uint32_t)i;
	}
	ck_assert(!vr_image_write(image, pixels, 15, NULL));
	ck_assert(!vr_image_write(image, pixels, 4, NULL));
	int32_t stride;
	const uint32_t *data = vr_image_data(image, &stride);
	for (int i = 0; i < 8; i++) {
		ck_assert_uint_eq(data[i], 0); /* untouched: transparent */
	}
	ck_assert(vr_image_write(image, pixels, 16, NULL));
	ck_assert_uint_eq(data[7], 0xff000007u);
	vr_image_unref(image);
}
END_TEST

static Suite *tree_suite(void) {
	Suite *s = suite_create("tree");
	struct {
		const char *name;
		const TTest *tests[8];
	} cases[] = {
		{ "transforms",
				{ test_tree_nested_translation, test_tree_scale,
						test_tree_rotation_bounds, test_tree_mat_helpers } },
		{ "clips", { test_tree_clip_nested, test_tree_clip_rotated } },
		{ "zorder", { test_tree_zorder_restack } },
		{ "images", { test_tree_image_write_stride } },
		{ "visibility",
				{ test_tree_enable_disable,
						test_tree_destroy_with_live_children,
						test_tree_detach_reparent } },
		{ "damage",
				{ test_tree_damage_move, test_tree_damage_content,
						test_tree_damage_unchanged,
						test_tree_damage_replace_image,
						test_tree_draws_image_exactly, test_tree_top_drawn } },
		{ "cache",
				{ test_tree_cache_dirty_subtrees_only, test_tree_generation } },
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
	SRunner *sr = srunner_create(tree_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
