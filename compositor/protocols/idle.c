/*
 * KDE idle and idle-inhibit-v1 (set up by protocols.c): idle timers,
 * stopped while a surface with an inhibitor is mapped.
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

void protocols_handle_new_idle_inhibitor(struct wl_listener *listener,
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
