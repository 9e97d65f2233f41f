/*
 * ext-foreign-toplevel-list-v1 (wayland-protocols 1.35, staging): a
 * client lists the mapped toplevels of every client (xdg toplevels and
 * Xwayland windows: the views), each on a handle of its own with an
 * identifier, the title and the app_id, then done; a change of title or
 * app_id sends what changed and done; an unmap sends closed, after which
 * the handle is inert. stop answers finished, and the list then hears of
 * no new toplevel (the handles it has keep their events).
 *
 * vitrail follows the views through server->events (view_map,
 * view_unmap, view_names), as foreign_toplevel.c does: the desktop never
 * calls up into this module. An identifier is 32 hex digits: a salt drawn
 * at start-up, then a counter: no two toplevels of one vitrail share one,
 * and a toplevel mapped again is a new one.
 *
 * It shows other clients' windows: vt_privilege_of (config.c) classes it
 * with zwlr_foreign_toplevel_manager_v1 (foreign-toplevel), so kiosk mode
 * and sandboxed clients do not see it (kiosk.c's global filter).
 */
#define _GNU_SOURCE // getrandom
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <wayland-server-core.h>
#include <wlr/util/log.h>

#include "desktop/view.h"
#include "ext-foreign-toplevel-list-v1-protocol.h"
#include "protocols/ext_foreign_toplevel_list.h"
#include "server.h"
#include "util.h"

#define TOPLEVEL_LIST_VERSION 1
/* 32 hex digits and the NUL */
#define IDENTIFIER_SIZE 33

struct toplevel_list {
	struct vt_server *server;
	/* the bound lists that were not stopped (wl_resource_get_link) */
	struct wl_list lists;
	struct wl_list toplevels; // struct list_toplevel::link, mapping order
	uint64_t salt;
	uint64_t next_serial;
	struct wl_listener view_map;
	struct wl_listener view_unmap;
	struct wl_listener view_names;
	struct wl_listener display_destroy;
};

/* One mapped view. Its handles' user data is it until it unmaps (NULL
 * after: inert). */
struct list_toplevel {
	struct vt_view *view;
	char identifier[IDENTIFIER_SIZE];
	char *title; // as last sent, never NULL
	char *app_id; // as last sent, never NULL
	struct wl_list handles; // wl_resource_get_link of each handle
	struct wl_list link; // toplevel_list::toplevels
};

static const struct ext_foreign_toplevel_list_v1_interface list_impl;
static const struct ext_foreign_toplevel_handle_v1_interface handle_impl;

static const char *or_empty(const char *s) {
	return s != NULL ? s : "";
}

/* ---- handles --------------------------------------------------------------
 */

static void handle_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct ext_foreign_toplevel_handle_v1_interface handle_impl = {
	.destroy = handle_handle_destroy,
};

struct vt_view *vt_ext_foreign_toplevel_handle_view(
		struct wl_resource *resource) {
	if (resource == NULL ||
			!wl_resource_instance_of(resource,
					&ext_foreign_toplevel_handle_v1_interface, &handle_impl)) {
		return NULL;
	}
	struct list_toplevel *toplevel = wl_resource_get_user_data(resource);
	return toplevel != NULL ? toplevel->view : NULL;
}

static void handle_resource_destroy(struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource,
			&ext_foreign_toplevel_handle_v1_interface, &handle_impl));
	/* inert handles' links were initialised when they were closed */
	wl_list_remove(wl_resource_get_link(resource));
}

/* A new handle on toplevel for the list resource, with its state and
 * done. */
static void handle_create(struct list_toplevel *toplevel,
		struct wl_resource *list_resource) {
	struct wl_client *client = wl_resource_get_client(list_resource);
	struct wl_resource *resource = wl_resource_create(client,
			&ext_foreign_toplevel_handle_v1_interface,
			wl_resource_get_version(list_resource), 0);
	if (resource == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &handle_impl, toplevel,
			handle_resource_destroy);
	wl_list_insert(toplevel->handles.prev, wl_resource_get_link(resource));
	ext_foreign_toplevel_list_v1_send_toplevel(list_resource, resource);
	ext_foreign_toplevel_handle_v1_send_identifier(resource,
			toplevel->identifier);
	ext_foreign_toplevel_handle_v1_send_title(resource, toplevel->title);
	ext_foreign_toplevel_handle_v1_send_app_id(resource, toplevel->app_id);
	ext_foreign_toplevel_handle_v1_send_done(resource);
}

/* ---- lists ----------------------------------------------------------------
 */

static void list_handle_stop(struct wl_client *client,
		struct wl_resource *resource) {
	struct wl_list *link = wl_resource_get_link(resource);
	if (wl_list_empty(link)) {
		return; // stopped already: finished was sent
	}
	wl_list_remove(link);
	wl_list_init(link);
	ext_foreign_toplevel_list_v1_send_finished(resource);
}

static void list_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct ext_foreign_toplevel_list_v1_interface list_impl = {
	.stop = list_handle_stop,
	.destroy = list_handle_destroy,
};

static void list_resource_destroy(struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource,
			&ext_foreign_toplevel_list_v1_interface, &list_impl));
	wl_list_remove(wl_resource_get_link(resource));
}

static void list_bind(struct wl_client *client, void *data, uint32_t version,
		uint32_t id) {
	struct toplevel_list *tl = data;
	struct wl_resource *resource =
			vt_resource_create(client, &ext_foreign_toplevel_list_v1_interface,
					version, id, &list_impl, tl, list_resource_destroy);
	if (resource == NULL) {
		return;
	}
	wl_list_insert(tl->lists.prev, wl_resource_get_link(resource));
	struct list_toplevel *toplevel;
	wl_list_for_each(toplevel, &tl->toplevels, link) {
		handle_create(toplevel, resource);
	}
}

/* ---- the views' events (server->events) -----------------------------------
 */

static struct list_toplevel *toplevel_of(struct toplevel_list *tl,
		const struct vt_view *view) {
	struct list_toplevel *toplevel;
	wl_list_for_each(toplevel, &tl->toplevels, link) {
		if (toplevel->view == view) {
			return toplevel;
		}
	}
	return NULL;
}

static void toplevel_destroy(struct list_toplevel *toplevel) {
	struct wl_resource *resource, *tmp;
	wl_resource_for_each_safe(resource, tmp, &toplevel->handles) {
		ext_foreign_toplevel_handle_v1_send_closed(resource);
		wl_resource_set_user_data(resource, NULL);
		wl_list_remove(wl_resource_get_link(resource));
		wl_list_init(wl_resource_get_link(resource));
	}
	wl_list_remove(&toplevel->link);
	free(toplevel->title);
	free(toplevel->app_id);
	free(toplevel);
}

static void handle_view_map(struct wl_listener *listener, void *data) {
	struct toplevel_list *tl = wl_container_of(listener, tl, view_map);
	struct vt_view *view = data;
	if (toplevel_of(tl, view) != NULL) {
		return;
	}
	struct list_toplevel *toplevel = calloc(1, sizeof(*toplevel));
	if (toplevel == NULL) {
		wlr_log(WLR_ERROR, "out of memory: a toplevel left out of the list");
		return;
	}
	toplevel->title = strdup(or_empty(view->impl->get_title(view)));
	toplevel->app_id = strdup(or_empty(view->impl->get_app_id(view)));
	if (toplevel->title == NULL || toplevel->app_id == NULL) {
		free(toplevel->title);
		free(toplevel->app_id);
		free(toplevel);
		wlr_log(WLR_ERROR, "out of memory: a toplevel left out of the list");
		return;
	}
	toplevel->view = view;
	snprintf(toplevel->identifier, sizeof(toplevel->identifier),
			"%016" PRIx64 "%016" PRIx64, tl->salt, tl->next_serial++);
	wl_list_init(&toplevel->handles);
	wl_list_insert(tl->toplevels.prev, &toplevel->link);
	struct wl_resource *resource;
	wl_resource_for_each(resource, &tl->lists) {
		handle_create(toplevel, resource);
	}
}

static void handle_view_unmap(struct wl_listener *listener, void *data) {
	struct toplevel_list *tl = wl_container_of(listener, tl, view_unmap);
	/* emitted twice for a view unmapped, then finished */
	struct list_toplevel *toplevel = toplevel_of(tl, data);
	if (toplevel != NULL) {
		toplevel_destroy(toplevel);
	}
}

/* Replace *cached by now when they differ; whether they did. */
static bool update_name(char **cached, const char *now) {
	if (strcmp(*cached, now) == 0) {
		return false;
	}
	char *copy = strdup(now);
	if (copy == NULL) {
		wlr_log(WLR_ERROR, "out of memory: a toplevel's name not sent");
		return false;
	}
	free(*cached);
	*cached = copy;
	return true;
}

static void handle_view_names(struct wl_listener *listener, void *data) {
	struct toplevel_list *tl = wl_container_of(listener, tl, view_names);
	struct vt_view *view = data;
	struct list_toplevel *toplevel = toplevel_of(tl, view);
	if (toplevel == NULL) {
		return; // not mapped: its names go with its map
	}
	bool title = update_name(&toplevel->title,
			or_empty(view->impl->get_title(view)));
	bool app_id = update_name(&toplevel->app_id,
			or_empty(view->impl->get_app_id(view)));
	if (!title && !app_id) {
		return;
	}
	struct wl_resource *resource;
	wl_resource_for_each(resource, &toplevel->handles) {
		if (title) {
			ext_foreign_toplevel_handle_v1_send_title(resource,
					toplevel->title);
		}
		if (app_id) {
			ext_foreign_toplevel_handle_v1_send_app_id(resource,
					toplevel->app_id);
		}
		ext_foreign_toplevel_handle_v1_send_done(resource);
	}
}

static void handle_display_destroy(struct wl_listener *listener, void *data) {
	struct toplevel_list *tl = wl_container_of(listener, tl, display_destroy);
	struct list_toplevel *toplevel, *tmp;
	wl_list_for_each_safe(toplevel, tmp, &tl->toplevels, link) {
		toplevel_destroy(toplevel);
	}
	struct wl_resource *resource, *rtmp;
	wl_resource_for_each_safe(resource, rtmp, &tl->lists) {
		wl_list_remove(wl_resource_get_link(resource));
		wl_list_init(wl_resource_get_link(resource));
	}
	wl_list_remove(&tl->view_map.link);
	wl_list_remove(&tl->view_unmap.link);
	wl_list_remove(&tl->view_names.link);
	wl_list_remove(&tl->display_destroy.link);
	free(tl);
}

static uint64_t draw_salt(void) {
	uint64_t salt = 0;
	if (getrandom(&salt, sizeof(salt), GRND_NONBLOCK) != sizeof(salt)) {
		/* uniqueness rests on the counter; the salt only tells
		 * vitrail's runs apart */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		salt = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
	return salt;
}

bool vt_ext_foreign_toplevel_list_init(struct vt_server *server) {
	struct toplevel_list *tl = calloc(1, sizeof(*tl));
	if (tl == NULL) {
		return false;
	}
	if (wl_global_create(server->display,
				&ext_foreign_toplevel_list_v1_interface, TOPLEVEL_LIST_VERSION,
				tl, list_bind) == NULL) {
		free(tl);
		return false;
	}
	tl->server = server;
	tl->salt = draw_salt();
	wl_list_init(&tl->lists);
	wl_list_init(&tl->toplevels);
	tl->view_map.notify = handle_view_map;
	wl_signal_add(&server->events.view_map, &tl->view_map);
	tl->view_unmap.notify = handle_view_unmap;
	wl_signal_add(&server->events.view_unmap, &tl->view_unmap);
	tl->view_names.notify = handle_view_names;
	wl_signal_add(&server->events.view_names, &tl->view_names);
	tl->display_destroy.notify = handle_display_destroy;
	wl_display_add_destroy_listener(server->display, &tl->display_destroy);
	return true;
}
