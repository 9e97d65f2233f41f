/*
 * A per-surface extension object (surface_addon.c): one object of an
 * interface per wl_surface, such as wp_alpha_modifier_surface_v1,
 * wp_content_type_v1, wp_fractional_scale_v1, wp_fifo_v1 and
 * wp_commit_timer_v1. A module embeds the struct in its object; the
 * resource's user data is the addon (wl_container_of gives the object).
 * The object follows its wl_surface: surface is NULL once the wl_surface
 * is gone, and the object lives until its resource is destroyed.
 */
#ifndef VITRAIL_SURFACE_ADDON_H
#define VITRAIL_SURFACE_ADDON_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

struct wlr_surface;

struct vt_surface_addon {
	struct wl_resource *resource;
	struct wlr_surface *surface; /* NULL once destroyed */
	struct wl_listener surface_destroy;
};

/* Make the addon's resource (interface, impl and destroy) for the
 * wl_surface of surface_resource, asked for on manager. False when that
 * surface has an object of this interface already (the error exists_code
 * on manager) or memory ran out (the client is told); destroy is not
 * called then. */
bool vt_surface_addon_create(struct vt_surface_addon *addon,
		struct wl_resource *manager, uint32_t id,
		struct wl_resource *surface_resource,
		const struct wl_interface *interface, const void *impl,
		wl_resource_destroy_func_t destroy, uint32_t exists_code);
/* From the resource's destroy: stop following the surface. */
void vt_surface_addon_finish(struct vt_surface_addon *addon);
/* The addon of interface and impl on surface, or NULL. */
struct vt_surface_addon *vt_surface_addon_find(struct wlr_surface *surface,
		const struct wl_interface *interface, const void *impl);
/* The addon of resource, which must be of interface and impl. */
struct vt_surface_addon *vt_surface_addon_from_resource(
		struct wl_resource *resource, const struct wl_interface *interface,
		const void *impl);

#endif
