/*
 * Scene trees and display lists of the benchmark, realised as vitrail
 * render trees through the canvas API.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scene.h"

#define TAU 6.28318530717958647692f

/* ---- random numbers ----------------------------------------------------- */

void bench_rng_seed(struct bench_rng *rng, uint64_t seed) {
	rng->state = seed;
}

uint64_t bench_rng_next(struct bench_rng *rng) {
	uint64_t z = (rng->state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

float bench_rng_float(struct bench_rng *rng, float lo, float hi) {
	/* 24 random bits: exact in a float */
	float u = (float)(bench_rng_next(rng) >> 40) / 16777216.0f;
	return lo + (hi - lo) * u;
}

int bench_rng_int(struct bench_rng *rng, int lo, int hi) {
	if (hi <= lo) {
		return lo;
	}
	uint64_t span = (uint64_t)((int64_t)hi - lo) + 1;
	return lo + (int)(bench_rng_next(rng) % span);
}

/* ---- strings ------------------------------------------------------------ */

struct interned {
	struct interned *next;
	char str[];
};

static struct interned *interned_strings;

const char *bench_intern(const char *str) {
	for (struct interned *i = interned_strings; i != NULL; i = i->next) {
		if (strcmp(i->str, str) == 0) {
			return i->str;
		}
	}
	size_t len = strlen(str);
	struct interned *i = malloc(sizeof(*i) + len + 1);
	if (i == NULL) {
		abort();
	}
	memcpy(i->str, str, len + 1);
	i->next = interned_strings;
	interned_strings = i;
	return i->str;
}

/* ---- display lists ------------------------------------------------------ */

struct bench_op *bench_dl_add(struct bench_dl *dl, enum bench_op_type type) {
	if (dl->len == dl->cap) {
		size_t cap = dl->cap == 0 ? 8 : dl->cap * 2;
		struct bench_op *ops = realloc(dl->ops, cap * sizeof(*ops));
		if (ops == NULL) {
			return NULL;
		}
		dl->ops = ops;
		dl->cap = cap;
	}
	struct bench_op *op = &dl->ops[dl->len++];
	*op = (struct bench_op){ .type = type };
	return op;
}

void bench_dl_finish(struct bench_dl *dl) {
	for (size_t i = 0; i < dl->len; i++) {
		free(dl->ops[i].points);
		free(dl->ops[i].path);
		free(dl->ops[i].text);
	}
	free(dl->ops);
	*dl = (struct bench_dl){ 0 };
}

bool bench_op_is_draw(enum bench_op_type type) {
	return type >= BENCH_OP_RECT;
}

static struct vr_path *make_path(const struct bench_op *op) {
	struct vr_path *path = vr_path_create();
	if (path == NULL) {
		return NULL;
	}
	for (size_t i = 0; i < op->path_len; i++) {
		const float *p = op->path[i].p;
		switch (op->path[i].verb) {
		case BENCH_PATH_MOVE: vr_path_move_to(path, p[0], p[1]); break;
		case BENCH_PATH_LINE: vr_path_line_to(path, p[0], p[1]); break;
		case BENCH_PATH_QUAD:
			vr_path_quad_to(path, p[0], p[1], p[2], p[3]);
			break;
		case BENCH_PATH_CUBIC:
			vr_path_cubic_to(path, p[0], p[1], p[2], p[3], p[4], p[5]);
			break;
		case BENCH_PATH_CLOSE: vr_path_close(path); break;
		}
	}
	return path;
}

struct vr_display_list *bench_dl_record(const struct bench_dl *dl) {
	if (dl->len == 0) {
		return NULL;
	}
	struct vr_canvas *canvas = vr_canvas_begin();
	if (canvas == NULL) {
		return NULL;
	}
	for (size_t i = 0; i < dl->len; i++) {
		const struct bench_op *op = &dl->ops[i];
		switch (op->type) {
		case BENCH_OP_SAVE: vr_canvas_save(canvas); break;
		case BENCH_OP_RESTORE: vr_canvas_restore(canvas); break;
		case BENCH_OP_TRANSLATE:
			vr_canvas_translate(canvas, op->v[0], op->v[1]);
			break;
		case BENCH_OP_SCALE: vr_canvas_scale(canvas, op->v[0], op->v[1]); break;
		case BENCH_OP_ROTATE: vr_canvas_rotate(canvas, op->v[0]); break;
		case BENCH_OP_CLIP_RECT: vr_canvas_clip_rect(canvas, op->rect); break;
		case BENCH_OP_CLIP_RRECT:
			vr_canvas_clip_rrect(canvas, op->rect, op->radii);
			break;
		case BENCH_OP_RECT:
		case BENCH_OP_PLACEHOLDER:
			vr_canvas_draw_rect(canvas, op->rect, &op->paint);
			break;
		case BENCH_OP_RRECT:
			vr_canvas_draw_rrect(canvas, op->rect, op->radii, &op->paint);
			break;
		case BENCH_OP_ELLIPSE:
			vr_canvas_draw_ellipse(canvas, op->rect, &op->paint);
			break;
		case BENCH_OP_LINE:
			vr_canvas_draw_line(canvas, op->v[0], op->v[1], op->v[2], op->v[3],
					&op->paint);
			break;
		case BENCH_OP_POLYLINE:
			vr_canvas_draw_polyline(canvas, op->points, op->count, op->closed,
					&op->paint);
			break;
		case BENCH_OP_PATH: {
			struct vr_path *path = make_path(op);
			if (path != NULL) {
				vr_canvas_draw_path(canvas, path, &op->paint);
				vr_path_destroy(path);
			}
			break;
		}
		case BENCH_OP_IMAGE:
			vr_canvas_draw_image(canvas, op->image->image,
					op->has_src ? &op->src : NULL, op->rect, op->v[0]);
			break;
		case BENCH_OP_TEXT:
			vr_canvas_draw_text(canvas, op->v[0], op->v[1], op->text, &op->font,
					op->color);
			break;
		case BENCH_OP_SHADOW:
			vr_canvas_draw_shadow(canvas, op->rect, op->radii, op->v[0],
					op->color);
			break;
		}
	}
	return vr_canvas_finish(canvas);
}

/* ---- the ramp's random primitives --------------------------------------- */

static const char *const prim_words[] = {
	"vitrail",
	"frame",
	"glyph",
	"task",
	"pool",
	"commit",
	"atlas",
	"output",
	"layer",
	"vsync",
	"damage",
	"queue",
	"paint",
	"clip",
};

static struct vr_color random_color(struct bench_rng *rng, float alpha_lo) {
	return (struct vr_color){
		.r = bench_rng_float(rng, 0.0f, 1.0f),
		.g = bench_rng_float(rng, 0.0f, 1.0f),
		.b = bench_rng_float(rng, 0.0f, 1.0f),
		.a = bench_rng_float(rng, alpha_lo, 1.0f),
	};
}

void bench_random_prims(struct bench_dl *dl, struct bench_rng *rng, size_t n,
		struct vr_rectf area) {
	for (size_t i = 0; i < n; i++) {
		int kind = bench_rng_int(rng, 0, 99);
		float w = bench_rng_float(rng, 8.0f, 64.0f);
		float h = bench_rng_float(rng, 8.0f, 64.0f);
		float x = area.x + bench_rng_float(rng, 0.0f, area.width - w);
		float y = area.y + bench_rng_float(rng, 0.0f, area.height - h);
		struct vr_paint paint = { .color = random_color(rng, 0.5f) };
		struct vr_rectf rect = { x, y, w, h };
		struct bench_op *op;
		if (kind < 30) {
			op = bench_dl_add(dl, BENCH_OP_RECT);
		} else if (kind < 55) {
			op = bench_dl_add(dl, BENCH_OP_RRECT);
			if (op != NULL) {
				float r = bench_rng_float(rng, 2.0f, fminf(w, h) / 2.0f);
				op->radii = (struct vr_radii){ r, r, r, r };
			}
		} else if (kind < 70) {
			op = bench_dl_add(dl, BENCH_OP_ELLIPSE);
			if (kind >= 65) {
				paint.stroke_width = bench_rng_float(rng, 1.0f, 4.0f);
			}
		} else if (kind < 85) {
			op = bench_dl_add(dl, BENCH_OP_LINE);
			paint.stroke_width = bench_rng_float(rng, 1.0f, 4.0f);
			paint.cap = (enum vr_line_cap)bench_rng_int(rng, 0, 2);
			if (op != NULL) {
				op->v[0] = x;
				op->v[1] = y;
				op->v[2] = x + w;
				op->v[3] = y + h;
			}
		} else if (kind < 92) {
			op = bench_dl_add(dl, BENCH_OP_POLYLINE);
			paint.stroke_width = bench_rng_float(rng, 1.0f, 3.0f);
			paint.join = (enum vr_line_join)bench_rng_int(rng, 0, 2);
			size_t count = (size_t)bench_rng_int(rng, 3, 8);
			float *points =
					op != NULL ? malloc(2 * count * sizeof(float)) : NULL;
			if (op != NULL && points != NULL) {
				for (size_t p = 0; p < count; p++) {
					points[2 * p] = x + w * (float)p / (float)(count - 1);
					points[2 * p + 1] = y + bench_rng_float(rng, 0.0f, h);
				}
				op->points = points;
				op->count = count;
			} else if (op != NULL) {
				op->type = BENCH_OP_RECT;
			}
		} else {
			op = bench_dl_add(dl, BENCH_OP_TEXT);
			if (op != NULL) {
				size_t word = (size_t)bench_rng_int(rng, 0,
						(int)(sizeof(prim_words) / sizeof(prim_words[0])) - 1);
				op->text = strdup(prim_words[word]);
				op->font = (struct vr_font){
					.family = bench_intern("DejaVu Sans"),
					.size = bench_rng_float(rng, 10.0f, 24.0f),
					.weight = 400,
				};
				op->color = paint.color;
				op->v[0] = x;
				op->v[1] = y + h;
				if (op->text == NULL) {
					op->type = BENCH_OP_RECT;
				}
			}
		}
		if (op == NULL) {
			return;
		}
		op->rect = rect;
		op->paint = paint;
	}
}

/* ---- nodes -------------------------------------------------------------- */

struct bench_node *bench_node_create(struct bench_node *parent) {
	struct bench_node *node = calloc(1, sizeof(*node));
	if (node == NULL) {
		return NULL;
	}
	vr_mat_identity(&node->linear);
	node->opacity = 1.0f;
	if (parent != NULL) {
		if (parent->nchildren == parent->cap) {
			size_t cap = parent->cap == 0 ? 4 : parent->cap * 2;
			struct bench_node **children =
					realloc(parent->children, cap * sizeof(*children));
			if (children == NULL) {
				free(node);
				return NULL;
			}
			parent->children = children;
			parent->cap = cap;
		}
		parent->children[parent->nchildren++] = node;
	}
	return node;
}

static void node_destroy(struct bench_node *node) {
	for (size_t i = 0; i < node->nchildren; i++) {
		node_destroy(node->children[i]);
	}
	free(node->children);
	bench_dl_finish(&node->dl);
	free(node->name);
	free(node);
}

void bench_node_transform(const struct bench_node *node, struct vr_mat *out) {
	*out = node->linear;
	out->tx = node->x + node->ax;
	out->ty = node->y + node->ay;
}

/* ---- scenes ------------------------------------------------------------- */

struct bench_scene *bench_scene_create(const char *name, const char *source) {
	struct bench_scene *scene = calloc(1, sizeof(*scene));
	if (scene == NULL) {
		return NULL;
	}
	scene->name = strdup(name);
	scene->source = source;
	scene->root = bench_node_create(NULL);
	if (scene->name == NULL || scene->root == NULL) {
		bench_scene_destroy(scene);
		return NULL;
	}
	scene->clear = (struct vr_color){ 0.0f, 0.0f, 0.0f, 1.0f };
	return scene;
}

void bench_scene_destroy(struct bench_scene *scene) {
	if (scene == NULL) {
		return;
	}
	if (scene->root != NULL) {
		node_destroy(scene->root);
	}
	for (size_t i = 0; i < scene->nimages; i++) {
		struct bench_image *image = scene->images[i];
		if (image->peer_destroy != NULL) {
			image->peer_destroy(image->peer);
		}
		vr_image_unref(image->image);
		free(image->name);
		free(image);
	}
	free(scene->images);
	free(scene->name);
	free(scene);
}

struct bench_image *bench_scene_find_image(struct bench_scene *scene,
		const char *name) {
	for (size_t i = 0; i < scene->nimages; i++) {
		if (strcmp(scene->images[i]->name, name) == 0) {
			return scene->images[i];
		}
	}
	return NULL;
}

struct bench_image *bench_scene_add_image(struct bench_scene *scene,
		const char *name, struct vr_image *vr_image) {
	if (scene->nimages == scene->images_cap) {
		size_t cap = scene->images_cap == 0 ? 16 : scene->images_cap * 2;
		struct bench_image **images =
				realloc(scene->images, cap * sizeof(*images));
		if (images == NULL) {
			return NULL;
		}
		scene->images = images;
		scene->images_cap = cap;
	}
	struct bench_image *image = calloc(1, sizeof(*image));
	if (image == NULL) {
		return NULL;
	}
	image->name = strdup(name);
	if (image->name == NULL) {
		free(image);
		return NULL;
	}
	image->image = vr_image_ref(vr_image);
	scene->images[scene->nimages++] = image;
	return image;
}

static void count_node(struct bench_stats *stats,
		const struct bench_node *node) {
	stats->nodes++;
	for (size_t i = 0; i < node->dl.len; i++) {
		enum bench_op_type type = node->dl.ops[i].type;
		if (!bench_op_is_draw(type)) {
			continue;
		}
		stats->commands++;
		if (type == BENCH_OP_IMAGE) {
			stats->images++;
		} else if (type == BENCH_OP_TEXT) {
			stats->texts++;
		} else if (type == BENCH_OP_PLACEHOLDER) {
			stats->placeholders++;
		}
	}
	for (size_t i = 0; i < node->nchildren; i++) {
		count_node(stats, node->children[i]);
	}
}

void bench_scene_count(struct bench_scene *scene) {
	struct bench_stats *stats = &scene->stats;
	stats->nodes = stats->commands = stats->images = stats->texts = 0;
	stats->placeholders = 0;
	count_node(stats, scene->root);
	stats->unique_images = scene->nimages;
}

static void apply_state(struct bench_node *node) {
	struct vr_mat m;
	bench_node_transform(node, &m);
	vr_node_set_transform(node->vr, &m);
}

static bool realise_node(struct vr_tree *tree, struct bench_node *node,
		struct vr_node *parent) {
	struct vr_node *vr = vr_node_create(tree);
	if (vr == NULL) {
		return false;
	}
	node->vr = vr;
	apply_state(node);
	if (node->has_clip) {
		vr_node_set_clip(vr, &node->clip);
	}
	if (node->opacity != 1.0f) {
		vr_node_set_opacity(vr, node->opacity);
	}
	struct vr_display_list *list = bench_dl_record(&node->dl);
	if (list != NULL) {
		vr_node_set_display_list(vr, list);
		vr_display_list_unref(list);
	}
	vr_node_set_parent(vr, parent);
	for (size_t i = 0; i < node->nchildren; i++) {
		if (!realise_node(tree, node->children[i], vr)) {
			return false;
		}
	}
	return true;
}

static void forget_node(struct bench_node *node) {
	node->vr = NULL;
	for (size_t i = 0; i < node->nchildren; i++) {
		forget_node(node->children[i]);
	}
}

struct vr_tree *bench_scene_realise(struct bench_scene *scene) {
	struct vr_tree *tree = vr_tree_create();
	if (tree == NULL) {
		return NULL;
	}
	if (!realise_node(tree, scene->root, vr_tree_root(tree))) {
		forget_node(scene->root);
		vr_tree_destroy(tree);
		return NULL;
	}
	return tree;
}

void bench_scene_release(struct bench_scene *scene, struct vr_tree *tree) {
	if (tree == NULL) {
		return;
	}
	if (scene->root->vr != NULL &&
			vr_node_parent(scene->root->vr) == vr_tree_root(tree)) {
		forget_node(scene->root);
	}
	vr_tree_destroy(tree);
}

static void animate_node(struct bench_node *node, uint32_t frame) {
	if (node->has_anim && node->anim.period > 0.0f) {
		float s = sinf(TAU * (float)frame / node->anim.period);
		node->ax = node->anim.dx * s;
		node->ay = node->anim.dy * s;
		if (node->vr != NULL) {
			apply_state(node);
		}
	}
	if (node->uses_video && node->vr != NULL) {
		vr_node_damage_content(node->vr, NULL);
	}
	for (size_t i = 0; i < node->nchildren; i++) {
		animate_node(node->children[i], frame);
	}
}

void bench_scene_animate(struct bench_scene *scene, uint32_t frame) {
	if (!scene->animated) {
		return;
	}
	for (size_t i = 0; i < scene->nimages; i++) {
		struct bench_image *image = scene->images[i];
		if (image->video) {
			bench_video_frame(image->image, image->video_seed, frame);
			if (image->peer_dirty != NULL) {
				image->peer_dirty(image->peer);
			}
		}
	}
	animate_node(scene->root, frame);
}

void bench_warn(struct bench_scene *scene, const char *fmt, ...) {
	va_list args;
	va_start(args, fmt);
	flockfile(stderr);
	fprintf(stderr, "warning: %s: ", scene != NULL ? scene->name : "bench");
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	funlockfile(stderr);
	va_end(args);
	if (scene != NULL) {
		scene->stats.warnings++;
	}
}
