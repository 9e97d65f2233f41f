/*
 * single-pixel-buffer-v1 (wayland-protocols 1.31, staging): a wl_buffer of
 * one premultiplied RGBA pixel given as four 32-bit values.
 *
 * The buffer is a wlr_buffer of its own kind, registered with wlroots so
 * that wl_surface.attach takes it like a wl_shm buffer: it offers its
 * pixel through data-pointer access as one ARGB8888 pixel (each channel
 * rounded to 8 bits), which surface.c copies into the surface's 1x1 image
 * like any small buffer; the content node scales it to the surface's size
 * (a viewport's destination, usually), a solid colour.
 */
#include <assert.h>
#include <drm_fourcc.h>
#include <stdlib.h>
#include <wayland-server-core.h>
#include <wayland-server-protocol.h>
#include <wlr/types/wlr_buffer.h>

#include "protocols/single_pixel.h"
#include "server.h"
#include "single-pixel-buffer-v1-protocol.h"
#include "util.h"

#define SINGLE_PIXEL_VERSION 1

struct single_pixel_buffer {
	struct wlr_buffer base;
	struct wl_resource *resource; /* NULL once the client destroyed it */
	uint32_t argb; /* DRM_FORMAT_ARGB8888, premultiplied */
	struct wl_listener release;
};

static void buffer_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct wl_buffer_interface wl_buffer_impl = {
	.destroy = buffer_handle_destroy,
};

static bool buffer_is_instance(struct wl_resource *resource) {
	return wl_resource_instance_of(resource, &wl_buffer_interface,
			&wl_buffer_impl);
}

static struct wlr_buffer *buffer_from_resource(struct wl_resource *resource) {
	assert(buffer_is_instance(resource));
	struct single_pixel_buffer *buffer = wl_resource_get_user_data(resource);
	return &buffer->base;
}

static const struct wlr_buffer_resource_interface resource_interface = {
	.name = "single_pixel_buffer_v1",
	.is_instance = buffer_is_instance,
	.from_resource = buffer_from_resource,
};

static void buffer_destroy(struct wlr_buffer *wlr_buffer) {
	struct single_pixel_buffer *buffer =
			wl_container_of(wlr_buffer, buffer, base);
	wl_list_remove(&buffer->release.link);
	free(buffer);
}

static bool buffer_begin_data_ptr_access(struct wlr_buffer *wlr_buffer,
		uint32_t flags, void **data, uint32_t *format, size_t *stride) {
	struct single_pixel_buffer *buffer =
			wl_container_of(wlr_buffer, buffer, base);
	if (flags & WLR_BUFFER_DATA_PTR_ACCESS_WRITE) {
		return false;
	}
	*data = &buffer->argb;
	*format = DRM_FORMAT_ARGB8888;
	*stride = sizeof(buffer->argb);
	return true;
}

static void buffer_end_data_ptr_access(struct wlr_buffer *wlr_buffer) {
	/* nothing held */
}

static const struct wlr_buffer_impl buffer_impl = {
	.destroy = buffer_destroy,
	.begin_data_ptr_access = buffer_begin_data_ptr_access,
	.end_data_ptr_access = buffer_end_data_ptr_access,
};

static void buffer_handle_release(struct wl_listener *listener, void *data) {
	struct single_pixel_buffer *buffer =
			wl_container_of(listener, buffer, release);
	if (buffer->resource != NULL) {
		wl_buffer_send_release(buffer->resource);
	}
}

static void buffer_handle_resource_destroy(struct wl_resource *resource) {
	struct single_pixel_buffer *buffer = wl_resource_get_user_data(resource);
	buffer->resource = NULL;
	/* freed once no surface holds it any more */
	wlr_buffer_drop(&buffer->base);
}

/* A 32-bit channel value to 8 bits, rounded (0 -> 0, UINT32_MAX -> 255,
 * c * 0x01010101 -> c). */
static uint32_t channel8(uint32_t v) {
	return (uint32_t)(((uint64_t)v * 255 + UINT32_MAX / 2) / UINT32_MAX);
}

static void manager_handle_create_buffer(struct wl_client *client,
		struct wl_resource *resource, uint32_t id, uint32_t r, uint32_t g,
		uint32_t b, uint32_t a) {
	struct single_pixel_buffer *buffer = calloc(1, sizeof(*buffer));
	if (buffer == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	buffer->resource = wl_resource_create(client, &wl_buffer_interface, 1, id);
	if (buffer->resource == NULL) {
		free(buffer);
		wl_client_post_no_memory(client);
		return;
	}
	wlr_buffer_init(&buffer->base, &buffer_impl, 1, 1);
	buffer->argb = channel8(a) << 24 | channel8(r) << 16 | channel8(g) << 8 |
			channel8(b);
	buffer->release.notify = buffer_handle_release;
	wl_signal_add(&buffer->base.events.release, &buffer->release);
	wl_resource_set_implementation(buffer->resource, &wl_buffer_impl, buffer,
			buffer_handle_resource_destroy);
}

static void manager_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct wp_single_pixel_buffer_manager_v1_interface manager_impl = {
	.destroy = manager_handle_destroy,
	.create_u32_rgba_buffer = manager_handle_create_buffer,
};

static void manager_bind(struct wl_client *client, void *data, uint32_t version,
		uint32_t id) {
	vt_resource_create(client, &wp_single_pixel_buffer_manager_v1_interface,
			version, id, &manager_impl, NULL, NULL);
}

bool vt_single_pixel_init(struct vt_server *server) {
	/* the global goes with the display */
	if (wl_global_create(server->display,
				&wp_single_pixel_buffer_manager_v1_interface,
				SINGLE_PIXEL_VERSION, NULL, manager_bind) == NULL) {
		return false;
	}
	wlr_buffer_register_resource_interface(&resource_interface);
	return true;
}
