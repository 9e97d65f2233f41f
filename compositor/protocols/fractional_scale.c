/*
 * fractional-scale-v1 (wayland-protocols 1.31, staging): the scale a
 * surface should render at, in 120ths. vitrail's preferred scale is the
 * scale of the output the surface is on (the first output while it is on
 * none yet), sent when the client asks for the object and again whenever
 * the surface enters an output (view.c sends wl_surface.enter for a
 * toplevel's surfaces as it comes to an output).
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_surface.h>

#include "desktop/surface.h"
#include "fractional-scale-v1-protocol.h"
#include "output/output.h"
#include "protocols/fractional_scale.h"
#include "server.h"
#include "util.h"

#define FRACTIONAL_SCALE_VERSION 1

struct fractional_scale {
	struct wl_resource *resource;
	struct wlr_surface *surface;
	struct wl_listener surface_destroy;
};

static const struct wp_fractional_scale_v1_interface scale_impl;

static struct fractional_scale *scale_from_resource(
		struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource, &wp_fractional_scale_v1_interface,
			&scale_impl));
	return wl_resource_get_user_data(resource);
}

static void scale_destroy(struct fractional_scale *fs) {
	if (fs == NULL) {
		return;
	}
	wl_list_remove(&fs->surface_destroy.link);
	wl_resource_set_user_data(fs->resource, NULL);
	free(fs);
}

static void handle_surface_destroy(struct wl_listener *listener, void *data) {
	struct fractional_scale *fs =
			wl_container_of(listener, fs, surface_destroy);
	scale_destroy(fs);
}

static void handle_resource_destroy(struct wl_resource *resource) {
	scale_destroy(scale_from_resource(resource));
}

static void scale_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct wp_fractional_scale_v1_interface scale_impl = {
	.destroy = scale_handle_destroy,
};

static enum wl_iterator_result find_scale(struct wl_resource *resource,
		void *data) {
	struct wlr_surface **surface = data;
	if (wl_resource_instance_of(resource, &wp_fractional_scale_v1_interface,
				&scale_impl)) {
		struct fractional_scale *fs = wl_resource_get_user_data(resource);
		if (fs != NULL && fs->surface == *surface) {
			*surface = NULL;
			return WL_ITERATOR_STOP;
		}
	}
	return WL_ITERATOR_CONTINUE;
}

static void manager_handle_get(struct wl_client *client,
		struct wl_resource *resource, uint32_t id,
		struct wl_resource *surface_resource) {
	struct vt_server *server = wl_resource_get_user_data(resource);
	struct wlr_surface *surface = wlr_surface_from_resource(surface_resource);
	struct wlr_surface *search = surface;
	wl_client_for_each_resource(client, find_scale, &search);
	if (search == NULL) {
		wl_resource_post_error(resource,
				WP_FRACTIONAL_SCALE_MANAGER_V1_ERROR_FRACTIONAL_SCALE_EXISTS,
				"wl_surface@%u has a wp_fractional_scale_v1 already",
				wl_resource_get_id(surface_resource));
		return;
	}
	struct fractional_scale *fs = calloc(1, sizeof(*fs));
	struct wl_resource *fs_resource =
			wl_resource_create(client, &wp_fractional_scale_v1_interface,
					wl_resource_get_version(resource), id);
	if (fs == NULL || fs_resource == NULL) {
		free(fs);
		if (fs_resource != NULL) {
			wl_resource_destroy(fs_resource);
		}
		wl_client_post_no_memory(client);
		return;
	}
	fs->resource = fs_resource;
	fs->surface = surface;
	fs->surface_destroy.notify = handle_surface_destroy;
	wl_signal_add(&surface->events.destroy, &fs->surface_destroy);
	wl_resource_set_implementation(fs_resource, &scale_impl, fs,
			handle_resource_destroy);

	struct vt_surface *s = vt_surface_from_wlr(surface);
	struct vt_output *output = s != NULL ? vt_surface_output(s) : NULL;
	if (output == NULL) {
		output = vt_output_next(server, NULL);
	}
	float scale = output != NULL ? vt_output_wlr(output)->scale : 1.0f;
	wp_fractional_scale_v1_send_preferred_scale(fs_resource,
			(uint32_t)lroundf(scale * 120.0f));
}

static void send_scale(struct wl_resource *resource,
		struct wlr_output *output) {
	wp_fractional_scale_v1_send_preferred_scale(resource,
			(uint32_t)lroundf(output->scale * 120.0f));
}

struct entered {
	struct wlr_surface *surface;
	struct wlr_output *output;
};

static enum wl_iterator_result send_entered(struct wl_resource *resource,
		void *data) {
	struct entered *e = data;
	if (wl_resource_instance_of(resource, &wp_fractional_scale_v1_interface,
				&scale_impl)) {
		struct fractional_scale *fs = wl_resource_get_user_data(resource);
		if (fs != NULL && fs->surface == e->surface) {
			send_scale(resource, e->output);
			return WL_ITERATOR_STOP;
		}
	}
	return WL_ITERATOR_CONTINUE;
}

void vt_fractional_scale_entered(struct wlr_surface *surface,
		struct wlr_output *output) {
	struct entered e = { surface, output };
	wl_client_for_each_resource(wl_resource_get_client(surface->resource),
			send_entered, &e);
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
