/*
 * pointer-constraints-v1 and relative-pointer-v1 (set up by protocols.c).
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

#include "protocols/protocols.h"
#include "server.h"

#include "protocols/protocols_internal.h"

/* ---- pointer constraints and relative motion ---------------------------- */

void protocols_constraint_deactivate(struct vt_protocols *p) {
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
		struct wlr_xdg_surface *xdg = wlr_xdg_surface_from_wlr_surface(surface);
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
void protocols_constraint_update(struct vt_protocols *p) {
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
	protocols_constraint_deactivate(p);
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

void protocols_handle_new_constraint(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, new_constraint);
	protocols_constraint_update(p);
}

void protocols_handle_pointer_focus_change(struct wl_listener *listener,
		void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, pointer_focus_change);
	protocols_constraint_update(p);
}

bool vt_protocols_pointer_motion(struct vt_server *server, uint32_t time_msec,
		double *dx, double *dy, double dx_unaccel, double dy_unaccel) {
	struct vt_protocols *p = server->protocols;
	if (p == NULL) {
		return true;
	}
	wlr_relative_pointer_manager_v1_send_relative_motion(p->relative_pointer,
			server->seat, (uint64_t)time_msec * 1000, *dx, *dy, dx_unaccel,
			dy_unaccel);
	server->pointer_frame_owed = true; /* wl_pointer.frame closes it */
	if (p->constraint == NULL) {
		protocols_constraint_update(p);
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
	if (!pixman_region32_contains_point(region, (int)floor(sx), (int)floor(sy),
				&box)) {
		return false; /* outside already (the region changed) */
	}
	double x = sx + *dx, y = sy + *dy;
	x = x < box.x1 ? box.x1 : x > box.x2 - 1 ? box.x2 - 1 : x;
	y = y < box.y1 ? box.y1 : y > box.y2 - 1 ? box.y2 - 1 : y;
	*dx = x - sx;
	*dy = y - sy;
	return true;
}
