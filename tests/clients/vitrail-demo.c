/*
 * vitrail-demo: a wl_shm + xdg-shell demo client with no toolkit.
 *
 * One xdg_toplevel draws an animated pattern (rotating colour sectors under
 * moving gradient bars, premultiplied ARGB8888 with a translucent band) on
 * every wl_surface.frame callback. Two subsurfaces make the stacking order
 * visible: a desynchronised XRGB8888 one with its own animation placed
 * above the parent, and a synchronised ARGB8888 one placed below the parent
 * that peeks out past its bottom-right corner and shows through the
 * translucent band.
 *
 * Buffers come from a per-surface pool that honours wl_buffer.release: a
 * busy buffer is never drawn into; when every buffer is busy another one is
 * allocated (up to a limit, after which the frame is skipped).
 *
 * Options:
 *   --app-id ID   xdg_toplevel app_id (default "vitrail-demo")
 *   --title T     xdg_toplevel title (default "vitrail demo")
 *   --size WxH    size when the compositor leaves it to us (default 400x300)
 *   --frames N    exit after N frames of the toplevel were presented
 *   --static      draw one frame, then redraw only on configure; content
 *                 then does not depend on time (for pixel tests)
 *
 * SIGTERM and SIGINT end it cleanly (exit status 0), as does
 * xdg_toplevel.close.
 */
#define _GNU_SOURCE // memfd_create
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include "xdg-shell-client-protocol.h"

#define MAX_BUFFERS 4
#define PI 3.14159265358979323846

#define ABOVE_X 24
#define ABOVE_Y 24
#define ABOVE_WIDTH 128
#define ABOVE_HEIGHT 80

#define BELOW_WIDTH 112
#define BELOW_HEIGHT 84
/* How far the below subsurface sticks out past the parent's corner. */
#define BELOW_PEEK 40

struct buffer {
	struct wl_buffer *wl_buffer;
	void *data;
	size_t size;
	int32_t width, height, stride;
	uint32_t format;
	bool busy;
};

/* A wl_surface with its own buffer pool. */
struct surface {
	struct demo *demo;
	struct wl_surface *wl_surface;
	struct wl_callback *frame; // pending frame callback, NULL if none
	struct buffer *buffers[MAX_BUFFERS];
	int32_t width, height;
	uint32_t format; // WL_SHM_FORMAT_*
};

struct demo {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct wl_subcompositor *subcompositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;

	struct surface main;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *xdg_toplevel;

	struct surface above;
	struct wl_subsurface *above_sub;
	struct surface below;
	struct wl_subsurface *below_sub;

	const char *app_id;
	const char *title;
	int32_t pending_width, pending_height; // from xdg_toplevel.configure
	bool configured;
	bool is_static;
	long max_frames; // 0 = unlimited
	long frames_drawn;
	long frames_presented;
	uint32_t main_time; // ms, from the last frame done
	uint32_t above_time;
	bool running;
	int exit_status;
};

static void buffer_destroy(struct buffer *buffer) {
	if (buffer == NULL) {
		return;
	}
	if (buffer->wl_buffer != NULL) {
		wl_buffer_destroy(buffer->wl_buffer);
	}
	if (buffer->data != NULL) {
		munmap(buffer->data, buffer->size);
	}
	free(buffer);
}

static void buffer_handle_release(void *data, struct wl_buffer *wl_buffer) {
	struct buffer *buffer = data;
	buffer->busy = false;
}

static const struct wl_buffer_listener buffer_listener = {
	.release = buffer_handle_release,
};

static struct buffer *buffer_create(struct demo *demo, int32_t width,
		int32_t height, uint32_t format) {
	struct buffer *buffer = calloc(1, sizeof(*buffer));
	if (buffer == NULL) {
		return NULL;
	}
	buffer->width = width;
	buffer->height = height;
	buffer->stride = width * 4;
	buffer->format = format;
	buffer->size = (size_t)buffer->stride * (size_t)height;

	int fd = memfd_create("vitrail-demo", MFD_CLOEXEC);
	if (fd < 0) {
		perror("memfd_create");
		goto error_buffer;
	}
	if (ftruncate(fd, (off_t)buffer->size) < 0) {
		perror("ftruncate");
		goto error_fd;
	}
	buffer->data =
			mmap(NULL, buffer->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (buffer->data == MAP_FAILED) {
		perror("mmap");
		buffer->data = NULL;
		goto error_fd;
	}
	struct wl_shm_pool *pool =
			wl_shm_create_pool(demo->shm, fd, (int32_t)buffer->size);
	buffer->wl_buffer = wl_shm_pool_create_buffer(pool, 0, width, height,
			buffer->stride, format);
	wl_shm_pool_destroy(pool);
	close(fd);
	wl_buffer_add_listener(buffer->wl_buffer, &buffer_listener, buffer);
	return buffer;

error_fd:
	close(fd);
error_buffer:
	buffer_destroy(buffer);
	return NULL;
}

/* A free buffer of the surface's current size, or NULL when all are busy
 * and the pool is full. Free buffers of another size are dropped. */
static struct buffer *surface_next_buffer(struct surface *surface) {
	struct buffer **slot = NULL;
	for (int i = 0; i < MAX_BUFFERS; i++) {
		struct buffer *buffer = surface->buffers[i];
		if (buffer != NULL && !buffer->busy &&
				(buffer->width != surface->width ||
						buffer->height != surface->height)) {
			buffer_destroy(buffer);
			surface->buffers[i] = buffer = NULL;
		}
		if (buffer != NULL && !buffer->busy) {
			return buffer;
		}
		if (buffer == NULL && slot == NULL) {
			slot = &surface->buffers[i];
		}
	}
	if (slot == NULL) {
		return NULL;
	}
	*slot = buffer_create(surface->demo, surface->width, surface->height,
			surface->format);
	return *slot;
}

static void surface_finish(struct surface *surface) {
	if (surface->frame != NULL) {
		wl_callback_destroy(surface->frame);
		surface->frame = NULL;
	}
	for (int i = 0; i < MAX_BUFFERS; i++) {
		buffer_destroy(surface->buffers[i]);
		surface->buffers[i] = NULL;
	}
	if (surface->wl_surface != NULL) {
		wl_surface_destroy(surface->wl_surface);
		surface->wl_surface = NULL;
	}
}

/* ---- drawing ------------------------------------------------------------ */

static uint8_t to_byte(double v) {
	if (v <= 0.0) {
		return 0;
	}
	if (v >= 1.0) {
		return 255;
	}
	return (uint8_t)(v * 255.0 + 0.5);
}

/* Premultiplied ARGB8888 pixel from non-premultiplied components. */
static uint32_t argb_premul(double r, double g, double b, double a) {
	uint32_t a8 = to_byte(a);
	uint32_t r8 = to_byte(r * a), g8 = to_byte(g * a), b8 = to_byte(b * a);
	return a8 << 24 | r8 << 16 | g8 << 8 | b8;
}

static void hue_to_rgb(double h, double *r, double *g, double *b) {
	h = fmod(h, 1.0);
	if (h < 0.0) {
		h += 1.0;
	}
	double x = h * 6.0;
	*r = fmin(fmax(fabs(x - 3.0) - 1.0, 0.0), 1.0);
	*g = fmin(fmax(2.0 - fabs(x - 2.0), 0.0), 1.0);
	*b = fmin(fmax(2.0 - fabs(x - 4.0), 0.0), 1.0);
}

/*
 * The toplevel: six colour sectors rotating around the centre, crossed by
 * bright vertical bars that move to the right; a horizontal band across
 * the middle third is translucent (alpha 0.5) and a 1/8 wide strip at the
 * left is fully transparent.
 */
static void draw_main(struct buffer *buffer, uint32_t time_ms) {
	double t = time_ms / 1000.0;
	double cx = buffer->width / 2.0, cy = buffer->height / 2.0;
	int32_t band_top = buffer->height / 3;
	int32_t band_bottom = 2 * buffer->height / 3;
	int32_t clear_right = buffer->width / 8;
	double bar_offset = fmod(t * 60.0, 64.0);
	for (int32_t y = 0; y < buffer->height; y++) {
		uint32_t *row = (uint32_t *)((uint8_t *)buffer->data +
				(size_t)y * (size_t)buffer->stride);
		double alpha = y >= band_top && y < band_bottom ? 0.5 : 1.0;
		for (int32_t x = 0; x < buffer->width; x++) {
			if (x < clear_right) {
				row[x] = 0;
				continue;
			}
			double angle = atan2(y - cy, x - cx) / (2.0 * PI);
			double sector = floor((angle + t * 0.25) * 6.0) / 6.0;
			double r, g, b;
			hue_to_rgb(sector, &r, &g, &b);
			double bar = fmod(x + 64.0 - bar_offset, 64.0);
			if (bar < 12.0) {
				double k = 0.35 + bar / 24.0;
				r = r + (1.0 - r) * k;
				g = g + (1.0 - g) * k;
				b = b + (1.0 - b) * k;
			}
			row[x] = argb_premul(r, g, b, alpha);
		}
	}
}

/* The above subsurface (XRGB8888): diagonal stripes moving down-left. */
static void draw_above(struct buffer *buffer, uint32_t time_ms) {
	int32_t shift = (int32_t)((time_ms / 16) % 32);
	for (int32_t y = 0; y < buffer->height; y++) {
		uint32_t *row = (uint32_t *)((uint8_t *)buffer->data +
				(size_t)y * (size_t)buffer->stride);
		for (int32_t x = 0; x < buffer->width; x++) {
			bool stripe = ((x + y + shift) / 16) % 2 == 0;
			bool edge = x < 2 || y < 2 || x >= buffer->width - 2 ||
					y >= buffer->height - 2;
			uint32_t px = stripe ? 0x00ffd040 : 0x00303070;
			row[x] = edge ? 0x00ffffff : px;
		}
	}
}

/* The below subsurface (ARGB8888, opaque): a checkerboard. */
static void draw_below(struct buffer *buffer) {
	for (int32_t y = 0; y < buffer->height; y++) {
		uint32_t *row = (uint32_t *)((uint8_t *)buffer->data +
				(size_t)y * (size_t)buffer->stride);
		for (int32_t x = 0; x < buffer->width; x++) {
			bool dark = ((x / 8) + (y / 8)) % 2 == 0;
			row[x] = dark ? 0xff106030 : 0xffe0f0e0;
		}
	}
}

static const struct wl_callback_listener main_frame_listener;
static const struct wl_callback_listener above_frame_listener;

static void request_frame(struct surface *surface,
		const struct wl_callback_listener *listener) {
	if (surface->frame != NULL) {
		wl_callback_destroy(surface->frame);
	}
	surface->frame = wl_surface_frame(surface->wl_surface);
	wl_callback_add_listener(surface->frame, listener, surface->demo);
}

static void redraw_above(struct demo *demo) {
	struct buffer *buffer = surface_next_buffer(&demo->above);
	if (buffer == NULL) {
		// Every buffer is busy: try again at the next frame.
		request_frame(&demo->above, &above_frame_listener);
		wl_surface_commit(demo->above.wl_surface);
		return;
	}
	draw_above(buffer, demo->is_static ? 0 : demo->above_time);
	wl_surface_attach(demo->above.wl_surface, buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(demo->above.wl_surface, 0, 0, buffer->width,
			buffer->height);
	if (!demo->is_static) {
		request_frame(&demo->above, &above_frame_listener);
	}
	wl_surface_commit(demo->above.wl_surface);
	buffer->busy = true;
}

static void redraw_below(struct demo *demo) {
	struct buffer *buffer = surface_next_buffer(&demo->below);
	if (buffer == NULL) {
		return; // static content: the one on screen stays valid
	}
	draw_below(buffer);
	wl_surface_attach(demo->below.wl_surface, buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(demo->below.wl_surface, 0, 0, buffer->width,
			buffer->height);
	wl_surface_commit(demo->below.wl_surface); // applied with the parent
	buffer->busy = true;
}

static void redraw_main(struct demo *demo) {
	struct buffer *buffer = surface_next_buffer(&demo->main);
	if (buffer == NULL) {
		request_frame(&demo->main, &main_frame_listener);
		wl_surface_commit(demo->main.wl_surface);
		return;
	}
	draw_main(buffer, demo->is_static ? 0 : demo->main_time);
	wl_subsurface_set_position(demo->below_sub,
			demo->main.width - BELOW_WIDTH + BELOW_PEEK,
			demo->main.height - BELOW_HEIGHT + BELOW_PEEK);
	xdg_surface_set_window_geometry(demo->xdg_surface, 0, 0, demo->main.width,
			demo->main.height);
	wl_surface_attach(demo->main.wl_surface, buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(demo->main.wl_surface, 0, 0, buffer->width,
			buffer->height);
	if (!demo->is_static || demo->max_frames > 0) {
		request_frame(&demo->main, &main_frame_listener);
	}
	wl_surface_commit(demo->main.wl_surface);
	buffer->busy = true;
	demo->frames_drawn++;
}

static void main_frame_handle_done(void *data, struct wl_callback *callback,
		uint32_t time) {
	struct demo *demo = data;
	wl_callback_destroy(callback);
	demo->main.frame = NULL;
	demo->main_time = time;
	demo->frames_presented++;
	if (demo->max_frames > 0 && demo->frames_presented >= demo->max_frames) {
		demo->running = false;
		return;
	}
	// In --static mode this redraws the same time-independent content.
	redraw_main(demo);
}

static const struct wl_callback_listener main_frame_listener = {
	.done = main_frame_handle_done,
};

static void above_frame_handle_done(void *data, struct wl_callback *callback,
		uint32_t time) {
	struct demo *demo = data;
	wl_callback_destroy(callback);
	demo->above.frame = NULL;
	demo->above_time = time;
	redraw_above(demo);
}

static const struct wl_callback_listener above_frame_listener = {
	.done = above_frame_handle_done,
};

/* ---- xdg-shell ---------------------------------------------------------- */

static void wm_base_handle_ping(void *data, struct xdg_wm_base *wm_base,
		uint32_t serial) {
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = {
	.ping = wm_base_handle_ping,
};

static void xdg_surface_handle_configure(void *data,
		struct xdg_surface *xdg_surface, uint32_t serial) {
	struct demo *demo = data;
	xdg_surface_ack_configure(xdg_surface, serial);
	if (demo->pending_width > 0) {
		demo->main.width = demo->pending_width;
	}
	if (demo->pending_height > 0) {
		demo->main.height = demo->pending_height;
	}
	if (!demo->configured) {
		demo->configured = true;
		redraw_above(demo);
	}
	redraw_below(demo);
	redraw_main(demo);
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = xdg_surface_handle_configure,
};

static void toplevel_handle_configure(void *data, struct xdg_toplevel *toplevel,
		int32_t width, int32_t height, struct wl_array *states) {
	struct demo *demo = data;
	demo->pending_width = width;
	demo->pending_height = height;
}

static void toplevel_handle_close(void *data, struct xdg_toplevel *toplevel) {
	struct demo *demo = data;
	demo->running = false;
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_handle_configure,
	.close = toplevel_handle_close,
};

/* ---- globals ------------------------------------------------------------ */

static void registry_handle_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct demo *demo = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		demo->compositor = wl_registry_bind(registry, name,
				&wl_compositor_interface, version < 4 ? version : 4);
	} else if (strcmp(interface, wl_subcompositor_interface.name) == 0) {
		demo->subcompositor = wl_registry_bind(registry, name,
				&wl_subcompositor_interface, 1);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		demo->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		demo->wm_base =
				wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
		xdg_wm_base_add_listener(demo->wm_base, &wm_base_listener, demo);
	}
}

static void registry_handle_global_remove(void *data,
		struct wl_registry *registry, uint32_t name) {
	// Nothing we bind goes away while we run.
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_handle_global,
	.global_remove = registry_handle_global_remove,
};

/* ---- setup, main loop, teardown ----------------------------------------- */

static bool demo_init(struct demo *demo) {
	demo->display = wl_display_connect(NULL);
	if (demo->display == NULL) {
		fprintf(stderr,
				"vitrail-demo: cannot connect to the Wayland "
				"display\n");
		return false;
	}
	demo->registry = wl_display_get_registry(demo->display);
	wl_registry_add_listener(demo->registry, &registry_listener, demo);
	if (wl_display_roundtrip(demo->display) < 0) {
		fprintf(stderr, "vitrail-demo: roundtrip failed\n");
		return false;
	}
	if (demo->compositor == NULL || demo->subcompositor == NULL ||
			demo->shm == NULL || demo->wm_base == NULL) {
		fprintf(stderr,
				"vitrail-demo: the compositor lacks wl_compositor, "
				"wl_subcompositor, wl_shm or xdg_wm_base\n");
		return false;
	}

	demo->main.wl_surface = wl_compositor_create_surface(demo->compositor);
	demo->above.wl_surface = wl_compositor_create_surface(demo->compositor);
	demo->below.wl_surface = wl_compositor_create_surface(demo->compositor);

	demo->above_sub = wl_subcompositor_get_subsurface(demo->subcompositor,
			demo->above.wl_surface, demo->main.wl_surface);
	wl_subsurface_set_position(demo->above_sub, ABOVE_X, ABOVE_Y);
	wl_subsurface_set_desync(demo->above_sub);
	wl_subsurface_place_above(demo->above_sub, demo->main.wl_surface);

	demo->below_sub = wl_subcompositor_get_subsurface(demo->subcompositor,
			demo->below.wl_surface, demo->main.wl_surface);
	wl_subsurface_place_below(demo->below_sub, demo->main.wl_surface);

	demo->xdg_surface =
			xdg_wm_base_get_xdg_surface(demo->wm_base, demo->main.wl_surface);
	xdg_surface_add_listener(demo->xdg_surface, &xdg_surface_listener, demo);
	demo->xdg_toplevel = xdg_surface_get_toplevel(demo->xdg_surface);
	xdg_toplevel_add_listener(demo->xdg_toplevel, &toplevel_listener, demo);
	xdg_toplevel_set_app_id(demo->xdg_toplevel, demo->app_id);
	xdg_toplevel_set_title(demo->xdg_toplevel, demo->title);
	wl_surface_commit(demo->main.wl_surface);
	return true;
}

static void demo_finish(struct demo *demo) {
	if (demo->above_sub != NULL) {
		wl_subsurface_destroy(demo->above_sub);
	}
	if (demo->below_sub != NULL) {
		wl_subsurface_destroy(demo->below_sub);
	}
	surface_finish(&demo->above);
	surface_finish(&demo->below);
	if (demo->xdg_toplevel != NULL) {
		xdg_toplevel_destroy(demo->xdg_toplevel);
	}
	if (demo->xdg_surface != NULL) {
		xdg_surface_destroy(demo->xdg_surface);
	}
	surface_finish(&demo->main);
	if (demo->wm_base != NULL) {
		xdg_wm_base_destroy(demo->wm_base);
	}
	if (demo->shm != NULL) {
		wl_shm_destroy(demo->shm);
	}
	if (demo->subcompositor != NULL) {
		wl_subcompositor_destroy(demo->subcompositor);
	}
	if (demo->compositor != NULL) {
		wl_compositor_destroy(demo->compositor);
	}
	if (demo->registry != NULL) {
		wl_registry_destroy(demo->registry);
	}
	if (demo->display != NULL) {
		wl_display_flush(demo->display);
		wl_display_disconnect(demo->display);
	}
}

/* Dispatch until running is false; signal_fd ends the loop when readable. */
static void demo_run(struct demo *demo, int signal_fd) {
	struct pollfd fds[2] = {
		{ .fd = wl_display_get_fd(demo->display) },
		{ .fd = signal_fd, .events = POLLIN },
	};
	while (demo->running) {
		while (wl_display_prepare_read(demo->display) != 0) {
			if (wl_display_dispatch_pending(demo->display) < 0) {
				goto error_display;
			}
		}
		if (!demo->running) {
			wl_display_cancel_read(demo->display);
			break;
		}
		fds[0].events = POLLIN;
		if (wl_display_flush(demo->display) < 0) {
			if (errno != EAGAIN) {
				wl_display_cancel_read(demo->display);
				goto error_display;
			}
			fds[0].events |= POLLOUT;
		}
		if (poll(fds, 2, -1) < 0) {
			wl_display_cancel_read(demo->display);
			if (errno == EINTR) {
				continue;
			}
			perror("poll");
			demo->exit_status = EXIT_FAILURE;
			return;
		}
		if (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) {
			if (wl_display_read_events(demo->display) < 0) {
				goto error_display;
			}
		} else {
			wl_display_cancel_read(demo->display);
		}
		if (wl_display_dispatch_pending(demo->display) < 0) {
			goto error_display;
		}
		if (fds[1].revents & POLLIN) {
			struct signalfd_siginfo info;
			if (read(signal_fd, &info, sizeof(info)) > 0) {
				demo->running = false;
			}
		}
	}
	return;

error_display:
	fprintf(stderr, "vitrail-demo: lost the Wayland connection: %s\n",
			strerror(wl_display_get_error(demo->display)));
	demo->exit_status = EXIT_FAILURE;
}

static bool parse_size(const char *s, int32_t *width, int32_t *height) {
	char *end;
	long w = strtol(s, &end, 10);
	if (end == s || (*end != 'x' && *end != 'X')) {
		return false;
	}
	const char *h_str = end + 1;
	long h = strtol(h_str, &end, 10);
	if (end == h_str || *end != '\0' || w <= 0 || h <= 0 || w > 8192 ||
			h > 8192) {
		return false;
	}
	*width = (int32_t)w;
	*height = (int32_t)h;
	return true;
}

static void usage(FILE *f) {
	fprintf(f,
			"Usage: vitrail-demo [--app-id ID] [--title TITLE] "
			"[--size WxH] [--frames N] [--static]\n");
}

int main(int argc, char *argv[]) {
	struct demo demo = {
		.app_id = "vitrail-demo",
		.title = "vitrail demo",
		.running = true,
		.exit_status = EXIT_SUCCESS,
	};
	demo.main = (struct surface){
		.demo = &demo,
		.width = 400,
		.height = 300,
		.format = WL_SHM_FORMAT_ARGB8888,
	};
	demo.above = (struct surface){
		.demo = &demo,
		.width = ABOVE_WIDTH,
		.height = ABOVE_HEIGHT,
		.format = WL_SHM_FORMAT_XRGB8888,
	};
	demo.below = (struct surface){
		.demo = &demo,
		.width = BELOW_WIDTH,
		.height = BELOW_HEIGHT,
		.format = WL_SHM_FORMAT_ARGB8888,
	};

	static const struct option long_options[] = {
		{ "app-id", required_argument, NULL, 'a' },
		{ "title", required_argument, NULL, 't' },
		{ "size", required_argument, NULL, 's' },
		{ "frames", required_argument, NULL, 'n' },
		{ "static", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		char *end;
		switch (opt) {
		case 'a': demo.app_id = optarg; break;
		case 't': demo.title = optarg; break;
		case 's':
			if (!parse_size(optarg, &demo.main.width, &demo.main.height)) {
				fprintf(stderr, "vitrail-demo: bad --size '%s'\n", optarg);
				return EXIT_FAILURE;
			}
			break;
		case 'n':
			demo.max_frames = strtol(optarg, &end, 10);
			if (*end != '\0' || demo.max_frames <= 0) {
				fprintf(stderr, "vitrail-demo: bad --frames '%s'\n", optarg);
				return EXIT_FAILURE;
			}
			break;
		case 'S': demo.is_static = true; break;
		case 'h': usage(stdout); return EXIT_SUCCESS;
		default: usage(stderr); return EXIT_FAILURE;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return EXIT_FAILURE;
	}

	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0) {
		perror("sigprocmask");
		return EXIT_FAILURE;
	}
	int signal_fd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (signal_fd < 0) {
		perror("signalfd");
		return EXIT_FAILURE;
	}

	if (demo_init(&demo)) {
		demo_run(&demo, signal_fd);
	} else {
		demo.exit_status = EXIT_FAILURE;
	}
	demo_finish(&demo);
	close(signal_fd);
	return demo.exit_status;
}
