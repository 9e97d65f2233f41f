/*
 * The one engine (renderer.h, "one engine"): the Vulkan renderer, the CPU
 * engine and the reference renderer behind one asynchronous interface.
 * For each engine (Vulkan only where a device exists), the same frames:
 * - every frame completes through the engine's fd: it becomes readable,
 *   and vr_engine_dispatch then returns the frame's id (or a later one);
 *   ids go up by one; a completed frame has its timing;
 * - pixels against known values (solid rectangles, not another renderer),
 *   in a buffer of page-aligned host memory written through the same
 *   calls for every engine: a whole frame, then a frame that writes only
 *   the damage of a moved rectangle (pixels outside it stay as they were);
 * - three frames in flight at once, completed in order.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vitrail/renderer.h>
#include "vulkan_test.h"

#define W 64
#define H 48

enum kind { KIND_VULKAN, KIND_CPU, KIND_REFERENCE };

static const char *const kind_names[] = { "vulkan", "cpu", "reference" };

struct fixture {
	struct vr_renderer *vulkan;
	struct vr_cpu_renderer *cpu;
	struct vr_engine *engine;
	struct vr_engine_output *output;
	struct vr_engine_buffer *buffer;
	uint32_t *pixels; /* the buffer's memory, W x H */
	struct vr_changes changes; /* what the buffer lacks */
	pixman_region32_t copy; /* to copy out (a buffer that is not direct) */
	struct vr_tree *tree;
	struct vr_node *square;
	uint64_t last_id;
};

static const struct vr_color RED = { 1, 0, 0, 1 };
static const struct vr_color GREEN = { 0, 1, 0, 1 };
static const struct vr_color BLUE = { 0, 0, 1, 1 };

/* false: no such engine here (Vulkan without a device) */
static bool fixture_init(struct fixture *f, enum kind kind) {
	memset(f, 0, sizeof(*f));
	switch (kind) {
	case KIND_VULKAN:
		f->vulkan = vr_renderer_create(&(struct vr_renderer_options){ 0 });
		if (f->vulkan == NULL) {
			return false;
		}
		f->engine = vr_engine_create_vulkan(f->vulkan);
		break;
	case KIND_CPU:
		f->cpu = vr_cpu_renderer_create(2);
		ck_assert_ptr_nonnull(f->cpu);
		f->engine = vr_engine_create_cpu(f->cpu);
		break;
	case KIND_REFERENCE: f->engine = vr_engine_create_reference(); break;
	}
	ck_assert_ptr_nonnull(f->engine);
	ck_assert_str_eq(vr_engine_name(f->engine), kind_names[kind]);
	ck_assert(vr_engine_host_images(f->engine) == (kind != KIND_VULKAN));
	/* from here on, the same calls for every engine */
	f->output = vr_engine_output_create(f->engine, W, H);
	ck_assert_ptr_nonnull(f->output);
	ck_assert_int_eq(vr_engine_output_width(f->output), W);
	ck_assert_int_eq(vr_engine_output_height(f->output), H);
	f->pixels = aligned_alloc(4096, (W * H * 4 + 4095) / 4096 * 4096);
	ck_assert_ptr_nonnull(f->pixels);
	f->buffer =
			vr_engine_buffer_create(f->engine, f->pixels, W, H, W * 4, true);
	ck_assert_ptr_nonnull(f->buffer);
	vr_changes_init(&f->changes);
	vr_changes_damage_all(&f->changes, &(struct vr_box){ 0, 0, W, H });
	pixman_region32_init(&f->copy);
	f->tree = vr_tree_create();
	struct vr_node *root = vr_tree_root(f->tree);
	struct vr_node *background = vr_node_create(f->tree);
	vr_node_set_rect(background, W, H, RED);
	vr_node_set_parent(background, root);
	struct vr_node *blue = vr_node_create(f->tree);
	vr_node_set_rect(blue, 10, 10, BLUE);
	vr_node_set_position(blue, 44, 4);
	vr_node_set_parent(blue, root);
	f->square = vr_node_create(f->tree);
	vr_node_set_rect(f->square, 16, 16, GREEN);
	vr_node_set_position(f->square, 8, 8);
	vr_node_set_parent(f->square, root);
	return true;
}

static void fixture_finish(struct fixture *f) {
	if (f->last_id != 0) {
		vr_engine_wait(f->engine, f->last_id, UINT64_MAX);
	}
	vr_engine_buffer_destroy(f->buffer);
	vr_engine_output_destroy(f->output);
	vr_engine_destroy(f->engine);
	vr_tree_destroy(f->tree);
	free(f->pixels);
	vr_changes_fini(&f->changes);
	pixman_region32_fini(&f->copy);
	vr_renderer_destroy(f->vulkan);
	vr_cpu_renderer_destroy(f->cpu);
	ck_assert_int_eq(log_errors, 0);
}

static uint64_t submit(struct fixture *f, const pixman_region32_t *damage) {
	struct vr_mat view;
	vr_mat_identity(&view);
	pixman_region32_t whole;
	pixman_region32_init_rect(&whole, 0, 0, W, H);
	vr_changes_add_damage(&f->changes, damage != NULL ? damage : &whole);
	struct vr_engine_frame frame = {
		.output = f->output,
		.buffer = f->buffer,
		.view = view,
		.clear = { 0, 0, 0, 1 },
		.damage = damage != NULL ? damage : &whole,
		.buffer_changes = &f->changes,
	};
	uint64_t id = vr_engine_submit(f->engine, f->tree, &frame);
	ck_assert_uint_eq(id, f->last_id + 1);
	f->last_id = id;
	/* what the frame writes: this frame's damage, the buffer being
	 * written at every frame */
	ck_assert(pixman_region32_equal(&f->changes.damage,
			damage != NULL ? (pixman_region32_t *)damage : &whole));
	if (!vr_engine_buffer_direct(f->buffer)) {
		pixman_region32_union(&f->copy, &f->copy, &f->changes.damage);
	}
	vr_changes_clear(&f->changes);
	pixman_region32_fini(&whole);
	return id;
}

/* Through the fd, as a compositor's event loop sees completions. */
static void complete_through_fd(struct fixture *f, uint64_t id) {
	int fd = vr_engine_get_fd(f->engine);
	ck_assert_int_ge(fd, 0);
	uint64_t done = 0;
	for (int tries = 0; done < id && tries < 1000; tries++) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ck_assert_int_eq(poll(&pfd, 1, 10000), 1);
		done = vr_engine_dispatch(f->engine);
	}
	ck_assert_uint_ge(done, id);
	struct vr_frame_timing timing;
	ck_assert(vr_engine_get_timing(f->engine, id, &timing));
	ck_assert_uint_ge(timing.end_ns, timing.start_ns);
	if (pixman_region32_not_empty(&f->copy)) {
		ck_assert(vr_engine_output_read(f->output, f->buffer, &f->copy,
				f->pixels, W * 4));
		pixman_region32_clear(&f->copy);
	}
}

static uint32_t px(const struct fixture *f, int x, int y) {
	return f->pixels[y * W + x] & 0xffffff;
}

static void check_engine(enum kind kind) {
	struct fixture f;
	if (!fixture_init(&f, kind)) {
		printf("%s: no device, skipped\n", kind_names[kind]);
		return;
	}
	pixman_region32_t damage;
	pixman_region32_init(&damage);
	vr_tree_update(f.tree, &damage);
	memset(f.pixels, 0x55, (size_t)W * H * 4);

	/* a whole frame */
	complete_through_fd(&f, submit(&f, NULL));
	ck_assert_uint_eq(px(&f, 0, 0), 0xff0000);
	ck_assert_uint_eq(px(&f, 10, 10), 0x00ff00);
	ck_assert_uint_eq(px(&f, 23, 23), 0x00ff00);
	ck_assert_uint_eq(px(&f, 24, 24), 0xff0000);
	ck_assert_uint_eq(px(&f, 48, 8), 0x0000ff);

	/* the square moves: only its old and new places are drawn (a pixel
	 * outside, written by hand, stays) */
	f.pixels[40 * W + 2] = 0x123456;
	vr_node_set_position(f.square, 30, 26);
	pixman_region32_clear(&damage);
	vr_tree_update(f.tree, &damage);
	ck_assert(pixman_region32_contains_point(&damage, 10, 10, NULL));
	ck_assert(!pixman_region32_contains_point(&damage, 2, 40, NULL));
	complete_through_fd(&f, submit(&f, &damage));
	ck_assert_uint_eq(px(&f, 10, 10), 0xff0000);
	ck_assert_uint_eq(px(&f, 35, 30), 0x00ff00);
	ck_assert_uint_eq(px(&f, 48, 8), 0x0000ff);
	ck_assert_uint_eq(px(&f, 2, 40), 0x123456);

	/* three frames in flight, completed in order */
	uint64_t ids[3];
	for (int i = 0; i < 3; i++) {
		vr_node_set_position(f.square, 30 - 10 * i, 26);
		pixman_region32_clear(&damage);
		vr_tree_update(f.tree, &damage);
		ids[i] = submit(&f, &damage);
	}
	ck_assert_uint_eq(ids[2], ids[0] + 2);
	complete_through_fd(&f, ids[2]);
	for (int i = 0; i < 3; i++) {
		ck_assert(vr_engine_wait(f.engine, ids[i], 0));
	}
	ck_assert_uint_eq(px(&f, 15, 30), 0x00ff00);
	ck_assert_uint_eq(px(&f, 40, 30), 0xff0000);
	pixman_region32_fini(&damage);
	fixture_finish(&f);
}

START_TEST(test_engine_vulkan) {
	check_engine(KIND_VULKAN);
}
END_TEST

START_TEST(test_engine_cpu) {
	check_engine(KIND_CPU);
}
END_TEST

START_TEST(test_engine_reference) {
	check_engine(KIND_REFERENCE);
}
END_TEST

int main(void) {
	pin_vulkan_driver(); /* LeakSanitizer names its module */
	vr_set_log_func(test_log);
	Suite *suite = suite_create("engine");
	TCase *tc = tcase_create("engine");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_engine_vulkan);
	tcase_add_test(tc, test_engine_cpu);
	tcase_add_test(tc, test_engine_reference);
	suite_add_tcase(suite, tc);
	SRunner *runner = srunner_create(suite);
	srunner_run_all(runner, CK_NORMAL);
	int failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? 0 : 1;
}
