/*
 * The scene protocol's internals, shared by its files, which call one way:
 * objects.c (errors, quotas, images) <- display_list.c <- nodes.c (nodes
 * and animations) <- scene.c (the manager and scenes): its objects and
 * limits, and the helpers a file calls in a file below it.
 */
#ifndef VITRAIL_SCENE_SCENE_INTERNAL_H
#define VITRAIL_SCENE_SCENE_INTERNAL_H

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
#include "scene/decoder.h"
#include "server.h"
#include "vitrail-scene-v1-protocol.h"

#define SCENE_VERSION 1

/* The decoder's error codes are the protocol's. */
static_assert((int)VT_DL_ERROR_BAD_COMMAND ==
				(int)VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_BAD_COMMAND,
		"decoder error codes");
static_assert((int)VT_DL_ERROR_OUT_OF_RANGE ==
				(int)VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_OUT_OF_RANGE,
		"decoder error codes");
static_assert((int)VT_DL_ERROR_BAD_IMAGE ==
				(int)VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_BAD_IMAGE,
		"decoder error codes");
static_assert((int)VT_DL_ERROR_TRUNCATED ==
				(int)VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_TRUNCATED,
		"decoder error codes");

/* Limits besides the quotas (documented in the protocol). */
#define COORD_MAX VT_DL_COORD_MAX
#define SCALE_MAX 1000.0f
#define ROTATION_MAX 36000.0f
#define IMAGE_SIZE_MAX 4096
#define DEPTH_MAX 128
#define DURATION_MAX_MS 60000
#define CURVE_Y_MAX 10.0f
#define SPRING_STIFFNESS_MAX 10000.0f
#define SPRING_DAMPING_MAX 1000.0f
#define SPRING_MASS_MAX 100.0f

#define PI 3.14159265358979323846

enum prop {
	PROP_TRANSLATION = VITRAIL_SCENE_NODE_V1_PROPERTY_TRANSLATION,
	PROP_SCALE = VITRAIL_SCENE_NODE_V1_PROPERTY_SCALE,
	PROP_ROTATION = VITRAIL_SCENE_NODE_V1_PROPERTY_ROTATION,
	PROP_OPACITY = VITRAIL_SCENE_NODE_V1_PROPERTY_OPACITY,
	PROP_CLIP = VITRAIL_SCENE_NODE_V1_PROPERTY_CLIP,
	PROP_COUNT,
};

enum curve {
	CURVE_LINEAR = VITRAIL_SCENE_NODE_V1_CURVE_LINEAR,
	CURVE_CUBIC_BEZIER = VITRAIL_SCENE_NODE_V1_CURVE_CUBIC_BEZIER,
	CURVE_SPRING = VITRAIL_SCENE_NODE_V1_CURVE_SPRING,
	CURVE_COUNT,
};

/* Pending changes of a node. */
enum node_change {
	CHANGE_MATRIX = 1 << 0,
	CHANGE_TRANSLATION = 1 << 1,
	CHANGE_SCALE = 1 << 2,
	CHANGE_ROTATION = 1 << 3,
	CHANGE_ANCHOR = 1 << 4,
	CHANGE_OPACITY = 1 << 5,
	CHANGE_CLIP = 1 << 6,
	CHANGE_CHILDREN = 1 << 7,
	CHANGE_LIST = 1 << 8,
};

#define CHANGE_TRANSFORM \
	(CHANGE_MATRIX | CHANGE_TRANSLATION | CHANGE_SCALE | CHANGE_ROTATION | \
			CHANGE_ANCHOR)

struct vt_scene_manager {
	struct vt_server *server;
	struct wl_global *global;
	struct wl_list animations; // scene_animation::link, running ones
	uint32_t next_serial; // numbers animations for the frame log
	uint32_t stamp; // marks for set_children's checks
	/* the outputs' frame clock (server->frame_events) */
	struct wl_listener busy;
	struct wl_listener sample;
};

struct client_quota {
	int refs; // the client until it is destroyed, and each object
	struct wl_client *client; // NULL once destroyed: send no events
	struct wl_listener client_destroy;
	uint32_t nodes, images, animations;
	uint64_t image_bytes, list_bytes;
	uint64_t recorded_bytes; // recordings held, each counted once
	uint64_t drawn_commands; // commands of the nodes' display lists
};

/* Pixels of a vitrail_scene_image_v1, shared with the commands using it. */
struct image_data {
	int refs;
	struct vr_image *image;
	struct client_quota *quota;
	uint64_t bytes;
};

struct scene_image {
	struct image_data *data;
};

/* The commands of one append, immutable. */
struct chunk {
	int refs;
	struct client_quota *quota;
	uint64_t bytes; // stream bytes, charged to quota->list_bytes
	struct vt_dl_cmd *cmds;
	size_t ncmds;
};

/* A display list's content at one moment, shared by every node that
 * set it (and by the list until it changes): recorded once, drawn by
 * them all. */
struct snapshot {
	int refs;
	struct client_quota *quota;
	struct chunk **chunks; // referenced
	size_t nchunks;
	struct vr_display_list *recorded; // NULL until a node draws it
	uint64_t recorded_bytes; // charged to quota->recorded_bytes
};

struct scene_list {
	struct client_quota *quota;
	struct chunk **chunks; // referenced
	size_t nchunks, cap;
	uint64_t bytes; // sum of the chunks' bytes
	int depth; // saves open at the end of the stream
	struct snapshot *snapshot; // referenced; NULL once the list changed
};

struct node_props {
	struct vr_mat matrix;
	float translation[2];
	float scale[2];
	float rotation; // degrees
	float anchor[2];
	float opacity;
	bool has_clip;
	float clip[5]; // x, y, width, height, radius
};

struct scene;

struct vt_scene_node {
	struct wl_resource *resource;
	struct scene *scene;
	struct vr_node *vr;
	struct wl_list link; // scene::nodes
	struct wl_list pending_link; // scene::pending, empty when clean
	uint32_t changes; // enum node_change, pending
	struct node_props pending, current; // current: what is displayed
	struct vr_mat transform; // current relative transform
	struct vt_scene_node *pending_parent, *parent;
	struct wl_array pending_children, children; // struct vt_scene_node *
	struct snapshot *pending_list, *list;
	struct wl_list pending_animations; // scene_animation::link
	struct scene_animation *running[PROP_COUNT];
	uint32_t stamp, ancestor_stamp; // set_children's checks
	bool record; // the display list must be recorded again
	uint64_t drawn; // commands it draws, charged to drawn_commands
	/* scroll_region.c: the compositor's scroll of this node
	 * (vitrail_scroll_v1), subtracted after its own transform */
	float scroll[2];
	struct {
		struct wl_signal destroy; // struct vt_scene_node *
	} events;
};

struct scene {
	struct wl_resource *resource;
	struct vt_scene_manager *manager;
	struct client_quota *quota;
	struct wlr_surface *surface;
	struct vr_node *anchor; // in the surface's container
	struct vt_scene_node *root, *pending_root;
	bool root_changed;
	struct wl_list nodes; // scene_node::link
	struct wl_list pending; // scene_node::pending_link
	struct wl_listener surface_commit;
	struct wl_listener surface_destroy;
};

struct scene_animation {
	struct wl_resource *resource;
	struct vt_scene_manager *manager;
	struct client_quota *quota;
	struct vt_scene_node *node; // NULL once ended
	struct wl_list link; // scene_node::pending_animations or
						 // vt_scene_manager::animations
	bool running, started;
	uint32_t serial;
	enum prop prop;
	enum curve curve;
	float params[4];
	float from[5], to[5];
	uint64_t duration_ns;
	uint64_t start_ns, last_ns;
};

extern const char *const scene_prop_names[PROP_COUNT];
extern const int scene_prop_counts[PROP_COUNT];
extern const char *const scene_curve_names[CURVE_COUNT];
extern const int scene_curve_counts[CURVE_COUNT];
struct vt_scene_node *scene_node_from_resource(struct wl_resource *resource);
struct scene_list *scene_list_from_resource(struct wl_resource *resource);
struct scene_image *scene_image_from_resource(struct wl_resource *resource);
/* The client's quota, with a reference for the caller; NULL when out of
 * memory. */
struct client_quota *scene_quota_get(struct wl_client *client);
void scene_image_handle_resource_destroy(struct wl_resource *resource);
void scene_handle_destroy(struct wl_client *client,
		struct wl_resource *resource);
void scene_quota_unref(struct client_quota *quota);
struct client_quota *scene_quota_ref(struct client_quota *quota);
struct image_data *scene_image_data_ref(struct image_data *data);
void scene_image_data_unref(struct image_data *data);
extern const struct vitrail_scene_image_v1_interface scene_image_impl;
void scene_snapshot_unref(struct snapshot *snapshot);
extern const struct vitrail_scene_display_list_v1_interface scene_list_impl;
void scene_list_handle_resource_destroy(struct wl_resource *resource);
struct snapshot *scene_list_snapshot(struct scene_list *list);
bool scene_charge_drawn(struct vt_scene_node *node, uint64_t count);
bool scene_node_charge(struct vt_scene_node *node);
void scene_node_drop_list(struct vt_scene_node *node);
void scene_node_record(struct vt_scene_node *node);
void scene_props_init(struct node_props *props);
void scene_node_apply_transform(struct vt_scene_node *node);
extern const struct vitrail_scene_animation_v1_interface scene_animation_impl;
void scene_node_destroy(struct vt_scene_node *node);
void scene_node_handle_resource_destroy(struct wl_resource *resource);
extern const struct vitrail_scene_node_v1_interface scene_node_impl;
void scene_apply(struct scene *scene);

#endif
