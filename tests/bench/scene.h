/*
 * The benchmark's own description of a scene: a tree of nodes with
 * relative state and display lists of draw commands. It is what both
 * renderers under test replay — vitrail (the tree is realised as vr_nodes
 * whose content is recorded through <vitrail/canvas.h>) and Cairo (the
 * classic sequential peer walks it every frame) — so they draw exactly the
 * same commands.
 *
 * Sources: tree dumps (rstree.c) and our JSON scenes (scene_json.c).
 */
#ifndef BENCH_SCENE_H
#define BENCH_SCENE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vitrail/canvas.h>
#include <vitrail/renderer.h>

#define BENCH_MAX_OUTPUTS 8

/* ---- seeded random numbers (splitmix64) --------------------------------- */

struct bench_rng {
	uint64_t state;
};

void bench_rng_seed(struct bench_rng *rng, uint64_t seed);
uint64_t bench_rng_next(struct bench_rng *rng);
/* Uniform in [lo, hi). */
float bench_rng_float(struct bench_rng *rng, float lo, float hi);
/* Uniform in [lo, hi], both included. */
int bench_rng_int(struct bench_rng *rng, int lo, int hi);

/* ---- images ------------------------------------------------------------- */

struct bench_image {
	char *name;
	struct vr_image *image; /* referenced */
	bool video; /* rewritten every frame by bench_scene_animate() */
	uint32_t video_seed;
	/* The Cairo peer's surface over the same pixels, and how to free it. */
	void *peer;
	void (*peer_destroy)(void *peer);
	void (*peer_dirty)(void *peer);
};

/* Decode a PNG or JPEG file (by its signature) into BGRA8 premultiplied
 * pixels; NULL (no message) when the file is missing or undecodable.
 * *decode_ns gets the decoding time. */
struct vr_image *bench_image_load(const char *path, uint64_t *decode_ns);

/* Procedural images. kind: "gradient", "noise", "checker", "photo",
 * "icon", "video"; colours may be NULL (defaults). NULL on bad kind. */
struct vr_image *bench_image_generate(const char *kind, int32_t width,
		int32_t height, uint64_t seed, const struct vr_color *c0,
		const struct vr_color *c1);

/* Fill a video frame: the content depends only on (seed, frame). */
void bench_video_frame(struct vr_image *image, uint32_t seed, uint32_t frame);

/* ---- display lists ------------------------------------------------------ */

enum bench_op_type {
	/* state */
	BENCH_OP_SAVE,
	BENCH_OP_RESTORE,
	BENCH_OP_TRANSLATE, /* v[0], v[1] */
	BENCH_OP_SCALE, /* v[0], v[1] */
	BENCH_OP_ROTATE, /* v[0] radians */
	BENCH_OP_CLIP_RECT, /* rect */
	BENCH_OP_CLIP_RRECT, /* rect, radii */
	/* draws */
	BENCH_OP_RECT, /* rect, paint */
	BENCH_OP_RRECT, /* rect, radii, paint */
	BENCH_OP_ELLIPSE, /* rect, paint */
	BENCH_OP_LINE, /* v[0..3], paint */
	BENCH_OP_POLYLINE, /* points, count, closed, paint */
	BENCH_OP_PATH, /* path, path_len, paint */
	BENCH_OP_IMAGE, /* image, src (has_src), rect = dst, v[0] = opacity */
	BENCH_OP_TEXT, /* text, v[0], v[1] = baseline origin, font, color */
	BENCH_OP_SHADOW, /* rect, radii, v[0] = blur, color */
	BENCH_OP_PLACEHOLDER, /* a missing image: rect, paint (a filled rect) */
};

enum bench_path_verb {
	BENCH_PATH_MOVE,
	BENCH_PATH_LINE,
	BENCH_PATH_QUAD,
	BENCH_PATH_CUBIC,
	BENCH_PATH_CLOSE,
};

struct bench_path_el {
	enum bench_path_verb verb;
	float p[6];
};

struct bench_op {
	enum bench_op_type type;
	struct vr_rectf rect;
	struct vr_radii radii;
	struct vr_paint paint;
	float v[4];
	float *points; /* 2 * count floats, owned */
	size_t count;
	bool closed;
	struct bench_path_el *path; /* owned */
	size_t path_len;
	struct bench_image *image; /* owned by the scene */
	bool has_src;
	struct vr_rectf src;
	char *text; /* owned */
	struct vr_font font; /* family: an interned string (bench_intern) */
	struct vr_color color;
};

struct bench_dl {
	struct bench_op *ops;
	size_t len, cap;
};

/* Append a zeroed op of the given type; NULL when out of memory. */
struct bench_op *bench_dl_add(struct bench_dl *dl, enum bench_op_type type);
void bench_dl_finish(struct bench_dl *dl);
bool bench_op_is_draw(enum bench_op_type type);

/* A string that lives until the process exits (font families). */
const char *bench_intern(const char *str);

/* Record the list through the canvas API (NULL when it is empty). */
struct vr_display_list *bench_dl_record(const struct bench_dl *dl);

/* n random small primitives (rects, rounded rects, ellipses, lines,
 * polylines, short texts) inside area: the paper's ramp. */
void bench_random_prims(struct bench_dl *dl, struct bench_rng *rng, size_t n,
		struct vr_rectf area);

/* ---- nodes and scenes --------------------------------------------------- */

struct bench_anim {
	float dx, dy; /* amplitude of a sinusoidal move */
	float period; /* frames */
};

struct bench_node {
	char *name;
	float x, y; /* position part of the transform */
	float ax, ay; /* current animation offset, added to x, y */
	struct vr_mat linear; /* the rest (tx = ty = 0): scale, rotation */
	bool has_clip;
	struct vr_rectf clip;
	float opacity;
	struct bench_dl dl;
	struct bench_node **children;
	size_t nchildren, cap;
	bool has_anim;
	struct bench_anim anim;
	bool uses_video; /* its list draws a video image */
	struct vr_node *vr; /* in the last realised tree */
};

struct bench_node *bench_node_create(struct bench_node *parent);
/* Relative transform: translate(x, y) * linear. */
void bench_node_transform(const struct bench_node *node, struct vr_mat *out);

struct bench_stats {
	size_t nodes;
	size_t commands; /* draw commands */
	size_t images; /* image draws */
	size_t texts; /* text draws */
	size_t unique_images; /* decoded or generated */
	size_t placeholders; /* image draws of missing files */
	size_t warnings;
};

struct bench_scene {
	char *name;
	const char *source; /* "rstree" or "ours" */
	struct bench_node *root;
	size_t noutputs;
	struct vr_box outputs[BENCH_MAX_OUTPUTS]; /* areas in root coordinates */
	struct vr_color clear;
	struct bench_image **images;
	size_t nimages, images_cap;
	struct bench_stats stats;
	double decode_ms; /* image decoding while building */
	double build_ms; /* everything while building, decoding included */
	int cold_samples; /* 0: the program's default */
	bool animated; /* moving nodes or video images */
};

struct bench_scene *bench_scene_create(const char *name, const char *source);
void bench_scene_destroy(struct bench_scene *scene); /* accepts NULL */
/* Find or load/generate an image by name. */
struct bench_image *bench_scene_add_image(struct bench_scene *scene,
		const char *name, struct vr_image *image);
struct bench_image *bench_scene_find_image(struct bench_scene *scene,
		const char *name);
/* Recount stats.nodes/commands/images/texts/placeholders from the tree. */
void bench_scene_count(struct bench_scene *scene);

/* Build a fresh vr_tree from the scene (display lists recorded through
 * the canvas); every bench_node's vr points into it. */
struct vr_tree *bench_scene_realise(struct bench_scene *scene);
/* Destroy a tree made by bench_scene_realise (accepts NULL); the scene's
 * nodes forget it. */
void bench_scene_release(struct bench_scene *scene, struct vr_tree *tree);
/* Advance animations and video images to `frame` in the scene and in its
 * last realised tree. */
void bench_scene_animate(struct bench_scene *scene, uint32_t frame);

/* Warnings of the scene loaders go through here (counted per scene). */
void bench_warn(struct bench_scene *scene, const char *fmt, ...)
		__attribute__((format(printf, 2, 3)));

#endif
