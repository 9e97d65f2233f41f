/*
 * The parallel mode's granularity (renderer.h, vr_granularity): how many
 * units of estimated work go into one handoff to the workers, and below
 * which estimate a frame is not handed over at all, both measured on this
 * machine rather than guessed.
 *
 * vr_renderer_calibrate measures, in order:
 *   1. a handoff: a result passed to a thread through a vr_result_pool and
 *      back through another, many times (half the median round trip);
 *   2. a unit: frames of a fixed scene (cards of a UI list: rounded
 *      rects, rects, text, small images, strokes, one blurred shadow,
 *      twelve different display lists) rendered inline (execution time /
 *      estimated cost);
 *   3. what a parallel frame costs and saves: the same scene at two sizes,
 *      rendered inline and handed over, rounds alternated; the difference
 *      parallel - inline is overhead - gain * cost, a line through the two
 *      sizes.
 * vr_granularity_derive turns the figures into chunk_cost and
 * parallel_cost. The figures are kept for the process per worker count.
 *
 * Lock order: `calibrations_lock` is a leaf.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vitrail/canvas.h>
#include "display_list.h"
#include "pool.h"
#include "vk_private.h"

#define MAX_CALIBRATED_WORKERS 64
#define HANDOFF_ROUNDS 200
#define FRAME_ROUNDS 7 /* measured, after 2 unmeasured */
#define CALIB_SCALE 1 /* the cards drawn at this scale */
#define CALIB_SIZE (512 * CALIB_SCALE)
#define CALIB_IMAGE 128 /* a photo, scaled down into avatars */
#define CALIB_ROWS 6
#define SMALL_NODES 2
#define LARGE_NODES 12
/* a handoff at most this share of its chunk's work */
#define CHUNK_HANDOFFS 8.0

static pthread_mutex_t calibrations_lock = PTHREAD_MUTEX_INITIALIZER;
/* per worker count; protected by calibrations_lock */
static struct vr_granularity calibrations[MAX_CALIBRATED_WORKERS + 1];

static const struct vr_granularity uncalibrated = {
	.calibrated = false,
	.chunk_cost = 1,
	.parallel_cost = 0,
};

const char *vr_frame_mode_name(enum vr_frame_mode mode)
{
	switch (mode) {
	case VR_FRAME_SEQUENTIAL:
		return "seq";
	case VR_FRAME_INLINE:
		return "inline";
	case VR_FRAME_PARALLEL:
		return "par";
	}
	return "?";
}

void vr_granularity_derive(struct vr_granularity *g)
{
	double chunk = g->unit_ns > 0.0 ?
		CHUNK_HANDOFFS * g->handoff_ns / g->unit_ns : 1.0;
	chunk = ceil(chunk);
	g->chunk_cost = chunk < 1.0 ? 1 : chunk > 16.0 * VR_TASK_MAX_COST ?
		16 * VR_TASK_MAX_COST : (uint32_t)chunk;
	double cost = (double)UINT32_MAX; /* parallel saved nothing */
	if (g->gain_ns_per_unit > 0.0) {
		cost = ceil(g->frame_overhead_ns / g->gain_ns_per_unit);
	}
	/* whatever the workers save: a frame that would hold the caller's
	 * thread longer than VR_INLINE_BUDGET_NS goes to them */
	if (g->unit_ns > 0.0) {
		double budget = ceil(VR_INLINE_BUDGET_NS / g->unit_ns);
		cost = budget < cost ? budget : cost;
	}
	g->parallel_cost = !(cost > 0.0) ? 0 : cost >= (double)UINT32_MAX ?
		UINT32_MAX : (uint32_t)cost;
}

void vr_granularity_refresh(struct vr_renderer *renderer)
{
	int workers = vr_renderer_workers(renderer);
	renderer->granularity = uncalibrated;
	if (workers < 0 || workers > MAX_CALIBRATED_WORKERS) {
		return;
	}
	pthread_mutex_lock(&calibrations_lock);
	if (calibrations[workers].calibrated) {
		renderer->granularity = calibrations[workers];
	}
	pthread_mutex_unlock(&calibrations_lock);
}

/* ---- the figures kept between runs ------------------------------------------ */

#define CACHE_NAME "granularity.txt"
#define CACHE_MAX_LINES 64

#if defined(__SANITIZE_ADDRESS__)
#define BUILD_TAG "asan"
#elif defined(__SANITIZE_THREAD__)
#define BUILD_TAG "tsan"
#else
#define BUILD_TAG "plain"
#endif

/* What the figures hold for: the device and its driver (the pipeline
 * cache's UUID), the worker count, the cores online and the build (a
 * sanitizer's build is slower); no spaces. */
static void cache_key(struct vr_renderer *renderer, char *key, size_t size)
{
	VkPhysicalDeviceProperties props;
	vkGetPhysicalDeviceProperties(renderer->phdev, &props);
	char uuid[2 * VK_UUID_SIZE + 1];
	for (unsigned i = 0; i < VK_UUID_SIZE; i++) {
		snprintf(uuid + 2 * i, 3, "%02x", props.pipelineCacheUUID[i]);
	}
	snprintf(key, size, "%08x:%08x:%s:w%d:c%ld:%s", props.vendorID,
		props.deviceID, uuid, vr_renderer_workers(renderer),
		sysconf(_SC_NPROCESSORS_ONLN), BUILD_TAG);
}

#define CACHE_MAX_VALUES 4

/* The cache file's text, NUL-terminated (malloc'd); NULL: none. */
static char *cache_text(struct vr_renderer *renderer)
{
	size_t size = 0;
	char *data = vr_cache_read(renderer, CACHE_NAME, &size);
	char *text = data != NULL ? realloc(data, size + 1) : NULL;
	if (text == NULL) {
		free(data);
		return NULL;
	}
	text[size] = '\0';
	return text;
}

/* A line "KEY V1 .. Vn": its key and how many numbers follow (at most
 * CACHE_MAX_VALUES); 0 when it is not one. */
static int cache_line_parse(const char *line, char key[160],
		double v[CACHE_MAX_VALUES])
{
	int consumed = 0;
	if (sscanf(line, "%159s%n", key, &consumed) != 1) {
		return 0;
	}
	const char *p = line + consumed;
	int n = 0;
	while (n < CACHE_MAX_VALUES && sscanf(p, "%lf%n", &v[n], &consumed) ==
			1 && isfinite(v[n])) {
		p += consumed;
		n++;
	}
	return n;
}

/* The n figures of key's line; false when there is none. */
static bool cache_get(struct vr_renderer *renderer, const char *key,
		double *values, int n)
{
	char *text = cache_text(renderer);
	bool found = false;
	char *save = NULL;
	for (char *line = text != NULL ? strtok_r(text, "\n", &save) : NULL;
			line != NULL && !found; line = strtok_r(NULL, "\n", &save)) {
		char k[160];
		double v[CACHE_MAX_VALUES];
		if (cache_line_parse(line, k, v) == n && strcmp(k, key) == 0) {
			memcpy(values, v, (size_t)n * sizeof(double));
			found = true;
		}
	}
	free(text);
	return found;
}

/* key's line becomes these n figures; other keys' well-formed lines stay
 * (the newest first, at most CACHE_MAX_LINES). */
static void cache_put(struct vr_renderer *renderer, const char *key,
		const double *values, int n)
{
	char *text = cache_text(renderer);
	char *out = NULL;
	size_t out_size = 0;
	FILE *f = open_memstream(&out, &out_size);
	if (f == NULL) {
		free(text);
		return;
	}
	fprintf(f, "%s", key);
	for (int i = 0; i < n; i++) {
		fprintf(f, " %.4f", values[i]);
	}
	fprintf(f, "\n");
	int lines = 1;
	char *save = NULL;
	for (char *line = text != NULL ? strtok_r(text, "\n", &save) : NULL;
			line != NULL && lines < CACHE_MAX_LINES;
			line = strtok_r(NULL, "\n", &save)) {
		char k[160];
		double v[CACHE_MAX_VALUES];
		if (cache_line_parse(line, k, v) == 0 || strcmp(k, key) == 0) {
			continue; /* garbled, or this key's old line */
		}
		fprintf(f, "%s\n", line);
		lines++;
	}
	free(text);
	if (fclose(f) == 0) {
		vr_cache_write(renderer, CACHE_NAME, out, out_size);
	}
	free(out);
}

/* Derive g's rule, keep it for the process's renderers of this worker
 * count and use it; returns the worker count. */
static int adopt(struct vr_renderer *renderer, struct vr_granularity *g)
{
	vr_granularity_derive(g);
	int workers = vr_renderer_workers(renderer);
	if (workers >= 0 && workers <= MAX_CALIBRATED_WORKERS) {
		pthread_mutex_lock(&calibrations_lock);
		calibrations[workers] = *g;
		pthread_mutex_unlock(&calibrations_lock);
	}
	renderer->granularity = *g;
	return workers;
}

bool vr_granularity_load(struct vr_renderer *renderer)
{
	char key[160];
	cache_key(renderer, key, sizeof(key));
	double v[4];
	if (!cache_get(renderer, key, v, 4) || !(v[0] > 0.0) ||
			!(v[1] > 0.0)) {
		return false;
	}
	struct vr_granularity g = {
		.calibrated = true,
		.handoff_ns = v[0],
		.unit_ns = v[1],
		.frame_overhead_ns = v[2],
		.gain_ns_per_unit = v[3],
	};
	int workers = adopt(renderer, &g);
	vr_log(VR_LOG_INFO, "granularity of %d workers from the cache: chunks "
		"of %u units, parallel from %u units", workers, g.chunk_cost,
		g.parallel_cost);
	return true;
}

void vr_granularity_save(struct vr_renderer *renderer)
{
	const struct vr_granularity *g = &renderer->granularity;
	if (!g->calibrated) {
		return;
	}
	char key[160];
	cache_key(renderer, key, sizeof(key));
	const double v[4] = { g->handoff_ns, g->unit_ns, g->frame_overhead_ns,
		g->gain_ns_per_unit };
	cache_put(renderer, key, v, 4);
}

void vr_renderer_get_granularity(const struct vr_renderer *renderer,
		struct vr_granularity *out)
{
	*out = renderer->granularity;
}

void vr_renderer_set_granularity(struct vr_renderer *renderer,
		const struct vr_granularity *granularity)
{
	vr_frame_reap(renderer, true); /* the frame in flight reads it */
	renderer->granularity = *granularity;
}

/* ---- 1. a handoff ----------------------------------------------------------- */

struct echo {
	struct vr_result_pool there, back;
};

static void *echo_main(void *data)
{
	struct echo *echo = data;
	pthread_setname_np(pthread_self(), "vr-calibrate");
	struct vr_result result;
	do {
		vr_result_pool_pop(&echo->there, &result);
		vr_result_pool_push(&echo->back, &result);
	} while (result.type != VR_RESULT_JOB_END);
	return NULL;
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), compare_double);
	return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static bool measure_handoff(double *handoff_ns)
{
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
			.type = i + 1 < HANDOFF_ROUNDS ? VR_RESULT_TASK :
				VR_RESULT_JOB_END,
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

/* ---- 2. and 3. frames -------------------------------------------------------- */

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
static struct vr_display_list *calib_list(struct vr_image *image, int card)
{
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
	struct vr_font font = { .family = "sans-serif", .size = 9,
		.weight = 400 };
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
		vr_canvas_clip_rrect(c, (struct vr_rectf){ 9, y + 4, 16, 16 },
			avatar);
		vr_canvas_draw_image(c, image, NULL,
			(struct vr_rectf){ 9, y + 4, 16, 16 }, 1.0f);
		vr_canvas_restore(c);
		char text[64];
		snprintf(text, sizeof(text), "Row %d of card %d: lorem ipsum "
			"dolor sit amet, 12:%02d", row, card, (row * 7 + card) % 60);
		vr_canvas_draw_text(c, 30, y + 10, text, &font,
			(struct vr_color){ 0.1f, 0.1f, 0.1f, 1.0f });
		vr_canvas_draw_line(c, 30, y + 21, 118, y + 21, &stroke);
	}
	return vr_canvas_finish(c);
}

static void calib_scene_finish(struct calib_scene *scene)
{
	for (int i = 0; i < LARGE_NODES; i++) {
		vr_display_list_unref(scene->lists[i]);
	}
	vr_tree_destroy(scene->tree);
	vr_image_unref(scene->argb);
	vr_target_destroy(scene->target);
}

static bool calib_scene_init(struct calib_scene *scene,
		struct vr_renderer *renderer)
{
	*scene = (struct calib_scene){ 0 };
	scene->tree = vr_tree_create();
	scene->target = vr_target_create(renderer, CALIB_SIZE, CALIB_SIZE);
	scene->argb = vr_image_create(CALIB_IMAGE, CALIB_IMAGE,
		VR_FORMAT_XRGB8888);
	if (scene->tree == NULL || scene->target == NULL ||
			scene->argb == NULL) {
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
		struct vr_mat m = { .a = CALIB_SCALE, .d = CALIB_SCALE,
			.tx = (float)(i % 4) * 128.0f * CALIB_SCALE,
			.ty = (float)(i / 4) * 170.0f * CALIB_SCALE };
		vr_node_set_transform(scene->nodes[i], &m);
	}
	return true;
}

/* One full redraw of the first `nodes` nodes; the CPU frame (entered ->
 * submitted), the estimated cost and the execution time. */
static bool calib_frame(struct vr_renderer *renderer,
		struct calib_scene *scene, int nodes, double *cpu_ns,
		double *cost, double *execute_ns)
{
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

bool vr_renderer_calibrate(struct vr_renderer *renderer)
{
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
	struct vr_granularity inline_only = uncalibrated;
	inline_only.parallel_cost = UINT32_MAX;
	struct vr_granularity handed = uncalibrated;
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
			vr_renderer_set_granularity(renderer, parallel ? &handed :
				&inline_only);
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
	vr_log(VR_LOG_DEBUG, "calibration: %.0f units: inline %.0f us, "
		"parallel %.0f us; %.0f units: inline %.0f us, parallel %.0f us",
		cost[SMALL], median(inl[SMALL], FRAME_ROUNDS) / 1e3,
		median(par[SMALL], FRAME_ROUNDS) / 1e3, cost[LARGE],
		median(inl[LARGE], FRAME_ROUNDS) / 1e3,
		median(par[LARGE], FRAME_ROUNDS) / 1e3);
	g.gain_ns_per_unit = (diff[SMALL] - diff[LARGE]) /
		(cost[LARGE] - cost[SMALL]);
	g.frame_overhead_ns = diff[SMALL] + g.gain_ns_per_unit * cost[SMALL];
	int workers = adopt(renderer, &g);
	vr_log(VR_LOG_INFO, "calibrated %d workers in %.0f ms: handoff %.1f us, "
		"unit %.0f ns, parallel frame overhead %.0f us, gain %.0f ns/unit: "
		"chunks of %u units, parallel from %u units", workers,
		(double)(vr_now_ns() - start) / 1e6, g.handoff_ns / 1e3, g.unit_ns,
		g.frame_overhead_ns / 1e3, g.gain_ns_per_unit, g.chunk_cost,
		g.parallel_cost);
	return true;
}

/* ---- which backend (vr_backends_measure) ---------------------------------- */

/* The calibration's cards tiled over width x height: lists shared, one
 * node per card. */
struct measure_scene {
	struct calib_scene cards; /* its lists and image; its tree unused */
	struct vr_tree *tree;
};

static bool measure_scene_init(struct measure_scene *scene,
		struct vr_renderer *renderer, int32_t width, int32_t height)
{
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
		double *vulkan_ns, double *cpu_ns)
{
	if (rounds < 1 || width < 1 || height < 1) {
		return false;
	}
	char key[200];
	cache_key(vulkan, key, sizeof(key));
	size_t len = strlen(key);
	snprintf(key + len, sizeof(key) - len, ":backends:%dx%d:cpu%d", width,
		height, vr_cpu_renderer_workers(cpu));
	double cached[2];
	if (cache_get(vulkan, key, cached, 2) && cached[0] > 0.0 &&
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
	pixman_image_t *buffer = pixman_image_create_bits(PIXMAN_x8r8g8b8,
		width, height, NULL, width * 4);
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
				ok = vr_cpu_render(cpu, scene.tree, image, &view, clear,
					NULL);
				pixman_image_composite32(PIXMAN_OP_SRC, image, NULL, buffer,
					0, 0, 0, 0, 0, 0, width, height);
			} else {
				struct vr_render_job job = {
					.target = target,
					.view = view,
					.clear = clear,
				};
				ok = vr_render(vulkan, scene.tree, &job, 1);
			}
			if (r >= 0) {
				times[(use_cpu ? rounds : 0) + r] =
					(double)(vr_now_ns() - t0);
			}
		}
	}
	if (ok) {
		*vulkan_ns = median(times, (size_t)rounds);
		*cpu_ns = median(times + rounds, (size_t)rounds);
		const double v[2] = { *vulkan_ns, *cpu_ns };
		cache_put(vulkan, key, v, 2);
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
