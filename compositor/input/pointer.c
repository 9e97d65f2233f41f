/*
 * The pointer and the cursor: motion, buttons, axes, virtual pointers, the
 * cursor's image and its node in the render tree.
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

#include "desktop/decoration.h"
#include "desktop/hit_test.h"
#include "desktop/kiosk.h"
#include "desktop/layer_shell.h"
#include "desktop/session_lock.h"
#include "desktop/surface.h"
#include "desktop/view.h"
#include "input/input.h"
#include "output/output.h"
#include "protocols/protocols.h"
#include "protocols/scroll_region.h"
#include "protocols/xdg_dialog.h"
#include "server.h"
#include "util.h"

#include "input/input_internal.h"

/* ---- cursor ------------------------------------------------------------- */

static void cursor_move_node(struct vt_server *server) {
	vr_node_set_position(server->cursor_node, (float)server->cursor->x,
			(float)server->cursor->y);
	vt_server_schedule_update(server);
}

/* The theme's image of that name at the cursor's scale, loaded on first
 * use; NULL when the theme lacks it. */
static struct vt_cursor_image *cursor_theme_image(struct vt_server *server,
		const char *name) {
	for (int i = 0; i < server->cursor_images_len; i++) {
		if (strcmp(server->cursor_images[i].name, name) == 0) {
			return &server->cursor_images[i];
		}
	}
	if (server->cursor_images_len == VT_CURSOR_IMAGES) {
		return NULL;
	}
	/* the size asked for is the scale-1 image's (always loaded); the
	 * pixels are the image at the cursor's scale, the theme's nearest
	 * size to it */
	struct wlr_xcursor *base =
			wlr_xcursor_manager_get_xcursor(server->xcursor_manager, name, 1);
	struct wlr_xcursor *xcursor = wlr_xcursor_manager_get_xcursor(
			server->xcursor_manager, name, server->cursor_scale);
	if (base == NULL || base->image_count == 0 || xcursor == NULL ||
			xcursor->image_count == 0) {
		return NULL;
	}
	struct wlr_xcursor_image *xi = xcursor->images[0];
	struct wlr_xcursor_image *xb = base->images[0];
	float fx = (float)xb->width / (float)xi->width;
	float fy = (float)xb->height / (float)xi->height;
	struct vr_image *image =
			vr_image_create(xi->width, xi->height, VR_FORMAT_ARGB8888);
	if (image == NULL) {
		return NULL;
	}
	vr_image_write(image, xi->buffer, xi->width * 4, NULL);
	struct vt_cursor_image *ci =
			&server->cursor_images[server->cursor_images_len++];
	/* a theme without the size for that scale gives its nearest: drawn
	 * at the size asked for all the same */
	*ci = (struct vt_cursor_image){
		.name = name,
		.image = image,
		.width = (float)xb->width,
		.height = (float)xb->height,
		.hotspot_x = (float)xi->hotspot_x * fx,
		.hotspot_y = (float)xi->hotspot_y * fy,
	};
	return ci;
}

/* The theme's image `name` (the arrow when the theme lacks it) in the
 * cursor's image node; whether the node is shown is the caller's. */
static void cursor_show_theme_image(struct vt_server *server,
		const char *name) {
	struct vt_cursor_image *ci = cursor_theme_image(server, name);
	if (ci == NULL) {
		ci = cursor_theme_image(server, "left_ptr");
	}
	if (ci != NULL && ci->name != server->cursor_name) {
		vr_node_set_image(server->cursor_image_node, ci->image, NULL, ci->width,
				ci->height, VR_TRANSFORM_NORMAL);
		vr_node_set_position(server->cursor_image_node, -ci->hotspot_x,
				-ci->hotspot_y);
		server->cursor_name = ci->name;
	}
}

/* Show the theme's image `name` (the arrow when the theme lacks it)
 * instead of a client's cursor. */
void input_cursor_set_theme_image(struct vt_server *server, const char *name) {
	if (server->cursor_surface != NULL) {
		vr_node_set_parent(server->cursor_surface->node, NULL);
		wl_list_remove(&server->cursor_surface_destroy.link);
		server->cursor_surface = NULL;
	}
	cursor_show_theme_image(server, name);
	vr_node_set_enabled(server->cursor_image_node, true);
	vt_server_schedule_update(server);
}

void input_cursor_drop_theme_images(struct vt_server *server) {
	for (int i = 0; i < server->cursor_images_len; i++) {
		vr_image_unref(server->cursor_images[i].image);
	}
	server->cursor_images_len = 0;
}

/* events.output_moved (outputs were arranged: added, enabled, scaled):
 * the theme's images at the largest scale of the outputs, so that the
 * cursor is drawn from the theme's own pixels, not scaled up, on every
 * output up to that scale (a smaller one draws them scaled down). */
void input_handle_cursor_outputs(struct wl_listener *listener, void *data) {
	struct vt_server *server =
			wl_container_of(listener, server, cursor_outputs);
	float scale = 1.0f;
	struct wlr_output_layout_output *lo;
	wl_list_for_each(lo, &server->layout->outputs, link) {
		if (lo->output->scale > scale) {
			scale = lo->output->scale;
		}
	}
	if (scale == server->cursor_scale) {
		return;
	}
	if (!wlr_xcursor_manager_load(server->xcursor_manager, scale)) {
		wlr_log(WLR_ERROR, "cannot load the cursor theme at scale %.2f", scale);
		return;
	}
	server->cursor_scale = scale;
	input_cursor_drop_theme_images(server);
	const char *name = server->cursor_name;
	server->cursor_name = NULL;
	if (name != NULL) {
		/* shown or not (a client's cursor may be), as it was */
		cursor_show_theme_image(server, name);
	}
	vt_server_schedule_update(server);
}

void vt_input_set_cursor_shape(struct vt_server *server, const char *name) {
	input_cursor_set_theme_image(server, name);
}

/* The surface that takes pointer and touch input at (lx, ly): while the
 * session is locked, a lock surface's; otherwise a window's or a layer
 * surface's, unless another client holds the input inhibitor. The view
 * (NULL for a lock or layer surface) goes to *view when view is not
 * NULL. */
struct wlr_surface *input_surface_at(struct vt_server *server, double lx,
		double ly, double *sx, double *sy, struct vt_view **view) {
	if (view != NULL) {
		*view = NULL;
	}
	if (vt_session_locked(server)) {
		return vt_session_lock_surface_at(server, lx, ly, sx, sy);
	}
	/* a window's surface, or a layer surface (view NULL) */
	struct wlr_surface *surface = NULL;
	struct vt_view *v = vt_view_at(server, lx, ly, &surface, sx, sy);
	struct wlr_surface *owner = surface != NULL ? surface :
			v != NULL                           ? v->surface :
												  NULL;
	if (owner == NULL ||
			!vt_protocols_client_allowed(server,
					wl_resource_get_client(owner->resource))) {
		return NULL;
	}
	/* on a window's decorations: its view, no surface */
	if (view != NULL) {
		*view = v;
	}
	if (v != NULL && v->kind == VT_VIEW_TOPLEVEL && v->xdg_surface != NULL &&
			vt_xdg_dialog_modal_of(server, v->xdg_surface) != NULL) {
		/* its modal dialog is mapped: the window takes no pointer */
		return NULL;
	}
	return surface;
}

struct surface_find {
	struct wlr_surface *surface;
	bool found;
	int sx, sy;
};

static void surface_find_iterator(struct wlr_surface *surface, int sx, int sy,
		void *data) {
	struct surface_find *find = data;
	if (surface == find->surface && !find->found) {
		find->found = true;
		find->sx = sx;
		find->sy = sy;
	}
}

/* The layout position of the top-left corner of a shown window's
 * surface (its main surface, a subsurface or a popup); false when it is
 * none (a layer or lock surface, or a hidden window's). */
static bool window_surface_origin(struct vt_server *server,
		struct wlr_surface *surface, double *lx, double *ly) {
	struct vt_view *view;
	wl_list_for_each(view, &server->views, link) {
		if (!vt_view_visible(view)) {
			continue;
		}
		struct surface_find find = { .surface = surface };
		view->impl->for_each_surface(view, surface_find_iterator, &find);
		if (find.found) {
			int ox, oy;
			vt_view_surface_origin(view, &ox, &oy);
			*lx = ox + find.sx;
			*ly = oy + find.sy;
			return true;
		}
	}
	return false;
}

/*
 * The pointer's implicit grab (wl_pointer): while a button the client was
 * sent is held, the surface it went down on keeps the pointer, wherever
 * the pointer goes, and gets its motion relative to itself. True when the
 * motion went there. A drag and drop (a grab of wlroots') moves the focus
 * itself.
 */
static bool pointer_grab_motion(struct vt_server *server, uint32_t time,
		struct wlr_surface *surface, uint64_t received_ns) {
	struct wlr_seat *seat = server->seat;
	struct wlr_surface *focused = seat->pointer_state.focused_surface;
	double ox, oy;
	if (focused == NULL || focused == surface ||
			seat->pointer_state.button_count == 0 ||
			wlr_seat_pointer_has_grab(seat) ||
			!window_surface_origin(server, focused, &ox, &oy)) {
		return false;
	}
	double sx = server->cursor->x - ox, sy = server->cursor->y - oy;
	if (received_ns == 0 && sx == seat->pointer_state.sx &&
			sy == seat->pointer_state.sy) {
		return true; /* nothing moved */
	}
	wlr_seat_pointer_notify_motion(seat, time, sx, sy);
	server->pointer_frame_owed = true;
	input_history_add(&server->pointer_history, focused, sx, sy);
	if (received_ns != 0) {
		vt_surface_note_input(focused, received_ns);
	}
	return true;
}

/* received_ns: when the event that moved the cursor came (0: no event,
 * the focus follows windows that moved). */
static void process_motion(struct vt_server *server, uint32_t time,
		uint64_t received_ns) {
	cursor_move_node(server);
	double sx, sy;
	struct vt_view *view;
	struct wlr_surface *surface = input_surface_at(server, server->cursor->x,
			server->cursor->y, &sx, &sy, &view);
	struct wlr_surface *focused = server->seat->pointer_state.focused_surface;
	if (received_ns == 0 && surface != NULL && surface == focused &&
			sx == server->seat->pointer_state.sx &&
			sy == server->seat->pointer_state.sy) {
		return; /* nothing moved under the pointer */
	}
	if (pointer_grab_motion(server, time, surface, received_ns)) {
		return;
	}
	if (surface == NULL) {
		/* the arrow, or on a decoration's edge its resize cursor */
		const char *name = "left_ptr";
		uint32_t edges;
		if (view != NULL &&
				vt_view_decoration_at(view, server->cursor->x,
						server->cursor->y, &edges) == VT_PART_EDGE) {
			name = wlr_xcursor_get_resize_name(edges);
		}
		if (focused != NULL || server->cursor_surface != NULL ||
				server->cursor_name == NULL ||
				strcmp(server->cursor_name, name) != 0) {
			input_cursor_set_theme_image(server, name);
		}
		wlr_seat_pointer_clear_focus(server->seat);
		server->pointer_frame_owed = true;
		return;
	}
	if (surface != focused && server->cursor_surface == NULL &&
			server->cursor_name != NULL &&
			strcmp(server->cursor_name, "left_ptr") != 0) {
		/* from a decoration's edge: the arrow until the client says */
		input_cursor_set_theme_image(server, "left_ptr");
	}
	wlr_seat_pointer_notify_enter(server->seat, surface, sx, sy);
	wlr_seat_pointer_notify_motion(server->seat, time, sx, sy);
	server->pointer_frame_owed = true;
	input_history_add(&server->pointer_history, surface, sx, sy);
	if (received_ns != 0) {
		vt_surface_note_input(server->seat->pointer_state.focused_surface,
				received_ns);
	}
}

void vt_input_update_pointer_focus(struct vt_server *server) {
	/* a move or resize the pointer drives keeps it (grab_motion) */
	if (!server->has_pointer ||
			(server->grab.mode != VT_GRAB_NONE && !server->grab.touch)) {
		return;
	}
	struct wlr_seat_pointer_state *state = &server->seat->pointer_state;
	struct wlr_surface *was = state->focused_surface;
	double was_x = state->sx, was_y = state->sy;
	process_motion(server, (uint32_t)(vt_now_ns() / 1000000u), 0);
	/* no device frame follows: close what was sent (enter, leave,
	 * motion) with one of vitrail's */
	if (state->focused_surface != was || state->sx != was_x ||
			state->sy != was_y) {
		wlr_seat_pointer_notify_frame(server->seat);
		server->pointer_frame_owed = false;
	}
}

/* A move or resize under way takes the pointer's motion. */
static bool grab_motion(struct vt_server *server) {
	if (server->grab.mode == VT_GRAB_NONE || server->grab.touch) {
		return false;
	}
	cursor_move_node(server);
	vt_grab_motion(server);
	return true;
}

static void pointer_motion(struct vt_server *server,
		struct wlr_event_pointer_motion *event, uint64_t received_ns) {
	vt_outputs_input(server);
	vt_protocols_input_activity(server);
	vt_kiosk_pointer_activity(server);
	double dx = event->delta_x, dy = event->delta_y;
	/* relative motion goes out; a locked pointer stays (and sends no
	 * wl_pointer.motion), a confined one stops at its region's edge */
	if (!vt_protocols_pointer_motion(server, event->time_msec, &dx, &dy,
				event->unaccel_dx, event->unaccel_dy)) {
		return;
	}
	wlr_cursor_move(server->cursor, event->device, dx, dy);
	if (grab_motion(server)) {
		return;
	}
	process_motion(server, event->time_msec, received_ns);
}

static void pointer_motion_absolute(struct vt_server *server,
		struct wlr_event_pointer_motion_absolute *event, uint64_t received_ns) {
	vt_outputs_input(server);
	vt_protocols_input_activity(server);
	vt_kiosk_pointer_activity(server);
	wlr_cursor_warp_absolute(server->cursor, event->device, event->x, event->y);
	if (grab_motion(server)) {
		return;
	}
	process_motion(server, event->time_msec, received_ns);
}

/* The drag modifier held and a button pressed over a window: the left
 * one moves it, the right one resizes it by the edges nearest the
 * cursor. True when it started a grab. */
static bool drag_modifier_grab(struct vt_server *server, uint32_t button) {
	struct wlr_keyboard *keyboard = wlr_seat_get_keyboard(server->seat);
	uint32_t want = server->config.drag_modifier;
	if (want == 0 || keyboard == NULL || vt_session_locked(server) ||
			(wlr_keyboard_get_modifiers(keyboard) & VT_MOD_BINDABLE) != want ||
			(button != BTN_LEFT && button != BTN_RIGHT)) {
		return false;
	}
	double sx, sy;
	struct wlr_surface *surface = NULL;
	struct vt_view *view = vt_view_at(server, server->cursor->x,
			server->cursor->y, &surface, &sx, &sy);
	if (view == NULL || view->kind != VT_VIEW_TOPLEVEL) {
		return false;
	}
	vt_view_focus(view, view->surface);
	uint32_t edges = 0;
	if (button == BTN_RIGHT) {
		struct wlr_box geo;
		view->impl->get_geometry(view, &geo);
		edges = (server->cursor->x < view->x + geo.width / 2.0 ?
								WLR_EDGE_LEFT :
								WLR_EDGE_RIGHT) |
				(server->cursor->y < view->y + geo.height / 2.0 ?
								WLR_EDGE_TOP :
								WLR_EDGE_BOTTOM);
	}
	vt_view_begin_grab(view, button == BTN_LEFT ? VT_GRAB_MOVE : VT_GRAB_RESIZE,
			edges, true);
	return server->grab.mode != VT_GRAB_NONE;
}

/* The left button or a finger on a part of a window's decorations: the
 * title bar moves the window, an edge resizes it (the pointer drives the
 * grab, or the touch point *touch_id, now at lx, ly), the close button
 * asks it to close. */
static void decoration_act(struct vt_view *view, enum vt_decoration_part part,
		uint32_t edges, const int32_t *touch_id, double lx, double ly) {
	if (part == VT_PART_CLOSE) {
		vt_view_close(view);
		return;
	}
	if (part != VT_PART_TITLE && part != VT_PART_EDGE) {
		return;
	}
	enum vt_grab_mode mode =
			part == VT_PART_TITLE ? VT_GRAB_MOVE : VT_GRAB_RESIZE;
	uint32_t grab_edges = part == VT_PART_EDGE ? edges : 0;
	if (touch_id != NULL) {
		vt_view_begin_touch_grab(view, mode, grab_edges, *touch_id, lx, ly);
	} else {
		vt_view_begin_grab(view, mode, grab_edges, true);
	}
}

/* A button pressed on a window's decorations (vitrail(5), decorations):
 * the window takes the focus; with the left button the title bar moves
 * it, the close button asks it to close, an edge resizes it. The button
 * is vitrail's (the client never sees it). True when it was on one. */
static bool decoration_press(struct vt_server *server, uint32_t button) {
	double sx, sy;
	struct vt_view *view;
	struct wlr_surface *surface = input_surface_at(server, server->cursor->x,
			server->cursor->y, &sx, &sy, &view);
	uint32_t edges;
	enum vt_decoration_part part = surface == NULL && view != NULL ?
			vt_view_decoration_at(view, server->cursor->x, server->cursor->y,
					&edges) :
			VT_PART_NONE;
	if (part == VT_PART_NONE) {
		return false;
	}
	vt_view_focus(view, view->surface);
	if (button == BTN_LEFT) {
		decoration_act(view, part, edges, NULL, 0, 0);
	}
	/* a grab ends at the release; otherwise the release is kept */
	if (server->grab.mode == VT_GRAB_NONE) {
		server->decoration_button = button;
	}
	return true;
}

/* A touch down on a window's decorations: the window takes the focus; on
 * the title bar the finger moves it, on an edge it resizes it, on the
 * close button the window is asked to close. */
void input_decoration_touch(struct vt_server *server, struct vt_view *view,
		int32_t touch_id, double lx, double ly) {
	uint32_t edges;
	enum vt_decoration_part part = vt_view_decoration_at(view, lx, ly, &edges);
	if (part == VT_PART_NONE) {
		return;
	}
	vt_view_focus(view, view->surface);
	decoration_act(view, part, edges, &touch_id, lx, ly);
}

static void pointer_button(struct vt_server *server,
		struct wlr_event_pointer_button *event, uint64_t received_ns) {
	vt_outputs_input(server);
	vt_protocols_input_activity(server);
	vt_kiosk_pointer_activity(server);
	/* a drag of the drag modifier's: its buttons are vitrail's */
	if (server->grab.swallow) {
		if (event->state == WLR_BUTTON_RELEASED) {
			vt_grab_end(server);
			vt_input_update_pointer_focus(server);
		}
		return;
	}
	if (event->state == WLR_BUTTON_PRESSED &&
			server->grab.mode == VT_GRAB_NONE &&
			(drag_modifier_grab(server, event->button) ||
					decoration_press(server, event->button))) {
		return;
	}
	if (event->state == WLR_BUTTON_RELEASED &&
			server->decoration_button == event->button) {
		server->decoration_button = 0;
		return;
	}
	wlr_seat_pointer_notify_button(server->seat, event->time_msec,
			event->button, event->state);
	server->pointer_frame_owed = true;
	if (server->grab.mode != VT_GRAB_NONE && !server->grab.touch &&
			server->seat->pointer_state.button_count == 0) {
		vt_grab_end(server);
		vt_input_update_pointer_focus(server);
	} else if (event->state == WLR_BUTTON_RELEASED &&
			server->seat->pointer_state.button_count == 0) {
		/* the implicit grab's end: the pointer goes to what it is
		 * over, if it left the surface */
		double sx, sy;
		struct wlr_surface *under = input_surface_at(server, server->cursor->x,
				server->cursor->y, &sx, &sy, NULL);
		if (under != server->seat->pointer_state.focused_surface) {
			process_motion(server, event->time_msec, 0);
		}
	}
	vt_surface_note_input(server->seat->pointer_state.focused_surface,
			received_ns);
	if (event->state == WLR_BUTTON_PRESSED) {
		/* a click makes its output the current one */
		struct vt_output *output =
				vt_output_at(server, server->cursor->x, server->cursor->y);
		if (output != NULL) {
			server->current_output = output;
		}
		double sx, sy;
		struct vt_view *view;
		struct wlr_surface *surface = input_surface_at(server,
				server->cursor->x, server->cursor->y, &sx, &sy, &view);
		if (view != NULL) {
			vt_view_focus(view, view->surface);
		} else {
			/* an on_demand layer surface takes the keyboard */
			vt_layers_focus_surface(server, surface);
		}
	}
}

static void pointer_axis(struct vt_server *server,
		struct wlr_event_pointer_axis *event, uint64_t received_ns) {
	vt_outputs_input(server);
	vt_protocols_input_activity(server);
	vt_kiosk_pointer_activity(server);
	/* over a scroll region: vitrail scrolls it (scroll_region.c) */
	if (!vt_session_locked(server) && vt_scroll_pointer_axis(server, event)) {
		return;
	}
	wlr_seat_pointer_notify_axis(server->seat, event->time_msec,
			event->orientation, event->delta, event->delta_discrete,
			event->source);
	server->pointer_frame_owed = true;
	vt_surface_note_input(server->seat->pointer_state.focused_surface,
			received_ns);
}

/* A device's frame: wl_pointer.frame closes what went out since the last
 * one, if anything did. */
static void pointer_frame(struct vt_server *server) {
	if (server->pointer_frame_owed) {
		wlr_seat_pointer_notify_frame(server->seat);
		server->pointer_frame_owed = false;
	}
}

/*
 * A client's virtual pointer (wlr-virtual-pointer-unstable-v1) groups its
 * events with zwlr_virtual_pointer_v1.frame, as a physical device does
 * with its frame: they take effect together, at the frame. wlroots 0.15
 * holds its axis events until then but passes motion and buttons on at
 * once; vitrail holds those too, in order, so that clients see none of a
 * group before its frame, then all of it closed by wl_pointer.frame. A
 * group past VIRTUAL_POINTER_HELD_MAX events (a client that never sends
 * a frame) goes out as if its frame had come, rather than grow without
 * bound.
 */
#define VIRTUAL_POINTER_HELD_MAX 256

enum held_kind {
	HELD_MOTION,
	HELD_MOTION_ABSOLUTE,
	HELD_BUTTON,
	HELD_AXIS,
};

/* A virtual pointer's event, held until its frame. */
struct held_event {
	enum held_kind kind;
	uint64_t received_ns; /* when vitrail received it */
	union {
		struct wlr_event_pointer_motion motion;
		struct wlr_event_pointer_motion_absolute motion_absolute;
		struct wlr_event_pointer_button button;
		struct wlr_event_pointer_axis axis;
	};
};

static struct vt_virtual_pointer *virtual_pointer_of(struct vt_server *server,
		struct wlr_input_device *device) {
	struct vt_virtual_pointer *vp;
	wl_list_for_each(vp, &server->virtual_pointers, link) {
		if (vp->device == device) {
			return vp;
		}
	}
	return NULL;
}

/* The events held so far go out, in order, then wl_pointer.frame if any
 * reached a client. */
static void virtual_pointer_release(struct vt_virtual_pointer *vp) {
	struct vt_server *server = vp->server;
	/* taken out first: what the events set off cannot add to it while
	 * it is read */
	struct wl_array held = vp->held;
	wl_array_init(&vp->held);
	struct held_event *e;
	wl_array_for_each(e, &held) {
		switch (e->kind) {
		case HELD_MOTION:
			pointer_motion(server, &e->motion, e->received_ns);
			break;
		case HELD_MOTION_ABSOLUTE:
			pointer_motion_absolute(server, &e->motion_absolute,
					e->received_ns);
			break;
		case HELD_BUTTON:
			pointer_button(server, &e->button, e->received_ns);
			break;
		case HELD_AXIS: pointer_axis(server, &e->axis, e->received_ns); break;
		}
	}
	wl_array_release(&held);
	pointer_frame(server);
}

/* True when event (of device) is a virtual pointer's and is held until
 * its frame; event->received_ns is set here. */
static bool virtual_pointer_hold(struct vt_server *server,
		struct wlr_input_device *device, struct held_event *event) {
	struct vt_virtual_pointer *vp = virtual_pointer_of(server, device);
	if (vp == NULL) {
		return false;
	}
	event->received_ns = vt_now_ns();
	struct held_event *slot = wl_array_add(&vp->held, sizeof(*slot));
	if (slot == NULL) {
		wlr_log(WLR_ERROR,
				"out of memory: a virtual pointer's event "
				"goes out before its frame");
		return false;
	}
	*slot = *event;
	if (vp->held.size / sizeof(*slot) >= VIRTUAL_POINTER_HELD_MAX) {
		virtual_pointer_release(vp);
	}
	return true;
}

static void virtual_pointer_handle_frame(struct wl_listener *listener,
		void *data) {
	struct vt_virtual_pointer *vp = wl_container_of(listener, vp, frame);
	virtual_pointer_release(vp);
}

void input_virtual_pointer_destroy(struct vt_virtual_pointer *vp) {
	wl_list_remove(&vp->frame.link);
	wl_list_remove(&vp->destroy.link);
	wl_list_remove(&vp->link);
	/* a group its frame never closed never happened */
	wl_array_release(&vp->held);
	free(vp);
}

static void virtual_pointer_handle_destroy(struct wl_listener *listener,
		void *data) {
	struct vt_virtual_pointer *vp = wl_container_of(listener, vp, destroy);
	input_virtual_pointer_destroy(vp);
}

void input_handle_new_virtual_pointer(struct wl_listener *listener,
		void *data) {
	struct vt_server *server =
			wl_container_of(listener, server, new_virtual_pointer);
	struct wlr_virtual_pointer_v1_new_pointer_event *event = data;
	struct wlr_input_device *device = &event->new_pointer->input_device;
	struct vt_virtual_pointer *vp = calloc(1, sizeof(*vp));
	if (vp == NULL) {
		wlr_log(WLR_ERROR,
				"out of memory: a virtual pointer's events "
				"go out before its frames");
	} else {
		vp->server = server;
		vp->device = device;
		wl_array_init(&vp->held);
		wl_list_insert(&server->virtual_pointers, &vp->link);
		/* ahead of wlr_cursor's frame listener (input_add_device) */
		vp->frame.notify = virtual_pointer_handle_frame;
		wl_signal_add(&device->pointer->events.frame, &vp->frame);
		vp->destroy.notify = virtual_pointer_handle_destroy;
		wl_signal_add(&device->events.destroy, &vp->destroy);
	}
	/* one seat: the suggested one is ours */
	input_add_device(server, device);
	if (event->suggested_output != NULL) {
		/* absolute motion spans that output instead of the layout */
		wlr_cursor_map_input_to_output(server->cursor, device,
				event->suggested_output);
	}
}

void input_handle_cursor_motion(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, cursor_motion);
	struct wlr_event_pointer_motion *event = data;
	struct held_event held = { .kind = HELD_MOTION, .motion = *event };
	if (!virtual_pointer_hold(server, event->device, &held)) {
		pointer_motion(server, event, vt_now_ns());
	}
}

void input_handle_cursor_motion_absolute(struct wl_listener *listener,
		void *data) {
	struct vt_server *server =
			wl_container_of(listener, server, cursor_motion_absolute);
	struct wlr_event_pointer_motion_absolute *event = data;
	struct held_event held = {
		.kind = HELD_MOTION_ABSOLUTE,
		.motion_absolute = *event,
	};
	if (!virtual_pointer_hold(server, event->device, &held)) {
		pointer_motion_absolute(server, event, vt_now_ns());
	}
}

void input_handle_cursor_button(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, cursor_button);
	struct wlr_event_pointer_button *event = data;
	struct held_event held = { .kind = HELD_BUTTON, .button = *event };
	if (!virtual_pointer_hold(server, event->device, &held)) {
		pointer_button(server, event, vt_now_ns());
	}
}

void input_handle_cursor_axis(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, cursor_axis);
	struct wlr_event_pointer_axis *event = data;
	struct held_event held = { .kind = HELD_AXIS, .axis = *event };
	if (!virtual_pointer_hold(server, event->device, &held)) {
		pointer_axis(server, event, vt_now_ns());
	}
}

/* wlr_cursor's frame, of any of its devices (it does not say which): a
 * virtual pointer's own frame listener released its events just before
 * (it listens ahead of the cursor). */
void input_handle_cursor_frame(struct wl_listener *listener, void *data) {
	struct vt_server *server = wl_container_of(listener, server, cursor_frame);
	pointer_frame(server);
}

static void handle_cursor_surface_destroy(struct wl_listener *listener,
		void *data) {
	struct vt_server *server =
			wl_container_of(listener, server, cursor_surface_destroy);
	wl_list_remove(&server->cursor_surface_destroy.link);
	server->cursor_surface = NULL;
	vr_node_set_enabled(server->cursor_image_node, true);
	vt_server_schedule_update(server);
}

void input_handle_request_cursor(struct wl_listener *listener, void *data) {
	struct vt_server *server =
			wl_container_of(listener, server, request_cursor);
	struct wlr_seat_pointer_request_set_cursor_event *event = data;
	if (server->seat->pointer_state.focused_client != event->seat_client) {
		return;
	}
	if (server->cursor_surface != NULL) {
		vr_node_set_parent(server->cursor_surface->node, NULL);
		wl_list_remove(&server->cursor_surface_destroy.link);
		server->cursor_surface = NULL;
	}
	vr_node_set_enabled(server->cursor_image_node, false);
	struct vt_surface *surface =
			event->surface != NULL ? vt_surface_from_wlr(event->surface) : NULL;
	if (surface != NULL) {
		server->cursor_surface = surface;
		server->cursor_surface_destroy.notify = handle_cursor_surface_destroy;
		wl_signal_add(&event->surface->events.destroy,
				&server->cursor_surface_destroy);
		vr_node_set_parent(surface->node, server->cursor_node);
		vr_node_set_position(surface->node, -event->hotspot_x,
				-event->hotspot_y);
	}
	vt_server_schedule_update(server);
}
