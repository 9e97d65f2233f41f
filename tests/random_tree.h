/*
 * The random render trees of the property tests (test-parallel,
 * test-prepare, test-cpu): a seeded generator of images, transforms,
 * node content (rects, images, display lists of every canvas command,
 * groups), clips (rounded ones too), opacity and enabling. The same seed
 * and options build the same tree.
 *
 * The tests differ only in their options (struct random_tree_options):
 * the size of the world the trees are drawn into, how many nodes show a
 * display list and how long the lists are, and whether paths have a
 * cubic segment and text a bold face.
 * What a test does with its trees (outputs, views, damage, changes
 * between frames) stays in the test.
 */
#ifndef TESTS_RANDOM_TREE_H
#define TESTS_RANDOM_TREE_H

#include <pixman.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vitrail/renderer.h>

/* A 64-bit LCG: the same seed gives the same stream everywhere (no libc
 * rand, whose sequence differs between C libraries). */
struct rng {
	uint64_t state;
};

uint32_t rng_next(struct rng *rng);
/* uniform in [0, n) */
uint32_t rng_below(struct rng *rng, uint32_t n);
float rng_float(struct rng *rng, float lo, float hi);
bool rng_chance(struct rng *rng, float p);

#define RANDOM_TREE_IMAGES 3
/* nodes a tree holds at most, those a test adds after the build included */
#define RANDOM_TREE_MAX_NODES 64

struct random_tree_options {
	/* Coordinates, sizes, radii, blurs and stroke widths are drawn for a
	 * 96x64 target and multiplied by this: 1 for the GPU tests' small
	 * targets (their cost is per tree, hundreds of them), 2 for
	 * test-cpu's 240x180 one. Images are up to 24 * scale a side. */
	float scale;
	/* the share of nodes whose content is a display list (the others
	 * show rects, images or nothing) */
	float lists;
	/* a display list holds 1 to max_commands canvas commands */
	uint32_t max_commands;
	/* paths with a cubic segment after their quadratic one */
	bool cubic;
	/* text in DejaVu Sans Bold (one in five runs) as well as Book */
	bool bold;
};

struct random_tree {
	const struct random_tree_options *options;
	struct vr_tree *tree;
	struct vr_image *images[RANDOM_TREE_IMAGES];
	struct vr_node *nodes[RANDOM_TREE_MAX_NODES];
	size_t nnodes;
};

/* A new tree of 4 to 43 nodes under the root; options must outlive it.
 * vr_tree_update is the caller's. */
void random_tree_build(struct random_tree *rt,
		const struct random_tree_options *options, struct rng *rng);
/* The tree (and the nodes still in it) and the images. */
void random_tree_destroy(struct random_tree *rt);

/* One more random node (transform, content, maybe a clip and opacity,
 * maybe disabled) under the root or a node of the tree, appended to
 * nodes; the caller keeps nnodes below RANDOM_TREE_MAX_NODES. */
struct vr_node *random_tree_add_node(struct random_tree *rt, struct rng *rng);

/* A position, or a turn and scale, or a stretch, at a random place. */
void random_transform(struct random_tree *rt, struct rng *rng,
		struct vr_node *node);
/* New content: a rect, one of the tree's images, a display list or none
 * (a group). */
void random_content(struct random_tree *rt, struct rng *rng,
		struct vr_node *node);
/* A rounded clip, a clip, or none. */
void random_clip(struct random_tree *rt, struct rng *rng, struct vr_node *node);

/* An image of 1 to max_side pixels a side, ARGB or XRGB, random
 * premultiplied pixels. */
struct vr_image *random_image(struct rng *rng, int32_t max_side);
/* Random premultiplied pixels into region (NULL: all) of image. */
void write_random_pixels(struct rng *rng, struct vr_image *image,
		const pixman_region32_t *region);
/* straight alpha, opaque half of the time */
struct vr_color random_color(struct rng *rng);

#endif
