/*
 * vitrail-layer-panel: a wlr-layer-shell test client, a panel.
 *
 * One layer surface in the top layer (or --layer), anchored to the top
 * edge and both sides, --height pixels tall with an exclusive zone of
 * --zone (default: its height), filled with one opaque colour (--color
 * RRGGBB, default 884422), with the keyboard interactivity of
 * --keyboard none|exclusive|on_demand (default none). With --popup, an
 * xdg_popup of the layer surface, POPUP_W x POPUP_H at (POPUP_X, POPUP_Y)
 * of the panel (so reaching below it), filled with 22aa44. It prints, one
 * per line and flushed, what the tests read:
 *   configure W H        each configure
 *   mapped               after its first buffer was committed
 *   popup-mapped         after the popup's first buffer was committed
 *   keyboard-enter       wl_keyboard.enter on its surface
 *   keyboard-leave       wl_keyboard.leave
 *   key KEY STATE        wl_keyboard.key
 *   closed               zwlr_layer_surface_v1.closed (then it exits 0)
 * SIGTERM and SIGINT end it (exit status 0).
 */
#define _GNU_SOURCE // memfd_create
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>

#include "wlr-layer-shell-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

#define POPUP_X 10
#define POPUP_Y 20
#define POPUP_W 100
#define POPUP_H 60
#define POPUP_COLOR 0x22aa44

struct panel {
	struct wl_display *display;
	struct xdg_wm_base *wm_base;
	bool want_popup;
	struct wl_surface *popup_surface;
	struct xdg_surface *popup_xdg;
	struct xdg_popup *popup;
	struct wl_buffer *popup_buffer;
	bool popup_mapped;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct wl_seat *seat;
	struct wl_keyboard *keyboard;
	struct zwlr_layer_shell_v1 *layer_shell;
	struct wl_surface *surface;
	struct zwlr_layer_surface_v1 *layer_surface;
	struct wl_buffer *buffer;
	uint32_t width, height;
	uint32_t color;
	bool mapped, closed;
};

static volatile sig_atomic_t stop;

static void handle_signal(int sig) {
	stop = 1;
}

static struct wl_buffer *make_buffer(struct panel *p, uint32_t w, uint32_t h,
		uint32_t color) {
	size_t stride = (size_t)w * 4, size = stride * h;
	int fd = memfd_create("vitrail-layer-panel", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
		perror("memfd");
		exit(1);
	}
	uint32_t *pixels =
			mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pixels == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	for (size_t i = 0; i < (size_t)w * h; i++) {
		pixels[i] = 0xff000000u | color;
	}
	munmap(pixels, size);
	struct wl_shm_pool *pool = wl_shm_create_pool(p->shm, fd, (int32_t)size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, (int32_t)w,
			(int32_t)h, (int32_t)stride, WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	return buffer;
}

static void popup_surface_configure(void *data, struct xdg_surface *xdg_surface,
		uint32_t serial) {
	struct panel *p = data;
	xdg_surface_ack_configure(xdg_surface, serial);
	if (p->popup_buffer == NULL) {
		p->popup_buffer = make_buffer(p, POPUP_W, POPUP_H, POPUP_COLOR);
	}
	wl_surface_attach(p->popup_surface, p->popup_buffer, 0, 0);
	wl_surface_damage(p->popup_surface, 0, 0, POPUP_W, POPUP_H);
	wl_surface_commit(p->popup_surface);
	if (!p->popup_mapped) {
		p->popup_mapped = true;
		printf("popup-mapped\n");
		fflush(stdout);
	}
}

static const struct xdg_surface_listener popup_surface_listener = {
	.configure = popup_surface_configure,
};

static void popup_configure(void *data, struct xdg_popup *popup, int32_t x,
		int32_t y, int32_t width, int32_t height) {
}

static void popup_done(void *data, struct xdg_popup *popup) {
	printf("popup-done\n");
	fflush(stdout);
}

static const struct xdg_popup_listener popup_listener = {
	.configure = popup_configure,
	.popup_done = popup_done,
};

/* The popup, a child of the layer surface (xdg_surface.get_popup with no
 * parent, then zwlr_layer_surface_v1.get_popup). */
static void create_popup(struct panel *p) {
	struct xdg_positioner *positioner =
			xdg_wm_base_create_positioner(p->wm_base);
	xdg_positioner_set_size(positioner, POPUP_W, POPUP_H);
	xdg_positioner_set_anchor_rect(positioner, POPUP_X, POPUP_Y, 1, 1);
	xdg_positioner_set_anchor(positioner, XDG_POSITIONER_ANCHOR_TOP_LEFT);
	xdg_positioner_set_gravity(positioner, XDG_POSITIONER_GRAVITY_BOTTOM_RIGHT);
	p->popup_surface = wl_compositor_create_surface(p->compositor);
	p->popup_xdg = xdg_wm_base_get_xdg_surface(p->wm_base, p->popup_surface);
	xdg_surface_add_listener(p->popup_xdg, &popup_surface_listener, p);
	p->popup = xdg_surface_get_popup(p->popup_xdg, NULL, positioner);
	xdg_popup_add_listener(p->popup, &popup_listener, p);
	zwlr_layer_surface_v1_get_popup(p->layer_surface, p->popup);
	xdg_positioner_destroy(positioner);
	wl_surface_commit(p->popup_surface);
}

static void layer_configure(void *data, struct zwlr_layer_surface_v1 *ls,
		uint32_t serial, uint32_t width, uint32_t height) {
	struct panel *p = data;
	printf("configure %u %u\n", width, height);
	fflush(stdout);
	zwlr_layer_surface_v1_ack_configure(ls, serial);
	if (p->buffer == NULL || width != p->width || height != p->height) {
		if (p->buffer != NULL) {
			wl_buffer_destroy(p->buffer);
		}
		p->width = width;
		p->height = height;
		p->buffer = make_buffer(p, width, height, p->color);
	}
	wl_surface_attach(p->surface, p->buffer, 0, 0);
	wl_surface_damage(p->surface, 0, 0, (int32_t)width, (int32_t)height);
	wl_surface_commit(p->surface);
	if (!p->mapped) {
		p->mapped = true;
		printf("mapped\n");
		fflush(stdout);
		if (p->want_popup) {
			create_popup(p);
		}
	}
}

static void layer_closed(void *data, struct zwlr_layer_surface_v1 *ls) {
	struct panel *p = data;
	p->closed = true;
	printf("closed\n");
	fflush(stdout);
}

static const struct zwlr_layer_surface_v1_listener layer_listener = {
	.configure = layer_configure,
	.closed = layer_closed,
};

static void keyboard_keymap(void *data, struct wl_keyboard *keyboard,
		uint32_t format, int32_t fd, uint32_t size) {
	close(fd);
}

static void keyboard_enter(void *data, struct wl_keyboard *keyboard,
		uint32_t serial, struct wl_surface *surface, struct wl_array *keys) {
	struct panel *p = data;
	if (surface == p->surface) {
		printf("keyboard-enter\n");
		fflush(stdout);
	}
}

static void keyboard_leave(void *data, struct wl_keyboard *keyboard,
		uint32_t serial, struct wl_surface *surface) {
	printf("keyboard-leave\n");
	fflush(stdout);
}

static void keyboard_key(void *data, struct wl_keyboard *keyboard,
		uint32_t serial, uint32_t time, uint32_t key, uint32_t state) {
	printf("key %u %u\n", key, state);
	fflush(stdout);
}

static void keyboard_modifiers(void *data, struct wl_keyboard *keyboard,
		uint32_t serial, uint32_t depressed, uint32_t latched, uint32_t locked,
		uint32_t group) {
}

static void keyboard_repeat_info(void *data, struct wl_keyboard *keyboard,
		int32_t rate, int32_t delay) {
}

static const struct wl_keyboard_listener keyboard_listener = {
	.keymap = keyboard_keymap,
	.enter = keyboard_enter,
	.leave = keyboard_leave,
	.key = keyboard_key,
	.modifiers = keyboard_modifiers,
	.repeat_info = keyboard_repeat_info,
};

/* The keyboard once the seat has one (vitrail offers it once a keyboard
 * device, a virtual one too, exists). */
static void seat_capabilities(void *data, struct wl_seat *seat, uint32_t caps) {
	struct panel *p = data;
	if ((caps & WL_SEAT_CAPABILITY_KEYBOARD) != 0 && p->keyboard == NULL) {
		p->keyboard = wl_seat_get_keyboard(seat);
		wl_keyboard_add_listener(p->keyboard, &keyboard_listener, p);
	}
}

static void seat_name(void *data, struct wl_seat *seat, const char *name) {
}

static const struct wl_seat_listener seat_listener = {
	.capabilities = seat_capabilities,
	.name = seat_name,
};

static void wm_base_ping(void *data, struct xdg_wm_base *wm_base,
		uint32_t serial) {
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = {
	.ping = wm_base_ping,
};

static void registry_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct panel *p = data;
	if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		p->wm_base =
				wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
		xdg_wm_base_add_listener(p->wm_base, &wm_base_listener, p);
	} else if (strcmp(interface, wl_compositor_interface.name) == 0) {
		p->compositor =
				wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		p->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, wl_seat_interface.name) == 0 &&
			p->seat == NULL) {
		p->seat = wl_registry_bind(registry, name, &wl_seat_interface,
				version < 2 ? version : 2);
	} else if (strcmp(interface, zwlr_layer_shell_v1_interface.name) == 0) {
		p->layer_shell = wl_registry_bind(registry, name,
				&zwlr_layer_shell_v1_interface, version < 4 ? version : 4);
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
			"usage: vitrail-layer-panel [--height H] [--zone Z] "
			"[--color RRGGBB] [--layer background|bottom|top|overlay] "
			"[--keyboard none|exclusive|on_demand] [--popup]\n");
	exit(2);
}

int main(int argc, char *argv[]) {
	struct panel p = { .color = 0x884422 };
	uint32_t height = 40;
	int32_t zone = -2; /* its height */
	uint32_t layer = ZWLR_LAYER_SHELL_V1_LAYER_TOP;
	uint32_t keyboard = ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_NONE;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(arg, "--popup") == 0) {
			p.want_popup = true;
			continue;
		}
		if (value == NULL) {
			usage();
		}
		i++;
		if (strcmp(arg, "--height") == 0) {
			height = (uint32_t)atoi(value);
		} else if (strcmp(arg, "--zone") == 0) {
			zone = atoi(value);
		} else if (strcmp(arg, "--color") == 0) {
			p.color = (uint32_t)strtoul(value, NULL, 16) & 0xffffff;
		} else if (strcmp(arg, "--layer") == 0) {
			const char *names[] = { "background", "bottom", "top", "overlay" };
			layer = 4;
			for (uint32_t l = 0; l < 4; l++) {
				if (strcmp(value, names[l]) == 0) {
					layer = l;
				}
			}
			if (layer == 4) {
				usage();
			}
		} else if (strcmp(arg, "--keyboard") == 0) {
			if (strcmp(value, "none") == 0) {
				keyboard = ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_NONE;
			} else if (strcmp(value, "exclusive") == 0) {
				keyboard =
						ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_EXCLUSIVE;
			} else if (strcmp(value, "on_demand") == 0) {
				keyboard =
						ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_ON_DEMAND;
			} else {
				usage();
			}
		} else {
			usage();
		}
	}
	if (zone == -2) {
		zone = (int32_t)height;
	}
	signal(SIGTERM, handle_signal);
	signal(SIGINT, handle_signal);

	p.display = wl_display_connect(NULL);
	if (p.display == NULL) {
		fprintf(stderr, "cannot connect to the Wayland display\n");
		return 1;
	}
	struct wl_registry *registry = wl_display_get_registry(p.display);
	wl_registry_add_listener(registry, &registry_listener, &p);
	wl_display_roundtrip(p.display);
	if (p.compositor == NULL || p.shm == NULL || p.layer_shell == NULL ||
			p.wm_base == NULL) {
		fprintf(stderr,
				"the compositor lacks wl_compositor, wl_shm, "
				"xdg_wm_base or zwlr_layer_shell_v1\n");
		return 1;
	}
	if (p.seat != NULL) {
		wl_seat_add_listener(p.seat, &seat_listener, &p);
	}
	p.surface = wl_compositor_create_surface(p.compositor);
	p.layer_surface = zwlr_layer_shell_v1_get_layer_surface(p.layer_shell,
			p.surface, NULL, layer, "vitrail-layer-panel");
	zwlr_layer_surface_v1_add_listener(p.layer_surface, &layer_listener, &p);
	zwlr_layer_surface_v1_set_anchor(p.layer_surface,
			ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP |
					ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT |
					ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT);
	zwlr_layer_surface_v1_set_size(p.layer_surface, 0, height);
	zwlr_layer_surface_v1_set_exclusive_zone(p.layer_surface, zone);
	zwlr_layer_surface_v1_set_keyboard_interactivity(p.layer_surface, keyboard);
	wl_surface_commit(p.surface);

	struct pollfd pfd = { .fd = wl_display_get_fd(p.display),
		.events = POLLIN };
	while (!stop && !p.closed) {
		wl_display_flush(p.display);
		if (poll(&pfd, 1, 100) < 0) {
			continue;
		}
		if ((pfd.revents & POLLIN) != 0) {
			if (wl_display_dispatch(p.display) < 0) {
				fprintf(stderr, "connection lost\n");
				return 1;
			}
		} else if (wl_display_dispatch_pending(p.display) < 0) {
			return 1;
		}
	}
	/* every proxy goes (a sanitizer run counts them as leaks) */
	if (p.popup != NULL) {
		xdg_popup_destroy(p.popup);
		xdg_surface_destroy(p.popup_xdg);
		wl_surface_destroy(p.popup_surface);
	}
	if (p.popup_buffer != NULL) {
		wl_buffer_destroy(p.popup_buffer);
	}
	zwlr_layer_surface_v1_destroy(p.layer_surface);
	wl_surface_destroy(p.surface);
	if (p.buffer != NULL) {
		wl_buffer_destroy(p.buffer);
	}
	if (p.keyboard != NULL) {
		wl_keyboard_destroy(p.keyboard);
	}
	if (p.seat != NULL) {
		wl_seat_destroy(p.seat);
	}
	zwlr_layer_shell_v1_destroy(p.layer_shell);
	xdg_wm_base_destroy(p.wm_base);
	wl_shm_destroy(p.shm);
	wl_compositor_destroy(p.compositor);
	wl_registry_destroy(registry);
	wl_display_roundtrip(p.display);
	wl_display_disconnect(p.display);
	return 0;
}
