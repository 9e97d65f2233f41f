/*
 * The protocols wlroots 0.15 implements ready-made, and vitrail's policy
 * for each: what a request does to the windows, the pointer and the seat.
 *
 * - xdg-activation-v1: a valid token made by the focused client with an
 *   input serial of its own activates (focuses and raises) the
 *   toplevel of the surface named.
 * - KDE idle (org_kde_kwin_idle) and idle-inhibit-v1: every input event is
 *   activity; while a surface with an inhibitor is mapped, idle timers stop.
 * - pointer-constraints-v1 and relative-pointer-v1: the constraint of the
 *   surface with pointer focus is activated while its window has the
 *   keyboard focus (deactivated when it loses it, a persistent one
 *   activated again when it gets it back); a locked pointer stops the
 *   cursor, a confined one stops at the edge of its region's rectangle it
 *   is in; relative motion is
 *   sent for every motion event of a pointer device (input.c).
 * - pointer-gestures-v1: swipe, pinch and hold events of the backend's
 *   pointers go to the surface with pointer focus.
 * - wlr-data-control-v1, primary selection: wlroots' own (wl-clipboard).
 * - wlr-foreign-toplevel-management-v1: one handle per mapped toplevel
 *   with its title, app_id, output and activated, minimized, maximized
 *   and fullscreen states; activate, close, (un)minimize, (un)maximize and
 *   (un)fullscreen requests are honoured, the last two as the client's own
 *   xdg_toplevel requests (view.c calls in at map, unmap, focus and every
 *   change of what it asks the client to fill).
 * - wlr-gamma-control-v1: wlroots applies ramps with the output's next
 *   commit (outputs without gamma, like headless ones, refuse them).
 * - wlr-export-dmabuf-v1: only when the output buffers are dmabufs (the
 *   allocator says so: DRM dumb buffers); the headless and nested backends'
 *   buffers are shm, which the protocol cannot export.
 * - input-method-v2 and text-input-v3: one input method per seat; the text
 *   input of the surface with keyboard focus is relayed to it and its
 *   commits back.
 * - keyboard-shortcuts-inhibit-v1: the focused surface's inhibitor is
 *   activated; while it is, vitrail's key bindings do not run (input.c)
 *   and their keys go to the surface.
 * - xdg-foreign v1 and v2: wlroots' registry, nothing to decide.
 * - tablet-v2: a tablet per tablet-tool device of the backend; tool events
 *   go to the surface under the tool when it bound the tablet protocol, and
 *   move the cursor.
 * - wlr-output-power-management-v1: off disables the output, on enables it
 *   (output.c); where the backend cannot, the output is blanked (below).
 * - xdg-decoration and KDE server-decoration: the mode vitrail answers, to
 *   every request too, follows server_side_decorations() below (the
 *   config's decorations and what the client asks); server-side ones are
 *   drawn by decoration.c.
 * - wlr-input-inhibitor (old screen lockers): while a client holds it,
 *   windows of other clients get no pointer, touch or keyboard focus.
 *
 * Limits on what a client may keep in vitrail's memory (a protocol logger
 * sees each request before wlroots does): at most FEEDBACK_MAX
 * wp_presentation_feedback requests for one surface between two commits
 * (wlroots 0.15 keeps them all for that commit; a client asks for one; more
 * is an implementation error and the client is cut off),
 * and at most ACTIVATION_TOKENS_MAX activation tokens alive (wlroots
 * keeps a committed token 30 s, past its client: a launcher exits once it
 * handed its token over); past it the oldest expire at once.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/render/allocator.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_data_control_v1.h>
#include <wlr/types/wlr_export_dmabuf_v1.h>
#include <wlr/types/wlr_foreign_toplevel_management_v1.h>
#include <wlr/types/wlr_gamma_control_v1.h>
#include <wlr/types/wlr_idle.h>
#include <wlr/types/wlr_idle_inhibit_v1.h>
#include <wlr/types/wlr_input_inhibitor.h>
#include <wlr/types/wlr_input_method_v2.h>
#include <wlr/types/wlr_keyboard_shortcuts_inhibit_v1.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_output_power_management_v1.h>
#include <wlr/types/wlr_pointer.h>
#include <wlr/types/wlr_pointer_constraints_v1.h>
#include <wlr/types/wlr_pointer_gestures_v1.h>
#include <wlr/types/wlr_presentation_time.h>
#include <wlr/types/wlr_relative_pointer_v1.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_server_decoration.h>
#include <wlr/types/wlr_tablet_tool.h>
#include <wlr/types/wlr_tablet_v2.h>
#include <wlr/types/wlr_text_input_v3.h>
#include <wlr/types/wlr_xdg_activation_v1.h>
#include <wlr/types/wlr_xdg_decoration_v1.h>
#include <wlr/types/wlr_xdg_foreign_registry.h>
#include <wlr/types/wlr_xdg_foreign_v1.h>
#include <wlr/types/wlr_xdg_foreign_v2.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/log.h>

#include "desktop/surface.h"
#include "desktop/view.h"
#include "input/input.h"
#include "output/output.h"
#include "protocols/protocols.h"
#include "server.h"

struct vt_protocols {
	struct vt_server *server;
	struct wlr_idle *idle;
	struct wlr_idle_inhibit_manager_v1 *idle_inhibit;
	struct wl_list idle_inhibitors; /* idle_inhibitor::link */
	struct wlr_xdg_activation_v1 *activation;
	struct wlr_pointer_constraints_v1 *constraints;
	struct wlr_pointer_constraint_v1 *constraint; /* active, or NULL */
	struct wlr_relative_pointer_manager_v1 *relative_pointer;
	struct wlr_pointer_gestures_v1 *gestures;
	struct wlr_foreign_toplevel_manager_v1 *foreign_toplevel;
	struct wlr_input_method_manager_v2 *input_method_manager;
	struct wlr_input_method_v2 *input_method; /* the seat's, or NULL */
	struct wlr_text_input_manager_v3 *text_input_manager;
	struct wl_list text_inputs; /* text_input::link */
	struct wlr_keyboard_shortcuts_inhibit_manager_v1 *shortcuts_inhibit;
	struct wlr_xdg_foreign_registry *foreign_registry;
	struct wlr_tablet_manager_v2 *tablet_manager;
	struct wl_list tablets; /* tablet::link */
	struct wlr_output_power_manager_v1 *output_power;
	struct wl_list blanks; /* blank::link, outputs powered off by us */
	struct wlr_xdg_decoration_manager_v1 *xdg_decoration;
	struct wlr_server_decoration_manager *kde_decoration;
	struct wlr_input_inhibit_manager *input_inhibit;
	struct wl_protocol_logger *limits; /* see limits_check */
	struct wl_event_source *trim_tokens; /* idle, or NULL */

	struct wl_listener request_activate;
	struct wl_listener new_idle_inhibitor;
	struct wl_listener new_constraint;
	struct wl_listener constraint_destroy; /* of the active one */
	struct wl_listener pointer_focus_change;
	struct wl_listener keyboard_focus_change;
	struct wl_listener swipe_begin;
	struct wl_listener swipe_update;
	struct wl_listener swipe_end;
	struct wl_listener pinch_begin;
	struct wl_listener pinch_update;
	struct wl_listener pinch_end;
	struct wl_listener hold_begin;
	struct wl_listener hold_end;
	struct wl_listener new_input_method;
	struct wl_listener input_method_commit;
	struct wl_listener input_method_destroy;
	struct wl_listener new_text_input;
	struct wl_listener new_shortcuts_inhibitor;
	struct wl_listener tool_axis;
	struct wl_listener tool_proximity;
	struct wl_listener tool_tip;
	struct wl_listener tool_button;
	struct wl_listener set_power_mode;
	struct wl_listener new_toplevel_decoration;
	struct wl_listener new_kde_decoration;
	struct wl_listener input_inhibit_activate;
	struct wl_listener input_inhibit_deactivate;
};

static struct vt_view *toplevel_view(struct wlr_surface *surface) {
	if (surface == NULL || !wlr_surface_is_xdg_surface(surface)) {
		return NULL;
	}
	struct wlr_xdg_surface *xdg = wlr_xdg_surface_from_wlr_surface(surface);
	if (xdg == NULL || xdg->role != WLR_XDG_SURFACE_ROLE_TOPLEVEL) {
		return NULL;
	}
	return xdg->data;
}

/* ---- decorations -------------------------------------------------------- */

/*
 * Who draws a window's decorations (vitrail(5), decorations): with
 * "decorations server" (the default) vitrail does, unless the client
 * insists on drawing them itself (xdg-decoration set_mode client_side,
 * KDE request_mode client or none); a client that asks nothing, or
 * unsets its mode, gets server-side. With "decorations client" every
 * client draws its own, whatever it asks. Clients that use neither
 * protocol draw their own (xdg-shell's rule).
 */
static bool server_side_decorations(struct vt_server *server,
		bool client_wants_client, bool client_asked) {
	if (!server->config.server_decorations) {
		return false;
	}
	return !(client_asked && client_wants_client);
}

struct decoration {
	struct vt_server *server;
	struct wlr_xdg_toplevel_decoration_v1 *wlr;
	struct wl_listener request_mode;
	struct wl_listener destroy;
};

/* Answer the mode the client asked for (or none) and apply it. */
static void decoration_apply(struct decoration *decoration) {
	struct wlr_xdg_toplevel_decoration_v1 *wlr = decoration->wlr;
	enum wlr_xdg_toplevel_decoration_v1_mode asked = wlr->requested_mode;
	bool server_side = server_side_decorations(decoration->server,
		asked == WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE,
		asked != WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_NONE);
	wlr_xdg_toplevel_decoration_v1_set_mode(wlr, server_side ?
		WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE :
		WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE);
	struct vt_view *view = wlr->surface->data;
	if (view != NULL) {
		vt_view_set_server_decorations(view, server_side);
	}
}

static void decoration_handle_request_mode(struct wl_listener *listener,
		void *data) {
	struct decoration *decoration =
		wl_container_of(listener, decoration, request_mode);
	decoration_apply(decoration);
}

static void decoration_handle_destroy(struct wl_listener *listener,
		void *data) {
	struct decoration *decoration =
		wl_container_of(listener, decoration, destroy);
	/* without the object the client draws its own (the protocol's
	 * destroy); NULL when the window itself is going */
	struct vt_view *view = decoration->wlr->surface->data;
	if (view != NULL) {
		vt_view_decorations_gone(view);
	}
	wl_list_remove(&decoration->request_mode.link);
	wl_list_remove(&decoration->destroy.link);
	free(decoration);
}

static void handle_new_toplevel_decoration(struct wl_listener *listener,
		void *data) {
	struct vt_protocols *p =
		wl_container_of(listener, p, new_toplevel_decoration);
	struct wlr_xdg_toplevel_decoration_v1 *wlr = data;
	struct decoration *decoration = calloc(1, sizeof(*decoration));
	if (decoration == NULL) {
		wl_resource_post_no_memory(wlr->resource);
		return;
	}
	decoration->server = p->server;
	decoration->wlr = wlr;
	decoration->request_mode.notify = decoration_handle_request_mode;
	wl_signal_add(&wlr->events.request_mode, &decoration->request_mode);
	decoration->destroy.notify = decoration_handle_destroy;
	wl_signal_add(&wlr->events.destroy, &decoration->destroy);
	decoration_apply(decoration);
}

/* KDE's protocol: wlroots answers a request_mode with the mode asked for,
 * read back after its mode signal; the handler puts vitrail's there. The
 * object belongs to a wl_surface, which may get its toplevel role later
 * (vt_protocols_toplevel_created). */
struct kde_decoration {
	struct vt_server *server;
	struct wlr_server_decoration *wlr;
	struct wl_listener mode;
	struct wl_listener destroy;
};

static void kde_decoration_apply_to(struct vt_server *server,
		struct wlr_server_decoration *wlr, struct vt_view *view) {
	if (view != NULL) {
		vt_view_set_server_decorations(view,
			wlr->mode == WLR_SERVER_DECORATION_MANAGER_MODE_SERVER);
	}
}

static void kde_decoration_handle_mode(struct wl_listener *listener,
		void *data) {
	struct kde_decoration *decoration =
		wl_container_of(listener, decoration, mode);
	struct wlr_server_decoration *wlr = decoration->wlr;
	bool server_side = server_side_decorations(decoration->server,
		wlr->mode != WLR_SERVER_DECORATION_MANAGER_MODE_SERVER, true);
	wlr->mode = server_side ? WLR_SERVER_DECORATION_MANAGER_MODE_SERVER :
		WLR_SERVER_DECORATION_MANAGER_MODE_CLIENT;
	kde_decoration_apply_to(decoration->server, wlr,
		toplevel_view(wlr->surface));
}

static void kde_decoration_handle_destroy(struct wl_listener *listener,
		void *data) {
	struct kde_decoration *decoration =
		wl_container_of(listener, decoration, destroy);
	struct vt_view *view = toplevel_view(decoration->wlr->surface);
	if (view != NULL) {
		vt_view_decorations_gone(view);
	}
	wl_list_remove(&decoration->mode.link);
	wl_list_remove(&decoration->destroy.link);
	free(decoration);
}

static void handle_new_kde_decoration(struct wl_listener *listener,
		void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, new_kde_decoration);
	struct wlr_server_decoration *wlr = data;
	struct kde_decoration *decoration = calloc(1, sizeof(*decoration));
	if (decoration == NULL) {
		wl_resource_post_no_memory(wlr->resource);
		return;
	}
	decoration->server = p->server;
	decoration->wlr = wlr;
	decoration->mode.notify = kde_decoration_handle_mode;
	wl_signal_add(&wlr->events.mode, &decoration->mode);
	decoration->destroy.notify = kde_decoration_handle_destroy;
	wl_signal_add(&wlr->events.destroy, &decoration->destroy);
	/* wlroots sent the default mode: the config's */
	kde_decoration_apply_to(p->server, wlr, toplevel_view(wlr->surface));
}

void vt_protocols_toplevel_created(struct vt_view *view) {
	struct vt_protocols *p = view->server->protocols;
	if (p == NULL) {
		return;
	}
	struct wlr_server_decoration *wlr;
	wl_list_for_each(wlr, &p->kde_decoration->decorations, link) {
		if (wlr->surface == view->surface) {
			kde_decoration_apply_to(view->server, wlr, view);
		}
	}
}

/* The default KDE mode, sent to every new object: the config's. */
static void kde_decoration_set_default(struct vt_protocols *p) {
	wlr_server_decoration_manager_set_default_mode(p->kde_decoration,
		p->server->config.server_decorations ?
		WLR_SERVER_DECORATION_MANAGER_MODE_SERVER :
		WLR_SERVER_DECORATION_MANAGER_MODE_CLIENT);
}

/* A reload: new objects get the new default; windows keep what they
 * negotiated. */
void vt_protocols_apply_config(struct vt_server *server) {
	if (server->protocols != NULL) {
		kde_decoration_set_default(server->protocols);
	}
}

/* ---- activation --------------------------------------------------------- */


/*
 * Whether a token may move the keyboard focus: it was made by the client
 * that has the focus now (its surface set), with the serial of an input
 * event that client received on this seat (its seat and serial set): a
 * launcher handing the focus to what it launched. A token made without
 * them, or by a client in the background, activates nothing (no focus
 * stealing: vitrail(1), PROTOCOLS).
 */
static bool activation_allowed(struct vt_server *server,
		const struct wlr_xdg_activation_token_v1 *token) {
	struct wlr_surface *focused =
		server->seat->keyboard_state.focused_surface;
	if (token->seat != server->seat || token->surface == NULL ||
			focused == NULL) {
		return false;
	}
	struct wl_client *maker = wl_resource_get_client(token->surface->resource);
	if (wl_resource_get_client(focused->resource) != maker) {
		return false;
	}
	struct wlr_seat_client *seat_client =
		wlr_seat_client_for_wl_client(server->seat, maker);
	return seat_client != NULL &&
		wlr_seat_client_validate_event_serial(seat_client, token->serial);
}

static void handle_request_activate(struct wl_listener *listener,
		void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, request_activate);
	struct wlr_xdg_activation_v1_request_activate_event *event = data;
	struct vt_view *view = toplevel_view(event->surface);
	if (view == NULL || !view->mapped) {
		return;
	}
	if (!activation_allowed(p->server, event->token)) {
		wlr_log(WLR_DEBUG, "xdg-activation: a token without the focused "
			"client's surface and input serial: %s stays where it is",
			view->impl->get_app_id(view) != NULL ?
			view->impl->get_app_id(view) : "the window");
		return;
	}
	vt_view_focus(view, view->surface);
	vt_input_update_pointer_focus(p->server);
}

/* ---- idle --------------------------------------------------------------- */

struct idle_inhibitor {
	struct vt_protocols *protocols;
	struct wlr_idle_inhibitor_v1 *wlr;
	struct wl_list link; /* vt_protocols::idle_inhibitors */
	struct wl_listener destroy;
	struct wl_listener surface_commit; /* it may map or unmap */
};

/* Idle timers run unless a mapped surface inhibits them. */
static void update_idle(struct vt_protocols *p) {
	bool inhibited = false;
	struct idle_inhibitor *inhibitor;
	wl_list_for_each(inhibitor, &p->idle_inhibitors, link) {
		struct wlr_surface *surface = inhibitor->wlr->surface;
		if (wlr_surface_has_buffer(surface)) {
			inhibited = true;
			break;
		}
	}
	wlr_idle_set_enabled(p->idle, p->server->seat, !inhibited);
}

static void idle_inhibitor_handle_destroy(struct wl_listener *listener,
		void *data) {
	struct idle_inhibitor *inhibitor =
		wl_container_of(listener, inhibitor, destroy);
	struct vt_protocols *p = inhibitor->protocols;
	wl_list_remove(&inhibitor->destroy.link);
	wl_list_remove(&inhibitor->surface_commit.link);
	wl_list_remove(&inhibitor->link);
	free(inhibitor);
	update_idle(p);
}

static void idle_inhibitor_handle_surface_commit(struct wl_listener *listener,
		void *data) {
	struct idle_inhibitor *inhibitor =
		wl_container_of(listener, inhibitor, surface_commit);
	update_idle(inhibitor->protocols);
}

static void handle_new_idle_inhibitor(struct wl_listener *listener,
		void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, new_idle_inhibitor);
	struct wlr_idle_inhibitor_v1 *wlr = data;
	struct idle_inhibitor *inhibitor = calloc(1, sizeof(*inhibitor));
	if (inhibitor == NULL) {
		wl_resource_post_no_memory(wlr->resource);
		return;
	}
	inhibitor->protocols = p;
	inhibitor->wlr = wlr;
	inhibitor->destroy.notify = idle_inhibitor_handle_destroy;
	wl_signal_add(&wlr->events.destroy, &inhibitor->destroy);
	inhibitor->surface_commit.notify = idle_inhibitor_handle_surface_commit;
	wl_signal_add(&wlr->surface->events.commit, &inhibitor->surface_commit);
	wl_list_insert(&p->idle_inhibitors, &inhibitor->link);
	update_idle(p);
}

void vt_protocols_input_activity(struct vt_server *server) {
	struct vt_protocols *p = server->protocols;
	if (p != NULL) {
		wlr_idle_notify_activity(p->idle, server->seat);
	}
}

/* ---- pointer constraints and relative motion ---------------------------- */

static void constraint_deactivate(struct vt_protocols *p) {
	if (p->constraint == NULL) {
		return;
	}
	wl_list_remove(&p->constraint_destroy.link);
	wlr_pointer_constraint_v1_send_deactivated(p->constraint);
	p->constraint = NULL;
}

static void handle_constraint_destroy(struct wl_listener *listener,
		void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, constraint_destroy);
	wl_list_remove(&p->constraint_destroy.link);
	p->constraint = NULL;
}

/* The surface of the window (toplevel, layer surface) surface belongs to:
 * its root through subsurfaces and xdg popups. */
static struct wlr_surface *window_surface(struct wlr_surface *surface) {
	surface = wlr_surface_get_root_surface(surface);
	while (wlr_surface_is_xdg_surface(surface)) {
		struct wlr_xdg_surface *xdg =
			wlr_xdg_surface_from_wlr_surface(surface);
		if (xdg == NULL || xdg->role != WLR_XDG_SURFACE_ROLE_POPUP ||
				xdg->popup->parent == NULL) {
			break;
		}
		surface = wlr_surface_get_root_surface(xdg->popup->parent);
	}
	return surface;
}

/* Activate the constraint of the surface with pointer focus, if any, while
 * its window has the keyboard focus: the protocol leaves which surfaces
 * may constrain the pointer to the compositor, and a window the user
 * left (for another one, a layer surface or the lock screen) must give
 * the pointer back. A persistent constraint comes back with the focus. */
static void constraint_update(struct vt_protocols *p) {
	struct wlr_seat *seat = p->server->seat;
	struct wlr_surface *focus = seat->pointer_state.focused_surface;
	struct wlr_surface *keyboard = seat->keyboard_state.focused_surface;
	struct wlr_pointer_constraint_v1 *constraint = NULL;
	if (focus != NULL && keyboard != NULL &&
			window_surface(focus) == window_surface(keyboard)) {
		constraint = wlr_pointer_constraints_v1_constraint_for_surface(
			p->constraints, focus, seat);
	}
	if (constraint == p->constraint) {
		return;
	}
	constraint_deactivate(p);
	if (constraint == NULL) {
		return;
	}
	/* only from a point inside its region */
	if (!pixman_region32_contains_point(&constraint->region,
			(int)seat->pointer_state.sx, (int)seat->pointer_state.sy,
			NULL)) {
		return;
	}
	p->constraint = constraint;
	p->constraint_destroy.notify = handle_constraint_destroy;
	wl_signal_add(&constraint->events.destroy, &p->constraint_destroy);
	wlr_pointer_constraint_v1_send_activated(constraint);
}

static void handle_new_constraint(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, new_constraint);
	constraint_update(p);
}

static void handle_pointer_focus_change(struct wl_listener *listener,
		void *data) {
	struct vt_protocols *p =
		wl_container_of(listener, p, pointer_focus_change);
	constraint_update(p);
}

bool vt_protocols_pointer_motion(struct vt_server *server,
		uint32_t time_msec, double *dx, double *dy, double dx_unaccel,
		double dy_unaccel) {
	struct vt_protocols *p = server->protocols;
	if (p == NULL) {
		return true;
	}
	wlr_relative_pointer_manager_v1_send_relative_motion(p->relative_pointer,
		server->seat, (uint64_t)time_msec * 1000, *dx, *dy, dx_unaccel,
		dy_unaccel);
	server->pointer_frame_owed = true; /* wl_pointer.frame closes it */
	if (p->constraint == NULL) {
		constraint_update(p);
	}
	struct wlr_pointer_constraint_v1 *constraint = p->constraint;
	if (constraint == NULL) {
		return true;
	}
	if (constraint->type == WLR_POINTER_CONSTRAINT_V1_LOCKED) {
		return false;
	}
	/* confined: a move that would leave the region stops at the edge of
	 * the region's rectangle the pointer is in */
	double sx = server->seat->pointer_state.sx;
	double sy = server->seat->pointer_state.sy;
	pixman_region32_t *region = &constraint->region;
	if (pixman_region32_contains_point(region, (int)floor(sx + *dx),
			(int)floor(sy + *dy), NULL)) {
		return true;
	}
	pixman_box32_t box;
	if (!pixman_region32_contains_point(region, (int)floor(sx),
			(int)floor(sy), &box)) {
		return false; /* outside already (the region changed) */
	}
	double x = sx + *dx, y = sy + *dy;
	x = x < box.x1 ? box.x1 : x > box.x2 - 1 ? box.x2 - 1 : x;
	y = y < box.y1 ? box.y1 : y > box.y2 - 1 ? box.y2 - 1 : y;
	*dx = x - sx;
	*dy = y - sy;
	return true;
}

/* ---- gestures ----------------------------------------------------------- */

static void handle_swipe_begin(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, swipe_begin);
	struct wlr_event_pointer_swipe_begin *event = data;
	wlr_pointer_gestures_v1_send_swipe_begin(p->gestures, p->server->seat,
		event->time_msec, event->fingers);
}

static void handle_swipe_update(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, swipe_update);
	struct wlr_event_pointer_swipe_update *event = data;
	wlr_pointer_gestures_v1_send_swipe_update(p->gestures, p->server->seat,
		event->time_msec, event->dx, event->dy);
}

static void handle_swipe_end(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, swipe_end);
	struct wlr_event_pointer_swipe_end *event = data;
	wlr_pointer_gestures_v1_send_swipe_end(p->gestures, p->server->seat,
		event->time_msec, event->cancelled);
}

static void handle_pinch_begin(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, pinch_begin);
	struct wlr_event_pointer_pinch_begin *event = data;
	wlr_pointer_gestures_v1_send_pinch_begin(p->gestures, p->server->seat,
		event->time_msec, event->fingers);
}

static void handle_pinch_update(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, pinch_update);
	struct wlr_event_pointer_pinch_update *event = data;
	wlr_pointer_gestures_v1_send_pinch_update(p->gestures, p->server->seat,
		event->time_msec, event->dx, event->dy, event->scale,
		event->rotation);
}

static void handle_pinch_end(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, pinch_end);
	struct wlr_event_pointer_pinch_end *event = data;
	wlr_pointer_gestures_v1_send_pinch_end(p->gestures, p->server->seat,
		event->time_msec, event->cancelled);
}

static void handle_hold_begin(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, hold_begin);
	struct wlr_event_pointer_hold_begin *event = data;
	wlr_pointer_gestures_v1_send_hold_begin(p->gestures, p->server->seat,
		event->time_msec, event->fingers);
}

static void handle_hold_end(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, hold_end);
	struct wlr_event_pointer_hold_end *event = data;
	wlr_pointer_gestures_v1_send_hold_end(p->gestures, p->server->seat,
		event->time_msec, event->cancelled);
}

/* ---- foreign toplevels -------------------------------------------------- */

struct vt_foreign_toplevel {
	struct vt_view *view;
	struct wlr_foreign_toplevel_handle_v1 *handle;
	struct wlr_output *output; /* the one sent, or NULL */
	struct wl_listener request_activate;
	struct wl_listener request_close;
	struct wl_listener request_minimize;
	struct wl_listener request_maximize;
	struct wl_listener request_fullscreen;
};

static void foreign_handle_request_activate(struct wl_listener *listener,
		void *data) {
	struct vt_foreign_toplevel *foreign =
		wl_container_of(listener, foreign, request_activate);
	struct vt_view *view = foreign->view;
	vt_view_focus(view, view->surface);
	vt_input_update_pointer_focus(view->server);
}

/* A taskbar minimizes the window, or brings it back (focused). */
static void foreign_handle_request_minimize(struct wl_listener *listener,
		void *data) {
	struct vt_foreign_toplevel *foreign =
		wl_container_of(listener, foreign, request_minimize);
	struct wlr_foreign_toplevel_handle_v1_minimized_event *event = data;
	struct vt_view *view = foreign->view;
	if (event->minimized) {
		vt_view_minimize(view);
	} else if (view->minimized) {
		vt_view_focus(view, view->surface);
		vt_input_update_pointer_focus(view->server);
	}
}

/* A taskbar's maximize or fullscreen request goes the way the client's own
 * xdg_toplevel request goes (vt_view_request_fill: kiosk windows stay
 * filling their output); a minimized window it fills comes back, focused,
 * as a taskbar shows the window it acts on. The fullscreen request's
 * output is not honoured, as for xdg_toplevel.set_fullscreen. */
static void foreign_request_fill(struct vt_view *view, bool requested,
		bool fullscreen) {
	if (requested && view->minimized) {
		vt_view_focus(view, view->surface);
		vt_input_update_pointer_focus(view->server);
	}
	vt_view_request_fill(view, requested, fullscreen);
}

static void foreign_handle_request_maximize(struct wl_listener *listener,
		void *data) {
	struct vt_foreign_toplevel *foreign =
		wl_container_of(listener, foreign, request_maximize);
	struct wlr_foreign_toplevel_handle_v1_maximized_event *event = data;
	foreign_request_fill(foreign->view, event->maximized, false);
}

static void foreign_handle_request_fullscreen(struct wl_listener *listener,
		void *data) {
	struct vt_foreign_toplevel *foreign =
		wl_container_of(listener, foreign, request_fullscreen);
	struct wlr_foreign_toplevel_handle_v1_fullscreen_event *event = data;
	foreign_request_fill(foreign->view, event->fullscreen, true);
}

static void foreign_handle_request_close(struct wl_listener *listener,
		void *data) {
	struct vt_foreign_toplevel *foreign =
		wl_container_of(listener, foreign, request_close);
	vt_view_close(foreign->view);
}

void vt_foreign_toplevel_update_names(struct vt_view *view) {
	struct vt_foreign_toplevel *foreign = view->foreign;
	if (foreign == NULL) {
		return;
	}
	const char *title = view->impl->get_title(view);
	const char *app_id = view->impl->get_app_id(view);
	wlr_foreign_toplevel_handle_v1_set_title(foreign->handle,
		title != NULL ? title : "");
	wlr_foreign_toplevel_handle_v1_set_app_id(foreign->handle,
		app_id != NULL ? app_id : "");
}

void vt_foreign_toplevel_update_output(struct vt_view *view) {
	struct vt_foreign_toplevel *foreign = view->foreign;
	if (foreign == NULL) {
		return;
	}
	struct vt_output *output = vt_view_output(view);
	struct wlr_output *wlr_output = output != NULL ?
		vt_output_wlr(output) : NULL;
	if (wlr_output == foreign->output) {
		return;
	}
	if (foreign->output != NULL) {
		wlr_foreign_toplevel_handle_v1_output_leave(foreign->handle,
			foreign->output);
	}
	foreign->output = wlr_output;
	if (wlr_output != NULL) {
		wlr_foreign_toplevel_handle_v1_output_enter(foreign->handle,
			wlr_output);
	}
}

void vt_foreign_toplevel_map(struct vt_view *view) {
	struct vt_protocols *p = view->server->protocols;
	if (p == NULL || view->foreign != NULL) {
		return;
	}
	struct vt_foreign_toplevel *foreign = calloc(1, sizeof(*foreign));
	if (foreign == NULL) {
		return;
	}
	foreign->handle = wlr_foreign_toplevel_handle_v1_create(
		p->foreign_toplevel);
	if (foreign->handle == NULL) {
		free(foreign);
		return;
	}
	foreign->view = view;
	view->foreign = foreign;
	foreign->request_activate.notify = foreign_handle_request_activate;
	wl_signal_add(&foreign->handle->events.request_activate,
		&foreign->request_activate);
	foreign->request_close.notify = foreign_handle_request_close;
	wl_signal_add(&foreign->handle->events.request_close,
		&foreign->request_close);
	foreign->request_minimize.notify = foreign_handle_request_minimize;
	wl_signal_add(&foreign->handle->events.request_minimize,
		&foreign->request_minimize);
	foreign->request_maximize.notify = foreign_handle_request_maximize;
	wl_signal_add(&foreign->handle->events.request_maximize,
		&foreign->request_maximize);
	foreign->request_fullscreen.notify = foreign_handle_request_fullscreen;
	wl_signal_add(&foreign->handle->events.request_fullscreen,
		&foreign->request_fullscreen);
	vt_foreign_toplevel_update_names(view);
	vt_foreign_toplevel_update_output(view);
	wlr_foreign_toplevel_handle_v1_set_activated(foreign->handle,
		view->server->focused_view == view);
	wlr_foreign_toplevel_handle_v1_set_minimized(foreign->handle,
		view->minimized);
	vt_foreign_toplevel_update_fill(view);
}

void vt_foreign_toplevel_unmap(struct vt_view *view) {
	struct vt_foreign_toplevel *foreign = view->foreign;
	if (foreign == NULL) {
		return;
	}
	wl_list_remove(&foreign->request_activate.link);
	wl_list_remove(&foreign->request_close.link);
	wl_list_remove(&foreign->request_minimize.link);
	wl_list_remove(&foreign->request_maximize.link);
	wl_list_remove(&foreign->request_fullscreen.link);
	wlr_foreign_toplevel_handle_v1_destroy(foreign->handle);
	free(foreign);
	view->foreign = NULL;
}

void vt_foreign_toplevel_set_activated(struct vt_view *view,
		bool activated) {
	if (view->foreign != NULL) {
		wlr_foreign_toplevel_handle_v1_set_activated(view->foreign->handle,
			activated);
	}
}

void vt_foreign_toplevel_set_minimized(struct vt_view *view,
		bool minimized) {
	if (view->foreign != NULL) {
		wlr_foreign_toplevel_handle_v1_set_minimized(view->foreign->handle,
			minimized);
	}
}

/* The states vitrail last asked of the client (acknowledged or not): a
 * taskbar learns of a maximize at once, not only once the client commits
 * its new size, which it may never do (a client that does not redraw). */
void vt_foreign_toplevel_update_fill(struct vt_view *view) {
	if (view->foreign == NULL) {
		return;
	}
	uint32_t fill = view->impl->get_fill(view, true);
	wlr_foreign_toplevel_handle_v1_set_maximized(view->foreign->handle,
		fill & VT_FILL_MAXIMIZED);
	wlr_foreign_toplevel_handle_v1_set_fullscreen(view->foreign->handle,
		fill & VT_FILL_FULLSCREEN);
}

/* ---- input method and text input ---------------------------------------- */

struct text_input {
	struct vt_protocols *protocols;
	struct wlr_text_input_v3 *wlr;
	struct wl_list link; /* vt_protocols::text_inputs */
	struct wl_listener enable;
	struct wl_listener commit;
	struct wl_listener disable;
	struct wl_listener destroy;
};

/* The enabled text input of the focused surface, or NULL. */
static struct text_input *focused_text_input(struct vt_protocols *p) {
	struct text_input *ti;
	wl_list_for_each(ti, &p->text_inputs, link) {
		if (ti->wlr->focused_surface != NULL && ti->wlr->current_enabled) {
			return ti;
		}
	}
	return NULL;
}

/* Tell the input method the text input's state (after enable or commit). */
static void relay_state(struct vt_protocols *p, struct text_input *ti) {
	struct wlr_input_method_v2 *im = p->input_method;
	if (im == NULL) {
		return;
	}
	struct wlr_text_input_v3 *wlr = ti->wlr;
	if (wlr->active_features & WLR_TEXT_INPUT_V3_FEATURE_SURROUNDING_TEXT) {
		wlr_input_method_v2_send_surrounding_text(im,
			wlr->current.surrounding.text != NULL ?
			wlr->current.surrounding.text : "",
			wlr->current.surrounding.cursor,
			wlr->current.surrounding.anchor);
	}
	wlr_input_method_v2_send_text_change_cause(im,
		wlr->current.text_change_cause);
	if (wlr->active_features & WLR_TEXT_INPUT_V3_FEATURE_CONTENT_TYPE) {
		wlr_input_method_v2_send_content_type(im,
			wlr->current.content_type.hint,
			wlr->current.content_type.purpose);
	}
	wlr_input_method_v2_send_done(im);
}

static void text_input_handle_enable(struct wl_listener *listener,
		void *data) {
	struct text_input *ti = wl_container_of(listener, ti, enable);
	struct vt_protocols *p = ti->protocols;
	if (p->input_method != NULL) {
		wlr_input_method_v2_send_activate(p->input_method);
		relay_state(p, ti);
	}
}

static void text_input_handle_commit(struct wl_listener *listener,
		void *data) {
	struct text_input *ti = wl_container_of(listener, ti, commit);
	if (ti->wlr->current_enabled) {
		relay_state(ti->protocols, ti);
	}
}

static void text_input_handle_disable(struct wl_listener *listener,
		void *data) {
	struct text_input *ti = wl_container_of(listener, ti, disable);
	struct vt_protocols *p = ti->protocols;
	if (p->input_method != NULL) {
		wlr_input_method_v2_send_deactivate(p->input_method);
		wlr_input_method_v2_send_done(p->input_method);
	}
}

static void text_input_handle_destroy(struct wl_listener *listener,
		void *data) {
	struct text_input *ti = wl_container_of(listener, ti, destroy);
	if (ti->wlr->current_enabled) {
		text_input_handle_disable(&ti->disable, NULL);
	}
	wl_list_remove(&ti->enable.link);
	wl_list_remove(&ti->commit.link);
	wl_list_remove(&ti->disable.link);
	wl_list_remove(&ti->destroy.link);
	wl_list_remove(&ti->link);
	free(ti);
}

static void handle_new_text_input(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, new_text_input);
	struct wlr_text_input_v3 *wlr = data;
	if (wlr->seat != p->server->seat) {
		return;
	}
	struct text_input *ti = calloc(1, sizeof(*ti));
	if (ti == NULL) {
		wl_resource_post_no_memory(wlr->resource);
		return;
	}
	ti->protocols = p;
	ti->wlr = wlr;
	ti->enable.notify = text_input_handle_enable;
	wl_signal_add(&wlr->events.enable, &ti->enable);
	ti->commit.notify = text_input_handle_commit;
	wl_signal_add(&wlr->events.commit, &ti->commit);
	ti->disable.notify = text_input_handle_disable;
	wl_signal_add(&wlr->events.disable, &ti->disable);
	ti->destroy.notify = text_input_handle_destroy;
	wl_signal_add(&wlr->events.destroy, &ti->destroy);
	wl_list_insert(&p->text_inputs, &ti->link);
	/* already focused: enter now */
	struct wlr_surface *focus =
		p->server->seat->keyboard_state.focused_surface;
	if (focus != NULL && wl_resource_get_client(wlr->resource) ==
			wl_resource_get_client(focus->resource)) {
		wlr_text_input_v3_send_enter(wlr, focus);
	}
}

static void input_method_handle_commit(struct wl_listener *listener,
		void *data) {
	struct vt_protocols *p = wl_container_of(listener, p,
		input_method_commit);
	struct wlr_input_method_v2 *im = p->input_method;
	struct text_input *ti = focused_text_input(p);
	if (ti == NULL) {
		return;
	}
	struct wlr_text_input_v3 *wlr = ti->wlr;
	if (im->current.preedit.text != NULL) {
		wlr_text_input_v3_send_preedit_string(wlr, im->current.preedit.text,
			im->current.preedit.cursor_begin,
			im->current.preedit.cursor_end);
	}
	if (im->current.commit_text != NULL) {
		wlr_text_input_v3_send_commit_string(wlr, im->current.commit_text);
	}
	if (im->current.delete.before_length != 0 ||
			im->current.delete.after_length != 0) {
		wlr_text_input_v3_send_delete_surrounding_text(wlr,
			im->current.delete.before_length,
			im->current.delete.after_length);
	}
	wlr_text_input_v3_send_done(wlr);
}

static void input_method_handle_destroy(struct wl_listener *listener,
		void *data) {
	struct vt_protocols *p = wl_container_of(listener, p,
		input_method_destroy);
	wl_list_remove(&p->input_method_commit.link);
	wl_list_remove(&p->input_method_destroy.link);
	p->input_method = NULL;
	struct text_input *ti = focused_text_input(p);
	if (ti != NULL) {
		/* what the method had composed goes away */
		wlr_text_input_v3_send_preedit_string(ti->wlr, NULL, 0, 0);
		wlr_text_input_v3_send_done(ti->wlr);
	}
}

static void handle_new_input_method(struct wl_listener *listener,
		void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, new_input_method);
	struct wlr_input_method_v2 *im = data;
	if (im->seat != p->server->seat || p->input_method != NULL) {
		/* one per seat: the protocol's answer to a second one */
		wlr_input_method_v2_send_unavailable(im);
		return;
	}
	p->input_method = im;
	p->input_method_commit.notify = input_method_handle_commit;
	wl_signal_add(&im->events.commit, &p->input_method_commit);
	p->input_method_destroy.notify = input_method_handle_destroy;
	wl_signal_add(&im->events.destroy, &p->input_method_destroy);
	struct text_input *ti = focused_text_input(p);
	if (ti != NULL) {
		wlr_input_method_v2_send_activate(im);
		relay_state(p, ti);
	}
}

/* ---- keyboard focus: text inputs and shortcut inhibitors ---------------- */

static void handle_keyboard_focus_change(struct wl_listener *listener,
		void *data) {
	struct vt_protocols *p =
		wl_container_of(listener, p, keyboard_focus_change);
	struct wlr_seat_keyboard_focus_change_event *event = data;
	struct text_input *ti;
	wl_list_for_each(ti, &p->text_inputs, link) {
		struct wlr_text_input_v3 *wlr = ti->wlr;
		if (wlr->focused_surface != NULL &&
				wlr->focused_surface != event->new_surface) {
			if (wlr->current_enabled && p->input_method != NULL) {
				wlr_input_method_v2_send_deactivate(p->input_method);
				wlr_input_method_v2_send_done(p->input_method);
			}
			wlr_text_input_v3_send_leave(wlr);
		}
		if (event->new_surface != NULL && wlr->focused_surface == NULL &&
				wl_resource_get_client(wlr->resource) ==
				wl_resource_get_client(event->new_surface->resource)) {
			wlr_text_input_v3_send_enter(wlr, event->new_surface);
		}
	}
	struct wlr_keyboard_shortcuts_inhibitor_v1 *inhibitor;
	wl_list_for_each(inhibitor, &p->shortcuts_inhibit->inhibitors, link) {
		if (inhibitor->surface == event->new_surface) {
			wlr_keyboard_shortcuts_inhibitor_v1_activate(inhibitor);
		} else if (inhibitor->active) {
			wlr_keyboard_shortcuts_inhibitor_v1_deactivate(inhibitor);
		}
	}
	/* a window that loses the keyboard loses its pointer constraint */
	constraint_update(p);
}

static void handle_new_shortcuts_inhibitor(struct wl_listener *listener,
		void *data) {
	struct vt_protocols *p =
		wl_container_of(listener, p, new_shortcuts_inhibitor);
	struct wlr_keyboard_shortcuts_inhibitor_v1 *inhibitor = data;
	if (inhibitor->surface == p->server->seat->keyboard_state.focused_surface) {
		wlr_keyboard_shortcuts_inhibitor_v1_activate(inhibitor);
	}
}

bool vt_protocols_shortcuts_inhibited(struct vt_server *server) {
	struct vt_protocols *p = server->protocols;
	if (p == NULL) {
		return false;
	}
	struct wlr_surface *focus = server->seat->keyboard_state.focused_surface;
	struct wlr_keyboard_shortcuts_inhibitor_v1 *inhibitor;
	wl_list_for_each(inhibitor, &p->shortcuts_inhibit->inhibitors, link) {
		if (inhibitor->active && inhibitor->surface == focus &&
				focus != NULL) {
			return true;
		}
	}
	return false;
}

/* ---- tablets ------------------------------------------------------------ */

struct tablet {
	struct wlr_tablet_v2_tablet *wlr;
	struct wlr_input_device *device;
	struct wl_list link; /* vt_protocols::tablets */
	struct wl_listener destroy;
};

struct tablet_tool {
	struct wlr_tablet_v2_tablet_tool *wlr;
	struct wl_listener destroy;
};

static void tablet_handle_destroy(struct wl_listener *listener, void *data) {
	struct tablet *tablet = wl_container_of(listener, tablet, destroy);
	wl_list_remove(&tablet->destroy.link);
	wl_list_remove(&tablet->link);
	free(tablet);
}

void vt_protocols_add_tablet(struct vt_server *server,
		struct wlr_input_device *device) {
	struct vt_protocols *p = server->protocols;
	struct tablet *tablet = calloc(1, sizeof(*tablet));
	if (p == NULL || tablet == NULL) {
		free(tablet);
		return;
	}
	tablet->wlr = wlr_tablet_create(p->tablet_manager, server->seat, device);
	if (tablet->wlr == NULL) {
		free(tablet);
		return;
	}
	tablet->device = device;
	tablet->destroy.notify = tablet_handle_destroy;
	wl_signal_add(&device->events.destroy, &tablet->destroy);
	wl_list_insert(&p->tablets, &tablet->link);
	wlr_cursor_attach_input_device(server->cursor, device);
}

static struct tablet *tablet_of(struct vt_protocols *p,
		struct wlr_input_device *device) {
	struct tablet *tablet;
	wl_list_for_each(tablet, &p->tablets, link) {
		if (tablet->device == device) {
			return tablet;
		}
	}
	return NULL;
}

static void tool_handle_destroy(struct wl_listener *listener, void *data) {
	struct tablet_tool *tool = wl_container_of(listener, tool, destroy);
	wl_list_remove(&tool->destroy.link);
	free(tool);
}

/* The v2 tool of a backend tool, made at its first event. */
static struct wlr_tablet_v2_tablet_tool *tool_of(struct vt_protocols *p,
		struct wlr_tablet_tool *wlr_tool) {
	struct tablet_tool *tool = wlr_tool->data;
	if (tool != NULL) {
		return tool->wlr;
	}
	tool = calloc(1, sizeof(*tool));
	if (tool == NULL) {
		return NULL;
	}
	tool->wlr = wlr_tablet_tool_create(p->tablet_manager, p->server->seat,
		wlr_tool);
	if (tool->wlr == NULL) {
		free(tool);
		return NULL;
	}
	tool->destroy.notify = tool_handle_destroy;
	wl_signal_add(&wlr_tool->events.destroy, &tool->destroy);
	wlr_tool->data = tool;
	return tool->wlr;
}

/* Move the cursor to the tool (absolute 0..1 coordinates; NAN: keep an
 * axis) and tell the surface under it, when it takes tablet events. */
static void tool_move(struct vt_protocols *p, struct wlr_input_device *device,
		struct wlr_tablet_tool *wlr_tool, double x, double y,
		uint32_t time_msec) {
	struct vt_server *server = p->server;
	struct tablet *tablet = tablet_of(p, device);
	struct wlr_tablet_v2_tablet_tool *tool = tool_of(p, wlr_tool);
	if (tablet == NULL || tool == NULL) {
		return;
	}
	wlr_cursor_warp_absolute(server->cursor, device, x, y);
	double sx, sy;
	struct wlr_surface *surface = NULL;
	vt_view_at(server, server->cursor->x, server->cursor->y, &surface,
		&sx, &sy);
	if (surface == NULL || !wlr_surface_accepts_tablet_v2(tablet->wlr,
			surface)) {
		wlr_tablet_v2_tablet_tool_notify_proximity_out(tool);
		vt_input_update_pointer_focus(server);
		return;
	}
	wlr_tablet_v2_tablet_tool_notify_proximity_in(tool, tablet->wlr, surface);
	wlr_tablet_v2_tablet_tool_notify_motion(tool, sx, sy);
}

static void handle_tool_axis(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, tool_axis);
	struct wlr_event_tablet_tool_axis *event = data;
	vt_protocols_input_activity(p->server);
	double x = event->updated_axes & WLR_TABLET_TOOL_AXIS_X ?
		event->x : NAN;
	double y = event->updated_axes & WLR_TABLET_TOOL_AXIS_Y ?
		event->y : NAN;
	tool_move(p, event->device, event->tool, x, y, event->time_msec);
	struct wlr_tablet_v2_tablet_tool *tool = tool_of(p, event->tool);
	if (tool == NULL || tool->focused_surface == NULL) {
		return;
	}
	if (event->updated_axes & WLR_TABLET_TOOL_AXIS_PRESSURE) {
		wlr_tablet_v2_tablet_tool_notify_pressure(tool, event->pressure);
	}
	if (event->updated_axes & WLR_TABLET_TOOL_AXIS_DISTANCE) {
		wlr_tablet_v2_tablet_tool_notify_distance(tool, event->distance);
	}
	if (event->updated_axes & (WLR_TABLET_TOOL_AXIS_TILT_X |
			WLR_TABLET_TOOL_AXIS_TILT_Y)) {
		wlr_tablet_v2_tablet_tool_notify_tilt(tool, event->tilt_x,
			event->tilt_y);
	}
	if (event->updated_axes & WLR_TABLET_TOOL_AXIS_ROTATION) {
		wlr_tablet_v2_tablet_tool_notify_rotation(tool, event->rotation);
	}
	if (event->updated_axes & WLR_TABLET_TOOL_AXIS_SLIDER) {
		wlr_tablet_v2_tablet_tool_notify_slider(tool, event->slider);
	}
	if (event->updated_axes & WLR_TABLET_TOOL_AXIS_WHEEL) {
		wlr_tablet_v2_tablet_tool_notify_wheel(tool, event->wheel_delta, 0);
	}
}

static void handle_tool_proximity(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, tool_proximity);
	struct wlr_event_tablet_tool_proximity *event = data;
	vt_protocols_input_activity(p->server);
	if (event->state == WLR_TABLET_TOOL_PROXIMITY_IN) {
		tool_move(p, event->device, event->tool, event->x, event->y,
			event->time_msec);
		return;
	}
	struct wlr_tablet_v2_tablet_tool *tool = tool_of(p, event->tool);
	if (tool != NULL) {
		wlr_tablet_v2_tablet_tool_notify_proximity_out(tool);
	}
}

static void handle_tool_tip(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, tool_tip);
	struct wlr_event_tablet_tool_tip *event = data;
	vt_protocols_input_activity(p->server);
	struct wlr_tablet_v2_tablet_tool *tool = tool_of(p, event->tool);
	if (tool == NULL || tool->focused_surface == NULL) {
		return;
	}
	if (event->state == WLR_TABLET_TOOL_TIP_DOWN) {
		wlr_tablet_v2_tablet_tool_notify_down(tool);
		wlr_tablet_tool_v2_start_implicit_grab(tool);
		struct vt_view *view = toplevel_view(tool->focused_surface);
		if (view != NULL) {
			vt_view_focus(view, view->surface);
		}
	} else {
		wlr_tablet_v2_tablet_tool_notify_up(tool);
	}
}

static void handle_tool_button(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, tool_button);
	struct wlr_event_tablet_tool_button *event = data;
	vt_protocols_input_activity(p->server);
	struct wlr_tablet_v2_tablet_tool *tool = tool_of(p, event->tool);
	if (tool != NULL && tool->focused_surface != NULL) {
		wlr_tablet_v2_tablet_tool_notify_button(tool, event->button,
			(enum zwp_tablet_pad_v2_button_state)event->state);
	}
}

/* ---- output power ------------------------------------------------------- */

/*
 * An output the backend cannot disable (wlroots 0.15 disables DRM outputs
 * only) is blanked instead: an opaque black node above everything, the
 * cursor included, covers it, and vitrail tells the clients itself that
 * its mode is off (wlroots tells them only of modes the output commits).
 * A client that asks for the object while an output is blanked hears
 * "on" from wlroots first, then the next change.
 */
struct blank {
	struct vt_protocols *protocols;
	struct wlr_output *output;
	struct vr_node *node;
	struct wl_list link; /* vt_protocols::blanks */
	struct wl_listener output_destroy;
};

static void send_power_mode(struct vt_protocols *p, struct wlr_output *output,
		enum zwlr_output_power_v1_mode mode) {
	struct wlr_output_power_v1 *power;
	wl_list_for_each(power, &p->output_power->output_powers, link) {
		if (power->output == output) {
			zwlr_output_power_v1_send_mode(power->resource, mode);
		}
	}
}

static void blank_place(struct blank *blank) {
	struct vt_server *server = blank->protocols->server;
	struct wlr_box *box = wlr_output_layout_get_box(server->layout,
		blank->output);
	vr_node_set_enabled(blank->node, box != NULL);
	vr_node_raise_to_top(blank->node);
	if (box != NULL) {
		vr_node_set_position(blank->node, box->x, box->y);
		vr_node_set_rect(blank->node, box->width, box->height,
			(struct vr_color){ 0, 0, 0, 1 });
	}
	vt_server_schedule_update(server);
}

static void blank_destroy(struct blank *blank) {
	vt_server_schedule_update(blank->protocols->server);
	vr_node_destroy(blank->node);
	wl_list_remove(&blank->output_destroy.link);
	wl_list_remove(&blank->link);
	free(blank);
}

static void blank_handle_output_destroy(struct wl_listener *listener,
		void *data) {
	struct blank *blank = wl_container_of(listener, blank, output_destroy);
	blank_destroy(blank);
}

static struct blank *blank_of(struct vt_protocols *p,
		struct wlr_output *output) {
	struct blank *blank;
	wl_list_for_each(blank, &p->blanks, link) {
		if (blank->output == output) {
			return blank;
		}
	}
	return NULL;
}

void vt_protocols_outputs_changed(struct vt_server *server) {
	struct vt_protocols *p = server->protocols;
	if (p == NULL) {
		return;
	}
	struct blank *blank;
	wl_list_for_each(blank, &p->blanks, link) {
		blank_place(blank);
	}
}

static void handle_set_power_mode(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, set_power_mode);
	struct wlr_output_power_v1_set_mode_event *event = data;
	bool on = event->mode == ZWLR_OUTPUT_POWER_V1_MODE_ON;
	struct blank *blank = blank_of(p, event->output);
	if (on && blank != NULL) {
		blank_destroy(blank);
		send_power_mode(p, event->output, ZWLR_OUTPUT_POWER_V1_MODE_ON);
		return;
	}
	if (vt_output_set_power(p->server, event->output, on) || on ||
			blank != NULL) {
		return;
	}
	blank = calloc(1, sizeof(*blank));
	if (blank == NULL) {
		return;
	}
	blank->node = vr_node_create(p->server->tree);
	if (blank->node == NULL) {
		free(blank);
		return;
	}
	blank->protocols = p;
	blank->output = event->output;
	vr_node_set_parent(blank->node, vr_tree_root(p->server->tree));
	vr_node_raise_to_top(blank->node);
	blank->output_destroy.notify = blank_handle_output_destroy;
	wl_signal_add(&event->output->events.destroy, &blank->output_destroy);
	wl_list_insert(&p->blanks, &blank->link);
	blank_place(blank);
	wlr_log(WLR_INFO, "%s: blanked (powered off)", event->output->name);
	send_power_mode(p, event->output, ZWLR_OUTPUT_POWER_V1_MODE_OFF);
}

/* ---- input inhibitor ---------------------------------------------------- */

static void handle_input_inhibit_activate(struct wl_listener *listener,
		void *data) {
	struct vt_protocols *p =
		wl_container_of(listener, p, input_inhibit_activate);
	struct wlr_seat *seat = p->server->seat;
	struct wl_client *client = p->input_inhibit->active_client;
	struct wlr_surface *focus = seat->keyboard_state.focused_surface;
	if (focus != NULL && wl_resource_get_client(focus->resource) != client) {
		wlr_seat_keyboard_notify_clear_focus(seat);
	}
	vt_input_update_pointer_focus(p->server);
}

static void handle_input_inhibit_deactivate(struct wl_listener *listener,
		void *data) {
	struct vt_protocols *p =
		wl_container_of(listener, p, input_inhibit_deactivate);
	struct vt_view *view = p->server->focused_view;
	if (view != NULL && view->mapped) {
		p->server->focused_view = NULL;
		vt_view_focus(view, view->surface);
	}
	vt_input_update_pointer_focus(p->server);
}

bool vt_protocols_client_allowed(struct vt_server *server,
		struct wl_client *client) {
	struct vt_protocols *p = server->protocols;
	return p == NULL || p->input_inhibit->active_client == NULL ||
		p->input_inhibit->active_client == client;
}

/* ---- limits ------------------------------------------------------------- */

#define FEEDBACK_MAX 1024
#define ACTIVATION_TOKENS_MAX 256

/* The oldest tokens past ACTIVATION_TOKENS_MAX expire now: wlroots 0.15
 * has no call to destroy a token, so their expiry timer (wlroots' own
 * path) fires at once. */
static void trim_tokens(void *data) {
	struct vt_protocols *p = data;
	p->trim_tokens = NULL;
	size_t n = (size_t)wl_list_length(&p->activation->tokens);
	struct wlr_xdg_activation_token_v1 *token;
	/* newest first in the list: the oldest are at its end */
	wl_list_for_each_reverse(token, &p->activation->tokens, link) {
		if (n <= ACTIVATION_TOKENS_MAX) {
			break;
		}
		if (token->timeout != NULL) {
			wl_event_source_timer_update(token->timeout, 1);
		}
		n--;
	}
}

/* Bytes per pixel of the wl_shm formats vitrail reads (0: another one,
 * which the commit refuses). */
static uint32_t shm_format_bytes(uint32_t format) {
	switch (format) {
	case WL_SHM_FORMAT_ARGB8888:
	case WL_SHM_FORMAT_XRGB8888:
	case WL_SHM_FORMAT_ABGR8888:
	case WL_SHM_FORMAT_XBGR8888:
		return 4;
	case WL_SHM_FORMAT_RGB565:
		return 2;
	default:
		return 0;
	}
}

static void limits_check(void *data, enum wl_protocol_logger_type type,
		const struct wl_protocol_logger_message *message) {
	struct vt_protocols *p = data;
	if (type != WL_PROTOCOL_LOGGER_REQUEST) {
		return;
	}
	const char *class = wl_resource_get_class(message->resource);
	const char *name = message->message->name;
	if (strcmp(class, "wp_presentation") == 0 &&
			strcmp(name, "feedback") == 0) {
		struct vt_surface *surface = message->arguments_count == 2 &&
			message->arguments[0].o != NULL ?
			vt_surface_from_wlr(wlr_surface_from_resource(
				(struct wl_resource *)message->arguments[0].o)) : NULL;
		if (surface != NULL &&
				++surface->feedback_requests > FEEDBACK_MAX) {
			wl_client_post_implementation_error(
				wl_resource_get_client(message->resource), "more than %d "
				"wp_presentation.feedback requests for wl_surface@%u "
				"before its commit", FEEDBACK_MAX,
				wl_resource_get_id(surface->wlr_surface->resource));
		}
	} else if (strcmp(class, "wl_shm_pool") == 0 &&
			strcmp(name, "create_buffer") == 0 &&
			message->arguments_count == 6) {
		/* libwayland 1.21 checks the stride against the width in
		 * pixels; a row is width * bytes per pixel (the request still
		 * runs: the client is cut off once it returns) */
		int32_t width = message->arguments[2].i;
		int32_t stride = message->arguments[4].i;
		uint32_t bpp = shm_format_bytes(message->arguments[5].u);
		if (bpp > 0 && width > 0 && width <= INT32_MAX / (int32_t)bpp &&
				stride < width * (int32_t)bpp) {
			wl_resource_post_error(message->resource,
				WL_SHM_ERROR_INVALID_STRIDE, "stride %d under %d pixels "
				"of %u bytes", stride, width, bpp);
		}
	} else if (strcmp(class, "xdg_activation_token_v1") == 0 &&
			strcmp(name, "commit") == 0 && p->trim_tokens == NULL) {
		/* after wlroots made the token */
		p->trim_tokens = wl_event_loop_add_idle(
			wl_display_get_event_loop(p->server->display),
			trim_tokens, p);
	}
}

/* ---- setup -------------------------------------------------------------- */

bool vt_protocols_init(struct vt_server *server) {
	struct vt_protocols *p = calloc(1, sizeof(*p));
	if (p == NULL) {
		return false;
	}
	struct wl_display *display = server->display;
	p->server = server;
	wl_list_init(&p->idle_inhibitors);
	wl_list_init(&p->text_inputs);
	wl_list_init(&p->tablets);
	wl_list_init(&p->blanks);
	/* each goes with the display */
	p->idle = wlr_idle_create(display);
	p->idle_inhibit = wlr_idle_inhibit_v1_create(display);
	p->activation = wlr_xdg_activation_v1_create(display);
	p->constraints = wlr_pointer_constraints_v1_create(display);
	p->relative_pointer = wlr_relative_pointer_manager_v1_create(display);
	p->gestures = wlr_pointer_gestures_v1_create(display);
	p->foreign_toplevel = wlr_foreign_toplevel_manager_v1_create(display);
	p->input_method_manager = wlr_input_method_manager_v2_create(display);
	p->text_input_manager = wlr_text_input_manager_v3_create(display);
	p->shortcuts_inhibit = wlr_keyboard_shortcuts_inhibit_v1_create(display);
	p->foreign_registry = wlr_xdg_foreign_registry_create(display);
	p->tablet_manager = wlr_tablet_v2_create(display);
	p->output_power = wlr_output_power_manager_v1_create(display);
	p->xdg_decoration = wlr_xdg_decoration_manager_v1_create(display);
	p->kde_decoration = wlr_server_decoration_manager_create(display);
	p->input_inhibit = wlr_input_inhibit_manager_create(display);
	if (p->idle == NULL || p->idle_inhibit == NULL ||
			p->activation == NULL || p->constraints == NULL ||
			p->relative_pointer == NULL || p->gestures == NULL ||
			p->foreign_toplevel == NULL ||
			p->input_method_manager == NULL ||
			p->text_input_manager == NULL ||
			p->shortcuts_inhibit == NULL || p->foreign_registry == NULL ||
			p->tablet_manager == NULL || p->output_power == NULL ||
			p->xdg_decoration == NULL || p->kde_decoration == NULL ||
			p->input_inhibit == NULL ||
			wlr_xdg_foreign_v1_create(display, p->foreign_registry) == NULL ||
			wlr_xdg_foreign_v2_create(display, p->foreign_registry) == NULL ||
			wlr_data_control_manager_v1_create(display) == NULL ||
			wlr_gamma_control_manager_v1_create(display) == NULL) {
		wlr_log(WLR_ERROR, "cannot create the wlroots protocol globals");
		free(p);
		return false;
	}
	if (server->allocator->buffer_caps & WLR_BUFFER_CAP_DMABUF) {
		wlr_export_dmabuf_manager_v1_create(display);
	} else {
		wlr_log(WLR_INFO, "output buffers are not dmabufs: no "
			"wlr-export-dmabuf (screencopy serves screenshots)");
	}
	kde_decoration_set_default(p);
	server->protocols = p;
	p->limits = wl_display_add_protocol_logger(display, limits_check, p);

	p->request_activate.notify = handle_request_activate;
	wl_signal_add(&p->activation->events.request_activate,
		&p->request_activate);
	p->new_idle_inhibitor.notify = handle_new_idle_inhibitor;
	wl_signal_add(&p->idle_inhibit->events.new_inhibitor,
		&p->new_idle_inhibitor);
	p->new_constraint.notify = handle_new_constraint;
	wl_signal_add(&p->constraints->events.new_constraint,
		&p->new_constraint);
	p->pointer_focus_change.notify = handle_pointer_focus_change;
	wl_signal_add(&server->seat->pointer_state.events.focus_change,
		&p->pointer_focus_change);
	p->keyboard_focus_change.notify = handle_keyboard_focus_change;
	wl_signal_add(&server->seat->keyboard_state.events.focus_change,
		&p->keyboard_focus_change);
	struct wlr_cursor *cursor = server->cursor;
	p->swipe_begin.notify = handle_swipe_begin;
	wl_signal_add(&cursor->events.swipe_begin, &p->swipe_begin);
	p->swipe_update.notify = handle_swipe_update;
	wl_signal_add(&cursor->events.swipe_update, &p->swipe_update);
	p->swipe_end.notify = handle_swipe_end;
	wl_signal_add(&cursor->events.swipe_end, &p->swipe_end);
	p->pinch_begin.notify = handle_pinch_begin;
	wl_signal_add(&cursor->events.pinch_begin, &p->pinch_begin);
	p->pinch_update.notify = handle_pinch_update;
	wl_signal_add(&cursor->events.pinch_update, &p->pinch_update);
	p->pinch_end.notify = handle_pinch_end;
	wl_signal_add(&cursor->events.pinch_end, &p->pinch_end);
	p->hold_begin.notify = handle_hold_begin;
	wl_signal_add(&cursor->events.hold_begin, &p->hold_begin);
	p->hold_end.notify = handle_hold_end;
	wl_signal_add(&cursor->events.hold_end, &p->hold_end);
	p->new_input_method.notify = handle_new_input_method;
	wl_signal_add(&p->input_method_manager->events.input_method,
		&p->new_input_method);
	p->new_text_input.notify = handle_new_text_input;
	wl_signal_add(&p->text_input_manager->events.text_input,
		&p->new_text_input);
	p->new_shortcuts_inhibitor.notify = handle_new_shortcuts_inhibitor;
	wl_signal_add(&p->shortcuts_inhibit->events.new_inhibitor,
		&p->new_shortcuts_inhibitor);
	p->tool_axis.notify = handle_tool_axis;
	wl_signal_add(&cursor->events.tablet_tool_axis, &p->tool_axis);
	p->tool_proximity.notify = handle_tool_proximity;
	wl_signal_add(&cursor->events.tablet_tool_proximity, &p->tool_proximity);
	p->tool_tip.notify = handle_tool_tip;
	wl_signal_add(&cursor->events.tablet_tool_tip, &p->tool_tip);
	p->tool_button.notify = handle_tool_button;
	wl_signal_add(&cursor->events.tablet_tool_button, &p->tool_button);
	p->set_power_mode.notify = handle_set_power_mode;
	wl_signal_add(&p->output_power->events.set_mode, &p->set_power_mode);
	p->new_toplevel_decoration.notify = handle_new_toplevel_decoration;
	wl_signal_add(&p->xdg_decoration->events.new_toplevel_decoration,
		&p->new_toplevel_decoration);
	p->new_kde_decoration.notify = handle_new_kde_decoration;
	wl_signal_add(&p->kde_decoration->events.new_decoration,
		&p->new_kde_decoration);
	p->input_inhibit_activate.notify = handle_input_inhibit_activate;
	wl_signal_add(&p->input_inhibit->events.activate,
		&p->input_inhibit_activate);
	p->input_inhibit_deactivate.notify = handle_input_inhibit_deactivate;
	wl_signal_add(&p->input_inhibit->events.deactivate,
		&p->input_inhibit_deactivate);
	return true;
}

/* Before the display goes (clients are gone: their objects with them). */
void vt_protocols_finish(struct vt_server *server) {
	struct vt_protocols *p = server->protocols;
	if (p == NULL) {
		return;
	}
	constraint_deactivate(p);
	if (p->limits != NULL) {
		wl_protocol_logger_destroy(p->limits);
	}
	if (p->trim_tokens != NULL) {
		wl_event_source_remove(p->trim_tokens);
	}
	wl_list_remove(&p->request_activate.link);
	wl_list_remove(&p->new_idle_inhibitor.link);
	wl_list_remove(&p->new_constraint.link);
	wl_list_remove(&p->pointer_focus_change.link);
	wl_list_remove(&p->keyboard_focus_change.link);
	wl_list_remove(&p->swipe_begin.link);
	wl_list_remove(&p->swipe_update.link);
	wl_list_remove(&p->swipe_end.link);
	wl_list_remove(&p->pinch_begin.link);
	wl_list_remove(&p->pinch_update.link);
	wl_list_remove(&p->pinch_end.link);
	wl_list_remove(&p->hold_begin.link);
	wl_list_remove(&p->hold_end.link);
	wl_list_remove(&p->new_input_method.link);
	if (p->input_method != NULL) {
		wl_list_remove(&p->input_method_commit.link);
		wl_list_remove(&p->input_method_destroy.link);
	}
	wl_list_remove(&p->new_text_input.link);
	wl_list_remove(&p->new_shortcuts_inhibitor.link);
	wl_list_remove(&p->tool_axis.link);
	wl_list_remove(&p->tool_proximity.link);
	wl_list_remove(&p->tool_tip.link);
	wl_list_remove(&p->tool_button.link);
	wl_list_remove(&p->set_power_mode.link);
	wl_list_remove(&p->new_toplevel_decoration.link);
	wl_list_remove(&p->new_kde_decoration.link);
	wl_list_remove(&p->input_inhibit_activate.link);
	wl_list_remove(&p->input_inhibit_deactivate.link);
	struct tablet *tablet, *tmp;
	wl_list_for_each_safe(tablet, tmp, &p->tablets, link) {
		tablet_handle_destroy(&tablet->destroy, NULL);
	}
	struct blank *blank, *blank_tmp;
	wl_list_for_each_safe(blank, blank_tmp, &p->blanks, link) {
		blank_destroy(blank);
	}
	server->protocols = NULL;
	free(p);
}
