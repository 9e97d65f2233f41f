/* See probe-client.h. */
#define _GNU_SOURCE // memfd_create
#include "probe-client.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

/* ---- xdg_toplevel ------------------------------------------------------- */

static void wm_base_handle_ping(void *data, struct xdg_wm_base *wm_base,
		uint32_t serial) {
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = {
	.ping = wm_base_handle_ping,
};

void pc_wm_base_listen(struct xdg_wm_base *wm_base) {
	xdg_wm_base_add_listener(wm_base, &wm_base_listener, NULL);
}

static void xdg_surface_handle_configure(void *data,
		struct xdg_surface *xdg_surface, uint32_t serial) {
	struct pc_toplevel *toplevel = data;
	xdg_surface_ack_configure(xdg_surface, serial);
	int32_t width = toplevel->pending_width > 0 ? toplevel->pending_width :
												  toplevel->width;
	int32_t height = toplevel->pending_height > 0 ? toplevel->pending_height :
													toplevel->height;
	bool resized = width != toplevel->width || height != toplevel->height;
	toplevel->width = width;
	toplevel->height = height;
	bool first = !toplevel->configured;
	toplevel->configured = true;
	if (toplevel->configure != NULL) {
		toplevel->configure(toplevel->data, first, resized);
	}
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = xdg_surface_handle_configure,
};

static void toplevel_handle_configure(void *data,
		struct xdg_toplevel *xdg_toplevel, int32_t width, int32_t height,
		struct wl_array *states) {
	struct pc_toplevel *toplevel = data;
	toplevel->pending_width = width;
	toplevel->pending_height = height;
}

static void toplevel_handle_close(void *data,
		struct xdg_toplevel *xdg_toplevel) {
	struct pc_toplevel *toplevel = data;
	if (toplevel->running != NULL) {
		*toplevel->running = false;
	}
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_handle_configure,
	.close = toplevel_handle_close,
};

bool pc_toplevel_init(struct pc_toplevel *toplevel,
		struct wl_compositor *compositor, struct xdg_wm_base *wm_base,
		const char *app_id, const char *title, int32_t width, int32_t height,
		bool *running, void (*configure)(void *data, bool first, bool resized),
		void *data) {
	*toplevel = (struct pc_toplevel){
		.width = width,
		.height = height,
		.running = running,
		.configure = configure,
		.data = data,
	};
	toplevel->surface = wl_compositor_create_surface(compositor);
	if (toplevel->surface == NULL) {
		return false;
	}
	toplevel->xdg_surface =
			xdg_wm_base_get_xdg_surface(wm_base, toplevel->surface);
	if (toplevel->xdg_surface == NULL) {
		return false;
	}
	xdg_surface_add_listener(toplevel->xdg_surface, &xdg_surface_listener,
			toplevel);
	toplevel->xdg_toplevel = xdg_surface_get_toplevel(toplevel->xdg_surface);
	if (toplevel->xdg_toplevel == NULL) {
		return false;
	}
	xdg_toplevel_add_listener(toplevel->xdg_toplevel, &toplevel_listener,
			toplevel);
	if (app_id != NULL) {
		xdg_toplevel_set_app_id(toplevel->xdg_toplevel, app_id);
	}
	if (title != NULL) {
		xdg_toplevel_set_title(toplevel->xdg_toplevel, title);
	}
	return true;
}

void pc_toplevel_finish(struct pc_toplevel *toplevel) {
	if (toplevel->xdg_toplevel != NULL) {
		xdg_toplevel_destroy(toplevel->xdg_toplevel);
	}
	if (toplevel->xdg_surface != NULL) {
		xdg_surface_destroy(toplevel->xdg_surface);
	}
	if (toplevel->surface != NULL) {
		wl_surface_destroy(toplevel->surface);
	}
	*toplevel = (struct pc_toplevel){ 0 };
}

/* ---- buffers ------------------------------------------------------------ */

static void buffer_destroy(struct pc_buffer *buffer) {
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
	struct pc_buffer *buffer = data;
	buffer->busy = false;
}

static const struct wl_buffer_listener buffer_listener = {
	.release = buffer_handle_release,
};

static struct pc_buffer *buffer_create(struct wl_shm *shm,
		struct zwp_linux_dmabuf_v1 *dmabuf, int32_t width, int32_t height) {
	struct pc_buffer *buffer = calloc(1, sizeof(*buffer));
	if (buffer == NULL) {
		return NULL;
	}
	buffer->width = width;
	buffer->height = height;
	buffer->content_seq = -1;
	uint32_t stride = (uint32_t)width * 4;
	if (dmabuf != NULL) {
		stride = (stride + 63) & ~63u;
	}
	buffer->size = (size_t)stride * (size_t)height;

	int fd = memfd_create("vitrail-probe", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		perror("memfd_create");
		goto error_buffer;
	}
	if (ftruncate(fd, (off_t)buffer->size) < 0 ||
			(dmabuf != NULL && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) < 0)) {
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
	if (dmabuf != NULL) {
		struct zwp_linux_buffer_params_v1 *params =
				zwp_linux_dmabuf_v1_create_params(dmabuf);
		zwp_linux_buffer_params_v1_add(params, fd, 0, 0, stride, 0,
				0); /* DRM_FORMAT_MOD_LINEAR */
		buffer->wl_buffer = zwp_linux_buffer_params_v1_create_immed(params,
				width, height, 0x34325258 /* DRM_FORMAT_XRGB8888 */, 0);
		zwp_linux_buffer_params_v1_destroy(params);
	} else {
		struct wl_shm_pool *pool =
				wl_shm_create_pool(shm, fd, (int32_t)buffer->size);
		buffer->wl_buffer = wl_shm_pool_create_buffer(pool, 0, width, height,
				width * 4, WL_SHM_FORMAT_XRGB8888);
		wl_shm_pool_destroy(pool);
	}
	close(fd);
	wl_buffer_add_listener(buffer->wl_buffer, &buffer_listener, buffer);
	return buffer;

error_fd:
	close(fd);
error_buffer:
	buffer_destroy(buffer);
	return NULL;
}

struct pc_buffer *pc_pool_next(struct pc_pool *pool, struct wl_shm *shm,
		int32_t width, int32_t height) {
	struct pc_buffer *best = NULL;
	struct pc_buffer **slot = NULL;
	for (int i = 0; i < PC_POOL_MAX; i++) {
		struct pc_buffer *buffer = pool->buffers[i];
		if (buffer != NULL && !buffer->busy &&
				(buffer->width != width || buffer->height != height)) {
			buffer_destroy(buffer);
			pool->buffers[i] = buffer = NULL;
		}
		if (buffer != NULL && !buffer->busy &&
				(best == NULL || buffer->content_seq > best->content_seq)) {
			best = buffer;
		}
		if (buffer == NULL && slot == NULL) {
			slot = &pool->buffers[i];
		}
	}
	if (best != NULL || slot == NULL) {
		return best;
	}
	*slot = buffer_create(shm, pool->dmabuf, width, height);
	return *slot;
}

void pc_pool_finish(struct pc_pool *pool) {
	for (int i = 0; i < PC_POOL_MAX; i++) {
		buffer_destroy(pool->buffers[i]);
		pool->buffers[i] = NULL;
	}
}

/* ---- time --------------------------------------------------------------- */

uint64_t pc_now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void pc_busy_work(double ms) {
	if (ms <= 0) {
		return;
	}
	uint64_t end = pc_now_ns() + (uint64_t)(ms * 1e6);
	volatile uint64_t sink = 0;
	while (pc_now_ns() < end) {
		for (int i = 0; i < 1000; i++) {
			sink += (uint64_t)i * 2654435761u;
		}
	}
}

/* ---- options ------------------------------------------------------------ */

bool pc_parse_long(const char *s, long min, long max, long *out) {
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0 || v < min || v > max) {
		return false;
	}
	*out = v;
	return true;
}

bool pc_parse_double(const char *s, double min, double *out) {
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end != '\0' || !(v >= min) || v > 1e6) {
		return false;
	}
	*out = v;
	return true;
}

bool pc_parse_size(const char *s, int32_t *width, int32_t *height) {
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

/* ---- main loop ---------------------------------------------------------- */

static void report_display_error(struct wl_display *display, const char *name) {
	int err = wl_display_get_error(display);
	const struct wl_interface *interface = NULL;
	uint32_t id = 0;
	if (err == EPROTO) {
		uint32_t code = wl_display_get_protocol_error(display, &interface, &id);
		fprintf(stderr, "%s: protocol error %u on %s@%u\n", name, code,
				interface != NULL ? interface->name : "?", id);
	} else {
		fprintf(stderr, "%s: lost the Wayland connection: %s\n", name,
				strerror(err));
	}
}

bool pc_dispatch(struct wl_display *display, int signal_fd, int timeout_ms,
		const bool *running, bool *signalled, const char *name) {
	while (wl_display_prepare_read(display) != 0) {
		if (wl_display_dispatch_pending(display) < 0) {
			report_display_error(display, name);
			return false;
		}
	}
	if (!*running) {
		wl_display_cancel_read(display);
		return true;
	}
	struct pollfd fds[2] = {
		{ .fd = wl_display_get_fd(display), .events = POLLIN },
		{ .fd = signal_fd, .events = POLLIN },
	};
	if (wl_display_flush(display) < 0) {
		if (errno != EAGAIN) {
			wl_display_cancel_read(display);
			report_display_error(display, name);
			return false;
		}
		fds[0].events |= POLLOUT;
	}
	if (poll(fds, signal_fd >= 0 ? 2 : 1, timeout_ms) < 0) {
		wl_display_cancel_read(display);
		if (errno == EINTR) {
			return true;
		}
		fprintf(stderr, "%s: poll: %s\n", name, strerror(errno));
		return false;
	}
	if (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) {
		if (wl_display_read_events(display) < 0) {
			report_display_error(display, name);
			return false;
		}
	} else {
		wl_display_cancel_read(display);
	}
	if (wl_display_dispatch_pending(display) < 0) {
		report_display_error(display, name);
		return false;
	}
	if (signal_fd >= 0 && (fds[1].revents & POLLIN)) {
		struct signalfd_siginfo info;
		if (read(signal_fd, &info, sizeof(info)) > 0) {
			*signalled = true;
		}
	}
	return true;
}
