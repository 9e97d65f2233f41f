/*
 * In-order preparation (stage 1, the caller's thread): the depth-first dry
 * run of one job over the updated tree. It replays every drawn node's
 * content with the node's cached absolute state composed with the job's
 * view — rects and images as quads, display lists command by command —
 * into primitives with complete absolute state in target pixels, culls
 * them against the target, their clips and the damaged extents, batches
 * them, and pushes self-contained tasks into the pipeline's chain with
 * their AABBs through a sink (the pipeline's chain: vr_engine_prepare in
 * engine_dispatch.c; the reference renderer's list). It never calls
 * Vulkan.
 *
 * Batching: a primitive joins the newest compatible task among the last
 * `lookback` open ones (same kind and, per kind, the same texture (for
 * small images: the same atlas page), sampler and scissor requirements), searching newest first and stopping at the
 * first incompatible task whose AABB overlaps the primitive's: drawing it
 * earlier than that task would change the picture. Open tasks are pushed
 * in creation order when they leave the window, so the chain order is the
 * drawing order.
 *
 * Occlusion: a node whose drawn pixels within the damaged extents lie
 * inside one opaque node drawn after it (an opaque rect, or an XRGB image,
 * mapped by a whole-pixel translation, at full opacity, without a rounded
 * clip: it covers its bounds exactly) is not drawn at all: what it would
 * draw is overwritten. The window under a scroll region's frame, the
 * background under a window, are not filled again at every frame.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "engine_private.h"

struct open_task {
	struct vr_task task;
	struct vr_task_payload payload;
	size_t prim_size;
	/* batch key */
	const struct vr_image *image; /* quads */
	uint32_t atlas_page; /* quads: images of one atlas page batch */
	struct vr_box clip; /* quads */
	bool nearest; /* quads, glyphs */
	bool rclip; /* quads */
};

/* Opaque nodes that cover their bounds (see the top): their drawing
 * order and bounds in target pixels. */
#define MAX_OCCLUDERS 16

struct occluder {
	size_t order;
	struct vr_box box;
};

struct prepare {
	const struct vr_task_sink *sink;
	const struct vr_prepare_job *job;
	struct vr_box extents; /* damaged pixels inside the target */
	const struct vr_prepare_options *options;
	struct open_task *window[VR_PREPARE_MAX_LOOKBACK];
	size_t nwindow;
	size_t lookback;
	bool failed;
	struct occluder occluders[MAX_OCCLUDERS];
	size_t noccluders;
	size_t order; /* of the node being visited */
};

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

static const struct vr_prepare_options default_options = {
	.lookback = VR_BATCH_LOOKBACK,
};

static void *payload_array(struct vr_task_payload *payload)
{
	return payload->quads; /* every member is the array */
}

static void set_payload_array(struct vr_task_payload *payload, void *array)
{
	payload->quads = array;
}

static bool boxes_overlap(const struct vr_box *a, const struct vr_box *b)
{
	struct vr_box i = vr_box_intersect(a, b);
	return !vr_box_empty(&i);
}

static bool compatible(const struct open_task *open,
		const struct prim_key *key)
{
	if (open->task.kind != key->kind ||
			open->payload.count >= VR_BATCH_MAX ||
			(open->payload.count > 0 &&
			open->task.cost + key->cost > VR_TASK_MAX_COST)) {
		return false; /* a heavy batch splits: see engine.h */
	}
	switch (key->kind) {
	case VR_TASK_QUADS:
		return (key->atlas_page != 0 ? open->atlas_page == key->atlas_page :
				open->atlas_page == 0 && open->image == key->image) &&
			open->nearest == key->nearest &&
			open->rclip == key->rclip &&
			vr_box_equal(&open->clip, &key->clip);
	case VR_TASK_GLYPHS:
		return open->nearest == key->nearest;
	case VR_TASK_SHAPES:
	case VR_TASK_TRIANGLES:
		return true; /* everything is per vertex */
	case VR_TASK_SHADOW:
	case VR_TASK_KIND_COUNT:
		break;
	}
	return false; /* shadows render passes of their own */
}

static void push_oldest(struct prepare *prep)
{
	struct open_task *open = prep->window[0];
	prep->nwindow--;
	memmove(&prep->window[0], &prep->window[1],
		prep->nwindow * sizeof(prep->window[0]));
	if (!prep->failed && !prep->sink->push(prep->sink->data, &open->task)) {
		prep->failed = true;
	}
}

static bool append_prim(struct prepare *prep, struct open_task *open)
{
	struct vr_task_payload *payload = &open->payload;
	if (payload->count == payload->capacity) {
		uint32_t cap = payload->capacity > 0 ? payload->capacity * 2 : 4;
		if (cap > VR_BATCH_MAX) {
			cap = VR_BATCH_MAX;
		}
		void *array = prep->sink->alloc(prep->sink->data, cap * open->prim_size);
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

/*
 * A slot for a primitive with this key and AABB (target pixels, inside the
 * damaged extents), zeroed, in an open task: a compatible one of the
 * window or a new one. NULL when out of memory.
 */
static void *add_prim(struct prepare *prep, const struct prim_key *key,
		const struct vr_box *aabb)
{
	if (prep->failed) {
		return NULL;
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
			.out = prep->sink->alloc(prep->sink->data, sizeof(struct vr_task_out)),
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
	memset(slot, 0, open->prim_size);
	return slot;
}

static void flush(struct prepare *prep)
{
	while (prep->nwindow > 0) {
		push_oldest(prep);
	}
}

/* ---- tree content ------------------------------------------------------- */

static void prepare_quad(struct prepare *prep, const struct vr_draw_task *draw)
{
	struct vr_box aabb = vr_box_intersect(&draw->aabb, &prep->extents);
	if (vr_box_empty(&aabb)) {
		return;
	}
	struct prim_key key = {
		.kind = VR_TASK_QUADS,
		.cost = VR_COST_PRIM + (draw->image != NULL ? VR_COST_IMAGE : 0),
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
		struct vr_box *aabb)
{
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
		struct vr_box box = vr_mat_map_rect_bounds(&src->mat,
			&src->rrect.rect);
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
	state->nrclips = nstack > 0 ?
		vr_rclips_for(state->rclips, stack, nstack, aabb) : 0;
	const struct vr_color *c = &cmd->paint.color;
	float alpha = vr_clampf(c->a, 0.0f, 1.0f) * ns->opacity;
	state->color[0] = vr_clampf(c->r, 0.0f, 1.0f) * alpha;
	state->color[1] = vr_clampf(c->g, 0.0f, 1.0f) * alpha;
	state->color[2] = vr_clampf(c->b, 0.0f, 1.0f) * alpha;
	state->color[3] = alpha;
	return true;
}

/* A primitive's cost, bounded (one primitive never overflows a task's). */
static uint32_t cost_clamp(size_t cost)
{
	return cost > VR_TASK_MAX_COST * 16 ? VR_TASK_MAX_COST * 16 :
		(uint32_t)cost;
}

static float mat_scale(const struct vr_mat *m)
{
	return sqrtf(fabsf(m->a * m->d - m->b * m->c));
}

static void prepare_command(struct prepare *prep, const struct node_state *ns,
		const struct vr_dl_command *cmd)
{
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
			.size = sizeof(struct vr_shape) };
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
			.cost = cost_clamp(VR_COST_PRIM +
				VR_COST_PATH_POINT * (points + 3) / 4),
			.size = sizeof(struct vr_geometry) };
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
		struct vr_mat unit = { .a = dst->width, .d = dst->height,
			.tx = dst->x, .ty = dst->y };
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
			.cost = cost_clamp(VR_COST_PRIM + VR_COST_GLYPH *
				(size_t)(cmd->text != NULL ? cmd->text->count : 0)),
			.size = sizeof(struct vr_glyph_run), .nearest = nearest };
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
		/* the blur's passes grow with its scratch image */
		size_t pixels = (size_t)aabb.width * (size_t)aabb.height;
		struct prim_key key = { .kind = VR_TASK_SHADOW,
			.cost = cost_clamp(VR_COST_PRIM + VR_COST_SHADOW +
				pixels / 4096),
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
		const struct vr_node *node)
{
	const struct vr_node_abs *abs = &node->abs;
	struct node_state ns = {
		.clip = prep->job->target,
		.opacity = abs->opacity,
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
	if (prep->sink->hold_list != NULL &&
			!prep->sink->hold_list(prep->sink->data, list)) {
		prep->failed = true;
		return;
	}
	for (size_t i = 0; i < list->ncommands && !prep->failed; i++) {
		prepare_command(prep, &ns, &list->commands[i]);
	}
}

/* The node's drawn pixels inside the damaged extents, target pixels. */
static struct vr_box node_target_box(const struct prepare *prep,
		const struct vr_node *node)
{
	const struct vr_box *b = &node->abs.bounds;
	struct vr_rectf r = { (float)b->x, (float)b->y, (float)b->width,
		(float)b->height };
	struct vr_box box = vr_mat_map_rect_bounds(&prep->job->view, &r);
	return vr_box_intersect(&box, &prep->extents);
}

/* Does the node cover its bounds with opaque pixels? */
static bool node_is_opaque(const struct prepare *prep,
		const struct vr_node *node)
{
	const struct vr_node_abs *abs = &node->abs;
	if (abs->opacity < 1.0f || abs->nrclips > 0 ||
			(node->content.type != VR_CONTENT_RECT &&
			node->content.type != VR_CONTENT_IMAGE)) {
		return false;
	}
	if (node->content.type == VR_CONTENT_RECT &&
			node->content.color.a < 1.0f) {
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

static void collect_occluder(struct vr_node *node, void *data)
{
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

static bool box_contains(const struct vr_box *outer, const struct vr_box *inner)
{
	return inner->x >= outer->x && inner->y >= outer->y &&
		inner->x + inner->width <= outer->x + outer->width &&
		inner->y + inner->height <= outer->y + outer->height;
}

/* Is everything the node draws here overwritten by an opaque node drawn
 * after it? */
static bool occluded(const struct prepare *prep, const struct vr_node *node,
		size_t order)
{
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

static void prepare_node(struct vr_node *node, void *data)
{
	struct prepare *prep = data;
	size_t order = prep->order++;
	if (prep->failed || occluded(prep, node, order)) {
		return;
	}
	switch (node->content.type) {
	case VR_CONTENT_RECT:
	case VR_CONTENT_IMAGE: {
		struct vr_draw_task draw;
		if (vr_draw_task_init(&draw, node, &prep->job->view,
				&prep->job->target)) {
			prepare_quad(prep, &draw);
		}
		break;
	}
	case VR_CONTENT_DISPLAY_LIST:
		prepare_display_list(prep, node);
		break;
	case VR_CONTENT_NONE:
		break;
	}
}

bool vr_prepare_tasks(const struct vr_task_sink *sink, struct vr_tree *tree,
		const struct vr_prepare_job *job,
		const struct vr_prepare_options *options)
{
	if (options == NULL) {
		options = &default_options;
	}
	struct prepare prep = {
		.sink = sink,
		.job = job,
		.options = options,
		.extents = vr_box_intersect(&job->extents, &job->target),
		.lookback = options->lookback == 0 ? VR_BATCH_LOOKBACK :
			options->lookback > VR_PREPARE_MAX_LOOKBACK ?
			VR_PREPARE_MAX_LOOKBACK : options->lookback,
	};
	if (job->index == 0) {
		/* no task of any frame runs: vr_render_submit waited for
		 * every renderer's CPU stage (vr_cpu_stages_wait_idle) */
		vr_glyph_atlas_begin_frame();
	}
	if (vr_box_empty(&prep.extents)) {
		return true;
	}
	struct vr_mat inverse;
	if (!vr_mat_invert(&inverse, &job->view)) {
		return true; /* a degenerate view shows nothing */
	}
	/* the damaged area in root coordinates, a pixel wider for float
	 * noise */
	struct vr_rectf ext = { (float)prep.extents.x - 1.0f,
		(float)prep.extents.y - 1.0f, (float)prep.extents.width + 2.0f,
		(float)prep.extents.height + 2.0f };
	struct vr_box area = vr_mat_map_rect_bounds(&inverse, &ext);
	/* the occluders first, then the nodes in drawing order */
	vr_tree_for_each_drawn(tree, &area, collect_occluder, &prep);
	prep.order = 0;
	vr_tree_for_each_drawn(tree, &area, prepare_node, &prep);
	flush(&prep);
	return !prep.failed;
}
