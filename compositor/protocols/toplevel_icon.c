/*
 * xdg-toplevel-icon-v1 (wayland-protocols 1.37, staging): a client gives
 * its toplevels an icon, by name or as pixel buffers. vitrail draws no
 * icons (its title bars have none): it keeps each toplevel's icon, applied
 * with the toplevel's commit as the protocol says (its name and its shm
 * buffers, referenced), says it in the log, checks every request, and
 * states no preferred size (done alone at bind).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/log.h>

#include "protocols/toplevel_icon.h"
#include "server.h"
#include "util.h"
#include "xdg-toplevel-icon-v1-protocol.h"

#define TOPLEVEL_ICON_VERSION 1
/* Buffers one icon keeps (one per size and scale). */
#define ICON_BUFFERS 16

struct icon_buffer {
	struct wlr_buffer *buffer; /* locked */
	int32_t size, scale;
};

/* What an icon holds, shared by the icon object and the toplevels it was
 * set on (refs). */
struct icon_data {
	int refs;
	char *name;
	struct icon_buffer buffers[ICON_BUFFERS];
	int buffers_len;
};

struct icon;

/* A wl_buffer added to an icon, watched until the icon goes: destroying
 * it first is no_buffer. */
struct buffer_watch {
	struct wl_listener destroy;
	struct icon *icon;
};

/* One xdg_toplevel_icon_v1. */
struct icon {
	struct wl_resource *resource;
	struct icon_data *data;
	bool immutable; /* set on a toplevel */
	bool client_gone; /* its client is being destroyed */
	struct buffer_watch watches[ICON_BUFFERS];
	int watches_len;
	struct wl_listener client_destroy;
};

/* A toplevel's icon, applied with its surface's commit. */
struct toplevel_icon {
	struct wl_resource *toplevel;
	struct wlr_surface *surface;
	struct icon_data *pending, *current; /* NULL: the default icon */
	bool pending_set;
	struct wl_listener toplevel_destroy;
	struct wl_listener commit;
	struct wl_listener surface_destroy;
};

static void data_unref(struct icon_data *data) {
	if (data == NULL || --data->refs > 0) {
		return;
	}
	for (int i = 0; i < data->buffers_len; i++) {
		wlr_buffer_unlock(data->buffers[i].buffer);
	}
	free(data->name);
	free(data);
}

static struct icon_data *data_ref(struct icon_data *data) {
	if (data != NULL) {
		data->refs++;
	}
	return data;
}

/* ---- toplevels ---------------------------------------------------------- */

static void toplevel_icon_destroy(struct toplevel_icon *t) {
	wl_list_remove(&t->toplevel_destroy.link);
	wl_list_remove(&t->commit.link);
	wl_list_remove(&t->surface_destroy.link);
	data_unref(t->pending);
	data_unref(t->current);
	free(t);
}

static void handle_toplevel_destroy(struct wl_listener *listener, void *data) {
	struct toplevel_icon *t = wl_container_of(listener, t, toplevel_destroy);
	toplevel_icon_destroy(t);
}

/* The wl_surface went first (a client error wlroots tolerates): the
 * toplevel is inert, its icon stays until it goes. */
static void handle_surface_destroy(struct wl_listener *listener, void *data) {
	struct toplevel_icon *t = wl_container_of(listener, t, surface_destroy);
	wl_list_remove(&t->commit.link);
	wl_list_init(&t->commit.link);
	wl_list_remove(&t->surface_destroy.link);
	wl_list_init(&t->surface_destroy.link);
	t->surface = NULL;
}

static void handle_commit(struct wl_listener *listener, void *data) {
	struct toplevel_icon *t = wl_container_of(listener, t, commit);
	if (!t->pending_set) {
		return;
	}
	data_unref(t->current);
	t->current = t->pending;
	t->pending = NULL;
	t->pending_set = false;
	/* a window's icon changes seldom: said in the log (the only place
	 * it shows, which the tests read) */
	wlr_log(WLR_INFO, "xdg_toplevel@%u: icon %s, %d buffers",
			wl_resource_get_id(t->toplevel),
			t->current != NULL && t->current->name != NULL ? t->current->name :
															 "-",
			t->current != NULL ? t->current->buffers_len : 0);
}

/* The toplevel's icon state, made on first use: found through its
 * destroy listener on the xdg_toplevel, so the module keeps no list. */
static struct toplevel_icon *toplevel_icon_get(struct wl_resource *toplevel) {
	struct wl_listener *listener =
			wl_resource_get_destroy_listener(toplevel, handle_toplevel_destroy);
	struct toplevel_icon *t;
	if (listener != NULL) {
		return wl_container_of(listener, t, toplevel_destroy);
	}
	struct wlr_xdg_surface *xdg_surface =
			wlr_xdg_surface_from_toplevel_resource(toplevel);
	if (xdg_surface == NULL || (t = calloc(1, sizeof(*t))) == NULL) {
		return NULL;
	}
	t->toplevel = toplevel;
	t->surface = xdg_surface->surface;
	t->toplevel_destroy.notify = handle_toplevel_destroy;
	wl_resource_add_destroy_listener(toplevel, &t->toplevel_destroy);
	t->commit.notify = handle_commit;
	wl_signal_add(&t->surface->events.commit, &t->commit);
	t->surface_destroy.notify = handle_surface_destroy;
	wl_signal_add(&t->surface->events.destroy, &t->surface_destroy);
	return t;
}

/* ---- xdg_toplevel_icon_v1 ----------------------------------------------- */

static const struct xdg_toplevel_icon_v1_interface icon_impl;

static struct icon *icon_from_resource(struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource, &xdg_toplevel_icon_v1_interface,
			&icon_impl));
	return wl_resource_get_user_data(resource);
}

static void handle_buffer_destroy(struct wl_listener *listener, void *data) {
	struct buffer_watch *watch = wl_container_of(listener, watch, destroy);
	wl_list_remove(&watch->destroy.link);
	wl_list_init(&watch->destroy.link);
	struct icon *icon = watch->icon;
	if (!icon->client_gone) {
		wl_resource_post_error(icon->resource,
				XDG_TOPLEVEL_ICON_V1_ERROR_NO_BUFFER,
				"a wl_buffer of the icon was destroyed before the icon");
	}
}

static void handle_client_destroy(struct wl_listener *listener, void *data) {
	struct icon *icon = wl_container_of(listener, icon, client_destroy);
	icon->client_gone = true;
}

static void icon_handle_resource_destroy(struct wl_resource *resource) {
	struct icon *icon = icon_from_resource(resource);
	for (int i = 0; i < icon->watches_len; i++) {
		wl_list_remove(&icon->watches[i].destroy.link);
	}
	wl_list_remove(&icon->client_destroy.link);
	data_unref(icon->data);
	free(icon);
}

static void icon_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static bool check_mutable(struct icon *icon) {
	if (icon->immutable) {
		wl_resource_post_error(icon->resource,
				XDG_TOPLEVEL_ICON_V1_ERROR_IMMUTABLE,
				"the icon was set on a toplevel");
		return false;
	}
	return true;
}

static void icon_handle_set_name(struct wl_client *client,
		struct wl_resource *resource, const char *name) {
	struct icon *icon = icon_from_resource(resource);
	if (!check_mutable(icon)) {
		return;
	}
	char *copy = strdup(name);
	if (copy == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	free(icon->data->name);
	icon->data->name = copy;
}

static void icon_handle_add_buffer(struct wl_client *client,
		struct wl_resource *resource, struct wl_resource *buffer_resource,
		int32_t scale) {
	struct icon *icon = icon_from_resource(resource);
	if (!check_mutable(icon)) {
		return;
	}
	struct wl_shm_buffer *shm = wl_shm_buffer_get(buffer_resource);
	if (shm == NULL) {
		wl_resource_post_error(resource,
				XDG_TOPLEVEL_ICON_V1_ERROR_INVALID_BUFFER,
				"wl_buffer@%u is not a wl_shm buffer",
				wl_resource_get_id(buffer_resource));
		return;
	}
	int32_t width = wl_shm_buffer_get_width(shm);
	int32_t height = wl_shm_buffer_get_height(shm);
	if (width != height || scale < 1) {
		wl_resource_post_error(resource,
				XDG_TOPLEVEL_ICON_V1_ERROR_INVALID_BUFFER,
				"wl_buffer@%u is %dx%d at scale %d: not square, or the "
				"scale below 1",
				wl_resource_get_id(buffer_resource), width, height, scale);
		return;
	}
	struct icon_data *data = icon->data;
	int slot = 0;
	while (slot < data->buffers_len &&
			(data->buffers[slot].size != width ||
					data->buffers[slot].scale != scale)) {
		slot++;
	}
	if (slot == ICON_BUFFERS || icon->watches_len == ICON_BUFFERS) {
		wl_resource_post_error(resource,
				XDG_TOPLEVEL_ICON_V1_ERROR_INVALID_BUFFER,
				"more than %d buffers for one icon", ICON_BUFFERS);
		return;
	}
	struct wlr_buffer *buffer = wlr_buffer_from_resource(buffer_resource);
	if (buffer == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	if (slot < data->buffers_len) {
		wlr_buffer_unlock(data->buffers[slot].buffer);
	} else {
		data->buffers_len++;
	}
	data->buffers[slot] = (struct icon_buffer){ .buffer = buffer,
		.size = width,
		.scale = scale };
	struct buffer_watch *watch = &icon->watches[icon->watches_len++];
	watch->icon = icon;
	watch->destroy.notify = handle_buffer_destroy;
	wl_resource_add_destroy_listener(buffer_resource, &watch->destroy);
}

static const struct xdg_toplevel_icon_v1_interface icon_impl = {
	.destroy = icon_handle_destroy,
	.set_name = icon_handle_set_name,
	.add_buffer = icon_handle_add_buffer,
};

/* ---- the manager -------------------------------------------------------- */

static void manager_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static void manager_handle_create_icon(struct wl_client *client,
		struct wl_resource *resource, uint32_t id) {
	struct icon *icon = calloc(1, sizeof(*icon));
	struct icon_data *data = calloc(1, sizeof(*data));
	struct wl_resource *icon_resource =
			wl_resource_create(client, &xdg_toplevel_icon_v1_interface,
					wl_resource_get_version(resource), id);
	if (icon == NULL || data == NULL || icon_resource == NULL) {
		free(icon);
		free(data);
		if (icon_resource != NULL) {
			wl_resource_destroy(icon_resource);
		}
		wl_client_post_no_memory(client);
		return;
	}
	data->refs = 1;
	icon->data = data;
	icon->resource = icon_resource;
	icon->client_destroy.notify = handle_client_destroy;
	wl_client_add_destroy_listener(client, &icon->client_destroy);
	wl_resource_set_implementation(icon_resource, &icon_impl, icon,
			icon_handle_resource_destroy);
}

static void manager_handle_set_icon(struct wl_client *client,
		struct wl_resource *resource, struct wl_resource *toplevel,
		struct wl_resource *icon_resource) {
	struct toplevel_icon *t = toplevel_icon_get(toplevel);
	if (t == NULL) {
		return; /* an inert toplevel, or out of memory: nothing to set */
	}
	struct icon_data *data = NULL;
	if (icon_resource != NULL) {
		struct icon *icon = icon_from_resource(icon_resource);
		icon->immutable = true;
		/* an icon without name or buffer is the default icon */
		if (icon->data->name != NULL || icon->data->buffers_len > 0) {
			data = data_ref(icon->data);
		}
	}
	data_unref(t->pending);
	t->pending = data;
	t->pending_set = true;
}

static const struct xdg_toplevel_icon_manager_v1_interface manager_impl = {
	.destroy = manager_handle_destroy,
	.create_icon = manager_handle_create_icon,
	.set_icon = manager_handle_set_icon,
};

static void manager_bind(struct wl_client *client, void *data, uint32_t version,
		uint32_t id) {
	struct wl_resource *resource =
			vt_resource_create(client, &xdg_toplevel_icon_manager_v1_interface,
					version, id, &manager_impl, NULL, NULL);
	if (resource != NULL) {
		/* no preferred size: vitrail shows no icon */
		xdg_toplevel_icon_manager_v1_send_done(resource);
	}
}

bool vt_toplevel_icon_init(struct vt_server *server) {
	return wl_global_create(server->display,
				   &xdg_toplevel_icon_manager_v1_interface,
				   TOPLEVEL_ICON_VERSION, NULL, manager_bind) != NULL;
}
