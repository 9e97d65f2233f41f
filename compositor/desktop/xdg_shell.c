/*
 * xdg-shell: xdg toplevels (windows of view.c's policy, through the
 * vt_view_impl at the end of this file) and xdg popups, a window's or a
 * layer surface's.
 *
 * Tree: a popup's node (its surface's own) hangs inside its toplevel's
 * container node, above the surface, or inside its layer surface's
 * container (layer_shell.c), kept on that output.
 *
 * Keyboard: a popup that takes a grab (xdg_popup.grab) takes the
 * keyboard while it is mapped; when the grab ends the keyboard goes back
 * to the window, or to the layer surface whose menu it was (see view.c's
 * popup grabs for the grab itself).
 */
#include <stdlib.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/log.h>

#include "desktop/decoration.h"
#include "desktop/layer_shell.h"
#include "desktop/session_lock.h"
#include "desktop/surface.h"
#include "desktop/view.h"
#include "desktop/xdg_shell.h"
#include "output/output.h"
#include "protocols/protocols.h"
#include "server.h"

/* ---- xdg toplevels ------------------------------------------------------ */

static void toplevel_handle_map(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, map);
	vt_view_map(view);
}

static void toplevel_handle_unmap(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, unmap);
	vt_view_unmap(view);
}

static void toplevel_handle_commit(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, commit);
	vt_view_committed(view);
}

/* xdg_toplevel.move and resize: honoured for a button press of the
 * pointer focused on the window, or a touch point down on it (the serial
 * says which); that point then drives the grab. */
static void begin_client_grab(struct vt_view *view, uint32_t serial,
		enum vt_grab_mode mode, uint32_t edges) {
	struct vt_server *server = view->server;
	struct wlr_touch_point *point = NULL;
	if (wlr_seat_validate_pointer_grab_serial(server->seat,
				view->xdg_surface->surface, serial)) {
		vt_view_begin_grab(view, mode, edges, false);
	} else if (wlr_seat_validate_touch_grab_serial(server->seat,
					   view->xdg_surface->surface, serial, &point) &&
			point->touch_id == server->last_touch_id) {
		vt_view_begin_touch_grab(view, mode, edges, point->touch_id,
				server->last_touch_x, server->last_touch_y);
	}
}

static void toplevel_handle_request_move(struct wl_listener *listener,
		void *data) {
	struct vt_view *view = wl_container_of(listener, view, request_move);
	struct wlr_xdg_toplevel_move_event *event = data;
	begin_client_grab(view, event->serial, VT_GRAB_MOVE, 0);
}

static void toplevel_handle_request_resize(struct wl_listener *listener,
		void *data) {
	struct vt_view *view = wl_container_of(listener, view, request_resize);
	struct wlr_xdg_toplevel_resize_event *event = data;
	begin_client_grab(view, event->serial, VT_GRAB_RESIZE, event->edges);
}

/* xdg_toplevel.set_minimized: minimized as by the minimize binding. */
static void toplevel_handle_request_minimize(struct wl_listener *listener,
		void *data) {
	struct vt_view *view = wl_container_of(listener, view, request_minimize);
	vt_view_minimize(view);
}

static void toplevel_handle_request_maximize(struct wl_listener *listener,
		void *data) {
	struct vt_view *view = wl_container_of(listener, view, request_maximize);
	vt_view_request_fill(view, view->xdg_surface->toplevel->requested.maximized,
			false);
}

static void toplevel_handle_request_fullscreen(struct wl_listener *listener,
		void *data) {
	struct vt_view *view = wl_container_of(listener, view, request_fullscreen);
	vt_view_request_fill(view,
			view->xdg_surface->toplevel->requested.fullscreen, true);
}

static void toplevel_handle_set_title(struct wl_listener *listener,
		void *data) {
	struct vt_view *view = wl_container_of(listener, view, set_title);
	wl_signal_emit(&view->server->events.view_names, view);
	if (view->mapped) {
		vt_decoration_update(view);
	}
}

static void toplevel_handle_set_app_id(struct wl_listener *listener,
		void *data) {
	struct vt_view *view = wl_container_of(listener, view, set_app_id);
	wl_signal_emit(&view->server->events.view_names, view);
}

static void toplevel_handle_destroy(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, destroy);
	wl_list_remove(&view->map.link);
	wl_list_remove(&view->unmap.link);
	wl_list_remove(&view->destroy.link);
	wl_list_remove(&view->commit.link);
	wl_list_remove(&view->new_popup.link);
	wl_list_remove(&view->request_maximize.link);
	wl_list_remove(&view->request_fullscreen.link);
	wl_list_remove(&view->request_move.link);
	wl_list_remove(&view->request_resize.link);
	wl_list_remove(&view->set_title.link);
	wl_list_remove(&view->set_app_id.link);
	wl_list_remove(&view->request_minimize.link);
	/* listeners after this one (a decoration's) find no view */
	view->xdg_surface->data = NULL;
	vt_view_finish(view);
	free(view);
}

/* ---- popups ------------------------------------------------------------- */

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

/* A popup that took a grab maps: it gets the keyboard while the grab
 * lasts (unless the session is locked, the client is not the one an
 * input inhibitor lets through, or a layer surface with exclusive
 * interactivity holds the keyboard away from windows). */
static void popup_grab_focus(struct vt_view *view) {
	struct vt_server *server = view->server;
	struct wlr_xdg_popup *popup = view->xdg_surface->popup;
	struct wlr_xdg_popup_grab *grab = vt_popup_grab_active(server);
	struct wlr_surface *surface = view->xdg_surface->surface;
	if (popup->seat != server->seat || grab == NULL ||
			vt_session_locked(server) ||
			!vt_protocols_client_allowed(server,
					wl_resource_get_client(surface->resource)) ||
			(view->parent != NULL && vt_layers_keyboard_grabbed(server))) {
		return;
	}
	struct wlr_xdg_popup *p;
	wl_list_for_each(p, &grab->popups, grab_link) {
		if (p == popup) {
			vt_views_keyboard_enter(server, surface, true);
			return;
		}
	}
}

/* A popup that has the keyboard unmaps: the popup of the grab opened
 * last that is still mapped gets it. None: wlroots ends the grab just
 * after this (its last popup gone), and the grab's end gives the
 * keyboard back. */
static void popup_grab_unfocus(struct vt_view *view) {
	struct vt_server *server = view->server;
	struct wlr_xdg_popup_grab *grab = vt_popup_grab_active(server);
	if (grab == NULL ||
			server->seat->keyboard_state.focused_surface !=
					view->xdg_surface->surface) {
		return;
	}
	struct wlr_xdg_popup *p;
	wl_list_for_each(p, &grab->popups, grab_link) {
		if (p != view->xdg_surface->popup && p->base->mapped) {
			vt_views_keyboard_enter(server, p->base->surface, true);
			return;
		}
	}
}

void vt_view_handle_keyboard_grab_end(struct wl_listener *listener,
		void *data) {
	struct vt_server *server =
			wl_container_of(listener, server, keyboard_grab_end);
	if (vt_popup_grab_of(server, data) == NULL) {
		return;
	}
	/* Still on a popup of the grab (dismissed, or the last one
	 * unmapping), or on none (its surface went first): the keyboard
	 * goes back. A window that took the focus meanwhile keeps it. */
	struct wlr_surface *focused = server->seat->keyboard_state.focused_surface;
	struct wlr_xdg_surface *xdg_surface =
			focused != NULL && wlr_surface_is_xdg_surface(focused) ?
			wlr_xdg_surface_from_wlr_surface(focused) :
			NULL;
	if ((focused != NULL &&
				(xdg_surface == NULL ||
						xdg_surface->role != WLR_XDG_SURFACE_ROLE_POPUP)) ||
			vt_session_locked(server)) {
		return;
	}
	/* a layer surface's menu: back to that layer surface, if it takes
	 * the keyboard at all */
	struct wlr_surface *root =
			xdg_surface != NULL ? popup_root(xdg_surface) : NULL;
	if (root != NULL && vt_layers_focus_surface(server, root)) {
		return;
	}
	if (vt_layers_keyboard_grabbed(server)) {
		return; /* the exclusive layer surface keeps it */
	}
	if (server->focused_view != NULL && server->focused_view->mapped &&
			server->focused_view->surface != NULL) {
		vt_views_keyboard_enter(server, server->focused_view->surface, false);
	} else if (focused != NULL) {
		wlr_seat_keyboard_notify_clear_focus(server->seat);
	}
}

/* Where the popup's surface lies in its root's surface coordinates (its
 * toplevel's, or its layer surface's). */
static void popup_offset(struct wlr_xdg_popup *popup, double *x, double *y) {
	struct wlr_xdg_surface *parent =
			popup->parent != NULL && wlr_surface_is_xdg_surface(popup->parent) ?
			wlr_xdg_surface_from_wlr_surface(popup->parent) :
			NULL;
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
	popup_grab_focus(view);
	vt_server_schedule_update(view->server);
}

static void popup_handle_unmap(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, unmap);
	view->mapped = false;
	vr_node_set_enabled(view->node, false);
	popup_grab_unfocus(view);
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
	struct vt_surface *surface =
			vt_surface_from_wlr(view->xdg_surface->surface);
	if (surface != NULL) {
		vr_node_set_parent(surface->node, NULL);
	}
	vt_server_schedule_update(view->server);
	free(view);
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
	struct vt_view *toplevel = vt_view_toplevel_of(xdg_surface);
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
		struct wlr_box *layout_box = wlr_output_layout_get_box(
				toplevel->server->layout, vt_output_wlr(output));
		struct wlr_box box =
				layout_box != NULL ? *layout_box : (struct wlr_box){ 0 };
		int ox, oy;
		vt_view_surface_origin(toplevel, &ox, &oy);
		box.x -= ox;
		box.y -= oy;
		wlr_xdg_popup_unconstrain_from_box(xdg_surface->popup, &box);
	}

	popup_listen(view, xdg_surface);
}

static void handle_new_popup(struct wl_listener *listener, void *data) {
	/* Popups are created through new_xdg_surface; nothing to do here
	 * but keep the listener symmetrical for nested popups. */
}

/* ---- the xdg toplevel's vt_view_impl ----------------------------------- */

static void xdg_get_geometry(struct vt_view *view, struct wlr_box *geo) {
	wlr_xdg_surface_get_geometry(view->xdg_surface, geo);
}

static bool xdg_geometry_implicit(struct vt_view *view) {
	return wlr_box_empty(&view->xdg_surface->current.geometry);
}

static struct wlr_surface *xdg_surface_at(struct vt_view *view, double sx,
		double sy, double *sub_x, double *sub_y) {
	return wlr_xdg_surface_surface_at(view->xdg_surface, sx, sy, sub_x, sub_y);
}

static void xdg_for_each_surface(struct vt_view *view,
		void (*iterator)(struct wlr_surface *surface, int sx, int sy,
				void *data),
		void *data) {
	wlr_xdg_surface_for_each_surface(view->xdg_surface, iterator, data);
}

static void xdg_set_activated(struct vt_view *view, bool activated) {
	wlr_xdg_toplevel_set_activated(view->xdg_surface, activated);
}

static void xdg_set_size(struct vt_view *view, int width, int height) {
	wlr_xdg_toplevel_set_size(view->xdg_surface, (uint32_t)width,
			(uint32_t)height);
}

static void xdg_set_fill(struct vt_view *view, uint32_t fill, bool on) {
	if (fill & VT_FILL_FULLSCREEN) {
		wlr_xdg_toplevel_set_fullscreen(view->xdg_surface, on);
	}
	if (fill & VT_FILL_MAXIMIZED) {
		wlr_xdg_toplevel_set_maximized(view->xdg_surface, on);
	}
}

static uint32_t xdg_get_fill(struct vt_view *view, bool asked) {
	struct wlr_xdg_toplevel *toplevel = view->xdg_surface->toplevel;
	bool maximized =
			asked ? toplevel->scheduled.maximized : toplevel->current.maximized;
	bool fullscreen = asked ? toplevel->scheduled.fullscreen :
							  toplevel->current.fullscreen;
	return (maximized ? VT_FILL_MAXIMIZED : 0) |
			(fullscreen ? VT_FILL_FULLSCREEN : 0);
}

static void xdg_set_resizing(struct vt_view *view, bool resizing) {
	wlr_xdg_toplevel_set_resizing(view->xdg_surface, resizing);
}

static void xdg_close(struct vt_view *view) {
	wlr_xdg_toplevel_send_close(view->xdg_surface);
}

static const char *xdg_get_title(struct vt_view *view) {
	return view->xdg_surface->toplevel->title;
}

static const char *xdg_get_app_id(struct vt_view *view) {
	return view->xdg_surface->toplevel->app_id;
}

static const struct vt_view_impl xdg_impl = {
	.get_geometry = xdg_get_geometry,
	.geometry_implicit = xdg_geometry_implicit,
	.surface_at = xdg_surface_at,
	.for_each_surface = xdg_for_each_surface,
	.set_activated = xdg_set_activated,
	.set_size = xdg_set_size,
	.set_fill = xdg_set_fill,
	.get_fill = xdg_get_fill,
	.set_resizing = xdg_set_resizing,
	.close = xdg_close,
	.get_title = xdg_get_title,
	.get_app_id = xdg_get_app_id,
};

static void toplevel_create(struct vt_server *server,
		struct wlr_xdg_surface *xdg_surface) {
	struct vt_surface *surface = vt_surface_from_wlr(xdg_surface->surface);
	struct vt_view *view = calloc(1, sizeof(*view));
	if (view == NULL || surface == NULL) {
		free(view);
		wl_client_post_no_memory(wl_resource_get_client(xdg_surface->resource));
		return;
	}
	view->server = server;
	view->kind = VT_VIEW_TOPLEVEL;
	view->impl = &xdg_impl;
	view->surface = xdg_surface->surface;
	view->xdg_surface = xdg_surface;
	view->node = vr_node_create(server->tree);
	if (view->node == NULL) {
		free(view);
		wl_client_post_no_memory(wl_resource_get_client(xdg_surface->resource));
		return;
	}
	vr_node_set_enabled(view->node, false);
	vr_node_set_parent(view->node, server->views_layer);
	vr_node_set_parent(surface->node, view->node);
	xdg_surface->data = view;

	view->placed_on = vt_views_placement_output(server);
	if (server->config.mode == VT_MODE_KIOSK) {
		/* kiosk windows fill their output, whatever is asked */
		vt_view_request_fill(view, true, true);
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
	view->set_title.notify = toplevel_handle_set_title;
	wl_signal_add(&toplevel->events.set_title, &view->set_title);
	view->set_app_id.notify = toplevel_handle_set_app_id;
	wl_signal_add(&toplevel->events.set_app_id, &view->set_app_id);
	view->request_minimize.notify = toplevel_handle_request_minimize;
	wl_signal_add(&toplevel->events.request_minimize, &view->request_minimize);
	wl_list_insert(&server->views, &view->link);
	/* a KDE server-decoration made before the role */
	wl_signal_emit(&server->events.new_xdg_toplevel, view);
	/* maximized or fullscreen asked for before the first commit (mpv
	 * --window-maximized): wlroots' signal came before the view */
	if (server->config.mode == VT_MODE_DESKTOP &&
			(toplevel->requested.maximized || toplevel->requested.fullscreen)) {
		vt_view_request_fill(view, true, toplevel->requested.fullscreen);
	}
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
