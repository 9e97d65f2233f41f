/*
 * The CPU execution backend (vr_cpu_render, renderer/cpu_backend.c), no
 * Vulkan needed:
 * - the RenderService tree dumps (../shared/scenes/rstree, when present)
 *   and our JSON scenes against the pixman reference renderer, at the
 *   render tests' tolerances (test_primitives.c: TRIANGLES, 2, with at
 *   most 12 outliers up to 24 per scene; the per-primitive comparisons
 *   are in test-primitives);
 * - bit-identity at 1, 2, 3 and 4 workers on random trees (every
 *   primitive, transforms, clips, rounded clips, opacity) and on the
 *   scenes;
 * - damage: a damaged region is redrawn as a full frame would draw it,
 *   and every pixel outside it is left untouched.
 * A failing comparison writes <name>-actual.png and -expected.png into
 * $VITRAIL_TEST_OUT.
 */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <poll.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vitrail/canvas.h>
#include <vitrail/renderer.h>
#include "random_tree.h"
#include "rstree.h"
#include "scene.h"
#include "scene_json.h"

#define TOLERANCE 2
#define OUTLIERS 12
#define OUTLIER_MAX 24

static void write_images(const char *name, const uint32_t *actual,
		const uint32_t *expected, int32_t w, int32_t h) {
	const char *dir = getenv("VITRAIL_TEST_OUT");
	char path[1200];
	snprintf(path, sizeof(path), "%s/%s-actual.png", dir ? dir : "/tmp", name);
	vr_png_write(path, actual, w, h, w * 4, false);
	snprintf(path, sizeof(path), "%s/%s-expected.png", dir ? dir : "/tmp",
			name);
	vr_png_write(path, expected, w, h, w * 4, false);
}

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
		write_images(name, actual, expected, w, h);
	}
	ck_assert_msg(ok, "%s: %zu pixels differ by more than %d (max %d)", name,
			bad, tolerance, max_diff);
}

/* A w x h frame filled with a pattern (pixels a frame must overwrite or
 * leave alone), rendered by the CPU backend with `workers`. */
static uint32_t *cpu_frame(struct vr_tree *tree, int32_t w, int32_t h,
		const struct vr_mat *view, struct vr_color clear, int workers,
		const pixman_region32_t *damage, const uint32_t *initial) {
	uint32_t *pixels = malloc((size_t)w * (size_t)h * 4);
	ck_assert_ptr_nonnull(pixels);
	for (size_t i = 0; i < (size_t)w * (size_t)h; i++) {
		pixels[i] = initial != NULL ?
				initial[i] :
				0xff000000u | (uint32_t)(i * 2654435761u >> 8);
	}
	pixman_image_t *dst =
			pixman_image_create_bits(PIXMAN_a8r8g8b8, w, h, pixels, w * 4);
	struct vr_cpu_renderer *cpu = vr_cpu_renderer_create(workers);
	ck_assert_ptr_nonnull(cpu);
	ck_assert_int_eq(vr_cpu_renderer_workers(cpu), workers);
	ck_assert(vr_cpu_render(cpu, tree, dst, view, clear, damage));
	vr_cpu_renderer_destroy(cpu);
	pixman_image_unref(dst);
	return pixels;
}

static uint32_t *reference_frame(struct vr_tree *tree, int32_t w, int32_t h,
		const struct vr_mat *view, struct vr_color clear) {
	uint32_t *pixels = calloc((size_t)w * (size_t)h, 4);
	ck_assert_ptr_nonnull(pixels);
	pixman_image_t *dst =
			pixman_image_create_bits(PIXMAN_a8r8g8b8, w, h, pixels, w * 4);
	vr_reference_render(tree, dst, view, clear);
	pixman_image_unref(dst);
	return pixels;
}

static size_t count_different(const uint32_t *a, const uint32_t *b, size_t n) {
	size_t d = 0;
	for (size_t i = 0; i < n; i++) {
		d += a[i] != b[i];
	}
	return d;
}

/* ---- random trees (random_tree.c) ---------------------------------------- */

#define RANDOM_W 240
#define RANDOM_H 180

/* Trees twice the GPU tests' size for a target two to three times
 * theirs: the CPU backend's bands and workers each get a part of most
 * primitives. Half the nodes show a display list (the others rects,
 * images or nothing), of every canvas command kind. */
static const struct random_tree_options tree_options = {
	.scale = 2,
	.lists = 0.5f,
	.max_commands = 8,
	.cubic = true,
	.bold = true,
};

struct random_scene {
	struct random_tree rt;
	struct vr_color clear;
};

static void random_scene_build(struct random_scene *scene, uint64_t seed) {
	struct rng rng = { seed * 0x9e3779b97f4a7c15u + 11 };
	*scene = (struct random_scene){ 0 };
	random_tree_build(&scene->rt, &tree_options, &rng);
	scene->clear = (struct vr_color){ rng_float(&rng, 0, 1), 0.2f, 0.3f,
		rng_chance(&rng, 0.5f) ? 1.0f : 0.0f };
	vr_tree_update(scene->rt.tree, NULL);
}

static void random_scene_destroy(struct random_scene *scene) {
	random_tree_destroy(&scene->rt);
}

static int trees(void) {
	const char *env = getenv("VITRAIL_TEST_TREES");
	int n = env != NULL ? atoi(env) : 0;
	return n > 0 ? (n < 60 ? n : 60) : 60;
}

START_TEST(test_cpu_random_workers_identical) {
	const size_t n = (size_t)RANDOM_W * RANDOM_H;
	struct vr_mat view = { .a = 1, .d = 1 };
	for (int t = 0; t < trees(); t++) {
		struct random_scene scene;
		random_scene_build(&scene, (uint64_t)t);
		struct vr_tree *tree = scene.rt.tree;
		uint32_t *one = cpu_frame(tree, RANDOM_W, RANDOM_H, &view, scene.clear,
				1, NULL, NULL);
		for (int w = 2; w <= 4; w++) {
			uint32_t *more = cpu_frame(tree, RANDOM_W, RANDOM_H, &view,
					scene.clear, w, NULL, NULL);
			size_t d = count_different(one, more, n);
			if (d != 0) {
				char name[64];
				snprintf(name, sizeof(name), "cpu-tree%d-w%d", t, w);
				write_images(name, more, one, RANDOM_W, RANDOM_H);
			}
			ck_assert_msg(d == 0,
					"tree %d: %d workers differ from one in "
					"%zu pixels",
					t, w, d);
			free(more);
		}
		/* and close to the reference (exercises every primitive) */
		if (t % 6 == 0) {
			uint32_t *ref = reference_frame(tree, RANDOM_W, RANDOM_H, &view,
					scene.clear);
			char name[64];
			snprintf(name, sizeof(name), "cpu-tree%d", t);
			compare(name, one, ref, RANDOM_W, RANDOM_H, TOLERANCE, OUTLIERS,
					OUTLIER_MAX);
			free(ref);
		}
		free(one);
		random_scene_destroy(&scene);
	}
}
END_TEST

START_TEST(test_cpu_damage) {
	const size_t n = (size_t)RANDOM_W * RANDOM_H;
	struct vr_mat view = { .a = 1, .d = 1 };
	for (int t = 100; t < 110; t++) {
		struct random_scene scene;
		random_scene_build(&scene, (uint64_t)t);
		struct vr_tree *tree = scene.rt.tree;
		/* a full frame, then a node moves and only its damage is drawn */
		uint32_t *before = cpu_frame(tree, RANDOM_W, RANDOM_H, &view,
				scene.clear, 2, NULL, NULL);
		struct vr_node *moved = scene.rt.nodes[(size_t)t % scene.rt.nnodes];
		vr_node_set_position(moved, 30.5f + (float)(t % 7),
				20.25f + (float)(t % 5));
		pixman_region32_t damage;
		pixman_region32_init(&damage);
		vr_tree_update(tree, &damage);
		/* and a rectangle of our own */
		pixman_region32_union_rect(&damage, &damage, 150, 10 + t % 7, 37, 60);
		for (int w = 1; w <= 3; w++) {
			uint32_t *after = cpu_frame(tree, RANDOM_W, RANDOM_H, &view,
					scene.clear, w, &damage, before);
			/* outside the damage: untouched, bit for bit */
			for (int32_t y = 0; y < RANDOM_H; y++) {
				for (int32_t x = 0; x < RANDOM_W; x++) {
					size_t i = (size_t)y * RANDOM_W + (size_t)x;
					if (!pixman_region32_contains_point(&damage, x, y, NULL)) {
						ck_assert_msg(after[i] == before[i],
								"tree %d: "
								"pixel %d,%d outside the damage changed",
								t, x, y);
					}
				}
			}
			/* inside: what a full frame draws (every pixel depends only
			 * on the tasks), so the whole frame equals a full one */
			uint32_t *full = cpu_frame(tree, RANDOM_W, RANDOM_H, &view,
					scene.clear, w, NULL, NULL);
			int32_t nrects;
			pixman_region32_rectangles(&damage, &nrects);
			if (nrects <= 16) {
				size_t d = count_different(after, full, n);
				if (d != 0) {
					char name[64];
					snprintf(name, sizeof(name), "cpu-damage%d-w%d", t, w);
					write_images(name, after, full, RANDOM_W, RANDOM_H);
				}
				ck_assert_msg(d == 0,
						"tree %d: the damaged frame differs "
						"from a full one in %zu pixels",
						t, d);
			}
			free(full);
			free(after);
		}
		pixman_region32_fini(&damage);
		free(before);
		random_scene_destroy(&scene);
	}
}
END_TEST

/* ---- asynchronous frames ------------------------------------------------ */

static uint64_t mono_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void fill_image(struct vr_image *image, uint32_t argb) {
	int32_t w = vr_image_width(image), h = vr_image_height(image);
	uint32_t *px = malloc((size_t)w * (size_t)h * 4);
	ck_assert_ptr_nonnull(px);
	for (size_t i = 0; i < (size_t)w * (size_t)h; i++) {
		px[i] = argb;
	}
	ck_assert(vr_image_write(image, px, w * 4, NULL));
	free(px);
}

/*
 * vr_cpu_render_submit: the call returns before the frame is drawn (a
 * large frame ends after the call returned, on the renderer's threads);
 * a second frame is submitted while the first is in flight; each frame
 * shows the tree and the image pixels as they were during its call,
 * whatever the caller changes, writes or destroys afterwards (pixels
 * against the reference renderer, which shares no code with the
 * backend's execution); completions come through the fd, in order. A
 * frame submitted after an image was written while earlier frames read
 * it shows the new pixels without waiting for them (its submit returns
 * while the large frame is still drawn; it used to drain every frame in
 * flight on the caller's thread), and a fourth frame after a second such
 * write shows that one while the third keeps the first write's.
 */
START_TEST(test_cpu_async) {
	struct random_scene scene;
	random_scene_build(&scene, 4242);
	struct vr_tree *tree = scene.rt.tree;
	struct vr_mat view = { .a = 1, .d = 1 };
	struct vr_image *image = vr_image_create(64, 48, VR_FORMAT_ARGB8888);
	ck_assert_ptr_nonnull(image);
	fill_image(image, 0xff20c040u);
	struct vr_node *shown = vr_node_create(tree);
	vr_node_set_parent(shown, vr_tree_root(tree));
	vr_node_set_position(shown, 100, 60);
	vr_node_set_image(shown, image, NULL, 64, 48, VR_TRANSFORM_NORMAL);
	vr_tree_update(tree, NULL);
	uint32_t *expected1 =
			reference_frame(tree, RANDOM_W, RANDOM_H, &view, scene.clear);

	struct vr_cpu_renderer *cpu = vr_cpu_renderer_create(2);
	ck_assert_ptr_nonnull(cpu);
	/* a large frame: the same tree scaled 16 times, 3840 x 2880 */
	const int32_t bw = RANDOM_W * 16, bh = RANDOM_H * 16;
	pixman_image_t *big =
			pixman_image_create_bits(PIXMAN_a8r8g8b8, bw, bh, NULL, 0);
	ck_assert_ptr_nonnull(big);
	struct vr_mat big_view = { .a = 16, .d = 16 };
	uint64_t id1 =
			vr_cpu_render_submit(cpu, tree, big, &big_view, scene.clear, NULL);
	uint64_t returned1 = mono_ns();
	ck_assert(id1 > 0);

	/* the second frame, while the first is in flight */
	uint32_t *pixels2 = calloc((size_t)RANDOM_W * RANDOM_H, 4);
	pixman_image_t *dst2 = pixman_image_create_bits(PIXMAN_a8r8g8b8, RANDOM_W,
			RANDOM_H, pixels2, RANDOM_W * 4);
	uint64_t id2 =
			vr_cpu_render_submit(cpu, tree, dst2, &view, scene.clear, NULL);
	ck_assert_uint_eq(id2, id1 + 1);

	/* the caller changes everything the frames read */
	fill_image(image, 0xffc02040u);
	vr_node_set_position(shown, 20, 30);
	struct vr_node *gone = scene.rt.nodes[0];
	vr_node_destroy(gone);
	scene.rt.nodes[0] = NULL;
	pixman_region32_t damage;
	pixman_region32_init(&damage);
	vr_tree_update(tree, &damage);
	pixman_region32_fini(&damage);
	uint32_t *expected3 =
			reference_frame(tree, RANDOM_W, RANDOM_H, &view, scene.clear);
	uint32_t *pixels3 = calloc((size_t)RANDOM_W * RANDOM_H, 4);
	pixman_image_t *dst3 = pixman_image_create_bits(PIXMAN_a8r8g8b8, RANDOM_W,
			RANDOM_H, pixels3, RANDOM_W * 4);
	uint64_t id3 =
			vr_cpu_render_submit(cpu, tree, dst3, &view, scene.clear, NULL);
	uint64_t returned3 = mono_ns();
	ck_assert_uint_eq(id3, id2 + 1);

	/* a second write while the third frame holds the first one's pixels */
	fill_image(image, 0xff4020c0u);
	vr_tree_update(tree, NULL);
	uint32_t *expected4 =
			reference_frame(tree, RANDOM_W, RANDOM_H, &view, scene.clear);
	uint32_t *pixels4 = calloc((size_t)RANDOM_W * RANDOM_H, 4);
	pixman_image_t *dst4 = pixman_image_create_bits(PIXMAN_a8r8g8b8, RANDOM_W,
			RANDOM_H, pixels4, RANDOM_W * 4);
	uint64_t id4 =
			vr_cpu_render_submit(cpu, tree, dst4, &view, scene.clear, NULL);
	ck_assert_uint_eq(id4, id3 + 1);

	/* completions through the fd, in order */
	struct pollfd pfd = { vr_cpu_renderer_get_fd(cpu), POLLIN, 0 };
	uint64_t done = 0;
	for (int i = 0; i < 600 && done < id4; i++) {
		poll(&pfd, 1, 100);
		done = vr_cpu_renderer_dispatch(cpu);
	}
	ck_assert_uint_eq(done, id4);
	struct vr_frame_timing t1, t2;
	ck_assert(vr_cpu_frame_get_timing(cpu, id1, &t1));
	ck_assert(vr_cpu_frame_get_timing(cpu, id2, &t2));
	ck_assert_msg(t1.end_ns > returned1,
			"the large frame was drawn before "
			"its submit returned (%.2f ms before)",
			(double)(returned1 - t1.end_ns) / 1e6);
	ck_assert_msg(t2.start_ns < t1.end_ns,
			"the second frame was submitted "
			"only once the first was drawn: one frame in flight");
	ck_assert_uint_eq(t2.cpu_copies, 0);
	ck_assert_msg(t1.end_ns > returned3,
			"the frame after a write waited "
			"for the frames in flight (the large one ended %.2f ms before its "
			"submit returned)",
			(double)(returned3 - t1.end_ns) / 1e6);

	compare("cpu-async-before", pixels2, expected1, RANDOM_W, RANDOM_H,
			TOLERANCE, OUTLIERS, OUTLIER_MAX);
	compare("cpu-async-after", pixels3, expected3, RANDOM_W, RANDOM_H,
			TOLERANCE, OUTLIERS, OUTLIER_MAX);
	ck_assert_msg(count_different(pixels2, pixels3,
						  (size_t)RANDOM_W * RANDOM_H) > 64 * 48 / 2,
			"the changes made no difference: the test shows nothing");
	compare("cpu-async-second-write", pixels4, expected4, RANDOM_W, RANDOM_H,
			TOLERANCE, OUTLIERS, OUTLIER_MAX);
	ck_assert_msg(count_different(pixels3, pixels4,
						  (size_t)RANDOM_W * RANDOM_H) >= 64 * 48 / 2,
			"the second write made no difference");

	vr_cpu_renderer_destroy(cpu);
	pixman_image_unref(big);
	pixman_image_unref(dst2);
	pixman_image_unref(dst3);
	pixman_image_unref(dst4);
	free(pixels2);
	free(pixels3);
	free(pixels4);
	free(expected1);
	free(expected3);
	free(expected4);
	vr_image_unref(image);
	random_scene_destroy(&scene);
}
END_TEST

/* ---- the benchmark's scenes --------------------------------------------- */

static void scene_check(struct bench_scene *scene) {
	struct vr_tree *tree = bench_scene_realise(scene);
	ck_assert_ptr_nonnull(tree);
	vr_tree_update(tree, NULL);
	for (size_t o = 0; o < scene->noutputs && o < 2; o++) {
		const struct vr_box *out = &scene->outputs[o];
		struct vr_mat view;
		vr_mat_identity(&view);
		vr_mat_translate(&view, (float)-out->x, (float)-out->y);
		uint32_t *ref = reference_frame(tree, out->width, out->height, &view,
				scene->clear);
		uint32_t *two = cpu_frame(tree, out->width, out->height, &view,
				scene->clear, 2, NULL, NULL);
		char name[128];
		snprintf(name, sizeof(name), "cpu-scene-%s-%zu", scene->name, o);
		compare(name, two, ref, out->width, out->height, TOLERANCE, OUTLIERS,
				OUTLIER_MAX);
		uint32_t *three = cpu_frame(tree, out->width, out->height, &view,
				scene->clear, 3, NULL, NULL);
		size_t d = count_different(two, three,
				(size_t)out->width * (size_t)out->height);
		ck_assert_msg(d == 0, "%s: 3 workers differ from 2 in %zu pixels", name,
				d);
		free(three);
		free(two);
		free(ref);
	}
	bench_scene_release(scene, tree);
}

START_TEST(test_cpu_rstree_scenes) {
	DIR *dir = opendir(BENCH_RSTREE_DIR);
	if (dir == NULL) {
		fprintf(stderr, "no RS-tree dumps in %s: skipped\n", BENCH_RSTREE_DIR);
		return;
	}
	struct dirent *e;
	int n = 0;
	while ((e = readdir(dir)) != NULL) {
		size_t len = strlen(e->d_name);
		if (len < 4 || strcmp(e->d_name + len - 4, ".txt") != 0) {
			continue;
		}
		char path[1200];
		snprintf(path, sizeof(path), "%s/%s", BENCH_RSTREE_DIR, e->d_name);
		struct rstree_info info;
		struct bench_scene *scene =
				rstree_load(path, BENCH_RSTREE_DIR "/textures", &info);
		ck_assert_ptr_nonnull(scene);
		scene_check(scene);
		bench_scene_destroy(scene);
		n++;
	}
	closedir(dir);
	fprintf(stderr, "%d RS-tree scenes compared\n", n);
}
END_TEST

START_TEST(test_cpu_json_scenes) {
	/* a few of ours: shadows, text, images, several outputs */
	static const char *const names[] = { "multi-window-shadows", "editor-text",
		"chat-bubbles", "charts", "notification-centre" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[1200];
		snprintf(path, sizeof(path), "%s/%s.json", BENCH_SCENES_DIR, names[i]);
		struct bench_scene *scene =
				scene_json_load(path, BENCH_RSTREE_DIR "/textures");
		ck_assert_msg(scene != NULL, "%s", path);
		scene_check(scene);
		bench_scene_destroy(scene);
	}
}
END_TEST

static Suite *cpu_suite(void) {
	Suite *s = suite_create("cpu");
	TCase *tc = tcase_create("random");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_cpu_random_workers_identical);
	tcase_add_test(tc, test_cpu_damage);
	tcase_add_test(tc, test_cpu_async);
	suite_add_tcase(s, tc);
	tc = tcase_create("scenes");
	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, test_cpu_rstree_scenes);
	tcase_add_test(tc, test_cpu_json_scenes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void) {
	SRunner *runner = srunner_create(cpu_suite());
	srunner_run_all(runner, CK_NORMAL);
	int failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
