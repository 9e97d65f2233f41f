/*
 * wlr-input-inhibitor (set up by protocols.c): a client holding all input
 * (lockers).
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

#include "desktop/view.h"
#include "protocols/protocols.h"
#include "server.h"

#include "protocols/protocols_internal.h"

/* ---- input inhibitor ---------------------------------------------------- */

void protocols_handle_input_inhibit_activate(struct wl_listener *listener,
		void *data) {
	struct vt_protocols *p =
			wl_container_of(listener, p, input_inhibit_activate);
	struct wlr_seat *seat = p->server->seat;
	struct wl_client *client = p->input_inhibit->active_client;
	struct wlr_surface *focus = seat->keyboard_state.focused_surface;
	if (focus != NULL && wl_resource_get_client(focus->resource) != client) {
		wlr_seat_keyboard_notify_clear_focus(seat);
	}
	wl_signal_emit(&p->server->events.pointer_focus, NULL);
}

void protocols_handle_input_inhibit_deactivate(struct wl_listener *listener,
		void *data) {
	struct vt_protocols *p =
			wl_container_of(listener, p, input_inhibit_deactivate);
	struct vt_view *view = p->server->focused_view;
	if (view != NULL && view->mapped) {
		p->server->focused_view = NULL;
		vt_view_focus(view, view->surface);
	}
	wl_signal_emit(&p->server->events.pointer_focus, NULL);
}
