/*
 * The parallel mode's granularity (renderer.h, vr_granularity): how many
 * units of estimated work go into one handoff to the workers, and below
 * which estimate a frame is not handed over at all, both measured on this
 * machine rather than guessed.
 *
 * vr_renderer_calibrate (calibrate.c) measures, in order:
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
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "vk_private.h"

#define MAX_CALIBRATED_WORKERS 64
/* a handoff at most this share of its chunk's work */
#define CHUNK_HANDOFFS 8.0

static pthread_mutex_t calibrations_lock = PTHREAD_MUTEX_INITIALIZER;
/* per worker count; protected by calibrations_lock */
static struct vr_granularity calibrations[MAX_CALIBRATED_WORKERS + 1];

const struct vr_granularity vr_granularity_uncalibrated = {
	.calibrated = false,
	.chunk_cost = 1,
	.parallel_cost = 0,
};

const char *vr_frame_mode_name(enum vr_frame_mode mode) {
	switch (mode) {
	case VR_FRAME_SEQUENTIAL: return "seq";
	case VR_FRAME_INLINE: return "inline";
	case VR_FRAME_PARALLEL: return "par";
	}
	return "?";
}

void vr_granularity_derive(struct vr_granularity *g) {
	double chunk = g->unit_ns > 0.0 ?
			CHUNK_HANDOFFS * g->handoff_ns / g->unit_ns :
			1.0;
	chunk = ceil(chunk);
	g->chunk_cost = chunk < 1.0             ? 1 :
			chunk > 16.0 * VR_TASK_MAX_COST ? 16 * VR_TASK_MAX_COST :
											  (uint32_t)chunk;
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
	g->parallel_cost = !(cost > 0.0)   ? 0 :
			cost >= (double)UINT32_MAX ? UINT32_MAX :
										 (uint32_t)cost;
}

void vr_granularity_refresh(struct vr_renderer *renderer) {
	int workers = vr_renderer_workers(renderer);
	renderer->granularity = vr_granularity_uncalibrated;
	if (workers < 0 || workers > MAX_CALIBRATED_WORKERS) {
		return;
	}
	pthread_mutex_lock(&calibrations_lock);
	if (calibrations[workers].calibrated) {
		renderer->granularity = calibrations[workers];
	}
	pthread_mutex_unlock(&calibrations_lock);
}

/* ---- the figures kept between runs ------------------------------------------
 */

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
void vr_granularity_cache_key(struct vr_renderer *renderer, char *key,
		size_t size) {
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
static char *cache_text(struct vr_renderer *renderer) {
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
		double v[CACHE_MAX_VALUES]) {
	int consumed = 0;
	if (sscanf(line, "%159s%n", key, &consumed) != 1) {
		return 0;
	}
	const char *p = line + consumed;
	int n = 0;
	while (n < CACHE_MAX_VALUES && sscanf(p, "%lf%n", &v[n], &consumed) == 1 &&
			isfinite(v[n])) {
		p += consumed;
		n++;
	}
	return n;
}

/* The n figures of key's line; false when there is none. */
bool vr_granularity_cache_get(struct vr_renderer *renderer, const char *key,
		double *values, int n) {
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
void vr_granularity_cache_put(struct vr_renderer *renderer, const char *key,
		const double *values, int n) {
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
int vr_granularity_adopt(struct vr_renderer *renderer,
		struct vr_granularity *g) {
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

bool vr_granularity_load(struct vr_renderer *renderer) {
	char key[160];
	vr_granularity_cache_key(renderer, key, sizeof(key));
	double v[4];
	if (!vr_granularity_cache_get(renderer, key, v, 4) || !(v[0] > 0.0) ||
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
	int workers = vr_granularity_adopt(renderer, &g);
	vr_log(VR_LOG_INFO,
			"granularity of %d workers from the cache: chunks "
			"of %u units, parallel from %u units",
			workers, g.chunk_cost, g.parallel_cost);
	return true;
}

void vr_granularity_save(struct vr_renderer *renderer) {
	const struct vr_granularity *g = &renderer->granularity;
	if (!g->calibrated) {
		return;
	}
	char key[160];
	vr_granularity_cache_key(renderer, key, sizeof(key));
	const double v[4] = { g->handoff_ns, g->unit_ns, g->frame_overhead_ns,
		g->gain_ns_per_unit };
	vr_granularity_cache_put(renderer, key, v, 4);
}

void vr_renderer_get_granularity(const struct vr_renderer *renderer,
		struct vr_granularity *out) {
	*out = renderer->granularity;
}

void vr_renderer_set_granularity(struct vr_renderer *renderer,
		const struct vr_granularity *granularity) {
	vr_frame_reap(renderer, true); /* the frame in flight reads it */
	renderer->granularity = *granularity;
}
