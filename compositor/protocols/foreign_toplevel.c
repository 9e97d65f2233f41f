/*
 * wlr-foreign-toplevel-management (set up by protocols.c): taskbars'
 * handles on windows.
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
#include "output/output.h"
#include "protocols/protocols.h"
#include "server.h"

#include "protocols/protocols_internal.h"

/* ---- foreign toplevels -------------------------------------------------- */

struct vt_foreign_toplevel {
	struct vt_view *view;
	struct wlr_foreign_toplevel_handle_v1 *handle;
	struct wlr_output *output; /* the one sent, or NULL */
	struct wl_listener request_activate;
	struct wl_listener request_close;
	struct wl_listener request_minimize;
	struct wl_listener request_maximize;
	struct wl_listener request_fullscreen;
};

static void foreign_handle_request_activate(struct wl_listener *listener,
		void *data) {
	struct vt_foreign_toplevel *foreign =
			wl_container_of(listener, foreign, request_activate);
	struct vt_view *view = foreign->view;
	vt_view_focus(view, view->surface);
	wl_signal_emit(&view->server->events.pointer_focus, NULL);
}

/* A taskbar minimizes the window, or brings it back (focused). */
static void foreign_handle_request_minimize(struct wl_listener *listener,
		void *data) {
	struct vt_foreign_toplevel *foreign =
			wl_container_of(listener, foreign, request_minimize);
	struct wlr_foreign_toplevel_handle_v1_minimized_event *event = data;
	struct vt_view *view = foreign->view;
	if (event->minimized) {
		vt_view_minimize(view);
	} else if (view->minimized) {
		vt_view_focus(view, view->surface);
		wl_signal_emit(&view->server->events.pointer_focus, NULL);
	}
}

/* A taskbar's maximize or fullscreen request goes the way the client's own
 * xdg_toplevel request goes (vt_view_request_fill: kiosk windows stay
 * filling their output); a minimized window it fills comes back, focused,
 * as a taskbar shows the window it acts on. The fullscreen request's
 * output is not honoured, as for xdg_toplevel.set_fullscreen. */
static void foreign_request_fill(struct vt_view *view, bool requested,
		bool fullscreen) {
	if (requested && view->minimized) {
		vt_view_focus(view, view->surface);
		wl_signal_emit(&view->server->events.pointer_focus, NULL);
	}
	vt_view_request_fill(view, requested, fullscreen);
}

static void foreign_handle_request_maximize(struct wl_listener *listener,
		void *data) {
	struct vt_foreign_toplevel *foreign =
			wl_container_of(listener, foreign, request_maximize);
	struct wlr_foreign_toplevel_handle_v1_maximized_event *event = data;
	foreign_request_fill(foreign->view, event->maximized, false);
}

static void foreign_handle_request_fullscreen(struct wl_listener *listener,
		void *data) {
	struct vt_foreign_toplevel *foreign =
			wl_container_of(listener, foreign, request_fullscreen);
	struct wlr_foreign_toplevel_handle_v1_fullscreen_event *event = data;
	foreign_request_fill(foreign->view, event->fullscreen, true);
}

static void foreign_handle_request_close(struct wl_listener *listener,
		void *data) {
	struct vt_foreign_toplevel *foreign =
			wl_container_of(listener, foreign, request_close);
	vt_view_close(foreign->view);
}

static void foreign_update_names(struct vt_view *view) {
	struct vt_foreign_toplevel *foreign = view->foreign;
	if (foreign == NULL) {
		return;
	}
	const char *title = view->impl->get_title(view);
	const char *app_id = view->impl->get_app_id(view);
	wlr_foreign_toplevel_handle_v1_set_title(foreign->handle,
			title != NULL ? title : "");
	wlr_foreign_toplevel_handle_v1_set_app_id(foreign->handle,
			app_id != NULL ? app_id : "");
}

static void foreign_update_output(struct vt_view *view) {
	struct vt_foreign_toplevel *foreign = view->foreign;
	if (foreign == NULL) {
		return;
	}
	struct vt_output *output = vt_view_output(view);
	struct wlr_output *wlr_output =
			output != NULL ? vt_output_wlr(output) : NULL;
	if (wlr_output == foreign->output) {
		return;
	}
	if (foreign->output != NULL) {
		wlr_foreign_toplevel_handle_v1_output_leave(foreign->handle,
				foreign->output);
	}
	foreign->output = wlr_output;
	if (wlr_output != NULL) {
		wlr_foreign_toplevel_handle_v1_output_enter(foreign->handle,
				wlr_output);
	}
}

static void foreign_update_fill(struct vt_view *view);

static void foreign_map(struct vt_view *view) {
	struct vt_protocols *p = view->server->protocols;
	if (p == NULL || view->foreign != NULL) {
		return;
	}
	struct vt_foreign_toplevel *foreign = calloc(1, sizeof(*foreign));
	if (foreign == NULL) {
		return;
	}
	foreign->handle =
			wlr_foreign_toplevel_handle_v1_create(p->foreign_toplevel);
	if (foreign->handle == NULL) {
		free(foreign);
		return;
	}
	foreign->view = view;
	view->foreign = foreign;
	foreign->request_activate.notify = foreign_handle_request_activate;
	wl_signal_add(&foreign->handle->events.request_activate,
			&foreign->request_activate);
	foreign->request_close.notify = foreign_handle_request_close;
	wl_signal_add(&foreign->handle->events.request_close,
			&foreign->request_close);
	foreign->request_minimize.notify = foreign_handle_request_minimize;
	wl_signal_add(&foreign->handle->events.request_minimize,
			&foreign->request_minimize);
	foreign->request_maximize.notify = foreign_handle_request_maximize;
	wl_signal_add(&foreign->handle->events.request_maximize,
			&foreign->request_maximize);
	foreign->request_fullscreen.notify = foreign_handle_request_fullscreen;
	wl_signal_add(&foreign->handle->events.request_fullscreen,
			&foreign->request_fullscreen);
	foreign_update_names(view);
	foreign_update_output(view);
	wlr_foreign_toplevel_handle_v1_set_activated(foreign->handle,
			view->server->focused_view == view);
	wlr_foreign_toplevel_handle_v1_set_minimized(foreign->handle,
			view->minimized);
	foreign_update_fill(view);
}

static void foreign_unmap(struct vt_view *view) {
	struct vt_foreign_toplevel *foreign = view->foreign;
	if (foreign == NULL) {
		return;
	}
	wl_list_remove(&foreign->request_activate.link);
	wl_list_remove(&foreign->request_close.link);
	wl_list_remove(&foreign->request_minimize.link);
	wl_list_remove(&foreign->request_maximize.link);
	wl_list_remove(&foreign->request_fullscreen.link);
	wlr_foreign_toplevel_handle_v1_destroy(foreign->handle);
	free(foreign);
	view->foreign = NULL;
}

static void foreign_set_activated(struct vt_view *view, bool activated) {
	if (view->foreign != NULL) {
		wlr_foreign_toplevel_handle_v1_set_activated(view->foreign->handle,
				activated);
	}
}

static void foreign_set_minimized(struct vt_view *view, bool minimized) {
	if (view->foreign != NULL) {
		wlr_foreign_toplevel_handle_v1_set_minimized(view->foreign->handle,
				minimized);
	}
}

/* The states vitrail last asked of the client (acknowledged or not): a
 * taskbar learns of a maximize at once, not only once the client commits
 * its new size, which it may never do (a client that does not redraw). */
static void foreign_update_fill(struct vt_view *view) {
	if (view->foreign == NULL) {
		return;
	}
	uint32_t fill = view->impl->get_fill(view, true);
	wlr_foreign_toplevel_handle_v1_set_maximized(view->foreign->handle,
			fill & VT_FILL_MAXIMIZED);
	wlr_foreign_toplevel_handle_v1_set_fullscreen(view->foreign->handle,
			fill & VT_FILL_FULLSCREEN);
}

/* ---- the views' events (server->events) ---------------------------------- */

static void handle_view_map(struct wl_listener *listener, void *data) {
	foreign_map(data);
}

static void handle_view_unmap(struct wl_listener *listener, void *data) {
	foreign_unmap(data);
}

static void handle_view_names(struct wl_listener *listener, void *data) {
	foreign_update_names(data);
}

static void handle_view_output(struct wl_listener *listener, void *data) {
	foreign_update_output(data);
}

static void handle_view_fill(struct wl_listener *listener, void *data) {
	foreign_update_fill(data);
}

static void handle_view_minimized(struct wl_listener *listener, void *data) {
	struct vt_view *view = data;
	foreign_set_minimized(view, view->minimized);
}

static void handle_view_activated(struct wl_listener *listener, void *data) {
	struct vt_view_activated_event *event = data;
	foreign_set_activated(event->view, event->activated);
}

void protocols_foreign_toplevel_listen(struct vt_protocols *p) {
	struct vt_server *server = p->server;
	p->view_map.notify = handle_view_map;
	wl_signal_add(&server->events.view_map, &p->view_map);
	p->view_unmap.notify = handle_view_unmap;
	wl_signal_add(&server->events.view_unmap, &p->view_unmap);
	p->view_names.notify = handle_view_names;
	wl_signal_add(&server->events.view_names, &p->view_names);
	p->view_output.notify = handle_view_output;
	wl_signal_add(&server->events.view_output, &p->view_output);
	p->view_fill.notify = handle_view_fill;
	wl_signal_add(&server->events.view_fill, &p->view_fill);
	p->view_minimized.notify = handle_view_minimized;
	wl_signal_add(&server->events.view_minimized, &p->view_minimized);
	p->view_activated.notify = handle_view_activated;
	wl_signal_add(&server->events.view_activated, &p->view_activated);
}

void protocols_foreign_toplevel_unlisten(struct vt_protocols *p) {
	wl_list_remove(&p->view_map.link);
	wl_list_remove(&p->view_unmap.link);
	wl_list_remove(&p->view_names.link);
	wl_list_remove(&p->view_output.link);
	wl_list_remove(&p->view_fill.link);
	wl_list_remove(&p->view_minimized.link);
	wl_list_remove(&p->view_activated.link);
}
