/*
 * Seat, keyboards, pointer, touch, and the cursor as a node of the render
 * tree (vitrail draws its cursor itself, so screenshots and the pixman
 * reference include it, on every backend alike).
 *
 * Devices come from the backend and from clients: virtual pointers
 * (wlr-virtual-pointer-unstable-v1) and virtual keyboards
 * (virtual-keyboard-unstable-v1) join the seat like physical devices.
 * Every input event delivered to a surface is stamped with the time
 * vitrail received it (vt_surface_note_input): the frame that first draws
 * the surface's answering commit logs the oldest (input_ns).
 */
#define _GNU_SOURCE /* memfd_create */
#include <errno.h>
#include <linux/input-event-codes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wlr/backend.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/types/wlr_input_device.h>
#include <wlr/types/wlr_keyboard.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_pointer.h>
#include <wlr/types/wlr_primary_selection.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/types/wlr_touch.h>
#include <wlr/types/wlr_virtual_keyboard_v1.h>
#include <wlr/types/wlr_virtual_pointer_v1.h>
#include <wlr/backend/session.h>
#include <wlr/interfaces/wlr_input_device.h>
#include <wlr/interfaces/wlr_keyboard.h>
#include <wlr/types/wlr_xcursor_manager.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/edges.h>
#include <wlr/util/log.h>
#include <wlr/xcursor.h>
#include <xkbcommon/xkbcommon.h>

#include "desktop/kiosk.h"
#include "desktop/layer_shell.h"
#include "desktop/surface.h"
#include "desktop/view.h"
#include "input/input.h"
#include "output/output.h"
#include "protocols/protocols.h"
#include "protocols/scroll_region.h"
#include "server.h"
#include "util.h"

#include "input/input_internal.h"

/* ---- touch -------------------------------------------------------------- */

/* A touch screen's point (x, y in 0..1 across and down its panel) in
 * layout coordinates. The panel is the output the config's touch_output
 * names, else the one the device names (libinput's WL_OUTPUT), else the
 * whole layout. The panel turns with its output: the point is the layout
 * point the output shows at that spot of its buffer. */
static void touch_to_layout(struct vt_server *server,
		struct wlr_input_device *device, double x, double y, double *lx,
		double *ly) {
	const char *name = server->config.touch_output[0] != '\0' ?
			server->config.touch_output :
			device->output_name;
	struct vt_output *output =
			name != NULL ? vt_output_by_name(server, name) : NULL;
	if (output == NULL || !vt_output_enabled(output)) {
		wlr_cursor_absolute_to_layout_coords(server->cursor, device, x, y, lx,
				ly);
		return;
	}
	/* the buffer's pixel there, back through the view that draws the
	 * layout into the buffer (vt_output_view: scale and transform) */
	struct wlr_output *wlr_output = vt_output_wlr(output);
	struct vr_mat view = vt_output_view(output), to_layout;
	if (!vr_mat_invert(&to_layout, &view)) {
		wlr_cursor_absolute_to_layout_coords(server->cursor, device, x, y, lx,
				ly);
		return;
	}
	float fx, fy;
	vr_mat_apply(&to_layout, (float)(x * wlr_output->width),
			(float)(y * wlr_output->height), &fx, &fy);
	*lx = fx;
	*ly = fy;
}

/*
 * A touch point's implicit grab (wl_touch): the surface a finger came
 * down on gets all of its motion until it lifts, wherever it goes, at
 * positions relative to that surface; and when the surface goes away
 * before the finger lifts, its client gets the point's wl_touch.up then.
 * One for each point of the seat's, found through its listener on the
 * point's destroy signal and freed with the point.
 */
struct touch_grab {
	struct wlr_seat *seat;
	int32_t touch_id;
	/* the point's surface's top-left, layout coordinates, as of the last
	 * event over it */
	double origin_x, origin_y;
	struct wl_listener point_destroy;
	struct wl_listener surface_destroy;
};

static void touch_grab_handle_point_destroy(struct wl_listener *listener,
		void *data) {
	struct touch_grab *grab = wl_container_of(listener, grab, point_destroy);
	wl_list_remove(&grab->point_destroy.link);
	wl_list_remove(&grab->surface_destroy.link);
	free(grab);
}

static void touch_grab_handle_surface_destroy(struct wl_listener *listener,
		void *data) {
	struct touch_grab *grab = wl_container_of(listener, grab, surface_destroy);
	wl_list_remove(&grab->surface_destroy.link);
	wl_list_init(&grab->surface_destroy.link);
	/* the point's up (and its end: this frees grab) and a frame */
	struct wlr_seat *seat = grab->seat;
	wlr_seat_touch_notify_up(seat, (uint32_t)(vt_now_ns() / 1000000u),
			grab->touch_id);
	wlr_seat_touch_notify_frame(seat);
}

static struct touch_grab *touch_grab_of(struct wlr_touch_point *point) {
	struct wl_listener *listener = wl_signal_get(&point->events.destroy,
			touch_grab_handle_point_destroy);
	if (listener == NULL) {
		return NULL;
	}
	struct touch_grab *grab = wl_container_of(listener, grab, point_destroy);
	return grab;
}

/* The grab of the point just down at (lx, ly), (sx, sy) on its surface. */
static void touch_grab_start(struct wlr_seat *seat, int32_t touch_id, double lx,
		double ly, double sx, double sy) {
	struct wlr_touch_point *point = wlr_seat_touch_get_point(seat, touch_id);
	if (point == NULL || point->surface == NULL) {
		return;
	}
	struct touch_grab *grab = calloc(1, sizeof(*grab));
	if (grab == NULL) {
		wlr_log(WLR_ERROR, "out of memory: touch point %d not grabbed",
				touch_id);
		return;
	}
	grab->seat = seat;
	grab->touch_id = touch_id;
	grab->origin_x = lx - sx;
	grab->origin_y = ly - sy;
	grab->point_destroy.notify = touch_grab_handle_point_destroy;
	wl_signal_add(&point->events.destroy, &grab->point_destroy);
	grab->surface_destroy.notify = touch_grab_handle_surface_destroy;
	wl_signal_add(&point->surface->events.destroy, &grab->surface_destroy);
}

static void handle_touch_down(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, touch_down);
	uint64_t received_ns = vt_now_ns();
	vt_outputs_input(server);
	vt_protocols_input_activity(server);
	vt_kiosk_touch_activity(server);
	struct wlr_event_touch_down *event = data;
	double lx, ly;
	touch_to_layout(server, event->device, event->x, event->y, &lx, &ly);
	server->last_touch_id = event->touch_id;
	server->last_touch_x = lx;
	server->last_touch_y = ly;
	double sx, sy;
	struct vt_view *view;
	struct wlr_surface *surface =
			input_surface_at(server, lx, ly, &sx, &sy, &view);
	if (surface == NULL) {
		if (view != NULL && server->grab.mode == VT_GRAB_NONE) {
			input_decoration_touch(server, view, event->touch_id, lx, ly);
		}
		return;
	}
	if (view != NULL) {
		vt_view_focus(view, view->surface);
	} else {
		/* a layer surface: on_demand ones take the keyboard */
		vt_layers_focus_surface(server, surface);
	}
	/* down in a scroll region: the finger drags it (scroll_region.c) */
	if (view != NULL &&
			vt_scroll_touch_down(server, event->time_msec, event->touch_id, lx,
					ly)) {
		return;
	}
	if (wlr_seat_touch_notify_down(server->seat, surface, event->time_msec,
				event->touch_id, sx, sy) != 0) {
		touch_grab_start(server->seat, event->touch_id, lx, ly, sx, sy);
	}
	vt_surface_note_input(surface, received_ns);
	/* the history follows one touch point, the first down of those held */
	if (wlr_seat_touch_get_point(server->seat, server->touch_history_id) ==
					NULL ||
			event->touch_id == server->touch_history_id) {
		server->touch_history_id = event->touch_id;
		input_history_reset(&server->touch_history);
		input_history_add(&server->touch_history, surface, sx, sy);
	}
}

static void handle_touch_up(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, touch_up);
	uint64_t received_ns = vt_now_ns();
	vt_outputs_input(server);
	vt_protocols_input_activity(server);
	struct wlr_event_touch_up *event = data;
	if (server->grab.touch && server->grab.touch_id == event->touch_id) {
		vt_grab_end(server);
	}
	if (vt_scroll_touch_up(server, event->time_msec, event->touch_id)) {
		return;
	}
	struct wlr_touch_point *point =
			wlr_seat_touch_get_point(server->seat, event->touch_id);
	if (point != NULL) {
		vt_surface_note_input(point->surface, received_ns);
		wlr_seat_touch_notify_up(server->seat, event->time_msec,
				event->touch_id);
	}
}

static void handle_touch_motion(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, touch_motion);
	uint64_t received_ns = vt_now_ns();
	vt_outputs_input(server);
	vt_protocols_input_activity(server);
	struct wlr_event_touch_motion *event = data;
	double lx, ly;
	touch_to_layout(server, event->device, event->x, event->y, &lx, &ly);
	server->last_touch_id = event->touch_id;
	server->last_touch_x = lx;
	server->last_touch_y = ly;
	if (server->grab.touch && server->grab.touch_id == event->touch_id) {
		vt_grab_motion_to(server, lx, ly);
		return;
	}
	if (vt_scroll_touch_motion(server, event->time_msec, event->touch_id, lx,
				ly)) {
		return;
	}
	struct wlr_touch_point *point =
			wlr_seat_touch_get_point(server->seat, event->touch_id);
	if (point == NULL || point->surface == NULL) {
		return;
	}
	/* the implicit grab: the point's surface gets the motion, over it
	 * or not, relative to where it was last seen under the finger */
	struct touch_grab *grab = touch_grab_of(point);
	double sx, sy;
	struct wlr_surface *surface =
			input_surface_at(server, lx, ly, &sx, &sy, NULL);
	if (surface == point->surface) {
		if (grab != NULL) {
			grab->origin_x = lx - sx;
			grab->origin_y = ly - sy;
		}
	} else if (grab != NULL) {
		sx = lx - grab->origin_x;
		sy = ly - grab->origin_y;
	} else {
		return;
	}
	wlr_seat_touch_notify_motion(server->seat, event->time_msec,
			event->touch_id, sx, sy);
	vt_surface_note_input(point->surface, received_ns);
	if (event->touch_id == server->touch_history_id) {
		input_history_add(&server->touch_history, point->surface, sx, sy);
	}
}

static void handle_touch_frame(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, touch_frame);
	wlr_seat_touch_notify_frame(server->seat);
}

/* ---- selections --------------------------------------------------------- */

static void handle_request_set_selection(struct wl_listener *listener,
		void *data) {
	struct vt_server *server =
			wl_container_of(listener, server, request_set_selection);
	struct wlr_seat_request_set_selection_event *event = data;
	wlr_seat_set_selection(server->seat, event->source, event->serial);
}

/* wl_data_device.start_drag: a drag whose serial is that of the button
 * press or touch down still held on its origin starts (wlroots' grab
 * carries the drag and drop); any other is refused and freed. wlroots
 * 0.15 frees a drag that never started only through its data source: one
 * without a source is started as a keyboard-only drag and at once
 * cancelled, which frees it (left alone, every refused request kept its
 * drag for the rest of the session). */
static void handle_request_start_drag(struct wl_listener *listener,
		void *data) {
	struct vt_server *server =
			wl_container_of(listener, server, request_start_drag);
	struct wlr_seat_request_start_drag_event *event = data;
	struct wlr_seat *seat = server->seat;
	if (event->origin != NULL &&
			wlr_seat_validate_pointer_grab_serial(seat, event->origin,
					event->serial)) {
		wlr_seat_start_pointer_drag(seat, event->drag, event->serial);
		return;
	}
	struct wlr_touch_point *point;
	if (event->origin != NULL &&
			wlr_seat_validate_touch_grab_serial(seat, event->origin,
					event->serial, &point)) {
		wlr_seat_start_touch_drag(seat, event->drag, event->serial, point);
		return;
	}
	if (event->drag->source != NULL) {
		wlr_data_source_destroy(event->drag->source); /* and its drag */
		return;
	}
	wlr_seat_start_drag(seat, event->drag, event->serial);
	wlr_seat_keyboard_end_grab(seat);
}

static void handle_request_set_primary_selection(struct wl_listener *listener,
		void *data) {
	struct vt_server *server =
			wl_container_of(listener, server, request_set_primary_selection);
	struct wlr_seat_request_set_primary_selection_event *event = data;
	wlr_seat_set_primary_selection(server->seat, event->source, event->serial);
}

/* ---- setup -------------------------------------------------------------- */

/* The cursor theme and size of XCURSOR_THEME and XCURSOR_SIZE (unset:
 * the default theme at 24 pixels), exported to the clients vitrail
 * starts so that their cursors match. */
static bool cursor_init_image(struct vt_server *server) {
	const char *theme = getenv("XCURSOR_THEME");
	theme = theme != NULL && theme[0] != '\0' ? theme : NULL;
	unsigned size = 24;
	const char *size_env = getenv("XCURSOR_SIZE");
	if (size_env != NULL && size_env[0] != '\0') {
		char *end;
		errno = 0;
		unsigned long v = strtoul(size_env, &end, 10);
		if (errno != 0 || *end != '\0' || v < 1 || v > 512) {
			wlr_log(WLR_ERROR,
					"XCURSOR_SIZE '%s' is not a size from 1 "
					"to 512: using 24",
					size_env);
		} else {
			size = (unsigned)v;
		}
	}
	char size_str[16];
	snprintf(size_str, sizeof(size_str), "%u", size);
	setenv("XCURSOR_SIZE", size_str, 1);
	server->xcursor_manager = wlr_xcursor_manager_create(theme, size);
	server->cursor_scale = 1.0f; /* until outputs say more */
	if (server->xcursor_manager == NULL ||
			!wlr_xcursor_manager_load(server->xcursor_manager, 1)) {
		wlr_log(WLR_ERROR, "cannot load the cursor theme %s at size %u",
				theme != NULL ? theme : "(default)", size);
		return false;
	}
	input_cursor_set_theme_image(server, "left_ptr");
	if (server->cursor_name == NULL) {
		wlr_log(WLR_ERROR, "the cursor theme %s has no left_ptr",
				theme != NULL ? theme : "(default)");
		return false;
	}
	wlr_log(WLR_INFO, "cursor theme %s, size %u",
			theme != NULL ? theme : "(default)", size);
	return true;
}

/* Lower modules announce what moved under the pointer (windows, layer
 * and lock surfaces, X11 windows, a taskbar's or a tablet's focus). */
static void handle_pointer_focus(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, pointer_focus);
	vt_input_update_pointer_focus(server);
}

bool vt_input_init(struct vt_server *server) {
	wl_list_init(&server->keyboards);
	wl_list_init(&server->virtual_pointers);
	server->seat = wlr_seat_create(server->display, "seat0");
	server->cursor = wlr_cursor_create();
	/* both go with the display */
	server->virtual_pointer =
			wlr_virtual_pointer_manager_v1_create(server->display);
	server->virtual_keyboard =
			wlr_virtual_keyboard_manager_v1_create(server->display);
	if (server->seat == NULL || server->cursor == NULL ||
			server->virtual_pointer == NULL ||
			server->virtual_keyboard == NULL) {
		return false;
	}
	wlr_cursor_attach_output_layout(server->cursor, server->layout);

	server->cursor_node = vr_node_create(server->tree);
	server->cursor_image_node = vr_node_create(server->tree);
	vr_node_set_parent(server->cursor_node, server->cursor_layer);
	vr_node_set_parent(server->cursor_image_node, server->cursor_node);
	/* Shown once a pointer device exists. */
	vr_node_set_enabled(server->cursor_layer, false);
	if (!cursor_init_image(server)) {
		return false;
	}

	server->cursor_motion.notify = input_handle_cursor_motion;
	wl_signal_add(&server->cursor->events.motion, &server->cursor_motion);
	server->cursor_motion_absolute.notify = input_handle_cursor_motion_absolute;
	wl_signal_add(&server->cursor->events.motion_absolute,
			&server->cursor_motion_absolute);
	server->cursor_button.notify = input_handle_cursor_button;
	wl_signal_add(&server->cursor->events.button, &server->cursor_button);
	server->cursor_axis.notify = input_handle_cursor_axis;
	wl_signal_add(&server->cursor->events.axis, &server->cursor_axis);
	server->cursor_frame.notify = input_handle_cursor_frame;
	wl_signal_add(&server->cursor->events.frame, &server->cursor_frame);
	server->touch_down.notify = handle_touch_down;
	wl_signal_add(&server->cursor->events.touch_down, &server->touch_down);
	server->touch_up.notify = handle_touch_up;
	wl_signal_add(&server->cursor->events.touch_up, &server->touch_up);
	server->touch_motion.notify = handle_touch_motion;
	wl_signal_add(&server->cursor->events.touch_motion, &server->touch_motion);
	server->touch_frame.notify = handle_touch_frame;
	wl_signal_add(&server->cursor->events.touch_frame, &server->touch_frame);

	server->new_input.notify = input_handle_new_input;
	wl_signal_add(&server->backend->events.new_input, &server->new_input);
	server->new_virtual_pointer.notify = input_handle_new_virtual_pointer;
	wl_signal_add(&server->virtual_pointer->events.new_virtual_pointer,
			&server->new_virtual_pointer);
	server->keymap_guard = wl_display_add_protocol_logger(server->display,
			input_keymap_guard, server);
	server->new_virtual_keyboard.notify = input_handle_new_virtual_keyboard;
	wl_signal_add(&server->virtual_keyboard->events.new_virtual_keyboard,
			&server->new_virtual_keyboard);
	server->request_cursor.notify = input_handle_request_cursor;
	wl_signal_add(&server->seat->events.request_set_cursor,
			&server->request_cursor);
	server->request_start_drag.notify = handle_request_start_drag;
	wl_signal_add(&server->seat->events.request_start_drag,
			&server->request_start_drag);
	server->request_set_selection.notify = handle_request_set_selection;
	wl_signal_add(&server->seat->events.request_set_selection,
			&server->request_set_selection);
	server->request_set_primary_selection.notify =
			handle_request_set_primary_selection;
	wl_signal_add(&server->seat->events.request_set_primary_selection,
			&server->request_set_primary_selection);
	server->pointer_focus.notify = handle_pointer_focus;
	wl_signal_add(&server->events.pointer_focus, &server->pointer_focus);
	server->cursor_outputs.notify = input_handle_cursor_outputs;
	wl_signal_add(&server->events.output_moved, &server->cursor_outputs);
	if (!input_own_keyboard_create(server)) {
		return false;
	}
	input_update_capabilities(server);
	return true;
}

void vt_input_finish(struct vt_server *server) {
	wl_list_remove(&server->pointer_focus.link);
	wl_list_remove(&server->cursor_motion.link);
	wl_list_remove(&server->cursor_motion_absolute.link);
	wl_list_remove(&server->cursor_button.link);
	wl_list_remove(&server->cursor_axis.link);
	wl_list_remove(&server->cursor_frame.link);
	wl_list_remove(&server->touch_down.link);
	wl_list_remove(&server->touch_up.link);
	wl_list_remove(&server->touch_motion.link);
	wl_list_remove(&server->touch_frame.link);
	wl_list_remove(&server->new_input.link);
	wl_list_remove(&server->new_virtual_pointer.link);
	wl_list_remove(&server->new_virtual_keyboard.link);
	struct vt_virtual_pointer *vp, *vp_tmp;
	wl_list_for_each_safe(vp, vp_tmp, &server->virtual_pointers, link) {
		input_virtual_pointer_destroy(vp);
	}
	if (server->keymap_guard != NULL) {
		wl_protocol_logger_destroy(server->keymap_guard);
		server->keymap_guard = NULL;
	}
	wl_list_remove(&server->request_cursor.link);
	wl_list_remove(&server->cursor_outputs.link);
	wl_list_remove(&server->request_set_selection.link);
	wl_list_remove(&server->request_set_primary_selection.link);
	wl_list_remove(&server->request_start_drag.link);
	if (server->own_keyboard != NULL) {
		wlr_input_device_destroy(server->own_keyboard);
		server->own_keyboard = NULL;
	}
	if (server->cursor_surface != NULL) {
		wl_list_remove(&server->cursor_surface_destroy.link);
		server->cursor_surface = NULL;
	}
	wlr_xcursor_manager_destroy(server->xcursor_manager);
	wlr_cursor_destroy(server->cursor);
	input_cursor_drop_theme_images(server);
}
