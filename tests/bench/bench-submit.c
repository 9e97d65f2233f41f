/*
 * How long vr_render_submit keeps the caller's (main) thread, per frame,
 * on our JSON scenes: the part of a frame the compositor's event loop
 * waits for. Not a registered benchmark; run it by hand:
 *
 *   build/tests/bench/bench-submit [--frames N] [--sequential]
 *       [--textures DIR] SCENE.json...
 *
 * Per scene: every frame animates the scene, updates the tree, submits a
 * full redraw of every output (timed: the main-thread time), then waits
 * for the frame (timed separately: submit + wait). Prints the median and
 * 90th percentile of both over the frames after two warm-up frames.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vitrail/renderer.h>
#include "scene.h"
#include "scene_json.h"

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static double pct_ms(uint64_t *v, size_t n, double p) {
	qsort(v, n, sizeof(*v), cmp_u64);
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);
	return (double)v[i] / 1e6;
}

static bool run_scene(const char *path, const char *textures, int frames,
		bool sequential) {
	struct bench_scene *scene = scene_json_load(path, textures);
	if (scene == NULL) {
		return false;
	}
	struct vr_tree *tree = bench_scene_realise(scene);
	struct vr_renderer_options opts = { .sequential = sequential };
	struct vr_renderer *renderer =
			tree != NULL ? vr_renderer_create(&opts) : NULL;
	if (renderer == NULL) {
		if (tree != NULL) {
			bench_scene_release(scene, tree);
		}
		bench_scene_destroy(scene);
		return false;
	}
	vr_renderer_warm_pipelines(renderer);
	struct vr_target *targets[BENCH_MAX_OUTPUTS];
	struct vr_render_job jobs[BENCH_MAX_OUTPUTS];
	for (size_t i = 0; i < scene->noutputs; i++) {
		targets[i] = vr_target_create(renderer, scene->outputs[i].width,
				scene->outputs[i].height);
	}
	uint64_t *submit = calloc((size_t)frames, sizeof(*submit));
	uint64_t *full = calloc((size_t)frames, sizeof(*full));
	int measured = 0;
	bool ok = submit != NULL && full != NULL;
	for (int f = 0; ok && f < frames + 2; f++) {
		bench_scene_animate(scene, (uint32_t)f);
		vr_tree_update(tree, NULL);
		for (size_t i = 0; i < scene->noutputs; i++) {
			jobs[i] = (struct vr_render_job){
				.target = targets[i],
				.clear = scene->clear,
			};
			vr_mat_identity(&jobs[i].view);
			vr_mat_translate(&jobs[i].view, (float)-scene->outputs[i].x,
					(float)-scene->outputs[i].y);
		}
		uint64_t t0 = now_ns();
		uint64_t id = vr_render_submit(renderer, tree, jobs, scene->noutputs);
		uint64_t t1 = now_ns();
		ok = id != 0 && vr_frame_wait(renderer, id, UINT64_MAX);
		uint64_t t2 = now_ns();
		if (f >= 2) {
			submit[measured] = t1 - t0;
			full[measured] = t2 - t0;
			measured++;
		}
	}
	if (ok && measured > 0) {
		const char *name = strrchr(path, '/');
		printf("%-28s %-10s submit median %6.2f ms p90 %6.2f ms | "
			   "submit+wait median %6.2f ms p90 %6.2f ms\n",
				name != NULL ? name + 1 : path,
				sequential ? "sequential" : "parallel",
				pct_ms(submit, (size_t)measured, 0.5),
				pct_ms(submit, (size_t)measured, 0.9),
				pct_ms(full, (size_t)measured, 0.5),
				pct_ms(full, (size_t)measured, 0.9));
	}
	free(submit);
	free(full);
	for (size_t i = 0; i < scene->noutputs; i++) {
		vr_target_destroy(targets[i]);
	}
	vr_renderer_destroy(renderer);
	bench_scene_release(scene, tree);
	bench_scene_destroy(scene);
	return ok;
}

int main(int argc, char **argv) {
	int frames = 30;
	bool sequential = false;
	const char *textures = NULL;
	int status = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
			frames = atoi(argv[++i]);
			frames = frames > 0 ? frames : 1;
		} else if (strcmp(argv[i], "--sequential") == 0) {
			sequential = true;
		} else if (strcmp(argv[i], "--textures") == 0 && i + 1 < argc) {
			textures = argv[++i];
		} else if (!run_scene(argv[i], textures, frames, sequential)) {
			fprintf(stderr, "%s: failed\n", argv[i]);
			status = 1;
		}
	}
	return status;
}
