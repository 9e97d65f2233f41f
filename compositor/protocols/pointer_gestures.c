/*
 * pointer-gestures-v1 (set up by protocols.c): swipe, pinch and hold to
 * the client with pointer focus.
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

#include "server.h"

#include "protocols/protocols_internal.h"

/* ---- gestures ----------------------------------------------------------- */

void protocols_handle_swipe_begin(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, swipe_begin);
	struct wlr_event_pointer_swipe_begin *event = data;
	wlr_pointer_gestures_v1_send_swipe_begin(p->gestures, p->server->seat,
			event->time_msec, event->fingers);
}

void protocols_handle_swipe_update(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, swipe_update);
	struct wlr_event_pointer_swipe_update *event = data;
	wlr_pointer_gestures_v1_send_swipe_update(p->gestures, p->server->seat,
			event->time_msec, event->dx, event->dy);
}

void protocols_handle_swipe_end(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, swipe_end);
	struct wlr_event_pointer_swipe_end *event = data;
	wlr_pointer_gestures_v1_send_swipe_end(p->gestures, p->server->seat,
			event->time_msec, event->cancelled);
}

void protocols_handle_pinch_begin(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, pinch_begin);
	struct wlr_event_pointer_pinch_begin *event = data;
	wlr_pointer_gestures_v1_send_pinch_begin(p->gestures, p->server->seat,
			event->time_msec, event->fingers);
}

void protocols_handle_pinch_update(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, pinch_update);
	struct wlr_event_pointer_pinch_update *event = data;
	wlr_pointer_gestures_v1_send_pinch_update(p->gestures, p->server->seat,
			event->time_msec, event->dx, event->dy, event->scale,
			event->rotation);
}

void protocols_handle_pinch_end(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, pinch_end);
	struct wlr_event_pointer_pinch_end *event = data;
	wlr_pointer_gestures_v1_send_pinch_end(p->gestures, p->server->seat,
			event->time_msec, event->cancelled);
}

void protocols_handle_hold_begin(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, hold_begin);
	struct wlr_event_pointer_hold_begin *event = data;
	wlr_pointer_gestures_v1_send_hold_begin(p->gestures, p->server->seat,
			event->time_msec, event->fingers);
}

void protocols_handle_hold_end(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, hold_end);
	struct wlr_event_pointer_hold_end *event = data;
	wlr_pointer_gestures_v1_send_hold_end(p->gestures, p->server->seat,
			event->time_msec, event->cancelled);
}
