/*
 * vitrail-quadrants: an xdg_toplevel of four solid quadrants, for pixel
 * tests of output transforms and scales.
 *
 * The window is WxH logical pixels (--size, default 200x160) whatever the
 * compositor configures; its buffer is --scale N times larger
 * (wl_surface.set_buffer_scale N, default 1). Quadrants, in the window's
 * own orientation: top-left QUAD_TL, top-right QUAD_TR, bottom-left
 * QUAD_BL, bottom-right QUAD_BR (the colours below, XRGB8888). It prints
 * "mapped" once its first buffer is committed, and exits 0 on SIGTERM,
 * SIGINT or xdg_toplevel.close.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <wayland-client.h>

#include "probe-client.h"
#include "xdg-shell-client-protocol.h"

#define QUAD_TL 0xffff0000u // red
#define QUAD_TR 0xff00ff00u // green
#define QUAD_BL 0xff0000ffu // blue
#define QUAD_BR 0xffffff00u // yellow

struct quadrants {
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	struct pc_pool pool;
	int32_t width, height, scale;
	bool configured, mapped, running;
};

static void draw(struct quadrants *q) {
	int32_t bw = q->width * q->scale, bh = q->height * q->scale;
	struct pc_buffer *buffer = pc_pool_next(&q->pool, q->shm, bw, bh);
	if (buffer == NULL) {
		return;
	}
	for (int32_t y = 0; y < bh; y++) {
		for (int32_t x = 0; x < bw; x++) {
			bool right = x >= bw / 2, bottom = y >= bh / 2;
			buffer->data[y * bw + x] = bottom ?
				(right ? QUAD_BR : QUAD_BL) : (right ? QUAD_TR : QUAD_TL);
		}
	}
	buffer->busy = true;
	wl_surface_set_buffer_scale(q->surface, q->scale);
	wl_surface_attach(q->surface, buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(q->surface, 0, 0, bw, bh);
	wl_surface_commit(q->surface);
	if (!q->mapped) {
		q->mapped = true;
		printf("mapped\n");
		fflush(stdout);
	}
}

static void wm_base_ping(void *data, struct xdg_wm_base *wm_base,
		uint32_t serial) {
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = {
	.ping = wm_base_ping,
};

static void xdg_surface_configure(void *data, struct xdg_surface *surface,
		uint32_t serial) {
	struct quadrants *q = data;
	xdg_surface_ack_configure(surface, serial);
	/* the same content at every configure: the size is ours */
	draw(q);
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = xdg_surface_configure,
};

static void toplevel_configure(void *data, struct xdg_toplevel *toplevel,
		int32_t width, int32_t height, struct wl_array *states) {
}

static void toplevel_close(void *data, struct xdg_toplevel *toplevel) {
	struct quadrants *q = data;
	q->running = false;
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure,
	.close = toplevel_close,
};

static void registry_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct quadrants *q = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		q->compositor = wl_registry_bind(registry, name,
			&wl_compositor_interface, 4);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		q->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		q->wm_base = wl_registry_bind(registry, name,
			&xdg_wm_base_interface, 1);
		xdg_wm_base_add_listener(q->wm_base, &wm_base_listener, q);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

static void usage(void) {
	fprintf(stderr, "usage: vitrail-quadrants [--size WxH] [--scale N] "
		"[--app-id ID]\n");
}

int main(int argc, char *argv[]) {
	struct quadrants q = { .width = 200, .height = 160, .scale = 1,
		.running = true };
	const char *app_id = "vitrail-quadrants";
	for (int i = 1; i < argc; i++) {
		long v;
		if (strcmp(argv[i], "--size") == 0 && i + 1 < argc &&
				pc_parse_size(argv[i + 1], &q.width, &q.height)) {
			i++;
		} else if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc &&
				pc_parse_long(argv[i + 1], 1, 8, &v)) {
			q.scale = (int32_t)v;
			i++;
		} else if (strcmp(argv[i], "--app-id") == 0 && i + 1 < argc) {
			app_id = argv[++i];
		} else {
			usage();
			return 2;
		}
	}
	if (q.width * q.scale > 8192 || q.height * q.scale > 8192) {
		fprintf(stderr, "vitrail-quadrants: buffer over 8192 pixels\n");
		return 2;
	}
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	int signal_fd = signalfd(-1, &mask, SFD_CLOEXEC);

	q.display = wl_display_connect(NULL);
	if (q.display == NULL) {
		fprintf(stderr, "vitrail-quadrants: cannot connect\n");
		return 1;
	}
	struct wl_registry *registry = wl_display_get_registry(q.display);
	wl_registry_add_listener(registry, &registry_listener, &q);
	wl_display_roundtrip(q.display);
	if (q.compositor == NULL || q.shm == NULL || q.wm_base == NULL) {
		fprintf(stderr, "vitrail-quadrants: missing globals\n");
		return 1;
	}
	q.surface = wl_compositor_create_surface(q.compositor);
	q.xdg_surface = xdg_wm_base_get_xdg_surface(q.wm_base, q.surface);
	xdg_surface_add_listener(q.xdg_surface, &xdg_surface_listener, &q);
	q.toplevel = xdg_surface_get_toplevel(q.xdg_surface);
	xdg_toplevel_add_listener(q.toplevel, &toplevel_listener, &q);
	xdg_toplevel_set_app_id(q.toplevel, app_id);
	xdg_toplevel_set_title(q.toplevel, "quadrants");
	wl_surface_commit(q.surface);

	bool signalled = false;
	int status = 0;
	while (q.running && !signalled) {
		if (!pc_dispatch(q.display, signal_fd, -1, &q.running, &signalled,
				"vitrail-quadrants")) {
			status = 1;
			break;
		}
	}
	pc_pool_finish(&q.pool);
	xdg_toplevel_destroy(q.toplevel);
	xdg_surface_destroy(q.xdg_surface);
	wl_surface_destroy(q.surface);
	xdg_wm_base_destroy(q.wm_base);
	wl_shm_destroy(q.shm);
	wl_compositor_destroy(q.compositor);
	wl_registry_destroy(registry);
	wl_display_disconnect(q.display);
	return status;
}
