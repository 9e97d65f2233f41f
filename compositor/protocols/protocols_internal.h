/*
 * What the files of the protocols wlroots implements share (protocols.c
 * and one file per protocol beside it): struct vt_protocols, and the
 * helpers one file calls in another.
 */
#ifndef VITRAIL_PROTOCOLS_PROTOCOLS_INTERNAL_H
#define VITRAIL_PROTOCOLS_PROTOCOLS_INTERNAL_H

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
	/* server->events: the views' (foreign_toplevel.c,
	 * server_decoration.c) */
	struct wl_listener view_map;
	struct wl_listener view_unmap;
	struct wl_listener view_names;
	struct wl_listener view_output;
	struct wl_listener view_fill;
	struct wl_listener view_minimized;
	struct wl_listener view_activated;
	struct wl_listener new_xdg_toplevel;
	/* server->events.lock_raised (output_power.c) */
	struct wl_listener lock_raised;
};

/* A tablet of the seat (tablet.c). */
struct tablet {
	struct wlr_tablet_v2_tablet *wlr;
	struct wlr_input_device *device;
	struct wl_list link; /* vt_protocols::tablets */
	struct wl_listener destroy;
};

/* An output blanked instead of powered off (output_power.c). */
struct blank {
	struct vt_protocols *protocols;
	struct wlr_output *output;
	struct vr_node *node;
	struct wl_list link; /* vt_protocols::blanks */
	struct wl_listener output_destroy;
};

void protocols_handle_new_toplevel_decoration(struct wl_listener *listener,
		void *data);
/* The view's wlr-foreign-toplevel handle (foreign_toplevel.c): made at
 * map, gone at unmap; its activated, minimized, maximized and fullscreen
 * states and output follow the view (server->events' view_*); a
 * taskbar's minimize request minimizes it, unminimize brings it back
 * focused; maximize and fullscreen requests are the client's own
 * (vt_view_request_fill). */
void protocols_foreign_toplevel_listen(struct vt_protocols *p);
void protocols_foreign_toplevel_unlisten(struct vt_protocols *p);
void protocols_handle_new_xdg_toplevel(struct wl_listener *listener,
		void *data);
void protocols_handle_lock_raised(struct wl_listener *listener, void *data);
void protocols_handle_new_kde_decoration(struct wl_listener *listener,
		void *data);
void protocols_kde_decoration_set_default(struct vt_protocols *p);
void protocols_handle_request_activate(struct wl_listener *listener,
		void *data);
void protocols_handle_new_idle_inhibitor(struct wl_listener *listener,
		void *data);
void protocols_constraint_deactivate(struct vt_protocols *p);
void protocols_constraint_update(struct vt_protocols *p);
void protocols_handle_new_constraint(struct wl_listener *listener, void *data);
void protocols_handle_pointer_focus_change(struct wl_listener *listener,
		void *data);
void protocols_handle_swipe_begin(struct wl_listener *listener, void *data);
void protocols_handle_swipe_update(struct wl_listener *listener, void *data);
void protocols_handle_swipe_end(struct wl_listener *listener, void *data);
void protocols_handle_pinch_begin(struct wl_listener *listener, void *data);
void protocols_handle_pinch_update(struct wl_listener *listener, void *data);
void protocols_handle_pinch_end(struct wl_listener *listener, void *data);
void protocols_handle_hold_begin(struct wl_listener *listener, void *data);
void protocols_handle_hold_end(struct wl_listener *listener, void *data);
void protocols_handle_new_text_input(struct wl_listener *listener, void *data);
void protocols_handle_new_input_method(struct wl_listener *listener,
		void *data);
void protocols_handle_keyboard_focus_change(struct wl_listener *listener,
		void *data);
void protocols_handle_new_shortcuts_inhibitor(struct wl_listener *listener,
		void *data);
void protocols_tablet_handle_destroy(struct wl_listener *listener, void *data);
void protocols_handle_tool_axis(struct wl_listener *listener, void *data);
void protocols_handle_tool_proximity(struct wl_listener *listener, void *data);
void protocols_handle_tool_tip(struct wl_listener *listener, void *data);
void protocols_handle_tool_button(struct wl_listener *listener, void *data);
void protocols_blank_destroy(struct blank *blank);
void protocols_handle_set_power_mode(struct wl_listener *listener, void *data);
void protocols_handle_input_inhibit_activate(struct wl_listener *listener,
		void *data);
void protocols_handle_input_inhibit_deactivate(struct wl_listener *listener,
		void *data);

#endif
