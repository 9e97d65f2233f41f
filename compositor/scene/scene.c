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
#include "scene/decoder.h"
#include "scene/scene.h"
#include "server.h"
#include "util.h"
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

static const char *const prop_names[PROP_COUNT] = {
	"translation", "scale", "rotation", "opacity", "clip",
};
static const int prop_counts[PROP_COUNT] = { 2, 2, 1, 1, 5 };

enum curve {
	CURVE_LINEAR = VITRAIL_SCENE_NODE_V1_CURVE_LINEAR,
	CURVE_CUBIC_BEZIER = VITRAIL_SCENE_NODE_V1_CURVE_CUBIC_BEZIER,
	CURVE_SPRING = VITRAIL_SCENE_NODE_V1_CURVE_SPRING,
	CURVE_COUNT,
};

static const char *const curve_names[CURVE_COUNT] = {
	"linear", "cubic_bezier", "spring",
};
static const int curve_counts[CURVE_COUNT] = { 0, 4, 3 };

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

#define CHANGE_TRANSFORM (CHANGE_MATRIX | CHANGE_TRANSLATION | \
	CHANGE_SCALE | CHANGE_ROTATION | CHANGE_ANCHOR)

struct vt_scene_manager {
	struct vt_server *server;
	struct wl_global *global;
	struct wl_list animations; // scene_animation::link, running ones
	uint32_t next_serial; // numbers animations for the frame log
	uint32_t stamp; // marks for set_children's checks
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
	/* scroll_region.c: the compositor's scroll of this node (vitrail_scroll_v1),
	 * subtracted after its own transform */
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

static const struct vitrail_scene_manager_v1_interface manager_impl;
static const struct vitrail_scene_v1_interface scene_impl;
static const struct vitrail_scene_node_v1_interface node_impl;
static const struct vitrail_scene_display_list_v1_interface list_impl;
static const struct vitrail_scene_image_v1_interface image_impl;
static const struct vitrail_scene_animation_v1_interface animation_impl;

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

/* NULL when inert (its scene is gone). */
static struct vt_scene_node *node_from_resource(struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource,
		&vitrail_scene_node_v1_interface, &node_impl));
	return wl_resource_get_user_data(resource);
}

static struct scene_list *list_from_resource(struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource,
		&vitrail_scene_display_list_v1_interface, &list_impl));
	return wl_resource_get_user_data(resource);
}

static struct scene_image *image_from_resource(struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource,
		&vitrail_scene_image_v1_interface, &image_impl));
	return wl_resource_get_user_data(resource);
}

static void handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

/* libwayland formats a protocol error into a 128-byte buffer and cuts
 * what does not fit: messages put the offending value first and stay
 * under ERROR_MESSAGE_MAX bytes; a longer one is logged whole. */
#define ERROR_MESSAGE_MAX 100

static void post_error(struct wl_resource *resource, uint32_t code,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void post_error(struct wl_resource *resource, uint32_t code,
		const char *fmt, ...) {
	char message[512];
	va_list args;
	va_start(args, fmt);
	int n = vsnprintf(message, sizeof(message), fmt, args);
	va_end(args);
	if (n > ERROR_MESSAGE_MAX) {
		wlr_log(WLR_ERROR, "scene protocol error message of %d bytes, "
			"cut by libwayland: %s", n, message);
	}
	wl_resource_post_error(resource, code, "%s", message);
}

/* ---- quotas ------------------------------------------------------------- */

static void quota_unref(struct client_quota *quota) {
	if (quota == NULL || --quota->refs > 0) {
		return;
	}
	assert(quota->client == NULL);
	free(quota);
	/* The client's last object is gone: give glibc's free pages back,
	 * so that its display lists and images do not stay in vitrail's
	 * resident memory. */
	malloc_trim(0);
}

static struct client_quota *quota_ref(struct client_quota *quota) {
	quota->refs++;
	return quota;
}

static void quota_handle_client_destroy(struct wl_listener *listener,
		void *data) {
	struct client_quota *quota =
		wl_container_of(listener, quota, client_destroy);
	wl_list_remove(&quota->client_destroy.link);
	quota->client = NULL;
	quota_unref(quota);
}

/* The client's quota, with a reference for the caller; NULL when out of
 * memory. */
static struct client_quota *quota_get(struct wl_client *client) {
	struct wl_listener *listener = wl_client_get_destroy_listener(client,
		quota_handle_client_destroy);
	if (listener != NULL) {
		struct client_quota *quota =
			wl_container_of(listener, quota, client_destroy);
		return quota_ref(quota);
	}
	struct client_quota *quota = calloc(1, sizeof(*quota));
	if (quota == NULL) {
		return NULL;
	}
	quota->refs = 2;
	quota->client = client;
	quota->client_destroy.notify = quota_handle_client_destroy;
	wl_client_add_destroy_listener(client, &quota->client_destroy);
	return quota;
}

/* ---- images ------------------------------------------------------------- */

static struct image_data *image_data_ref(struct image_data *data) {
	data->refs++;
	return data;
}

static void image_data_unref(struct image_data *data) {
	if (data == NULL || --data->refs > 0) {
		return;
	}
	data->quota->images--;
	data->quota->image_bytes -= data->bytes;
	quota_unref(data->quota);
	vr_image_unref(data->image);
	free(data);
}

static void image_handle_resource_destroy(struct wl_resource *resource) {
	struct scene_image *image = wl_resource_get_user_data(resource);
	if (image == NULL) {
		return;
	}
	image_data_unref(image->data);
	free(image);
}

static const struct vitrail_scene_image_v1_interface image_impl = {
	.destroy = handle_destroy,
};

/* ---- command stream ----------------------------------------------------- */

static void cmd_finish(struct vt_dl_cmd *cmd) {
	image_data_unref(cmd->image);
	vt_dl_cmd_finish(cmd);
}

static void chunk_unref(struct chunk *chunk) {
	if (chunk == NULL || --chunk->refs > 0) {
		return;
	}
	for (size_t i = 0; i < chunk->ncmds; i++) {
		cmd_finish(&chunk->cmds[i]);
	}
	free(chunk->cmds);
	chunk->quota->list_bytes -= chunk->bytes;
	quota_unref(chunk->quota);
	free(chunk);
}

static void snapshot_unref(struct snapshot *snapshot) {
	if (snapshot == NULL || --snapshot->refs > 0) {
		return;
	}
	for (size_t i = 0; i < snapshot->nchunks; i++) {
		chunk_unref(snapshot->chunks[i]);
	}
	free(snapshot->chunks);
	vr_display_list_unref(snapshot->recorded);
	snapshot->quota->recorded_bytes -= snapshot->recorded_bytes;
	quota_unref(snapshot->quota);
	free(snapshot);
}

/* The image behind object id for the decoder: a live
 * vitrail_scene_image_v1 of the list's client. */
static void *decoder_lookup_image(void *data, uint32_t id, uint32_t *width,
		uint32_t *height) {
	struct wl_resource *resource = wl_client_get_object(data, id);
	if (resource == NULL || !wl_resource_instance_of(resource,
			&vitrail_scene_image_v1_interface, &image_impl) ||
			image_from_resource(resource) == NULL) {
		return NULL;
	}
	struct image_data *image = image_from_resource(resource)->data;
	*width = (uint32_t)vr_image_width(image->image);
	*height = (uint32_t)vr_image_height(image->image);
	return image;
}

/* Decode a whole stream (scene/decoder.c) into a new chunk charged to the
 * list's client; NULL (error posted) when anything is wrong. */
static struct chunk *decode_stream(struct wl_resource *resource,
		struct scene_list *list, const uint8_t *data, size_t size) {
	struct wl_client *client = wl_resource_get_client(resource);
	struct chunk *chunk = calloc(1, sizeof(*chunk));
	if (chunk == NULL) {
		wl_client_post_no_memory(client);
		return NULL;
	}
	struct vt_dl_images images = {
		.lookup = decoder_lookup_image,
		.data = client,
	};
	struct vt_dl_error error;
	int depth = list->depth;
	if (!vt_dl_decode(data, size, &depth, &images, &chunk->cmds,
			&chunk->ncmds, &error)) {
		if (error.code == VT_DL_ERROR_NO_MEMORY) {
			wl_client_post_no_memory(client);
		} else {
			post_error(resource, error.code, "%s", error.message);
		}
		free(chunk);
		return NULL;
	}
	for (size_t i = 0; i < chunk->ncmds; i++) {
		if (chunk->cmds[i].image != NULL) {
			image_data_ref(chunk->cmds[i].image);
		}
	}
	chunk->refs = 1;
	chunk->bytes = size;
	chunk->quota = quota_ref(list->quota);
	chunk->quota->list_bytes += size;
	list->depth = depth;
	return chunk;
}

/* ---- display lists ------------------------------------------------------ */

/* The list changes: nodes keep the snapshot they took. */
static void list_forget_snapshot(struct scene_list *list) {
	snapshot_unref(list->snapshot);
	list->snapshot = NULL;
}

static void list_clear(struct scene_list *list) {
	list_forget_snapshot(list);
	for (size_t i = 0; i < list->nchunks; i++) {
		chunk_unref(list->chunks[i]);
	}
	list->nchunks = 0;
	list->bytes = 0;
	list->depth = 0;
}

static void list_handle_reset(struct wl_client *client,
		struct wl_resource *resource) {
	list_clear(list_from_resource(resource));
}

/* Check the limits for size more bytes; false (error posted) when one
 * would be exceeded. */
static bool list_check_size(struct wl_resource *resource,
		struct scene_list *list, uint64_t size) {
	uint64_t max = VITRAIL_SCENE_MANAGER_V1_QUOTA_DISPLAY_LIST_SIZE;
	if (list->bytes + size > max) {
		post_error(resource,
			VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_TOO_LARGE,
			"%" PRIu64 " more bytes make the list %" PRIu64 " bytes, over "
			"display_list_size %" PRIu64, size, list->bytes + size, max);
		return false;
	}
	uint64_t quota = VITRAIL_SCENE_MANAGER_V1_QUOTA_DISPLAY_LIST_BYTES;
	if (list->quota->list_bytes + size > quota) {
		post_error(resource,
			VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_QUOTA_EXCEEDED,
			"%" PRIu64 " more bytes make the client's lists %" PRIu64
			" bytes, over its quota %" PRIu64, size,
			list->quota->list_bytes + size, quota);
		return false;
	}
	return true;
}

static void list_append(struct wl_resource *resource, const uint8_t *data,
		size_t size) {
	struct scene_list *list = list_from_resource(resource);
	if (size == 0 || !list_check_size(resource, list, size)) {
		return;
	}
	struct chunk *chunk = decode_stream(resource, list, data, size);
	if (chunk == NULL) {
		return;
	}
	if (list->nchunks == list->cap) {
		size_t cap = list->cap ? list->cap * 2 : 8;
		struct chunk **chunks = realloc(list->chunks, cap * sizeof(*chunks));
		if (chunks == NULL) {
			chunk_unref(chunk);
			wl_resource_post_no_memory(resource);
			return;
		}
		list->chunks = chunks;
		list->cap = cap;
	}
	list_forget_snapshot(list);
	list->chunks[list->nchunks++] = chunk;
	list->bytes += size;
}

static void list_handle_append(struct wl_client *client,
		struct wl_resource *resource, struct wl_array *commands) {
	list_append(resource, commands->data, commands->size);
}

static void list_handle_append_shm(struct wl_client *client,
		struct wl_resource *resource, int32_t fd, uint32_t offset,
		uint32_t size) {
	struct scene_list *list = list_from_resource(resource);
	uint8_t *data = NULL;
	struct stat st;
	if (fstat(fd, &st) != 0) {
		post_error(resource,
			VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_TRUNCATED,
			"cannot stat fd %d: %s", fd, strerror(errno));
		goto out;
	}
	if ((uint64_t)offset + size > (uint64_t)st.st_size) {
		post_error(resource,
			VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_TRUNCATED,
			"offset %u + size %u is beyond the end of the file (%jd bytes)",
			offset, size, (intmax_t)st.st_size);
		goto out;
	}
	if (size == 0 || !list_check_size(resource, list, size)) {
		goto out;
	}
	data = malloc(size);
	if (data == NULL) {
		wl_resource_post_no_memory(resource);
		goto out;
	}
	/* pread, not mmap: a client shrinking the file cannot fault us. */
	size_t got = 0;
	while (got < size) {
		ssize_t n = pread(fd, data + got, size - got, (off_t)offset + got);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			post_error(resource,
				VITRAIL_SCENE_DISPLAY_LIST_V1_ERROR_TRUNCATED,
				"read %zu of %u bytes at offset %u: %s", got, size, offset,
				n < 0 ? strerror(errno) : "end of file");
			goto out;
		}
		got += (size_t)n;
	}
	list_append(resource, data, size);
out:
	free(data);
	close(fd);
}

static const struct vitrail_scene_display_list_v1_interface list_impl = {
	.destroy = handle_destroy,
	.reset = list_handle_reset,
	.append = list_handle_append,
	.append_shm = list_handle_append_shm,
};

static void list_handle_resource_destroy(struct wl_resource *resource) {
	struct scene_list *list = wl_resource_get_user_data(resource);
	if (list == NULL) {
		return;
	}
	list_clear(list);
	free(list->chunks);
	quota_unref(list->quota);
	free(list);
}

/* The list's chunks as they are now, shared with every other node that
 * took them since the list last changed; NULL when out of memory. */
static struct snapshot *list_snapshot(struct scene_list *list) {
	if (list->snapshot != NULL) {
		list->snapshot->refs++;
		return list->snapshot;
	}
	struct snapshot *snapshot = calloc(1, sizeof(*snapshot));
	if (snapshot == NULL) {
		return NULL;
	}
	snapshot->refs = 2; // the caller's and the list's
	snapshot->quota = quota_ref(list->quota);
	list->snapshot = snapshot;
	if (list->nchunks > 0) {
		snapshot->chunks = calloc(list->nchunks, sizeof(*snapshot->chunks));
		if (snapshot->chunks == NULL) {
			free(snapshot);
			return NULL;
		}
	}
	for (size_t i = 0; i < list->nchunks; i++) {
		list->chunks[i]->refs++;
		snapshot->chunks[i] = list->chunks[i];
	}
	snapshot->nchunks = list->nchunks;
	return snapshot;
}

/* ---- recording ---------------------------------------------------------- */

static struct vr_rectf rectf(const float *v) {
	return (struct vr_rectf){ v[0], v[1], v[2], v[3] };
}

static struct vr_radii radii(const float *v) {
	return (struct vr_radii){ v[0], v[1], v[2], v[3] };
}

static void replay(struct vr_canvas *canvas, const struct vt_dl_cmd *cmd) {
	switch (cmd->op) {
	case VT_DL_RECT:
		vr_canvas_draw_rect(canvas, rectf(cmd->v), &cmd->paint);
		break;
	case VT_DL_RRECT:
		vr_canvas_draw_rrect(canvas, rectf(cmd->v), radii(&cmd->v[4]),
			&cmd->paint);
		break;
	case VT_DL_ELLIPSE:
		vr_canvas_draw_ellipse(canvas, rectf(cmd->v), &cmd->paint);
		break;
	case VT_DL_LINE:
		vr_canvas_draw_line(canvas, cmd->v[0], cmd->v[1], cmd->v[2],
			cmd->v[3], &cmd->paint);
		break;
	case VT_DL_PATH:
		vr_canvas_draw_path(canvas, cmd->path, &cmd->paint);
		break;
	case VT_DL_IMAGE: {
		struct vr_rectf src = rectf(&cmd->v[1]);
		bool whole = src.width == 0.0f || src.height == 0.0f;
		const struct image_data *image = cmd->image;
		vr_canvas_draw_image(canvas, image->image, whole ? NULL : &src,
			rectf(&cmd->v[5]), cmd->v[0]);
		break;
	}
	case VT_DL_TEXT: {
		struct vr_font font = {
			.family = cmd->family,
			.size = cmd->v[2],
			.weight = cmd->weight,
		};
		vr_canvas_draw_text(canvas, cmd->v[0], cmd->v[1], cmd->text, &font,
			cmd->color);
		break;
	}
	case VT_DL_SAVE:
		vr_canvas_save(canvas);
		break;
	case VT_DL_RESTORE:
		vr_canvas_restore(canvas);
		break;
	case VT_DL_TRANSLATE:
		vr_canvas_translate(canvas, cmd->v[0], cmd->v[1]);
		break;
	case VT_DL_SCALE:
		vr_canvas_scale(canvas, cmd->v[0], cmd->v[1]);
		break;
	case VT_DL_ROTATE:
		vr_canvas_rotate(canvas, cmd->v[0]);
		break;
	case VT_DL_CLIP_RECT:
		vr_canvas_clip_rect(canvas, rectf(cmd->v));
		break;
	case VT_DL_CLIP_RRECT:
		vr_canvas_clip_rrect(canvas, rectf(cmd->v), radii(&cmd->v[4]));
		break;
	case VT_DL_SHADOW:
		vr_canvas_draw_shadow(canvas, rectf(cmd->v), radii(&cmd->v[4]),
			cmd->v[8], cmd->color);
		break;
	}
}

/* The node draws count commands from now on; false (error posted on
 * the scene) when the client's nodes would draw more than the quota. */
static bool charge_drawn(struct vt_scene_node *node, uint64_t count) {
	struct client_quota *quota = node->scene->quota;
	uint64_t max = VITRAIL_SCENE_MANAGER_V1_QUOTA_DRAWN_COMMANDS;
	uint64_t total = quota->drawn_commands - node->drawn + count;
	if (count > node->drawn && total > max) {
		post_error(node->scene->resource,
			VITRAIL_SCENE_V1_ERROR_QUOTA_EXCEEDED,
			"node@%u: %" PRIu64 " commands make %" PRIu64 " drawn, over "
			"drawn_commands %" PRIu64, wl_resource_get_id(node->resource),
			count, total, max);
		return false;
	}
	quota->drawn_commands = total;
	node->drawn = count;
	return true;
}

/* Charge a new recording of bytes to the client; false (error posted on
 * the scene, the recording to be dropped) beyond its quota. */
static bool charge_recording(struct vt_scene_node *node, uint64_t bytes) {
	struct client_quota *quota = node->scene->quota;
	uint64_t max = VITRAIL_SCENE_MANAGER_V1_QUOTA_RECORDED_BYTES;
	if (quota->recorded_bytes + bytes > max) {
		post_error(node->scene->resource,
			VITRAIL_SCENE_V1_ERROR_QUOTA_EXCEEDED,
			"node@%u: recording %" PRIu64 " bytes exceeds recorded_bytes "
			"%" PRIu64 " (%" PRIu64 " held)",
			wl_resource_get_id(node->resource), bytes, max,
			quota->recorded_bytes);
		return false;
	}
	quota->recorded_bytes += bytes;
	return true;
}

static size_t snapshot_commands(const struct snapshot *snapshot) {
	size_t count = 0;
	for (size_t i = 0; snapshot != NULL && i < snapshot->nchunks; i++) {
		count += snapshot->chunks[i]->ncmds;
	}
	return count;
}

/* Charge the commands the node's new display list draws; false (error
 * posted) over the client's quota. */
static bool node_charge(struct vt_scene_node *node) {
	return charge_drawn(node, snapshot_commands(node->list));
}

/* The node draws nothing (its new list was refused). */
static void node_drop_list(struct vt_scene_node *node) {
	node->record = false;
	charge_drawn(node, 0);
	vr_node_clear_content(node->vr);
}

/* The node's display list (charged by node_charge): its snapshot's
 * recording, made by the first node that draws it and shared by every
 * other one. */
static void node_record(struct vt_scene_node *node) {
	node->record = false;
	struct snapshot *snapshot = node->list;
	if (snapshot_commands(snapshot) == 0) {
		vr_node_clear_content(node->vr);
		return;
	}
	if (snapshot->recorded != NULL) {
		vr_node_set_display_list(node->vr, snapshot->recorded);
		return;
	}
	struct vr_canvas *canvas = vr_canvas_begin();
	if (canvas == NULL) {
		wlr_log(WLR_ERROR, "cannot record a display list: out of memory");
		return;
	}
	for (size_t i = 0; i < snapshot->nchunks; i++) {
		const struct chunk *chunk = snapshot->chunks[i];
		for (size_t k = 0; k < chunk->ncmds; k++) {
			replay(canvas, &chunk->cmds[k]);
		}
	}
	struct vr_display_list *list = vr_canvas_finish(canvas);
	if (list == NULL) {
		wlr_log(WLR_ERROR, "cannot record a display list: out of memory");
		return;
	}
	node->scene->manager->server->lists_recorded++;
	uint64_t bytes = vr_display_list_bytes(list);
	if (!charge_recording(node, bytes)) {
		vr_display_list_unref(list);
		vr_node_clear_content(node->vr);
		return;
	}
	snapshot->recorded = list;
	snapshot->recorded_bytes = bytes;
	/* glyphs and shadow scratch now, not in the first frame drawing it:
	 * at the scale it is drawn with in the scene */
	struct vr_mat to_scene;
	vr_mat_identity(&to_scene);
	for (const struct vt_scene_node *a = node; a != NULL; a = a->parent) {
		vr_mat_multiply(&to_scene, &a->transform, &to_scene);
	}
	struct vr_renderer *renderer = node->scene->manager->server->renderer;
	if (renderer != NULL) {
		vr_renderer_warm_display_list(renderer, list, &to_scene);
	}
	vr_node_set_display_list(node->vr, list);
}

/* ---- node state --------------------------------------------------------- */

static void props_init(struct node_props *props) {
	*props = (struct node_props){
		.scale = { 1.0f, 1.0f },
		.opacity = 1.0f,
	};
	vr_mat_identity(&props->matrix);
}

/* M = T(translation + anchor) * R(rotation) * S(scale) * T(-anchor) * matrix,
 * then T(-scroll) when a scroll region moves the node (scroll_region.c). */
static void node_apply_transform(struct vt_scene_node *node) {
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
	memcpy(v, values, (size_t)prop_counts[prop] * sizeof(*v));
	switch (prop) {
	case PROP_TRANSLATION:
	case PROP_SCALE:
	case PROP_ROTATION:
		node_apply_transform(node);
		break;
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
	case PROP_COUNT:
		break;
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
	quota_unref(anim->quota);
	free(anim);
}

static const struct vitrail_scene_animation_v1_interface animation_impl = {
	.destroy = handle_destroy,
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
		return 1.0 - exp(-zeta * w0 * t) *
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
	case CURVE_LINEAR:
		return p;
	case CURVE_CUBIC_BEZIER:
		return cubic_bezier(anim->params, p);
	case CURVE_SPRING:
		return spring(anim->params, elapsed_ns / 1e9);
	case CURVE_COUNT:
		break;
	}
	abort();
}

static void request_frames(struct vt_server *server) {
	vt_server_request_frame(server, VT_PACER_RENDER);
}

void vt_scene_sample(struct vt_server *server, uint64_t display_ns,
		char *log, size_t log_size) {
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
		uint64_t elapsed = display_ns > anim->start_ns ?
			display_ns - anim->start_ns : 0;
		bool finished = elapsed >= anim->duration_ns;
		double f = finished ? 1.0 : animation_progress(anim, elapsed);
		int count = prop_counts[anim->prop];
		float values[5];
		for (int i = 0; i < count; i++) {
			values[i] = finished ? anim->to[i] : (float)(anim->from[i] +
				(anim->to[i] - anim->from[i]) * f);
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
		if (n > 0 && (size_t)n < sizeof(entry) &&
				used + (size_t)n < log_size) {
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

static void array_remove_node(struct wl_array *array, struct vt_scene_node *node) {
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
static void node_destroy(struct vt_scene_node *node) {
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
	snapshot_unref(node->pending_list);
	snapshot_unref(node->list);
	charge_drawn(node, 0);
	wl_array_release(&node->pending_children);
	wl_array_release(&node->children);
	vr_node_destroy(node->vr);
	scene->quota->nodes--;
	vt_server_schedule_update(scene->manager->server);
	free(node);
}

static void node_handle_resource_destroy(struct wl_resource *resource) {
	struct vt_scene_node *node = wl_resource_get_user_data(resource);
	if (node != NULL) {
		node_destroy(node);
	}
}

static bool check_range(struct wl_resource *resource, const char *what,
		double v, double min, double max) {
	if (v >= min && v <= max) {
		return true;
	}
	post_error(resource, VITRAIL_SCENE_NODE_V1_ERROR_OUT_OF_RANGE,
		"%s = %g is not in [%g, %g]", what, v, min, max);
	return false;
}

static void node_handle_set_matrix(struct wl_client *client,
		struct wl_resource *resource, wl_fixed_t a, wl_fixed_t b,
		wl_fixed_t c, wl_fixed_t d, wl_fixed_t tx, wl_fixed_t ty) {
	struct vt_scene_node *node = node_from_resource(resource);
	static const char *const names[] = {
		"set_matrix a", "set_matrix b", "set_matrix c", "set_matrix d",
		"set_matrix tx", "set_matrix ty",
	};
	double v[] = {
		wl_fixed_to_double(a), wl_fixed_to_double(b), wl_fixed_to_double(c),
		wl_fixed_to_double(d), wl_fixed_to_double(tx), wl_fixed_to_double(ty),
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
		(float)v[0], (float)v[1], (float)v[2], (float)v[3], (float)v[4],
		(float)v[5],
	};
	node_mark_pending(node, CHANGE_MATRIX);
}

static void node_handle_set_translation(struct wl_client *client,
		struct wl_resource *resource, wl_fixed_t x, wl_fixed_t y) {
	struct vt_scene_node *node = node_from_resource(resource);
	double vx = wl_fixed_to_double(x), vy = wl_fixed_to_double(y);
	if (!check_range(resource, "set_translation x", vx, -COORD_MAX,
			COORD_MAX) || !check_range(resource, "set_translation y", vy,
			-COORD_MAX, COORD_MAX) || node == NULL) {
		return;
	}
	node->pending.translation[0] = (float)vx;
	node->pending.translation[1] = (float)vy;
	node_mark_pending(node, CHANGE_TRANSLATION);
}

static void node_handle_set_scale(struct wl_client *client,
		struct wl_resource *resource, wl_fixed_t sx, wl_fixed_t sy) {
	struct vt_scene_node *node = node_from_resource(resource);
	double vx = wl_fixed_to_double(sx), vy = wl_fixed_to_double(sy);
	if (!check_range(resource, "set_scale sx", vx, -SCALE_MAX, SCALE_MAX) ||
			!check_range(resource, "set_scale sy", vy, -SCALE_MAX,
			SCALE_MAX) || node == NULL) {
		return;
	}
	node->pending.scale[0] = (float)vx;
	node->pending.scale[1] = (float)vy;
	node_mark_pending(node, CHANGE_SCALE);
}

static void node_handle_set_rotation(struct wl_client *client,
		struct wl_resource *resource, wl_fixed_t degrees) {
	struct vt_scene_node *node = node_from_resource(resource);
	double v = wl_fixed_to_double(degrees);
	if (!check_range(resource, "set_rotation degrees", v, -ROTATION_MAX,
			ROTATION_MAX) || node == NULL) {
		return;
	}
	node->pending.rotation = (float)v;
	node_mark_pending(node, CHANGE_ROTATION);
}

static void node_handle_set_anchor(struct wl_client *client,
		struct wl_resource *resource, wl_fixed_t x, wl_fixed_t y) {
	struct vt_scene_node *node = node_from_resource(resource);
	double vx = wl_fixed_to_double(x), vy = wl_fixed_to_double(y);
	if (!check_range(resource, "set_anchor x", vx, -COORD_MAX, COORD_MAX) ||
			!check_range(resource, "set_anchor y", vy, -COORD_MAX,
			COORD_MAX) || node == NULL) {
		return;
	}
	node->pending.anchor[0] = (float)vx;
	node->pending.anchor[1] = (float)vy;
	node_mark_pending(node, CHANGE_ANCHOR);
}

static void node_handle_set_opacity(struct wl_client *client,
		struct wl_resource *resource, wl_fixed_t opacity) {
	struct vt_scene_node *node = node_from_resource(resource);
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
		"x", "y", "width", "height", "radius",
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
	struct vt_scene_node *node = node_from_resource(resource);
	double v[] = {
		wl_fixed_to_double(x), wl_fixed_to_double(y),
		wl_fixed_to_double(width), wl_fixed_to_double(height),
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
	struct vt_scene_node *node = node_from_resource(resource);
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
	struct vt_scene_node *node = node_from_resource(resource);
	if (children->size % sizeof(uint32_t) != 0) {
		post_error(resource, VITRAIL_SCENE_NODE_V1_ERROR_BAD_ID,
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
		if (child_resource == NULL || !wl_resource_instance_of(child_resource,
				&vitrail_scene_node_v1_interface, &node_impl)) {
			post_error(resource,
				VITRAIL_SCENE_NODE_V1_ERROR_BAD_ID, "children[%zu] = %u is "
				"not a vitrail_scene_node_v1", i, ids[i]);
			goto error;
		}
		struct vt_scene_node *child = node_from_resource(child_resource);
		if (child == NULL || child->scene != scene) {
			post_error(resource,
				VITRAIL_SCENE_NODE_V1_ERROR_FOREIGN_NODE, "children[%zu]: "
				"vitrail_scene_node_v1@%u belongs to another scene", i,
				ids[i]);
			goto error;
		}
		if (child->ancestor_stamp == stamp) {
			post_error(resource,
				VITRAIL_SCENE_NODE_V1_ERROR_CYCLE, "children[%zu]: "
				"vitrail_scene_node_v1@%u is this node or one of its "
				"ancestors", i, ids[i]);
			goto error;
		}
		if (child->stamp == stamp) {
			post_error(resource,
				VITRAIL_SCENE_NODE_V1_ERROR_DUPLICATE, "children[%zu]: "
				"vitrail_scene_node_v1@%u is named twice", i, ids[i]);
			goto error;
		}
		if (child == scene->pending_root) {
			post_error(resource,
				VITRAIL_SCENE_NODE_V1_ERROR_IS_ROOT, "children[%zu]: "
				"vitrail_scene_node_v1@%u is the scene's root", i, ids[i]);
			goto error;
		}
		int height = pending_height(child, DEPTH_MAX);
		if (depth + height > DEPTH_MAX) {
			post_error(resource,
				VITRAIL_SCENE_NODE_V1_ERROR_TOO_DEEP, "children[%zu]: "
				"vitrail_scene_node_v1@%u would make a chain of more than "
				"%d nodes", i, ids[i], DEPTH_MAX);
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
	struct vt_scene_node *node = node_from_resource(resource);
	if (node == NULL) {
		return;
	}
	struct snapshot *snapshot = NULL;
	if (list_resource != NULL) {
		snapshot = list_snapshot(list_from_resource(list_resource));
		if (snapshot == NULL) {
			wl_resource_post_no_memory(resource);
			return;
		}
	}
	snapshot_unref(node->pending_list);
	node->pending_list = snapshot;
	node_mark_pending(node, CHANGE_LIST);
}

static bool check_animation_values(struct wl_resource *resource,
		enum prop prop, const double *v) {
	switch (prop) {
	case PROP_TRANSLATION:
		return check_range(resource, "animate translation x", v[0],
				-COORD_MAX, COORD_MAX) &&
			check_range(resource, "animate translation y", v[1],
				-COORD_MAX, COORD_MAX);
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
	case PROP_CLIP:
		return check_clip(resource, "animate clip", v);
	case PROP_COUNT:
		break;
	}
	abort();
}

static bool check_curve(struct wl_resource *resource, enum curve curve,
		const double *p) {
	switch (curve) {
	case CURVE_LINEAR:
		return true;
	case CURVE_CUBIC_BEZIER:
		return check_range(resource, "cubic_bezier x1", p[0], 0.0, 1.0) &&
			check_range(resource, "cubic_bezier y1", p[1], -CURVE_Y_MAX,
				CURVE_Y_MAX) &&
			check_range(resource, "cubic_bezier x2", p[2], 0.0, 1.0) &&
			check_range(resource, "cubic_bezier y2", p[3], -CURVE_Y_MAX,
				CURVE_Y_MAX);
	case CURVE_SPRING:
		if (p[0] <= 0.0 || p[2] <= 0.0) {
			post_error(resource,
				VITRAIL_SCENE_NODE_V1_ERROR_OUT_OF_RANGE, "spring stiffness "
				"%g and mass %g must be > 0", p[0], p[2]);
			return false;
		}
		return check_range(resource, "spring stiffness", p[0], 0.0,
				SPRING_STIFFNESS_MAX) &&
			check_range(resource, "spring damping", p[1], 0.0,
				SPRING_DAMPING_MAX) &&
			check_range(resource, "spring mass", p[2], 0.0,
				SPRING_MASS_MAX);
	case CURVE_COUNT:
		break;
	}
	abort();
}

static void node_handle_animate(struct wl_client *client,
		struct wl_resource *resource, uint32_t id, uint32_t property,
		struct wl_array *target, uint32_t duration_ms, uint32_t curve,
		struct wl_array *curve_params) {
	struct vt_scene_node *node = node_from_resource(resource);
	struct wl_resource *anim_resource = wl_resource_create(client,
		&vitrail_scene_animation_v1_interface,
		wl_resource_get_version(resource), id);
	if (anim_resource == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(anim_resource, &animation_impl, NULL,
		animation_handle_resource_destroy);

	if (property >= PROP_COUNT) {
		post_error(resource,
			VITRAIL_SCENE_NODE_V1_ERROR_INVALID_ANIMATION,
			"unknown property %u", property);
		return;
	}
	enum prop prop = (enum prop)property;
	if (target->size != (size_t)prop_counts[prop] * sizeof(wl_fixed_t)) {
		post_error(resource,
			VITRAIL_SCENE_NODE_V1_ERROR_INVALID_ANIMATION,
			"a %s target is %d values, got %zu bytes", prop_names[prop],
			prop_counts[prop], target->size);
		return;
	}
	if (curve >= CURVE_COUNT) {
		post_error(resource,
			VITRAIL_SCENE_NODE_V1_ERROR_INVALID_ANIMATION,
			"unknown curve %u", curve);
		return;
	}
	if (curve_params->size !=
			(size_t)curve_counts[curve] * sizeof(wl_fixed_t)) {
		post_error(resource,
			VITRAIL_SCENE_NODE_V1_ERROR_INVALID_ANIMATION,
			"curve %s takes %d parameters, got %zu bytes",
			curve_names[curve], curve_counts[curve], curve_params->size);
		return;
	}
	if (duration_ms < 1 || duration_ms > DURATION_MAX_MS) {
		post_error(resource,
			VITRAIL_SCENE_NODE_V1_ERROR_OUT_OF_RANGE,
			"duration_ms = %u is not in [1, %d]", duration_ms,
			DURATION_MAX_MS);
		return;
	}
	double to[5], params[4];
	const wl_fixed_t *fixed = target->data;
	for (int i = 0; i < prop_counts[prop]; i++) {
		to[i] = wl_fixed_to_double(fixed[i]);
	}
	fixed = curve_params->data;
	for (int i = 0; i < curve_counts[curve]; i++) {
		params[i] = wl_fixed_to_double(fixed[i]);
	}
	if (!check_animation_values(resource, prop, to) ||
			!check_curve(resource, (enum curve)curve, params)) {
		return;
	}
	if (node == NULL) {
		return;
	}
	bool has_clip = (node->changes & CHANGE_CLIP) ?
		node->pending.has_clip : node->current.has_clip;
	if (prop == PROP_CLIP && !has_clip) {
		post_error(resource,
			VITRAIL_SCENE_NODE_V1_ERROR_INVALID_ANIMATION,
			"a clip animation of a node without a clip");
		return;
	}
	struct client_quota *quota = node->scene->quota;
	if (quota->animations >= VITRAIL_SCENE_MANAGER_V1_QUOTA_ANIMATIONS) {
		post_error(resource,
			VITRAIL_SCENE_NODE_V1_ERROR_QUOTA_EXCEEDED,
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
	anim->quota = quota_ref(quota);
	anim->node = node;
	anim->prop = prop;
	anim->curve = (enum curve)curve;
	anim->duration_ns = (uint64_t)duration_ms * 1000000;
	for (int i = 0; i < prop_counts[prop]; i++) {
		anim->to[i] = (float)to[i];
	}
	for (int i = 0; i < curve_counts[curve]; i++) {
		anim->params[i] = (float)params[i];
	}
	quota->animations++;
	wl_list_insert(node->pending_animations.prev, &anim->link);
	wl_resource_set_user_data(anim_resource, anim);
	node_mark_pending(node, 0);
}

static const struct vitrail_scene_node_v1_interface node_impl = {
	.destroy = handle_destroy,
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
			animation_end(running,
				VITRAIL_SCENE_ANIMATION_V1_REASON_CANCELLED);
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
		node_apply_transform(node);
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
		snapshot_unref(node->list);
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
			(size_t)prop_counts[anim->prop] * sizeof(float));
		wl_list_remove(&anim->link);
		wl_list_insert(anim->manager->animations.prev, &anim->link);
		anim->running = true;
		anim->serial = ++anim->manager->next_serial;
		node->running[anim->prop] = anim;
		started = true;
	}
	return started;
}

static void scene_apply(struct scene *scene) {
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
			over = !node_charge(node);
		}
	}
	wl_list_for_each(node, &scene->nodes, link) {
		if (node->record) {
			if (over) {
				node_drop_list(node);
			} else {
				node_record(node);
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

/* ---- scenes ------------------------------------------------------------- */

/* The scene and its nodes go (resource destroyed or surface gone); the
 * nodes' resources become inert. */
static void scene_destroy(struct scene *scene) {
	struct vt_scene_node *node, *tmp;
	wl_list_for_each_safe(node, tmp, &scene->nodes, link) {
		wl_resource_set_user_data(node->resource, NULL);
		node_destroy(node);
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
	quota_unref(scene->quota);
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
	struct wl_resource *node_resource = wl_resource_create(client,
		&vitrail_scene_node_v1_interface, wl_resource_get_version(resource),
		id);
	if (node_resource == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(node_resource, &node_impl, NULL,
		node_handle_resource_destroy);
	if (scene == NULL) {
		return; /* inert */
	}
	if (scene->quota->nodes >= VITRAIL_SCENE_MANAGER_V1_QUOTA_NODES) {
		post_error(resource,
			VITRAIL_SCENE_V1_ERROR_QUOTA_EXCEEDED,
			"vitrail_scene_node_v1@%u: the client already has %u nodes, "
			"its quota", id, scene->quota->nodes);
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
	props_init(&node->pending);
	props_init(&node->current);
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
		node_from_resource(node_resource) : NULL;
	if (scene == NULL) {
		return;
	}
	if (node_resource != NULL && (node == NULL || node->scene != scene)) {
		post_error(resource, VITRAIL_SCENE_V1_ERROR_FOREIGN_NODE,
			"vitrail_scene_node_v1@%u belongs to another scene",
			wl_resource_get_id(node_resource));
		return;
	}
	if (node != NULL && node->pending_parent != NULL) {
		post_error(resource, VITRAIL_SCENE_V1_ERROR_HAS_PARENT,
			"vitrail_scene_node_v1@%u is a child of "
			"vitrail_scene_node_v1@%u", wl_resource_get_id(node_resource),
			wl_resource_get_id(node->pending_parent->resource));
		return;
	}
	scene->pending_root = node;
	scene->root_changed = true;
}

static const struct vitrail_scene_v1_interface scene_impl = {
	.destroy = handle_destroy,
	.create_node = scene_handle_create_node,
	.set_root = scene_handle_set_root,
};

/* ---- what scroll_region.c moves ----------------------------------------- */

struct vt_scene_node *vt_scene_node_from_resource(
		struct wl_resource *resource) {
	if (!wl_resource_instance_of(resource, &vitrail_scene_node_v1_interface,
			&node_impl)) {
		return NULL;
	}
	return node_from_resource(resource);
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
	node_apply_transform(node);
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
		post_error(resource,
			VITRAIL_SCENE_MANAGER_V1_ERROR_ALREADY_BOUND,
			"wl_surface@%u already has a vitrail_scene_v1",
			wl_resource_get_id(surface_resource));
		return;
	}
	struct vt_surface *surface = vt_surface_from_wlr(wlr_surface);
	struct wl_resource *scene_resource = wl_resource_create(client,
		&vitrail_scene_v1_interface, wl_resource_get_version(resource), id);
	struct scene *scene = calloc(1, sizeof(*scene));
	struct client_quota *quota = quota_get(client);
	struct vr_node *anchor = vr_node_create(manager->server->tree);
	if (surface == NULL || scene_resource == NULL || scene == NULL ||
			quota == NULL || anchor == NULL) {
		if (scene_resource != NULL) {
			wl_resource_destroy(scene_resource);
		}
		free(scene);
		quota_unref(quota);
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
	struct wl_resource *image_resource = wl_resource_create(client,
		&vitrail_scene_image_v1_interface, wl_resource_get_version(resource),
		id);
	if (image_resource == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(image_resource, &image_impl, NULL,
		image_handle_resource_destroy);

	uint32_t buffer_id = wl_resource_get_id(buffer_resource);
	struct wl_shm_buffer *shm = wl_shm_buffer_get(buffer_resource);
	if (shm == NULL) {
		post_error(resource,
			VITRAIL_SCENE_MANAGER_V1_ERROR_INVALID_BUFFER,
			"wl_buffer@%u is not a wl_shm buffer", buffer_id);
		return;
	}
	uint32_t format = wl_shm_buffer_get_format(shm);
	if (format != WL_SHM_FORMAT_ARGB8888 && format != WL_SHM_FORMAT_XRGB8888) {
		post_error(resource,
			VITRAIL_SCENE_MANAGER_V1_ERROR_INVALID_BUFFER,
			"wl_buffer@%u has format 0x%08x, not ARGB8888 or XRGB8888",
			buffer_id, format);
		return;
	}
	int32_t width = wl_shm_buffer_get_width(shm);
	int32_t height = wl_shm_buffer_get_height(shm);
	if (width > IMAGE_SIZE_MAX || height > IMAGE_SIZE_MAX) {
		post_error(resource,
			VITRAIL_SCENE_MANAGER_V1_ERROR_OUT_OF_RANGE,
			"wl_buffer@%u is %dx%d, larger than %dx%d", buffer_id, width,
			height, IMAGE_SIZE_MAX, IMAGE_SIZE_MAX);
		return;
	}
	/* libwayland only checks stride >= width: rows of width * 4 bytes
	 * would read past the client's pool. */
	int32_t stride = wl_shm_buffer_get_stride(shm);
	if ((int64_t)stride < (int64_t)width * 4) {
		post_error(resource,
			VITRAIL_SCENE_MANAGER_V1_ERROR_INVALID_BUFFER,
			"wl_buffer@%u stride %d is less than its width %d x 4 bytes",
			buffer_id, stride, width);
		return;
	}
	struct client_quota *quota = quota_get(client);
	if (quota == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	uint64_t bytes = (uint64_t)width * (uint64_t)height * 4;
	if (quota->images >= VITRAIL_SCENE_MANAGER_V1_QUOTA_IMAGES ||
			quota->image_bytes + bytes >
			VITRAIL_SCENE_MANAGER_V1_QUOTA_IMAGE_BYTES) {
		post_error(resource,
			VITRAIL_SCENE_MANAGER_V1_ERROR_QUOTA_EXCEEDED,
			"wl_buffer@%u %dx%d: the client holds %u images, %" PRIu64
			" bytes (quota %u, %u)", buffer_id, width, height,
			quota->images, quota->image_bytes,
			VITRAIL_SCENE_MANAGER_V1_QUOTA_IMAGES,
			VITRAIL_SCENE_MANAGER_V1_QUOTA_IMAGE_BYTES);
		quota_unref(quota);
		return;
	}
	struct scene_image *image = calloc(1, sizeof(*image));
	struct image_data *data = calloc(1, sizeof(*data));
	struct vr_image *vr_image = vr_image_create(width, height,
		format == WL_SHM_FORMAT_XRGB8888 ?
		VR_FORMAT_XRGB8888 : VR_FORMAT_ARGB8888);
	if (image == NULL || data == NULL || vr_image == NULL) {
		free(image);
		free(data);
		vr_image_unref(vr_image);
		quota_unref(quota);
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
	struct wl_resource *list_resource = wl_resource_create(client,
		&vitrail_scene_display_list_v1_interface,
		wl_resource_get_version(resource), id);
	struct scene_list *list = calloc(1, sizeof(*list));
	struct client_quota *quota = quota_get(client);
	if (list_resource == NULL || list == NULL || quota == NULL) {
		if (list_resource != NULL) {
			wl_resource_destroy(list_resource);
		}
		free(list);
		quota_unref(quota);
		wl_client_post_no_memory(client);
		return;
	}
	list->quota = quota;
	wl_resource_set_implementation(list_resource, &list_impl, list,
		list_handle_resource_destroy);
}

static const struct vitrail_scene_manager_v1_interface manager_impl = {
	.destroy = handle_destroy,
	.get_scene = manager_handle_get_scene,
	.create_image = manager_handle_create_image,
	.create_display_list = manager_handle_create_display_list,
};

static void manager_bind(struct wl_client *client, void *data,
		uint32_t version, uint32_t id) {
	struct vt_scene_manager *manager = data;
	struct wl_resource *resource = wl_resource_create(client,
		&vitrail_scene_manager_v1_interface, (int)version, id);
	if (resource == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &manager_impl, manager, NULL);
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
	return true;
}

void vt_scene_finish(struct vt_server *server) {
	struct vt_scene_manager *manager = server->scene;
	if (manager == NULL) {
		return;
	}
	/* Every client is gone, and with them every animation. */
	assert(wl_list_empty(&manager->animations));
	wl_global_destroy(manager->global);
	free(manager);
	server->scene = NULL;
}
