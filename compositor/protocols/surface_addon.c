/*
 * See surface_addon.h.
 *
 * An addon is found through its client's resources (the objects of that
 * interface and implementation whose surface is the one asked for): no
 * list per module, and nothing to look up once the client is gone.
 */
#include "protocols/surface_addon.h"

#include <assert.h>
#include <wlr/types/wlr_surface.h>

#include "util.h"

static void handle_surface_destroy(struct wl_listener *listener, void *data) {
	struct vt_surface_addon *addon =
			wl_container_of(listener, addon, surface_destroy);
	wl_list_remove(&addon->surface_destroy.link);
	wl_list_init(&addon->surface_destroy.link);
	addon->surface = NULL;
}

struct addon_search {
	const struct wl_interface *interface;
	const void *impl;
	struct wlr_surface *surface;
	struct vt_surface_addon *found;
};

static enum wl_iterator_result search_resource(struct wl_resource *resource,
		void *data) {
	struct addon_search *search = data;
	if (wl_resource_instance_of(resource, search->interface, search->impl)) {
		struct vt_surface_addon *addon = wl_resource_get_user_data(resource);
		if (addon->surface == search->surface) {
			search->found = addon;
			return WL_ITERATOR_STOP;
		}
	}
	return WL_ITERATOR_CONTINUE;
}

struct vt_surface_addon *vt_surface_addon_find(struct wlr_surface *surface,
		const struct wl_interface *interface, const void *impl) {
	struct addon_search search = {
		.interface = interface,
		.impl = impl,
		.surface = surface,
	};
	if (surface != NULL) {
		wl_client_for_each_resource(wl_resource_get_client(surface->resource),
				search_resource, &search);
	}
	return search.found;
}

struct vt_surface_addon *vt_surface_addon_from_resource(
		struct wl_resource *resource, const struct wl_interface *interface,
		const void *impl) {
	assert(wl_resource_instance_of(resource, interface, impl));
	return wl_resource_get_user_data(resource);
}

bool vt_surface_addon_create(struct vt_surface_addon *addon,
		struct wl_resource *manager, uint32_t id,
		struct wl_resource *surface_resource,
		const struct wl_interface *interface, const void *impl,
		wl_resource_destroy_func_t destroy, uint32_t exists_code) {
	struct wlr_surface *surface = wlr_surface_from_resource(surface_resource);
	if (vt_surface_addon_find(surface, interface, impl) != NULL) {
		vt_post_error(manager, exists_code, "wl_surface@%u has a %s already",
				wl_resource_get_id(surface_resource), interface->name);
		return false;
	}
	addon->resource =
			vt_resource_create(wl_resource_get_client(manager), interface,
					wl_resource_get_version(manager), id, impl, addon, destroy);
	if (addon->resource == NULL) {
		return false;
	}
	addon->surface = surface;
	addon->surface_destroy.notify = handle_surface_destroy;
	wl_signal_add(&surface->events.destroy, &addon->surface_destroy);
	return true;
}

void vt_surface_addon_finish(struct vt_surface_addon *addon) {
	wl_list_remove(&addon->surface_destroy.link);
	addon->surface = NULL;
}
