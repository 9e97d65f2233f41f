/*
 * The scene protocol's nodes: their state, animations, the node objects
 * and the commit of a scene's pending state.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wayland-server-protocol.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/util/log.h>
#include <vitrail/canvas.h>

#include "pacing/pacer.h"
#include "output/output.h"
#include "scene/scene.h"
#include "server.h"
#include "util.h"
#include "vitrail-scene-v1-protocol.h"

#include "scene/scene_internal.h"

/* ---- node state --------------------------------------------------------- */

void scene_props_init(struct node_props *props) {
	*props = (struct node_props){
		.scale = { 1.0f, 1.0f },
		.opacity = 1.0f,
	};
	vr_mat_identity(&props->matrix);
}

/* M = T(translation + anchor) * R(rotation) * S(scale) * T(-anchor) * matrix,
 * then T(-scroll) when a scroll region moves the node (scroll_region.c). */
void scene_node_apply_transform(struct vt_scene_node *node) {
	const struct node_props *p = &node->current;
	double rad = p->rotation * PI / 180.0;
	double cs = cos(rad), sn = sin(rad);
	struct vr_mat rs = {
		.a = (float)(cs * p->scale[0]),
		.b = (float)(sn * p->scale[0]),
		.c = (float)(-sn * p->scale[1]),
		.d = (float)(cs * p->scale[1]),
	};
	rs.tx = -(rs.a * p->anchor[0] + rs.c * p->anchor[1]) + p->anchor[0] +
			p->translation[0];
	rs.ty = -(rs.b * p->anchor[0] + rs.d * p->anchor[1]) + p->anchor[1] +
			p->translation[1];
	vr_mat_multiply(&node->transform, &rs, &p->matrix);
	node->transform.tx -= node->scroll[0];
	node->transform.ty -= node->scroll[1];
	vr_node_set_transform(node->vr, &node->transform);
}

static void node_apply_clip(struct vt_scene_node *node) {
	const struct node_props *p = &node->current;
	if (!p->has_clip) {
		vr_node_set_clip(node->vr, NULL);
		return;
	}
	struct vr_rectf clip = { p->clip[0], p->clip[1], p->clip[2], p->clip[3] };
	vr_node_set_clip_rounded(node->vr, &clip, p->clip[4]);
}

static float *prop_values(struct node_props *props, enum prop prop) {
	switch (prop) {
	case PROP_TRANSLATION: return props->translation;
	case PROP_SCALE: return props->scale;
	case PROP_ROTATION: return &props->rotation;
	case PROP_OPACITY: return &props->opacity;
	case PROP_CLIP: return props->clip;
	case PROP_COUNT: break;
	}
	abort();
}

/* Display values of an animated property: write them through. */
static void node_show_property(struct vt_scene_node *node, enum prop prop,
		const float *values) {
	float *v = prop_values(&node->current, prop);
	memcpy(v, values, (size_t)scene_prop_counts[prop] * sizeof(*v));
	switch (prop) {
	case PROP_TRANSLATION:
	case PROP_SCALE:
	case PROP_ROTATION: scene_node_apply_transform(node); break;
	case PROP_OPACITY:
		v[0] = fminf(fmaxf(v[0], 0.0f), 1.0f);
		vr_node_set_opacity(node->vr, v[0]);
		break;
	case PROP_CLIP:
		for (int i = 2; i < 5; i++) {
			v[i] = fmaxf(v[i], 0.0f);
		}
		node_apply_clip(node);
		break;
	case PROP_COUNT: break;
	}
}

/* ---- animations --------------------------------------------------------- */

static void animation_end(struct scene_animation *anim, uint32_t reason) {
	if (anim->node == NULL) {
		return;
	}
	wl_list_remove(&anim->link);
	wl_list_init(&anim->link);
	if (anim->node->running[anim->prop] == anim) {
		anim->node->running[anim->prop] = NULL;
	}
	anim->node = NULL;
	anim->running = false;
	anim->quota->animations--;
	uint64_t when = anim->started ? anim->last_ns : 0;
	if (anim->resource != NULL && anim->quota->client != NULL) {
		vitrail_scene_animation_v1_send_done(anim->resource, reason,
				(uint32_t)(when >> 32), (uint32_t)(when & 0xffffffff));
	}
}

static void animation_handle_resource_destroy(struct wl_resource *resource) {
	struct scene_animation *anim = wl_resource_get_user_data(resource);
	if (anim == NULL) {
		return;
	}
	anim->resource = NULL;
	animation_end(anim, VITRAIL_SCENE_ANIMATION_V1_REASON_CANCELLED);
	scene_quota_unref(anim->quota);
	free(anim);
}

const struct vitrail_scene_animation_v1_interface scene_animation_impl = {
	.destroy = scene_handle_destroy,
};

static double cubic_bezier_coord(double s, double p1, double p2) {
	double u = 1.0 - s;
	return 3.0 * u * u * s * p1 + 3.0 * u * s * s * p2 + s * s * s;
}

/* CSS cubic-bezier(x1, y1, x2, y2) at time progress p: solve x(s) = p by
 * bisection (x is monotonic for x1, x2 in [0, 1]), then y(s). */
static double cubic_bezier(const float *params, double p) {
	double lo = 0.0, hi = 1.0, s = p;
	for (int i = 0; i < 60; i++) {
		s = 0.5 * (lo + hi);
		if (cubic_bezier_coord(s, params[0], params[2]) < p) {
			lo = s;
		} else {
			hi = s;
		}
	}
	return cubic_bezier_coord(s, params[1], params[3]);
}

/* A damped spring released at 0 towards 1 with no initial velocity. */
static double spring(const float *params, double t) {
	double k = params[0], c = params[1], m = params[2];
	double w0 = sqrt(k / m);
	double zeta = c / (2.0 * sqrt(k * m));
	if (zeta < 1.0) {
		double wd = w0 * sqrt(1.0 - zeta * zeta);
		return 1.0 -
				exp(-zeta * w0 * t) *
				(cos(wd * t) + zeta * w0 / wd * sin(wd * t));
	}
	if (zeta == 1.0) {
		return 1.0 - exp(-w0 * t) * (1.0 + w0 * t);
	}
	double root = sqrt(zeta * zeta - 1.0);
	double r1 = -w0 * (zeta - root), r2 = -w0 * (zeta + root);
	return 1.0 - (r2 * exp(r1 * t) - r1 * exp(r2 * t)) / (r2 - r1);
}

static double animation_progress(const struct scene_animation *anim,
		uint64_t elapsed_ns) {
	double p = (double)elapsed_ns / (double)anim->duration_ns;
	switch (anim->curve) {
	case CURVE_LINEAR: return p;
	case CURVE_CUBIC_BEZIER: return cubic_bezier(anim->params, p);
	case CURVE_SPRING: return spring(anim->params, elapsed_ns / 1e9);
	case CURVE_COUNT: break;
	}
	abort();
}

static void request_frames(struct vt_server *server) {
	vt_server_request_frame(server, VT_PACER_RENDER);
}

void vt_scene_sample(struct vt_server *server, uint64_t display_ns, char *log,
		size_t log_size) {
	size_t used = 0;
	if (log_size > 0) {
		log[0] = '\0';
	}
	struct vt_scene_manager *manager = server->scene;
	if (manager == NULL) {
		return;
	}
	struct scene_animation *anim, *tmp;
	wl_list_for_each_safe(anim, tmp, &manager->animations, link) {
		if (!anim->started) {
			anim->started = true;
			anim->start_ns = display_ns;
		}
		uint64_t elapsed =
				display_ns > anim->start_ns ? display_ns - anim->start_ns : 0;
		bool finished = elapsed >= anim->duration_ns;
		double f = finished ? 1.0 : animation_progress(anim, elapsed);
		int count = scene_prop_counts[anim->prop];
		float values[5];
		for (int i = 0; i < count; i++) {
			values[i] = finished ?
					anim->to[i] :
					(float)(anim->from[i] + (anim->to[i] - anim->from[i]) * f);
		}
		anim->last_ns = display_ns;
		node_show_property(anim->node, anim->prop, values);
		/* serial@elapsed_ns=v0/v1/...; entries that do not fit are
		 * left out. */
		char entry[128];
		int n = snprintf(entry, sizeof(entry), "%s%u@%" PRIu64 "=",
				used > 0 ? ";" : "", anim->serial, elapsed);
		for (int i = 0; i < count && n > 0 && (size_t)n < sizeof(entry); i++) {
			n += snprintf(entry + n, sizeof(entry) - (size_t)n, "%s%.4f",
					i > 0 ? "/" : "", (double)values[i]);
		}
		if (n > 0 && (size_t)n < sizeof(entry) && used + (size_t)n < log_size) {
			memcpy(log + used, entry, (size_t)n + 1);
			used += (size_t)n;
		}
		if (finished) {
			animation_end(anim, VITRAIL_SCENE_ANIMATION_V1_REASON_FINISHED);
		}
	}
}

bool vt_scene_animating(struct vt_server *server) {
	return server->scene != NULL && !wl_list_empty(&server->scene->animations);
}

/* ---- nodes -------------------------------------------------------------- */

static void node_mark_pending(struct vt_scene_node *node, uint32_t change) {
	node->changes |= change;
	if (wl_list_empty(&node->pending_link)) {
		wl_list_insert(node->scene->pending.prev, &node->pending_link);
	}
}

static void array_remove_node(struct wl_array *array,
		struct vt_scene_node *node) {
	struct vt_scene_node **nodes = array->data;
	size_t n = array->size / sizeof(*nodes);
	for (size_t i = 0; i < n; i++) {
		if (nodes[i] == node) {
			memmove(&nodes[i], &nodes[i + 1], (n - i - 1) * sizeof(*nodes));
			array->size -= sizeof(*nodes);
			return;
		}
	}
}

/* Free a node now (its resource's destroy, or its scene's): it leaves
 * the tree at once. */
void scene_node_destroy(struct vt_scene_node *node) {
	struct scene *scene = node->scene;
	wl_signal_emit(&node->events.destroy, node);
	struct scene_animation *anim, *tmp;
	wl_list_for_each_safe(anim, tmp, &node->pending_animations, link) {
		animation_end(anim, VITRAIL_SCENE_ANIMATION_V1_REASON_CANCELLED);
	}
	for (int i = 0; i < PROP_COUNT; i++) {
		if (node->running[i] != NULL) {
			animation_end(node->running[i],
					VITRAIL_SCENE_ANIMATION_V1_REASON_CANCELLED);
		}
	}
	if (node->pending_parent != NULL) {
		array_remove_node(&node->pending_parent->pending_children, node);
	}
	if (node->parent != NULL) {
		array_remove_node(&node->parent->children, node);
	}
	struct vt_scene_node **child;
	wl_array_for_each(child, &node->pending_children) {
		(*child)->pending_parent = NULL;
	}
	wl_array_for_each(child, &node->children) {
		(*child)->parent = NULL;
	}
	if (scene->root == node) {
		scene->root = NULL;
	}
	if (scene->pending_root == node) {
		scene->pending_root = NULL;
	}
	wl_list_remove(&node->link);
	wl_list_remove(&node->pending_link);
	scene_snapshot_unref(node->pending_list);
	scene_snapshot_unref(node->list);
	scene_charge_drawn(node, 0);
	wl_array_release(&node->pending_children);
	wl_array_release(&node->children);
	vr_node_destroy(node->vr);
	scene->quota->nodes--;
	vt_server_schedule_update(scene->manager->server);
	free(node);
}

void scene_node_handle_resource_destroy(struct wl_resource *resource) {
	struct vt_scene_node *node = wl_resource_get_user_data(resource);
	if (node != NULL) {
		scene_node_destroy(node);
	}
}

static bool check_range(struct wl_resource *resource, const char *what,
		double v, double min, double max) {
	if (v >= min && v <= max) {
		return true;
	}
	vt_post_error(resource, VITRAIL_SCENE_NODE_V1_ERROR_OUT_OF_RANGE,
			"%s = %g is not in [%g, %g]", what, v, min, max);
	return false;
}

static void node_handle_set_matrix(struct wl_client *client,
		struct wl_resource *resource, wl_fixed_t a, wl_fixed_t b, wl_fixed_t c,
		wl_fixed_t d, wl_fixed_t tx, wl_fixed_t ty) {
	struct vt_scene_node *node = scene_node_from_resource(resource);
	static const char *const names[] = {
		"set_matrix a",
		"set_matrix b",
		"set_matrix c",
		"set_matrix d",
		"set_matrix tx",
		"set_matrix ty",
	};
	double v[] = {
		wl_fixed_to_double(a),
		wl_fixed_to_double(b),
		wl_fixed_to_double(c),
		wl_fixed_to_double(d),
		wl_fixed_to_double(tx),
		wl_fixed_to_double(ty),
	};
	for (int i = 0; i < 6; i++) {
		if (!check_range(resource, names[i], v[i], -COORD_MAX, COORD_MAX)) {
			return;
		}
	}
	if (node == NULL) {
		return;
	}
	node->pending.matrix = (struct vr_mat){
		(float)v[0],
		(float)v[1],
		(float)v[2],
		(float)v[3],
		(float)v[4],
		(float)v[5],
	};
	node_mark_pending(node, CHANGE_MATRIX);
}

static void node_handle_set_translation(struct wl_client *client,
		struct wl_resource *resource, wl_fixed_t x, wl_fixed_t y) {
	struct vt_scene_node *node = scene_node_from_resource(resource);
	double vx = wl_fixed_to_double(x), vy = wl_fixed_to_double(y);
	if (!check_range(resource, "set_translation x", vx, -COORD_MAX,
				COORD_MAX) ||
			!check_range(resource, "set_translation y", vy, -COORD_MAX,
					COORD_MAX) ||
			node == NULL) {
		return;
	}
	node->pending.translation[0] = (float)vx;
	node->pending.translation[1] = (float)vy;
	node_mark_pending(node, CHANGE_TRANSLATION);
}

static void node_handle_set_scale(struct wl_client *client,
		struct wl_resource *resource, wl_fixed_t sx, wl_fixed_t sy) {
	struct vt_scene_node *node = scene_node_from_resource(resource);
	double vx = wl_fixed_to_double(sx), vy = wl_fixed_to_double(sy);
	if (!check_range(resource, "set_scale sx", vx, -SCALE_MAX, SCALE_MAX) ||
			!check_range(resource, "set_scale sy", vy, -SCALE_MAX, SCALE_MAX) ||
			node == NULL) {
		return;
	}
	node->pending.scale[0] = (float)vx;
	node->pending.scale[1] = (float)vy;
	node_mark_pending(node, CHANGE_SCALE);
}

static void node_handle_set_rotation(struct wl_client *client,
		struct wl_resource *resource, wl_fixed_t degrees) {
	struct vt_scene_node *node = scene_node_from_resource(resource);
	double v = wl_fixed_to_double(degrees);
	if (!check_range(resource, "set_rotation degrees", v, -ROTATION_MAX,
				ROTATION_MAX) ||
			node == NULL) {
		return;
	}
	node->pending.rotation = (float)v;
	node_mark_pending(node, CHANGE_ROTATION);
}

static void node_handle_set_anchor(struct wl_client *client,
		struct wl_resource *resource, wl_fixed_t x, wl_fixed_t y) {
	struct vt_scene_node *node = scene_node_from_resource(resource);
	double vx = wl_fixed_to_double(x), vy = wl_fixed_to_double(y);
	if (!check_range(resource, "set_anchor x", vx, -COORD_MAX, COORD_MAX) ||
			!check_range(resource, "set_anchor y", vy, -COORD_MAX, COORD_MAX) ||
			node == NULL) {
		return;
	}
	node->pending.anchor[0] = (float)vx;
	node->pending.anchor[1] = (float)vy;
	node_mark_pending(node, CHANGE_ANCHOR);
}

static void node_handle_set_opacity(struct wl_client *client,
		struct wl_resource *resource, wl_fixed_t opacity) {
	struct vt_scene_node *node = scene_node_from_resource(resource);
	double v = wl_fixed_to_double(opacity);
	if (!check_range(resource, "set_opacity opacity", v, 0.0, 1.0) ||
			node == NULL) {
		return;
	}
	node->pending.opacity = (float)v;
	node_mark_pending(node, CHANGE_OPACITY);
}

/* The clip values of set_clip and of clip animations. */
static bool check_clip(struct wl_resource *resource, const char *request,
		const double *v) {
	static const char *const names[] = {
		"x",
		"y",
		"width",
		"height",
		"radius",
	};
	for (int i = 0; i < 5; i++) {
		char what[64];
		snprintf(what, sizeof(what), "%s %s", request, names[i]);
		if (!check_range(resource, what, v[i], i < 2 ? -COORD_MAX : 0.0,
					COORD_MAX)) {
			return false;
		}
	}
	return true;
}

static void node_handle_set_clip(struct wl_client *client,
		struct wl_resource *resource, wl_fixed_t x, wl_fixed_t y,
		wl_fixed_t width, wl_fixed_t height, wl_fixed_t radius) {
	struct vt_scene_node *node = scene_node_from_resource(resource);
	double v[] = {
		wl_fixed_to_double(x),
		wl_fixed_to_double(y),
		wl_fixed_to_double(width),
		wl_fixed_to_double(height),
		wl_fixed_to_double(radius),
	};
	if (!check_clip(resource, "set_clip", v) || node == NULL) {
		return;
	}
	node->pending.has_clip = true;
	for (int i = 0; i < 5; i++) {
		node->pending.clip[i] = (float)v[i];
	}
	node_mark_pending(node, CHANGE_CLIP);
}

static void node_handle_unset_clip(struct wl_client *client,
		struct wl_resource *resource) {
	struct vt_scene_node *node = scene_node_from_resource(resource);
	if (node == NULL) {
		return;
	}
	node->pending.has_clip = false;
	node_mark_pending(node, CHANGE_CLIP);
}

/* Height of node's pending subtree (1 for a leaf), counted up to limit. */
static int pending_height(const struct vt_scene_node *node, int limit) {
	if (limit <= 0) {
		return 1;
	}
	int height = 0;
	struct vt_scene_node **child;
	wl_array_for_each(child, &node->pending_children) {
		int h = pending_height(*child, limit - 1);
		if (h > height) {
			height = h;
		}
	}
	return height + 1;
}

static void node_handle_set_children(struct wl_client *client,
		struct wl_resource *resource, struct wl_array *children) {
	struct vt_scene_node *node = scene_node_from_resource(resource);
	if (children->size % sizeof(uint32_t) != 0) {
		vt_post_error(resource, VITRAIL_SCENE_NODE_V1_ERROR_BAD_ID,
				"children is %zu bytes, not a list of 32-bit ids",
				children->size);
		return;
	}
	size_t n = children->size / sizeof(uint32_t);
	const uint32_t *ids = children->data;
	if (node == NULL) {
		return;
	}
	struct scene *scene = node->scene;
	uint32_t stamp = ++scene->manager->stamp;
	int depth = 0; // nodes above this one in the pending tree
	for (struct vt_scene_node *a = node; a != NULL; a = a->pending_parent) {
		a->ancestor_stamp = stamp;
		depth++;
	}
	struct wl_array list;
	wl_array_init(&list);
	for (size_t i = 0; i < n; i++) {
		struct wl_resource *child_resource =
				wl_client_get_object(client, ids[i]);
		if (child_resource == NULL ||
				!wl_resource_instance_of(child_resource,
						&vitrail_scene_node_v1_interface, &scene_node_impl)) {
			vt_post_error(resource, VITRAIL_SCENE_NODE_V1_ERROR_BAD_ID,
					"children[%zu] = %u is "
					"not a vitrail_scene_node_v1",
					i, ids[i]);
			goto error;
		}
		struct vt_scene_node *child = scene_node_from_resource(child_resource);
		if (child == NULL || child->scene != scene) {
			vt_post_error(resource, VITRAIL_SCENE_NODE_V1_ERROR_FOREIGN_NODE,
					"children[%zu]: "
					"vitrail_scene_node_v1@%u belongs to another scene",
					i, ids[i]);
			goto error;
		}
		if (child->ancestor_stamp == stamp) {
			vt_post_error(resource, VITRAIL_SCENE_NODE_V1_ERROR_CYCLE,
					"children[%zu]: "
					"vitrail_scene_node_v1@%u is this node or one of its "
					"ancestors",
					i, ids[i]);
			goto error;
		}
		if (child->stamp == stamp) {
			vt_post_error(resource, VITRAIL_SCENE_NODE_V1_ERROR_DUPLICATE,
					"children[%zu]: "
					"vitrail_scene_node_v1@%u is named twice",
					i, ids[i]);
			goto error;
		}
		if (child == scene->pending_root) {
			vt_post_error(resource, VITRAIL_SCENE_NODE_V1_ERROR_IS_ROOT,
					"children[%zu]: "
					"vitrail_scene_node_v1@%u is the scene's root",
					i, ids[i]);
			goto error;
		}
		int height = pending_height(child, DEPTH_MAX);
		if (depth + height > DEPTH_MAX) {
			vt_post_error(resource, VITRAIL_SCENE_NODE_V1_ERROR_TOO_DEEP,
					"children[%zu]: "
					"vitrail_scene_node_v1@%u would make a chain of more than "
					"%d nodes",
					i, ids[i], DEPTH_MAX);
			goto error;
		}
		child->stamp = stamp;
		struct vt_scene_node **slot = wl_array_add(&list, sizeof(*slot));
		if (slot == NULL) {
			wl_resource_post_no_memory(resource);
			goto error;
		}
		*slot = child;
	}

	struct vt_scene_node **child;
	wl_array_for_each(child, &node->pending_children) {
		(*child)->pending_parent = NULL;
	}
	wl_array_for_each(child, &list) {
		struct vt_scene_node *old = (*child)->pending_parent;
		if (old != NULL) {
			array_remove_node(&old->pending_children, *child);
			node_mark_pending(old, CHANGE_CHILDREN);
		}
		(*child)->pending_parent = node;
	}
	wl_array_release(&node->pending_children);
	node->pending_children = list;
	node_mark_pending(node, CHANGE_CHILDREN);
	return;

error:
	wl_array_release(&list);
}

static void node_handle_set_display_list(struct wl_client *client,
		struct wl_resource *resource, struct wl_resource *list_resource) {
	struct vt_scene_node *node = scene_node_from_resource(resource);
	if (node == NULL) {
		return;
	}
	struct snapshot *snapshot = NULL;
	if (list_resource != NULL) {
		snapshot = scene_list_snapshot(scene_list_from_resource(list_resource));
		if (snapshot == NULL) {
			wl_resource_post_no_memory(resource);
			return;
		}
	}
	scene_snapshot_unref(node->pending_list);
	node->pending_list = snapshot;
	node_mark_pending(node, CHANGE_LIST);
}

static bool check_animation_values(struct wl_resource *resource, enum prop prop,
		const double *v) {
	switch (prop) {
	case PROP_TRANSLATION:
		return check_range(resource, "animate translation x", v[0], -COORD_MAX,
					   COORD_MAX) &&
				check_range(resource, "animate translation y", v[1], -COORD_MAX,
						COORD_MAX);
	case PROP_SCALE:
		return check_range(resource, "animate scale sx", v[0], -SCALE_MAX,
					   SCALE_MAX) &&
				check_range(resource, "animate scale sy", v[1], -SCALE_MAX,
						SCALE_MAX);
	case PROP_ROTATION:
		return check_range(resource, "animate rotation degrees", v[0],
				-ROTATION_MAX, ROTATION_MAX);
	case PROP_OPACITY:
		return check_range(resource, "animate opacity", v[0], 0.0, 1.0);
	case PROP_CLIP: return check_clip(resource, "animate clip", v);
	case PROP_COUNT: break;
	}
	abort();
}

static bool check_curve(struct wl_resource *resource, enum curve curve,
		const double *p) {
	switch (curve) {
	case CURVE_LINEAR: return true;
	case CURVE_CUBIC_BEZIER:
		return check_range(resource, "cubic_bezier x1", p[0], 0.0, 1.0) &&
				check_range(resource, "cubic_bezier y1", p[1], -CURVE_Y_MAX,
						CURVE_Y_MAX) &&
				check_range(resource, "cubic_bezier x2", p[2], 0.0, 1.0) &&
				check_range(resource, "cubic_bezier y2", p[3], -CURVE_Y_MAX,
						CURVE_Y_MAX);
	case CURVE_SPRING:
		if (p[0] <= 0.0 || p[2] <= 0.0) {
			vt_post_error(resource, VITRAIL_SCENE_NODE_V1_ERROR_OUT_OF_RANGE,
					"spring stiffness "
					"%g and mass %g must be > 0",
					p[0], p[2]);
			return false;
		}
		return check_range(resource, "spring stiffness", p[0], 0.0,
					   SPRING_STIFFNESS_MAX) &&
				check_range(resource, "spring damping", p[1], 0.0,
						SPRING_DAMPING_MAX) &&
				check_range(resource, "spring mass", p[2], 0.0,
						SPRING_MASS_MAX);
	case CURVE_COUNT: break;
	}
	abort();
}

static void node_handle_animate(struct wl_client *client,
		struct wl_resource *resource, uint32_t id, uint32_t property,
		struct wl_array *target, uint32_t duration_ms, uint32_t curve,
		struct wl_array *curve_params) {
	struct vt_scene_node *node = scene_node_from_resource(resource);
	struct wl_resource *anim_resource =
			wl_resource_create(client, &vitrail_scene_animation_v1_interface,
					wl_resource_get_version(resource), id);
	if (anim_resource == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(anim_resource, &scene_animation_impl, NULL,
			animation_handle_resource_destroy);

	if (property >= PROP_COUNT) {
		vt_post_error(resource, VITRAIL_SCENE_NODE_V1_ERROR_INVALID_ANIMATION,
				"unknown property %u", property);
		return;
	}
	enum prop prop = (enum prop)property;
	if (target->size != (size_t)scene_prop_counts[prop] * sizeof(wl_fixed_t)) {
		vt_post_error(resource, VITRAIL_SCENE_NODE_V1_ERROR_INVALID_ANIMATION,
				"a %s target is %d values, got %zu bytes",
				scene_prop_names[prop], scene_prop_counts[prop], target->size);
		return;
	}
	if (curve >= CURVE_COUNT) {
		vt_post_error(resource, VITRAIL_SCENE_NODE_V1_ERROR_INVALID_ANIMATION,
				"unknown curve %u", curve);
		return;
	}
	if (curve_params->size !=
			(size_t)scene_curve_counts[curve] * sizeof(wl_fixed_t)) {
		vt_post_error(resource, VITRAIL_SCENE_NODE_V1_ERROR_INVALID_ANIMATION,
				"curve %s takes %d parameters, got %zu bytes",
				scene_curve_names[curve], scene_curve_counts[curve],
				curve_params->size);
		return;
	}
	if (duration_ms < 1 || duration_ms > DURATION_MAX_MS) {
		vt_post_error(resource, VITRAIL_SCENE_NODE_V1_ERROR_OUT_OF_RANGE,
				"duration_ms = %u is not in [1, %d]", duration_ms,
				DURATION_MAX_MS);
		return;
	}
	double to[5], params[4];
	const wl_fixed_t *fixed = target->data;
	for (int i = 0; i < scene_prop_counts[prop]; i++) {
		to[i] = wl_fixed_to_double(fixed[i]);
	}
	fixed = curve_params->data;
	for (int i = 0; i < scene_curve_counts[curve]; i++) {
		params[i] = wl_fixed_to_double(fixed[i]);
	}
	if (!check_animation_values(resource, prop, to) ||
			!check_curve(resource, (enum curve)curve, params)) {
		return;
	}
	if (node == NULL) {
		return;
	}
	bool has_clip = (node->changes & CHANGE_CLIP) ? node->pending.has_clip :
													node->current.has_clip;
	if (prop == PROP_CLIP && !has_clip) {
		vt_post_error(resource, VITRAIL_SCENE_NODE_V1_ERROR_INVALID_ANIMATION,
				"a clip animation of a node without a clip");
		return;
	}
	struct client_quota *quota = node->scene->quota;
	if (quota->animations >= VITRAIL_SCENE_MANAGER_V1_QUOTA_ANIMATIONS) {
		vt_post_error(resource, VITRAIL_SCENE_NODE_V1_ERROR_QUOTA_EXCEEDED,
				"the client has %u animations, its quota", quota->animations);
		return;
	}
	struct scene_animation *anim = calloc(1, sizeof(*anim));
	if (anim == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	anim->resource = anim_resource;
	anim->manager = node->scene->manager;
	anim->quota = scene_quota_ref(quota);
	anim->node = node;
	anim->prop = prop;
	anim->curve = (enum curve)curve;
	anim->duration_ns = (uint64_t)duration_ms * 1000000;
	for (int i = 0; i < scene_prop_counts[prop]; i++) {
		anim->to[i] = (float)to[i];
	}
	for (int i = 0; i < scene_curve_counts[curve]; i++) {
		anim->params[i] = (float)params[i];
	}
	quota->animations++;
	wl_list_insert(node->pending_animations.prev, &anim->link);
	wl_resource_set_user_data(anim_resource, anim);
	node_mark_pending(node, 0);
}

const struct vitrail_scene_node_v1_interface scene_node_impl = {
	.destroy = scene_handle_destroy,
	.set_matrix = node_handle_set_matrix,
	.set_translation = node_handle_set_translation,
	.set_scale = node_handle_set_scale,
	.set_rotation = node_handle_set_rotation,
	.set_anchor = node_handle_set_anchor,
	.set_opacity = node_handle_set_opacity,
	.set_clip = node_handle_set_clip,
	.unset_clip = node_handle_unset_clip,
	.set_children = node_handle_set_children,
	.set_display_list = node_handle_set_display_list,
	.animate = node_handle_animate,
};

/* NULL when inert (its scene is gone). */
struct vt_scene_node *scene_node_from_resource(struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource, &vitrail_scene_node_v1_interface,
			&scene_node_impl));
	return wl_resource_get_user_data(resource);
}

/* ---- commit ------------------------------------------------------------- */

static const struct {
	uint32_t change;
	enum prop prop;
} change_props[] = {
	{ CHANGE_TRANSLATION, PROP_TRANSLATION },
	{ CHANGE_SCALE, PROP_SCALE },
	{ CHANGE_ROTATION, PROP_ROTATION },
	{ CHANGE_OPACITY, PROP_OPACITY },
	{ CHANGE_CLIP, PROP_CLIP },
};

/* Copy a node's pending properties to its current state and the tree. */
static void node_apply_props(struct vt_scene_node *node) {
	uint32_t changes = node->changes;
	struct node_props *pending = &node->pending, *current = &node->current;
	for (size_t i = 0; i < sizeof(change_props) / sizeof(change_props[0]);
			i++) {
		struct scene_animation *running = node->running[change_props[i].prop];
		if ((changes & change_props[i].change) && running != NULL) {
			animation_end(running, VITRAIL_SCENE_ANIMATION_V1_REASON_CANCELLED);
		}
	}
	if (changes & CHANGE_MATRIX) {
		current->matrix = pending->matrix;
	}
	if (changes & CHANGE_TRANSLATION) {
		memcpy(current->translation, pending->translation,
				sizeof(current->translation));
	}
	if (changes & CHANGE_SCALE) {
		memcpy(current->scale, pending->scale, sizeof(current->scale));
	}
	if (changes & CHANGE_ROTATION) {
		current->rotation = pending->rotation;
	}
	if (changes & CHANGE_ANCHOR) {
		memcpy(current->anchor, pending->anchor, sizeof(current->anchor));
	}
	if (changes & CHANGE_TRANSFORM) {
		scene_node_apply_transform(node);
	}
	if (changes & CHANGE_OPACITY) {
		current->opacity = pending->opacity;
		vr_node_set_opacity(node->vr, current->opacity);
	}
	if (changes & CHANGE_CLIP) {
		current->has_clip = pending->has_clip;
		memcpy(current->clip, pending->clip, sizeof(current->clip));
		node_apply_clip(node);
	}
	if (changes & CHANGE_LIST) {
		scene_snapshot_unref(node->list);
		node->list = node->pending_list;
		node->pending_list = NULL;
		node->record = true;
	}
}

/* New animations start from the values on screen. */
static bool node_start_animations(struct vt_scene_node *node) {
	bool started = false;
	struct scene_animation *anim, *tmp;
	wl_list_for_each_safe(anim, tmp, &node->pending_animations, link) {
		if (anim->prop == PROP_CLIP && !node->current.has_clip) {
			/* unset_clip in the same commit */
			animation_end(anim, VITRAIL_SCENE_ANIMATION_V1_REASON_CANCELLED);
			continue;
		}
		struct scene_animation *old = node->running[anim->prop];
		if (old != NULL) {
			animation_end(old, VITRAIL_SCENE_ANIMATION_V1_REASON_CANCELLED);
		}
		memcpy(anim->from, prop_values(&node->current, anim->prop),
				(size_t)scene_prop_counts[anim->prop] * sizeof(float));
		wl_list_remove(&anim->link);
		wl_list_insert(anim->manager->animations.prev, &anim->link);
		anim->running = true;
		anim->serial = ++anim->manager->next_serial;
		node->running[anim->prop] = anim;
		started = true;
	}
	return started;
}

void scene_apply(struct scene *scene) {
	if (wl_list_empty(&scene->pending) && !scene->root_changed) {
		return;
	}
	struct vt_scene_node *node, *tmp;

	/* Detach: the old root, children that left their parent. */
	if (scene->root_changed && scene->root != NULL &&
			scene->root != scene->pending_root &&
			vr_node_parent(scene->root->vr) == scene->anchor) {
		vr_node_set_parent(scene->root->vr, NULL);
	}
	wl_list_for_each(node, &scene->pending, pending_link) {
		if (!(node->changes & CHANGE_CHILDREN)) {
			continue;
		}
		struct vt_scene_node **child;
		wl_array_for_each(child, &node->children) {
			if ((*child)->pending_parent == node) {
				continue;
			}
			if (vr_node_parent((*child)->vr) == node->vr) {
				vr_node_set_parent((*child)->vr, NULL);
			}
			(*child)->parent = NULL;
		}
	}

	/* Attach: the new root, each changed parent's children in order. */
	if (scene->root_changed) {
		scene->root = scene->pending_root;
		if (scene->root != NULL &&
				vr_node_parent(scene->root->vr) != scene->anchor) {
			vr_node_set_parent(scene->root->vr, scene->anchor);
		}
		scene->root_changed = false;
	}
	wl_list_for_each(node, &scene->pending, pending_link) {
		if (!(node->changes & CHANGE_CHILDREN)) {
			continue;
		}
		struct vt_scene_node **child;
		wl_array_for_each(child, &node->pending_children) {
			if (vr_node_parent((*child)->vr) != node->vr) {
				vr_node_set_parent((*child)->vr, node->vr);
			} else {
				vr_node_raise_to_top((*child)->vr);
			}
			(*child)->parent = node;
		}
		wl_array_release(&node->children);
		wl_array_init(&node->children);
		if (wl_array_copy(&node->children, &node->pending_children) < 0) {
			wlr_log(WLR_ERROR, "out of memory applying a scene commit");
		}
	}

	/* Properties, then animations from the values they leave. */
	wl_list_for_each(node, &scene->pending, pending_link) {
		node_apply_props(node);
	}
	bool animating = false;
	wl_list_for_each(node, &scene->pending, pending_link) {
		animating |= node_start_animations(node);
	}

	/* Charge what changed, then record it (and only that): a commit
	 * over the client's drawn-commands quota is refused before anything
	 * is recorded, so an amplifying client costs no recording time. */
	bool over = false;
	wl_list_for_each(node, &scene->nodes, link) {
		if (node->record && !over) {
			over = !scene_node_charge(node);
		}
	}
	wl_list_for_each(node, &scene->nodes, link) {
		if (node->record) {
			if (over) {
				scene_node_drop_list(node);
			} else {
				scene_node_record(node);
			}
		}
	}
	wl_list_for_each_safe(node, tmp, &scene->pending, pending_link) {
		node->changes = 0;
		wl_list_remove(&node->pending_link);
		wl_list_init(&node->pending_link);
	}
	struct vt_server *server = scene->manager->server;
	vt_server_schedule_update(server);
	if (animating) {
		request_frames(server);
	}
}
