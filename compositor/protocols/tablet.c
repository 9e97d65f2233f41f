/*
 * tablet-v2 (set up by protocols.c): tablet tools join the seat.
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

#include "desktop/hit_test.h"
#include "desktop/view.h"
#include "protocols/protocols.h"
#include "server.h"

#include "protocols/protocols_internal.h"

/* ---- tablets ------------------------------------------------------------ */

struct tablet_tool {
	struct wlr_tablet_v2_tablet_tool *wlr;
	struct wl_listener destroy;
};

void protocols_tablet_handle_destroy(struct wl_listener *listener, void *data) {
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
	tablet->destroy.notify = protocols_tablet_handle_destroy;
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
	vt_view_at(server, server->cursor->x, server->cursor->y, &surface, &sx,
			&sy);
	if (surface == NULL ||
			!wlr_surface_accepts_tablet_v2(tablet->wlr, surface)) {
		wlr_tablet_v2_tablet_tool_notify_proximity_out(tool);
		wl_signal_emit(&server->events.pointer_focus, NULL);
		return;
	}
	wlr_tablet_v2_tablet_tool_notify_proximity_in(tool, tablet->wlr, surface);
	wlr_tablet_v2_tablet_tool_notify_motion(tool, sx, sy);
}

void protocols_handle_tool_axis(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, tool_axis);
	struct wlr_event_tablet_tool_axis *event = data;
	vt_protocols_input_activity(p->server);
	double x = event->updated_axes & WLR_TABLET_TOOL_AXIS_X ? event->x : NAN;
	double y = event->updated_axes & WLR_TABLET_TOOL_AXIS_Y ? event->y : NAN;
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
	if (event->updated_axes &
			(WLR_TABLET_TOOL_AXIS_TILT_X | WLR_TABLET_TOOL_AXIS_TILT_Y)) {
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

void protocols_handle_tool_proximity(struct wl_listener *listener, void *data) {
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

void protocols_handle_tool_tip(struct wl_listener *listener, void *data) {
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
		struct vt_view *view =
				vt_view_from_toplevel_surface(tool->focused_surface);
		if (view != NULL) {
			vt_view_focus(view, view->surface);
		}
	} else {
		wlr_tablet_v2_tablet_tool_notify_up(tool);
	}
}

void protocols_handle_tool_button(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, tool_button);
	struct wlr_event_tablet_tool_button *event = data;
	vt_protocols_input_activity(p->server);
	struct wlr_tablet_v2_tablet_tool *tool = tool_of(p, event->tool);
	if (tool != NULL && tool->focused_surface != NULL) {
		wlr_tablet_v2_tablet_tool_notify_button(tool, event->button,
				(enum zwp_tablet_pad_v2_button_state)event->state);
	}
}
