/*
 * In-order preparation (stage 1, the caller's thread): the depth-first dry
 * run of one job over the updated tree. It replays every drawn node's
 * content with the node's cached absolute state composed with the job's
 * view — rects and images as quads, display lists command by command; or
 * the primitives kept from an earlier frame, see "Reuse across frames" —
 * into primitives with complete absolute state in target pixels, culls
 * them against the target, their clips and the damaged extents, batches
 * them, and pushes self-contained tasks into the pipeline's chain with
 * their AABBs through a sink (the pipeline's chain: vr_engine_prepare in
 * vk_chain.c; the reference renderer's list). It never calls
 * Vulkan.
 *
 * Batching: a primitive joins the newest compatible task among the last
 * `lookback` open ones (same kind and, per kind, the same texture (for
 * small images: the same atlas page), sampler and scissor requirements),
 * searching newest first and stopping at the first incompatible task whose AABB
 * overlaps the primitive's: drawing it earlier than that task would change the
 * picture. Open tasks are pushed in creation order when they leave the window,
 * so the chain order is the drawing order.
 *
 * Group opacity (engine.h, VR_TASK_LAYER): a node with opacity below 1
 * whose subtree's draws overlap one another is prepared into a layer: a
 * nested preparation of the subtree (its own batching window, opacity 1
 * at the node, the view translated to the layer's bounds) whose tasks go to
 * a sub-chain, pushed as one task. Whether the draws overlap is probed
 * first by a dry run of the subtree that only collects the primitives'
 * pixel bounds over the whole target (not only the damaged pixels, so a
 * node's decision does not change with damage). Otherwise the opacity is
 * flattened into every draw.
 *
 * Occlusion: a node whose drawn pixels within the damaged extents lie
 * inside one opaque node drawn after it (an opaque rect, or an XRGB image,
 * mapped by a whole-pixel translation, at full opacity, without a rounded
 * clip: it covers its bounds exactly) is not drawn at all: what it would
 * draw is overwritten. The window under a scroll region's frame, the
 * background under a window, are not filled again at every frame.
 *
 * Reuse across frames: replaying a node's content (composing its state
 * with the view, every display-list command's matrices, clips and rounded
 * clips) is most of the dry run's work, and for a node that did not change
 * it gives the same primitives frame after frame: only the culling against
 * the damage differs. So a drawn node keeps (vr_node::prep_cache, up to
 * PREP_ENTRIES keys: one per output showing it) its primitives as its
 * content makes them with the whole target damaged, keyed by what they
 * depend on besides the damage: the node's prep_stamp (tree.c bumps it
 * with any change to the node's relative state or content, and whenever
 * vr_tree_update recomputes its absolute state), the job's view and
 * target (a layer's view is the one translated to the layer) and the
 * opacity it is drawn with, all bit for bit. A node whose key matches is
 * replayed from its cache: each primitive cut to the damaged extents
 * (dropped when nothing of it is left), a shadow's cost recomputed from
 * its damaged part, then batched, held and placed in the atlas (quads go
 * through prepare_quad again) exactly as a fresh one would be; a stale
 * key captures the content first (a miss costs a capture and a replay).
 * The walk, the occluders, the occlusion of each node, the layers and
 * batching are done at every frame as before: they depend on the damage
 * and on the other nodes, not only on the node. Two exceptions keep the
 * result bit-identical: a display-list primitive's rounded clips are
 * chosen by its AABB after the damage (vr_rclips_for), so a node with such
 * primitives is replayed only when the damaged extents hold all of them
 * (rclip_box), and is prepared afresh otherwise; and a layer's dry run
 * (the probe) never uses the caches (it is bounded by MAX_PROBED and
 * would evict the layer's own entry). What a task points to (images,
 * paths, shaped text) is the node's content's, held by the sink at every
 * frame as before. The caches belong to the preparation's thread (the
 * tree's owner, which also frees them with the node, or once
 * VR_PREPARE_KEEP preparations passed without using them); tasks get
 * copies of the cached primitives in frame memory, so workers never read
 * them.
 * VITRAIL_PREPARE_REUSE=0 (or vr_prepare_options::no_reuse) prepares
 * every node afresh and leaves the caches alone: tests/test_prepare.c
 * checks the two give the same tasks and pixels over random trees and
 * changes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "prep_cache.h"

struct open_task {
	struct vr_task task;
	struct vr_task_payload payload;
	size_t prim_size;
	/* batch key */
	const struct vr_image *image; /* quads */
	uint32_t atlas_page; /* quads: images of one atlas page batch */
	struct vr_box clip; /* quads */
	bool nearest; /* quads, glyphs */
	/* any rounded clip: each vertex pipeline has a variant with them
	 * and one without (engine_private.h, struct vr_vertex_clip) */
	bool rclip; /* quads, shapes, triangles, glyphs */
};

/* Opaque nodes that cover their bounds (see the top): their drawing
 * order and bounds in target pixels. */
#define MAX_OCCLUDERS 16

struct occluder {
	size_t order;
	struct vr_box box;
};

/* Bounds of the primitives a dry run of a subtree would emit, target
 * pixels: do any two of them intersect? Past MAX_PROBED primitives the
 * answer is yes (conservative, and the probe stays cheap); the dry run
 * stops at the first yes. */
#define MAX_PROBED 32

struct probe {
	struct vr_box boxes[MAX_PROBED];
	size_t nboxes;
	bool overlap;
};

struct prepare {
	const struct vr_task_sink *sink;
	const struct vr_prepare_job *job;
	struct vr_box extents; /* damaged pixels inside the target */
	struct vr_box area; /* the damaged area in root coordinates */
	struct vr_box target_area; /* the whole target in root coordinates */
	struct probe *probe; /* non-NULL: a dry run (see the top) */
	const struct vr_prepare_options *options;
	struct open_task *window[VR_PREPARE_MAX_LOOKBACK];
	size_t nwindow;
	size_t lookback;
	bool failed;
	struct occluder occluders[MAX_OCCLUDERS];
	size_t noccluders;
	size_t order; /* of the node being visited */
	/* reuse (see the top) */
	bool reuse;
	struct prep_entry *capture; /* non-NULL: a node's content captured */
	bool capture_failed;
	struct vr_prepare_stats *stats; /* non-NULL: counted */
};

static const struct vr_prepare_options default_options = {
	.lookback = VR_BATCH_LOOKBACK,
};

static void *payload_array(struct vr_task_payload *payload) {
	return payload->quads; /* every member is the array */
}

static void set_payload_array(struct vr_task_payload *payload, void *array) {
	payload->quads = array;
}

static bool boxes_overlap(const struct vr_box *a, const struct vr_box *b) {
	struct vr_box i = vr_box_intersect(a, b);
	return !vr_box_empty(&i);
}

static bool compatible(const struct open_task *open,
		const struct prim_key *key) {
	if (open->task.kind != key->kind || open->payload.count >= VR_BATCH_MAX ||
			(open->payload.count > 0 &&
					open->task.cost + key->cost > VR_TASK_MAX_COST)) {
		return false; /* a heavy batch splits: see engine.h */
	}
	switch (key->kind) {
	case VR_TASK_QUADS:
		return (key->atlas_page != 0 ? open->atlas_page == key->atlas_page :
									   open->atlas_page == 0 &&
									   open->image == key->image) &&
				open->nearest == key->nearest && open->rclip == key->rclip &&
				vr_box_equal(&open->clip, &key->clip);
	case VR_TASK_GLYPHS:
		return open->nearest == key->nearest && open->rclip == key->rclip;
	case VR_TASK_SHAPES:
	case VR_TASK_TRIANGLES:
		/* everything else is per vertex */
		return open->rclip == key->rclip;
	case VR_TASK_SHADOW:
	case VR_TASK_LAYER:
	case VR_TASK_KIND_COUNT: break;
	}
	return false; /* shadows and layers render passes of their own */
}

static void push_oldest(struct prepare *prep) {
	struct open_task *open = prep->window[0];
	prep->nwindow--;
	memmove(&prep->window[0], &prep->window[1],
			prep->nwindow * sizeof(prep->window[0]));
	if (!prep->failed && !prep->sink->push(prep->sink->data, &open->task)) {
		prep->failed = true;
	}
}

static bool append_prim(struct prepare *prep, struct open_task *open) {
	struct vr_task_payload *payload = &open->payload;
	if (payload->count == payload->capacity) {
		uint32_t cap = payload->capacity > 0 ? payload->capacity * 2 : 4;
		if (cap > VR_BATCH_MAX) {
			cap = VR_BATCH_MAX;
		}
		void *array =
				prep->sink->alloc(prep->sink->data, cap * open->prim_size);
		if (array == NULL) {
			return false;
		}
		if (payload->count > 0) {
			memcpy(array, payload_array(payload),
					payload->count * open->prim_size);
		}
		set_payload_array(payload, array);
		payload->capacity = cap;
	}
	payload->count++;
	return true;
}

/* A dry run's primitive (see struct probe). */
static void probe_add(struct probe *probe, const struct vr_box *aabb) {
	if (probe->overlap) {
		return;
	}
	if (probe->nboxes == MAX_PROBED) {
		probe->overlap = true;
		return;
	}
	for (size_t i = 0; i < probe->nboxes; i++) {
		if (boxes_overlap(&probe->boxes[i], aabb)) {
			probe->overlap = true;
			return;
		}
	}
	probe->boxes[probe->nboxes++] = *aabb;
}

/* A zeroed slot for a captured primitive (see the top); NULL when out of
 * memory (the node is prepared afresh). */
static void *capture_prim(struct prepare *prep, const struct prim_key *key,
		const struct vr_box *aabb) {
	struct prep_entry *cache = prep->capture;
	if (prep->capture_failed) {
		return NULL;
	}
	if (cache->nprims == cache->capacity) {
		size_t cap = cache->capacity > 0 ? cache->capacity * 2 : 4;
		struct cached_prim *prims = realloc(cache->prims, cap * sizeof(*prims));
		if (prims == NULL) {
			prep->capture_failed = true;
			return NULL;
		}
		cache->prims = prims;
		cache->capacity = cap;
	}
	struct cached_prim *cp = &cache->prims[cache->nprims++];
	memset(cp, 0, sizeof(*cp));
	cp->key = *key;
	cp->aabb = *aabb;
	return &cp->prim;
}

/*
 * A slot for a primitive with this key and AABB (target pixels, inside the
 * damaged extents), zeroed unless the caller fills all of it (replay_prim),
 * in an open task: a compatible one of the window or a new one. NULL when
 * out of memory, or in a dry run (which only takes the AABB).
 */
static void *place_prim(struct prepare *prep, const struct prim_key *key,
		const struct vr_box *aabb, bool zeroed) {
	if (prep->failed) {
		return NULL;
	}
	if (prep->capture != NULL) {
		return capture_prim(prep, key, aabb);
	}
	if (prep->probe != NULL) {
		probe_add(prep->probe, aabb);
		return NULL; /* a dry run: nothing to fill */
	}
	struct open_task *open = NULL;
	size_t searched = prep->options->no_batching ? 0 : prep->nwindow;
	for (size_t i = searched; i-- > 0;) {
		struct open_task *candidate = prep->window[i];
		if (compatible(candidate, key)) {
			open = candidate;
			break;
		}
		if (boxes_overlap(&candidate->task.aabb, aabb)) {
			break; /* it must be drawn first */
		}
	}
	if (open == NULL) {
		open = prep->sink->alloc(prep->sink->data, sizeof(*open));
		if (open == NULL) {
			prep->failed = true;
			return NULL;
		}
		open->task = (struct vr_task){
			.kind = key->kind,
			.job = prep->job->index,
			.payload = &open->payload,
			.out = prep->sink->alloc(prep->sink->data, VR_TASK_OUT_SIZE),
		};
		if (open->task.out == NULL) {
			prep->failed = true;
			return NULL;
		}
		open->prim_size = key->size;
		open->image = key->image;
		open->atlas_page = key->atlas_page;
		open->clip = key->clip;
		open->nearest = key->nearest;
		open->rclip = key->rclip;
		if (prep->nwindow == prep->lookback) {
			push_oldest(prep);
		}
		prep->window[prep->nwindow++] = open;
	}
	if (!append_prim(prep, open)) {
		prep->failed = true;
		return NULL;
	}
	open->task.aabb = vr_box_union(&open->task.aabb, aabb);
	open->task.cost += key->cost;
	char *slot = (char *)payload_array(&open->payload) +
			(open->payload.count - 1) * open->prim_size;
	if (zeroed) {
		memset(slot, 0, open->prim_size);
	}
	return slot;
}

static void *add_prim(struct prepare *prep, const struct prim_key *key,
		const struct vr_box *aabb) {
	return place_prim(prep, key, aabb, true);
}

static void flush(struct prepare *prep) {
	while (prep->nwindow > 0) {
		push_oldest(prep);
	}
}

/* ---- tree content ------------------------------------------------------- */

/* What drawing the image first uploads (Vulkan): the pixels a GPU copy
 * of it lacks, all of them before its first copy, a unit per 128 (half a
 * KiB copied: about a unit's time; a large client buffer's upload is what
 * makes such a frame too long for the caller's thread, where its cost
 * otherwise counts one textured quad). */
static uint32_t upload_cost(const struct vr_image *image) {
	uint64_t pixels = 0;
	bool copied = false;
	vr_list_for_each(copy, &image->copies, struct vr_image_copy, link) {
		copied = true;
		const pixman_box32_t *ext =
				pixman_region32_extents((pixman_region32_t *)&copy->pending);
		uint64_t area =
				(uint64_t)(ext->x2 - ext->x1) * (uint64_t)(ext->y2 - ext->y1);
		pixels = area > pixels ? area : pixels;
	}
	if (!copied) {
		pixels = (uint64_t)image->width * (uint64_t)image->height;
	}
	uint64_t units = pixels / 128;
	return units > (1u << 20) ? (1u << 20) : (uint32_t)units;
}

static void prepare_quad(struct prepare *prep,
		const struct vr_draw_task *draw) {
	struct vr_box aabb = vr_box_intersect(&draw->aabb, &prep->extents);
	if (vr_box_empty(&aabb)) {
		return;
	}
	if (prep->capture != NULL) {
		/* replayed through here: the damage, the image's hold and
		 * atlas place are the frame's */
		struct prim_key key = { .kind = VR_TASK_QUADS };
		struct vr_draw_task *slot = capture_prim(prep, &key, &aabb);
		if (slot != NULL) {
			*slot = *draw;
		}
		return;
	}
	if (prep->probe != NULL) {
		probe_add(prep->probe, &aabb);
		return;
	}
	struct prim_key key = {
		.kind = VR_TASK_QUADS,
		.cost = VR_COST_PRIM +
				(draw->image != NULL ?
								VR_COST_IMAGE + upload_cost(draw->image) :
								0),
		.size = sizeof(struct vr_draw_task),
		.image = draw->image,
		.clip = draw->clip,
		.nearest = draw->nearest,
		.rclip = draw->nrclips > 0,
	};
	/* the task reads the image's pixels: held until it is done */
	if (draw->image != NULL && prep->sink->hold_image != NULL &&
			!prep->failed &&
			!prep->sink->hold_image(prep->sink->data, draw->image)) {
		prep->failed = true;
	}
	/* small images drawn pixel-exactly share atlas pages: quads of
	 * different images batch (engine.h) */
	struct vr_atlas_place place = { 0 };
	if (draw->image != NULL && prep->sink->atlas_place != NULL &&
			!prep->failed &&
			prep->sink->atlas_place(prep->sink->data, draw->image,
					draw->nearest, &place)) {
		key.atlas_page = place.page;
	}
	struct vr_draw_task *slot = add_prim(prep, &key, &aabb);
	if (slot != NULL) {
		*slot = *draw;
		slot->aabb = aabb;
		slot->atlas_page = place.page;
		slot->atlas_x = place.x;
		slot->atlas_y = place.y;
	}
}

/* ---- display lists ------------------------------------------------------ */

/* What every command of one node's list shares. */
struct node_state {
	struct vr_mat mat; /* list-local -> target pixels */
	struct vr_box clip; /* target ∩ ancestors' clips ∩ node bounds */
	/* the rounded clips of the node and its ancestors, outermost first,
	 * mapping to target pixels */
	uint32_t nrclips;
	struct vr_rclip_src rclips[VR_RCLIP_NEST_MAX];
	float opacity;
};

/* The absolute state of cmd; false when it is clipped away. *aabb gets
 * the command's pixels (its bounds plus a pixel of anti-aliasing) inside
 * the clips and the damaged extents. */
static bool command_state(struct prepare *prep, const struct node_state *ns,
		const struct vr_dl_command *cmd, struct vr_prim_state *state,
		struct vr_box *aabb) {
	vr_mat_multiply(&state->mat, &ns->mat, &cmd->mat);
	state->clip = ns->clip;
	if (cmd->has_clip) {
		struct vr_box box = vr_mat_map_rect_bounds(&ns->mat, &cmd->clip);
		state->clip = vr_box_intersect(&state->clip, &box);
	}
	/* the rounded clips nest: the node's, then the command's own */
	struct vr_rclip_src stack[VR_RCLIP_NEST_MAX + VR_DL_RCLIP_MAX];
	uint32_t nstack = ns->nrclips;
	memcpy(stack, ns->rclips, ns->nrclips * sizeof(stack[0]));
	for (uint32_t i = 0; i < cmd->nrclips; i++) {
		struct vr_rclip_src *src = &stack[nstack++];
		src->rrect = cmd->rclips[i].rrect;
		vr_mat_multiply(&src->mat, &ns->mat, &cmd->rclips[i].mat);
		struct vr_box box = vr_mat_map_rect_bounds(&src->mat, &src->rrect.rect);
		state->clip = vr_box_intersect(&state->clip, &box);
	}
	struct vr_rectf b = vr_rectf_map(&state->mat, &cmd->local_bounds);
	b.x -= 1.0f;
	b.y -= 1.0f;
	b.width += 2.0f;
	b.height += 2.0f;
	const struct vr_mat identity = { .a = 1, .d = 1 };
	*aabb = vr_mat_map_rect_bounds(&identity, &b);
	*aabb = vr_box_intersect(aabb, &state->clip);
	*aabb = vr_box_intersect(aabb, &prep->extents);
	if (vr_box_empty(aabb)) {
		return false;
	}
	state->nrclips =
			nstack > 0 ? vr_rclips_for(state->rclips, stack, nstack, aabb) : 0;
	if (nstack > 0 && prep->capture != NULL) {
		prep->capture->rclip_box =
				vr_box_union(&prep->capture->rclip_box, aabb);
	}
	const struct vr_color *c = &cmd->paint.color;
	float alpha = vr_clampf(c->a, 0.0f, 1.0f) * ns->opacity;
	state->color[0] = vr_clampf(c->r, 0.0f, 1.0f) * alpha;
	state->color[1] = vr_clampf(c->g, 0.0f, 1.0f) * alpha;
	state->color[2] = vr_clampf(c->b, 0.0f, 1.0f) * alpha;
	state->color[3] = alpha;
	return true;
}

/* A primitive's cost, bounded (one primitive never overflows a task's). */
static uint32_t cost_clamp(size_t cost) {
	return cost > VR_TASK_MAX_COST * 16 ? VR_TASK_MAX_COST * 16 :
										  (uint32_t)cost;
}

/* A shadow's cost: the blur's passes grow with its scratch image. */
static uint32_t shadow_cost(const struct vr_box *aabb) {
	size_t pixels = (size_t)aabb->width * (size_t)aabb->height;
	return cost_clamp(VR_COST_PRIM + VR_COST_SHADOW + pixels / 4096);
}

static float mat_scale(const struct vr_mat *m) {
	return sqrtf(fabsf(m->a * m->d - m->b * m->c));
}

static void prepare_command(struct prepare *prep, const struct node_state *ns,
		const struct vr_dl_command *cmd) {
	struct vr_prim_state state;
	struct vr_box aabb;
	if (!command_state(prep, ns, cmd, &state, &aabb)) {
		return;
	}
	if (cmd->op != VR_DL_IMAGE && state.color[3] <= 0.0f) {
		return;
	}
	switch (cmd->op) {
	case VR_DL_RECT:
	case VR_DL_RRECT:
	case VR_DL_ELLIPSE: {
		struct prim_key key = { .kind = VR_TASK_SHAPES,
			.cost = VR_COST_PRIM + VR_COST_SHAPE,
			.size = sizeof(struct vr_shape),
			.rclip = state.nrclips > 0 };
		struct vr_shape *shape = add_prim(prep, &key, &aabb);
		if (shape != NULL) {
			*shape = (struct vr_shape){
				.state = state,
				.rect = cmd->shape.rect,
				.radii = cmd->shape.radii,
				.ellipse = cmd->op == VR_DL_ELLIPSE,
				.stroke_width = fmaxf(cmd->paint.stroke_width, 0.0f),
			};
		}
		return;
	}
	case VR_DL_PATH: {
		size_t points = cmd->path != NULL ? cmd->path->npoints : 0;
		if (cmd->paint.stroke_width > 0.0f) {
			points *= 2; /* both sides, joins and caps */
		}
		struct prim_key key = { .kind = VR_TASK_TRIANGLES,
			.cost = cost_clamp(
					VR_COST_PRIM + VR_COST_PATH_POINT * (points + 3) / 4),
			.size = sizeof(struct vr_geometry),
			.rclip = state.nrclips > 0 };
		struct vr_geometry *geometry = add_prim(prep, &key, &aabb);
		if (geometry != NULL) {
			*geometry = (struct vr_geometry){
				.state = state,
				.path = cmd->path,
				.paint = cmd->paint,
			};
		}
		return;
	}
	case VR_DL_IMAGE: {
		const struct vr_rectf *dst = &cmd->image.dst;
		struct vr_mat unit = { .a = dst->width,
			.d = dst->height,
			.tx = dst->x,
			.ty = dst->y };
		struct vr_mat mat;
		vr_mat_multiply(&mat, &state.mat, &unit);
		struct vr_draw_task draw;
		if (vr_draw_task_init_image(&draw, &mat, cmd->image.image,
					&cmd->image.src, VR_TRANSFORM_NORMAL,
					cmd->image.opacity * ns->opacity, &state.clip)) {
			draw.nrclips = state.nrclips;
			memcpy(draw.rclips, state.rclips,
					state.nrclips * sizeof(state.rclips[0]));
			prepare_quad(prep, &draw);
		}
		return;
	}
	case VR_DL_TEXT: {
		const struct vr_mat *m = &state.mat;
		/* a translation and a uniform scale (up to float noise) */
		bool nearest = m->a > 0.0f && fabsf(m->b) < 1e-6f * m->a &&
				fabsf(m->c) < 1e-6f * m->a && fabsf(m->a - m->d) < 1e-6f * m->a;
		struct prim_key key = { .kind = VR_TASK_GLYPHS,
			.cost = cost_clamp(VR_COST_PRIM +
					VR_COST_GLYPH *
							(size_t)(cmd->text != NULL ? cmd->text->count : 0)),
			.size = sizeof(struct vr_glyph_run),
			.nearest = nearest,
			.rclip = state.nrclips > 0 };
		struct vr_glyph_run *run = add_prim(prep, &key, &aabb);
		if (run != NULL) {
			*run = (struct vr_glyph_run){
				.state = state,
				.text = cmd->text,
				.nearest = nearest,
			};
		}
		return;
	}
	case VR_DL_SHADOW: {
		if (!(mat_scale(&state.mat) > 0.0f)) {
			return;
		}
		struct prim_key key = { .kind = VR_TASK_SHADOW,
			.cost = shadow_cost(&aabb),
			.size = sizeof(struct vr_shadow) };
		struct vr_shadow *shadow = add_prim(prep, &key, &aabb);
		if (shadow != NULL) {
			*shadow = (struct vr_shadow){
				.state = state,
				.rect = cmd->shape.rect,
				.radii = cmd->shape.radii,
				.sigma = cmd->blur / 2.0f,
			};
		}
		return;
	}
	}
}

static void prepare_display_list(struct prepare *prep,
		const struct vr_node *node, float opacity) {
	const struct vr_node_abs *abs = &node->abs;
	struct node_state ns = {
		.clip = prep->job->target,
		.opacity = opacity,
	};
	vr_mat_multiply(&ns.mat, &prep->job->view, &abs->transform);
	ns.nrclips = abs->nrclips;
	for (uint32_t i = 0; i < abs->nrclips; i++) {
		ns.rclips[i].rrect = abs->rclips[i].rrect;
		vr_mat_multiply(&ns.rclips[i].mat, &prep->job->view,
				&abs->rclips[i].mat);
	}
	/* the node's bounds (its ancestors' clips included) bound its pixels:
	 * damage tracking relies on it */
	struct vr_rectf bounds = { (float)abs->bounds.x, (float)abs->bounds.y,
		(float)abs->bounds.width, (float)abs->bounds.height };
	struct vr_box box = vr_mat_map_rect_bounds(&prep->job->view, &bounds);
	ns.clip = vr_box_intersect(&ns.clip, &box);
	struct vr_display_list *list = node->content.list;
	/* tasks point into it (paths, shaped text): held until they are
	 * done, whatever happens to the node */
	if (prep->probe == NULL && prep->capture == NULL &&
			prep->sink->hold_list != NULL &&
			!prep->sink->hold_list(prep->sink->data, list)) {
		prep->failed = true;
		return;
	}
	for (size_t i = 0; i < list->ncommands && !prep->failed; i++) {
		if (prep->probe != NULL && prep->probe->overlap) {
			return; /* the dry run has its answer */
		}
		prepare_command(prep, &ns, &list->commands[i]);
	}
}

/* The node's drawn pixels inside the damaged extents, target pixels. */
static struct vr_box node_target_box(const struct prepare *prep,
		const struct vr_node *node) {
	const struct vr_box *b = &node->abs.bounds;
	struct vr_rectf r = { (float)b->x, (float)b->y, (float)b->width,
		(float)b->height };
	struct vr_box box = vr_mat_map_rect_bounds(&prep->job->view, &r);
	return vr_box_intersect(&box, &prep->extents);
}

/* Does the node cover its bounds with opaque pixels? */
static bool node_is_opaque(const struct prepare *prep,
		const struct vr_node *node) {
	const struct vr_node_abs *abs = &node->abs;
	if (abs->opacity < 1.0f || abs->nrclips > 0 ||
			(node->content.type != VR_CONTENT_RECT &&
					node->content.type != VR_CONTENT_IMAGE)) {
		return false;
	}
	if (node->content.type == VR_CONTENT_RECT && node->content.color.a < 1.0f) {
		return false;
	}
	if (node->content.type == VR_CONTENT_IMAGE &&
			node->content.image->format != VR_FORMAT_XRGB8888) {
		return false;
	}
	/* whole pixels: its quad is its bounds */
	struct vr_mat m;
	vr_mat_multiply(&m, &prep->job->view, &abs->transform);
	float w = node->content.width, h = node->content.height;
	return vr_mat_is_integer_translation(&m) && w == floorf(w) &&
			h == floorf(h);
}

static void collect_occluder(struct vr_node *node, void *data) {
	struct prepare *prep = data;
	size_t order = prep->order++;
	if (!node_is_opaque(prep, node)) {
		return;
	}
	struct vr_box box = node_target_box(prep, node);
	if (vr_box_empty(&box)) {
		return;
	}
	if (prep->noccluders == MAX_OCCLUDERS) {
		/* keep the later ones: they cover what is under them */
		memmove(&prep->occluders[0], &prep->occluders[1],
				(MAX_OCCLUDERS - 1) * sizeof(prep->occluders[0]));
		prep->noccluders--;
	}
	prep->occluders[prep->noccluders++] = (struct occluder){
		.order = order,
		.box = box,
	};
}

static bool box_contains(const struct vr_box *outer,
		const struct vr_box *inner) {
	return inner->x >= outer->x && inner->y >= outer->y &&
			inner->x + inner->width <= outer->x + outer->width &&
			inner->y + inner->height <= outer->y + outer->height;
}

/* Is everything the node draws here overwritten by an opaque node drawn
 * after it? */
static bool occluded(const struct prepare *prep, const struct vr_node *node,
		size_t order) {
	if (prep->noccluders == 0) {
		return false;
	}
	struct vr_box box = node_target_box(prep, node);
	if (vr_box_empty(&box)) {
		return false; /* culled by the later stages anyway */
	}
	for (size_t i = 0; i < prep->noccluders; i++) {
		if (prep->occluders[i].order > order &&
				box_contains(&prep->occluders[i].box, &box)) {
			return true;
		}
	}
	return false;
}

/* The node's content with this opacity (its absolute one, or relative to
 * the layer it is drawn into), afresh. */
static void node_content(struct prepare *prep, struct vr_node *node,
		float opacity) {
	switch (node->content.type) {
	case VR_CONTENT_RECT:
	case VR_CONTENT_IMAGE: {
		struct vr_draw_task draw;
		if (vr_draw_task_init(&draw, node, &prep->job->view, &prep->job->target,
					opacity)) {
			prepare_quad(prep, &draw);
		}
		break;
	}
	case VR_CONTENT_DISPLAY_LIST:
		prepare_display_list(prep, node, opacity);
		break;
	case VR_CONTENT_NONE: break;
	}
}

/* ---- reuse (see the top) --------------------------------------------------
 */

bool vr_prepare_reuse_default(void) {
	const char *env = getenv("VITRAIL_PREPARE_REUSE");
	return env == NULL || strcmp(env, "0") != 0;
}

/* Bit for bit: a -0 or a NaN is a key of its own. */
static bool entry_matches(const struct prep_entry *entry,
		const struct prepare *prep, const struct vr_node *node, float opacity) {
	return entry->valid && entry->stamp == node->prep_stamp &&
			memcmp(&entry->view, &prep->job->view, sizeof(entry->view)) == 0 &&
			vr_box_equal(&entry->target, &prep->job->target) &&
			memcmp(&entry->opacity, &opacity, sizeof(opacity)) == 0;
}

/* The node's content with the whole target damaged, into entry; false
 * when out of memory. */
static bool capture_node(struct prepare *prep, struct vr_node *node,
		float opacity, struct prep_entry *entry) {
	entry->valid = false;
	entry->nprims = 0;
	entry->rclip_box = (struct vr_box){ 0 };
	struct vr_box extents = prep->extents;
	prep->extents = prep->job->target;
	prep->capture = entry;
	prep->capture_failed = false;
	node_content(prep, node, opacity);
	prep->capture = NULL;
	prep->extents = extents;
	if (prep->capture_failed || prep->failed) {
		return false;
	}
	entry->valid = true;
	entry->stamp = node->prep_stamp;
	entry->view = prep->job->view;
	entry->target = prep->job->target;
	entry->opacity = opacity;
	return true;
}

/* A captured primitive cut to the damaged extents, as node_content would
 * have made it. */
static void replay_prim(struct prepare *prep, const struct cached_prim *cp) {
	if (cp->key.kind == VR_TASK_QUADS) {
		prepare_quad(prep, &cp->prim.quad);
		return;
	}
	struct vr_box aabb = vr_box_intersect(&cp->aabb, &prep->extents);
	if (vr_box_empty(&aabb)) {
		return;
	}
	struct prim_key key = cp->key;
	if (key.kind == VR_TASK_SHADOW) {
		key.cost = shadow_cost(&aabb);
	}
	void *slot = place_prim(prep, &key, &aabb, false);
	if (slot != NULL) {
		memcpy(slot, &cp->prim, key.size);
	}
}

/* The node's content from its cache (captured first if stale); false:
 * to be prepared afresh. */
static bool prepare_cached(struct prepare *prep, struct vr_node *node,
		float opacity) {
	struct vr_prep_cache *cache = node->prep_cache;
	if (cache == NULL) {
		cache = calloc(1, sizeof(*cache));
		if (cache == NULL) {
			return false;
		}
		node->prep_cache = cache;
	}
	vr_tree_prep_touch(node);
	struct prep_entry *entry = NULL;
	for (size_t i = 0; i < PREP_ENTRIES && entry == NULL; i++) {
		if (entry_matches(&cache->entries[i], prep, node, opacity)) {
			entry = &cache->entries[i];
		}
	}
	bool hit = entry != NULL;
	if (!hit) {
		entry = &cache->entries[0];
		for (size_t i = 1; i < PREP_ENTRIES; i++) {
			if (cache->entries[i].used < entry->used) {
				entry = &cache->entries[i];
			}
		}
		if (!capture_node(prep, node, opacity, entry)) {
			return false;
		}
	}
	entry->used = ++cache->clock;
	/* rounded clips chosen by AABBs the damage would cut */
	if (!vr_box_empty(&entry->rclip_box) &&
			!box_contains(&prep->extents, &entry->rclip_box)) {
		return false;
	}
	if (node->content.type == VR_CONTENT_DISPLAY_LIST &&
			prep->sink->hold_list != NULL &&
			!prep->sink->hold_list(prep->sink->data, node->content.list)) {
		prep->failed = true;
		return true;
	}
	for (size_t i = 0; i < entry->nprims && !prep->failed; i++) {
		replay_prim(prep, &entry->prims[i]);
	}
	if (hit && prep->stats != NULL) {
		prep->stats->reused_nodes++;
		prep->stats->reused_prims += (uint32_t)entry->nprims;
	}
	return true;
}

/* The node's content with this opacity (its absolute one, or relative to
 * the layer it is drawn into). */
static void prepare_node(struct prepare *prep, struct vr_node *node,
		float opacity) {
	size_t order = prep->order++;
	/* a dry run draws what the whole target shows, occluded or not */
	if (prep->failed || (prep->probe == NULL && occluded(prep, node, order))) {
		return;
	}
	/* not for a dry run (see the top) */
	if (node->content.type == VR_CONTENT_NONE ||
			(prep->reuse && prep->probe == NULL &&
					prepare_cached(prep, node, opacity))) {
		return;
	}
	node_content(prep, node, opacity);
}

/* ---- the walk and group opacity ------------------------------------------ */

static bool node_in(const struct vr_box *box, const struct vr_box *area) {
	struct vr_box i = vr_box_intersect(box, area);
	return !vr_box_empty(&i);
}

static const struct vr_box *walk_area(const struct prepare *prep) {
	return prep->probe != NULL ? &prep->target_area : &prep->area;
}

static void prepare_tree(struct prepare *prep, struct vr_node *node,
		float parent_opacity);

/* The node's content and its children's subtrees, in drawing order (as
 * vr_tree_for_each_drawn visits them: collect_occluder's order). */
static void prepare_subtree(struct prepare *prep, struct vr_node *node,
		float opacity) {
	if (node->abs.drawn && node_in(&node->abs.bounds, walk_area(prep))) {
		prepare_node(prep, node, opacity);
	}
	vr_list_for_each(child, &node->children, struct vr_node, link) {
		if (prep->failed || (prep->probe != NULL && prep->probe->overlap)) {
			return;
		}
		prepare_tree(prep, child, opacity);
	}
}

/* The damaged area (root coordinates, a pixel wider for float noise) of
 * target pixels under view; false when the view is degenerate. */
static bool root_area(const struct vr_mat *view, const struct vr_box *box,
		struct vr_box *out) {
	struct vr_mat inverse;
	if (!vr_mat_invert(&inverse, view)) {
		return false;
	}
	struct vr_rectf r = { (float)box->x - 1.0f, (float)box->y - 1.0f,
		(float)box->width + 2.0f, (float)box->height + 2.0f };
	*out = vr_mat_map_rect_bounds(&inverse, &r);
	return true;
}

/* The layer's sub-chain: tasks copied into frame memory, the rest of the
 * sink forwarded to the frame's. */
struct layer_sink {
	const struct vr_task_sink *parent;
	struct vr_task *tasks;
	uint32_t ntasks, capacity;
};

static void *layer_alloc(void *data, size_t size) {
	struct layer_sink *ls = data;
	return ls->parent->alloc(ls->parent->data, size);
}

static bool layer_push(void *data, const struct vr_task *task) {
	struct layer_sink *ls = data;
	if (ls->ntasks == ls->capacity) {
		uint32_t cap = ls->capacity > 0 ? ls->capacity * 2 : 8;
		struct vr_task *tasks =
				ls->parent->alloc(ls->parent->data, cap * sizeof(*tasks));
		if (tasks == NULL) {
			return false;
		}
		if (ls->ntasks > 0) {
			memcpy(tasks, ls->tasks, ls->ntasks * sizeof(*tasks));
		}
		ls->tasks = tasks;
		ls->capacity = cap;
	}
	ls->tasks[ls->ntasks] = *task;
	ls->tasks[ls->ntasks].index = ls->ntasks;
	ls->ntasks++;
	return true;
}

static bool layer_hold_image(void *data, struct vr_image *image) {
	struct layer_sink *ls = data;
	return ls->parent->hold_image(ls->parent->data, image);
}

static bool layer_hold_list(void *data, struct vr_display_list *list) {
	struct layer_sink *ls = data;
	return ls->parent->hold_list(ls->parent->data, list);
}

static bool layer_atlas_place(void *data, struct vr_image *image, bool nearest,
		struct vr_atlas_place *out) {
	struct layer_sink *ls = data;
	return ls->parent->atlas_place(ls->parent->data, image, nearest, out);
}

/*
 * Group opacity: true when the node's subtree went into a layer (or
 * draws nothing), false when it is to be flattened (see the top).
 */
static bool prepare_layer(struct prepare *prep, struct vr_node *node,
		float opacity) {
	if (prep->probe != NULL) {
		return false; /* a dry run sees every draw, nested ones too */
	}
	/* the dry run over the whole target: do the draws overlap? */
	struct probe probe = { 0 };
	struct vr_box extents = prep->extents;
	size_t order = prep->order;
	prep->probe = &probe;
	prep->extents = prep->job->target;
	prepare_subtree(prep, node, 1.0f);
	prep->probe = NULL;
	prep->extents = extents;
	prep->order = order;
	if (!probe.overlap || prep->failed) {
		return false;
	}
	/* the layer's bounds: the subtree's pixels (which bound its draws, as
	 * damage tracking relies on) in the target, whatever the damage (the
	 * layer's coordinates, hence its pixels, do not depend on it); its
	 * box: their damaged part */
	const struct vr_box *sb = &node->abs.subtree_bounds;
	struct vr_rectf rect = { (float)sb->x, (float)sb->y, (float)sb->width,
		(float)sb->height };
	struct vr_box bounds = vr_mat_map_rect_bounds(&prep->job->view, &rect);
	bounds = vr_box_intersect(&bounds, &prep->job->target);
	struct vr_box box = vr_box_intersect(&bounds, &extents);
	if (vr_box_empty(&box)) {
		return false; /* nothing damaged: flattened draws nothing */
	}

	struct layer_sink ls = { .parent = prep->sink };
	const struct vr_task_sink *ps = prep->sink;
	const struct vr_task_sink sink = {
		.alloc = layer_alloc,
		.push = layer_push,
		.hold_image = ps->hold_image != NULL ? layer_hold_image : NULL,
		.hold_list = ps->hold_list != NULL ? layer_hold_list : NULL,
		.atlas_place = ps->atlas_place != NULL ? layer_atlas_place : NULL,
		.data = &ls,
	};
	/* the job translated: the bounds' top-left is the layer's (0, 0);
	 * the target (whose pixels the layer's own layers probe) moves
	 * along */
	struct vr_prepare_job job = {
		.index = prep->job->index,
		.target = prep->job->target,
		.extents = { box.x - bounds.x, box.y - bounds.y, box.width,
				box.height },
	};
	struct vr_mat shift = { .a = 1,
		.d = 1,
		.tx = (float)-bounds.x,
		.ty = (float)-bounds.y };
	vr_mat_multiply(&job.view, &shift, &prep->job->view);
	job.target.x -= bounds.x;
	job.target.y -= bounds.y;
	struct prepare sub = {
		.sink = &sink,
		.job = &job,
		.extents = job.extents,
		.area = prep->area,
		.target_area = prep->target_area,
		.options = prep->options,
		.lookback = prep->lookback,
		.order = prep->order,
		.reuse = prep->reuse,
		.stats = prep->stats,
	};
	/* the occluders, in the layer's pixels */
	for (size_t i = 0; i < prep->noccluders; i++) {
		sub.occluders[i] = prep->occluders[i];
		sub.occluders[i].box.x -= bounds.x;
		sub.occluders[i].box.y -= bounds.y;
	}
	sub.noccluders = prep->noccluders;
	prepare_subtree(&sub, node, 1.0f);
	flush(&sub);
	prep->order = sub.order;
	if (sub.failed) {
		prep->failed = true;
		return true;
	}
	if (ls.ntasks == 0) {
		return true; /* everything was occluded */
	}

	size_t cost = VR_COST_PRIM + VR_COST_LAYER +
			(size_t)box.width * (size_t)box.height / 4096;
	for (uint32_t i = 0; i < ls.ntasks; i++) {
		cost += ls.tasks[i].cost;
	}
	struct prim_key key = { .kind = VR_TASK_LAYER,
		.cost = cost_clamp(cost),
		.size = sizeof(struct vr_layer) };
	bool *drawn = prep->sink->alloc(prep->sink->data, ls.ntasks * sizeof(bool));
	if (drawn == NULL) {
		prep->failed = true;
		return true;
	}
	struct vr_layer *layer = add_prim(prep, &key, &box);
	if (layer != NULL) {
		*layer = (struct vr_layer){
			.bounds = bounds,
			.box = box,
			.alpha = (uint8_t)lroundf(vr_clampf(opacity, 0.0f, 1.0f) * 255.0f),
			.ntasks = ls.ntasks,
			.tasks = ls.tasks,
			.drawn = drawn,
		};
	}
	return true;
}

static void prepare_tree(struct prepare *prep, struct vr_node *node,
		float parent_opacity) {
	if (!node->abs.visible ||
			!node_in(&node->abs.subtree_bounds, walk_area(prep))) {
		return;
	}
	/* multiplied as vr_tree_update does: flattened opacity is the
	 * node's absolute one, bit for bit */
	float opacity = parent_opacity * node->opacity;
	if (!(opacity > 0.0f)) {
		return; /* nothing of it is drawn (nor counted as drawn) */
	}
	if (node->opacity < 1.0f && prepare_layer(prep, node, opacity)) {
		return;
	}
	prepare_subtree(prep, node, opacity);
}

bool vr_prepare_tasks(const struct vr_task_sink *sink, struct vr_tree *tree,
		const struct vr_prepare_job *job,
		const struct vr_prepare_options *options) {
	struct vr_prepare_options defaults = default_options;
	if (options == NULL) {
		defaults.no_reuse = !vr_prepare_reuse_default();
		options = &defaults;
	}
	struct prepare prep = {
		.sink = sink,
		.job = job,
		.options = options,
		.extents = vr_box_intersect(&job->extents, &job->target),
		.lookback = options->lookback == 0 ? VR_BATCH_LOOKBACK :
				options->lookback > VR_PREPARE_MAX_LOOKBACK ?
											 VR_PREPARE_MAX_LOOKBACK :
											 options->lookback,
		.reuse = !options->no_reuse,
		.stats = options->stats,
	};
	vr_tree_prep_begin(tree, VR_PREPARE_KEEP);
	if (job->index == 0) {
		/* no task of any frame runs: vr_render_submit waited for
		 * every renderer's CPU stage (vr_cpu_stages_wait_idle) */
		vr_glyph_atlas_begin_frame();
	}
	if (vr_box_empty(&prep.extents)) {
		return true;
	}
	/* the damaged area in root coordinates */
	if (!root_area(&job->view, &prep.extents, &prep.area) ||
			!root_area(&job->view, &job->target, &prep.target_area)) {
		return true; /* a degenerate view shows nothing */
	}
	/* the occluders first, then the nodes in drawing order */
	vr_tree_for_each_drawn(tree, &prep.area, collect_occluder, &prep);
	prep.order = 0;
	prepare_tree(&prep, vr_tree_root(tree), 1.0f);
	flush(&prep);
	return !prep.failed;
}
