/*
 * Preparation's reuse across frames (prepare.c's top): over random trees
 * and random sequences of changes (moves, new content, children added and
 * destroyed, reparenting, restacking, opacity, clips, rounded ones too,
 * enabling, image writes, a new view) and random damage, every job
 * prepared with the nodes' caches must give what a preparation from
 * scratch (vr_prepare_options::no_reuse) gives, event for event: the
 * images and lists held, the atlas places asked for, every task with its
 * primitives' bytes and its layers' sub-chains. The reference renderer,
 * with reuse and with VITRAIL_PREPARE_REUSE=0, must keep the same pixels
 * frame after frame.
 *
 * test_prepare_reuse_timing prints (no assertion on time) the preparation
 * time of a large scene where one small node moves at every frame, with
 * and without reuse, with the whole target damaged, the node's window, or
 * the tree's damage (the node's old and new bounds).
 *
 * VITRAIL_TEST_TREES overrides the number of trees (default 200).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vitrail/canvas.h>
#include <vitrail/renderer.h>
#include "engine_private.h"
#include "random_tree.h"

#define DEFAULT_TREES 200
#define FRAMES 12
/* the first output's size; the second's is BIG_TARGET times it, its view
 * scaled up (shadows whose cost grows with their pixels) */
#define TARGET_W 96
#define TARGET_H 64
#define BIG_TARGET 3

/* ---- random trees (random_tree.c) ---------------------------------------- */

/* Trees for the first output. No cubic segments nor bold faces, as this
 * test's own copy of the generator drew: preparation reuses a node's
 * primitives whatever a path's segments or a run's face, and what these
 * trees are for is the changes between frames. */
static const struct random_tree_options tree_options = {
	.scale = 1,
	.lists = 0.25f,
	.max_commands = 8,
	.cubic = false,
	.bold = false,
};

struct scene {
	struct random_tree rt;
	size_t njobs;
	struct vr_mat views[2];
};

static void scene_build(struct scene *scene, struct rng *rng) {
	*scene = (struct scene){ 0 };
	random_tree_build(&scene->rt, &tree_options, rng);
	scene->njobs = rng_chance(rng, 0.5f) ? 2 : 1;
	for (size_t j = 0; j < 2; j++) {
		vr_mat_identity(&scene->views[j]);
	}
	/* the second output shows part of the root, maybe scaled */
	scene->views[1] = (struct vr_mat){ 2.5f, 0, 0, 2.5f, -20, -10 };
}

static void scene_destroy(struct scene *scene) {
	random_tree_destroy(&scene->rt);
}

static bool is_ancestor_or_self(struct vr_node *ancestor,
		struct vr_node *node) {
	for (; node != NULL; node = vr_node_parent(node)) {
		if (node == ancestor) {
			return true;
		}
	}
	return false;
}

/* One random change of the tree (or of a view). */
static void mutate(struct rng *rng, struct scene *scene) {
	if (scene->rt.nnodes == 0) {
		random_tree_add_node(&scene->rt, rng);
		return;
	}
	uint32_t pick = rng_below(rng, (uint32_t)scene->rt.nnodes);
	struct vr_node *node = scene->rt.nodes[pick];
	switch (rng_below(rng, 12)) {
	case 0:
	case 1: random_transform(&scene->rt, rng, node); break;
	case 2: random_content(&scene->rt, rng, node); break;
	case 3:
		if (scene->rt.nnodes < RANDOM_TREE_MAX_NODES) {
			random_tree_add_node(&scene->rt, rng);
		}
		break;
	case 4:
		/* its children stay, detached, until reparented */
		vr_node_destroy(node);
		scene->rt.nodes[pick] = scene->rt.nodes[--scene->rt.nnodes];
		break;
	case 5:
		vr_node_set_opacity(node,
				rng_chance(rng, 0.3f) ? 1.0f : rng_float(rng, 0, 1));
		break;
	case 6: random_clip(&scene->rt, rng, node); break;
	case 7: vr_node_set_enabled(node, !vr_node_enabled(node)); break;
	case 8: {
		struct random_tree *rt = &scene->rt;
		struct vr_node *parent = rng_chance(rng, 0.3f) ?
				vr_tree_root(rt->tree) :
				rt->nodes[rng_below(rng, (uint32_t)rt->nnodes)];
		if (!is_ancestor_or_self(node, parent)) {
			vr_node_set_parent(node, parent);
		}
		break;
	}
	case 9: vr_node_raise_to_top(node); break;
	case 10: {
		struct vr_image *image =
				scene->rt.images[rng_below(rng, RANDOM_TREE_IMAGES)];
		pixman_region32_t region;
		pixman_region32_init_rect(&region, 0, 0,
				1 + rng_below(rng, (uint32_t)vr_image_width(image)),
				1 + rng_below(rng, (uint32_t)vr_image_height(image)));
		write_random_pixels(rng, image, &region);
		/* the nodes showing it are told by their owner */
		for (size_t i = 0; i < scene->rt.nnodes; i++) {
			vr_node_damage_content(scene->rt.nodes[i], &region);
		}
		pixman_region32_fini(&region);
		break;
	}
	default: {
		struct vr_mat *view = &scene->views[rng_below(rng, 2)];
		if (rng_chance(rng, 0.5f)) {
			vr_mat_identity(view);
		} else {
			*view = (struct vr_mat){ rng_float(rng, 0.5f, 3), 0, 0,
				rng_float(rng, 0.5f, 3), floorf(rng_float(rng, -30, 10)),
				floorf(rng_float(rng, -30, 10)) };
		}
		break;
	}
	}
}

/* ---- a sink recording every event ---------------------------------------- */

struct recorder {
	uint8_t *bytes;
	size_t len, cap;
	void **allocations;
	size_t nallocations, allocations_cap;
	uint32_t places;
};

static void record(struct recorder *rec, const void *data, size_t size) {
	if (rec->len + size > rec->cap) {
		size_t cap = rec->cap > 0 ? rec->cap : 4096;
		while (cap < rec->len + size) {
			cap *= 2;
		}
		rec->bytes = realloc(rec->bytes, cap);
		ck_assert_ptr_nonnull(rec->bytes);
		rec->cap = cap;
	}
	memcpy(rec->bytes + rec->len, data, size);
	rec->len += size;
}

static void record_tag(struct recorder *rec, char tag, const void *pointer) {
	record(rec, &tag, 1);
	record(rec, &pointer, sizeof(pointer));
}

static void *rec_alloc(void *data, size_t size) {
	struct recorder *rec = data;
	if (rec->nallocations == rec->allocations_cap) {
		rec->allocations_cap =
				rec->allocations_cap > 0 ? rec->allocations_cap * 2 : 64;
		rec->allocations = realloc(rec->allocations,
				rec->allocations_cap * sizeof(void *));
		ck_assert_ptr_nonnull(rec->allocations);
	}
	void *p = calloc(1, size > 0 ? size : 1); /* 16-byte aligned (glibc) */
	ck_assert_ptr_nonnull(p);
	rec->allocations[rec->nallocations++] = p;
	return p;
}

/* A primitive's meaningful bytes: field by field into zeroed memory (the
 * padding, and the rounded clips past nrclips, are never read and hold
 * what the stack held). */
static void canonical_state(struct vr_prim_state *out,
		const struct vr_prim_state *in) {
	*out = *in; /* 4-byte fields only: no padding */
	memset(&out->rclips[in->nrclips], 0,
			(VR_RCLIP_MAX - in->nrclips) * sizeof(out->rclips[0]));
}

static void record_prims(struct recorder *rec, const struct vr_task *task) {
	const struct vr_task_payload *p = task->payload;
	for (uint32_t i = 0; i < p->count; i++) {
		switch (task->kind) {
		case VR_TASK_QUADS: {
			const struct vr_draw_task *in = &p->quads[i];
			struct vr_draw_task out;
			memset(&out, 0, sizeof(out));
			out.mat = in->mat;
			out.uv = in->uv;
			out.clip = in->clip;
			out.aabb = in->aabb;
			out.r = in->r;
			out.g = in->g;
			out.b = in->b;
			out.a = in->a;
			out.image = in->image;
			out.nearest = in->nearest;
			out.axis_aligned = in->axis_aligned;
			ck_assert_uint_le(in->nrclips, VR_RCLIP_MAX);
			out.nrclips = in->nrclips;
			memcpy(out.rclips, in->rclips, in->nrclips * sizeof(in->rclips[0]));
			out.atlas_page = in->atlas_page;
			out.atlas_x = in->atlas_x;
			out.atlas_y = in->atlas_y;
			record(rec, &out, sizeof(out));
			break;
		}
		case VR_TASK_SHAPES: {
			const struct vr_shape *in = &p->shapes[i];
			struct vr_shape out;
			memset(&out, 0, sizeof(out));
			canonical_state(&out.state, &in->state);
			out.rect = in->rect;
			out.radii = in->radii;
			out.ellipse = in->ellipse;
			out.stroke_width = in->stroke_width;
			record(rec, &out, sizeof(out));
			break;
		}
		case VR_TASK_TRIANGLES: {
			const struct vr_geometry *in = &p->geometries[i];
			struct vr_geometry out;
			memset(&out, 0, sizeof(out));
			canonical_state(&out.state, &in->state);
			out.path = in->path;
			out.paint = in->paint; /* 4-byte fields only */
			record(rec, &out, sizeof(out));
			break;
		}
		case VR_TASK_GLYPHS: {
			const struct vr_glyph_run *in = &p->runs[i];
			struct vr_glyph_run out;
			memset(&out, 0, sizeof(out));
			canonical_state(&out.state, &in->state);
			out.text = in->text;
			out.nearest = in->nearest;
			record(rec, &out, sizeof(out));
			break;
		}
		case VR_TASK_SHADOW: {
			const struct vr_shadow *in = &p->shadows[i];
			struct vr_shadow out;
			memset(&out, 0, sizeof(out));
			canonical_state(&out.state, &in->state);
			out.rect = in->rect;
			out.radii = in->radii;
			out.sigma = in->sigma;
			record(rec, &out, sizeof(out));
			break;
		}
		case VR_TASK_LAYER:
		case VR_TASK_KIND_COUNT: ck_abort_msg("not a primitive kind");
		}
	}
}

static void record_task(struct recorder *rec, const struct vr_task *task) {
	record(rec, "T", 1);
	record(rec, &task->kind, sizeof(task->kind));
	record(rec, &task->index, sizeof(task->index));
	record(rec, &task->job, sizeof(task->job));
	record(rec, &task->aabb, sizeof(task->aabb));
	record(rec, &task->cost, sizeof(task->cost));
	record(rec, &task->payload->count, sizeof(task->payload->count));
	if (task->kind != VR_TASK_LAYER) {
		record_prims(rec, task);
		return;
	}
	const struct vr_layer *layer = task->payload->layers;
	record(rec, &layer->bounds, sizeof(layer->bounds));
	record(rec, &layer->box, sizeof(layer->box));
	record(rec, &layer->alpha, sizeof(layer->alpha));
	record(rec, &layer->ntasks, sizeof(layer->ntasks));
	for (uint32_t i = 0; i < layer->ntasks; i++) {
		record_task(rec, &layer->tasks[i]);
	}
}

static bool rec_push(void *data, const struct vr_task *task) {
	record_task(data, task);
	return true;
}

static bool rec_hold_image(void *data, struct vr_image *image) {
	record_tag(data, 'I', image);
	return true;
}

static bool rec_hold_list(void *data, struct vr_display_list *list) {
	record_tag(data, 'L', list);
	return true;
}

/* A made-up atlas: small images drawn pixel-exactly get places that
 * depend on the order of the calls (as a real one's may). */
static bool rec_atlas_place(void *data, struct vr_image *image, bool nearest,
		struct vr_atlas_place *out) {
	struct recorder *rec = data;
	record_tag(rec, 'A', image);
	if (!nearest || vr_image_width(image) > 16) {
		return false;
	}
	uint32_t n = rec->places++;
	*out = (struct vr_atlas_place){ .page = 1 + n % 2,
		.x = (int32_t)(n * 17 % 256),
		.y = (int32_t)(n * 5 % 256) };
	return true;
}

static void recorder_reset(struct recorder *rec) {
	for (size_t i = 0; i < rec->nallocations; i++) {
		free(rec->allocations[i]);
	}
	rec->nallocations = 0;
	rec->len = 0;
	rec->places = 0;
}

static void recorder_finish(struct recorder *rec) {
	recorder_reset(rec);
	free(rec->allocations);
	free(rec->bytes);
}

static void prepare_into(struct recorder *rec, struct vr_tree *tree,
		const struct vr_prepare_job *job, bool reuse,
		struct vr_prepare_stats *stats) {
	const struct vr_task_sink sink = {
		.alloc = rec_alloc,
		.push = rec_push,
		.hold_image = rec_hold_image,
		.hold_list = rec_hold_list,
		.atlas_place = rec_atlas_place,
		.data = rec,
	};
	const struct vr_prepare_options options = {
		.no_reuse = !reuse,
		.stats = stats,
	};
	recorder_reset(rec);
	ck_assert(vr_prepare_tasks(&sink, tree, job, &options));
}

/* ---- the property -------------------------------------------------------- */

static size_t first_difference(const struct recorder *a,
		const struct recorder *b) {
	size_t n = a->len < b->len ? a->len : b->len;
	for (size_t i = 0; i < n; i++) {
		if (a->bytes[i] != b->bytes[i]) {
			return i;
		}
	}
	return n;
}

static void render_reference(struct vr_tree *tree, pixman_image_t *dst,
		const struct vr_mat *view, const pixman_region32_t *damage,
		bool reuse) {
	if (reuse) {
		unsetenv("VITRAIL_PREPARE_REUSE");
	} else {
		setenv("VITRAIL_PREPARE_REUSE", "0", 1);
	}
	vr_reference_render_region(tree, dst, view,
			(struct vr_color){ 0.1f, 0.2f, 0.3f, 1.0f }, damage);
	unsetenv("VITRAIL_PREPARE_REUSE");
}

START_TEST(test_prepare_reuse_matches_fresh) {
	const char *env = getenv("VITRAIL_TEST_TREES");
	uint64_t trees = env != NULL ? strtoull(env, NULL, 10) : DEFAULT_TREES;
	struct recorder reused = { 0 }, fresh = { 0 };
	struct vr_prepare_stats stats = { 0 };
	uint64_t jobs = 0;
	for (uint64_t seed = 1; seed <= trees; seed++) {
		struct rng rng = { seed * 0x9e3779b97f4a7c15u + 13 };
		struct scene scene;
		scene_build(&scene, &rng);
		pixman_image_t *images[2][2];
		for (size_t j = 0; j < 2; j++) {
			for (int r = 0; r < 2; r++) {
				int scale = j == 0 ? 1 : BIG_TARGET;
				images[j][r] = pixman_image_create_bits(PIXMAN_a8r8g8b8,
						TARGET_W * scale, TARGET_H * scale, NULL, 0);
			}
		}
		for (int frame = 0; frame < FRAMES; frame++) {
			uint32_t changes = frame == 0 ? 0 : rng_below(&rng, 4);
			struct vr_mat views[2] = { scene.views[0], scene.views[1] };
			for (uint32_t i = 0; i < changes; i++) {
				mutate(&rng, &scene);
			}
			bool new_view = memcmp(views, scene.views, sizeof(views)) != 0;
			pixman_region32_t damage;
			pixman_region32_init(&damage);
			vr_tree_update(scene.rt.tree, &damage);
			/* root coordinates as target pixels (the identity view),
			 * plus a random rectangle; at times all of it */
			pixman_region32_union_rect(&damage, &damage,
					(int)rng_below(&rng, TARGET_W * BIG_TARGET),
					(int)rng_below(&rng, TARGET_H * BIG_TARGET),
					1 + rng_below(&rng, 80), 1 + rng_below(&rng, 60));
			if (frame == 0 || new_view || rng_chance(&rng, 0.15f)) {
				pixman_region32_union_rect(&damage, &damage, 0, 0,
						TARGET_W * BIG_TARGET, TARGET_H * BIG_TARGET);
			}
			for (size_t j = 0; j < scene.njobs; j++) {
				int32_t w = pixman_image_get_width(images[j][0]);
				int32_t h = pixman_image_get_height(images[j][0]);
				pixman_region32_t job_damage;
				pixman_region32_init(&job_damage);
				pixman_region32_intersect_rect(&job_damage, &damage, 0, 0,
						(unsigned)w, (unsigned)h);
				const pixman_box32_t *e = pixman_region32_extents(&job_damage);
				const struct vr_prepare_job job = {
					.index = (uint32_t)j,
					.view = scene.views[j],
					.target = { 0, 0, w, h },
					.extents = { e->x1, e->y1, e->x2 - e->x1, e->y2 - e->y1 },
				};
				prepare_into(&reused, scene.rt.tree, &job, true, &stats);
				prepare_into(&fresh, scene.rt.tree, &job, false, NULL);
				if (reused.len != fresh.len ||
						memcmp(reused.bytes, fresh.bytes, fresh.len) != 0) {
					ck_abort_msg("tree %llu, frame %d, job %zu: the "
								 "reused preparation differs from the fresh "
								 "one at byte %zu of %zu (%zu)",
							(unsigned long long)seed, frame, j,
							first_difference(&reused, &fresh), fresh.len,
							reused.len);
				}
				jobs++;
				/* the same pixels, frame after frame */
				render_reference(scene.rt.tree, images[j][0], &scene.views[j],
						&job_damage, true);
				render_reference(scene.rt.tree, images[j][1], &scene.views[j],
						&job_damage, false);
				pixman_region32_fini(&job_damage);
				ck_assert_msg(memcmp(pixman_image_get_data(images[j][0]),
									  pixman_image_get_data(images[j][1]),
									  (size_t)w * (size_t)h * 4) == 0,
						"tree %llu, frame %d, job %zu: the reference "
						"renderer's pixels differ with reuse",
						(unsigned long long)seed, frame, j);
			}
			pixman_region32_fini(&damage);
		}
		for (size_t j = 0; j < 2; j++) {
			for (int r = 0; r < 2; r++) {
				pixman_image_unref(images[j][r]);
			}
		}
		scene_destroy(&scene);
	}
	printf("prepare reuse: %llu jobs identical; %u nodes, %u primitives "
		   "reused\n",
			(unsigned long long)jobs, stats.reused_nodes, stats.reused_prims);
	/* reuse did happen */
	ck_assert_uint_gt(stats.reused_nodes, 0);
	recorder_finish(&reused);
	recorder_finish(&fresh);
}
END_TEST

/* ---- measurement ------------------------------------------------------- */

/* A bump allocator's sink: what preparation costs without a recorder. */
struct arena_sink {
	uint8_t *memory;
	size_t used, size;
	uint32_t tasks;
};

static void *arena_alloc(void *data, size_t size) {
	struct arena_sink *arena = data;
	size = (size + 15) & ~(size_t)15;
	if (arena->used + size > arena->size) {
		return NULL;
	}
	void *p = arena->memory + arena->used;
	arena->used += size;
	memset(p, 0, size);
	return p;
}

static bool arena_push(void *data, const struct vr_task *task) {
	(void)task;
	struct arena_sink *arena = data;
	arena->tasks++;
	return true;
}

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define BIG_WINDOWS 48
#define BIG_COMMANDS 40
#define BIG_W 1920
#define BIG_H 1080

/* Windows of a desktop: a frame rect, a display list of BIG_COMMANDS
 * shapes, paths and text, and a few child rects each. */
static struct vr_node *build_big(struct vr_tree *tree, struct rng *rng) {
	struct vr_node *moving = NULL;
	for (int w = 0; w < BIG_WINDOWS; w++) {
		struct vr_node *window = vr_node_create(tree);
		vr_node_set_position(window, (float)(w % 8) * 230.0f,
				(float)(w / 8) * 170.0f);
		vr_node_set_rect(window, 220, 160,
				(struct vr_color){ 0.9f, 0.9f, 0.9f, 1 });
		vr_node_set_parent(window, vr_tree_root(tree));
		struct vr_node *content = vr_node_create(tree);
		struct vr_canvas *c = vr_canvas_begin();
		for (int i = 0; i < BIG_COMMANDS; i++) {
			struct vr_paint paint = { .color = random_color(rng) };
			struct vr_rectf r = { rng_float(rng, 0, 200),
				rng_float(rng, 0, 140), rng_float(rng, 4, 20),
				rng_float(rng, 4, 20) };
			switch (i % 5) {
			case 0: vr_canvas_draw_rect(c, r, &paint); break;
			case 1:
				vr_canvas_draw_rrect(c, r, (struct vr_radii){ 3, 3, 3, 3 },
						&paint);
				break;
			case 2: vr_canvas_draw_ellipse(c, r, &paint); break;
			case 3:
				paint.stroke_width = 1.5f;
				vr_canvas_draw_line(c, r.x, r.y, r.x + r.width, r.y + r.height,
						&paint);
				break;
			default: {
				struct vr_font font = { "DejaVu Sans", 11, 400 };
				vr_canvas_draw_text(c, r.x, r.y + 10, "vitrail", &font,
						paint.color);
				break;
			}
			}
		}
		struct vr_display_list *list = vr_canvas_finish(c);
		vr_node_set_display_list(content, list);
		vr_display_list_unref(list);
		vr_node_set_position(content, 5, 5);
		vr_node_set_clip(content, &(struct vr_rectf){ 0, 0, 210, 150 });
		vr_node_set_parent(content, window);
		for (int k = 0; k < 4; k++) {
			struct vr_node *child = vr_node_create(tree);
			vr_node_set_position(child, 10.0f + 40.0f * (float)k, 130);
			vr_node_set_rect(child, 30, 20, random_color(rng));
			vr_node_set_parent(child, window);
			moving = moving == NULL ? child : moving;
		}
	}
	return moving;
}

enum damage_mode {
	DAMAGE_FULL, /* no buffer age, a new output's first frames */
	DAMAGE_WINDOW, /* the moving node's window (its client's damage) */
	DAMAGE_TREE, /* the tree's: the node's old and new bounds */
	DAMAGE_MODES,
};

static const char *const damage_names[DAMAGE_MODES] = { "full", "window",
	"the tree's" };

/* Mean preparation time per frame, nanoseconds, with one small node moving
 * at every frame. */
static double time_frames(bool reuse, enum damage_mode mode, int frames,
		struct vr_prepare_stats *stats) {
	struct rng rng = { 99 };
	struct vr_tree *tree = vr_tree_create();
	struct vr_node *moving = build_big(tree, &rng);
	struct arena_sink arena = { .size = 64u << 20 };
	arena.memory = malloc(arena.size);
	ck_assert_ptr_nonnull(arena.memory);
	const struct vr_task_sink sink = {
		.alloc = arena_alloc,
		.push = arena_push,
		.data = &arena,
	};
	const struct vr_prepare_options options = {
		.no_reuse = !reuse,
		.stats = stats,
	};
	uint64_t total = 0;
	for (int frame = -2; frame < frames; frame++) {
		vr_node_set_position(moving, 10.0f + (float)(frame & 15), 130);
		pixman_region32_t damage;
		pixman_region32_init(&damage);
		vr_tree_update(tree, &damage);
		const pixman_box32_t *e = pixman_region32_extents(&damage);
		struct vr_prepare_job job = {
			.view = { .a = 1, .d = 1 },
			.target = { 0, 0, BIG_W, BIG_H },
			.extents = { e->x1, e->y1, e->x2 - e->x1, e->y2 - e->y1 },
		};
		if (mode == DAMAGE_FULL || frame < 0) {
			job.extents = job.target;
		} else if (mode == DAMAGE_WINDOW) {
			job.extents = (struct vr_box){ 0, 0, 220, 160 };
		}
		arena.used = 0;
		arena.tasks = 0;
		struct vr_prepare_stats *s = frame < 0 ? NULL : stats;
		const struct vr_prepare_options o = { .no_reuse = options.no_reuse,
			.stats = s };
		uint64_t t0 = now_ns();
		ck_assert(vr_prepare_tasks(&sink, tree, &job, &o));
		uint64_t t1 = now_ns();
		if (frame >= 0) { /* the first two fill the caches */
			total += t1 - t0;
		}
		pixman_region32_fini(&damage);
	}
	free(arena.memory);
	vr_tree_destroy(tree);
	return (double)total / frames;
}

START_TEST(test_prepare_reuse_timing) {
	const int frames = 100, runs = 5;
	for (int mode = 0; mode < DAMAGE_MODES; mode++) {
		/* the best of a few runs each, alternated (the machine is
		 * shared) */
		double fresh_ns = INFINITY, reuse_ns = INFINITY;
		struct vr_prepare_stats with = { 0 }, without = { 0 };
		for (int run = 0; run < runs; run++) {
			with = without = (struct vr_prepare_stats){ 0 };
			double t = time_frames(false, mode, frames, &without);
			fresh_ns = t < fresh_ns ? t : fresh_ns;
			t = time_frames(true, mode, frames, &with);
			reuse_ns = t < reuse_ns ? t : reuse_ns;
		}
		printf("prepare, %d windows x %d commands, one node moving, %s "
			   "damage: %.1f us/frame fresh, %.1f us/frame with reuse "
			   "(%.2fx; %u nodes, %u primitives reused per frame)\n",
				BIG_WINDOWS, BIG_COMMANDS, damage_names[mode], fresh_ns / 1e3,
				reuse_ns / 1e3, fresh_ns / reuse_ns, with.reused_nodes / frames,
				with.reused_prims / frames);
		ck_assert_uint_eq(without.reused_nodes, 0);
		if (mode != DAMAGE_TREE) {
			ck_assert_uint_gt(with.reused_nodes, 0);
		}
	}
}
END_TEST

/* ---- caches of nodes no longer prepared --------------------------------- */

static void prepare_extents(struct recorder *rec, struct vr_tree *tree,
		struct vr_box extents, bool reuse) {
	pixman_region32_t damage;
	pixman_region32_init(&damage);
	vr_tree_update(tree, &damage);
	pixman_region32_fini(&damage);
	const struct vr_prepare_job job = {
		.view = { .a = 1, .d = 1 },
		.target = { 0, 0, TARGET_W, TARGET_H },
		.extents = extents,
	};
	prepare_into(rec, tree, &job, reuse, NULL);
}

/*
 * A node that no preparation uses for VR_PREPARE_KEEP preparations (here:
 * never damaged again) loses its cache; one prepared at every frame keeps
 * it; the node damaged again is captured afresh and gives what a
 * preparation without reuse gives. Preparations without reuse neither make
 * nor free caches.
 */
START_TEST(test_prepare_caches_trimmed) {
	struct vr_tree *tree = vr_tree_create();
	struct vr_node *a = vr_node_create(tree);
	struct vr_node *b = vr_node_create(tree);
	vr_node_set_parent(a, vr_tree_root(tree));
	vr_node_set_parent(b, vr_tree_root(tree));
	vr_node_set_rect(a, 20, 20, (struct vr_color){ 1, 0, 0, 1 });
	vr_node_set_rect(b, 20, 20, (struct vr_color){ 0, 0, 1, 0.5f });
	vr_node_set_position(b, 60, 30);
	const struct vr_box whole = { 0, 0, TARGET_W, TARGET_H };
	const struct vr_box only_a = { 0, 0, 30, 30 };
	struct recorder reused = { 0 }, fresh = { 0 };

	prepare_extents(&reused, tree, whole, false);
	ck_assert_ptr_null(a->prep_cache);
	ck_assert_ptr_null(b->prep_cache);
	prepare_extents(&reused, tree, whole, true);
	ck_assert_ptr_nonnull(a->prep_cache);
	ck_assert_ptr_nonnull(b->prep_cache);
	/* b unused for VR_PREPARE_KEEP preparations: kept until then */
	for (int i = 0; i < VR_PREPARE_KEEP; i++) {
		prepare_extents(&reused, tree, only_a, i % 2 == 0);
	}
	ck_assert_ptr_nonnull(b->prep_cache);
	/* the one after: freed; a, used at every other one, kept */
	prepare_extents(&reused, tree, only_a, false);
	ck_assert_ptr_null(b->prep_cache);
	ck_assert_ptr_nonnull(a->prep_cache);

	/* b damaged again: captured again, the same tasks as afresh */
	prepare_extents(&reused, tree, whole, true);
	ck_assert_ptr_nonnull(b->prep_cache);
	prepare_extents(&fresh, tree, whole, false);
	ck_assert_uint_gt(reused.len, 0);
	ck_assert_uint_eq(reused.len, fresh.len);
	ck_assert_uint_eq(first_difference(&reused, &fresh), reused.len);

	/* a destroyed with its cache, b's kept (ASan checks the list) */
	vr_node_destroy(a);
	prepare_extents(&reused, tree, whole, true);
	ck_assert_ptr_nonnull(b->prep_cache);
	recorder_finish(&reused);
	recorder_finish(&fresh);
	vr_tree_destroy(tree);
}
END_TEST

static Suite *prepare_suite(void) {
	Suite *s = suite_create("prepare");
	TCase *tc = tcase_create("reuse");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_prepare_reuse_matches_fresh);
	tcase_add_test(tc, test_prepare_reuse_timing);
	tcase_add_test(tc, test_prepare_caches_trimmed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void) {
	SRunner *runner = srunner_create(prepare_suite());
	srunner_run_all(runner, CK_NORMAL);
	int failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
