/*
 * content-type-v1 (wayland-protocols 1.31, staging): a surface says what
 * it shows (none, photo, video, game). vitrail keeps the type per surface,
 * double-buffered like the protocol says (content_type_pending, applied
 * by the surface's commit in surface.c); no policy reads it yet.
 */
#include <stdlib.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_surface.h>

#include "content-type-v1-protocol.h"
#include "desktop/surface.h"
#include "protocols/content_type.h"
#include "protocols/surface_addon.h"
#include "server.h"
#include "util.h"

#define CONTENT_TYPE_VERSION 1

/* One wp_content_type_v1; its user data is NULL once its surface is gone. */
struct content_type {
	struct vt_surface_addon addon;
};

static const struct wp_content_type_v1_interface content_type_impl;

static struct content_type *content_type_from_resource(
		struct wl_resource *resource) {
	struct content_type *ct;
	return wl_container_of(vt_surface_addon_from_resource(resource,
								   &wp_content_type_v1_interface,
								   &content_type_impl),
			ct, addon);
}

static void set_pending(struct content_type *ct, uint32_t type) {
	/* none once the wl_surface is gone */
	struct vt_surface *surface = ct->addon.surface != NULL ?
			vt_surface_from_wlr(ct->addon.surface) :
			NULL;
	if (surface != NULL) {
		surface->content_type_pending = type;
	}
}

static void handle_resource_destroy(struct wl_resource *resource) {
	struct content_type *ct = content_type_from_resource(resource);
	/* the next commit goes back to none */
	set_pending(ct, WP_CONTENT_TYPE_V1_TYPE_NONE);
	vt_surface_addon_finish(&ct->addon);
	free(ct);
}

static void content_type_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static void content_type_handle_set(struct wl_client *client,
		struct wl_resource *resource, uint32_t type) {
	struct content_type *ct = content_type_from_resource(resource);
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

static void manager_handle_get(struct wl_client *client,
		struct wl_resource *resource, uint32_t id,
		struct wl_resource *surface_resource) {
	struct content_type *ct = calloc(1, sizeof(*ct));
	if (ct == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	if (!vt_surface_addon_create(&ct->addon, resource, id, surface_resource,
				&wp_content_type_v1_interface, &content_type_impl,
				handle_resource_destroy,
				WP_CONTENT_TYPE_MANAGER_V1_ERROR_ALREADY_CONSTRUCTED)) {
		free(ct);
	}
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
