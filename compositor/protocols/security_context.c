/*
 * security-context-v1 (wayland-protocols 1.44's staging XML as Debian's
 * 1.43 ships it): a sandbox engine (Flatpak) hands vitrail a listening
 * socket; vitrail accepts connections on it until close_fd hangs up, and
 * every client that connects through it is sandboxed: the global filter
 * (kiosk.c) hides the privileged globals from it whatever the mode, the
 * configuration's allow or --allow say (vt_security_context_hidden). The
 * listener outlives the client that made it, as the protocol says.
 *
 * A sandboxed client is known by a destroy listener on its wl_client whose
 * notify is client_destroy here (wl_client_get_destroy_listener finds
 * it): nothing to look up, and nothing left when the client goes.
 */
#define _GNU_SOURCE /* accept4 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/util/log.h>

#include "protocols/security_context.h"
#include "security-context-v1-protocol.h"
#include "server.h"
#include "util.h"

#define SECURITY_CONTEXT_VERSION 1
/* Longest metadata string accepted (bytes, the NUL not counted). */
#define METADATA_MAX 255

/* The metadata of a context (each NULL when not set). */
struct metadata {
	char *engine, *app_id, *instance_id;
};

/* A committed context: the socket vitrail accepts on until close_fd
 * hangs up. */
struct sc_listener {
	struct wl_display *display;
	int listen_fd, close_fd;
	struct wl_event_source *listen_source, *close_source;
	struct metadata meta;
	struct wl_list link; /* security_context::listeners */
};

/* A client connected through a listener. */
struct sandboxed {
	struct wl_listener destroy;
	struct metadata meta;
};

/* The module, made at init: the committed contexts' listeners. */
struct security_context {
	struct wl_list listeners; /* sc_listener::link */
	struct wl_listener display_destroy;
};

/* A wp_security_context_v1 before its commit (NULL user data after). */
struct sc_pending {
	struct security_context *sc;
	int listen_fd, close_fd;
	struct metadata meta;
};

static void metadata_free(struct metadata *meta) {
	free(meta->engine);
	free(meta->app_id);
	free(meta->instance_id);
	*meta = (struct metadata){ 0 };
}

static bool metadata_copy(struct metadata *dst, const struct metadata *src) {
	*dst = (struct metadata){ 0 };
	if ((src->engine != NULL && (dst->engine = strdup(src->engine)) == NULL) ||
			(src->app_id != NULL &&
					(dst->app_id = strdup(src->app_id)) == NULL) ||
			(src->instance_id != NULL &&
					(dst->instance_id = strdup(src->instance_id)) == NULL)) {
		metadata_free(dst);
		return false;
	}
	return true;
}

/* ---- sandboxed clients -------------------------------------------------- */

static void client_destroy(struct wl_listener *listener, void *data) {
	struct sandboxed *s = wl_container_of(listener, s, destroy);
	wl_list_remove(&s->destroy.link);
	metadata_free(&s->meta);
	free(s);
}

bool vt_security_context_sandboxed(const struct wl_client *client) {
	return wl_client_get_destroy_listener((struct wl_client *)client,
				   client_destroy) != NULL;
}

bool vt_security_context_hidden(const char *interface) {
	static const char *const hidden[] = {
		"wp_security_context_manager_v1", /* no nesting */
		"zwlr_layer_shell_v1", /* panels above and input over others */
		"zwp_input_method_manager_v2", /* what others type */
		"vitrail_test_v1", /* vitrail's own input and screens */
	};
	for (size_t i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++) {
		if (strcmp(interface, hidden[i]) == 0) {
			return true;
		}
	}
	return false;
}

/* ---- listeners ---------------------------------------------------------- */

static void listener_destroy(struct sc_listener *l) {
	wl_event_source_remove(l->listen_source);
	wl_event_source_remove(l->close_source);
	close(l->listen_fd);
	close(l->close_fd);
	metadata_free(&l->meta);
	wl_list_remove(&l->link);
	free(l);
}

static int handle_listen(int fd, uint32_t mask, void *data) {
	struct sc_listener *l = data;
	if (mask & (WL_EVENT_HANGUP | WL_EVENT_ERROR)) {
		wlr_log(WLR_INFO, "security context: its socket failed");
		listener_destroy(l);
		return 0;
	}
	int client_fd = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	if (client_fd < 0) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED) {
			wlr_log_errno(WLR_ERROR, "security context: accept");
		}
		return 0;
	}
	struct sandboxed *s = calloc(1, sizeof(*s));
	if (s == NULL || !metadata_copy(&s->meta, &l->meta)) {
		free(s);
		close(client_fd);
		return 0;
	}
	struct wl_client *client = wl_client_create(l->display, client_fd);
	if (client == NULL) {
		/* wl_client_create closed the fd */
		metadata_free(&s->meta);
		free(s);
		return 0;
	}
	/* before any of its requests: it never sees a hidden global */
	s->destroy.notify = client_destroy;
	wl_client_add_destroy_listener(client, &s->destroy);
	return 0;
}

static int handle_close(int fd, uint32_t mask, void *data) {
	struct sc_listener *l = data;
	/* any event of close_fd is its hangup, or an error: done */
	listener_destroy(l);
	return 0;
}

/* ---- wp_security_context_v1 -------------------------------------------- */

static const struct wp_security_context_v1_interface context_impl;

static struct sc_pending *pending_from_resource(struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource, &wp_security_context_v1_interface,
			&context_impl));
	return wl_resource_get_user_data(resource);
}

static void pending_free(struct sc_pending *p) {
	if (p == NULL) {
		return;
	}
	close(p->listen_fd);
	close(p->close_fd);
	metadata_free(&p->meta);
	free(p);
}

static void context_handle_resource_destroy(struct wl_resource *resource) {
	pending_free(pending_from_resource(resource));
}

static void context_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

/* Set *field to value, or the protocol's error. */
static void set_metadata(struct wl_resource *resource, char **field,
		const char *value, const char *what) {
	struct sc_pending *p = pending_from_resource(resource);
	if (p == NULL) {
		wl_resource_post_error(resource,
				WP_SECURITY_CONTEXT_V1_ERROR_ALREADY_USED,
				"the security context is committed");
		return;
	}
	if (*field != NULL) {
		wl_resource_post_error(resource,
				WP_SECURITY_CONTEXT_V1_ERROR_ALREADY_SET, "%s is set already",
				what);
		return;
	}
	size_t len = strlen(value);
	if (len == 0 || len > METADATA_MAX) {
		wl_resource_post_error(resource,
				WP_SECURITY_CONTEXT_V1_ERROR_INVALID_METADATA,
				"%s of %zu bytes (1 to %d)", what, len, METADATA_MAX);
		return;
	}
	*field = strdup(value);
	if (*field == NULL) {
		wl_resource_post_no_memory(resource);
	}
}

static void context_handle_set_sandbox_engine(struct wl_client *client,
		struct wl_resource *resource, const char *name) {
	struct sc_pending *p = pending_from_resource(resource);
	set_metadata(resource, p != NULL ? &p->meta.engine : NULL, name,
			"the sandbox engine");
}

static void context_handle_set_app_id(struct wl_client *client,
		struct wl_resource *resource, const char *app_id) {
	struct sc_pending *p = pending_from_resource(resource);
	set_metadata(resource, p != NULL ? &p->meta.app_id : NULL, app_id,
			"the app_id");
}

static void context_handle_set_instance_id(struct wl_client *client,
		struct wl_resource *resource, const char *instance_id) {
	struct sc_pending *p = pending_from_resource(resource);
	set_metadata(resource, p != NULL ? &p->meta.instance_id : NULL, instance_id,
			"the instance_id");
}

static void context_handle_commit(struct wl_client *client,
		struct wl_resource *resource) {
	struct sc_pending *p = pending_from_resource(resource);
	if (p == NULL) {
		wl_resource_post_error(resource,
				WP_SECURITY_CONTEXT_V1_ERROR_ALREADY_USED,
				"the security context is committed");
		return;
	}
	struct sc_listener *l = calloc(1, sizeof(*l));
	if (l == NULL) {
		wl_resource_post_no_memory(resource);
		return;
	}
	struct wl_display *display = wl_client_get_display(client);
	struct wl_event_loop *loop = wl_display_get_event_loop(display);
	l->display = display;
	/* a wake-up without a connection must not block the compositor */
	int flags = fcntl(p->listen_fd, F_GETFL);
	if (flags >= 0) {
		fcntl(p->listen_fd, F_SETFL, flags | O_NONBLOCK);
	}
	l->listen_fd = p->listen_fd;
	l->close_fd = p->close_fd;
	l->listen_source = wl_event_loop_add_fd(loop, l->listen_fd,
			WL_EVENT_READABLE, handle_listen, l);
	l->close_source =
			wl_event_loop_add_fd(loop, l->close_fd, 0, handle_close, l);
	if (l->listen_source == NULL || l->close_source == NULL) {
		if (l->listen_source != NULL) {
			wl_event_source_remove(l->listen_source);
		}
		if (l->close_source != NULL) {
			wl_event_source_remove(l->close_source);
		}
		free(l);
		wl_resource_post_no_memory(resource);
		return;
	}
	/* the fds and the metadata are the listener's now */
	l->meta = p->meta;
	wl_list_insert(&p->sc->listeners, &l->link);
	free(p);
	wl_resource_set_user_data(resource, NULL);
	wlr_log(WLR_DEBUG, "security context: %s %s %s",
			l->meta.engine != NULL ? l->meta.engine : "-",
			l->meta.app_id != NULL ? l->meta.app_id : "-",
			l->meta.instance_id != NULL ? l->meta.instance_id : "-");
}

static const struct wp_security_context_v1_interface context_impl = {
	.destroy = context_handle_destroy,
	.set_sandbox_engine = context_handle_set_sandbox_engine,
	.set_app_id = context_handle_set_app_id,
	.set_instance_id = context_handle_set_instance_id,
	.commit = context_handle_commit,
};

/* ---- the manager -------------------------------------------------------- */

/* Whether fd is a socket that listens. */
static bool listening_socket(int fd) {
	int accepting = 0;
	socklen_t len = sizeof(accepting);
	return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &len) == 0 &&
			accepting != 0;
}

static void manager_handle_create_listener(struct wl_client *client,
		struct wl_resource *resource, uint32_t id, int32_t listen_fd,
		int32_t close_fd) {
	if (vt_security_context_sandboxed(client)) {
		close(listen_fd);
		close(close_fd);
		wl_resource_post_error(resource,
				WP_SECURITY_CONTEXT_MANAGER_V1_ERROR_NESTED,
				"a sandboxed client may not create a security context");
		return;
	}
	if (!listening_socket(listen_fd)) {
		close(listen_fd);
		close(close_fd);
		wl_resource_post_error(resource,
				WP_SECURITY_CONTEXT_MANAGER_V1_ERROR_INVALID_LISTEN_FD,
				"listen_fd is not a listening socket");
		return;
	}
	struct sc_pending *p = calloc(1, sizeof(*p));
	struct wl_resource *ctx =
			wl_resource_create(client, &wp_security_context_v1_interface,
					wl_resource_get_version(resource), id);
	if (p == NULL || ctx == NULL) {
		free(p);
		if (ctx != NULL) {
			wl_resource_destroy(ctx);
		}
		close(listen_fd);
		close(close_fd);
		wl_client_post_no_memory(client);
		return;
	}
	p->sc = wl_resource_get_user_data(resource);
	p->listen_fd = listen_fd;
	p->close_fd = close_fd;
	wl_resource_set_implementation(ctx, &context_impl, p,
			context_handle_resource_destroy);
}

static void manager_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct wp_security_context_manager_v1_interface manager_impl = {
	.destroy = manager_handle_destroy,
	.create_listener = manager_handle_create_listener,
};

static void manager_bind(struct wl_client *client, void *data, uint32_t version,
		uint32_t id) {
	vt_resource_create(client, &wp_security_context_manager_v1_interface,
			version, id, &manager_impl, data, NULL);
}

static void handle_display_destroy(struct wl_listener *listener, void *data) {
	struct security_context *sc =
			wl_container_of(listener, sc, display_destroy);
	struct sc_listener *l, *tmp;
	wl_list_for_each_safe(l, tmp, &sc->listeners, link) {
		listener_destroy(l);
	}
	wl_list_remove(&sc->display_destroy.link);
	free(sc);
}

bool vt_security_context_init(struct vt_server *server) {
	struct security_context *sc = calloc(1, sizeof(*sc));
	if (sc == NULL) {
		return false;
	}
	if (wl_global_create(server->display,
				&wp_security_context_manager_v1_interface,
				SECURITY_CONTEXT_VERSION, sc, manager_bind) == NULL) {
		free(sc);
		return false;
	}
	wl_list_init(&sc->listeners);
	sc->display_destroy.notify = handle_display_destroy;
	wl_display_add_destroy_listener(server->display, &sc->display_destroy);
	return true;
}
