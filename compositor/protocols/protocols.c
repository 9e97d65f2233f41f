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
 *   allocator says so: DRM dumb buffers; or they are on the device,
 *   output/output_dmabuf.c); the headless and nested backends' host
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
 * (presentation.c keeps them all for that commit; a client asks for one;
 * more is an implementation error and the client is cut off),
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
#include "protocols/linux_dmabuf.h"
#include "protocols/protocols.h"
#include "server.h"

#include "protocols/protocols_internal.h"

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
	case WL_SHM_FORMAT_XBGR8888: return 4;
	case WL_SHM_FORMAT_RGB565: return 2;
	default: return 0;
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
						(struct wl_resource *)message->arguments[0].o)) :
				NULL;
		if (surface != NULL && ++surface->feedback_requests > FEEDBACK_MAX) {
			wl_client_post_implementation_error(
					wl_resource_get_client(message->resource),
					"more than %d "
					"wp_presentation.feedback requests for wl_surface@%u "
					"before its commit",
					FEEDBACK_MAX,
					wl_resource_get_id(surface->wlr_surface->resource));
		}
	} else if (strcmp(class, "wl_surface") == 0 &&
			strcmp(name, "commit") == 0) {
		/* before wlroots applies or caches it */
		vt_linux_dmabuf_before_commit(
				wlr_surface_from_resource(message->resource));
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
					WL_SHM_ERROR_INVALID_STRIDE,
					"stride %d under %d pixels "
					"of %u bytes",
					stride, width, bpp);
		}
	} else if (strcmp(class, "xdg_activation_token_v1") == 0 &&
			strcmp(name, "commit") == 0 && p->trim_tokens == NULL) {
		/* after wlroots made the token */
		p->trim_tokens = wl_event_loop_add_idle(
				wl_display_get_event_loop(p->server->display), trim_tokens, p);
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
	if (p->idle == NULL || p->idle_inhibit == NULL || p->activation == NULL ||
			p->constraints == NULL || p->relative_pointer == NULL ||
			p->gestures == NULL || p->foreign_toplevel == NULL ||
			p->input_method_manager == NULL || p->text_input_manager == NULL ||
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
	if ((server->allocator->buffer_caps & WLR_BUFFER_CAP_DMABUF) ||
			server->output_dmabufs != NULL) {
		wlr_export_dmabuf_manager_v1_create(display);
	} else {
		wlr_log(WLR_INFO,
				"output buffers are not dmabufs: no "
				"wlr-export-dmabuf (screencopy serves screenshots)");
	}
	protocols_kde_decoration_set_default(p);
	server->protocols = p;
	server->input_inhibit = p->input_inhibit;
	p->limits = wl_display_add_protocol_logger(display, limits_check, p);

	p->request_activate.notify = protocols_handle_request_activate;
	wl_signal_add(&p->activation->events.request_activate,
			&p->request_activate);
	p->new_idle_inhibitor.notify = protocols_handle_new_idle_inhibitor;
	wl_signal_add(&p->idle_inhibit->events.new_inhibitor,
			&p->new_idle_inhibitor);
	p->new_constraint.notify = protocols_handle_new_constraint;
	wl_signal_add(&p->constraints->events.new_constraint, &p->new_constraint);
	p->pointer_focus_change.notify = protocols_handle_pointer_focus_change;
	wl_signal_add(&server->seat->pointer_state.events.focus_change,
			&p->pointer_focus_change);
	p->keyboard_focus_change.notify = protocols_handle_keyboard_focus_change;
	wl_signal_add(&server->seat->keyboard_state.events.focus_change,
			&p->keyboard_focus_change);
	struct wlr_cursor *cursor = server->cursor;
	p->swipe_begin.notify = protocols_handle_swipe_begin;
	wl_signal_add(&cursor->events.swipe_begin, &p->swipe_begin);
	p->swipe_update.notify = protocols_handle_swipe_update;
	wl_signal_add(&cursor->events.swipe_update, &p->swipe_update);
	p->swipe_end.notify = protocols_handle_swipe_end;
	wl_signal_add(&cursor->events.swipe_end, &p->swipe_end);
	p->pinch_begin.notify = protocols_handle_pinch_begin;
	wl_signal_add(&cursor->events.pinch_begin, &p->pinch_begin);
	p->pinch_update.notify = protocols_handle_pinch_update;
	wl_signal_add(&cursor->events.pinch_update, &p->pinch_update);
	p->pinch_end.notify = protocols_handle_pinch_end;
	wl_signal_add(&cursor->events.pinch_end, &p->pinch_end);
	p->hold_begin.notify = protocols_handle_hold_begin;
	wl_signal_add(&cursor->events.hold_begin, &p->hold_begin);
	p->hold_end.notify = protocols_handle_hold_end;
	wl_signal_add(&cursor->events.hold_end, &p->hold_end);
	p->new_input_method.notify = protocols_handle_new_input_method;
	wl_signal_add(&p->input_method_manager->events.input_method,
			&p->new_input_method);
	p->new_text_input.notify = protocols_handle_new_text_input;
	wl_signal_add(&p->text_input_manager->events.text_input,
			&p->new_text_input);
	p->new_shortcuts_inhibitor.notify =
			protocols_handle_new_shortcuts_inhibitor;
	wl_signal_add(&p->shortcuts_inhibit->events.new_inhibitor,
			&p->new_shortcuts_inhibitor);
	p->tool_axis.notify = protocols_handle_tool_axis;
	wl_signal_add(&cursor->events.tablet_tool_axis, &p->tool_axis);
	p->tool_proximity.notify = protocols_handle_tool_proximity;
	wl_signal_add(&cursor->events.tablet_tool_proximity, &p->tool_proximity);
	p->tool_tip.notify = protocols_handle_tool_tip;
	wl_signal_add(&cursor->events.tablet_tool_tip, &p->tool_tip);
	p->tool_button.notify = protocols_handle_tool_button;
	wl_signal_add(&cursor->events.tablet_tool_button, &p->tool_button);
	p->set_power_mode.notify = protocols_handle_set_power_mode;
	wl_signal_add(&p->output_power->events.set_mode, &p->set_power_mode);
	p->new_toplevel_decoration.notify =
			protocols_handle_new_toplevel_decoration;
	wl_signal_add(&p->xdg_decoration->events.new_toplevel_decoration,
			&p->new_toplevel_decoration);
	p->new_kde_decoration.notify = protocols_handle_new_kde_decoration;
	wl_signal_add(&p->kde_decoration->events.new_decoration,
			&p->new_kde_decoration);
	p->input_inhibit_activate.notify = protocols_handle_input_inhibit_activate;
	wl_signal_add(&p->input_inhibit->events.activate,
			&p->input_inhibit_activate);
	p->input_inhibit_deactivate.notify =
			protocols_handle_input_inhibit_deactivate;
	wl_signal_add(&p->input_inhibit->events.deactivate,
			&p->input_inhibit_deactivate);
	protocols_foreign_toplevel_listen(p);
	p->new_xdg_toplevel.notify = protocols_handle_new_xdg_toplevel;
	wl_signal_add(&server->events.new_xdg_toplevel, &p->new_xdg_toplevel);
	p->lock_raised.notify = protocols_handle_lock_raised;
	wl_signal_add(&server->events.lock_raised, &p->lock_raised);
	return true;
}

/* Before the display goes (clients are gone: their objects with them). */
void vt_protocols_finish(struct vt_server *server) {
	struct vt_protocols *p = server->protocols;
	if (p == NULL) {
		return;
	}
	protocols_constraint_deactivate(p);
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
	protocols_foreign_toplevel_unlisten(p);
	wl_list_remove(&p->new_xdg_toplevel.link);
	wl_list_remove(&p->lock_raised.link);
	struct tablet *tablet, *tmp;
	wl_list_for_each_safe(tablet, tmp, &p->tablets, link) {
		protocols_tablet_handle_destroy(&tablet->destroy, NULL);
	}
	struct blank *blank, *blank_tmp;
	wl_list_for_each_safe(blank, blank_tmp, &p->blanks, link) {
		protocols_blank_destroy(blank);
	}
	server->protocols = NULL;
	server->input_inhibit = NULL;
	free(p);
}
