/*
 * wlr-output-power-management (set up by protocols.c): outputs powered off
 * and on.
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

#include "output/output.h"
#include "protocols/protocols.h"
#include "server.h"

#include "protocols/protocols_internal.h"

/* ---- output power ------------------------------------------------------- */

/*
 * An output the backend cannot disable (wlroots 0.15 disables DRM outputs
 * only) is blanked instead: an opaque black node above everything, the
 * cursor included, covers it, and vitrail tells the clients itself that
 * its mode is off (wlroots tells them only of modes the output commits).
 * A client that asks for the object while an output is blanked hears
 * "on" from wlroots first, then the next change.
 * (struct blank, protocols_internal.h)
 */

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
	struct wlr_box *box =
			wlr_output_layout_get_box(server->layout, blank->output);
	vr_node_set_enabled(blank->node, box != NULL);
	vr_node_raise_to_top(blank->node);
	if (box != NULL) {
		vr_node_set_position(blank->node, box->x, box->y);
		vr_node_set_rect(blank->node, box->width, box->height,
				(struct vr_color){ 0, 0, 0, 1 });
	}
	vt_server_schedule_update(server);
}

void protocols_blank_destroy(struct blank *blank) {
	vt_server_schedule_update(blank->protocols->server);
	vr_node_destroy(blank->node);
	wl_list_remove(&blank->output_destroy.link);
	wl_list_remove(&blank->link);
	free(blank);
}

static void blank_handle_output_destroy(struct wl_listener *listener,
		void *data) {
	struct blank *blank = wl_container_of(listener, blank, output_destroy);
	protocols_blank_destroy(blank);
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

/* The session lock raised its layer: the blanks go above it again. */
void protocols_handle_lock_raised(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, lock_raised);
	vt_protocols_outputs_changed(p->server);
}

void protocols_handle_set_power_mode(struct wl_listener *listener, void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, set_power_mode);
	struct wlr_output_power_v1_set_mode_event *event = data;
	bool on = event->mode == ZWLR_OUTPUT_POWER_V1_MODE_ON;
	struct blank *blank = blank_of(p, event->output);
	if (on && blank != NULL) {
		protocols_blank_destroy(blank);
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
