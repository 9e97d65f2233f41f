/*
 * input-method-v2 and text-input-v3, and keyboard-shortcuts-inhibit-v1
 * (set up by protocols.c): the keyboard focus they follow.
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
						wlr->current.surrounding.text :
						"",
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

static void text_input_handle_enable(struct wl_listener *listener, void *data) {
	struct text_input *ti = wl_container_of(listener, ti, enable);
	struct vt_protocols *p = ti->protocols;
	if (p->input_method != NULL) {
		wlr_input_method_v2_send_activate(p->input_method);
		relay_state(p, ti);
	}
}

static void text_input_handle_commit(struct wl_listener *listener, void *data) {
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

void protocols_handle_new_text_input(struct wl_listener *listener, void *data) {
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
	struct wlr_surface *focus = p->server->seat->keyboard_state.focused_surface;
	if (focus != NULL &&
			wl_resource_get_client(wlr->resource) ==
					wl_resource_get_client(focus->resource)) {
		wlr_text_input_v3_send_enter(wlr, focus);
	}
}

static void input_method_handle_commit(struct wl_listener *listener,
		void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, input_method_commit);
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
	struct vt_protocols *p = wl_container_of(listener, p, input_method_destroy);
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

void protocols_handle_new_input_method(struct wl_listener *listener,
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

void protocols_handle_keyboard_focus_change(struct wl_listener *listener,
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
	protocols_constraint_update(p);
}

void protocols_handle_new_shortcuts_inhibitor(struct wl_listener *listener,
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
		if (inhibitor->active && inhibitor->surface == focus && focus != NULL) {
			return true;
		}
	}
	return false;
}
