/*
 * What preparation keeps of a node's primitives between frames
 * (prepare.c, "Reuse across frames"): a node's vr_prep_cache. Below both
 * preparation and the tree: the tree frees a node's cache with the node
 * (tree.c), preparation fills and replays it.
 */
#ifndef RENDERER_PREP_CACHE_H
#define RENDERER_PREP_CACHE_H

#include "engine_private.h"

/* The primitive's kind-specific batch key. */
struct prim_key {
	enum vr_task_kind kind;
	uint32_t cost; /* of the primitive (engine.h, VR_COST_*) */
	size_t size; /* of the primitive */
	const struct vr_image *image;
	uint32_t atlas_page;
	struct vr_box clip;
	bool nearest;
	bool rclip;
};

/* A node's primitive as its content made it, with the target for the
 * damaged extents (see the top). */
struct cached_prim {
	struct prim_key key; /* shadows: their cost is the damaged part's */
	struct vr_box aabb; /* target pixels; quads: in quad.aabb */
	union {
		struct vr_draw_task quad;
		struct vr_shape shape;
		struct vr_geometry geometry;
		struct vr_glyph_run run;
		struct vr_shadow shadow;
	} prim;
};

/* A node's primitives for one key. */
struct prep_entry {
	bool valid;
	uint64_t used; /* vr_prep_cache::clock when last replayed */
	/* the key: what the primitives depend on besides the damage */
	uint64_t stamp; /* vr_node::prep_stamp */
	struct vr_mat view;
	struct vr_box target;
	float opacity;
	/* the union of the primitives whose rounded clips were chosen by
	 * their AABBs (vr_rclips_for): replayed only when the damaged
	 * extents hold it whole */
	struct vr_box rclip_box;
	struct cached_prim *prims;
	size_t nprims, capacity;
};

/* Keys a node is prepared with at every frame: an output each (a node
 * shown on two of them), the least recently used one replaced. */
#define PREP_ENTRIES 2

struct vr_prep_cache {
	struct prep_entry entries[PREP_ENTRIES];
	uint64_t clock;
};

#endif
