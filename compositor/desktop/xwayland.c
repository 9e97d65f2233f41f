/*
 * X11 clients through Xwayland (wlroots' wlr_xwayland).
 *
 * vitrail offers an X display from the start and exports it as DISPLAY;
 * wlroots starts Xwayland when the first X client connects (lazy). Each
 * X window is a struct xwayland_view whose vt_view has the X11
 * vt_view_impl below, decided at every map:
 *
 * - managed windows are toplevels of view.c's policy like xdg ones: in
 *   server->views while mapped, placed inside their output (desktop:
 *   centred and cascaded at the size the client picked; kiosk, maximize
 *   and fullscreen: filling it), focused on map and click (the X focus
 *   and stacking follow: wlr_xwayland_surface_activate and restack),
 *   except those of ICCCM's "No Input" model, which are only raised.
 *   In desktop mode they get vitrail's decorations (decoration.c), as an
 *   X window manager would frame them, unless the window's
 *   _MOTIF_WM_HINTS ask for none (wlroots' `decorations`, followed when
 *   they change) or the configuration says `decorations client`.
 *   X's idea of where a window is always matches vitrail's (every move
 *   is a ConfigureNotify), so the client's own coordinates, and those of
 *   its menus, are layout coordinates.
 * - override-redirect windows (menus, tooltips, drag icons) place
 *   themselves: drawn at their X coordinates in a layer above the
 *   windows (below top and overlay layer surfaces), the latest mapped
 *   topmost, and take pointer input there; one that wants focus
 *   (wlr_xwayland_or_surface_wants_focus) gets the keyboard until it
 *   unmaps.
 *
 * Configures are coalesced: what vitrail tells an X window (its place and
 * size) is sent once per event-loop turn, the last one, at a 1 ms timer
 * (x_configure). wlroots 0.15 flushes the X connection with every
 * configure, blocking while Xwayland is itself blocked writing to
 * vitrail: 3,000 ConfigureWindow requests of one client, each answered,
 * froze every client for seconds.
 *
 * Tree: each X window owns a container node (in the views layer or the
 * override-redirect layer) at the origin of its surface; the surface's
 * node (surface.c) lives inside it while the window is mapped.
 */
#include <stdlib.h>
#include <unistd.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/util/log.h>
#include <wlr/xwayland.h>
#include <xcb/xproto.h>

#include "desktop/decoration.h"
#include "desktop/session_lock.h"
#include "desktop/surface.h"
#include "desktop/view.h"
#include "desktop/xwayland.h"
#include "protocols/protocols.h"
#include "server.h"

struct vt_xwayland {
	struct vt_server *server;
	struct wlr_xwayland *wlr;
	/* override-redirect windows, above the views layer */
	struct vr_node *unmanaged_layer;
	struct wl_list unmanaged; /* xwayland_view::unmanaged_link, top first */
	struct wl_listener ready;
	struct wl_listener new_surface;
};

struct xwayland_view {
	struct vt_view view;
	struct vt_xwayland *xwayland;
	struct wlr_xwayland_surface *xsurface;
	/* mapped as an override-redirect window (not a view of the policy) */
	bool unmanaged;
	struct wl_list unmanaged_link; /* vt_xwayland::unmanaged, mapped */
	uint32_t fill; /* enum vt_view_fill: what vitrail last set */
	/* the client's own size, for leaving a fill state */
	int natural_width, natural_height;
	/* the configure to send at the timer (x_configure), or the last
	 * one sent (told): X's own geometry lags behind what vitrail sent
	 * until its ConfigureNotify comes back */
	struct wl_event_source *configure_timer; /* made by the first */
	bool configure_pending, told;
	int16_t cfg_x, cfg_y;
	uint16_t cfg_width, cfg_height;

	struct wl_listener request_configure;
	struct wl_listener request_activate;
	struct wl_listener set_geometry;
	struct wl_listener set_decorations;
};

static struct xwayland_view *xwayland_view(struct vt_view *view) {
	return (struct xwayland_view *)view;
}

/* A managed window is framed by vitrail (`decorations server`, the
 * default) unless its _MOTIF_WM_HINTS ask for no border or no title (it
 * draws its own, or a splash). */
static bool x_wants_frame(struct vt_view *view) {
	struct wlr_xwayland_surface *xsurface = xwayland_view(view)->xsurface;
	return view->server->config.server_decorations &&
			xsurface->decorations == WLR_XWAYLAND_SURFACE_DECORATIONS_ALL;
}

/* ---- vt_view_impl ------------------------------------------------------- */

static void x_get_geometry(struct vt_view *view, struct wlr_box *geo) {
	struct wlr_xwayland_surface *xsurface = xwayland_view(view)->xsurface;
	*geo = (struct wlr_box){ 0, 0, xsurface->width, xsurface->height };
	if (view->surface != NULL && view->surface->current.width > 0) {
		/* what it shows, as an xdg window's committed geometry */
		geo->width = view->surface->current.width;
		geo->height = view->surface->current.height;
	}
}

static struct wlr_surface *x_surface_at(struct vt_view *view, double sx,
		double sy, double *sub_x, double *sub_y) {
	if (view->surface == NULL) {
		return NULL;
	}
	return wlr_surface_surface_at(view->surface, sx, sy, sub_x, sub_y);
}

static void x_for_each_surface(struct vt_view *view,
		void (*iterator)(struct wlr_surface *surface, int sx, int sy,
				void *data),
		void *data) {
	if (view->surface != NULL) {
		wlr_surface_for_each_surface(view->surface, iterator, data);
	}
}

static void x_raised(struct vt_view *view) {
	/* X's stacking order follows vitrail's */
	wlr_xwayland_surface_restack(xwayland_view(view)->xsurface, NULL,
			XCB_STACK_MODE_ABOVE);
}

static void x_set_activated(struct vt_view *view, bool activated) {
	wlr_xwayland_surface_activate(xwayland_view(view)->xsurface, activated);
	if (activated) {
		x_raised(view);
	}
}

static void configure_send(struct xwayland_view *xv) {
	xv->configure_pending = false;
	wlr_xwayland_surface_configure(xv->xsurface, xv->cfg_x, xv->cfg_y,
			xv->cfg_width, xv->cfg_height);
}

static int configure_handle_timer(void *data) {
	configure_send(data);
	return 0;
}

/* Tell the X window its place and size: the last of this event-loop turn
 * goes at a timer of 1 ms. A timer, not an idle: the flush inside the
 * configure may read X events into xcb's queue (while Xwayland's socket is
 * full), and the loop's check of wlroots' X connection, which takes them,
 * runs after its sources are dispatched, never after its idles. */
static void x_configure(struct xwayland_view *xv, int16_t x, int16_t y,
		uint16_t width, uint16_t height) {
	xv->cfg_x = x;
	xv->cfg_y = y;
	xv->cfg_width = width;
	xv->cfg_height = height;
	xv->told = true;
	if (xv->configure_pending) {
		return;
	}
	if (xv->configure_timer == NULL) {
		xv->configure_timer = wl_event_loop_add_timer(
				wl_display_get_event_loop(xv->view.server->display),
				configure_handle_timer, xv);
	}
	if (xv->configure_timer == NULL) {
		configure_send(xv);
		return;
	}
	xv->configure_pending = true;
	wl_event_source_timer_update(xv->configure_timer, 1);
}

/* Send the coalesced configure now, if any. */
static void configure_flush(struct xwayland_view *xv) {
	if (xv->configure_pending) {
		wl_event_source_timer_update(xv->configure_timer, 0);
		configure_send(xv);
	}
}

/* The size the X window has been told last (sent or to send), its own
 * until vitrail told it one. Not X's current size: under a flood of
 * ConfigureRequests that lags behind, and a move told with it would undo
 * the last resize (the window ends at an old size). */
static void x_told_size(struct xwayland_view *xv, uint16_t *width,
		uint16_t *height) {
	*width = xv->told ? xv->cfg_width : xv->xsurface->width;
	*height = xv->told ? xv->cfg_height : xv->xsurface->height;
}

static uint16_t clamp_size(int size) {
	return size < 1 ? 1 : size > UINT16_MAX ? UINT16_MAX : (uint16_t)size;
}

static void x_set_size(struct vt_view *view, int width, int height) {
	struct xwayland_view *xv = xwayland_view(view);
	if (width <= 0 || height <= 0) {
		width = xv->natural_width;
		height = xv->natural_height;
	} else if (xv->fill == 0) {
		/* a resize: the size it goes back to after filling */
		xv->natural_width = width;
		xv->natural_height = height;
	}
	x_configure(xv, (int16_t)view->x, (int16_t)view->y, clamp_size(width),
			clamp_size(height));
}

static void x_moved(struct vt_view *view) {
	struct xwayland_view *xv = xwayland_view(view);
	int16_t x = xv->told ? xv->cfg_x : xv->xsurface->x;
	int16_t y = xv->told ? xv->cfg_y : xv->xsurface->y;
	if (x != view->x || y != view->y) {
		uint16_t width, height;
		x_told_size(xv, &width, &height);
		x_configure(xv, (int16_t)view->x, (int16_t)view->y, width, height);
	}
}

static void x_set_fill(struct vt_view *view, uint32_t fill, bool on) {
	struct xwayland_view *xv = xwayland_view(view);
	xv->fill = on ? xv->fill | fill : xv->fill & ~fill;
	if (fill & VT_FILL_FULLSCREEN) {
		wlr_xwayland_surface_set_fullscreen(xv->xsurface, on);
	}
	if (fill & VT_FILL_MAXIMIZED) {
		wlr_xwayland_surface_set_maximized(xv->xsurface, on);
	}
}

/* X has no acknowledgement of states: what vitrail set is what holds. */
static uint32_t x_get_fill(struct vt_view *view, bool asked) {
	return xwayland_view(view)->fill;
}

static void x_set_resizing(struct vt_view *view, bool resizing) {
	/* X11 has no such state */
}

static void x_close(struct vt_view *view) {
	wlr_xwayland_surface_close(xwayland_view(view)->xsurface);
}

/* ICCCM's "No Input" model (WM_HINTS input False, no WM_TAKE_FOCUS): a
 * window that never wants the keyboard (a clock, an on-screen keyboard). */
static bool x_takes_focus(struct vt_view *view) {
	return wlr_xwayland_icccm_input_model(xwayland_view(view)->xsurface) !=
			WLR_ICCCM_INPUT_MODEL_NONE;
}

static const char *x_get_title(struct vt_view *view) {
	return xwayland_view(view)->xsurface->title;
}

static const char *x_get_app_id(struct vt_view *view) {
	/* WM_CLASS's class, e.g. XLogo */
	return xwayland_view(view)->xsurface->class;
}

static const struct vt_view_impl x_impl = {
	.get_geometry = x_get_geometry,
	.surface_at = x_surface_at,
	.for_each_surface = x_for_each_surface,
	.set_activated = x_set_activated,
	.set_size = x_set_size,
	.moved = x_moved,
	.set_fill = x_set_fill,
	.get_fill = x_get_fill,
	.set_resizing = x_set_resizing,
	.close = x_close,
	.takes_focus = x_takes_focus,
	.raised = x_raised,
	.get_title = x_get_title,
	.get_app_id = x_get_app_id,
};

/* ---- keyboard focus of override-redirect windows ------------------------ */

static void keyboard_enter(struct vt_server *server,
		struct wlr_surface *surface) {
	struct wlr_keyboard *keyboard = wlr_seat_get_keyboard(server->seat);
	if (keyboard != NULL) {
		wlr_seat_keyboard_notify_enter(server->seat, surface,
				keyboard->keycodes, keyboard->num_keycodes,
				&keyboard->modifiers);
	} else {
		wlr_seat_keyboard_notify_enter(server->seat, surface, NULL, 0, NULL);
	}
}

/* ---- events ------------------------------------------------------------- */

static void handle_commit(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, commit);
	struct xwayland_view *xv = xwayland_view(view);
	if (xv->unmanaged) {
		vr_node_set_position(view->node, xv->xsurface->x, xv->xsurface->y);
		return;
	}
	vt_view_committed(view);
}

static void map_unmanaged(struct xwayland_view *xv) {
	struct vt_view *view = &xv->view;
	struct vt_server *server = view->server;
	struct wlr_xwayland_surface *xsurface = xv->xsurface;
	xv->unmanaged = true;
	vr_node_set_parent(view->node, xv->xwayland->unmanaged_layer);
	vr_node_raise_to_top(view->node);
	vr_node_set_position(view->node, xsurface->x, xsurface->y);
	vr_node_set_enabled(view->node, true);
	wl_list_insert(&xv->xwayland->unmanaged, &xv->unmanaged_link);
	if (wlr_xwayland_or_surface_wants_focus(xsurface) &&
			!vt_session_locked(server) &&
			vt_protocols_client_allowed(server,
					wl_resource_get_client(view->surface->resource))) {
		keyboard_enter(server, view->surface);
	}
	wl_signal_emit(&server->events.pointer_focus, NULL);
	vt_server_schedule_update(server);
}

static void handle_map(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, map);
	struct xwayland_view *xv = xwayland_view(view);
	struct vt_server *server = view->server;
	struct wlr_xwayland_surface *xsurface = xv->xsurface;
	struct vt_surface *surface = vt_surface_from_wlr(xsurface->surface);
	if (surface == NULL) {
		return;
	}
	/* placed from what it was told last */
	configure_flush(xv);
	view->surface = xsurface->surface;
	vr_node_set_parent(surface->node, view->node);
	view->commit.notify = handle_commit;
	wl_signal_add(&xsurface->surface->events.commit, &view->commit);
	if (xsurface->override_redirect) {
		map_unmanaged(xv);
		return;
	}
	xv->unmanaged = false;
	xv->natural_width = xsurface->width;
	xv->natural_height = xsurface->height;
	vr_node_set_parent(view->node, server->views_layer);
	view->placed_on = vt_views_placement_output(server);
	wl_list_insert(&server->views, &view->link);
	view->x = xsurface->x;
	view->y = xsurface->y;
	/* framed unless it asks not to be (before it is placed: the frame
	 * stays inside the output too) */
	vt_view_set_server_decorations(view, x_wants_frame(view));
	/* kiosk windows fill their output, and so do those asking for it
	 * before they map */
	if (server->config.mode == VT_MODE_KIOSK || xsurface->fullscreen) {
		vt_view_request_fill(view, true, true);
	} else if (xsurface->maximized_horz && xsurface->maximized_vert) {
		vt_view_request_fill(view, true, false);
	}
	vt_view_map(view);
}

static void handle_unmap(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, unmap);
	struct xwayland_view *xv = xwayland_view(view);
	struct vt_server *server = view->server;
	if (view->surface == NULL) {
		return; /* its map found no surface */
	}
	if (xv->unmanaged) {
		wl_list_remove(&xv->unmanaged_link);
		vr_node_set_enabled(view->node, false);
		if (server->seat->keyboard_state.focused_surface == view->surface) {
			/* the keyboard back to the focused window */
			if (server->focused_view != NULL && server->focused_view->mapped) {
				vt_view_focus(server->focused_view,
						server->focused_view->surface);
			} else {
				wlr_seat_keyboard_notify_clear_focus(server->seat);
			}
		}
		wl_signal_emit(&server->events.pointer_focus, NULL);
		vt_server_schedule_update(server);
	} else {
		vt_view_unmap(view);
		wl_list_remove(&view->link);
		wl_list_init(&view->link);
		view->placed_on = NULL;
	}
	wl_list_remove(&view->commit.link);
	/* NULL when the surface is being destroyed (its node went with it) */
	struct vt_surface *surface = vt_surface_from_wlr(view->surface);
	if (surface != NULL) {
		vr_node_set_parent(surface->node, NULL);
	}
	view->surface = NULL;
	xv->unmanaged = false;
	xv->fill = 0;
	/* mapped again, it starts from its own geometry */
	configure_flush(xv);
	xv->told = false;
}

static void handle_request_configure(struct wl_listener *listener, void *data) {
	struct xwayland_view *xv = wl_container_of(listener, xv, request_configure);
	struct vt_view *view = &xv->view;
	struct wlr_xwayland_surface_configure_event *event = data;
	if (!view->mapped || xv->unmanaged) {
		/* not placed yet: as asked (the map places it) */
		x_configure(xv, event->x, event->y, event->width, event->height);
		xv->natural_width = event->width;
		xv->natural_height = event->height;
		return;
	}
	if (view->server->config.mode == VT_MODE_KIOSK || xv->fill != 0) {
		/* it fills its output: told so again */
		uint16_t width, height;
		x_told_size(xv, &width, &height);
		x_configure(xv, (int16_t)view->x, (int16_t)view->y, width, height);
		return;
	}
	/* a floating window moves and sizes itself */
	xv->natural_width = event->width;
	xv->natural_height = event->height;
	view->x = event->x;
	view->y = event->y;
	x_set_size(view, event->width, event->height);
	vt_view_move(view, event->x, event->y);
}

static void handle_set_geometry(struct wl_listener *listener, void *data) {
	struct xwayland_view *xv = wl_container_of(listener, xv, set_geometry);
	if (xv->unmanaged && xv->view.surface != NULL) {
		/* an override-redirect window moved itself */
		vr_node_set_position(xv->view.node, xv->xsurface->x, xv->xsurface->y);
		wl_signal_emit(&xv->view.server->events.pointer_focus, NULL);
		vt_server_schedule_update(xv->view.server);
	}
}

static bool managed_mapped(struct vt_view *view) {
	return view->mapped && !xwayland_view(view)->unmanaged;
}

static void handle_set_decorations(struct wl_listener *listener, void *data) {
	struct xwayland_view *xv = wl_container_of(listener, xv, set_decorations);
	if (managed_mapped(&xv->view)) {
		vt_view_set_server_decorations(&xv->view, x_wants_frame(&xv->view));
	}
	/* not mapped: its map looks */
}

static void handle_request_fullscreen(struct wl_listener *listener,
		void *data) {
	struct vt_view *view = wl_container_of(listener, view, request_fullscreen);
	struct wlr_xwayland_surface *xsurface = xwayland_view(view)->xsurface;
	if (managed_mapped(view)) {
		vt_view_request_fill(view, xsurface->fullscreen, true);
	}
	/* not mapped: its map looks at the state asked for */
}

static void handle_request_maximize(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, request_maximize);
	struct wlr_xwayland_surface *xsurface = xwayland_view(view)->xsurface;
	if (managed_mapped(view)) {
		vt_view_request_fill(view,
				xsurface->maximized_horz && xsurface->maximized_vert, false);
	}
}

static void handle_request_activate(struct wl_listener *listener, void *data) {
	struct xwayland_view *xv = wl_container_of(listener, xv, request_activate);
	if (managed_mapped(&xv->view)) {
		vt_view_focus(&xv->view, xv->view.surface);
		wl_signal_emit(&xv->view.server->events.pointer_focus, NULL);
	}
}

/* _NET_WM_MOVERESIZE: honoured while a button is held on the window (X
 * clients send no serial). */
static bool grab_allowed(struct vt_view *view) {
	struct wlr_seat *seat = view->server->seat;
	return managed_mapped(view) && seat->pointer_state.button_count > 0 &&
			seat->pointer_state.focused_surface == view->surface;
}

static void handle_request_move(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, request_move);
	if (grab_allowed(view)) {
		vt_view_begin_grab(view, VT_GRAB_MOVE, 0, false);
	}
}

static void handle_request_resize(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, request_resize);
	struct wlr_xwayland_resize_event *event = data;
	if (grab_allowed(view)) {
		vt_view_begin_grab(view, VT_GRAB_RESIZE, event->edges, false);
	}
}

static void handle_set_title(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, set_title);
	wl_signal_emit(&view->server->events.view_names, view);
	if (managed_mapped(view)) {
		vt_decoration_update(view); /* the title bar's */
	}
}

static void handle_set_class(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, set_app_id);
	wl_signal_emit(&view->server->events.view_names, view);
}

static void handle_destroy(struct wl_listener *listener, void *data) {
	struct vt_view *view = wl_container_of(listener, view, destroy);
	struct xwayland_view *xv = xwayland_view(view);
	if (view->surface != NULL) {
		/* wlroots unmaps first; in case it did not */
		handle_unmap(&view->unmap, NULL);
	}
	wl_list_remove(&view->map.link);
	wl_list_remove(&view->unmap.link);
	wl_list_remove(&view->destroy.link);
	if (xv->configure_timer != NULL) {
		wl_event_source_remove(xv->configure_timer);
	}
	wl_list_remove(&xv->request_configure.link);
	wl_list_remove(&xv->request_activate.link);
	wl_list_remove(&xv->set_geometry.link);
	wl_list_remove(&xv->set_decorations.link);
	wl_list_remove(&view->request_fullscreen.link);
	wl_list_remove(&view->request_maximize.link);
	wl_list_remove(&view->request_move.link);
	wl_list_remove(&view->request_resize.link);
	wl_list_remove(&view->set_title.link);
	wl_list_remove(&view->set_app_id.link);
	xv->xsurface->data = NULL;
	vt_view_finish(view);
	free(xv);
}

static void handle_new_surface(struct wl_listener *listener, void *data) {
	struct vt_xwayland *xwayland =
			wl_container_of(listener, xwayland, new_surface);
	struct vt_server *server = xwayland->server;
	struct wlr_xwayland_surface *xsurface = data;
	struct xwayland_view *xv = calloc(1, sizeof(*xv));
	if (xv == NULL) {
		wlr_log(WLR_ERROR, "out of memory for X11 window 0x%x",
				xsurface->window_id);
		return;
	}
	struct vt_view *view = &xv->view;
	view->node = vr_node_create(server->tree);
	if (view->node == NULL) {
		wlr_log(WLR_ERROR, "out of memory for X11 window 0x%x",
				xsurface->window_id);
		free(xv);
		return;
	}
	vr_node_set_enabled(view->node, false);
	view->server = server;
	view->kind = VT_VIEW_TOPLEVEL;
	view->impl = &x_impl;
	wl_list_init(&view->link);
	wl_list_init(&xv->unmanaged_link);
	xv->xwayland = xwayland;
	xv->xsurface = xsurface;
	xv->natural_width = xsurface->width;
	xv->natural_height = xsurface->height;
	xsurface->data = xv;

	view->map.notify = handle_map;
	wl_signal_add(&xsurface->events.map, &view->map);
	view->unmap.notify = handle_unmap;
	wl_signal_add(&xsurface->events.unmap, &view->unmap);
	view->destroy.notify = handle_destroy;
	wl_signal_add(&xsurface->events.destroy, &view->destroy);
	xv->request_configure.notify = handle_request_configure;
	wl_signal_add(&xsurface->events.request_configure, &xv->request_configure);
	xv->request_activate.notify = handle_request_activate;
	wl_signal_add(&xsurface->events.request_activate, &xv->request_activate);
	xv->set_geometry.notify = handle_set_geometry;
	wl_signal_add(&xsurface->events.set_geometry, &xv->set_geometry);
	xv->set_decorations.notify = handle_set_decorations;
	wl_signal_add(&xsurface->events.set_decorations, &xv->set_decorations);
	view->request_fullscreen.notify = handle_request_fullscreen;
	wl_signal_add(&xsurface->events.request_fullscreen,
			&view->request_fullscreen);
	view->request_maximize.notify = handle_request_maximize;
	wl_signal_add(&xsurface->events.request_maximize, &view->request_maximize);
	view->request_move.notify = handle_request_move;
	wl_signal_add(&xsurface->events.request_move, &view->request_move);
	view->request_resize.notify = handle_request_resize;
	wl_signal_add(&xsurface->events.request_resize, &view->request_resize);
	view->set_title.notify = handle_set_title;
	wl_signal_add(&xsurface->events.set_title, &view->set_title);
	view->set_app_id.notify = handle_set_class;
	wl_signal_add(&xsurface->events.set_class, &view->set_app_id);
}

static void handle_ready(struct wl_listener *listener, void *data) {
	struct vt_xwayland *xwayland = wl_container_of(listener, xwayland, ready);
	wlr_log(WLR_INFO, "Xwayland is ready on DISPLAY=%s",
			xwayland->wlr->display_name);
}

/* ---- the server's part -------------------------------------------------- */

struct wlr_surface *vt_xwayland_unmanaged_at(struct vt_server *server,
		double lx, double ly, double *sx, double *sy) {
	struct vt_xwayland *xwayland = server->xwayland;
	if (xwayland == NULL) {
		return NULL;
	}
	struct xwayland_view *xv;
	wl_list_for_each(xv, &xwayland->unmanaged, unmanaged_link) {
		struct wlr_surface *surface = wlr_surface_surface_at(xv->view.surface,
				lx - xv->xsurface->x, ly - xv->xsurface->y, sx, sy);
		if (surface != NULL) {
			return surface;
		}
	}
	return NULL;
}

const char *vt_xwayland_display(struct vt_server *server) {
	return server->xwayland != NULL ? server->xwayland->wlr->display_name :
									  NULL;
}

bool vt_xwayland_init(struct vt_server *server) {
	/* wlroots runs $WLR_XWAYLAND, or the path it was built with */
	const char *path = getenv("WLR_XWAYLAND");
	if (path == NULL || path[0] == '\0') {
		path = "/usr/bin/Xwayland";
	}
	if (access(path, X_OK) != 0) {
		wlr_log(WLR_INFO,
				"no Xwayland at %s (Debian package xwayland): "
				"no X11 clients",
				path);
		return true;
	}
	struct vt_xwayland *xwayland = calloc(1, sizeof(*xwayland));
	if (xwayland == NULL) {
		return false;
	}
	xwayland->server = server;
	wl_list_init(&xwayland->unmanaged);
	xwayland->unmanaged_layer = vr_node_create(server->tree);
	if (xwayland->unmanaged_layer == NULL) {
		free(xwayland);
		return false;
	}
	vr_node_set_parent(xwayland->unmanaged_layer, vr_tree_root(server->tree));
	vr_node_place_above(xwayland->unmanaged_layer, server->views_layer);

	xwayland->wlr =
			wlr_xwayland_create(server->display, server->compositor, true);
	if (xwayland->wlr == NULL) {
		wlr_log(WLR_ERROR, "cannot offer an X display: no X11 clients");
		vr_node_destroy(xwayland->unmanaged_layer);
		free(xwayland);
		return true;
	}
	xwayland->ready.notify = handle_ready;
	wl_signal_add(&xwayland->wlr->events.ready, &xwayland->ready);
	xwayland->new_surface.notify = handle_new_surface;
	wl_signal_add(&xwayland->wlr->events.new_surface, &xwayland->new_surface);
	wlr_xwayland_set_seat(xwayland->wlr, server->seat);
	server->xwayland = xwayland;

	setenv("DISPLAY", xwayland->wlr->display_name, 1);
	wlr_log(WLR_INFO,
			"X11 clients: DISPLAY=%s (Xwayland starts with the "
			"first)",
			xwayland->wlr->display_name);
	return true;
}

void vt_xwayland_finish(struct vt_server *server) {
	struct vt_xwayland *xwayland = server->xwayland;
	if (xwayland == NULL) {
		return;
	}
	wl_list_remove(&xwayland->ready.link);
	wl_list_remove(&xwayland->new_surface.link);
	/* its windows unmap and go (their handlers still see xwayland) */
	wlr_xwayland_destroy(xwayland->wlr);
	vr_node_destroy(xwayland->unmanaged_layer);
	server->xwayland = NULL;
	free(xwayland);
}
