/*
 * The render tree: nodes hold relative state; vr_tree_update caches the
 * absolute state of dirty subtrees and collects damage in root coordinates.
 *
 * Dirty marking: a change to a node's transform, clip, opacity, enabled
 * state or parent marks it VR_DIRTY_SUBTREE (its descendants' absolute
 * state depends on it); a content change (a rect, an image or a display
 * list, whose bounds are the list's bounds) or restack marks it
 * VR_DIRTY_CONTENT (its own pixels only). Every ancestor of a dirty node
 * carries VR_DIRTY_CHILD, so an update walks only the dirty paths.
 */
#include <assert.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "display_list.h"
#include "render_private.h"

struct vr_tree {
	struct vr_node *root;
	struct vr_list nodes; /* vr_node::tree_link, every node of the tree */
	uint64_t generation;
	pixman_region32_t damage; /* root coordinates, since the last update */
	size_t last_update_count;
	/* preparation's caches: vr_node::prep_link, least recently used
	 * first; prep_count counts preparations (vr_tree_prep_begin) */
	struct vr_list prep_lru;
	uint64_t prep_count;
	/* vr_tree_update_moves: the moves found by this update (cands_max
	 * wanted), checked once every node is up to date; while quiet, a
	 * moved subtree is updated without damage */
	struct tree_move {
		struct vr_node *node;
		struct vr_move move;
		/* the pixels it changed; its box may be less (rounded corners
		 * cut out), the rest redrawn */
		struct vr_box full;
		bool subtree; /* a translated subtree, not a source rectangle */
	} cands[VR_MOVES_MAX];
	size_t ncands, cands_max;
	int quiet;
};

static void damage_box(struct vr_tree *tree, const struct vr_box *box) {
	if (vr_box_empty(box) || tree->quiet > 0) {
		return;
	}
	pixman_region32_union_rect(&tree->damage, &tree->damage, box->x, box->y,
			(unsigned)box->width, (unsigned)box->height);
}

/* Mark node dirty and every ancestor as having a dirty descendant. */
static void mark_dirty(struct vr_node *node, uint32_t flags) {
	node->dirty |= flags;
	if (flags & (VR_DIRTY_SUBTREE | VR_DIRTY_CONTENT)) {
		node->prep_stamp++; /* its primitives may change */
	}
	for (struct vr_node *p = node->parent;
			p != NULL && !(p->dirty & VR_DIRTY_CHILD); p = p->parent) {
		p->dirty |= VR_DIRTY_CHILD;
	}
}

static void changed(struct vr_node *node, uint32_t flags) {
	mark_dirty(node, flags);
	node->tree->generation++;
	/* a change of any other kind: not a move (the setters of a move
	 * set their flag again after this) */
	node->src_moved = false;
	node->translated = false;
}

/* No change to the node's own state since the last update yet. */
static bool first_change(const struct vr_node *node) {
	return !(node->dirty &
			(VR_DIRTY_SELF | VR_DIRTY_SUBTREE | VR_DIRTY_CONTENT));
}

/* The subtree stops being drawn now (detach/destroy): damage what it
 * covered and forget its absolute state. */
static void invalidate_subtree(struct vr_node *node) {
	if (node->abs.drawn) {
		damage_box(node->tree, &node->abs.bounds);
	}
	node->abs.drawn = false;
	node->abs.visible = false;
	node->abs.subtree_bounds = (struct vr_box){ 0 };
	vr_list_for_each(child, &node->children, struct vr_node, link) {
		invalidate_subtree(child);
	}
}

static struct vr_node *node_alloc(struct vr_tree *tree) {
	struct vr_node *node = calloc(1, sizeof(*node));
	if (node == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return NULL;
	}
	node->tree = tree;
	vr_list_init(&node->link);
	vr_list_init(&node->children);
	vr_list_init(&node->prep_link);
	node->enabled = true;
	vr_mat_identity(&node->transform);
	node->opacity = 1.0f;
	pixman_region32_init(&node->content_damage);
	vr_list_insert(tree->nodes.prev, &node->tree_link);
	return node;
}

static void node_free(struct vr_node *node) {
	vr_list_remove(&node->tree_link);
	vr_image_unref(node->content.image);
	vr_display_list_unref(node->content.list);
	pixman_region32_fini(&node->content_damage);
	vr_list_remove(&node->prep_link);
	vr_prep_cache_destroy(node->prep_cache);
	free(node);
}

void vr_tree_prep_touch(struct vr_node *node) {
	struct vr_tree *tree = node->tree;
	node->prep_used = tree->prep_count;
	vr_list_remove(&node->prep_link);
	vr_list_insert(tree->prep_lru.prev, &node->prep_link);
}

void vr_tree_prep_begin(struct vr_tree *tree, uint64_t keep) {
	tree->prep_count++;
	vr_list_for_each_safe(node, &tree->prep_lru, struct vr_node, prep_link) {
		if (tree->prep_count - node->prep_used <= keep) {
			break; /* the others were used later */
		}
		vr_list_remove(&node->prep_link);
		vr_prep_cache_destroy(node->prep_cache);
		node->prep_cache = NULL;
	}
}

struct vr_tree *vr_tree_create(void) {
	struct vr_tree *tree = calloc(1, sizeof(*tree));
	if (tree == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return NULL;
	}
	vr_list_init(&tree->nodes);
	vr_list_init(&tree->prep_lru);
	pixman_region32_init(&tree->damage);
	tree->root = node_alloc(tree);
	if (tree->root == NULL) {
		pixman_region32_fini(&tree->damage);
		free(tree);
		return NULL;
	}
	tree->root->dirty = VR_DIRTY_SUBTREE;
	return tree;
}

void vr_tree_destroy(struct vr_tree *tree) {
	if (tree == NULL) {
		return;
	}
	vr_list_for_each_safe(node, &tree->nodes, struct vr_node, tree_link) {
		node_free(node);
	}
	pixman_region32_fini(&tree->damage);
	free(tree);
}

struct vr_node *vr_tree_root(struct vr_tree *tree) {
	return tree->root;
}

uint64_t vr_tree_generation(const struct vr_tree *tree) {
	return tree->generation;
}

size_t vr_tree_last_update_count(const struct vr_tree *tree) {
	return tree->last_update_count;
}

struct vr_node *vr_node_create(struct vr_tree *tree) {
	return node_alloc(tree);
}

static void unlink_from_parent(struct vr_node *node) {
	if (node->parent == NULL) {
		return;
	}
	invalidate_subtree(node);
	/* the parent's subtree bounds need recomputing */
	mark_dirty(node->parent, VR_DIRTY_CHILD);
	vr_list_remove(&node->link);
	node->parent = NULL;
	node->tree->generation++;
}

void vr_node_destroy(struct vr_node *node) {
	if (node == NULL) {
		return;
	}
	if (node == node->tree->root) {
		vr_log(VR_LOG_ERROR, "the root is destroyed with its tree only");
		return;
	}
	unlink_from_parent(node);
	invalidate_subtree(node);
	vr_list_for_each_safe(child, &node->children, struct vr_node, link) {
		vr_list_remove(&child->link);
		child->parent = NULL;
	}
	node_free(node);
}

static bool is_ancestor_or_self(const struct vr_node *ancestor,
		const struct vr_node *node) {
	for (; node != NULL; node = node->parent) {
		if (node == ancestor) {
			return true;
		}
	}
	return false;
}

void vr_node_set_parent(struct vr_node *node, struct vr_node *parent) {
	if (node == node->tree->root) {
		vr_log(VR_LOG_ERROR, "the root cannot have a parent");
		return;
	}
	if (parent != NULL &&
			(parent->tree != node->tree || is_ancestor_or_self(node, parent))) {
		vr_log(VR_LOG_ERROR, "invalid parent (other tree or a cycle)");
		return;
	}
	if (parent != NULL && parent == node->parent) {
		vr_node_raise_to_top(node);
		return;
	}
	unlink_from_parent(node);
	if (parent == NULL) {
		return;
	}
	node->parent = parent;
	vr_list_insert(parent->children.prev, &node->link);
	changed(node, VR_DIRTY_SUBTREE);
}

static void restack(struct vr_node *node, struct vr_list *after) {
	if (after == &node->link || after == node->link.prev) {
		return; /* already there */
	}
	vr_list_remove(&node->link);
	vr_list_insert(after, &node->link);
	changed(node, VR_DIRTY_CONTENT);
}

void vr_node_place_above(struct vr_node *node, struct vr_node *sibling) {
	if (node == sibling || node->parent == NULL ||
			sibling->parent != node->parent) {
		vr_log(VR_LOG_ERROR, "place_above needs a distinct sibling");
		return;
	}
	restack(node, &sibling->link);
}

void vr_node_place_below(struct vr_node *node, struct vr_node *sibling) {
	if (node == sibling || node->parent == NULL ||
			sibling->parent != node->parent) {
		vr_log(VR_LOG_ERROR, "place_below needs a distinct sibling");
		return;
	}
	restack(node, sibling->link.prev);
}

void vr_node_raise_to_top(struct vr_node *node) {
	if (node->parent == NULL) {
		return;
	}
	restack(node, node->parent->children.prev);
}

struct vr_node *vr_node_parent(const struct vr_node *node) {
	return node->parent;
}

void vr_node_set_enabled(struct vr_node *node, bool enabled) {
	if (node->enabled == enabled) {
		return;
	}
	node->enabled = enabled;
	changed(node, VR_DIRTY_SUBTREE);
}

bool vr_node_enabled(const struct vr_node *node) {
	return node->enabled;
}

void vr_node_set_transform(struct vr_node *node, const struct vr_mat *m) {
	if (vr_mat_equal(&node->transform, m)) {
		return;
	}
	/* the same linear part: a translation, which may move pixels */
	bool translated = (first_change(node) || node->translated) &&
			node->transform.a == m->a && node->transform.b == m->b &&
			node->transform.c == m->c && node->transform.d == m->d;
	node->transform = *m;
	changed(node, VR_DIRTY_SUBTREE);
	node->translated = translated;
}

void vr_node_set_position(struct vr_node *node, float x, float y) {
	struct vr_mat m;
	vr_mat_translate(&m, x, y);
	vr_node_set_transform(node, &m);
}

void vr_node_set_clip_rounded(struct vr_node *node, const struct vr_rectf *clip,
		float radius) {
	if (!(radius > 0.0f)) { /* NaN too */
		radius = 0.0f;
	}
	if (clip == NULL) {
		if (!node->has_clip) {
			return;
		}
		node->has_clip = false;
		node->clip_radius = 0.0f;
	} else {
		if (node->has_clip && node->clip.x == clip->x &&
				node->clip.y == clip->y && node->clip.width == clip->width &&
				node->clip.height == clip->height &&
				node->clip_radius == radius) {
			return;
		}
		node->has_clip = true;
		node->clip = *clip;
		node->clip_radius = radius;
	}
	changed(node, VR_DIRTY_SUBTREE);
}

void vr_node_set_clip(struct vr_node *node, const struct vr_rectf *clip) {
	vr_node_set_clip_rounded(node, clip, 0.0f);
}

void vr_node_set_opacity(struct vr_node *node, float opacity) {
	opacity = opacity < 0.0f ? 0.0f : opacity > 1.0f ? 1.0f : opacity;
	if (node->opacity == opacity) {
		return;
	}
	node->opacity = opacity;
	changed(node, VR_DIRTY_SUBTREE);
}

static void clear_content(struct vr_node *node) {
	vr_image_unref(node->content.image);
	node->content.image = NULL;
	vr_display_list_unref(node->content.list);
	node->content.list = NULL;
	node->content.type = VR_CONTENT_NONE;
}

void vr_node_set_rect(struct vr_node *node, float width, float height,
		struct vr_color color) {
	if (node->content.type == VR_CONTENT_RECT && node->content.width == width &&
			node->content.height == height &&
			node->content.color.r == color.r &&
			node->content.color.g == color.g &&
			node->content.color.b == color.b &&
			node->content.color.a == color.a) {
		return; /* same pixels */
	}
	clear_content(node);
	node->content.type = VR_CONTENT_RECT;
	node->content.width = width;
	node->content.height = height;
	node->content.color = color;
	changed(node, VR_DIRTY_CONTENT);
}

/* The node shows an image through src at width x height with transform. */
static bool same_mapping(const struct vr_node *node, const struct vr_rectf *src,
		float width, float height, enum vr_transform transform) {
	return node->content.type == VR_CONTENT_IMAGE &&
			node->content.src.x == src->x && node->content.src.y == src->y &&
			node->content.src.width == src->width &&
			node->content.src.height == src->height &&
			node->content.width == width && node->content.height == height &&
			node->content.transform == transform;
}

void vr_node_set_image(struct vr_node *node, struct vr_image *image,
		const struct vr_rectf *src, float width, float height,
		enum vr_transform transform) {
	struct vr_rectf full = { 0.0f, 0.0f, (float)image->width,
		(float)image->height };
	if (src == NULL) {
		src = &full;
	}
	if ((unsigned)transform > 7) {
		transform = VR_TRANSFORM_NORMAL;
	}
	if (same_mapping(node, src, width, height, transform) &&
			node->content.image == image) {
		/* same mapping; new pixels come with vr_node_damage_content */
		return;
	}
	/* the same image drawn the same way from elsewhere in it: a scroll
	 * of its pixels (from the source rectangle of the last update) */
	bool src_moved = node->content.type == VR_CONTENT_IMAGE &&
			node->content.image == image &&
			node->content.src.width == src->width &&
			node->content.src.height == src->height &&
			node->content.width == width && node->content.height == height &&
			node->content.transform == transform &&
			(first_change(node) || node->src_moved);
	float from[2] = { node->content.src.x, node->content.src.y };
	if (node->src_moved) {
		from[0] = node->src_from[0];
		from[1] = node->src_from[1];
	}
	vr_image_ref(image); /* before the unref: image may be the same */
	clear_content(node);
	node->content.type = VR_CONTENT_IMAGE;
	node->content.image = image;
	node->content.src = *src;
	node->content.width = width;
	node->content.height = height;
	node->content.transform = transform;
	changed(node, VR_DIRTY_CONTENT);
	node->src_moved = src_moved;
	node->src_from[0] = from[0];
	node->src_from[1] = from[1];
}

void vr_node_replace_image(struct vr_node *node, struct vr_image *image,
		const struct vr_rectf *src, float width, float height,
		enum vr_transform transform, const pixman_region32_t *damage) {
	struct vr_image *old =
			node->content.type == VR_CONTENT_IMAGE ? node->content.image : NULL;
	struct vr_rectf full = { 0.0f, 0.0f, (float)image->width,
		(float)image->height };
	if (src == NULL) {
		src = &full;
	}
	if (old == NULL || old == image || damage == NULL ||
			old->width != image->width || old->height != image->height ||
			old->format != image->format ||
			!same_mapping(node, src, width, height, transform)) {
		vr_node_set_image(node, image, src, width, height, transform);
		if (old == image) {
			vr_node_damage_content(node, damage);
		}
		return;
	}
	node->content.image = vr_image_ref(image);
	vr_image_unref(old);
	node->prep_stamp++; /* its tasks name the image */
	if (pixman_region32_not_empty((pixman_region32_t *)damage)) {
		vr_node_damage_content(node, damage);
	} else {
		changed(node, VR_DIRTY_SELF); /* re-prepared, nothing redrawn */
	}
}

void vr_node_set_display_list(struct vr_node *node,
		struct vr_display_list *list) {
	if (list == NULL) {
		vr_node_clear_content(node);
		return;
	}
	if (node->content.type == VR_CONTENT_DISPLAY_LIST &&
			node->content.list == list) {
		return; /* lists are immutable: same pixels */
	}
	vr_display_list_ref(list); /* before the unref: list may be the same */
	clear_content(node);
	node->content.type = VR_CONTENT_DISPLAY_LIST;
	node->content.list = list;
	changed(node, VR_DIRTY_CONTENT);
}

void vr_node_clear_content(struct vr_node *node) {
	if (node->content.type == VR_CONTENT_NONE) {
		return;
	}
	clear_content(node);
	changed(node, VR_DIRTY_CONTENT);
}

void vr_node_damage_content(struct vr_node *node,
		const pixman_region32_t *region) {
	if (region == NULL) {
		changed(node, VR_DIRTY_CONTENT);
		return;
	}
	if (!pixman_region32_not_empty((pixman_region32_t *)region)) {
		return;
	}
	pixman_region32_union(&node->content_damage, &node->content_damage,
			(pixman_region32_t *)region);
	node->has_content_damage = true;
	changed(node, VR_DIRTY_SELF);
}

void vr_node_set_user_data(struct vr_node *node, void *data) {
	node->user_data = data;
}

void *vr_node_user_data(const struct vr_node *node) {
	return node->user_data;
}

/* ---- update ------------------------------------------------------------- */

static void push_rclip(struct vr_node_abs *abs, const struct vr_rrectf *local) {
	static atomic_flag warned = ATOMIC_FLAG_INIT;
	if (abs->nrclips == VR_RCLIP_NEST_MAX) {
		if (!atomic_flag_test_and_set(&warned)) {
			vr_log(VR_LOG_INFO,
					"more than %d nested rounded clips: "
					"the outermost clip by their bounding boxes only",
					VR_RCLIP_NEST_MAX);
		}
		abs->nrclips--;
		memmove(&abs->rclips[0], &abs->rclips[1],
				abs->nrclips * sizeof(abs->rclips[0]));
	}
	abs->rclips[abs->nrclips++] = (struct vr_rclip_src){
		.mat = abs->transform,
		.rrect = *local,
	};
}

static void compute_abs(struct vr_node *node, const struct vr_node_abs *parent,
		struct vr_node_abs *abs) {
	abs->visible = node->enabled && (parent == NULL || parent->visible);
	if (parent == NULL) {
		abs->transform = node->transform;
		abs->has_clip = false;
		abs->clip = (struct vr_box){ 0 };
		abs->nrclips = 0;
		abs->opacity = node->opacity;
	} else {
		vr_mat_multiply(&abs->transform, &parent->transform, &node->transform);
		abs->has_clip = parent->has_clip;
		abs->clip = parent->clip;
		abs->nrclips = parent->nrclips;
		memcpy(abs->rclips, parent->rclips,
				parent->nrclips * sizeof(abs->rclips[0]));
		abs->opacity = parent->opacity * node->opacity;
	}
	if (node->has_clip) {
		struct vr_box box =
				vr_mat_map_rect_bounds(&abs->transform, &node->clip);
		abs->clip = abs->has_clip ? vr_box_intersect(&abs->clip, &box) : box;
		abs->has_clip = true;
		if (node->clip_radius > 0.0f) {
			/* rounded clips nest: the outer ones keep their
			 * corners, up to VR_RCLIP_NEST_MAX (past it the
			 * outermost clip by their bounding boxes, in
			 * abs->clip) */
			float r = node->clip_radius;
			struct vr_rrectf local = { node->clip,
				vr_radii_fit(node->clip, (struct vr_radii){ r, r, r, r }) };
			push_rclip(abs, &local);
		}
	}
	abs->drawn = false;
	abs->bounds = (struct vr_box){ 0 };
	if (abs->visible && node->content.type != VR_CONTENT_NONE &&
			abs->opacity > 0.0f) {
		struct vr_rectf rect = { 0.0f, 0.0f, node->content.width,
			node->content.height };
		if (node->content.type == VR_CONTENT_DISPLAY_LIST) {
			rect = node->content.list->bounds;
		}
		abs->bounds = vr_mat_map_rect_bounds(&abs->transform, &rect);
		if (abs->has_clip) {
			abs->bounds = vr_box_intersect(&abs->bounds, &abs->clip);
		}
		abs->drawn = !vr_box_empty(&abs->bounds);
	}
}

static bool abs_differs(const struct vr_node_abs *a,
		const struct vr_node_abs *b) {
	if (a->drawn != b->drawn) {
		return true;
	}
	if (!a->drawn) {
		return false; /* nothing drawn before or after */
	}
	return !vr_box_equal(&a->bounds, &b->bounds) ||
			!vr_mat_equal(&a->transform, &b->transform) ||
			a->opacity != b->opacity || a->has_clip != b->has_clip ||
			(a->has_clip && !vr_box_equal(&a->clip, &b->clip)) ||
			a->nrclips != b->nrclips ||
			memcmp(a->rclips, b->rclips, a->nrclips * sizeof(a->rclips[0])) !=
			0;
}

static void damage_content(struct vr_tree *tree, struct vr_node *node) {
	int nrects;
	const pixman_box32_t *rects =
			pixman_region32_rectangles(&node->content_damage, &nrects);
	for (int i = 0; i < nrects; i++) {
		struct vr_rectf r = {
			(float)rects[i].x1,
			(float)rects[i].y1,
			(float)(rects[i].x2 - rects[i].x1),
			(float)(rects[i].y2 - rects[i].y1),
		};
		struct vr_box box = vr_mat_map_rect_bounds(&node->abs.transform, &r);
		box = vr_box_intersect(&box, &node->abs.bounds);
		damage_box(tree, &box);
	}
}

static bool whole(float v, int32_t *out) {
	float r = roundf(v);
	if (!(fabsf(v - r) < 1e-3f) || fabsf(r) > 65536.0f) {
		return false;
	}
	*out = (int32_t)r;
	return true;
}

/* An image node whose source rectangle moved (node->src_moved), its
 * absolute state otherwise the same: the move of its pixels, when it is
 * drawn 1:1 at a whole-pixel position. */
static bool src_move(const struct vr_node *node, const struct vr_node_abs *abs,
		struct vr_move *move) {
	if (!abs->drawn || abs->nrclips > 0 ||
			!vr_mat_is_integer_translation(&abs->transform) ||
			node->content.transform != VR_TRANSFORM_NORMAL ||
			node->content.width != node->content.src.width ||
			node->content.height != node->content.src.height) {
		return false;
	}
	int32_t x, y;
	if (!whole(node->content.width, &x) || !whole(node->content.height, &y) ||
			!whole(node->src_from[0] - node->content.src.x, &move->dx) ||
			!whole(node->src_from[1] - node->content.src.y, &move->dy)) {
		return false;
	}
	move->box = abs->bounds;
	return true;
}

/* The largest radius of a rounded clip, in whole pixels; false unless
 * its rectangle maps by a whole-pixel translation (into *rect). */
static bool rclip_rect(const struct vr_rclip_src *rc, struct vr_box *rect,
		int32_t *radius) {
	if (!vr_mat_is_integer_translation(&rc->mat)) {
		return false;
	}
	const struct vr_radii *r = &rc->rrect.radii;
	float max = fmaxf(fmaxf(r->tl, r->tr), fmaxf(r->br, r->bl));
	struct vr_rectf f = vr_rectf_map(&rc->mat, &rc->rrect.rect);
	*rect = (struct vr_box){ (int32_t)floorf(f.x), (int32_t)floorf(f.y),
		(int32_t)ceilf(f.x + f.width) - (int32_t)floorf(f.x),
		(int32_t)ceilf(f.y + f.height) - (int32_t)floorf(f.y) };
	*radius = (int32_t)ceilf(max);
	return true;
}

/* The part of box that abs's rounded clips leave whole, for a move along
 * (dx, dy): cut by the radius at the ends of the axes it moves on. */
static bool rclips_inset(const struct vr_node_abs *abs, int32_t dx, int32_t dy,
		struct vr_box *box) {
	for (uint32_t i = 0; i < abs->nrclips; i++) {
		struct vr_box rect;
		int32_t r;
		if (!rclip_rect(&abs->rclips[i], &rect, &r)) {
			return false;
		}
		if (dy != 0) {
			rect.y += r;
			rect.height -= 2 * r;
		}
		if (dx != 0) {
			rect.x += r;
			rect.width -= 2 * r;
		}
		*box = vr_box_intersect(box, &rect);
	}
	return !vr_box_empty(box);
}

/* A node translated by whole pixels (node->translated), nothing else of
 * its subtree changed: the move of its parent's clip. */
static bool subtree_move(uint32_t dirty, const struct vr_node_abs *parent,
		const struct vr_node_abs *old, const struct vr_node_abs *abs,
		struct tree_move *cand) {
	struct vr_move *move = &cand->move;
	if ((dirty & (VR_DIRTY_CHILD | VR_DIRTY_CONTENT)) || parent == NULL ||
			!parent->has_clip || !old->visible || !abs->visible ||
			old->opacity != abs->opacity ||
			old->transform.a != abs->transform.a ||
			old->transform.b != abs->transform.b ||
			old->transform.c != abs->transform.c ||
			old->transform.d != abs->transform.d) {
		return false;
	}
	if (!whole(abs->transform.tx - old->transform.tx, &move->dx) ||
			!whole(abs->transform.ty - old->transform.ty, &move->dy)) {
		return false;
	}
	cand->full = move->box = parent->clip;
	return rclips_inset(parent, move->dx, move->dy, &move->box);
}

static void update_node(struct vr_tree *tree, struct vr_node *node,
		const struct vr_node_abs *parent, bool force) {
	uint32_t dirty = node->dirty;
	node->dirty = 0;
	bool quiet = false;
	if (force ||
			(dirty & (VR_DIRTY_SELF | VR_DIRTY_SUBTREE | VR_DIRTY_CONTENT))) {
		struct vr_node_abs abs;
		compute_abs(node, parent, &abs);
		abs.subtree_bounds = node->abs.subtree_bounds;
		tree->last_update_count++;
		bool differs =
				abs_differs(&node->abs, &abs) || (dirty & VR_DIRTY_CONTENT);
		struct vr_node_abs old = node->abs;
		node->abs = abs;
		/* a move instead of damage (checked against the rest of the
		 * tree once it is up to date: vr_tree_update_moves) */
		struct tree_move cand = { .node = node };
		if (!force && tree->ncands < tree->cands_max && tree->quiet == 0) {
			bool found = false;
			if (node->src_moved && !abs_differs(&old, &abs)) {
				found = src_move(node, &abs, &cand.move);
				cand.full = cand.move.box;
			} else if (node->translated) {
				found = subtree_move(dirty, parent, &old, &abs, &cand);
				cand.subtree = true;
			}
			if (found && (cand.move.dx != 0 || cand.move.dy != 0)) {
				tree->cands[tree->ncands++] = cand;
				differs = false;
				quiet = cand.subtree;
			}
		}
		node->src_moved = false;
		node->translated = false;
		/* bit for bit (a -0 is not a 0 to preparation's caches) */
		if (differs ||
				memcmp(&old.transform, &abs.transform, sizeof(abs.transform)) !=
						0 ||
				memcmp(&old.opacity, &abs.opacity, sizeof(abs.opacity)) != 0) {
			node->prep_stamp++; /* see mark_dirty */
		}
		if (differs) {
			if (old.drawn) {
				damage_box(tree, &old.bounds);
			}
			if (abs.drawn) {
				damage_box(tree, &abs.bounds);
			}
		} else if (node->has_content_damage && abs.drawn) {
			damage_content(tree, node);
		}
	}
	if (node->has_content_damage) {
		pixman_region32_clear(&node->content_damage);
		node->has_content_damage = false;
	}

	bool force_children = force || (dirty & VR_DIRTY_SUBTREE);
	struct vr_box subtree =
			node->abs.drawn ? node->abs.bounds : (struct vr_box){ 0 };
	tree->quiet += quiet; /* a moved subtree: its pixels move along */
	vr_list_for_each(child, &node->children, struct vr_node, link) {
		if (force_children || child->dirty != 0) {
			update_node(tree, child, &node->abs, force_children);
		}
		subtree = vr_box_union(&subtree, &child->abs.subtree_bounds);
	}
	tree->quiet -= quiet;
	node->abs.subtree_bounds = subtree;
}

/* What vr_tree_update_moves checks of a move against the tree. */
struct move_scan {
	const struct tree_move *cand;
	bool found; /* the moved node was passed (painter's order) */
	bool uniform; /* the pixels under it so far are uniform */
	pixman_region32_t above; /* what is drawn above it in the box */
};

static bool box_covers(const struct vr_box *outer, const struct vr_box *inner) {
	return outer->x <= inner->x && outer->y <= inner->y &&
			outer->x + outer->width >= inner->x + inner->width &&
			outer->y + outer->height >= inner->y + inner->height;
}

static bool boxes_meet(const struct vr_box *a, const struct vr_box *b) {
	struct vr_box i = vr_box_intersect(a, b);
	return !vr_box_empty(&i);
}

/* Rounded clips that leave box whole. */
static bool rclips_spare(const struct vr_rclip_src *rclips, uint32_t n,
		const struct vr_mat *to_root, const struct vr_box *box) {
	for (uint32_t i = 0; i < n; i++) {
		struct vr_rclip_src rc = rclips[i];
		vr_mat_multiply(&rc.mat, to_root, &rclips[i].mat);
		struct vr_box rect;
		int32_t r;
		if (!rclip_rect(&rc, &rect, &r)) {
			return false;
		}
		struct vr_box tall = { rect.x + r, rect.y, rect.width - 2 * r,
			rect.height };
		struct vr_box wide = { rect.x, rect.y + r, rect.width,
			rect.height - 2 * r };
		if (!box_covers(&tall, box) && !box_covers(&wide, box)) {
			return false;
		}
	}
	return true;
}

/* A display list whose first command fills a rectangle over all of box
 * with one opaque colour, and whose others draw outside box. */
static bool list_covers(const struct vr_node *node, const struct vr_box *box) {
	const struct vr_display_list *list = node->content.list;
	if (list->ncommands == 0) {
		return false;
	}
	const struct vr_dl_command *first = &list->commands[0];
	const struct vr_radii *r = &first->shape.radii;
	struct vr_mat to_root;
	vr_mat_multiply(&to_root, &node->abs.transform, &first->mat);
	if (first->op != VR_DL_RECT || first->paint.stroke_width != 0.0f ||
			first->paint.color.a < 1.0f || r->tl != 0.0f || r->tr != 0.0f ||
			r->br != 0.0f || r->bl != 0.0f ||
			!vr_mat_is_integer_translation(&to_root) ||
			!rclips_spare(first->rclips, first->nrclips, &node->abs.transform,
					box)) {
		return false;
	}
	/* inner bounds: the rectangle's pixels, and its clip's */
	struct vr_box cover = vr_mat_map_rect_bounds(&to_root, &first->shape.rect);
	if (!box_covers(&cover, box)) {
		return false;
	}
	if (first->has_clip) {
		struct vr_box clip =
				vr_mat_map_rect_bounds(&node->abs.transform, &first->clip);
		if (!box_covers(&clip, box)) {
			return false;
		}
	}
	for (size_t i = 1; i < list->ncommands; i++) {
		struct vr_box b = vr_mat_map_rect_bounds(&node->abs.transform,
				&list->commands[i].bounds);
		if (boxes_meet(&b, box)) {
			return false;
		}
	}
	return true;
}

/* The node draws one opaque colour over all of box. */
static bool solid_cover(const struct vr_node *node, const struct vr_box *box) {
	int32_t w, h;
	if (node->abs.opacity < 1.0f || !box_covers(&node->abs.bounds, box) ||
			!rclips_spare(node->abs.rclips, node->abs.nrclips,
					&(struct vr_mat){ .a = 1, .d = 1 }, box)) {
		return false;
	}
	if (node->content.type == VR_CONTENT_DISPLAY_LIST) {
		return list_covers(node, box);
	}
	return node->content.type == VR_CONTENT_RECT &&
			node->content.color.a >= 1.0f &&
			vr_mat_is_integer_translation(&node->abs.transform) &&
			whole(node->content.width, &w) && whole(node->content.height, &h);
}

static void move_scan(struct vr_node *node, struct move_scan *scan) {
	const struct vr_box *box = &scan->cand->move.box;
	if (!node->abs.visible || !boxes_meet(&node->abs.subtree_bounds, box)) {
		return;
	}
	if (node == scan->cand->node) {
		scan->found = true;
		if (scan->cand->subtree) {
			return; /* all of it moves */
		}
	} else if (node->abs.drawn && boxes_meet(&node->abs.bounds, box)) {
		if (!scan->found) {
			scan->uniform = solid_cover(node, box);
		} else {
			struct vr_box in = vr_box_intersect(&node->abs.bounds, box);
			pixman_region32_union_rect(&scan->above, &scan->above, in.x, in.y,
					(unsigned)in.width, (unsigned)in.height);
		}
	}
	vr_list_for_each(child, &node->children, struct vr_node, link) {
		move_scan(child, scan);
	}
}

/* The moved image covers its box with opaque pixels of its own. */
static bool opaque_image(const struct vr_node *node) {
	return node->content.type == VR_CONTENT_IMAGE &&
			node->content.image->format == VR_FORMAT_XRGB8888 &&
			node->abs.opacity >= 1.0f && node->abs.nrclips == 0;
}

size_t vr_tree_update_moves(struct vr_tree *tree, pixman_region32_t *damage,
		struct vr_move *moves, size_t max) {
	tree->last_update_count = 0;
	tree->ncands = 0;
	tree->cands_max = max < VR_MOVES_MAX ? max : VR_MOVES_MAX;
	if (tree->root->dirty != 0) {
		update_node(tree, tree->root, NULL, false);
	}
	tree->cands_max = 0;
	/* each move checked against the tree as it is now: what is under
	 * it uniform, what is above it noted, no two boxes overlapping;
	 * those that fail damage their box (first: the accepted ones move
	 * every damage of this update inside their box along) */
	pixman_region32_t above[VR_MOVES_MAX];
	size_t n = 0;
	for (size_t i = 0; i < tree->ncands; i++) {
		const struct tree_move *cand = &tree->cands[i];
		const struct vr_move *m = &cand->move;
		bool ok = abs(m->dx) < m->box.width && abs(m->dy) < m->box.height;
		for (size_t j = 0; ok && j < i; j++) {
			ok = !boxes_meet(&tree->cands[j].full, &cand->full);
		}
		struct move_scan scan = { .cand = cand };
		pixman_region32_init(&scan.above);
		if (ok) {
			move_scan(tree->root, &scan);
			ok = scan.found &&
					(scan.uniform ||
							(!cand->subtree && opaque_image(cand->node)));
		}
		if (!ok) {
			damage_box(tree, &cand->full);
			pixman_region32_fini(&scan.above);
			continue;
		}
		if (!vr_box_equal(&cand->full, &m->box)) {
			/* the rounded corners' rows: redrawn */
			pixman_region32_t rest;
			pixman_region32_init_rect(&rest, cand->full.x, cand->full.y,
					(unsigned)cand->full.width, (unsigned)cand->full.height);
			pixman_region32_t kept;
			pixman_region32_init_rect(&kept, m->box.x, m->box.y,
					(unsigned)m->box.width, (unsigned)m->box.height);
			pixman_region32_subtract(&rest, &rest, &kept);
			pixman_region32_union(&tree->damage, &tree->damage, &rest);
			pixman_region32_fini(&kept);
			pixman_region32_fini(&rest);
		}
		above[n] = scan.above; /* pixman regions move by value */
		moves[n++] = *m;
	}
	/* what lies above a move moves along: damaged where it was moved
	 * to and where it is; the rest of this update's damage inside the
	 * box likewise */
	for (size_t i = 0; i < n; i++) {
		const struct vr_move *m = &moves[i];
		pixman_region32_t box;
		pixman_region32_init_rect(&box, m->box.x, m->box.y,
				(unsigned)m->box.width, (unsigned)m->box.height);
		pixman_region32_t redo;
		pixman_region32_init(&redo);
		pixman_region32_union(&redo, &above[i], &tree->damage);
		pixman_region32_intersect(&redo, &redo, &box);
		pixman_region32_union(&tree->damage, &tree->damage, &above[i]);
		pixman_region32_translate(&redo, m->dx, m->dy);
		pixman_region32_intersect(&redo, &redo, &box);
		pixman_region32_union(&tree->damage, &tree->damage, &redo);
		vr_move_exposed(m, &tree->damage);
		pixman_region32_fini(&redo);
		pixman_region32_fini(&box);
		pixman_region32_fini(&above[i]);
	}
	tree->ncands = 0;
	if (damage != NULL) {
		pixman_region32_union(damage, damage, &tree->damage);
	}
	pixman_region32_clear(&tree->damage);
	return n;
}

void vr_tree_update(struct vr_tree *tree, pixman_region32_t *damage) {
	vr_tree_update_moves(tree, damage, NULL, 0);
}

bool vr_node_get_bounds(const struct vr_node *node, struct vr_box *box) {
	if (!node->abs.drawn) {
		return false;
	}
	if (box != NULL) {
		*box = node->abs.bounds;
	}
	return true;
}

bool vr_node_draws_image_exactly(const struct vr_node *node,
		struct vr_box *box) {
	const struct vr_image *image = node->content.image;
	if (!node->abs.drawn || node->content.type != VR_CONTENT_IMAGE ||
			image == NULL) {
		return false;
	}
	float w = (float)image->width, h = (float)image->height;
	const struct vr_mat *m = &node->abs.transform;
	/* the whole image, unturned, at its size, by whole pixels, opaque,
	 * and neither clipped nor rounded */
	bool exact = same_mapping(node, &(struct vr_rectf){ 0.0f, 0.0f, w, h }, w,
						 h, VR_TRANSFORM_NORMAL) &&
			vr_mat_is_integer_translation(m) && node->abs.opacity >= 1.0f &&
			node->abs.nrclips == 0;
	struct vr_box at = {
		(int32_t)lroundf(m->tx),
		(int32_t)lroundf(m->ty),
		image->width,
		image->height,
	};
	if (!exact || node->abs.bounds.x != at.x || node->abs.bounds.y != at.y ||
			node->abs.bounds.width != at.width ||
			node->abs.bounds.height != at.height) {
		return false;
	}
	*box = at;
	return true;
}

static bool box_intersects(const struct vr_box *a, const struct vr_box *b) {
	if (b == NULL) {
		return !vr_box_empty(a);
	}
	struct vr_box i = vr_box_intersect(a, b);
	return !vr_box_empty(&i);
}

static void for_each_drawn(struct vr_node *node, const struct vr_box *area,
		void (*fn)(struct vr_node *node, void *data), void *data) {
	if (!node->abs.visible ||
			!box_intersects(&node->abs.subtree_bounds, area)) {
		return;
	}
	if (node->abs.drawn && box_intersects(&node->abs.bounds, area)) {
		fn(node, data);
	}
	vr_list_for_each(child, &node->children, struct vr_node, link) {
		for_each_drawn(child, area, fn, data);
	}
}

void vr_tree_for_each_drawn(struct vr_tree *tree, const struct vr_box *area,
		void (*fn)(struct vr_node *node, void *data), void *data) {
	for_each_drawn(tree->root, area, fn, data);
}

/* Front to back: a node's children are drawn above its own content, the
 * last child on top. */
static struct vr_node *top_drawn(struct vr_node *node,
		const struct vr_box *area) {
	if (!node->abs.visible ||
			!box_intersects(&node->abs.subtree_bounds, area)) {
		return NULL;
	}
	vr_list_for_each_reverse(child, &node->children, struct vr_node, link) {
		struct vr_node *top = top_drawn(child, area);
		if (top != NULL) {
			return top;
		}
	}
	return node->abs.drawn && box_intersects(&node->abs.bounds, area) ? node :
																		NULL;
}

struct vr_node *vr_tree_top_drawn(struct vr_tree *tree,
		const struct vr_box *area) {
	return top_drawn(tree->root, area);
}
