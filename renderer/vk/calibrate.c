/*
 * Calibrating the parallel mode's granularity (granularity.c: what is
 * measured, in order) and measuring which backend draws a scene faster:
 * real frames of a fixed scene through vr_render, so above the whole
 * pipeline (vk_render.c); what the figures become is granularity.c's.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vitrail/canvas.h>
#include "display_list.h"
#include "pool.h"
#include "vk_private.h"

#define HANDOFF_ROUNDS 200
#define FRAME_ROUNDS 7 /* measured, after 2 unmeasured */
#define CALIB_SCALE 1 /* the cards drawn at this scale */
#define CALIB_SIZE (512 * CALIB_SCALE)
#define CALIB_IMAGE 128 /* a photo, scaled down into avatars */
#define CALIB_ROWS 6
#define SMALL_NODES 2
#define LARGE_NODES 12

/* ---- 1. a handoff -----------------------------------------------------------
 */

struct echo {
	struct vr_result_pool there, back;
};

static void *echo_main(void *data) {
	struct echo *echo = data;
	pthread_setname_np(pthread_self(), "vr-calibrate");
	struct vr_result result;
	do {
		vr_result_pool_pop(&echo->there, &result);
		vr_result_pool_push(&echo->back, &result);
	} while (result.type != VR_RESULT_JOB_END);
	return NULL;
}

static int compare_double(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n) {
	qsort(v, n, sizeof(*v), compare_double);
	return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static bool measure_handoff(double *handoff_ns) {
	struct echo echo;
	if (!vr_result_pool_init(&echo.there, 4)) {
		return false;
	}
	if (!vr_result_pool_init(&echo.back, 4)) {
		vr_result_pool_finish(&echo.there);
		return false;
	}
	pthread_t thread;
	if (pthread_create(&thread, NULL, echo_main, &echo) != 0) {
		vr_result_pool_finish(&echo.back);
		vr_result_pool_finish(&echo.there);
		return false;
	}
	static double rounds[HANDOFF_ROUNDS];
	for (int i = 0; i < HANDOFF_ROUNDS; i++) {
		struct vr_result result = {
			.type = i + 1 < HANDOFF_ROUNDS ? VR_RESULT_TASK : VR_RESULT_JOB_END,
		};
		uint64_t t0 = vr_now_ns();
		vr_result_pool_push(&echo.there, &result);
		vr_result_pool_pop(&echo.back, &result);
		rounds[i] = (double)(vr_now_ns() - t0);
	}
	pthread_join(thread, NULL);
	vr_result_pool_finish(&echo.back);
	vr_result_pool_finish(&echo.there);
	*handoff_ns = median(rounds, HANDOFF_ROUNDS) / 2.0;
	return true;
}

/* ---- 2. and 3. frames
 * -------------------------------------------------------- */

struct calib_scene {
	struct vr_tree *tree;
	struct vr_node *nodes[LARGE_NODES];
	struct vr_display_list *lists[LARGE_NODES];
	struct vr_image *argb;
	struct vr_target *target;
};

/* One card of CALIB_ROWS rows, 128 x 170 units (drawn at CALIB_SCALE):
 * what UI lists are made of (a photo scaled into a round avatar,
 * a bubble, a line of text, a stroke). */
static struct vr_display_list *calib_list(struct vr_image *image, int card) {
	struct vr_canvas *c = vr_canvas_begin();
	if (c == NULL) {
		return NULL;
	}
	struct vr_radii radii = { 6, 6, 6, 6 };
	struct vr_radii avatar = { 8, 8, 8, 8 };
	struct vr_paint card_paint = { .color = { 0.95f, 0.95f, 0.97f, 1.0f } };
	struct vr_paint row_paint = { .color = { 0.2f, 0.5f, 0.9f, 0.3f } };
	struct vr_paint stroke = { .color = { 0.3f, 0.3f, 0.3f, 1.0f },
		.stroke_width = 1.0f };
	struct vr_font font = { .family = "sans-serif", .size = 9, .weight = 400 };
	if (card == 0) {
		vr_canvas_draw_shadow(c, (struct vr_rectf){ 4, 4, 120, 160 }, radii,
				8.0f, (struct vr_color){ 0, 0, 0, 0.3f });
	}
	vr_canvas_draw_rrect(c, (struct vr_rectf){ 2, 2, 124, 166 }, radii,
			&card_paint);
	for (int row = 0; row < CALIB_ROWS; row++) {
		float y = 6.0f + (float)row * 27.0f;
		vr_canvas_draw_rrect(c, (struct vr_rectf){ 6, y, 116, 24 }, radii,
				&row_paint);
		vr_canvas_save(c);
		vr_canvas_clip_rrect(c, (struct vr_rectf){ 9, y + 4, 16, 16 }, avatar);
		vr_canvas_draw_image(c, image, NULL,
				(struct vr_rectf){ 9, y + 4, 16, 16 }, 1.0f);
		vr_canvas_restore(c);
		char text[64];
		snprintf(text, sizeof(text),
				"Row %d of card %d: lorem ipsum "
				"dolor sit amet, 12:%02d",
				row, card, (row * 7 + card) % 60);
		vr_canvas_draw_text(c, 30, y + 10, text, &font,
				(struct vr_color){ 0.1f, 0.1f, 0.1f, 1.0f });
		vr_canvas_draw_line(c, 30, y + 21, 118, y + 21, &stroke);
	}
	return vr_canvas_finish(c);
}

static void calib_scene_finish(struct calib_scene *scene) {
	for (int i = 0; i < LARGE_NODES; i++) {
		vr_display_list_unref(scene->lists[i]);
	}
	vr_tree_destroy(scene->tree);
	vr_image_unref(scene->argb);
	vr_target_destroy(scene->target);
}

static bool calib_scene_init(struct calib_scene *scene,
		struct vr_renderer *renderer) {
	*scene = (struct calib_scene){ 0 };
	scene->tree = vr_tree_create();
	scene->target = vr_target_create(renderer, CALIB_SIZE, CALIB_SIZE);
	scene->argb = vr_image_create(CALIB_IMAGE, CALIB_IMAGE, VR_FORMAT_XRGB8888);
	if (scene->tree == NULL || scene->target == NULL || scene->argb == NULL) {
		return false;
	}
	static uint32_t pixels[CALIB_IMAGE * CALIB_IMAGE];
	for (int i = 0; i < CALIB_IMAGE * CALIB_IMAGE; i++) {
		pixels[i] = 0xff000000u | (uint32_t)i * 2654435761u >> 8;
	}
	vr_image_write(scene->argb, pixels, CALIB_IMAGE * 4, NULL);
	for (int i = 0; i < LARGE_NODES; i++) {
		scene->lists[i] = calib_list(scene->argb, i);
		scene->nodes[i] = vr_node_create(scene->tree);
		if (scene->lists[i] == NULL || scene->nodes[i] == NULL) {
			return false;
		}
		vr_node_set_parent(scene->nodes[i], vr_tree_root(scene->tree));
		vr_node_set_display_list(scene->nodes[i], scene->lists[i]);
		/* a grid of 4 x 3 cards */
		struct vr_mat m = { .a = CALIB_SCALE,
			.d = CALIB_SCALE,
			.tx = (float)(i % 4) * 128.0f * CALIB_SCALE,
			.ty = (float)(i / 4) * 170.0f * CALIB_SCALE };
		vr_node_set_transform(scene->nodes[i], &m);
	}
	return true;
}

/* One full redraw of the first `nodes` nodes; the CPU frame (entered ->
 * submitted), the estimated cost and the execution time. */
static bool calib_frame(struct vr_renderer *renderer, struct calib_scene *scene,
		int nodes, double *cpu_ns, double *cost, double *execute_ns) {
	for (int i = 0; i < LARGE_NODES; i++) {
		vr_node_set_enabled(scene->nodes[i], i < nodes);
	}
	vr_tree_update(scene->tree, NULL);
	struct vr_render_job job = {
		.target = scene->target,
		.clear = { 1, 1, 1, 1 },
	};
	vr_mat_identity(&job.view);
	if (!vr_render(renderer, scene->tree, &job, 1)) {
		return false;
	}
	const struct vr_frame_timing *t = &job.timing;
	uint64_t wall = t->end_ns - t->start_ns;
	uint64_t after = t->gpu_ns + t->readback_ns;
	*cpu_ns = (double)(wall > after ? wall - after : 0);
	*cost = (double)t->cost;
	*execute_ns = (double)t->execute_ns;
	return true;
}

bool vr_renderer_calibrate(struct vr_renderer *renderer) {
	if (renderer->sequential) {
		return false; /* nothing is handed over */
	}
	uint64_t start = vr_now_ns();
	struct vr_granularity g = { .calibrated = true };
	if (!measure_handoff(&g.handoff_ns)) {
		return false;
	}
	struct calib_scene scene;
	if (!calib_scene_init(&scene, renderer)) {
		calib_scene_finish(&scene);
		return false;
	}
	const struct vr_granularity saved = renderer->granularity;
	struct vr_granularity inline_only = vr_granularity_uncalibrated;
	inline_only.parallel_cost = UINT32_MAX;
	struct vr_granularity handed = vr_granularity_uncalibrated;
	enum { SMALL, LARGE, NSIZES };
	const int sizes[NSIZES] = { SMALL_NODES, LARGE_NODES };
	static double inl[NSIZES][FRAME_ROUNDS], par[NSIZES][FRAME_ROUNDS];
	static double units[FRAME_ROUNDS];
	double cost[NSIZES] = { 0 };
	bool ok = true;
	/* 2: the unit, inline, after a round per frame slot (each slot
	 * creates the scratch images of its shadows the first time) and two
	 * more (pipelines, glyphs, caches) */
	for (int r = -VR_FRAMES_IN_FLIGHT - 2; r < FRAME_ROUNDS && ok; r++) {
		double cpu, c, exec;
		vr_renderer_set_granularity(renderer, &inline_only);
		ok = calib_frame(renderer, &scene, LARGE_NODES, &cpu, &c, &exec);
		if (r >= 0) {
			units[r] = c > 0.0 ? exec / c : 0.0;
		}
	}
	g.unit_ns = median(units, FRAME_ROUNDS);
	/* 3: inline against handed over in the calibrated chunks */
	vr_granularity_derive(&g);
	handed.chunk_cost = g.chunk_cost;
	for (int r = -2; r < FRAME_ROUNDS && ok; r++) {
		for (int k = 0; k < 2 * NSIZES && ok; k++) {
			/* alternate which mode and size go first */
			int i = (k + (r & 1) + (r < 0 ? 0 : r)) % (2 * NSIZES);
			int size = i / 2;
			bool parallel = i % 2 == 1;
			vr_renderer_set_granularity(renderer,
					parallel ? &handed : &inline_only);
			double cpu, c, exec;
			ok = calib_frame(renderer, &scene, sizes[size], &cpu, &c, &exec);
			if (r >= 0) {
				(parallel ? par : inl)[size][r] = cpu;
				cost[size] = c;
			}
		}
	}
	renderer->granularity = saved;
	calib_scene_finish(&scene);
	if (!ok || !(cost[LARGE] > cost[SMALL])) {
		vr_log(VR_LOG_ERROR, "calibration frames failed");
		return false;
	}
	double diff[NSIZES];
	for (int s = 0; s < NSIZES; s++) {
		diff[s] = median(par[s], FRAME_ROUNDS) - median(inl[s], FRAME_ROUNDS);
	}
	vr_log(VR_LOG_DEBUG,
			"calibration: %.0f units: inline %.0f us, "
			"parallel %.0f us; %.0f units: inline %.0f us, parallel %.0f us",
			cost[SMALL], median(inl[SMALL], FRAME_ROUNDS) / 1e3,
			median(par[SMALL], FRAME_ROUNDS) / 1e3, cost[LARGE],
			median(inl[LARGE], FRAME_ROUNDS) / 1e3,
			median(par[LARGE], FRAME_ROUNDS) / 1e3);
	g.gain_ns_per_unit =
			(diff[SMALL] - diff[LARGE]) / (cost[LARGE] - cost[SMALL]);
	g.frame_overhead_ns = diff[SMALL] + g.gain_ns_per_unit * cost[SMALL];
	int workers = vr_granularity_adopt(renderer, &g);
	vr_log(VR_LOG_INFO,
			"calibrated %d workers in %.0f ms: handoff %.1f us, "
			"unit %.0f ns, parallel frame overhead %.0f us, gain %.0f ns/unit: "
			"chunks of %u units, parallel from %u units",
			workers, (double)(vr_now_ns() - start) / 1e6, g.handoff_ns / 1e3,
			g.unit_ns, g.frame_overhead_ns / 1e3, g.gain_ns_per_unit,
			g.chunk_cost, g.parallel_cost);
	return true;
}

/* ---- which backend (vr_backends_measure) ----------------------------------
 */

/* The calibration's cards tiled over width x height: lists shared, one
 * node per card. */
struct measure_scene {
	struct calib_scene cards; /* its lists and image; its tree unused */
	struct vr_tree *tree;
};

static bool measure_scene_init(struct measure_scene *scene,
		struct vr_renderer *renderer, int32_t width, int32_t height) {
	if (!calib_scene_init(&scene->cards, renderer)) {
		return false;
	}
	scene->tree = vr_tree_create();
	if (scene->tree == NULL) {
		return false;
	}
	int cols = (width + 127) / 128, rows = (height + 169) / 170;
	for (int i = 0; i < cols * rows; i++) {
		struct vr_node *node = vr_node_create(scene->tree);
		if (node == NULL) {
			return false;
		}
		vr_node_set_parent(node, vr_tree_root(scene->tree));
		vr_node_set_display_list(node, scene->cards.lists[i % LARGE_NODES]);
		vr_node_set_position(node, (float)(i % cols) * 128.0f,
				(float)(i / cols) * 170.0f);
	}
	vr_tree_update(scene->tree, NULL);
	return true;
}

bool vr_backends_measure(struct vr_renderer *vulkan,
		struct vr_cpu_renderer *cpu, int32_t width, int32_t height, int rounds,
		double *vulkan_ns, double *cpu_ns) {
	if (rounds < 1 || width < 1 || height < 1) {
		return false;
	}
	char key[200];
	vr_granularity_cache_key(vulkan, key, sizeof(key));
	size_t len = strlen(key);
	snprintf(key + len, sizeof(key) - len, ":backends:%dx%d:cpu%d", width,
			height, vr_cpu_renderer_workers(cpu));
	double cached[2];
	if (vr_granularity_cache_get(vulkan, key, cached, 2) && cached[0] > 0.0 &&
			cached[1] > 0.0) {
		*vulkan_ns = cached[0];
		*cpu_ns = cached[1];
		vr_log(VR_LOG_INFO, "backends' frame times from the cache");
		return true;
	}
	struct measure_scene scene = { 0 };
	struct vr_target *target = vr_target_create(vulkan, width, height);
	pixman_image_t *image = pixman_image_create_bits(PIXMAN_a8r8g8b8, width,
			height, NULL, width * 4);
	pixman_image_t *buffer = pixman_image_create_bits(PIXMAN_x8r8g8b8, width,
			height, NULL, width * 4);
	double *times = calloc(2 * (size_t)rounds, sizeof(double));
	bool ok = target != NULL && image != NULL && buffer != NULL &&
			times != NULL && measure_scene_init(&scene, vulkan, width, height);
	const struct vr_color clear = { 1, 1, 1, 1 };
	struct vr_mat view;
	vr_mat_identity(&view);
	/* unmeasured first: a Vulkan frame per frame slot (each slot makes
	 * its shadows' scratch images at its first frame) and two more
	 * (glyphs, caches), two CPU frames (its glyph and shadow caches) */
	for (int r = -VR_FRAMES_IN_FLIGHT - 2; r < rounds && ok; r++) {
		for (int k = 0; k < 2 && ok; k++) {
			bool use_cpu = (k + r) % 2 != 0; /* alternate who goes first */
			if (use_cpu && r < -2) {
				continue;
			}
			uint64_t t0 = vr_now_ns();
			if (use_cpu) {
				ok = vr_cpu_render(cpu, scene.tree, image, &view, clear, NULL);
				pixman_image_composite32(PIXMAN_OP_SRC, image, NULL, buffer, 0,
						0, 0, 0, 0, 0, width, height);
			} else {
				struct vr_render_job job = {
					.target = target,
					.view = view,
					.clear = clear,
				};
				ok = vr_render(vulkan, scene.tree, &job, 1);
			}
			if (r >= 0) {
				times[(use_cpu ? rounds : 0) + r] = (double)(vr_now_ns() - t0);
			}
		}
	}
	if (ok) {
		*vulkan_ns = median(times, (size_t)rounds);
		*cpu_ns = median(times + rounds, (size_t)rounds);
		const double v[2] = { *vulkan_ns, *cpu_ns };
		vr_granularity_cache_put(vulkan, key, v, 2);
	} else {
		vr_log(VR_LOG_ERROR, "measuring the backends failed");
	}
	free(times);
	vr_tree_destroy(scene.tree);
	calib_scene_finish(&scene.cards);
	if (image != NULL) {
		pixman_image_unref(image);
	}
	if (buffer != NULL) {
		pixman_image_unref(buffer);
	}
	vr_target_destroy(target);
	return ok;
}
