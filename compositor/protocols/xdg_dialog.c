/*
 * xdg-dialog-v1 (wayland-protocols 1.39, staging): a client marks a
 * toplevel as a dialog of its parent (xdg_toplevel.set_parent), and
 * possibly modal. vitrail's policy for a modal one, while it is mapped
 * and has a parent: the parent gets neither the keyboard focus (focusing
 * it focuses the dialog, view.c) nor the pointer (pointer.c); the parent's
 * decorations still take the pointer, and a click there focuses the
 * dialog. A dialog object whose toplevel is destroyed is inert;
 * destroying the object drops its modality.
 */
#include <assert.h>
#include <stdlib.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_xdg_shell.h>

#include "protocols/xdg_dialog.h"
#include "server.h"
#include "util.h"
#include "xdg-dialog-v1-protocol.h"

#define XDG_DIALOG_VERSION 1

/* One xdg_dialog_v1; toplevel is NULL once it is gone (inert). */
struct dialog {
	struct wl_resource *resource;
	struct wlr_xdg_toplevel *toplevel;
	bool modal;
	struct wl_listener toplevel_destroy;
	struct wl_list link; /* vt_xdg_dialogs::dialogs */
};

/* The module, made at init (server->xdg_dialogs). */
struct vt_xdg_dialogs {
	struct vt_server *server;
	struct wl_list dialogs; /* dialog::link */
	struct wl_listener display_destroy;
};

static const struct xdg_dialog_v1_interface dialog_impl;

static struct dialog *dialog_from_resource(struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource, &xdg_dialog_v1_interface,
			&dialog_impl));
	return wl_resource_get_user_data(resource);
}

static void dialog_detach(struct dialog *d) {
	wl_list_remove(&d->toplevel_destroy.link);
	wl_list_init(&d->toplevel_destroy.link);
	d->toplevel = NULL;
}

static void handle_toplevel_destroy(struct wl_listener *listener, void *data) {
	struct dialog *d = wl_container_of(listener, d, toplevel_destroy);
	dialog_detach(d);
}

static void handle_resource_destroy(struct wl_resource *resource) {
	struct dialog *d = dialog_from_resource(resource);
	wl_list_remove(&d->toplevel_destroy.link);
	wl_list_remove(&d->link);
	free(d);
}

static void dialog_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static void dialog_handle_set_modal(struct wl_client *client,
		struct wl_resource *resource) {
	dialog_from_resource(resource)->modal = true;
}

static void dialog_handle_unset_modal(struct wl_client *client,
		struct wl_resource *resource) {
	dialog_from_resource(resource)->modal = false;
}

static const struct xdg_dialog_v1_interface dialog_impl = {
	.destroy = dialog_handle_destroy,
	.set_modal = dialog_handle_set_modal,
	.unset_modal = dialog_handle_unset_modal,
};

static void manager_handle_get_dialog(struct wl_client *client,
		struct wl_resource *resource, uint32_t id,
		struct wl_resource *toplevel_resource) {
	struct wlr_xdg_surface *xdg_surface =
			wlr_xdg_surface_from_toplevel_resource(toplevel_resource);
	struct wlr_xdg_toplevel *toplevel =
			xdg_surface != NULL ? xdg_surface->toplevel : NULL;
	struct vt_xdg_dialogs *dialogs = wl_resource_get_user_data(resource);
	struct dialog *d;
	if (toplevel != NULL) {
		wl_list_for_each(d, &dialogs->dialogs, link) {
			if (d->toplevel == toplevel) {
				wl_resource_post_error(resource,
						XDG_WM_DIALOG_V1_ERROR_ALREADY_USED,
						"xdg_toplevel@%u has an xdg_dialog_v1 already",
						wl_resource_get_id(toplevel_resource));
				return;
			}
		}
	}
	d = calloc(1, sizeof(*d));
	struct wl_resource *d_resource = wl_resource_create(client,
			&xdg_dialog_v1_interface, wl_resource_get_version(resource), id);
	if (d == NULL || d_resource == NULL) {
		free(d);
		if (d_resource != NULL) {
			wl_resource_destroy(d_resource);
		}
		wl_client_post_no_memory(client);
		return;
	}
	d->resource = d_resource;
	d->toplevel = toplevel;
	wl_list_init(&d->toplevel_destroy.link);
	if (toplevel != NULL) {
		/* wlroots frees the toplevel with its resource (after this) */
		d->toplevel_destroy.notify = handle_toplevel_destroy;
		wl_resource_add_destroy_listener(toplevel_resource,
				&d->toplevel_destroy);
	}
	wl_list_insert(&dialogs->dialogs, &d->link);
	wl_resource_set_implementation(d_resource, &dialog_impl, d,
			handle_resource_destroy);
}

static void manager_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct xdg_wm_dialog_v1_interface manager_impl = {
	.destroy = manager_handle_destroy,
	.get_xdg_dialog = manager_handle_get_dialog,
};

static void manager_bind(struct wl_client *client, void *data, uint32_t version,
		uint32_t id) {
	vt_resource_create(client, &xdg_wm_dialog_v1_interface, version, id,
			&manager_impl, data, NULL);
}

struct wlr_xdg_surface *vt_xdg_dialog_modal_of(struct vt_server *server,
		struct wlr_xdg_surface *parent) {
	struct vt_xdg_dialogs *dialogs = server->xdg_dialogs;
	if (parent == NULL || dialogs == NULL) {
		return NULL;
	}
	struct dialog *d;
	wl_list_for_each(d, &dialogs->dialogs, link) {
		if (d->modal && d->toplevel != NULL && d->toplevel->parent == parent &&
				d->toplevel->base->mapped) {
			return d->toplevel->base;
		}
	}
	return NULL;
}

static void handle_display_destroy(struct wl_listener *listener, void *data) {
	struct vt_xdg_dialogs *dialogs =
			wl_container_of(listener, dialogs, display_destroy);
	/* the clients went first, and their dialogs with them */
	struct vt_server *server = dialogs->server;
	server->xdg_dialogs = NULL;
	wl_list_remove(&dialogs->display_destroy.link);
	free(dialogs);
}

bool vt_xdg_dialog_init(struct vt_server *server) {
	struct vt_xdg_dialogs *dialogs = calloc(1, sizeof(*dialogs));
	if (dialogs == NULL) {
		return false;
	}
	if (wl_global_create(server->display, &xdg_wm_dialog_v1_interface,
				XDG_DIALOG_VERSION, dialogs, manager_bind) == NULL) {
		free(dialogs);
		return false;
	}
	dialogs->server = server;
	wl_list_init(&dialogs->dialogs);
	dialogs->display_destroy.notify = handle_display_destroy;
	wl_display_add_destroy_listener(server->display, &dialogs->display_destroy);
	server->xdg_dialogs = dialogs;
	return true;
}
