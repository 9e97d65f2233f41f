/*
 * xdg-decoration-unstable-v1 and KDE's server-decoration (set up by
 * protocols.c): which side draws a window's decorations.
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

/* ---- decorations -------------------------------------------------------- */

/*
 * Who draws a window's decorations (vitrail(5), decorations): with
 * "decorations server" (the default) vitrail does, unless the client
 * insists on drawing them itself (xdg-decoration set_mode client_side,
 * KDE request_mode client or none); a client that asks nothing, or
 * unsets its mode, gets server-side. With "decorations client" every
 * client draws its own, whatever it asks. Clients that use neither
 * protocol draw their own (xdg-shell's rule).
 */
static bool server_side_decorations(struct vt_server *server,
		bool client_wants_client, bool client_asked) {
	if (!server->config.server_decorations) {
		return false;
	}
	return !(client_asked && client_wants_client);
}

struct decoration {
	struct vt_server *server;
	struct wlr_xdg_toplevel_decoration_v1 *wlr;
	struct wl_listener request_mode;
	struct wl_listener destroy;
};

/* Answer the mode the client asked for (or none) and apply it. */
static void decoration_apply(struct decoration *decoration) {
	struct wlr_xdg_toplevel_decoration_v1 *wlr = decoration->wlr;
	enum wlr_xdg_toplevel_decoration_v1_mode asked = wlr->requested_mode;
	bool server_side = server_side_decorations(decoration->server,
			asked == WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE,
			asked != WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_NONE);
	wlr_xdg_toplevel_decoration_v1_set_mode(wlr,
			server_side ? WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE :
						  WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE);
	struct vt_view *view = wlr->surface->data;
	if (view != NULL) {
		vt_view_set_server_decorations(view, server_side);
	}
}

static void decoration_handle_request_mode(struct wl_listener *listener,
		void *data) {
	struct decoration *decoration =
			wl_container_of(listener, decoration, request_mode);
	decoration_apply(decoration);
}

static void decoration_handle_destroy(struct wl_listener *listener,
		void *data) {
	struct decoration *decoration =
			wl_container_of(listener, decoration, destroy);
	/* without the object the client draws its own (the protocol's
	 * destroy); NULL when the window itself is going */
	struct vt_view *view = decoration->wlr->surface->data;
	if (view != NULL) {
		vt_view_decorations_gone(view);
	}
	wl_list_remove(&decoration->request_mode.link);
	wl_list_remove(&decoration->destroy.link);
	free(decoration);
}

void protocols_handle_new_toplevel_decoration(struct wl_listener *listener,
		void *data) {
	struct vt_protocols *p =
			wl_container_of(listener, p, new_toplevel_decoration);
	struct wlr_xdg_toplevel_decoration_v1 *wlr = data;
	struct decoration *decoration = calloc(1, sizeof(*decoration));
	if (decoration == NULL) {
		wl_resource_post_no_memory(wlr->resource);
		return;
	}
	decoration->server = p->server;
	decoration->wlr = wlr;
	decoration->request_mode.notify = decoration_handle_request_mode;
	wl_signal_add(&wlr->events.request_mode, &decoration->request_mode);
	decoration->destroy.notify = decoration_handle_destroy;
	wl_signal_add(&wlr->events.destroy, &decoration->destroy);
	decoration_apply(decoration);
}

/* KDE's protocol: wlroots answers a request_mode with the mode asked for,
 * read back after its mode signal; the handler puts vitrail's there. The
 * object belongs to a wl_surface, which may get its toplevel role later
 * (server->events.new_xdg_toplevel). */
struct kde_decoration {
	struct vt_server *server;
	struct wlr_server_decoration *wlr;
	struct wl_listener mode;
	struct wl_listener destroy;
};

static void kde_decoration_apply_to(struct vt_server *server,
		struct wlr_server_decoration *wlr, struct vt_view *view) {
	if (view != NULL) {
		vt_view_set_server_decorations(view,
				wlr->mode == WLR_SERVER_DECORATION_MANAGER_MODE_SERVER);
	}
}

static void kde_decoration_handle_mode(struct wl_listener *listener,
		void *data) {
	struct kde_decoration *decoration =
			wl_container_of(listener, decoration, mode);
	struct wlr_server_decoration *wlr = decoration->wlr;
	bool server_side = server_side_decorations(decoration->server,
			wlr->mode != WLR_SERVER_DECORATION_MANAGER_MODE_SERVER, true);
	wlr->mode = server_side ? WLR_SERVER_DECORATION_MANAGER_MODE_SERVER :
							  WLR_SERVER_DECORATION_MANAGER_MODE_CLIENT;
	kde_decoration_apply_to(decoration->server, wlr,
			vt_view_from_toplevel_surface(wlr->surface));
}

static void kde_decoration_handle_destroy(struct wl_listener *listener,
		void *data) {
	struct kde_decoration *decoration =
			wl_container_of(listener, decoration, destroy);
	struct vt_view *view =
			vt_view_from_toplevel_surface(decoration->wlr->surface);
	if (view != NULL) {
		vt_view_decorations_gone(view);
	}
	wl_list_remove(&decoration->mode.link);
	wl_list_remove(&decoration->destroy.link);
	free(decoration);
}

void protocols_handle_new_kde_decoration(struct wl_listener *listener,
		void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, new_kde_decoration);
	struct wlr_server_decoration *wlr = data;
	struct kde_decoration *decoration = calloc(1, sizeof(*decoration));
	if (decoration == NULL) {
		wl_resource_post_no_memory(wlr->resource);
		return;
	}
	decoration->server = p->server;
	decoration->wlr = wlr;
	decoration->mode.notify = kde_decoration_handle_mode;
	wl_signal_add(&wlr->events.mode, &decoration->mode);
	decoration->destroy.notify = kde_decoration_handle_destroy;
	wl_signal_add(&wlr->events.destroy, &decoration->destroy);
	/* wlroots sent the default mode: the config's */
	kde_decoration_apply_to(p->server, wlr,
			vt_view_from_toplevel_surface(wlr->surface));
}

/* server->events.new_xdg_toplevel: a KDE server-decoration of its
 * wl_surface, made before the role, applies to it. */
void protocols_handle_new_xdg_toplevel(struct wl_listener *listener,
		void *data) {
	struct vt_protocols *p = wl_container_of(listener, p, new_xdg_toplevel);
	struct vt_view *view = data;
	struct wlr_server_decoration *wlr;
	wl_list_for_each(wlr, &p->kde_decoration->decorations, link) {
		if (wlr->surface == view->surface) {
			kde_decoration_apply_to(view->server, wlr, view);
		}
	}
}

/* The default KDE mode, sent to every new object: the config's. */
void protocols_kde_decoration_set_default(struct vt_protocols *p) {
	wlr_server_decoration_manager_set_default_mode(p->kde_decoration,
			p->server->config.server_decorations ?
					WLR_SERVER_DECORATION_MANAGER_MODE_SERVER :
					WLR_SERVER_DECORATION_MANAGER_MODE_CLIENT);
}

/* A reload: new objects get the new default; windows keep what they
 * negotiated. */
void vt_protocols_apply_config(struct vt_server *server) {
	if (server->protocols != NULL) {
		protocols_kde_decoration_set_default(server->protocols);
	}
}
