/*
 * alpha-modifier-v1 (wayland-protocols 1.36, staging): a client sets a
 * factor for its surface's alpha. vitrail keeps it per surface,
 * double-buffered (alpha_multiplier_pending, applied by the surface's
 * commit in surface.c), as the opacity of the surface's content node: both
 * engines draw the buffer at that alpha. Subsurfaces are surfaces of
 * their own and keep theirs.
 */
#include <stdlib.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_surface.h>

#include "alpha-modifier-v1-protocol.h"
#include "desktop/surface.h"
#include "protocols/alpha_modifier.h"
#include "protocols/surface_addon.h"
#include "server.h"
#include "util.h"

#define ALPHA_MODIFIER_VERSION 1

/* One wp_alpha_modifier_surface_v1; its surface is NULL once the
 * wl_surface is gone (requests then raise no_surface). */
struct alpha_modifier {
	struct vt_surface_addon addon;
};

static const struct wp_alpha_modifier_surface_v1_interface modifier_impl;

static struct alpha_modifier *modifier_from_resource(
		struct wl_resource *resource) {
	struct alpha_modifier *m;
	return wl_container_of(vt_surface_addon_from_resource(resource,
								   &wp_alpha_modifier_surface_v1_interface,
								   &modifier_impl),
			m, addon);
}

static void set_pending(struct alpha_modifier *m, uint32_t factor) {
	struct vt_surface *surface = m->addon.surface != NULL ?
			vt_surface_from_wlr(m->addon.surface) :
			NULL;
	if (surface != NULL) {
		surface->alpha_multiplier_pending = factor;
	}
}

static void handle_resource_destroy(struct wl_resource *resource) {
	struct alpha_modifier *m = modifier_from_resource(resource);
	/* like set_multiplier(UINT32_MAX): the next commit is opaque again */
	set_pending(m, UINT32_MAX);
	vt_surface_addon_finish(&m->addon);
	free(m);
}

static void modifier_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static void modifier_handle_set_multiplier(struct wl_client *client,
		struct wl_resource *resource, uint32_t factor) {
	struct alpha_modifier *m = modifier_from_resource(resource);
	if (m->addon.surface == NULL) {
		wl_resource_post_error(resource,
				WP_ALPHA_MODIFIER_SURFACE_V1_ERROR_NO_SURFACE,
				"its wl_surface was destroyed");
		return;
	}
	set_pending(m, factor);
}

static const struct wp_alpha_modifier_surface_v1_interface modifier_impl = {
	.destroy = modifier_handle_destroy,
	.set_multiplier = modifier_handle_set_multiplier,
};

static void manager_handle_get(struct wl_client *client,
		struct wl_resource *resource, uint32_t id,
		struct wl_resource *surface_resource) {
	struct alpha_modifier *m = calloc(1, sizeof(*m));
	if (m == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	if (!vt_surface_addon_create(&m->addon, resource, id, surface_resource,
				&wp_alpha_modifier_surface_v1_interface, &modifier_impl,
				handle_resource_destroy,
				WP_ALPHA_MODIFIER_V1_ERROR_ALREADY_CONSTRUCTED)) {
		free(m);
	}
}

static void manager_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct wp_alpha_modifier_v1_interface manager_impl = {
	.destroy = manager_handle_destroy,
	.get_surface = manager_handle_get,
};

static void manager_bind(struct wl_client *client, void *data, uint32_t version,
		uint32_t id) {
	vt_resource_create(client, &wp_alpha_modifier_v1_interface, version, id,
			&manager_impl, NULL, NULL);
}

bool vt_alpha_modifier_init(struct vt_server *server) {
	/* the global goes with the display */
	return wl_global_create(server->display, &wp_alpha_modifier_v1_interface,
				   ALPHA_MODIFIER_VERSION, NULL, manager_bind) != NULL;
}
