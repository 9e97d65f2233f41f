/*
 * See image_capture_source.h.
 *
 * A source holds its output until the output is disabled or destroyed
 * (server->events.output_gone), or its window until the window unmaps
 * (server->events.view_unmap); sessions made from it copy the output or
 * the window and follow it themselves, so a source destroyed after making
 * a session does not end the session.
 */
#include <stdlib.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_output.h>

#include "ext-image-capture-source-v1-protocol.h"
#include "output/output.h"
#include "protocols/ext_foreign_toplevel_list.h"
#include "protocols/image_capture_source.h"
#include "server.h"
#include "util.h"

#define OUTPUT_SOURCE_MANAGER_VERSION 1
#define TOPLEVEL_SOURCE_MANAGER_VERSION 1

struct capture_source {
	struct wl_resource *resource;
	/* one of them, NULL once gone */
	struct vt_output *output;
	struct vt_view *view;
	struct wl_listener output_gone;
	struct wl_listener view_unmap;
};

static const struct ext_image_capture_source_v1_interface source_impl;

static struct capture_source *source_from_resource(
		struct wl_resource *resource) {
	if (resource == NULL) {
		return NULL;
	}
	return wl_resource_instance_of(resource,
				   &ext_image_capture_source_v1_interface, &source_impl) ?
			wl_resource_get_user_data(resource) :
			NULL;
}

struct vt_output *vt_image_capture_source_output(struct wl_resource *resource) {
	struct capture_source *source = source_from_resource(resource);
	return source != NULL ? source->output : NULL;
}

struct vt_view *vt_image_capture_source_view(struct wl_resource *resource) {
	struct capture_source *source = source_from_resource(resource);
	return source != NULL ? source->view : NULL;
}

static void handle_source_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct ext_image_capture_source_v1_interface source_impl = {
	.destroy = handle_source_destroy,
};

static void source_handle_output_gone(struct wl_listener *listener,
		void *data) {
	struct capture_source *source =
			wl_container_of(listener, source, output_gone);
	struct vt_output_change_event *event = data;
	if (event->output == source->output) {
		source->output = NULL;
	}
}

static void source_handle_view_unmap(struct wl_listener *listener, void *data) {
	struct capture_source *source =
			wl_container_of(listener, source, view_unmap);
	if (data == source->view) {
		source->view = NULL;
	}
}

static void source_resource_destroy(struct wl_resource *resource) {
	struct capture_source *source = wl_resource_get_user_data(resource);
	wl_list_remove(&source->output_gone.link);
	wl_list_remove(&source->view_unmap.link);
	free(source);
}

/* A source of output or view (both NULL: a source of nothing, whose
 * sessions stop at once). */
static void source_create(struct vt_server *server, struct wl_client *client,
		uint32_t version, uint32_t id, struct vt_output *output,
		struct vt_view *view) {
	struct capture_source *source = calloc(1, sizeof(*source));
	if (source == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	source->output = output;
	source->view = view;
	source->resource =
			vt_resource_create(client, &ext_image_capture_source_v1_interface,
					version, id, &source_impl, source, source_resource_destroy);
	if (source->resource == NULL) {
		free(source);
		return;
	}
	source->output_gone.notify = source_handle_output_gone;
	wl_signal_add(&server->events.output_gone, &source->output_gone);
	source->view_unmap.notify = source_handle_view_unmap;
	wl_signal_add(&server->events.view_unmap, &source->view_unmap);
}

static void handle_create_output_source(struct wl_client *client,
		struct wl_resource *manager, uint32_t id,
		struct wl_resource *output_resource) {
	struct vt_server *server = wl_resource_get_user_data(manager);
	/* an inert wl_output (its output gone) makes a source of nothing */
	struct wlr_output *wlr_output = wlr_output_from_resource(output_resource);
	source_create(server, client, wl_resource_get_version(manager), id,
			wlr_output != NULL ? wlr_output->data : NULL, NULL);
}

static void handle_create_toplevel_source(struct wl_client *client,
		struct wl_resource *manager, uint32_t id, struct wl_resource *handle) {
	struct vt_server *server = wl_resource_get_user_data(manager);
	/* a closed handle makes a source of nothing */
	source_create(server, client, wl_resource_get_version(manager), id, NULL,
			vt_ext_foreign_toplevel_handle_view(handle));
}

static void handle_manager_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct ext_output_image_capture_source_manager_v1_interface
		output_manager_impl = {
			.create_source = handle_create_output_source,
			.destroy = handle_manager_destroy,
		};

static const struct
		ext_foreign_toplevel_image_capture_source_manager_v1_interface
				toplevel_manager_impl = {
					.create_source = handle_create_toplevel_source,
					.destroy = handle_manager_destroy,
				};

static void output_manager_bind(struct wl_client *client, void *data,
		uint32_t version, uint32_t id) {
	vt_resource_create(client,
			&ext_output_image_capture_source_manager_v1_interface, version, id,
			&output_manager_impl, data, NULL);
}

static void toplevel_manager_bind(struct wl_client *client, void *data,
		uint32_t version, uint32_t id) {
	vt_resource_create(client,
			&ext_foreign_toplevel_image_capture_source_manager_v1_interface,
			version, id, &toplevel_manager_impl, data, NULL);
}

bool vt_image_capture_source_init(struct vt_server *server) {
	return wl_global_create(server->display,
				   &ext_output_image_capture_source_manager_v1_interface,
				   OUTPUT_SOURCE_MANAGER_VERSION, server,
				   output_manager_bind) != NULL &&
			wl_global_create(server->display,
					&ext_foreign_toplevel_image_capture_source_manager_v1_interface,
					TOPLEVEL_SOURCE_MANAGER_VERSION, server,
					toplevel_manager_bind) != NULL;
}
