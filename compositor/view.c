/*
 * xdg-shell views and window policy.
 *
 * Desktop mode: a new toplevel goes to the output that has the fewest
 * toplevels (ties: the first output), near the centre and cascaded, at the
 * size the client picks; maximize and fullscreen requests fill the output. Kiosk mode:
 * every toplevel fills its output.
 *
 * Tree: each toplevel owns a container node in the views layer at the
 * origin of its main surface; the surface's node and its popups' nodes
 * live inside it, popups above.
 */
#include <assert.h>
#include <stdlib.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/edges.h>
#include <wlr/util/log.h>

#include "layer_shell.h"
#include "server.h"

static struct wlr_box output_layout_box(struct vt_server *server,
		struct vt_output *output) {
	struct wlr_box *box = wlr_output_layout_get_box(server->layout,
		vt_output_wlr(output));
	return box != NULL ? *box : (struct wlr_box){ 0 };
}

/* Toplevels placed on output; with `except`, only the mapped others. */
static int views_on(struct vt_server *server, struct vt_output *output,
		struct vt_view *except) {
	int count = 0;
	struct vt_view *view;
	wl_list_for_each(view, &server->views, link) {
		if (view->placed_on == output && view != except &&
				(except == NULL || view->mapped)) {
			count++;
		}
	}
	return count;
}

static struct vt_output *pick_output(struct vt_server *server) {
	struct vt_output *best = NULL;
	int best_count = 0;
	for (struct vt_output *output = vt_output_next(server, NULL);
			output != NULL; output = vt_output_next(server, output)) {
		int count = views_on(server, output, NULL);
		if (best == NULL || count < best_count) {
			best = output;
			best_count = count;
		}
	}
	return best;
}

struct vt_output *vt_view_output(struct vt_view *view) {
	return vt_output_at(view->server, view->x, view->y);
}

/* ---- wl_surface.enter and leave ----------------------------------------- */

static void surface_send_enter(struct wlr_surface *surface, int sx, int sy,
		void *data) {
	wlr_surface_send_enter(surface, data);
	vt_fractional_scale_entered(surface, data);
}

static void surface_send_leave(struct wlr_surface *surface, int sx, int sy,
		void *data) {
	wlr_surface_send_leave(surface, data);
}

static void view_handle_entered_destroy(struct wl_listener *listener,
		void *data) {
	struct vt_view *view = wl_container_of(listener, view, entered_destroy);
	wl_list_remove(&view->entered_destroy.link);
	view->entered = NULL;
}

/* The toplevel's surfaces (popups and subsurfaces as they are now) enter
 * the output it shows on (NULL: leave the one they are on). */
static void view_set_entered(struct vt_view *view, struct wlr_output *output) {
	if (output == view->entered) {
		return;
	}
	if (view->entered != NULL) {
		wlr_xdg_surface_for_each_surface(view->xdg_surface,
			surface_send_leave, view->entered);
		wl_list_remove(&view->entered_destroy.link);
	}
	view->entered = output;
	if (output != NULL) {
		view->entered_destroy.notify = view_handle_entered_destroy;
		wl_signal_add(&output->events.destroy, &view->entered_destroy);
		wlr_xdg_surface_for_each_surface(view->xdg_surface,
			surface_send_enter, output);
	}
}

static void view_update_entered(struct vt_view *view) {
	struct vt_output *output = view->mapped ? vt_view_output(view) : NULL;
	view_set_entered(view, output != NULL ? vt_output_wlr(output) : NULL);
}

static void view_update_position(struct vt_view *view) {
	struct wlr_box geo;
	wlr_xdg_surface_get_geometry(view->xdg_surface, &geo);
	vr_node_set_position(view->node, view->x - geo.x, view->y - geo.y);
}

void vt_view_move(struct vt_view *view, int x, int y) {
	if (view->kind != VT_VIEW_TOPLEVEL) {
		return;
	}
	view->x = x;
	view->y = y;
	view_update_position(view);
	view_update_entered(view);
	vt_foreign_toplevel_update_output(view);
	vt_input_update_pointer_focus(view->server);
	vt_server_schedule_update(view->server);
}

static void view_fill_output(struct vt_view *view, bool fullscreen) {
	if (view->placed_on == NULL) {
		return;
	}
	/* fullscreen covers the whole output, maximized what layer
	 * surfaces' exclusive zones leave of it */
	struct wlr_box box = fullscreen ?
		output_layout_box(view->server, view->placed_on) :
		vt_output_usable_box(view->placed_on);
	if (fullscreen) {
		wlr_xdg_toplevel_set_fullscreen(view->xdg_surface, true);
	} else {
		wlr_xdg_toplevel_set_maximized(view->xdg_surface, true);
	}
	wlr_xdg_toplevel_set_size(view->xdg_surface, box.width, box.height);
	view->x = box.x;
	view->y = box.y;
}

void vt_view_focus(struct vt_view *view, struct wlr_surface *surface) {
	struct vt_server *server = view->server;
	struct wlr_seat *seat = server->seat;
	/* the lock surfaces, or the inhibitor's client, keep the focus */
	if (vt_session_locked(server) || !vt_protocols_client_allowed(server,
			wl_resource_get_client(surface->resource))) {
		return;
	}
	struct wlr_surface *prev = seat->keyboard_state.focused_surface;
	if (server->focused_view != NULL && server->focused_view != view &&
			server->focused_view->xdg_surface->role ==
			WLR_XDG_SURFACE_ROLE_TOPLEVEL) {
		wlr_xdg_toplevel_set_activated(server->focused_view->xdg_surface,
			false);
		vt_foreign_toplevel_set_activated(server->focused_view, false);
	}
	server->focused_view = view;
	wl_list_remove(&view->link);
	wl_list_insert(&server->views, &view->link);
	vr_node_raise_to_top(view->node);
	wlr_xdg_toplevel_set_activated(view->xdg_surface, true);
	vt_foreign_toplevel_set_activated(view, true);
	if (prev == surface) {
		return;
	}
	if (vt_layers_keyboard_grabbed(server)) {
		/* a layer surface with exclusive interactivity keeps the
		 * keyboard; the window gets it when that one lets go */
		vt_server_schedule_update(server);
		return;
	}
	struct wlr_keyboard *keyboard = wlr_seat_get_keyboard(seat);
	if (keyboard != NULL) {
		wlr_seat_keyboard_notify_enter(seat, surface, keyboard->keycodes,
			keyboard->num_keycodes, &keyboard->modifiers);
	} else {
		wlr_seat_keyboard_notify_enter(seat, surface, NULL, 0, NULL);
	}
	vt_server_schedule_update(server);
}

struct vt_view *vt_view_at(struct vt_server *server, double lx, double ly,
		struct wlr_surface **surface, double *sx, double *sy) {
	/* layer surfaces above the windows, the windows, those below */
	struct wlr_surface *layer = vt_layers_surface_at(server, lx, ly, true,
		sx, sy);
	if (layer != NULL) {
		*surface = layer;
		return NULL;
	}
	struct vt_view *view;
	wl_list_for_each(view, &server->views, link) {
		if (!view->mapped) {
			continue;
		}
		struct wlr_box geo;
		wlr_xdg_surface_get_geometry(view->xdg_surface, &geo);
		double vx = lx - (view->x - geo.x), vy = ly - (view->y - geo.y);
		struct wlr_surface *s = wlr_xdg_surface_surface_at(view->xdg_surface,
			vx, vy, sx, sy);
		if (s != NULL) {
			*surface = s;
			return view;
		}
	}
	layer = vt_layers_surface_at(server, lx, ly, false, sx, sy);
	if (layer != NULL) {
		*surface = layer;
	}
	return NULL;
}

/* ---- outputs coming and going ------------------------------------------- */

/* A window that fills its output follows the output's size. */
static bool view_fills_output(struct vt_view *view) {
	struct wlr_xdg_toplevel *toplevel = view->xdg_surface->toplevel;
	return view->server->config.mode == VT_MODE_KIOSK ||
		toplevel->current.maximized || toplevel->current.fullscreen;
}

/* Put view on output at the offset it had on the box `from`, kept inside
 * the output as far as its size allows. */
static void view_move_to_output(struct vt_view *view,
		struct vt_output *output, struct wlr_box from) {
	view->placed_on = output;
	if (view_fills_output(view)) {
		view_fill_output(view,
			view->xdg_surface->toplevel->current.fullscreen ||
			view->server->config.mode == VT_MODE_KIOSK);
		vt_view_move(view, view->x, view->y);
		return;
	}
	struct wlr_box to = vt_output_usable_box(output);
	struct wlr_box geo;
	wlr_xdg_surface_get_geometry(view->xdg_surface, &geo);
	int x = view->x - from.x, y = view->y - from.y;
	if (x + geo.width > to.width) {
		x = to.width - geo.width;
	}
	if (y + geo.height > to.height) {
		y = to.height - geo.height;
	}
	vt_view_move(view, to.x + (x > 0 ? x : 0), to.y + (y > 0 ? y : 0));
}

void vt_views_usable_changed(struct vt_server *server,
		struct vt_output *output) {
	struct wlr_box usable = vt_output_usable_box(output);
	struct vt_view *view;
	wl_list_for_each(view, &server->views, link) {
		if (view->placed_on != output || !view->mapped) {
			continue;
		}
		if (view_fills_output(view)) {
			view_move_to_output(view, output, usable);
			continue;
		}
		/* kept inside, as far as its size allows */
		struct wlr_box geo;
		wlr_xdg_surface_get_geometry(view->xdg_surface, &geo);
		int x = view->x, y = view->y;
		if (x + geo.width > usable.x + usable.width) {
			x = usable.x + usable.width - geo.width;
		}
		if (y + geo.height > usable.y + usable.height) {
			y = usable.y + usable.height - geo.height;
		}
		x = x < usable.x ? usable.x : x;
		y = y < usable.y ? usable.y : y;
		if (x != view->x || y != view->y) {
			vt_view_move(view, x, y);
		}
	}
}

void vt_views_output_gone(struct vt_server *server, struct vt_output *gone,
		struct wlr_box box) {
	struct vt_view *view;
	wl_list_for_each(view, &server->views, link) {
		if (view->placed_on != gone) {
			continue;
		}
		/* gone is out of server->outputs: the others share its windows,
		 * each to the one with the fewest; none left: placed nowhere
		 * until an output comes (vt_views_outputs_moved) */
		view->placed_on = NULL;
		struct vt_output *output = pick_output(server);
		if (output != NULL) {
			view_move_to_output(view, output, box);
		}
	}
}

void vt_views_output_moved(struct vt_server *server, struct vt_output *output,
		struct wlr_box from) {
	struct vt_view *view;
	wl_list_for_each(view, &server->views, link) {
		if (view->placed_on == output ||
				(output == NULL && view->placed_on == NULL)) {
			struct vt_output *to = output != NULL ? output :
				pick_output(server);
			if (to != NULL) {
				view_move_to_output(view, to, from);
			}
		}
	}
}

/* ---- toplevels ---------------------------------------------------------- */

static void toplevel_handle_map(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, map);
	struct vt_server *server = view->server;
	view->mapped = true;
	if (server->config.mode == VT_MODE_DESKTOP && view->placed_on != NULL &&
			!view->xdg_surface->toplevel->current.maximized &&
			!view->xdg_surface->toplevel->current.fullscreen) {
		/* inside what panels leave of the output */
		struct wlr_box box = vt_output_usable_box(view->placed_on);
		struct wlr_box geo;
		wlr_xdg_surface_get_geometry(view->xdg_surface, &geo);
		/* Centred, then cascaded so windows on one output do not
		 * hide each other completely. */
		int step = 60 * (views_on(server, view->placed_on, view) % 6);
		int x = (box.width - geo.width) / 2 - 150 + step * 2;
		int y = (box.height - geo.height) / 2 - 90 + step;
		if (x + geo.width > box.width) {
			x = box.width - geo.width;
		}
		if (y + geo.height > box.height) {
			y = box.height - geo.height;
		}
		view->x = box.x + (x > 0 ? x : 0);
		view->y = box.y + (y > 0 ? y : 0);
	}
	view_update_position(view);
	vr_node_set_enabled(view->node, true);
	view_update_entered(view);
	vt_foreign_toplevel_map(view);
	vt_view_focus(view, view->xdg_surface->surface);
	vt_input_update_pointer_focus(server);
	vt_server_schedule_update(server);
}

static void toplevel_handle_unmap(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, unmap);
	struct vt_server *server = view->server;
	view->mapped = false;
	if (server->grab.view == view) {
		vt_grab_end(server);
	}
	vr_node_set_enabled(view->node, false);
	view_set_entered(view, NULL);
	vt_foreign_toplevel_unmap(view);
	if (view->fullscreen) {
		view->fullscreen = false;
		vt_layers_fullscreen_changed(server);
	}
	if (server->focused_view == view) {
		server->focused_view = NULL;
		/* unless a lock or layer surface holds the keyboard */
		if (!vt_session_locked(server) &&
				!vt_layers_keyboard_grabbed(server)) {
			wlr_seat_keyboard_notify_clear_focus(server->seat);
		}
		struct vt_view *next;
		wl_list_for_each(next, &server->views, link) {
			if (next != view && next->mapped) {
				vt_view_focus(next, next->xdg_surface->surface);
				break;
			}
		}
	}
	vt_input_update_pointer_focus(server);
	vt_server_schedule_update(server);
}

static void toplevel_handle_commit(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, commit);
	if (view->mapped) {
		view_update_position(view);
		bool fullscreen = view->xdg_surface->toplevel->current.fullscreen;
		if (fullscreen != view->fullscreen) {
			view->fullscreen = fullscreen;
			vt_layers_fullscreen_changed(view->server);
		}
	}
}

/* Maximize and fullscreen requests fill the output; leaving either state
 * gives the client back its own size (desktop mode; kiosk windows always
 * fill). Every request is answered with a configure. */
static void view_handle_fill_request(struct vt_view *view, bool requested,
		bool fullscreen) {
	if (!requested && view->server->config.mode == VT_MODE_DESKTOP) {
		if (fullscreen) {
			wlr_xdg_toplevel_set_fullscreen(view->xdg_surface, false);
		} else {
			wlr_xdg_toplevel_set_maximized(view->xdg_surface, false);
		}
		wlr_xdg_toplevel_set_size(view->xdg_surface, 0, 0);
		return;
	}
	view_fill_output(view, fullscreen);
}

void vt_view_close(struct vt_view *view) {
	wlr_xdg_toplevel_send_close(view->xdg_surface);
}

void vt_view_toggle_fill(struct vt_view *view, bool fullscreen) {
	/* what vitrail last asked for, acknowledged or not */
	struct wlr_xdg_toplevel *toplevel = view->xdg_surface->toplevel;
	bool filled = fullscreen ? toplevel->scheduled.fullscreen :
		toplevel->scheduled.maximized;
	view_handle_fill_request(view, !filled, fullscreen);
}

void vt_views_cycle_focus(struct vt_server *server, bool forward) {
	struct vt_view *front = NULL, *back = NULL, *view;
	wl_list_for_each(view, &server->views, link) {
		if (view->mapped) {
			front = front == NULL ? view : front;
			back = view;
		}
	}
	if (front == NULL || front == back) {
		return;
	}
	if (forward) {
		vt_view_focus(back, back->xdg_surface->surface);
		return;
	}
	/* the focused window to the back, under every other */
	vr_node_place_below(front->node, back->node);
	wl_list_remove(&front->link);
	wl_list_insert(server->views.prev, &front->link);
	wl_list_for_each(view, &server->views, link) {
		if (view->mapped) {
			vt_view_focus(view, view->xdg_surface->surface);
			break;
		}
	}
}

void vt_view_begin_grab(struct vt_view *view, enum vt_grab_mode mode,
		uint32_t edges, bool swallow) {
	struct vt_server *server = view->server;
	struct wlr_xdg_toplevel *toplevel = view->xdg_surface->toplevel;
	if (view->kind != VT_VIEW_TOPLEVEL || !view->mapped ||
			server->config.mode != VT_MODE_DESKTOP ||
			toplevel->scheduled.maximized || toplevel->scheduled.fullscreen) {
		return;
	}
	struct wlr_box geo;
	wlr_xdg_surface_get_geometry(view->xdg_surface, &geo);
	server->grab = (struct vt_grab){
		.mode = mode,
		.view = view,
		.cursor_x = server->cursor->x,
		.cursor_y = server->cursor->y,
		.box = { view->x, view->y, geo.width, geo.height },
		.edges = edges,
		.swallow = swallow,
	};
	if (mode == VT_GRAB_RESIZE) {
		wlr_xdg_toplevel_set_resizing(view->xdg_surface, true);
	}
}

void vt_grab_motion(struct vt_server *server) {
	struct vt_grab *grab = &server->grab;
	struct vt_view *view = grab->view;
	int dx = (int)(server->cursor->x - grab->cursor_x);
	int dy = (int)(server->cursor->y - grab->cursor_y);
	if (grab->mode == VT_GRAB_MOVE) {
		vt_view_move(view, grab->box.x + dx, grab->box.y + dy);
		return;
	}
	/* resize: the edges grabbed follow the cursor, the others stay */
	int left = grab->box.x, top = grab->box.y;
	int right = left + grab->box.width, bottom = top + grab->box.height;
	if (grab->edges & WLR_EDGE_LEFT) {
		left = left + dx < right - 1 ? left + dx : right - 1;
	} else if (grab->edges & WLR_EDGE_RIGHT) {
		right = right + dx > left + 1 ? right + dx : left + 1;
	}
	if (grab->edges & WLR_EDGE_TOP) {
		top = top + dy < bottom - 1 ? top + dy : bottom - 1;
	} else if (grab->edges & WLR_EDGE_BOTTOM) {
		bottom = bottom + dy > top + 1 ? bottom + dy : top + 1;
	}
	vt_view_move(view, left, top);
	wlr_xdg_toplevel_set_size(view->xdg_surface, (uint32_t)(right - left),
		(uint32_t)(bottom - top));
}

void vt_grab_end(struct vt_server *server) {
	struct vt_grab *grab = &server->grab;
	if (grab->mode == VT_GRAB_RESIZE && grab->view != NULL) {
		wlr_xdg_toplevel_set_resizing(grab->view->xdg_surface, false);
	}
	*grab = (struct vt_grab){ 0 };
}

/* xdg_toplevel.move and resize: honoured for a button press of the
 * pointer focused on the window (the serial says which). */
static bool grab_serial_valid(struct vt_view *view, uint32_t serial) {
	return wlr_seat_validate_pointer_grab_serial(view->server->seat,
		view->xdg_surface->surface, serial);
}

static void toplevel_handle_request_move(struct wl_listener *listener,
		void *data) {
	struct vt_view *view = wl_container_of(listener, view, request_move);
	struct wlr_xdg_toplevel_move_event *event = data;
	if (grab_serial_valid(view, event->serial)) {
		vt_view_begin_grab(view, VT_GRAB_MOVE, 0, false);
	}
}

static void toplevel_handle_request_resize(struct wl_listener *listener,
		void *data) {
	struct vt_view *view = wl_container_of(listener, view, request_resize);
	struct wlr_xdg_toplevel_resize_event *event = data;
	if (grab_serial_valid(view, event->serial)) {
		vt_view_begin_grab(view, VT_GRAB_RESIZE, event->edges, false);
	}
}

static void toplevel_handle_request_maximize(struct wl_listener *listener,
		void *data) {
	struct vt_view *view = wl_container_of(listener, view, request_maximize);
	view_handle_fill_request(view,
		view->xdg_surface->toplevel->requested.maximized, false);
}

static void toplevel_handle_request_fullscreen(struct wl_listener *listener,
		void *data) {
	struct vt_view *view = wl_container_of(listener, view, request_fullscreen);
	view_handle_fill_request(view,
		view->xdg_surface->toplevel->requested.fullscreen, true);
}

static void toplevel_handle_destroy(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, destroy);
	vt_foreign_toplevel_unmap(view);
	if (view->entered != NULL) {
		wl_list_remove(&view->entered_destroy.link);
	}
	wl_list_remove(&view->map.link);
	wl_list_remove(&view->unmap.link);
	wl_list_remove(&view->destroy.link);
	wl_list_remove(&view->commit.link);
	wl_list_remove(&view->new_popup.link);
	wl_list_remove(&view->request_maximize.link);
	wl_list_remove(&view->request_fullscreen.link);
	wl_list_remove(&view->request_move.link);
	wl_list_remove(&view->request_resize.link);
	wl_list_remove(&view->link);
	if (view->server->focused_view == view) {
		view->server->focused_view = NULL;
	}
	vr_node_destroy(view->node);
	vt_server_schedule_update(view->server);
	free(view);
}

/* ---- popups ------------------------------------------------------------- */

/* Where the popup's surface lies in its root's surface coordinates (its
 * toplevel's, or its layer surface's). */
static void popup_offset(struct wlr_xdg_popup *popup, double *x, double *y) {
	struct wlr_xdg_surface *parent = popup->parent != NULL &&
		wlr_surface_is_xdg_surface(popup->parent) ?
		wlr_xdg_surface_from_wlr_surface(popup->parent) : NULL;
	if (parent != NULL) {
		double px, py;
		wlr_xdg_popup_get_position(popup, &px, &py);
		*x = px;
		*y = py;
	} else {
		/* a layer surface (or no parent yet): no window geometry to
		 * offset by (wlroots' get_position asserts an xdg parent) */
		*x = popup->geometry.x - popup->base->current.geometry.x;
		*y = popup->geometry.y - popup->base->current.geometry.y;
	}
	if (parent != NULL && parent->role == WLR_XDG_SURFACE_ROLE_POPUP) {
		double ox, oy;
		popup_offset(parent->popup, &ox, &oy);
		*x += ox;
		*y += oy;
	}
}

static void popup_update(struct vt_view *popup_view) {
	double x, y;
	popup_offset(popup_view->xdg_surface->popup, &x, &y);
	vr_node_set_position(popup_view->node, (float)x, (float)y);
}

static void popup_handle_map(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, map);
	view->mapped = true;
	popup_update(view);
	vr_node_set_enabled(view->node, true);
	vt_server_schedule_update(view->server);
}

static void popup_handle_unmap(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, unmap);
	view->mapped = false;
	vr_node_set_enabled(view->node, false);
	vt_server_schedule_update(view->server);
}

static void popup_handle_commit(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, commit);
	popup_update(view);
}

static void popup_handle_destroy(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, destroy);
	wl_list_remove(&view->map.link);
	wl_list_remove(&view->unmap.link);
	wl_list_remove(&view->destroy.link);
	wl_list_remove(&view->commit.link);
	wl_list_remove(&view->new_popup.link);
	/* The node is the surface's own; just take it out of the toplevel. */
	struct vt_surface *surface = vt_surface_from_wlr(view->xdg_surface->surface);
	if (surface != NULL) {
		vr_node_set_parent(surface->node, NULL);
	}
	vt_server_schedule_update(view->server);
	free(view);
}

static struct vt_view *toplevel_of(struct wlr_xdg_surface *xdg_surface) {
	while (xdg_surface != NULL &&
			xdg_surface->role == WLR_XDG_SURFACE_ROLE_POPUP) {
		struct wlr_surface *parent = xdg_surface->popup->parent;
		/* a layer surface's popup has a parent of another role */
		xdg_surface = parent != NULL && wlr_surface_is_xdg_surface(parent) ?
			wlr_xdg_surface_from_wlr_surface(parent) : NULL;
	}
	return xdg_surface != NULL ? xdg_surface->data : NULL;
}

/* The surface at the root of a popup's chain of parents (NULL: one has
 * none yet). */
static struct wlr_surface *popup_root(struct wlr_xdg_surface *xdg_surface) {
	while (xdg_surface->role == WLR_XDG_SURFACE_ROLE_POPUP) {
		struct wlr_surface *parent = xdg_surface->popup->parent;
		if (parent == NULL || !wlr_surface_is_xdg_surface(parent)) {
			return parent;
		}
		xdg_surface = wlr_xdg_surface_from_wlr_surface(parent);
	}
	return xdg_surface->surface;
}

static void handle_new_popup(struct wl_listener *listener, void *data);

static void popup_listen(struct vt_view *view,
		struct wlr_xdg_surface *xdg_surface) {
	view->map.notify = popup_handle_map;
	wl_signal_add(&xdg_surface->events.map, &view->map);
	view->unmap.notify = popup_handle_unmap;
	wl_signal_add(&xdg_surface->events.unmap, &view->unmap);
	view->destroy.notify = popup_handle_destroy;
	wl_signal_add(&xdg_surface->events.destroy, &view->destroy);
	view->commit.notify = popup_handle_commit;
	wl_signal_add(&xdg_surface->surface->events.commit, &view->commit);
	view->new_popup.notify = handle_new_popup;
	wl_signal_add(&xdg_surface->events.new_popup, &view->new_popup);
}

static void popup_create(struct vt_server *server,
		struct wlr_xdg_surface *xdg_surface) {
	struct vt_view *toplevel = toplevel_of(xdg_surface);
	struct vt_surface *surface = vt_surface_from_wlr(xdg_surface->surface);
	struct vr_node *layer_node = NULL;
	struct wlr_box layer_box;
	if (toplevel == NULL && surface != NULL &&
			vt_layers_popup_parent(popup_root(xdg_surface), &layer_node,
			&layer_box)) {
		/* a layer surface's popup: inside its container, kept on its
		 * output */
		struct vt_view *view = calloc(1, sizeof(*view));
		if (view == NULL) {
			return;
		}
		view->server = server;
		view->kind = VT_VIEW_POPUP;
		view->xdg_surface = xdg_surface;
		view->node = surface->node;
		vr_node_set_enabled(view->node, false);
		vr_node_set_parent(view->node, layer_node);
		wlr_xdg_popup_unconstrain_from_box(xdg_surface->popup, &layer_box);
		popup_listen(view, xdg_surface);
		return;
	}
	if (toplevel == NULL || surface == NULL) {
		return;
	}
	struct vt_view *view = calloc(1, sizeof(*view));
	if (view == NULL) {
		return;
	}
	view->server = server;
	view->kind = VT_VIEW_POPUP;
	view->xdg_surface = xdg_surface;
	view->parent = toplevel;
	view->node = surface->node;
	vr_node_set_enabled(view->node, false);
	vr_node_set_parent(view->node, toplevel->node);

	/* Keep it on the toplevel's output. */
	struct vt_output *output = toplevel->placed_on;
	if (output != NULL) {
		struct wlr_box box = output_layout_box(toplevel->server, output);
		struct wlr_box geo;
		wlr_xdg_surface_get_geometry(toplevel->xdg_surface, &geo);
		box.x -= toplevel->x - geo.x;
		box.y -= toplevel->y - geo.y;
		wlr_xdg_popup_unconstrain_from_box(xdg_surface->popup, &box);
	}

	popup_listen(view, xdg_surface);
}

static void handle_new_popup(struct wl_listener *listener, void *data) {
	/* Popups are created through new_xdg_surface; nothing to do here
	 * but keep the listener symmetrical for nested popups. */
}

static void toplevel_create(struct vt_server *server,
		struct wlr_xdg_surface *xdg_surface) {
	struct vt_surface *surface = vt_surface_from_wlr(xdg_surface->surface);
	struct vt_view *view = calloc(1, sizeof(*view));
	if (view == NULL || surface == NULL) {
		free(view);
		wl_client_post_no_memory(
			wl_resource_get_client(xdg_surface->resource));
		return;
	}
	view->server = server;
	view->kind = VT_VIEW_TOPLEVEL;
	view->xdg_surface = xdg_surface;
	view->node = vr_node_create(server->tree);
	if (view->node == NULL) {
		free(view);
		wl_client_post_no_memory(
			wl_resource_get_client(xdg_surface->resource));
		return;
	}
	vr_node_set_enabled(view->node, false);
	vr_node_set_parent(view->node, server->views_layer);
	vr_node_set_parent(surface->node, view->node);
	xdg_surface->data = view;

	view->placed_on = pick_output(server);
	if (server->config.mode == VT_MODE_KIOSK) {
		view_fill_output(view, true);
	}

	view->map.notify = toplevel_handle_map;
	wl_signal_add(&xdg_surface->events.map, &view->map);
	view->unmap.notify = toplevel_handle_unmap;
	wl_signal_add(&xdg_surface->events.unmap, &view->unmap);
	view->destroy.notify = toplevel_handle_destroy;
	wl_signal_add(&xdg_surface->events.destroy, &view->destroy);
	view->commit.notify = toplevel_handle_commit;
	wl_signal_add(&xdg_surface->surface->events.commit, &view->commit);
	view->new_popup.notify = handle_new_popup;
	wl_signal_add(&xdg_surface->events.new_popup, &view->new_popup);
	struct wlr_xdg_toplevel *toplevel = xdg_surface->toplevel;
	view->request_maximize.notify = toplevel_handle_request_maximize;
	wl_signal_add(&toplevel->events.request_maximize, &view->request_maximize);
	view->request_fullscreen.notify = toplevel_handle_request_fullscreen;
	wl_signal_add(&toplevel->events.request_fullscreen,
		&view->request_fullscreen);
	view->request_move.notify = toplevel_handle_request_move;
	wl_signal_add(&toplevel->events.request_move, &view->request_move);
	view->request_resize.notify = toplevel_handle_request_resize;
	wl_signal_add(&toplevel->events.request_resize, &view->request_resize);
	wl_list_insert(&server->views, &view->link);
}

void vt_view_handle_new_xdg_surface(struct wl_listener *listener, void *data) {
	struct vt_server *server =
		wl_container_of(listener, server, new_xdg_surface);
	struct wlr_xdg_surface *xdg_surface = data;
	if (xdg_surface->role == WLR_XDG_SURFACE_ROLE_TOPLEVEL) {
		toplevel_create(server, xdg_surface);
	} else if (xdg_surface->role == WLR_XDG_SURFACE_ROLE_POPUP) {
		popup_create(server, xdg_surface);
	}
}
