/*
 * What every object of the scene protocol shares (the layer below
 * display_list.c, nodes.c and scene.c): the destroy request, protocol
 * errors, the clients' quotas, images, and the names of animated
 * properties and curves.
 */
#include <assert.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <wayland-server-core.h>
#include <wlr/util/log.h>

#include "scene/scene_internal.h"

const char *const scene_prop_names[PROP_COUNT] = {
	"translation",
	"scale",
	"rotation",
	"opacity",
	"clip",
};
const int scene_prop_counts[PROP_COUNT] = { 2, 2, 1, 1, 5 };

const char *const scene_curve_names[CURVE_COUNT] = {
	"linear",
	"cubic_bezier",
	"spring",
};
const int scene_curve_counts[CURVE_COUNT] = { 0, 4, 3 };

void scene_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

/* ---- quotas ------------------------------------------------------------- */

void scene_quota_unref(struct client_quota *quota) {
	if (quota == NULL || --quota->refs > 0) {
		return;
	}
	assert(quota->client == NULL);
	free(quota);
	/* The client's last object is gone: give glibc's free pages back,
	 * so that its display lists and images do not stay in vitrail's
	 * resident memory. */
	malloc_trim(0);
}

struct client_quota *scene_quota_ref(struct client_quota *quota) {
	quota->refs++;
	return quota;
}

static void quota_handle_client_destroy(struct wl_listener *listener,
		void *data) {
	struct client_quota *quota =
			wl_container_of(listener, quota, client_destroy);
	wl_list_remove(&quota->client_destroy.link);
	quota->client = NULL;
	scene_quota_unref(quota);
}

struct client_quota *scene_quota_get(struct wl_client *client) {
	struct wl_listener *listener =
			wl_client_get_destroy_listener(client, quota_handle_client_destroy);
	if (listener != NULL) {
		struct client_quota *quota =
				wl_container_of(listener, quota, client_destroy);
		return scene_quota_ref(quota);
	}
	struct client_quota *quota = calloc(1, sizeof(*quota));
	if (quota == NULL) {
		return NULL;
	}
	quota->refs = 2;
	quota->client = client;
	quota->client_destroy.notify = quota_handle_client_destroy;
	wl_client_add_destroy_listener(client, &quota->client_destroy);
	return quota;
}

struct scene_image *scene_image_from_resource(struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource, &vitrail_scene_image_v1_interface,
			&scene_image_impl));
	return wl_resource_get_user_data(resource);
}

/* ---- images ------------------------------------------------------------- */

struct image_data *scene_image_data_ref(struct image_data *data) {
	data->refs++;
	return data;
}

void scene_image_data_unref(struct image_data *data) {
	if (data == NULL || --data->refs > 0) {
		return;
	}
	data->quota->images--;
	data->quota->image_bytes -= data->bytes;
	scene_quota_unref(data->quota);
	vr_image_unref(data->image);
	free(data);
}

void scene_image_handle_resource_destroy(struct wl_resource *resource) {
	struct scene_image *image = wl_resource_get_user_data(resource);
	if (image == NULL) {
		return;
	}
	scene_image_data_unref(image->data);
	free(image);
}

const struct vitrail_scene_image_v1_interface scene_image_impl = {
	.destroy = scene_handle_destroy,
};
