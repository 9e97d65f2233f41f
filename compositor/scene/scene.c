/*
 * vitrail_scene_v1: clients contribute render-node subtrees to the unified
 * render tree (see protocol/vitrail-scene-v1.xml for the client's view).
 *
 * Each vitrail_scene_v1 belongs to one wl_surface and owns an anchor node
 * that surface.c places in the surface's container right above its buffer
 * (vt_surface::scene); the scene's root node hangs below the anchor. Each
 * vitrail_scene_node_v1 owns one vr_node. Requests change pending state
 * only; the surface's commit event (the state wlroots applied) applies the
 * pending state of the nodes that changed, in phases (detach, attach,
 * properties, animations, recording), so the tree never sees half of a
 * commit.
 *
 * Display lists are chunks of the decoded command stream (one chunk per
 * append, immutable, reference counted); a node's set_display_list takes a
 * snapshot of the list's chunks. Only nodes whose snapshot changed are
 * recorded into a vr_display_list through the canvas API, once per
 * snapshot, however many nodes draw it. Clips, rounded ones included, are
 * the vr_nodes' (vr_node_set_clip_rounded): the renderer applies them at
 * render time, so moving a node under a rounded clip (an animation, a
 * scroll) records nothing.
 *
 * Animations run in the compositor: vt_scene_sample() evaluates them at
 * the display time of the frame output.c is preparing, right before the
 * tree update of that frame, and writes the values into the nodes' current
 * state and vr_nodes. A transform or opacity change marks only the
 * animated node's subtree dirty in the tree.
 *
 * Bounds: every client has a client_quota (nodes, display-list bytes,
 * images, animations), reference counted by everything charged to it,
 * because libwayland emits the client's destroy signal before it destroys
 * the client's resources.
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
#include "desktop/surface.h"
#include "output/output.h"
#include "scene/scene.h"
#include "server.h"
#include "util.h"
#include "vitrail-scene-v1-protocol.h"

#include "scene/scene_internal.h"

static const struct vitrail_scene_manager_v1_interface manager_impl;
static const struct vitrail_scene_v1_interface scene_impl;
static void scene_handle_surface_destroy(struct wl_listener *listener,
		void *data);

/* ---- resources ---------------------------------------------------------- */

static struct vt_scene_manager *manager_from_resource(
		struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource,
			&vitrail_scene_manager_v1_interface, &manager_impl));
	return wl_resource_get_user_data(resource);
}

/* NULL when inert (its surface is gone). */
static struct scene *scene_from_resource(struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource, &vitrail_scene_v1_interface,
			&scene_impl));
	return wl_resource_get_user_data(resource);
}

/* ---- scenes ------------------------------------------------------------- */

/* The scene and its nodes go (resource destroyed or surface gone); the
 * nodes' resources become inert. */
static void scene_destroy(struct scene *scene) {
	struct vt_scene_node *node, *tmp;
	wl_list_for_each_safe(node, tmp, &scene->nodes, link) {
		wl_resource_set_user_data(node->resource, NULL);
		scene_node_destroy(node);
	}
	if (scene->surface != NULL) {
		wl_list_remove(&scene->surface_commit.link);
		wl_list_remove(&scene->surface_destroy.link);
		struct vt_surface *surface = vt_surface_from_wlr(scene->surface);
		if (surface != NULL) {
			vt_surface_set_scene_node(surface, NULL);
		}
	}
	vr_node_destroy(scene->anchor);
	vt_server_schedule_update(scene->manager->server);
	scene_quota_unref(scene->quota);
	free(scene);
}

static void scene_handle_surface_commit(struct wl_listener *listener,
		void *data) {
	struct scene *scene = wl_container_of(listener, scene, surface_commit);
	scene_apply(scene);
}

static void scene_handle_surface_destroy(struct wl_listener *listener,
		void *data) {
	struct scene *scene = wl_container_of(listener, scene, surface_destroy);
	wl_resource_set_user_data(scene->resource, NULL);
	scene_destroy(scene);
}

static void scene_handle_resource_destroy(struct wl_resource *resource) {
	struct scene *scene = wl_resource_get_user_data(resource);
	if (scene != NULL) {
		scene_destroy(scene);
	}
}

static void scene_handle_create_node(struct wl_client *client,
		struct wl_resource *resource, uint32_t id) {
	struct scene *scene = scene_from_resource(resource);
	struct wl_resource *node_resource =
			wl_resource_create(client, &vitrail_scene_node_v1_interface,
					wl_resource_get_version(resource), id);
	if (node_resource == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(node_resource, &scene_node_impl, NULL,
			scene_node_handle_resource_destroy);
	if (scene == NULL) {
		return; /* inert */
	}
	if (scene->quota->nodes >= VITRAIL_SCENE_MANAGER_V1_QUOTA_NODES) {
		vt_post_error(resource, VITRAIL_SCENE_V1_ERROR_QUOTA_EXCEEDED,
				"vitrail_scene_node_v1@%u: the client already has %u nodes, "
				"its quota",
				id, scene->quota->nodes);
		return;
	}
	struct vt_scene_node *node = calloc(1, sizeof(*node));
	struct vr_node *vr = vr_node_create(scene->manager->server->tree);
	if (node == NULL || vr == NULL) {
		free(node);
		vr_node_destroy(vr);
		wl_client_post_no_memory(client);
		return;
	}
	node->resource = node_resource;
	node->scene = scene;
	node->vr = vr;
	scene_props_init(&node->pending);
	scene_props_init(&node->current);
	vr_mat_identity(&node->transform);
	wl_array_init(&node->pending_children);
	wl_array_init(&node->children);
	wl_list_init(&node->pending_link);
	wl_list_init(&node->pending_animations);
	wl_signal_init(&node->events.destroy);
	wl_list_insert(scene->nodes.prev, &node->link);
	scene->quota->nodes++;
	wl_resource_set_user_data(node_resource, node);
}

static void scene_handle_set_root(struct wl_client *client,
		struct wl_resource *resource, struct wl_resource *node_resource) {
	struct scene *scene = scene_from_resource(resource);
	struct vt_scene_node *node = node_resource != NULL ?
			scene_node_from_resource(node_resource) :
			NULL;
	if (scene == NULL) {
		return;
	}
	if (node_resource != NULL && (node == NULL || node->scene != scene)) {
		vt_post_error(resource, VITRAIL_SCENE_V1_ERROR_FOREIGN_NODE,
				"vitrail_scene_node_v1@%u belongs to another scene",
				wl_resource_get_id(node_resource));
		return;
	}
	if (node != NULL && node->pending_parent != NULL) {
		vt_post_error(resource, VITRAIL_SCENE_V1_ERROR_HAS_PARENT,
				"vitrail_scene_node_v1@%u is a child of "
				"vitrail_scene_node_v1@%u",
				wl_resource_get_id(node_resource),
				wl_resource_get_id(node->pending_parent->resource));
		return;
	}
	scene->pending_root = node;
	scene->root_changed = true;
}

static const struct vitrail_scene_v1_interface scene_impl = {
	.destroy = scene_handle_destroy,
	.create_node = scene_handle_create_node,
	.set_root = scene_handle_set_root,
};

/* ---- what scroll_region.c moves ----------------------------------------- */

struct vt_scene_node *vt_scene_node_from_resource(
		struct wl_resource *resource) {
	if (!wl_resource_instance_of(resource, &vitrail_scene_node_v1_interface,
				&scene_node_impl)) {
		return NULL;
	}
	return scene_node_from_resource(resource);
}

struct wlr_surface *vt_scene_node_surface(struct vt_scene_node *node) {
	return node->scene->surface;
}

void vt_scene_node_set_scroll(struct vt_scene_node *node, float x, float y) {
	if (node->scroll[0] == x && node->scroll[1] == y) {
		return;
	}
	node->scroll[0] = x;
	node->scroll[1] = y;
	scene_node_apply_transform(node);
	vt_server_schedule_update(node->scene->manager->server);
}

void vt_scene_node_add_destroy_listener(struct vt_scene_node *node,
		struct wl_listener *listener) {
	wl_signal_add(&node->events.destroy, listener);
}

/* ---- manager ------------------------------------------------------------ */

static void manager_handle_get_scene(struct wl_client *client,
		struct wl_resource *resource, uint32_t id,
		struct wl_resource *surface_resource) {
	struct vt_scene_manager *manager = manager_from_resource(resource);
	struct wlr_surface *wlr_surface =
			wlr_surface_from_resource(surface_resource);
	if (wl_signal_get(&wlr_surface->events.destroy,
				scene_handle_surface_destroy) != NULL) {
		vt_post_error(resource, VITRAIL_SCENE_MANAGER_V1_ERROR_ALREADY_BOUND,
				"wl_surface@%u already has a vitrail_scene_v1",
				wl_resource_get_id(surface_resource));
		return;
	}
	struct vt_surface *surface = vt_surface_from_wlr(wlr_surface);
	struct wl_resource *scene_resource = wl_resource_create(client,
			&vitrail_scene_v1_interface, wl_resource_get_version(resource), id);
	struct scene *scene = calloc(1, sizeof(*scene));
	struct client_quota *quota = scene_quota_get(client);
	struct vr_node *anchor = vr_node_create(manager->server->tree);
	if (surface == NULL || scene_resource == NULL || scene == NULL ||
			quota == NULL || anchor == NULL) {
		if (scene_resource != NULL) {
			wl_resource_destroy(scene_resource);
		}
		free(scene);
		scene_quota_unref(quota);
		vr_node_destroy(anchor);
		wl_client_post_no_memory(client);
		return;
	}
	scene->resource = scene_resource;
	scene->manager = manager;
	scene->quota = quota;
	scene->surface = wlr_surface;
	scene->anchor = anchor;
	wl_list_init(&scene->nodes);
	wl_list_init(&scene->pending);
	wl_resource_set_implementation(scene_resource, &scene_impl, scene,
			scene_handle_resource_destroy);
	scene->surface_commit.notify = scene_handle_surface_commit;
	wl_signal_add(&wlr_surface->events.commit, &scene->surface_commit);
	scene->surface_destroy.notify = scene_handle_surface_destroy;
	wl_signal_add(&wlr_surface->events.destroy, &scene->surface_destroy);
	vt_surface_set_scene_node(surface, anchor);
}

static void manager_handle_create_image(struct wl_client *client,
		struct wl_resource *resource, uint32_t id,
		struct wl_resource *buffer_resource) {
	struct wl_resource *image_resource =
			wl_resource_create(client, &vitrail_scene_image_v1_interface,
					wl_resource_get_version(resource), id);
	if (image_resource == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(image_resource, &scene_image_impl, NULL,
			scene_image_handle_resource_destroy);

	uint32_t buffer_id = wl_resource_get_id(buffer_resource);
	struct wl_shm_buffer *shm = wl_shm_buffer_get(buffer_resource);
	if (shm == NULL) {
		vt_post_error(resource, VITRAIL_SCENE_MANAGER_V1_ERROR_INVALID_BUFFER,
				"wl_buffer@%u is not a wl_shm buffer", buffer_id);
		return;
	}
	uint32_t format = wl_shm_buffer_get_format(shm);
	if (format != WL_SHM_FORMAT_ARGB8888 && format != WL_SHM_FORMAT_XRGB8888) {
		vt_post_error(resource, VITRAIL_SCENE_MANAGER_V1_ERROR_INVALID_BUFFER,
				"wl_buffer@%u has format 0x%08x, not ARGB8888 or XRGB8888",
				buffer_id, format);
		return;
	}
	int32_t width = wl_shm_buffer_get_width(shm);
	int32_t height = wl_shm_buffer_get_height(shm);
	if (width > IMAGE_SIZE_MAX || height > IMAGE_SIZE_MAX) {
		vt_post_error(resource, VITRAIL_SCENE_MANAGER_V1_ERROR_OUT_OF_RANGE,
				"wl_buffer@%u is %dx%d, larger than %dx%d", buffer_id, width,
				height, IMAGE_SIZE_MAX, IMAGE_SIZE_MAX);
		return;
	}
	/* libwayland only checks stride >= width: rows of width * 4 bytes
	 * would read past the client's pool. */
	int32_t stride = wl_shm_buffer_get_stride(shm);
	if ((int64_t)stride < (int64_t)width * 4) {
		vt_post_error(resource, VITRAIL_SCENE_MANAGER_V1_ERROR_INVALID_BUFFER,
				"wl_buffer@%u stride %d is less than its width %d x 4 bytes",
				buffer_id, stride, width);
		return;
	}
	struct client_quota *quota = scene_quota_get(client);
	if (quota == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	uint64_t bytes = (uint64_t)width * (uint64_t)height * 4;
	if (quota->images >= VITRAIL_SCENE_MANAGER_V1_QUOTA_IMAGES ||
			quota->image_bytes + bytes >
					VITRAIL_SCENE_MANAGER_V1_QUOTA_IMAGE_BYTES) {
		vt_post_error(resource, VITRAIL_SCENE_MANAGER_V1_ERROR_QUOTA_EXCEEDED,
				"wl_buffer@%u %dx%d: the client holds %u images, %" PRIu64
				" bytes (quota %u, %u)",
				buffer_id, width, height, quota->images, quota->image_bytes,
				VITRAIL_SCENE_MANAGER_V1_QUOTA_IMAGES,
				VITRAIL_SCENE_MANAGER_V1_QUOTA_IMAGE_BYTES);
		scene_quota_unref(quota);
		return;
	}
	struct scene_image *image = calloc(1, sizeof(*image));
	struct image_data *data = calloc(1, sizeof(*data));
	struct vr_image *vr_image = vr_image_create(width, height,
			format == WL_SHM_FORMAT_XRGB8888 ? VR_FORMAT_XRGB8888 :
											   VR_FORMAT_ARGB8888);
	if (image == NULL || data == NULL || vr_image == NULL) {
		free(image);
		free(data);
		vr_image_unref(vr_image);
		scene_quota_unref(quota);
		wl_client_post_no_memory(client);
		return;
	}
	/* at once, as the protocol says: the client may reuse the buffer
	 * right after the request (4096x4096 from a sparse pool: 150-280 ms
	 * on the CI machine, 250-480 without the prefault) */
	wl_shm_buffer_begin_access(shm);
	vt_prefault_read(wl_shm_buffer_get_data(shm),
			(size_t)stride * (size_t)(height - 1) + (size_t)width * 4);
	vr_image_write(vr_image, wl_shm_buffer_get_data(shm), stride, NULL);
	wl_shm_buffer_end_access(shm);
	data->refs = 1;
	data->image = vr_image;
	data->quota = quota;
	data->bytes = bytes;
	quota->images++;
	quota->image_bytes += bytes;
	image->data = data;
	wl_resource_set_user_data(image_resource, image);
}

static void manager_handle_create_display_list(struct wl_client *client,
		struct wl_resource *resource, uint32_t id) {
	struct wl_resource *list_resource =
			wl_resource_create(client, &vitrail_scene_display_list_v1_interface,
					wl_resource_get_version(resource), id);
	struct scene_list *list = calloc(1, sizeof(*list));
	struct client_quota *quota = scene_quota_get(client);
	if (list_resource == NULL || list == NULL || quota == NULL) {
		if (list_resource != NULL) {
			wl_resource_destroy(list_resource);
		}
		free(list);
		scene_quota_unref(quota);
		wl_client_post_no_memory(client);
		return;
	}
	list->quota = quota;
	wl_resource_set_implementation(list_resource, &scene_list_impl, list,
			scene_list_handle_resource_destroy);
}

static const struct vitrail_scene_manager_v1_interface manager_impl = {
	.destroy = scene_handle_destroy,
	.get_scene = manager_handle_get_scene,
	.create_image = manager_handle_create_image,
	.create_display_list = manager_handle_create_display_list,
};

static void manager_bind(struct wl_client *client, void *data, uint32_t version,
		uint32_t id) {
	vt_resource_create(client, &vitrail_scene_manager_v1_interface, version, id,
			&manager_impl, data, NULL);
}

/* Frames go on while animations run (after frame timing's answer,
 * before the scroll regions'). */
static void handle_busy(struct wl_listener *listener, void *data) {
	struct vt_frame_busy_event *event = data;
	event->animating = vt_scene_animating(event->server);
}

/* A frame starts: animations take their values at its display time
 * (after frame timing latched queued commits). */
static void handle_sample(struct wl_listener *listener, void *data) {
	struct vt_scene_manager *manager =
			wl_container_of(listener, manager, sample);
	struct vt_frame_sample_event *event = data;
	vt_scene_sample(manager->server, event->display_ns, event->scene_samples,
			event->scene_samples_len);
}

bool vt_scene_init(struct vt_server *server) {
	struct vt_scene_manager *manager = calloc(1, sizeof(*manager));
	if (manager == NULL) {
		return false;
	}
	manager->server = server;
	wl_list_init(&manager->animations);
	manager->global = wl_global_create(server->display,
			&vitrail_scene_manager_v1_interface, SCENE_VERSION, manager,
			manager_bind);
	if (manager->global == NULL) {
		free(manager);
		return false;
	}
	server->scene = manager;
	manager->busy.notify = handle_busy;
	wl_signal_add(&server->frame_events.busy, &manager->busy);
	manager->sample.notify = handle_sample;
	wl_signal_add(&server->frame_events.sample, &manager->sample);
	return true;
}

void vt_scene_finish(struct vt_server *server) {
	struct vt_scene_manager *manager = server->scene;
	if (manager == NULL) {
		return;
	}
	/* Every client is gone, and with them every animation. */
	assert(wl_list_empty(&manager->animations));
	wl_list_remove(&manager->busy.link);
	wl_list_remove(&manager->sample.link);
	wl_global_destroy(manager->global);
	free(manager);
	server->scene = NULL;
}
