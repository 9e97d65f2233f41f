/*
 * Views: the window policy.
 *
 * Desktop mode: a new toplevel goes to the current output (the one last
 * chosen: server->current_output), or before one is chosen to the output
 * that has the fewest toplevels (ties: the first output), near the centre
 * and cascaded, at the size the client picks; maximize and fullscreen
 * requests fill the output. Kiosk mode: every toplevel fills its output,
 * the one with the fewest toplevels.
 *
 * Workspaces: each output shows one of its numbered workspaces; a
 * toplevel belongs to one workspace of the output it is placed on (the
 * one shown when it mapped). A toplevel on a workspace not shown, or
 * minimized, has its node disabled (not drawn), is not hit by the pointer
 * and enters no output; the keyboard focus is always on a shown one.
 *
 * Tree: each toplevel owns a container node in the views layer at the
 * origin of its main surface; the surface's node and its popups' nodes
 * live inside it, popups above.
 *
 * The policy is the same for X11 windows (xwayland.c): what differs per
 * kind of window goes through struct vt_view_impl: xdg toplevels'
 * (xdg_shell.c), X11 windows' (xwayland.c). Hit testing across windows,
 * layer surfaces and X11 menus is hit_test.c's.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/edges.h>
#include <wlr/util/log.h>

#include "desktop/decoration.h"
#include "desktop/kiosk.h"
#include "desktop/layer_shell.h"
#include "desktop/session_lock.h"
#include "desktop/surface.h"
#include "desktop/view.h"
#include "output/output.h"
#include "protocols/fractional_scale.h"
#include "protocols/protocols.h"
#include "protocols/xdg_dialog.h"
#include "server.h"

static struct wlr_box output_layout_box(struct vt_server *server,
		struct vt_output *output) {
	struct wlr_box *box =
			wlr_output_layout_get_box(server->layout, vt_output_wlr(output));
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

struct vt_output *vt_views_pick_output(struct vt_server *server) {
	struct vt_output *kiosk = vt_kiosk_output(server);
	if (kiosk != NULL) {
		return kiosk;
	}
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

struct vt_output *vt_views_placement_output(struct vt_server *server) {
	if (server->config.mode == VT_MODE_DESKTOP &&
			server->current_output != NULL) {
		return server->current_output;
	}
	return vt_views_pick_output(server);
}

/* Mapped and on the workspace its output shows (minimized or not). */
static bool view_on_shown_workspace(struct vt_view *view) {
	return view->kind == VT_VIEW_TOPLEVEL && view->mapped &&
			(view->placed_on == NULL ||
					view->workspace == vt_output_workspace(view->placed_on));
}

bool vt_view_visible(struct vt_view *view) {
	return view_on_shown_workspace(view) && !view->minimized;
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
		view->impl->for_each_surface(view, surface_send_leave, view->entered);
		wl_list_remove(&view->entered_destroy.link);
	}
	view->entered = output;
	if (output != NULL) {
		view->entered_destroy.notify = view_handle_entered_destroy;
		wl_signal_add(&output->events.destroy, &view->entered_destroy);
		view->impl->for_each_surface(view, surface_send_enter, output);
	}
}

static void view_update_entered(struct vt_view *view) {
	struct vt_output *output =
			vt_view_visible(view) ? vt_view_output(view) : NULL;
	view_set_entered(view, output != NULL ? vt_output_wlr(output) : NULL);
}

/* Place the view's node (its main surface) by the window geometry it has
 * now; input finds the surfaces there too (vt_view_surface_origin), not
 * by a geometry a subsurface's own commit changed since. */
static void view_update_position(struct vt_view *view) {
	struct wlr_box geo;
	view->impl->get_geometry(view, &geo);
	view->geo_x = geo.x;
	view->geo_y = geo.y;
	vr_node_set_position(view->node, view->x - geo.x, view->y - geo.y);
	if (view->impl->moved != NULL) {
		view->impl->moved(view);
	}
}

/* A mapped toplevel's node is enabled while it is shown; one that stops
 * being shown ends its grab, dismisses its popups and leaves its
 * output. */
static void view_update_visibility(struct vt_view *view) {
	if (view->kind != VT_VIEW_TOPLEVEL || !view->mapped) {
		return;
	}
	struct vt_server *server = view->server;
	bool visible = vt_view_visible(view);
	if (vr_node_enabled(view->node) == visible) {
		return;
	}
	vr_node_set_enabled(view->node, visible);
	if (!visible) {
		if (server->grab.view == view) {
			vt_grab_end(server);
		}
		/* its menus close (popup_done), grabs and all */
		struct wlr_xdg_popup *popup, *tmp;
		if (view->xdg_surface != NULL) {
			wl_list_for_each_safe(popup, tmp, &view->xdg_surface->popups,
					link) {
				wlr_xdg_popup_destroy(popup->base);
			}
		}
	}
	view_update_entered(view);
	if (view->fullscreen) {
		wl_signal_emit(&server->events.fullscreen_changed, NULL);
	}
	wl_signal_emit(&server->events.pointer_focus, NULL);
	vt_server_schedule_update(server);
}

/* A taskbar's handle follows (foreign_toplevel.c). */
static void view_emit_activated(struct vt_view *view, bool activated) {
	struct vt_view_activated_event event = {
		.view = view,
		.activated = activated,
	};
	wl_signal_emit(&view->server->events.view_activated, &event);
}

/* False for a window that never takes the keyboard (vt_view_impl's
 * takes_focus: an X11 window of ICCCM's "No Input" model). */
static bool view_takes_focus(struct vt_view *view) {
	return view->kind != VT_VIEW_TOPLEVEL || view->impl->takes_focus == NULL ||
			view->impl->takes_focus(view);
}

/* To the front of the stacking order (server->views) and of the tree. */
static void view_raise(struct vt_view *view) {
	wl_list_remove(&view->link);
	wl_list_insert(&view->server->views, &view->link);
	vr_node_raise_to_top(view->node);
}

/* No window has the keyboard focus (unless a lock or layer surface holds
 * it, it goes to none). */
static void views_clear_focus(struct vt_server *server) {
	struct vt_view *old = server->focused_view;
	if (old == NULL) {
		return;
	}
	old->impl->set_activated(old, false);
	view_emit_activated(old, false);
	server->focused_view = NULL;
	if (old->mapped) {
		vt_decoration_update(old); /* unfocused colours */
	}
	if (!vt_session_locked(server) && !vt_layers_keyboard_grabbed(server)) {
		wlr_seat_keyboard_notify_clear_focus(server->seat);
	}
	vt_server_schedule_update(server);
}

/* The keyboard to the front window shown on output (NULL: on any), or to
 * no window when none is. */
static void focus_front(struct vt_server *server, struct vt_output *output) {
	struct vt_view *view;
	wl_list_for_each(view, &server->views, link) {
		if (vt_view_visible(view) && view_takes_focus(view) &&
				(output == NULL || view->placed_on == output)) {
			vt_view_focus(view, view->surface);
			return;
		}
	}
	views_clear_focus(server);
}

/* The focused window is hidden: the front one shown on output gets the
 * keyboard instead. */
static void keep_focus_shown(struct vt_server *server,
		struct vt_output *output) {
	if (server->focused_view != NULL &&
			!vt_view_visible(server->focused_view)) {
		focus_front(server, output);
	}
}

/* Show workspace on output: its windows appear, the others' vanish. */
static void output_show_workspace(struct vt_server *server,
		struct vt_output *output, int workspace) {
	vt_output_set_workspace(output, workspace);
	struct vt_view *view;
	wl_list_for_each(view, &server->views, link) {
		if (view->placed_on == output) {
			view_update_visibility(view);
		}
	}
}

void vt_view_move(struct vt_view *view, int x, int y) {
	if (view->kind != VT_VIEW_TOPLEVEL) {
		return;
	}
	view->x = x;
	view->y = y;
	view_update_position(view);
	view_update_entered(view);
	wl_signal_emit(&view->server->events.view_output, view);
	wl_signal_emit(&view->server->events.pointer_focus, NULL);
	vt_server_schedule_update(view->server);
}

/* Ask the client to fill (on) or stop filling (off) its output as fill
 * says; a taskbar's handle tells what was asked at once. */
static void view_set_fill(struct vt_view *view, uint32_t fill, bool on) {
	view->impl->set_fill(view, fill, on);
	wl_signal_emit(&view->server->events.view_fill, view);
}

void vt_view_surface_origin(struct vt_view *view, int *x, int *y) {
	*x = view->x - view->geo_x;
	*y = view->y - view->geo_y;
}

static void view_fill_output(struct vt_view *view, bool fullscreen) {
	if (view->placed_on == NULL) {
		return;
	}
	/* fullscreen covers the whole output, maximized what layer
	 * surfaces' exclusive zones leave of it, decorations included */
	struct wlr_box box = fullscreen ?
			output_layout_box(view->server, view->placed_on) :
			vt_output_usable_box(view->placed_on);
	struct vt_extents e = vt_view_extents(view, fullscreen);
	if (fullscreen) {
		vt_kiosk_fill_box(view->server, &box);
	}
	int width = box.width - e.left - e.right;
	int height = box.height - e.top - e.bottom;
	if (view->impl->get_fill(view, true) == 0 && view->mapped) {
		/* leaving its own size: where to put it back */
		struct wlr_box geo;
		view->impl->get_geometry(view, &geo);
		view->restore = (struct wlr_box){
			.x = view->x,
			.y = view->y,
			.width = geo.width,
			.height = geo.height,
		};
		view->restore_output = view->placed_on;
	}
	view->x = box.x + e.left;
	view->y = box.y + e.top;
	view_set_fill(view, fullscreen ? VT_FILL_FULLSCREEN : VT_FILL_MAXIMIZED,
			true);
	view->impl->set_size(view, width > 1 ? width : 1, height > 1 ? height : 1);
}

/* The (x, y) that keeps a window of geometry size w x h with decorations
 * e inside box as far as its size allows, moved as little as can be;
 * the top-left corner wins when it is too big. */
static void keep_inside(struct wlr_box box, struct vt_extents e, int w, int h,
		int *x, int *y) {
	int fw = w + e.left + e.right, fh = h + e.top + e.bottom;
	int fx = *x - e.left, fy = *y - e.top;
	if (fx + fw > box.x + box.width) {
		fx = box.x + box.width - fw;
	}
	if (fy + fh > box.y + box.height) {
		fy = box.y + box.height - fh;
	}
	fx = fx < box.x ? box.x : fx;
	fy = fy < box.y ? box.y : fy;
	*x = fx + e.left;
	*y = fy + e.top;
}

/* surface gets the keyboard, past any seat grab (past_grab) or through
 * it. */
void vt_views_keyboard_enter(struct vt_server *server,
		struct wlr_surface *surface, bool past_grab) {
	struct wlr_seat *seat = server->seat;
	struct wlr_keyboard *keyboard = wlr_seat_get_keyboard(seat);
	uint32_t *keycodes = keyboard != NULL ? keyboard->keycodes : NULL;
	size_t num_keycodes = keyboard != NULL ? keyboard->num_keycodes : 0;
	struct wlr_keyboard_modifiers *modifiers =
			keyboard != NULL ? &keyboard->modifiers : NULL;
	if (past_grab) {
		wlr_seat_keyboard_enter(seat, surface, keycodes, num_keycodes,
				modifiers);
	} else {
		wlr_seat_keyboard_notify_enter(seat, surface, keycodes, num_keycodes,
				modifiers);
	}
}

static void popup_grab_end_unless(struct vt_server *server,
		struct vt_view *view);

void vt_view_focus(struct vt_view *view, struct wlr_surface *surface) {
	struct vt_server *server = view->server;
	struct wlr_seat *seat = server->seat;
	/* a window with a modal dialog mapped: the dialog takes the focus
	 * (its own modal dialog in turn; a parent loop ends) */
	for (int depth = 0; depth < 8 && view->kind == VT_VIEW_TOPLEVEL &&
			view->xdg_surface != NULL;
			depth++) {
		struct wlr_xdg_surface *modal =
				vt_xdg_dialog_modal_of(view->server, view->xdg_surface);
		struct vt_view *dialog = modal != NULL ? modal->data : NULL;
		if (dialog == NULL || dialog == view) {
			break;
		}
		view = dialog;
		surface = dialog->surface;
	}
	/* the lock surfaces, or the inhibitor's client, keep the focus */
	if (surface == NULL || vt_session_locked(server) ||
			!vt_protocols_client_allowed(server,
					wl_resource_get_client(surface->resource))) {
		return;
	}
	if (view->kind == VT_VIEW_TOPLEVEL && view->mapped &&
			!vt_view_visible(view)) {
		/* a minimized window comes back, a hidden workspace shows */
		if (view->minimized) {
			view->minimized = false;
			wl_signal_emit(&server->events.view_minimized, view);
		}
		if (view->placed_on != NULL &&
				view->workspace != vt_output_workspace(view->placed_on)) {
			output_show_workspace(server, view->placed_on, view->workspace);
		}
		view_update_visibility(view);
	}
	if (!view_takes_focus(view)) {
		/* it never takes the keyboard: raised, the focus stays */
		view_raise(view);
		if (view->impl->raised != NULL) {
			view->impl->raised(view);
		}
		vt_server_schedule_update(server);
		return;
	}
	struct wlr_surface *prev = seat->keyboard_state.focused_surface;
	if (server->focused_view != NULL && server->focused_view != view) {
		struct vt_view *old = server->focused_view;
		old->impl->set_activated(old, false);
		view_emit_activated(old, false);
	}
	struct vt_view *unfocused = server->focused_view;
	server->focused_view = view;
	/* another window takes the focus: the menus open elsewhere close
	 * (popup_done); the grab's end gives view the keyboard
	 * (vt_view_handle_keyboard_grab_end) */
	popup_grab_end_unless(server, view);
	if (unfocused != NULL && unfocused != view && unfocused->mapped) {
		vt_decoration_update(unfocused);
	}
	if (view->mapped) {
		vt_decoration_update(view);
	}
	view_raise(view);
	view->impl->set_activated(view, true);
	view_emit_activated(view, true);
	if (prev == surface) {
		return;
	}
	if (vt_layers_keyboard_grabbed(server)) {
		/* a layer surface with exclusive interactivity keeps the
		 * keyboard; the window gets it when that one lets go */
		vt_server_schedule_update(server);
		return;
	}
	vt_views_keyboard_enter(server, surface, false);
	vt_server_schedule_update(server);
}

/* ---- outputs coming and going ------------------------------------------- */

/* A window that fills its output follows the output's size. */
static bool view_fills_output(struct vt_view *view) {
	return view->server->config.mode == VT_MODE_KIOSK ||
			view->impl->get_fill(view, false) != 0;
}

/* Put view on output at the offset it had on the box `from`, kept inside
 * the output as far as its size allows. */
static void view_move_to_output(struct vt_view *view, struct vt_output *output,
		struct wlr_box from) {
	view->placed_on = output;
	/* on the workspace of its number there */
	view_update_visibility(view);
	if (view_fills_output(view)) {
		view_fill_output(view,
				(view->impl->get_fill(view, false) & VT_FILL_FULLSCREEN) ||
						view->server->config.mode == VT_MODE_KIOSK);
		vt_view_move(view, view->x, view->y);
		return;
	}
	struct wlr_box to = vt_output_usable_box(output);
	struct wlr_box geo;
	view->impl->get_geometry(view, &geo);
	int x = to.x + view->x - from.x, y = to.y + view->y - from.y;
	keep_inside(to, vt_view_extents(view, false), geo.width, geo.height, &x,
			&y);
	vt_view_move(view, x, y);
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
		view->impl->get_geometry(view, &geo);
		int x = view->x, y = view->y;
		keep_inside(usable, vt_view_extents(view, false), geo.width, geo.height,
				&x, &y);
		if (x != view->x || y != view->y) {
			vt_view_move(view, x, y);
		}
	}
}

void vt_views_output_gone(struct vt_server *server, struct vt_output *gone,
		struct wlr_box box) {
	if (server->current_output == gone) {
		server->current_output = NULL;
	}
	struct vt_view *view;
	wl_list_for_each(view, &server->views, link) {
		if (view->restore_output == gone) {
			view->restore_output = NULL;
			view->restore.width = 0;
		}
		if (view->placed_on != gone) {
			continue;
		}
		/* gone is out of server->outputs: the others share its windows,
		 * each to the one with the fewest; none left: placed nowhere
		 * until an output comes (vt_views_outputs_moved) */
		view->placed_on = NULL;
		struct vt_output *output = vt_views_pick_output(server);
		if (output != NULL) {
			/* shown there, it is shown here: on the workspace this
			 * one shows; the others keep their number */
			if (view->workspace == vt_output_workspace(gone)) {
				view->workspace = vt_output_workspace(output);
			}
			view_move_to_output(view, output, box);
		} else {
			view_update_visibility(view);
		}
	}
	keep_focus_shown(server, NULL);
}

void vt_views_output_moved(struct vt_server *server, struct vt_output *output,
		struct wlr_box from) {
	struct vt_view *view;
	wl_list_for_each(view, &server->views, link) {
		if (view->placed_on == output ||
				(output == NULL && view->placed_on == NULL)) {
			struct vt_output *to =
					output != NULL ? output : vt_views_pick_output(server);
			if (to != NULL && output == NULL) {
				/* it was shown (on no output): it stays shown */
				view->workspace = vt_output_workspace(to);
			}
			if (to != NULL) {
				view_move_to_output(view, to, from);
			}
		}
	}
	keep_focus_shown(server, NULL);
}

void vt_views_handle_output_gone(struct wl_listener *listener, void *data) {
	struct vt_server *server =
			wl_container_of(listener, server, views_output_gone);
	struct vt_output_change_event *event = data;
	vt_views_output_gone(server, event->output, event->box);
}

void vt_views_handle_output_moved(struct wl_listener *listener, void *data) {
	struct vt_server *server =
			wl_container_of(listener, server, views_output_moved);
	struct vt_output_change_event *event = data;
	vt_views_output_moved(server, event->output, event->box);
}

/* ---- toplevels: the policy every kind shares ---------------------------- */

void vt_view_map(struct vt_view *view) {
	struct vt_server *server = view->server;
	view->mapped = true;
	view->minimized = false;
	if (view->placed_on != NULL) {
		/* the workspace its output shows now */
		view->workspace = vt_output_workspace(view->placed_on);
	}
	if (server->config.mode == VT_MODE_DESKTOP && view->placed_on != NULL &&
			view->impl->get_fill(view, false) == 0) {
		/* inside what panels leave of the output, decorations
		 * included */
		struct wlr_box box = vt_output_usable_box(view->placed_on);
		struct wlr_box geo;
		view->impl->get_geometry(view, &geo);
		struct vt_extents e = vt_view_extents(view, false);
		int fw = geo.width + e.left + e.right;
		int fh = geo.height + e.top + e.bottom;
		/* Centred, then cascaded so windows on one output do not
		 * hide each other completely. */
		int step = 60 * (views_on(server, view->placed_on, view) % 6);
		int x = (box.width - fw) / 2 - 150 + step * 2;
		int y = (box.height - fh) / 2 - 90 + step;
		if (x + fw > box.width) {
			x = box.width - fw;
		}
		if (y + fh > box.height) {
			y = box.height - fh;
		}
		view->x = box.x + (x > 0 ? x : 0) + e.left;
		view->y = box.y + (y > 0 ? y : 0) + e.top;
	}
	view_update_position(view);
	vt_decoration_update(view);
	vr_node_set_enabled(view->node, vt_view_visible(view));
	view_update_entered(view);
	wl_signal_emit(&server->events.view_map, view);
	vt_view_focus(view, view->surface);
	wl_signal_emit(&server->events.pointer_focus, NULL);
	vt_server_schedule_update(server);
}

void vt_view_unmap(struct vt_view *view) {
	struct vt_server *server = view->server;
	view->mapped = false;
	if (server->grab.view == view) {
		vt_grab_end(server);
	}
	vr_node_set_enabled(view->node, false);
	view_set_entered(view, NULL);
	wl_signal_emit(&view->server->events.view_unmap, view);
	if (view->fullscreen) {
		view->fullscreen = false;
		wl_signal_emit(&server->events.fullscreen_changed, NULL);
	}
	if (server->focused_view == view) {
		server->focused_view = NULL;
		/* unless a lock or layer surface holds the keyboard */
		if (!vt_session_locked(server) && !vt_layers_keyboard_grabbed(server)) {
			wlr_seat_keyboard_notify_clear_focus(server->seat);
		}
		struct vt_view *next;
		wl_list_for_each(next, &server->views, link) {
			if (next != view && vt_view_visible(next) &&
					view_takes_focus(next)) {
				vt_view_focus(next, next->surface);
				break;
			}
		}
	}
	wl_signal_emit(&server->events.pointer_focus, NULL);
	vt_server_schedule_update(server);
}

void vt_view_committed(struct vt_view *view) {
	if (!view->mapped) {
		return;
	}
	/*
	 * A window whose client set no geometry has the extents of its
	 * surface and subsurfaces as its geometry: a subsurface moved (or
	 * mapped) past the main surface's left or top edge moves the
	 * geometry's origin in the surface. The main surface stays where it
	 * is on the screen, the geometry's corner moves: otherwise the whole
	 * window would jump by the subsurface's move, and out from under
	 * the pointer. A geometry the client set is the window's own: its
	 * corner stays at view->x, view->y.
	 */
	struct wlr_box geo;
	view->impl->get_geometry(view, &geo);
	bool moved = view->impl->geometry_implicit != NULL &&
			view->impl->geometry_implicit(view) &&
			(geo.x != view->geo_x || geo.y != view->geo_y);
	if (moved) {
		view->x += geo.x - view->geo_x;
		view->y += geo.y - view->geo_y;
	}
	int was_x, was_y, now_x, now_y;
	vt_view_surface_origin(view, &was_x, &was_y);
	view_update_position(view);
	vt_view_surface_origin(view, &now_x, &now_y);
	if (moved) {
		view_update_entered(view);
		wl_signal_emit(&view->server->events.view_output, view);
	}
	if (now_x != was_x || now_y != was_y) {
		/* the surfaces moved under the pointer (surface.c's commit
		 * handler looked before they did) */
		wl_signal_emit(&view->server->events.pointer_focus, NULL);
	}
	bool fullscreen = view->impl->get_fill(view, false) & VT_FILL_FULLSCREEN;
	if (fullscreen != view->fullscreen) {
		view->fullscreen = fullscreen;
		wl_signal_emit(&view->server->events.fullscreen_changed, NULL);
	}
	vt_decoration_update(view);
}

void vt_view_finish(struct vt_view *view) {
	if (view->refill_idle != NULL) {
		wl_event_source_remove(view->refill_idle);
		view->refill_idle = NULL;
	}
	wl_signal_emit(&view->server->events.view_unmap, view);
	if (view->entered != NULL) {
		wl_list_remove(&view->entered_destroy.link);
		view->entered = NULL;
	}
	wl_list_remove(&view->link);
	wl_list_init(&view->link);
	if (view->server->grab.view == view) {
		vt_grab_end(view->server);
	}
	if (view->server->focused_view == view) {
		view->server->focused_view = NULL;
	}
	vt_decoration_destroy(view);
	vr_node_destroy(view->node);
	view->node = NULL;
	vt_server_schedule_update(view->server);
}

/* Maximize and fullscreen requests fill the output; leaving either state
 * gives the client back its own size (desktop mode), or the other state's
 * (out of fullscreen, still maximized). Kiosk windows always fill their
 * output, fullscreen, whatever is asked. Every request is answered with a
 * configure. */
void vt_view_request_fill(struct vt_view *view, bool requested,
		bool fullscreen) {
	if (view->server->config.mode == VT_MODE_KIOSK) {
		view_fill_output(view, true);
		return;
	}
	uint32_t asked = view->impl->get_fill(view, true);
	if (!fullscreen && (asked & VT_FILL_FULLSCREEN)) {
		/* (un)maximized while fullscreen: it keeps the output's
		 * size; the state counts once it leaves fullscreen */
		view_set_fill(view, VT_FILL_MAXIMIZED, requested);
		return;
	}
	if (!requested && fullscreen && (asked & VT_FILL_MAXIMIZED) &&
			(asked & VT_FILL_FULLSCREEN)) {
		/* out of fullscreen into the maximized state kept under it:
		 * what the output's usable box leaves, not its own size */
		view_set_fill(view, VT_FILL_FULLSCREEN, false);
		view_fill_output(view, false);
		return;
	}
	if (!requested) {
		/* the decorations' corner stays where it is (out of
		 * fullscreen: the title bar comes back inside the output) */
		struct vt_extents was =
				vt_view_extents(view, asked & VT_FILL_FULLSCREEN);
		view_set_fill(view, fullscreen ? VT_FILL_FULLSCREEN : VT_FILL_MAXIMIZED,
				false);
		view->impl->set_size(view, 0, 0);
		struct vt_extents e = vt_view_extents(view,
				view->impl->get_fill(view, true) & VT_FILL_FULLSCREEN);
		if (view->impl->get_fill(view, true) == 0 && view->restore.width > 0 &&
				view->restore_output == view->placed_on &&
				view->placed_on != NULL) {
			/* back where it was before it filled the output, kept
			 * inside the output's usable box as it is now */
			int x = view->restore.x, y = view->restore.y;
			keep_inside(vt_output_usable_box(view->placed_on), e,
					view->restore.width, view->restore.height, &x, &y);
			view->restore.width = 0;
			vt_view_move(view, x, y);
		} else if (e.left != was.left || e.top != was.top) {
			vt_view_move(view, view->x - was.left + e.left,
					view->y - was.top + e.top);
		}
		return;
	}
	view_fill_output(view, fullscreen);
}

void vt_view_close(struct vt_view *view) {
	view->impl->close(view);
}

void vt_view_toggle_fill(struct vt_view *view, bool fullscreen) {
	/* what vitrail last asked for, acknowledged or not */
	uint32_t bit = fullscreen ? VT_FILL_FULLSCREEN : VT_FILL_MAXIMIZED;
	bool filled = view->impl->get_fill(view, true) & bit;
	vt_view_request_fill(view, !filled, fullscreen);
}

/* The windows of the workspaces shown, minimized ones too (focusing one
 * brings it back). */
void vt_views_cycle_focus(struct vt_server *server, bool forward) {
	struct vt_view *front = NULL, *back = NULL, *view;
	wl_list_for_each(view, &server->views, link) {
		if (view_on_shown_workspace(view)) {
			front = front == NULL ? view : front;
			back = view;
		}
	}
	if (front == NULL) {
		return;
	}
	if (front == back) {
		if (server->focused_view != front) {
			vt_view_focus(front, front->surface);
		}
		return;
	}
	if (forward) {
		vt_view_focus(back, back->surface);
		return;
	}
	/* the focused window to the back, under every other */
	vr_node_place_below(front->node, back->node);
	wl_list_remove(&front->link);
	wl_list_insert(server->views.prev, &front->link);
	wl_list_for_each(view, &server->views, link) {
		if (view_on_shown_workspace(view)) {
			vt_view_focus(view, view->surface);
			break;
		}
	}
}

struct vt_output *vt_views_current_output(struct vt_server *server) {
	if (server->current_output != NULL) {
		return server->current_output;
	}
	if (server->focused_view != NULL &&
			server->focused_view->placed_on != NULL) {
		return server->focused_view->placed_on;
	}
	struct vt_output *output =
			vt_output_at(server, server->cursor->x, server->cursor->y);
	return output != NULL ? output : vt_output_next(server, NULL);
}

void vt_views_show_workspace(struct vt_server *server, int workspace) {
	struct vt_output *output = vt_views_current_output(server);
	if (output == NULL) {
		return;
	}
	server->current_output = output;
	output_show_workspace(server, output, workspace);
	focus_front(server, output);
}

void vt_view_move_to_workspace(struct vt_view *view, int workspace) {
	if (view->kind != VT_VIEW_TOPLEVEL || view->workspace == workspace) {
		return;
	}
	view->workspace = workspace;
	view_update_visibility(view);
	keep_focus_shown(view->server, view->placed_on);
}

/* The output dir of from (next and prev wrap around), or NULL. */
static struct vt_output *output_toward(struct vt_server *server,
		struct vt_output *from, enum vt_config_direction dir) {
	switch (dir) {
	case VT_DIR_NEXT: {
		struct vt_output *next = vt_output_next(server, from);
		return next != NULL ? next : vt_output_next(server, NULL);
	}
	case VT_DIR_PREV: {
		struct vt_output *prev = NULL, *last = NULL;
		for (struct vt_output *o = vt_output_next(server, NULL); o != NULL;
				o = vt_output_next(server, o)) {
			if (vt_output_next(server, o) == from) {
				prev = o;
			}
			last = o;
		}
		return prev != NULL ? prev : last;
	}
	case VT_DIR_LEFT:
	case VT_DIR_RIGHT: {
		struct wlr_box box = output_layout_box(server, from);
		struct wlr_output *to = wlr_output_layout_adjacent_output(
				server->layout,
				dir == VT_DIR_LEFT ? WLR_DIRECTION_LEFT : WLR_DIRECTION_RIGHT,
				vt_output_wlr(from), box.x + box.width / 2.0,
				box.y + box.height / 2.0);
		return to != NULL ? to->data : NULL;
	}
	}
	return NULL;
}

void vt_views_focus_output(struct vt_server *server,
		enum vt_config_direction dir) {
	struct vt_output *from = vt_views_current_output(server);
	struct vt_output *to =
			from != NULL ? output_toward(server, from, dir) : NULL;
	if (to == NULL) {
		return;
	}
	server->current_output = to;
	focus_front(server, to);
}

void vt_view_move_to_output(struct vt_view *view,
		enum vt_config_direction dir) {
	struct vt_server *server = view->server;
	struct vt_output *from = view->placed_on != NULL ?
			view->placed_on :
			vt_views_current_output(server);
	struct vt_output *to =
			from != NULL ? output_toward(server, from, dir) : NULL;
	if (view->kind != VT_VIEW_TOPLEVEL || !view->mapped || to == NULL ||
			to == view->placed_on) {
		return;
	}
	/* onto the workspace shown there, at the same offset, inside it */
	view->workspace = vt_output_workspace(to);
	view_move_to_output(view, to, vt_output_usable_box(from));
	server->current_output = to;
	if (server->focused_view == view) {
		vt_view_focus(view, view->surface);
	}
}

void vt_view_minimize(struct vt_view *view) {
	struct vt_server *server = view->server;
	if (view->kind != VT_VIEW_TOPLEVEL || !view->mapped || view->minimized) {
		return;
	}
	view->minimized = true;
	wl_signal_emit(&server->events.view_minimized, view);
	/* the back of the stack: the next window focus next picks */
	wl_list_remove(&view->link);
	wl_list_insert(server->views.prev, &view->link);
	view_update_visibility(view);
	keep_focus_shown(server, view->placed_on);
}

static bool begin_grab(struct vt_view *view, enum vt_grab_mode mode,
		uint32_t edges, double x, double y) {
	struct vt_server *server = view->server;
	if (view->kind != VT_VIEW_TOPLEVEL || !view->mapped ||
			server->config.mode != VT_MODE_DESKTOP ||
			view->impl->get_fill(view, true) != 0) {
		return false;
	}
	struct wlr_box geo;
	view->impl->get_geometry(view, &geo);
	server->grab = (struct vt_grab){
		.mode = mode,
		.view = view,
		.cursor_x = x,
		.cursor_y = y,
		.box = { view->x, view->y, geo.width, geo.height },
		.edges = edges,
	};
	if (mode == VT_GRAB_RESIZE) {
		view->impl->set_resizing(view, true);
	}
	return true;
}

void vt_view_nudge(struct vt_view *view, int dx, int dy, int dw, int dh) {
	if (view->kind != VT_VIEW_TOPLEVEL || !view->mapped ||
			view->server->config.mode != VT_MODE_DESKTOP ||
			view->impl->get_fill(view, true) != 0) {
		return;
	}
	if (dx != 0 || dy != 0) {
		vt_view_move(view, view->x + dx, view->y + dy);
	}
	if (dw != 0 || dh != 0) {
		struct wlr_box geo;
		view->impl->get_geometry(view, &geo);
		int width = geo.width + dw, height = geo.height + dh;
		view->impl->set_size(view, width > 1 ? width : 1,
				height > 1 ? height : 1);
	}
}

void vt_view_begin_grab(struct vt_view *view, enum vt_grab_mode mode,
		uint32_t edges, bool swallow) {
	struct vt_server *server = view->server;
	if (begin_grab(view, mode, edges, server->cursor->x, server->cursor->y)) {
		server->grab.swallow = swallow;
		/* the pointer is vitrail's until the grab ends: the window's
		 * client sees it leave (and enter again at the end) */
		wlr_seat_pointer_notify_clear_focus(server->seat);
	}
}

void vt_view_begin_touch_grab(struct vt_view *view, enum vt_grab_mode mode,
		uint32_t edges, int32_t touch_id, double lx, double ly) {
	if (begin_grab(view, mode, edges, lx, ly)) {
		view->server->grab.touch = true;
		view->server->grab.touch_id = touch_id;
	}
}

void vt_grab_motion(struct vt_server *server) {
	vt_grab_motion_to(server, server->cursor->x, server->cursor->y);
}

void vt_grab_motion_to(struct vt_server *server, double lx, double ly) {
	struct vt_grab *grab = &server->grab;
	struct vt_view *view = grab->view;
	/* rounded: an absolute position (a tablet, touch, the test
	 * protocol's pointer) comes through a division and back, and a
	 * truncated 24.9999 would lose a pixel */
	int dx = (int)lround(lx - grab->cursor_x);
	int dy = (int)lround(ly - grab->cursor_y);
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
	view->impl->set_size(view, right - left, bottom - top);
}

void vt_grab_end(struct vt_server *server) {
	struct vt_grab *grab = &server->grab;
	if (grab->mode == VT_GRAB_RESIZE && grab->view != NULL) {
		grab->view->impl->set_resizing(grab->view, false);
	}
	*grab = (struct vt_grab){ 0 };
}

/* ---- server-side decorations negotiated (server_decoration.c) -------- */

static void view_refill_idle(void *data) {
	struct vt_view *view = data;
	view->refill_idle = NULL;
	uint32_t asked = view->impl->get_fill(view, true);
	if (!view->mapped && (asked & VT_FILL_MAXIMIZED) &&
			!(asked & VT_FILL_FULLSCREEN)) {
		view_fill_output(view, false);
	}
}

void vt_view_decorations_gone(struct vt_view *view) {
	if (view->mapped || !view->ssd) {
		vt_view_set_server_decorations(view, false);
		return;
	}
	/* Unmapped: its decoration object may be going inside the toplevel's
	 * own destruction (wlroots unmaps, destroys the decoration, then the
	 * view), where a configure would reach a surface with no role (an
	 * assertion in wlroots 0.15). The new size, if any, goes from the
	 * idle, once the destruction is over, or never: the view's end
	 * removes it. */
	view->ssd = false;
	uint32_t asked = view->impl->get_fill(view, true);
	if ((asked & VT_FILL_MAXIMIZED) && !(asked & VT_FILL_FULLSCREEN) &&
			view->server->config.mode == VT_MODE_DESKTOP &&
			view->refill_idle == NULL) {
		view->refill_idle = wl_event_loop_add_idle(view->server->loop,
				view_refill_idle, view);
	}
}

void vt_view_set_server_decorations(struct vt_view *view, bool on) {
	if (view->ssd == on) {
		return;
	}
	view->ssd = on;
	uint32_t asked = view->impl->get_fill(view, true);
	if (!view->mapped) {
		/* maximized before mapping: the size asked for changes */
		if ((asked & VT_FILL_MAXIMIZED) && !(asked & VT_FILL_FULLSCREEN) &&
				view->server->config.mode == VT_MODE_DESKTOP) {
			view_fill_output(view, false);
		}
		return;
	}
	if (view_fills_output(view)) {
		view_fill_output(view,
				(asked & VT_FILL_FULLSCREEN) ||
						view->server->config.mode == VT_MODE_KIOSK);
		vt_view_move(view, view->x, view->y);
	} else if (view->placed_on != NULL) {
		struct wlr_box geo;
		view->impl->get_geometry(view, &geo);
		int x = view->x, y = view->y;
		keep_inside(vt_output_usable_box(view->placed_on),
				vt_view_extents(view, false), geo.width, geo.height, &x, &y);
		vt_view_move(view, x, y);
	}
	vt_decoration_update(view);
}

/* ---- popups ------------------------------------------------------------- */

struct vt_view *vt_view_toplevel_of(struct wlr_xdg_surface *xdg_surface) {
	while (xdg_surface != NULL &&
			xdg_surface->role == WLR_XDG_SURFACE_ROLE_POPUP) {
		struct wlr_surface *parent = xdg_surface->popup->parent;
		/* a layer surface's popup has a parent of another role */
		xdg_surface = parent != NULL && wlr_surface_is_xdg_surface(parent) ?
				wlr_xdg_surface_from_wlr_surface(parent) :
				NULL;
	}
	return xdg_surface != NULL ? xdg_surface->data : NULL;
}

/* ---- popup grabs (xdg_popup.grab) ---------------------------------------- */

/*
 * wlroots 0.15 carries a popup grab: the seat's pointer, keyboard and
 * touch grabs, which send the keys to the focused surface and end the
 * grab (popup_done to its popups) on a click outside the client. Where
 * the keyboard is focused is vitrail's: a grabbing popup takes it when
 * it maps, the next grabbing popup (the one it was opened from) when it
 * unmaps, and the window (or layer surface) that had it when the grab
 * ends. The grab's keyboard grab ignores notify_enter, so while it holds
 * the keyboard the focus moves past it (wlr_seat_keyboard_enter).
 */

/* The popup grab whose keyboard grab is grab (NULL: another kind). */
struct wlr_xdg_popup_grab *vt_popup_grab_of(struct vt_server *server,
		struct wlr_seat_keyboard_grab *grab) {
	struct wlr_xdg_popup_grab *popup_grab;
	wl_list_for_each(popup_grab, &server->xdg_shell->popup_grabs, link) {
		if (&popup_grab->keyboard_grab == grab) {
			return popup_grab;
		}
	}
	return NULL;
}

/* The popup grab holding the seat's keyboard now, NULL: none. */
struct wlr_xdg_popup_grab *vt_popup_grab_active(struct vt_server *server) {
	return vt_popup_grab_of(server, server->seat->keyboard_state.grab);
}

/* End the popup grab holding the keyboard unless its popups are view's:
 * its popups get popup_done (the client closes them) and the seat's
 * grabs end. wlroots ends it so on a click outside: through the
 * pointer grab's cancel, which ends the keyboard and touch grabs too. */
static void popup_grab_end_unless(struct vt_server *server,
		struct vt_view *view) {
	struct wlr_xdg_popup_grab *grab = vt_popup_grab_active(server);
	if (grab == NULL) {
		return;
	}
	if (!wl_list_empty(&grab->popups)) {
		struct wlr_xdg_popup *popup =
				wl_container_of(grab->popups.next, popup, grab_link);
		if (vt_view_toplevel_of(popup->base) == view) {
			return;
		}
	}
	struct wlr_seat *seat = server->seat;
	if (seat->pointer_state.grab == &grab->pointer_grab) {
		wlr_seat_pointer_end_grab(seat);
	} else {
		/* the pointer's grab went to another (none of wlroots' or
		 * vitrail's leaves a popup grab the keyboard alone): the
		 * keyboard is freed at least */
		wlr_seat_keyboard_end_grab(seat);
	}
}

struct vt_view *vt_view_from_toplevel_surface(struct wlr_surface *surface) {
	if (surface == NULL || !wlr_surface_is_xdg_surface(surface)) {
		return NULL;
	}
	struct wlr_xdg_surface *xdg = wlr_xdg_surface_from_wlr_surface(surface);
	if (xdg == NULL || xdg->role != WLR_XDG_SURFACE_ROLE_TOPLEVEL) {
		return NULL;
	}
	return xdg->data;
}
