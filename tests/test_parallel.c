/*
 * The parallel renderer against the sequential one: random trees (rects,
 * images, display lists of every canvas command, opacity, clips (rounded ones
 * nested and turned too), transforms, several outputs, partial damage) rendered
 * with 1..4 workers and random per-task delays must give the same bytes as the
 * sequential mode (DESIGN.md's first invariant).
 *
 * VITRAIL_TEST_TREES overrides the number of trees (default 500); a
 * failing tree writes <name>-{sequential,parallel}.png into
 * $VITRAIL_TEST_OUT and names its seed.
 */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vitrail/canvas.h>
#include <vitrail/renderer.h>
#include "vulkan_test.h"
#include "vk_private.h"
#include "random_tree.h"

#define DEFAULT_TREES 500
#define MAX_WORKERS 4
#define TARGET_W 96
#define TARGET_H 64
/* per-task delay in parallel runs, microseconds */
#define MAX_DELAY_US 300

/* ---- random trees (random_tree.c) ------------------------------------------
 */

/* Trees for the 96x64 target, every canvas command kind. */
static const struct random_tree_options tree_options = {
	.scale = 1,
	.lists = 0.25f,
	.max_commands = 6,
	.cubic = true,
	.bold = true,
};

struct scene {
	struct random_tree rt;
	size_t njobs;
	struct vr_mat views[2];
	int32_t sizes[2][2];
	struct vr_color clears[2];
	/* the second pass: a change and the damage it makes */
	bool damage_pass;
	struct rng pass_rng;
};

/* The same seed builds the same scene. */
static void scene_build(struct scene *scene, uint64_t seed) {
	struct rng rng = { seed * 0x9e3779b97f4a7c15u + 7 };
	*scene = (struct scene){ 0 };
	random_tree_build(&scene->rt, &tree_options, &rng);
	/* one or two outputs; the second shows part of the root, maybe
	 * scaled (HiDPI) */
	scene->njobs = rng_chance(&rng, 0.3f) ? 2 : 1;
	for (size_t j = 0; j < scene->njobs; j++) {
		vr_mat_identity(&scene->views[j]);
		scene->sizes[j][0] = TARGET_W;
		scene->sizes[j][1] = TARGET_H;
		scene->clears[j] = (struct vr_color){ rng_float(&rng, 0, 1), 0.2f, 0.3f,
			rng_chance(&rng, 0.5f) ? 1.0f : 0.0f };
	}
	if (scene->njobs == 2) {
		static const float scales[] = { 1.0f, 1.5f, 2.0f };
		float s = scales[rng_below(&rng, 3)];
		struct vr_mat scaled = { s, 0, 0, s, -rng_float(&rng, 0, 40),
			-rng_float(&rng, 0, 30) };
		/* turned and flipped as an output transform turns its 64x48
		 * buffer (the eight wl_output transforms): (a, b, c, d) of the
		 * turn, then where it puts the origin */
		static const float turns[8][4] = {
			{ 1, 0, 0, 1 },
			{ 0, -1, 1, 0 },
			{ -1, 0, 0, -1 },
			{ 0, 1, -1, 0 },
			{ -1, 0, 0, 1 },
			{ 0, 1, 1, 0 },
			{ 1, 0, 0, -1 },
			{ 0, -1, -1, 0 },
		};
		const float *t = turns[rng_below(&rng, 8)];
		struct vr_mat turn = { t[0], t[1], t[2], t[3], 0, 0 };
		/* the turned 64x48 box back onto the target */
		float ox, oy, cx, cy;
		vr_mat_apply(&turn, 0, 0, &ox, &oy);
		vr_mat_apply(&turn, t[1] != 0 ? 48 : 64, t[1] != 0 ? 64 : 48, &cx, &cy);
		turn.tx = -fminf(ox, cx);
		turn.ty = -fminf(oy, cy);
		vr_mat_multiply(&scene->views[1], &turn, &scaled);
		scene->sizes[1][0] = 64;
		scene->sizes[1][1] = 48;
	}
	scene->damage_pass = rng_chance(&rng, 0.3f);
	scene->pass_rng = rng;
}

static void scene_destroy(struct scene *scene) {
	random_tree_destroy(&scene->rt);
}

/* ---- rendering
 * --------------------------------------------------------------- */

/* Bytes of all passes' pixels of one scene. */
static size_t output_size(const struct scene *scene) {
	size_t size = 0;
	for (size_t j = 0; j < scene->njobs; j++) {
		size += (size_t)scene->sizes[j][0] * (size_t)scene->sizes[j][1] * 4;
	}
	return size * (scene->damage_pass ? 2 : 1);
}

struct totals {
	uint64_t tasks, ooo_commits, commit_stalls, uploads, chunks;
	uint64_t layers; /* group opacity's */
	uint64_t reused_nodes; /* preparation's reuse (prepare.c) */
	unsigned frames, inline_frames, parallel_frames;
	/* every frame's estimated cost, when costs is not NULL */
	uint32_t *costs;
	size_t ncosts, costs_cap;
};

static int compare_u32(const void *a, const void *b) {
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static void render_pass(struct vr_renderer *renderer, struct scene *scene,
		struct vr_target **targets, const pixman_region32_t *damage,
		uint8_t **out, struct totals *totals) {
	struct vr_render_job jobs[2];
	for (size_t j = 0; j < scene->njobs; j++) {
		jobs[j] = (struct vr_render_job){
			.target = targets[j],
			.view = scene->views[j],
			.damage = damage,
			.clear = scene->clears[j],
		};
	}
	ck_assert(vr_render(renderer, scene->rt.tree, jobs, scene->njobs));
	for (size_t j = 0; j < scene->njobs; j++) {
		int32_t w = scene->sizes[j][0], h = scene->sizes[j][1];
		vr_target_read(targets[j], NULL, *out, w * 4);
		*out += (size_t)w * (size_t)h * 4;
		/* every job carries the frame's figures */
		ck_assert_uint_eq(jobs[j].timing.tasks, jobs[0].timing.tasks);
		ck_assert_uint_eq(jobs[j].timing.ooo_commits,
				jobs[0].timing.ooo_commits);
		totals->uploads += jobs[j].timing.uploads;
	}
	totals->tasks += jobs[0].timing.tasks;
	totals->ooo_commits += jobs[0].timing.ooo_commits;
	totals->commit_stalls += jobs[0].timing.commit_stalls;
	totals->layers += jobs[0].timing.layers;
	totals->reused_nodes += jobs[0].timing.reused_nodes;
	totals->frames++;
	const struct vr_frame_timing *t = &jobs[0].timing;
	if (totals->costs != NULL && totals->ncosts < totals->costs_cap) {
		totals->costs[totals->ncosts++] = t->cost;
	}
	for (size_t j = 0; j < scene->njobs; j++) {
		ck_assert_int_eq(jobs[j].timing.mode, t->mode);
		ck_assert_uint_eq(jobs[j].timing.chunks, t->chunks);
		ck_assert_uint_eq(jobs[j].timing.cost, t->cost);
		ck_assert_uint_eq(jobs[j].timing.layers, t->layers);
		ck_assert_uint_eq(jobs[j].timing.reused_nodes, t->reused_nodes);
	}
	if (vr_renderer_is_sequential(renderer)) {
		ck_assert_int_eq(t->mode, VR_FRAME_SEQUENTIAL);
		ck_assert_uint_eq(t->tasks, 0);
		ck_assert_uint_eq(t->chunks, 0);
		ck_assert_uint_eq(t->execute_critical_ns, 0);
		return;
	}
	/* the decision, from the injected figures: below parallel_cost the
	 * frame runs on this thread, without a handoff */
	struct vr_granularity g;
	vr_renderer_get_granularity(renderer, &g);
	if (t->cost < g.parallel_cost) {
		ck_assert_int_eq(t->mode, VR_FRAME_INLINE);
		ck_assert_uint_eq(t->chunks, 0);
		ck_assert_uint_eq(t->tasks, 0);
		totals->inline_frames++;
		return;
	}
	ck_assert_int_eq(t->mode, VR_FRAME_PARALLEL);
	totals->parallel_frames++;
	totals->chunks += t->chunks;
	ck_assert_uint_le(t->execute_critical_ns, t->execute_ns);
	ck_assert_uint_le(t->chunks, t->tasks);
	if (g.chunk_cost <= 1) {
		ck_assert_uint_eq(t->chunks, t->tasks); /* a task a chunk */
	} else if (t->tasks > 0) {
		ck_assert_uint_gt(t->chunks, 0);
	}
}

/* Render a scene (fresh targets, full redraw, then maybe a change and
 * a partial redraw) into out. */
static void render_scene(struct vr_renderer *renderer, uint64_t seed,
		uint8_t **out, size_t *size, struct totals *totals) {
	struct scene scene;
	scene_build(&scene, seed);
	*size = output_size(&scene);
	*out = malloc(*size);
	uint8_t *cursor = *out;
	struct vr_target *targets[2] = { NULL, NULL };
	for (size_t j = 0; j < scene.njobs; j++) {
		targets[j] = vr_target_create(renderer, scene.sizes[j][0],
				scene.sizes[j][1]);
		ck_assert_ptr_nonnull(targets[j]);
	}
	vr_tree_update(scene.rt.tree, NULL);
	render_pass(renderer, &scene, targets, NULL, &cursor, totals);

	if (scene.damage_pass) {
		struct rng *rng = &scene.pass_rng;
		/* move a node, recolour another, write into an image: the
		 * damage of the change, plus a random rectangle */
		struct vr_node *moved =
				scene.rt.nodes[rng_below(rng, (uint32_t)scene.rt.nnodes)];
		random_transform(&scene.rt, rng, moved);
		struct vr_image *image = scene.rt.images[0];
		int32_t iw = vr_image_width(image), ih = vr_image_height(image);
		uint32_t *fresh = malloc((size_t)iw * (size_t)ih * 4);
		for (int32_t i = 0; i < iw * ih; i++) {
			fresh[i] = 0xff000000u | rng_next(rng);
		}
		pixman_region32_t written;
		pixman_region32_init_rect(&written, 0, 0,
				1 + rng_below(rng, (uint32_t)iw),
				1 + rng_below(rng, (uint32_t)ih));
		vr_image_write(image, fresh, iw * 4, &written);
		free(fresh);
		pixman_region32_fini(&written);
		pixman_region32_t damage;
		pixman_region32_init(&damage);
		vr_tree_update(scene.rt.tree, &damage);
		pixman_region32_union_rect(&damage, &damage,
				(int)rng_below(rng, TARGET_W), (int)rng_below(rng, TARGET_H),
				1 + rng_below(rng, 40), 1 + rng_below(rng, 30));
		render_pass(renderer, &scene, targets, &damage, &cursor, totals);
		pixman_region32_fini(&damage);
	}
	ck_assert_ptr_eq(cursor, *out + *size);
	for (size_t j = 0; j < scene.njobs; j++) {
		vr_target_destroy(targets[j]);
	}
	scene_destroy(&scene);
}

/* Name the first target (pass, job) that differs, how much, and write
 * both renderings of it. */
static void report_failure(uint64_t seed, const uint8_t *expected,
		const uint8_t *actual, int workers) {
	struct scene scene;
	scene_build(&scene, seed);
	const char *dir = getenv("VITRAIL_TEST_OUT");
	size_t offset = 0;
	for (int pass = 0; pass < (scene.damage_pass ? 2 : 1); pass++) {
		for (size_t j = 0; j < scene.njobs; j++) {
			int32_t w = scene.sizes[j][0], h = scene.sizes[j][1];
			size_t size = (size_t)w * (size_t)h * 4;
			int max;
			size_t bad = vr_pixels_compare(expected + offset, w * 4,
					actual + offset, w * 4, w, h, 0, &max);
			if (bad > 0) {
				fprintf(stderr,
						"tree %llu, %d workers: pass %d, job %zu: "
						"%zu pixels differ (max %d)\n",
						(unsigned long long)seed, workers, pass, j, bad, max);
				char path[512];
				snprintf(path, sizeof(path),
						"%s/parallel-%llu-%d-%zu-"
						"sequential.png",
						dir != NULL ? dir : "/tmp", (unsigned long long)seed,
						pass, j);
				vr_png_write(path, expected + offset, w, h, w * 4, false);
				snprintf(path, sizeof(path), "%s/parallel-%llu-%d-%zu-w%d.png",
						dir != NULL ? dir : "/tmp", (unsigned long long)seed,
						pass, j, workers);
				vr_png_write(path, actual + offset, w, h, w * 4, false);
			}
			offset += size;
		}
	}
	scene_destroy(&scene);
}

START_TEST(test_parallel_matches_sequential) {
	vr_set_log_func(test_log);
	log_errors = 0;
	const char *env = getenv("VITRAIL_TEST_TREES");
	size_t ntrees = env != NULL ? strtoul(env, NULL, 10) : DEFAULT_TREES;
	ck_assert_uint_gt(ntrees, 0);
	/* the validation layer, when installed, also checks that no Vulkan
	 * object needing external synchronisation is used by two threads */
	bool validation = getenv("VITRAIL_TEST_NO_VALIDATION") == NULL;
	struct vr_renderer *seq = vr_renderer_create(
			&(struct vr_renderer_options){ .sequential = true,
					.validation = validation });
	struct vr_renderer *par =
			vr_renderer_create(&(struct vr_renderer_options){ .workers = 1,
					.validation = validation });
	ck_assert_ptr_nonnull(seq);
	ck_assert_ptr_nonnull(par);
	ck_assert(vr_renderer_is_sequential(seq));
	ck_assert(!vr_renderer_is_sequential(par));

	/* a first frame each: the white texture of solid colours is uploaded
	 * once per renderer, outside the counts compared below */
	struct totals warm_up = { 0 };
	for (int i = 0; i < 2; i++) {
		uint8_t *pixels;
		size_t size;
		render_scene(i == 0 ? seq : par, 0, &pixels, &size, &warm_up);
		free(pixels);
	}

	uint8_t **expected = calloc(ntrees, sizeof(*expected));
	size_t *sizes = calloc(ntrees, sizeof(*sizes));
	struct totals seq_totals = { .costs_cap = 2 * ntrees };
	seq_totals.costs = calloc(seq_totals.costs_cap, sizeof(uint32_t));
	ck_assert_ptr_nonnull(seq_totals.costs);
	for (size_t t = 0; t < ntrees; t++) {
		/* Glyphs new to the (process-wide) atlas are drawn from a
		 * temporary image in the frame that rasterises them, from an
		 * atlas page afterwards, and bilinear sampling can differ by one
		 * in between: draw each scene once before the reference so both
		 * modes find its glyphs in the pages. (engine_glyphs.c) */
		uint8_t *warm;
		size_t size;
		struct totals ignored = { 0 };
		render_scene(seq, t, &warm, &size, &ignored);
		free(warm);
		render_scene(seq, t, &expected[t], &sizes[t], &seq_totals);
	}
	ck_assert_uint_gt(seq_totals.uploads, 0);
	ck_assert_uint_eq(seq_totals.tasks, 0); /* sequential: no pools */
	/* translucent nodes over overlapping draws: group opacity's layers
	 * (nested ones too) are among what both modes must draw alike */
	ck_assert_uint_gt(seq_totals.layers, 0);
	/* the damage passes replay the unchanged nodes' primitives (unless
	 * VITRAIL_PREPARE_REUSE=0) */
	const char *reuse = getenv("VITRAIL_PREPARE_REUSE");
	if (reuse == NULL || strcmp(reuse, "0") != 0) {
		ck_assert_uint_gt(seq_totals.reused_nodes, 0);
	}
	fprintf(stderr,
			"sequential: %u frames, %llu group-opacity layers, "
			"%llu nodes reused\n",
			seq_totals.frames, (unsigned long long)seq_totals.layers,
			(unsigned long long)seq_totals.reused_nodes);

	/* the median estimated cost of a frame: the threshold of the
	 * configurations below that run some frames inline */
	qsort(seq_totals.costs, seq_totals.ncosts, sizeof(uint32_t), compare_u32);
	uint32_t median_cost = seq_totals.costs[seq_totals.ncosts / 2];
	free(seq_totals.costs);
	ck_assert_uint_gt(median_cost, 0);
	uint64_t steady_uploads = 0;
	for (int w = 1; w <= MAX_WORKERS; w++) {
		vr_renderer_set_workers(par, w);
		ck_assert_int_eq(vr_renderer_workers(par), w);
		/* odd counts without delays, even ones with */
		vr_renderer_set_test_delay(par, w % 2 == 0 ? MAX_DELAY_US : 0,
				(uint32_t)w);
		/* granularity (injected, as calibration would set it): w 1
		 * chunks, w 2 a task per handoff, w 3 and 4 the frames cheaper
		 * than the median inline, the others a task per handoff (w 3) or
		 * in chunks (w 4) */
		const struct vr_granularity grains[MAX_WORKERS] = {
			{ .chunk_cost = 24, .parallel_cost = 0 },
			{ .chunk_cost = 1, .parallel_cost = 0 },
			{ .chunk_cost = 1, .parallel_cost = median_cost },
			{ .chunk_cost = 16, .parallel_cost = median_cost },
		};
		vr_renderer_set_granularity(par, &grains[w - 1]);
		struct totals totals = { 0 };
		uint64_t t0 = vr_now_ns();
		for (size_t t = 0; t < ntrees; t++) {
			uint8_t *actual;
			size_t size;
			render_scene(par, t, &actual, &size, &totals);
			ck_assert_uint_eq(size, sizes[t]);
			if (memcmp(actual, expected[t], size) != 0) {
				report_failure(t, expected[t], actual, w);
				ck_abort_msg("tree %zu (seed %zu) with %d workers differs "
							 "from the sequential rendering",
						t, t, w);
			}
			free(actual);
		}
		fprintf(stderr,
				"%d worker(s)%s, chunks of %u, inline below %u: "
				"%zu trees, %u frames (%u inline), %llu tasks in %llu chunks, "
				"%llu out-of-order commits, %llu commit stalls, %.1f s\n",
				w, w % 2 == 0 ? " with delays" : "", grains[w - 1].chunk_cost,
				grains[w - 1].parallel_cost, ntrees, totals.frames,
				totals.inline_frames, (unsigned long long)totals.tasks,
				(unsigned long long)totals.chunks,
				(unsigned long long)totals.ooo_commits,
				(unsigned long long)totals.commit_stalls,
				(double)(vr_now_ns() - t0) / 1e9);
		ck_assert_uint_gt(totals.tasks, 0);
		ck_assert_uint_gt(totals.uploads, 0);
		ck_assert_uint_eq(totals.layers, seq_totals.layers);
		if (grains[w - 1].parallel_cost > 0) {
			/* both sides of the decision were taken */
			ck_assert_uint_gt(totals.inline_frames, 0);
			ck_assert_uint_gt(totals.parallel_frames, 0);
		} else {
			ck_assert_uint_eq(totals.inline_frames, 0);
		}
		if (grains[w - 1].chunk_cost > 1) {
			ck_assert_uint_lt(totals.chunks, totals.tasks);
		}
		/* the same uploads happen whatever the threads doing them (from
		 * the second round on: the first one also uploads the atlas
		 * pages, new to this renderer) */
		if (w == 2) {
			steady_uploads = totals.uploads;
		} else if (w > 2) {
			ck_assert_uint_eq(totals.uploads, steady_uploads);
		}
		if (w == 2) {
			/* random delays make later tasks finish first (with a task
			 * per handoff: with chunks and inline frames there may be
			 * too few handoffs for it to show every run) */
			ck_assert_uint_gt(totals.ooo_commits, 0);
		}
	}
	for (size_t t = 0; t < ntrees; t++) {
		free(expected[t]);
	}
	free(expected);
	free(sizes);
	vr_renderer_destroy(par);
	vr_renderer_destroy(seq);
	ck_assert_int_eq(log_errors, 0);
	vr_set_log_func(NULL);
}
END_TEST

/* ---- frames in flight
 * ----------------------------------------------------------- */

#define FLIGHT_BATCH 6
#define FLIGHT_TREES 24

/*
 * Submit FLIGHT_BATCH scenes without waiting, each into targets of its
 * own and (where the device imports host memory) page-aligned output
 * buffers; each scene's tree and images are destroyed right after its
 * submit (the frame's CPU part is done by then). Then wait and collect
 * every scene's pixels into outs[b] (malloc'd).
 */
static void flight_batch(struct vr_renderer *renderer, uint64_t first_seed,
		uint8_t **outs) {
	struct vr_target *targets[FLIGHT_BATCH][2] = { { NULL } };
	uint32_t *memory[FLIGHT_BATCH][2] = { { NULL } };
	struct vr_dst_buffer *dsts[FLIGHT_BATCH][2] = { { NULL } };
	int32_t sizes[FLIGHT_BATCH][2][2];
	size_t njobs[FLIGHT_BATCH];
	uint64_t ids[FLIGHT_BATCH];
	for (int b = 0; b < FLIGHT_BATCH; b++) {
		struct scene scene;
		scene_build(&scene, first_seed + (uint64_t)b);
		njobs[b] = scene.njobs;
		struct vr_render_job jobs[2];
		for (size_t j = 0; j < scene.njobs; j++) {
			int32_t w = scene.sizes[j][0], h = scene.sizes[j][1];
			sizes[b][j][0] = w;
			sizes[b][j][1] = h;
			targets[b][j] = vr_target_create(renderer, w, h);
			ck_assert_ptr_nonnull(targets[b][j]);
			size_t size = ((size_t)w * (size_t)h * 4 + 4095) / 4096 * 4096;
			memory[b][j] = aligned_alloc(4096, size);
			ck_assert_ptr_nonnull(memory[b][j]);
			memset(memory[b][j], 0xee, size);
			dsts[b][j] = vr_dst_buffer_import(renderer, memory[b][j], size, w,
					h, w * 4);
			jobs[j] = (struct vr_render_job){
				.target = targets[b][j],
				.view = scene.views[j],
				.clear = scene.clears[j],
				.dst = dsts[b][j],
			};
		}
		vr_tree_update(scene.rt.tree, NULL);
		ids[b] = vr_render_submit(renderer, scene.rt.tree, jobs, scene.njobs);
		ck_assert_uint_ne(ids[b], 0);
		ck_assert(b == 0 || ids[b] == ids[b - 1] + 1);
		scene_destroy(&scene);
	}
	ck_assert(vr_frame_wait(renderer, ids[FLIGHT_BATCH - 1], UINT64_MAX));
	for (int b = 0; b < FLIGHT_BATCH; b++) {
		ck_assert(vr_frame_poll(renderer, ids[b]));
		size_t total = 0;
		for (size_t j = 0; j < njobs[b]; j++) {
			total += (size_t)sizes[b][j][0] * (size_t)sizes[b][j][1] * 4;
		}
		uint8_t *cursor = outs[b] = malloc(total);
		for (size_t j = 0; j < njobs[b]; j++) {
			int32_t w = sizes[b][j][0], h = sizes[b][j][1];
			size_t size = (size_t)w * (size_t)h * 4;
			if (dsts[b][j] != NULL) {
				memcpy(cursor, memory[b][j], size);
			} else {
				vr_target_read(targets[b][j], NULL, cursor, w * 4);
			}
			cursor += size;
			vr_dst_buffer_destroy(dsts[b][j]);
			free(memory[b][j]);
			vr_target_destroy(targets[b][j]);
		}
	}
}

START_TEST(test_parallel_frames_in_flight) {
	vr_set_log_func(test_log);
	log_errors = 0;
	bool validation = getenv("VITRAIL_TEST_NO_VALIDATION") == NULL;
	struct vr_renderer *seq = vr_renderer_create(
			&(struct vr_renderer_options){ .sequential = true,
					.validation = validation });
	struct vr_renderer *par =
			vr_renderer_create(&(struct vr_renderer_options){ .workers = 2,
					.validation = validation });
	ck_assert_ptr_nonnull(seq);
	ck_assert_ptr_nonnull(par);
	vr_renderer_set_test_delay(par, MAX_DELAY_US, 3);
	/* glyphs in the atlas pages first (see test_parallel_matches_
	 * sequential), and the white texture of each renderer */
	for (uint64_t t = 1000; t < 1000 + FLIGHT_TREES; t++) {
		uint8_t *pixels;
		size_t size;
		struct totals ignored = { 0 };
		render_scene(seq, t, &pixels, &size, &ignored);
		free(pixels);
		render_scene(par, t, &pixels, &size, &ignored);
		free(pixels);
	}
	for (uint64_t t = 1000; t < 1000 + FLIGHT_TREES; t += FLIGHT_BATCH) {
		uint8_t *expected[FLIGHT_BATCH], *actual[FLIGHT_BATCH];
		flight_batch(seq, t, expected);
		flight_batch(par, t, actual);
		for (int b = 0; b < FLIGHT_BATCH; b++) {
			struct scene scene;
			scene_build(&scene, t + (uint64_t)b);
			size_t size = 0;
			for (size_t j = 0; j < scene.njobs; j++) {
				size += (size_t)scene.sizes[j][0] * (size_t)scene.sizes[j][1] *
						4;
			}
			scene_destroy(&scene);
			ck_assert_msg(memcmp(expected[b], actual[b], size) == 0,
					"tree %llu in flight: parallel differs from sequential",
					(unsigned long long)(t + (uint64_t)b));
			free(expected[b]);
			free(actual[b]);
		}
	}
	vr_renderer_destroy(par);
	vr_renderer_destroy(seq);
	ck_assert_int_eq(log_errors, 0);
	vr_set_log_func(NULL);
}
END_TEST

#define RECYCLE_FRAMES 200

/* Many frames with uploads, released images and shadows, never waited
 * for: what they hold is released as the GPU passes them, so memory
 * stays bounded. */
START_TEST(test_parallel_resources_recycled) {
	vr_set_log_func(test_log);
	log_errors = 0;
	struct vr_renderer *renderer = vr_renderer_create(&(
			struct vr_renderer_options){ .workers = 2,
			.sequential = _i == 1,
			.validation = getenv("VITRAIL_TEST_NO_VALIDATION") == NULL });
	ck_assert_ptr_nonnull(renderer);
	struct vr_tree *tree = vr_tree_create();
	struct vr_node *root = vr_tree_root(tree);
	struct vr_node *moving = vr_node_create(tree);
	vr_node_set_rect(moving, 20, 10, (struct vr_color){ 1, 0, 0, 1 });
	vr_node_set_parent(moving, root);
	struct vr_node *picture = vr_node_create(tree);
	vr_node_set_position(picture, 30, 10);
	vr_node_set_parent(picture, root);
	struct vr_node *shadow = vr_node_create(tree);
	vr_node_set_position(shadow, 4, 20);
	struct vr_canvas *c = vr_canvas_begin();
	vr_canvas_draw_shadow(c, (struct vr_rectf){ 4, 4, 30, 16 },
			(struct vr_radii){ 3, 3, 3, 3 }, 8,
			(struct vr_color){ 0, 0, 0, 0.5f });
	struct vr_display_list *list = vr_canvas_finish(c);
	vr_node_set_display_list(shadow, list);
	vr_display_list_unref(list);
	vr_node_set_parent(shadow, root);
	struct vr_target *target = vr_target_create(renderer, 96, 64);
	struct vr_render_job job = { .target = target };
	vr_mat_identity(&job.view);
	struct rng rng = { 17 };
	uint64_t last = 0;
	struct vr_resource_stats stats;
	pixman_region32_t damage;
	pixman_region32_init(&damage);
	for (int f = 0; f < RECYCLE_FRAMES; f++) {
		/* a new image each frame (an upload; the previous one released) */
		struct vr_image *image = random_image(&rng, 24);
		vr_node_set_image(picture, image, NULL, 24, 24, VR_TRANSFORM_NORMAL);
		vr_image_unref(image);
		vr_node_set_position(moving, (float)(f % 70), (float)(f % 50));
		vr_node_set_position(shadow, (float)(f % 40), 20);
		pixman_region32_clear(&damage);
		vr_tree_update(tree, &damage);
		job.damage = &damage;
		uint64_t id = vr_render_submit(renderer, tree, &job, 1);
		ck_assert_uint_eq(id, last + 1);
		last = id;
		vr_renderer_resource_stats(renderer, &stats);
		ck_assert_uint_le(stats.pending_slots, VR_FRAMES_IN_FLIGHT);
		ck_assert_uint_le(stats.garbage, VR_FRAMES_IN_FLIGHT + 1);
		ck_assert_uint_le(stats.textures, 8);
		ck_assert_uint_le(stats.scratch, 4 * (VR_FRAMES_IN_FLIGHT + 1));
	}
	pixman_region32_fini(&damage);
	/* images of their own or in the atlas (24x24 ones, drawn 1:1) */
	ck_assert_uint_ge(stats.textures_created + stats.atlas_placed,
			RECYCLE_FRAMES);
	ck_assert(vr_frame_wait(renderer, last, UINT64_MAX));
	vr_renderer_resource_stats(renderer, &stats);
	ck_assert_uint_eq(stats.pending_slots, 0);
	ck_assert_uint_eq(stats.garbage, 0);
	ck_assert_uint_eq(stats.held_buffers, 0);
	/* a frame sampled at its own time: the last one shows the tree */
	uint32_t *actual = malloc(96 * 64 * 4), *expected = calloc(96 * 64, 4);
	vr_target_read(target, NULL, actual, 96 * 4);
	pixman_image_t *dst =
			pixman_image_create_bits(PIXMAN_a8r8g8b8, 96, 64, expected, 96 * 4);
	vr_reference_render(tree, dst, &job.view, job.clear);
	pixman_image_unref(dst);
	int max;
	ck_assert_uint_eq(vr_pixels_compare(actual, 96 * 4, expected, 96 * 4, 96,
							  64, 4, &max),
			0);
	free(actual);
	free(expected);
	vr_target_destroy(target);
	vr_tree_destroy(tree);
	vr_renderer_destroy(renderer);
	ck_assert_int_eq(log_errors, 0);
	vr_set_log_func(NULL);
}
END_TEST

/* ---- a heavy frame
 * --------------------------------------------------------------- */

#define HEAVY_QUADS 2000
#define HEAVY_FRAMES 8

static int compare_u64(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

struct heavy_result {
	uint64_t cpu_ns, prepare_ns, execute_ns, critical_ns, commit_ns, gpu_ns;
	uint32_t tasks, ooo;
};

/* Median figures over a few frames of the whole 1920x1080 frame. */
static void heavy_run(struct vr_renderer *renderer, struct vr_tree *tree,
		uint32_t *pixels, struct heavy_result *result) {
	struct vr_target *target = vr_target_create(renderer, 1920, 1080);
	ck_assert_ptr_nonnull(target);
	struct vr_render_job job = { .target = target };
	vr_mat_identity(&job.view);
	ck_assert(vr_render(renderer, tree, &job, 1)); /* uploads, pipelines */
	uint64_t samples[6][HEAVY_FRAMES];
	for (int f = 0; f < HEAVY_FRAMES; f++) {
		ck_assert(vr_render(renderer, tree, &job, 1));
		const struct vr_frame_timing *t = &job.timing;
		/* CPU frame time: render call to submit, without the GPU */
		samples[0][f] = t->end_ns - t->start_ns - t->gpu_ns - t->readback_ns;
		samples[1][f] = t->prepare_ns;
		samples[2][f] = t->execute_ns;
		samples[3][f] = t->execute_critical_ns;
		samples[4][f] = t->commit_ns;
		samples[5][f] = t->gpu_ns;
	}
	for (int i = 0; i < 6; i++) {
		qsort(samples[i], HEAVY_FRAMES, sizeof(uint64_t), compare_u64);
	}
	*result = (struct heavy_result){
		.cpu_ns = samples[0][HEAVY_FRAMES / 2],
		.prepare_ns = samples[1][HEAVY_FRAMES / 2],
		.execute_ns = samples[2][HEAVY_FRAMES / 2],
		.critical_ns = samples[3][HEAVY_FRAMES / 2],
		.commit_ns = samples[4][HEAVY_FRAMES / 2],
		.gpu_ns = samples[5][HEAVY_FRAMES / 2],
		.tasks = job.timing.tasks,
		.ooo = job.timing.ooo_commits,
	};
	vr_target_read(target, NULL, pixels, 1920 * 4);
	vr_target_destroy(target);
}

/* 2000 quads (rects and images), or 2000 display-list primitives whose
 * execution costs more (strokes, paths, rounded rectangles, text). */
static struct vr_tree *heavy_tree(bool shapes, struct vr_image **images) {
	struct rng rng = { shapes ? 7 : 42 };
	struct vr_tree *tree = vr_tree_create();
	for (int i = 0; i < 4; i++) {
		images[i] = random_image(&rng, 24);
	}
	for (int i = 0; i < (shapes ? HEAVY_QUADS / 4 : HEAVY_QUADS); i++) {
		struct vr_node *node = vr_node_create(tree);
		vr_node_set_position(node, floorf(rng_float(&rng, -50, 1900)),
				floorf(rng_float(&rng, -50, 1060)));
		if (shapes) {
			/* four primitives per node */
			struct vr_canvas *c = vr_canvas_begin();
			struct vr_paint stroke = { .color = random_color(&rng),
				.stroke_width = rng_float(&rng, 1, 4),
				.join = VR_JOIN_ROUND,
				.cap = VR_CAP_ROUND };
			struct vr_paint fill = { .color = random_color(&rng) };
			vr_canvas_draw_rrect(c, (struct vr_rectf){ 0, 0, 90, 40 },
					(struct vr_radii){ 8, 8, 8, 8 }, &fill);
			struct vr_path *path = vr_path_create();
			vr_path_move_to(path, 5, 35);
			vr_path_cubic_to(path, rng_float(&rng, 0, 90),
					rng_float(&rng, -30, 70), rng_float(&rng, 0, 90),
					rng_float(&rng, -30, 70), 85, 5);
			vr_canvas_draw_path(c, path, &stroke);
			vr_path_destroy(path);
			vr_canvas_draw_ellipse(c, (struct vr_rectf){ 60, 5, 25, 25 },
					&stroke);
			struct vr_font font = { "DejaVu Sans", 12, 400 };
			vr_canvas_draw_text(c, 6, 18, "vitrail", &font,
					(struct vr_color){ 0, 0, 0, 1 });
			struct vr_display_list *list = vr_canvas_finish(c);
			vr_node_set_display_list(node, list);
			vr_display_list_unref(list);
		} else if (i % 4 == 3) {
			vr_node_set_image(node, images[rng_below(&rng, 4)], NULL,
					rng_float(&rng, 8, 120), rng_float(&rng, 8, 120),
					VR_TRANSFORM_NORMAL);
		} else {
			vr_node_set_rect(node, rng_float(&rng, 4, 160),
					rng_float(&rng, 4, 120), random_color(&rng));
		}
		vr_node_set_parent(node, vr_tree_root(tree));
	}
	vr_tree_update(tree, NULL);
	return tree;
}

START_TEST(test_parallel_heavy_frame) {
	vr_set_log_func(test_log);
	log_errors = 0;
	bool shapes = _i == 1;
	struct vr_image *images[4];
	struct vr_tree *tree = heavy_tree(shapes, images);
	size_t size = (size_t)1920 * 1080 * 4;
	uint32_t *expected = malloc(size), *actual = malloc(size);
	struct vr_renderer *renderer = vr_renderer_create(
			&(struct vr_renderer_options){ .sequential = true });
	ck_assert_ptr_nonnull(renderer);
	struct heavy_result seq, par[2];
	heavy_run(renderer, tree, expected, &seq);
	vr_renderer_set_sequential(renderer, false);
	for (int w = 1; w <= 2; w++) {
		vr_renderer_set_workers(renderer, w);
		heavy_run(renderer, tree, actual, &par[w - 1]);
		ck_assert_msg(memcmp(actual, expected, size) == 0,
				"%d workers: the heavy frame differs", w);
		ck_assert_uint_gt(par[w - 1].tasks, 0);
	}
	fprintf(stderr,
			"heavy frame, %d %s at 1920x1080, medians of %d "
			"frames (ms):\n",
			HEAVY_QUADS, shapes ? "display-list primitives" : "quads",
			HEAVY_FRAMES);
	fprintf(stderr,
			"  mode          cpu  prepare  execute  critical  commit"
			"     gpu  tasks  ooo\n");
	const struct {
		const char *name;
		const struct heavy_result *r;
	} rows[] = {
		{ "sequential", &seq },
		{ "parallel W=1", &par[0] },
		{ "parallel W=2", &par[1] },
	};
	for (size_t i = 0; i < 3; i++) {
		const struct heavy_result *r = rows[i].r;
		fprintf(stderr,
				"  %-12s %6.2f  %7.2f  %7.2f  %8.2f  %6.2f  %6.2f"
				"  %5u  %3u\n",
				rows[i].name, r->cpu_ns / 1e6, r->prepare_ns / 1e6,
				r->execute_ns / 1e6, r->critical_ns / 1e6, r->commit_ns / 1e6,
				r->gpu_ns / 1e6, r->tasks, r->ooo);
	}
	fprintf(stderr, "  cpu ratio sequential / W=1: %.2f, / W=2: %.2f\n",
			(double)seq.cpu_ns / (double)par[0].cpu_ns,
			(double)seq.cpu_ns / (double)par[1].cpu_ns);
	free(expected);
	free(actual);
	vr_renderer_destroy(renderer);
	vr_tree_destroy(tree);
	for (int i = 0; i < 4; i++) {
		vr_image_unref(images[i]);
	}
	ck_assert_int_eq(log_errors, 0);
	vr_set_log_func(NULL);
}
END_TEST

/* ---- the caller changes everything right after submit ----------------------
 */

#define MUTATE_TREES 200

/* A full redraw of every job of the scene: submitted (its id), and when
 * `out` is given, waited for and read into *out (malloc'd). */
static uint64_t submit_full(struct vr_renderer *renderer, struct scene *scene,
		struct vr_target **targets, uint8_t **out) {
	struct vr_render_job jobs[2];
	for (size_t j = 0; j < scene->njobs; j++) {
		jobs[j] = (struct vr_render_job){
			.target = targets[j],
			.view = scene->views[j],
			.clear = scene->clears[j],
		};
	}
	uint64_t id =
			vr_render_submit(renderer, scene->rt.tree, jobs, scene->njobs);
	ck_assert_uint_ne(id, 0);
	/* the caller reuses its job descriptions at once */
	memset(jobs, 0xa5, sizeof(jobs));
	if (out == NULL) {
		return id;
	}
	ck_assert(vr_frame_wait(renderer, id, UINT64_MAX));
	return id;
}

static uint8_t *read_targets(struct scene *scene, struct vr_target **targets) {
	uint8_t *pixels = malloc(output_size(scene)), *cursor = pixels;
	for (size_t j = 0; j < scene->njobs; j++) {
		int32_t w = scene->sizes[j][0], h = scene->sizes[j][1];
		vr_target_read(targets[j], NULL, cursor, w * 4);
		cursor += (size_t)w * (size_t)h * 4;
	}
	return pixels;
}

static uint8_t *render_full(struct vr_renderer *renderer, struct scene *scene,
		struct vr_target **targets) {
	uint8_t *done = NULL;
	submit_full(renderer, scene, targets, &done);
	return read_targets(scene, targets);
}

/* New pixels in every image: a random part of it (the copy-on-write of
 * a pinned image keeps the rest) or all of it. */
static void rewrite_images(struct scene *scene, struct rng *rng) {
	for (int i = 0; i < RANDOM_TREE_IMAGES; i++) {
		struct vr_image *image = scene->rt.images[i];
		int32_t iw = vr_image_width(image), ih = vr_image_height(image);
		uint32_t *fresh = malloc((size_t)iw * (size_t)ih * 4);
		for (int32_t p = 0; p < iw * ih; p++) {
			fresh[p] = 0xff000000u | rng_next(rng);
		}
		pixman_region32_t region;
		pixman_region32_init_rect(&region, (int)rng_below(rng, (uint32_t)iw),
				(int)rng_below(rng, (uint32_t)ih),
				1 + rng_below(rng, (uint32_t)iw),
				1 + rng_below(rng, (uint32_t)ih));
		ck_assert(vr_image_write(image, fresh, iw * 4,
				rng_chance(rng, 0.3f) ? NULL : &region));
		if (rng_chance(rng, 0.3f)) {
			/* a second write into the same copy */
			ck_assert(vr_image_write(image, fresh, iw * 4, &region));
		}
		pixman_region32_fini(&region);
		free(fresh);
	}
}

static void check_same(const uint8_t *expected, const uint8_t *actual,
		size_t size, uint64_t seed, const char *what) {
	ck_assert_msg(memcmp(expected, actual, size) == 0,
			"tree %llu: %s differs from the sequential rendering",
			(unsigned long long)seed, what);
}

/* vr_render_submit returns once the tasks are handed over; the caller
 * then rewrites every image, and either destroys every node, image,
 * display list and the tree, or renders the changed tree next. The
 * submitted frame shows the tree as it was at submit, the next one the
 * changes (the sequential renderer is the oracle, bit for bit), with
 * random worker delays. */
START_TEST(test_parallel_caller_mutates_after_submit) {
	vr_set_log_func(test_log);
	log_errors = 0;
	const char *env = getenv("VITRAIL_TEST_TREES");
	size_t ntrees = env != NULL ? strtoul(env, NULL, 10) : MUTATE_TREES;
	bool validation = getenv("VITRAIL_TEST_NO_VALIDATION") == NULL;
	struct vr_renderer *seq = vr_renderer_create(
			&(struct vr_renderer_options){ .sequential = true,
					.validation = validation });
	struct vr_renderer *par =
			vr_renderer_create(&(struct vr_renderer_options){ .workers = 2,
					.validation = validation });
	ck_assert_ptr_nonnull(seq);
	ck_assert_ptr_nonnull(par);
	struct vr_target *seq_targets[2], *par_targets[2];
	for (int j = 0; j < 2; j++) {
		int32_t w = j == 0 ? TARGET_W : 64, h = j == 0 ? TARGET_H : 48;
		seq_targets[j] = vr_target_create(seq, w, h);
		par_targets[j] = vr_target_create(par, w, h);
		ck_assert_ptr_nonnull(seq_targets[j]);
		ck_assert_ptr_nonnull(par_targets[j]);
	}
	for (size_t t = 0; t < ntrees; t++) {
		uint64_t seed = 7000 + t;
		vr_renderer_set_test_delay(par, t % 3 == 0 ? 0 : MAX_DELAY_US,
				(uint32_t)seed);
		struct scene scene;
		scene_build(&scene, seed);
		struct rng rng = { seed };
		vr_tree_update(scene.rt.tree, NULL);
		size_t size = output_size(&scene) / (scene.damage_pass ? 2 : 1);
		/* glyphs into the atlas pages first (see above), then the
		 * oracle of the tree as it is now */
		free(render_full(seq, &scene, seq_targets));
		uint8_t *expected = render_full(seq, &scene, seq_targets);

		uint64_t id = submit_full(par, &scene, par_targets, NULL);
		rewrite_images(&scene, &rng);
		if (t % 2 == 0) {
			/* everything the frame was made of goes away */
			for (size_t i = 0; i < scene.rt.nnodes; i++) {
				vr_node_destroy(scene.rt.nodes[i]);
			}
			scene_destroy(&scene);
			ck_assert(vr_frame_wait(par, id, UINT64_MAX));
			uint8_t *actual = read_targets(&scene, par_targets);
			check_same(expected, actual, size, seed, "submitted frame");
			free(actual);
		} else {
			/* the next frame shows what was written meanwhile */
			ck_assert(vr_frame_wait(par, id, UINT64_MAX));
			uint8_t *actual = read_targets(&scene, par_targets);
			check_same(expected, actual, size, seed, "submitted frame");
			free(actual);
			free(expected);
			struct vr_node *moved =
					scene.rt.nodes[rng_below(&rng, (uint32_t)scene.rt.nnodes)];
			random_transform(&scene.rt, &rng, moved);
			vr_tree_update(scene.rt.tree, NULL);
			free(render_full(seq, &scene, seq_targets));
			expected = render_full(seq, &scene, seq_targets);
			actual = render_full(par, &scene, par_targets);
			check_same(expected, actual, size, seed, "next frame");
			free(actual);
			scene_destroy(&scene);
		}
		free(expected);
	}
	for (int j = 0; j < 2; j++) {
		vr_target_destroy(seq_targets[j]);
		vr_target_destroy(par_targets[j]);
	}
	vr_renderer_destroy(par);
	vr_renderer_destroy(seq);
	ck_assert_int_eq(log_errors, 0);
	vr_set_log_func(NULL);
}
END_TEST

/* The decision from calibrated figures (renderer.h, vr_granularity). */
START_TEST(test_parallel_granularity_derive) {
	/* a handoff of 10 us, a unit of 500 ns: a handoff is at most an
	 * eighth of its chunk, 8 * 10000 / 500 = 160 units */
	struct vr_granularity g = { .handoff_ns = 10000.0,
		.unit_ns = 500.0,
		.frame_overhead_ns = 200000.0,
		.gain_ns_per_unit = 250.0 };
	vr_granularity_derive(&g);
	ck_assert_uint_eq(g.chunk_cost, 160);
	/* 200 us of overhead, 250 ns saved per unit: parallel from 800
	 * (the inline budget, 1 ms / 500 ns = 2000 units, is further) */
	ck_assert_uint_eq(g.parallel_cost, 800);
	/* 8 * 1000 / 3000 = 2.67: rounded up */
	g = (struct vr_granularity){ .handoff_ns = 1000.0,
		.unit_ns = 3000.0,
		.frame_overhead_ns = 1000.0,
		.gain_ns_per_unit = 3.0 };
	vr_granularity_derive(&g);
	ck_assert_uint_eq(g.chunk_cost, 3);
	ck_assert_uint_eq(g.parallel_cost, 334);
	/* parallel saved nothing (or lost): only frames over the inline
	 * budget, 1 ms / 3000 ns = 334 units */
	g.gain_ns_per_unit = 0.0;
	vr_granularity_derive(&g);
	ck_assert_uint_eq(g.parallel_cost, 334);
	g.gain_ns_per_unit = -5.0;
	g.unit_ns = 10.0;
	vr_granularity_derive(&g);
	ck_assert_uint_eq(g.parallel_cost, 100000);
	/* no unit time known: never */
	g.unit_ns = 0.0;
	vr_granularity_derive(&g);
	ck_assert_uint_eq(g.parallel_cost, UINT32_MAX);
	/* no overhead at all: always parallel */
	g = (struct vr_granularity){ .handoff_ns = 1.0,
		.unit_ns = 1000.0,
		.frame_overhead_ns = -50.0,
		.gain_ns_per_unit = 10.0 };
	vr_granularity_derive(&g);
	ck_assert_uint_eq(g.parallel_cost, 0);
	ck_assert_uint_eq(g.chunk_cost, 1);
	/* an absurd handoff: chunks stay bounded */
	g = (struct vr_granularity){ .handoff_ns = 1e12,
		.unit_ns = 1.0,
		.frame_overhead_ns = 1e15,
		.gain_ns_per_unit = 1e-3 };
	vr_granularity_derive(&g);
	ck_assert_uint_eq(g.chunk_cost, 16 * VR_TASK_MAX_COST);
	/* (the budget: 1 ms / 1 ns) */
	ck_assert_uint_eq(g.parallel_cost, 1000000);
}
END_TEST

/* A calibrated renderer keeps figures that make sense, and a second one
 * with the same worker count takes them without measuring. (The figures
 * themselves are the machine's: not asserted.) */
START_TEST(test_parallel_calibrate) {
	vr_set_log_func(test_log);
	log_errors = 0;
	struct vr_renderer *par =
			vr_renderer_create(&(struct vr_renderer_options){ .workers = 2 });
	ck_assert_ptr_nonnull(par);
	struct vr_granularity g;
	vr_renderer_get_granularity(par, &g);
	if (!g.calibrated) {
		ck_assert_uint_eq(g.chunk_cost, 1);
		ck_assert_uint_eq(g.parallel_cost, 0);
		ck_assert(vr_renderer_calibrate(par));
		vr_renderer_get_granularity(par, &g);
	}
	ck_assert(g.calibrated);
	ck_assert(g.handoff_ns > 0.0);
	ck_assert(g.unit_ns > 0.0);
	ck_assert_uint_ge(g.chunk_cost, 1);
	struct vr_granularity derived = g;
	vr_granularity_derive(&derived);
	ck_assert_uint_eq(derived.chunk_cost, g.chunk_cost);
	ck_assert_uint_eq(derived.parallel_cost, g.parallel_cost);
	struct vr_renderer *again =
			vr_renderer_create(&(struct vr_renderer_options){ .workers = 2 });
	ck_assert_ptr_nonnull(again);
	struct vr_granularity g2;
	vr_renderer_get_granularity(again, &g2);
	ck_assert(g2.calibrated);
	ck_assert_uint_eq(g2.chunk_cost, g.chunk_cost);
	ck_assert_uint_eq(g2.parallel_cost, g.parallel_cost);
	/* a sequential renderer hands nothing over: nothing to calibrate */
	vr_renderer_set_sequential(again, true);
	ck_assert(!vr_renderer_calibrate(again));
	vr_renderer_destroy(again);
	vr_renderer_destroy(par);
	ck_assert_int_eq(log_errors, 0);
	vr_set_log_func(NULL);
}
END_TEST

static Suite *parallel_suite(void) {
	Suite *s = suite_create("parallel");
	TCase *tc = tcase_create("granularity");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_parallel_granularity_derive);
	tcase_add_test(tc, test_parallel_calibrate);
	suite_add_tcase(s, tc);
	tc = tcase_create("property");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_parallel_matches_sequential);
	suite_add_tcase(s, tc);
	tc = tcase_create("mutate");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_parallel_caller_mutates_after_submit);
	suite_add_tcase(s, tc);
	tc = tcase_create("in_flight");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_parallel_frames_in_flight);
	/* 0: parallel, 1: sequential */
	tcase_add_loop_test(tc, test_parallel_resources_recycled, 0, 2);
	suite_add_tcase(s, tc);
	tc = tcase_create("heavy");
	tcase_set_timeout(tc, 300);
	/* 0: quads, 1: display-list primitives */
	tcase_add_loop_test(tc, test_parallel_heavy_frame, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void) {
	return run_vulkan_suite(parallel_suite());
}
