/*
 * content-type-v1 (wayland-protocols 1.31, staging): a surface says what
 * it shows (none, photo, video, game). vitrail keeps the type per surface,
 * double-buffered like the protocol says (content_type_pending, applied
 * by the surface's commit in surface.c); no policy reads it yet.
 */
#include <assert.h>
#include <stdlib.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_surface.h>

#include "content-type-v1-protocol.h"
#include "desktop/surface.h"
#include "protocols/content_type.h"
#include "server.h"
#include "util.h"

#define CONTENT_TYPE_VERSION 1

/* One wp_content_type_v1; its user data is NULL once its surface is gone. */
struct content_type {
	struct wl_resource *resource;
	struct wlr_surface *surface;
	struct wl_listener surface_destroy;
};

static const struct wp_content_type_v1_interface content_type_impl;

static struct content_type *content_type_from_resource(
		struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource, &wp_content_type_v1_interface,
			&content_type_impl));
	return wl_resource_get_user_data(resource);
}

static void set_pending(struct content_type *ct, uint32_t type) {
	struct vt_surface *surface = vt_surface_from_wlr(ct->surface);
	if (surface != NULL) {
		surface->content_type_pending = type;
	}
}

static void content_type_destroy(struct content_type *ct) {
	if (ct == NULL) {
		return;
	}
	wl_list_remove(&ct->surface_destroy.link);
	wl_resource_set_user_data(ct->resource, NULL);
	free(ct);
}

static void handle_surface_destroy(struct wl_listener *listener, void *data) {
	struct content_type *ct = wl_container_of(listener, ct, surface_destroy);
	content_type_destroy(ct);
}

static void handle_resource_destroy(struct wl_resource *resource) {
	struct content_type *ct = content_type_from_resource(resource);
	if (ct != NULL) {
		/* the next commit goes back to none */
		set_pending(ct, WP_CONTENT_TYPE_V1_TYPE_NONE);
	}
	content_type_destroy(ct);
}

static void content_type_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static void content_type_handle_set(struct wl_client *client,
		struct wl_resource *resource, uint32_t type) {
	struct content_type *ct = content_type_from_resource(resource);
	if (ct == NULL) {
		return;
	}
	if (type > WP_CONTENT_TYPE_V1_TYPE_GAME) {
		/* the protocol has no error for it: an unknown type is none */
		type = WP_CONTENT_TYPE_V1_TYPE_NONE;
	}
	set_pending(ct, type);
}

static const struct wp_content_type_v1_interface content_type_impl = {
	.destroy = content_type_handle_destroy,
	.set_content_type = content_type_handle_set,
};

static enum wl_iterator_result find_content_type(struct wl_resource *resource,
		void *data) {
	struct wlr_surface **surface = data;
	if (wl_resource_instance_of(resource, &wp_content_type_v1_interface,
				&content_type_impl)) {
		struct content_type *ct = wl_resource_get_user_data(resource);
		if (ct != NULL && ct->surface == *surface) {
			*surface = NULL;
			return WL_ITERATOR_STOP;
		}
	}
	return WL_ITERATOR_CONTINUE;
}

static void manager_handle_get(struct wl_client *client,
		struct wl_resource *resource, uint32_t id,
		struct wl_resource *surface_resource) {
	struct wlr_surface *surface = wlr_surface_from_resource(surface_resource);
	struct wlr_surface *search = surface;
	wl_client_for_each_resource(client, find_content_type, &search);
	if (search == NULL) {
		wl_resource_post_error(resource,
				WP_CONTENT_TYPE_MANAGER_V1_ERROR_ALREADY_CONSTRUCTED,
				"wl_surface@%u has a wp_content_type_v1 already",
				wl_resource_get_id(surface_resource));
		return;
	}
	struct content_type *ct = calloc(1, sizeof(*ct));
	struct wl_resource *ct_resource =
			wl_resource_create(client, &wp_content_type_v1_interface,
					wl_resource_get_version(resource), id);
	if (ct == NULL || ct_resource == NULL) {
		free(ct);
		if (ct_resource != NULL) {
			wl_resource_destroy(ct_resource);
		}
		wl_client_post_no_memory(client);
		return;
	}
	ct->resource = ct_resource;
	ct->surface = surface;
	ct->surface_destroy.notify = handle_surface_destroy;
	wl_signal_add(&surface->events.destroy, &ct->surface_destroy);
	wl_resource_set_implementation(ct_resource, &content_type_impl, ct,
			handle_resource_destroy);
}

static void manager_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct wp_content_type_manager_v1_interface manager_impl = {
	.destroy = manager_handle_destroy,
	.get_surface_content_type = manager_handle_get,
};

static void manager_bind(struct wl_client *client, void *data, uint32_t version,
		uint32_t id) {
	vt_resource_create(client, &wp_content_type_manager_v1_interface, version,
			id, &manager_impl, NULL, NULL);
}

bool vt_content_type_init(struct vt_server *server) {
	/* the global goes with the display */
	return wl_global_create(server->display,
				   &wp_content_type_manager_v1_interface, CONTENT_TYPE_VERSION,
				   NULL, manager_bind) != NULL;
}
