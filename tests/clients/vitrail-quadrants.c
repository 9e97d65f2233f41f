/*
 * vitrail-quadrants: an xdg_toplevel of four solid quadrants, for pixel
 * tests of output transforms and scales.
 *
 * The window is WxH logical pixels (--size, default 200x160) whatever the
 * compositor configures; its buffer is --scale N times larger
 * (wl_surface.set_buffer_scale N, default 1). Quadrants, in the window's
 * own orientation: top-left QUAD_TL, top-right QUAD_TR, bottom-left
 * QUAD_BL, bottom-right QUAD_BR (the colours below, XRGB8888). It prints
 * "mapped" once its first buffer is committed, "touch down ID X Y" (surface
 * coordinates, one decimal) for every touch point put down on it, and
 * exits 0 on SIGTERM, SIGINT or xdg_toplevel.close.
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
	struct wl_seat *seat;
	struct wl_touch *touch;
	struct pc_toplevel window;
	struct pc_pool pool;
	int32_t width, height, scale; // ours: configured sizes are ignored
	bool mapped, running;
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
			buffer->data[y * bw + x] = bottom ? (right ? QUAD_BR : QUAD_BL) :
												(right ? QUAD_TR : QUAD_TL);
		}
	}
	buffer->busy = true;
	wl_surface_set_buffer_scale(q->window.surface, q->scale);
	wl_surface_attach(q->window.surface, buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(q->window.surface, 0, 0, bw, bh);
	wl_surface_commit(q->window.surface);
	if (!q->mapped) {
		q->mapped = true;
		printf("mapped\n");
		fflush(stdout);
	}
}

/* The same content at every configure: the size is ours. */
static void window_configured(void *data, bool first, bool resized) {
	draw(data);
}

static void touch_down(void *data, struct wl_touch *touch, uint32_t serial,
		uint32_t time, struct wl_surface *surface, int32_t id, wl_fixed_t x,
		wl_fixed_t y) {
	printf("touch down %d %.1f %.1f\n", id, wl_fixed_to_double(x),
			wl_fixed_to_double(y));
	fflush(stdout);
}

static void touch_up(void *data, struct wl_touch *touch, uint32_t serial,
		uint32_t time, int32_t id) {
}

static void touch_motion(void *data, struct wl_touch *touch, uint32_t time,
		int32_t id, wl_fixed_t x, wl_fixed_t y) {
}

static void touch_frame(void *data, struct wl_touch *touch) {
}

static void touch_cancel(void *data, struct wl_touch *touch) {
}

static const struct wl_touch_listener touch_listener = {
	.down = touch_down,
	.up = touch_up,
	.motion = touch_motion,
	.frame = touch_frame,
	.cancel = touch_cancel,
};

static void seat_capabilities(void *data, struct wl_seat *seat, uint32_t caps) {
	struct quadrants *q = data;
	if ((caps & WL_SEAT_CAPABILITY_TOUCH) && q->touch == NULL) {
		q->touch = wl_seat_get_touch(seat);
		wl_touch_add_listener(q->touch, &touch_listener, q);
	}
}

static void seat_name(void *data, struct wl_seat *seat, const char *name) {
}

static const struct wl_seat_listener seat_listener = {
	.capabilities = seat_capabilities,
	.name = seat_name,
};

static void registry_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct quadrants *q = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		q->compositor =
				wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		q->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		q->wm_base =
				wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
		pc_wm_base_listen(q->wm_base);
	} else if (strcmp(interface, wl_seat_interface.name) == 0 &&
			q->seat == NULL) {
		q->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
		wl_seat_add_listener(q->seat, &seat_listener, q);
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
	fprintf(stderr,
			"usage: vitrail-quadrants [--size WxH] [--scale N] "
			"[--app-id ID]\n");
}

int main(int argc, char *argv[]) {
	struct quadrants q = { .width = 200,
		.height = 160,
		.scale = 1,
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
	if (!pc_toplevel_init(&q.window, q.compositor, q.wm_base, app_id,
				"quadrants", q.width, q.height, &q.running, window_configured,
				&q)) {
		fprintf(stderr, "vitrail-quadrants: out of memory\n");
		return 1;
	}
	wl_surface_commit(q.window.surface);

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
	pc_toplevel_finish(&q.window);
	xdg_wm_base_destroy(q.wm_base);
	if (q.touch != NULL) {
		wl_touch_destroy(q.touch);
	}
	if (q.seat != NULL) {
		wl_seat_destroy(q.seat);
	}
	wl_shm_destroy(q.shm);
	wl_compositor_destroy(q.compositor);
	wl_registry_destroy(registry);
	wl_display_disconnect(q.display);
	return status;
}
