/*
 * xdg-activation-v1 (set up by protocols.c): tokens that activate
 * toplevels.
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
#include "server.h"

#include "protocols/protocols_internal.h"

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
	struct wlr_surface *focused = server->seat->keyboard_state.focused_surface;
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

void protocols_handle_request_activate(struct wl_listener *listener,
		void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, request_activate);
	struct wlr_xdg_activation_v1_request_activate_event *event = data;
	struct vt_view *view = vt_view_from_toplevel_surface(event->surface);
	if (view == NULL || !view->mapped) {
		return;
	}
	if (!activation_allowed(p->server, event->token)) {
		wlr_log(WLR_DEBUG,
				"xdg-activation: a token without the focused "
				"client's surface and input serial: %s stays where it is",
				view->impl->get_app_id(view) != NULL ?
						view->impl->get_app_id(view) :
						"the window");
		return;
	}
	vt_view_focus(view, view->surface);
	wl_signal_emit(&p->server->events.pointer_focus, NULL);
}
