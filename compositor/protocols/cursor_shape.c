/*
 * cursor-shape-v1 (wayland-protocols 1.32, staging; version 2 of 1.42):
 * a client names its cursor from the CSS cursor list instead of drawing
 * it. vitrail shows the xcursor theme's image of that CSS name (the theme
 * vitrail loads, XCURSOR_THEME; the arrow where the theme lacks it) when
 * the client has the pointer focus and the serial is that of its latest
 * wl_pointer.enter: the serial of the enter is the display's serial when
 * the seat's pointer focus changes (wlroots sends the enter, then emits
 * focus_change). Devices of tablet tools are accepted and check their
 * shapes, but vitrail draws tablet tools with the pointer's cursor: their
 * shape changes nothing.
 */
#include <assert.h>
#include <stdlib.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_seat.h>

#include "cursor-shape-v1-protocol.h"
#include "input/input.h"
#include "protocols/cursor_shape.h"
#include "server.h"
#include "util.h"

#define CURSOR_SHAPE_VERSION 2

/* The CSS names of the shapes, by enum value (0 is no shape). */
static const char *const shape_names[] = {
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_DEFAULT] = "default",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_CONTEXT_MENU] = "context-menu",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_HELP] = "help",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_POINTER] = "pointer",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_PROGRESS] = "progress",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_WAIT] = "wait",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_CELL] = "cell",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_CROSSHAIR] = "crosshair",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_TEXT] = "text",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_VERTICAL_TEXT] = "vertical-text",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_ALIAS] = "alias",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_COPY] = "copy",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_MOVE] = "move",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_NO_DROP] = "no-drop",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_NOT_ALLOWED] = "not-allowed",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_GRAB] = "grab",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_GRABBING] = "grabbing",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_E_RESIZE] = "e-resize",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_N_RESIZE] = "n-resize",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_NE_RESIZE] = "ne-resize",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_NW_RESIZE] = "nw-resize",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_S_RESIZE] = "s-resize",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_SE_RESIZE] = "se-resize",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_SW_RESIZE] = "sw-resize",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_W_RESIZE] = "w-resize",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_EW_RESIZE] = "ew-resize",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_NS_RESIZE] = "ns-resize",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_NESW_RESIZE] = "nesw-resize",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_NWSE_RESIZE] = "nwse-resize",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_COL_RESIZE] = "col-resize",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_ROW_RESIZE] = "row-resize",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_ALL_SCROLL] = "all-scroll",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_ZOOM_IN] = "zoom-in",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_ZOOM_OUT] = "zoom-out",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_DND_ASK] = "dnd-ask",
	[WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_ALL_RESIZE] = "all-resize",
};
#define SHAPES (sizeof(shape_names) / sizeof(shape_names[0]))

struct cursor_shape {
	struct vt_server *server;
	uint32_t enter_serial; /* of the seat's latest pointer enter */
	struct wl_listener focus_change;
};

/* A wp_cursor_shape_device_v1's user data: its wl_pointer, NULL for a
 * tablet tool's device or once the wl_pointer is gone (inert). */
struct shape_device {
	struct cursor_shape *shape;
	struct wl_resource *pointer;
	struct wl_listener pointer_destroy;
};

static const struct wp_cursor_shape_device_v1_interface device_impl;

static void device_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static void device_handle_set_shape(struct wl_client *client,
		struct wl_resource *resource, uint32_t serial, uint32_t shape) {
	assert(wl_resource_instance_of(resource,
			&wp_cursor_shape_device_v1_interface, &device_impl));
	/* shapes of version 2 (dnd_ask, all_resize) need that version */
	uint32_t last = wl_resource_get_version(resource) >= 2 ?
			WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_ALL_RESIZE :
			WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_ZOOM_OUT;
	if (shape == 0 || shape > last || shape >= SHAPES) {
		wl_resource_post_error(resource,
				WP_CURSOR_SHAPE_DEVICE_V1_ERROR_INVALID_SHAPE,
				"no cursor shape %u in version %d", shape,
				wl_resource_get_version(resource));
		return;
	}
	struct shape_device *device = wl_resource_get_user_data(resource);
	struct wlr_seat_client *seat_client = device->pointer != NULL ?
			wlr_seat_client_from_pointer_resource(device->pointer) :
			NULL;
	if (seat_client == NULL) {
		return; /* a tablet tool's, or inert */
	}
	struct vt_server *server = device->shape->server;
	if (server->seat->pointer_state.focused_client != seat_client ||
			serial != device->shape->enter_serial) {
		return; /* not its focus, or not its latest enter: ignored */
	}
	vt_input_set_cursor_shape(server, shape_names[shape]);
}

static const struct wp_cursor_shape_device_v1_interface device_impl = {
	.destroy = device_handle_destroy,
	.set_shape = device_handle_set_shape,
};

static void device_handle_resource_destroy(struct wl_resource *resource) {
	struct shape_device *device = wl_resource_get_user_data(resource);
	wl_list_remove(&device->pointer_destroy.link);
	free(device);
}

static void handle_pointer_destroy(struct wl_listener *listener, void *data) {
	struct shape_device *device =
			wl_container_of(listener, device, pointer_destroy);
	wl_list_remove(&device->pointer_destroy.link);
	wl_list_init(&device->pointer_destroy.link);
	device->pointer = NULL;
}

static void create_device(struct wl_client *client, struct wl_resource *manager,
		uint32_t id, struct wl_resource *pointer) {
	struct shape_device *device = calloc(1, sizeof(*device));
	struct wl_resource *resource =
			wl_resource_create(client, &wp_cursor_shape_device_v1_interface,
					wl_resource_get_version(manager), id);
	if (device == NULL || resource == NULL) {
		free(device);
		if (resource != NULL) {
			wl_resource_destroy(resource);
		}
		wl_client_post_no_memory(client);
		return;
	}
	device->shape = wl_resource_get_user_data(manager);
	device->pointer = pointer;
	wl_list_init(&device->pointer_destroy.link);
	if (pointer != NULL) {
		device->pointer_destroy.notify = handle_pointer_destroy;
		wl_resource_add_destroy_listener(pointer, &device->pointer_destroy);
	}
	wl_resource_set_implementation(resource, &device_impl, device,
			device_handle_resource_destroy);
}

static void manager_handle_get_pointer(struct wl_client *client,
		struct wl_resource *resource, uint32_t id,
		struct wl_resource *pointer) {
	create_device(client, resource, id, pointer);
}

static void manager_handle_get_tablet_tool(struct wl_client *client,
		struct wl_resource *resource, uint32_t id,
		struct wl_resource *tablet_tool) {
	create_device(client, resource, id, NULL);
}

static void manager_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct wp_cursor_shape_manager_v1_interface manager_impl = {
	.destroy = manager_handle_destroy,
	.get_pointer = manager_handle_get_pointer,
	.get_tablet_tool_v2 = manager_handle_get_tablet_tool,
};

static void manager_bind(struct wl_client *client, void *data, uint32_t version,
		uint32_t id) {
	vt_resource_create(client, &wp_cursor_shape_manager_v1_interface, version,
			id, &manager_impl, data, NULL);
}

static void handle_focus_change(struct wl_listener *listener, void *data) {
	struct cursor_shape *shape = wl_container_of(listener, shape, focus_change);
	/* wlroots sent the enter with the display's latest serial */
	shape->enter_serial = wl_display_get_serial(shape->server->display);
}

bool vt_cursor_shape_init(struct vt_server *server) {
	/* lives as long as the display, like its global */
	static struct cursor_shape shape;
	shape.server = server;
	shape.focus_change.notify = handle_focus_change;
	wl_signal_add(&server->seat->pointer_state.events.focus_change,
			&shape.focus_change);
	return wl_global_create(server->display,
				   &wp_cursor_shape_manager_v1_interface, CURSOR_SHAPE_VERSION,
				   &shape, manager_bind) != NULL;
}
