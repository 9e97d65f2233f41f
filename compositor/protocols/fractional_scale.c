/*
 * fractional-scale-v1 (wayland-protocols 1.31, staging): the scale a
 * surface should render at, in 120ths. vitrail's preferred scale is the
 * scale of the output the surface is on (the first output while it is on
 * none yet), sent when the client asks for the object and again whenever
 * the surface enters an output (view.c sends wl_surface.enter for a
 * toplevel's surfaces as it comes to an output).
 */
#include <math.h>
#include <stdlib.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_surface.h>

#include "desktop/surface.h"
#include "fractional-scale-v1-protocol.h"
#include "output/output.h"
#include "protocols/fractional_scale.h"
#include "protocols/surface_addon.h"
#include "server.h"
#include "util.h"

#define FRACTIONAL_SCALE_VERSION 1

struct fractional_scale {
	struct vt_surface_addon addon;
};

static const struct wp_fractional_scale_v1_interface scale_impl;

static void handle_resource_destroy(struct wl_resource *resource) {
	struct fractional_scale *fs;
	fs = wl_container_of(vt_surface_addon_from_resource(resource,
								 &wp_fractional_scale_v1_interface,
								 &scale_impl),
			fs, addon);
	vt_surface_addon_finish(&fs->addon);
	free(fs);
}

static void scale_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct wp_fractional_scale_v1_interface scale_impl = {
	.destroy = scale_handle_destroy,
};

static void send_scale(struct wl_resource *resource, float scale) {
	wp_fractional_scale_v1_send_preferred_scale(resource,
			(uint32_t)lroundf(scale * 120.0f));
}

static void manager_handle_get(struct wl_client *client,
		struct wl_resource *resource, uint32_t id,
		struct wl_resource *surface_resource) {
	struct vt_server *server = wl_resource_get_user_data(resource);
	struct fractional_scale *fs = calloc(1, sizeof(*fs));
	if (fs == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	if (!vt_surface_addon_create(&fs->addon, resource, id, surface_resource,
				&wp_fractional_scale_v1_interface, &scale_impl,
				handle_resource_destroy,
				WP_FRACTIONAL_SCALE_MANAGER_V1_ERROR_FRACTIONAL_SCALE_EXISTS)) {
		free(fs);
		return;
	}
	struct vt_surface *s = vt_surface_from_wlr(fs->addon.surface);
	struct vt_output *output = s != NULL ? vt_surface_output(s) : NULL;
	if (output == NULL) {
		output = vt_output_next(server, NULL);
	}
	send_scale(fs->addon.resource,
			output != NULL ? vt_output_wlr(output)->scale : 1.0f);
}

void vt_fractional_scale_entered(struct wlr_surface *surface,
		struct wlr_output *output) {
	struct vt_surface_addon *addon = vt_surface_addon_find(surface,
			&wp_fractional_scale_v1_interface, &scale_impl);
	if (addon != NULL) {
		send_scale(addon->resource, output->scale);
	}
}

static void manager_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct wp_fractional_scale_manager_v1_interface manager_impl = {
	.destroy = manager_handle_destroy,
	.get_fractional_scale = manager_handle_get,
};

static void manager_bind(struct wl_client *client, void *data, uint32_t version,
		uint32_t id) {
	vt_resource_create(client, &wp_fractional_scale_manager_v1_interface,
			version, id, &manager_impl, data, NULL);
}

bool vt_fractional_scale_init(struct vt_server *server) {
	/* the global goes with the display */
	return wl_global_create(server->display,
				   &wp_fractional_scale_manager_v1_interface,
				   FRACTIONAL_SCALE_VERSION, server, manager_bind) != NULL;
}
