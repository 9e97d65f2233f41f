#define _GNU_SOURCE // memfd_create
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include "scene-client.h"

/* Lists up to this size go inline (a Wayland message is at most 4 KiB). */
#define INLINE_MAX 2048

/* ---- command stream ----------------------------------------------------- */

void sc_dl_init(struct sc_dl *dl) {
	*dl = (struct sc_dl){ 0 };
}

void sc_dl_finish(struct sc_dl *dl) {
	free(dl->data);
	*dl = (struct sc_dl){ 0 };
}

static void put(struct sc_dl *dl, const void *bytes, size_t len) {
	if (len == 0) {
		return;
	}
	if (dl->size + len > dl->cap) {
		size_t cap = dl->cap ? dl->cap : 256;
		while (cap < dl->size + len) {
			cap *= 2;
		}
		uint8_t *data = realloc(dl->data, cap);
		if (data == NULL) {
			abort();
		}
		dl->data = data;
		dl->cap = cap;
	}
	memcpy(dl->data + dl->size, bytes, len);
	dl->size += len;
}

static void put_u32(struct sc_dl *dl, uint32_t v) {
	uint8_t b[4] = { v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >> 24 };
	put(dl, b, 4);
}

static void put_f32(struct sc_dl *dl, float f) {
	uint32_t v;
	memcpy(&v, &f, sizeof(v));
	put_u32(dl, v);
}

static void put_paint(struct sc_dl *dl, struct sc_paint paint) {
	put_u32(dl, paint.color);
	put_f32(dl, paint.stroke_width);
	uint8_t b[4] = { paint.join, paint.cap, paint.fill_rule, 0 };
	put(dl, b, 4);
	put_f32(dl, paint.miter_limit);
}

static void header(struct sc_dl *dl, uint16_t op, size_t size) {
	put_u32(dl, op);
	put_u32(dl, (uint32_t)size);
}

static void pad(struct sc_dl *dl) {
	static const uint8_t zeros[4] = { 0 };
	put(dl, zeros, (4 - dl->size % 4) % 4);
}

void sc_dl_record(struct sc_dl *dl, uint16_t op, const void *payload,
		size_t len) {
	header(dl, op, 8 + ((len + 3) & ~(size_t)3));
	put(dl, payload, len);
	pad(dl);
}

static void put_rect(struct sc_dl *dl, float x, float y, float w, float h) {
	put_f32(dl, x);
	put_f32(dl, y);
	put_f32(dl, w);
	put_f32(dl, h);
}

static void put_radii(struct sc_dl *dl, float r) {
	for (int i = 0; i < 4; i++) {
		put_f32(dl, r);
	}
}

void sc_dl_rect(struct sc_dl *dl, float x, float y, float w, float h,
		struct sc_paint paint) {
	header(dl, SC_OP_RECT, 40);
	put_rect(dl, x, y, w, h);
	put_paint(dl, paint);
}

void sc_dl_rrect(struct sc_dl *dl, float x, float y, float w, float h,
		float radius, struct sc_paint paint) {
	header(dl, SC_OP_RRECT, 56);
	put_rect(dl, x, y, w, h);
	put_radii(dl, radius);
	put_paint(dl, paint);
}

void sc_dl_ellipse(struct sc_dl *dl, float x, float y, float w, float h,
		struct sc_paint paint) {
	header(dl, SC_OP_ELLIPSE, 40);
	put_rect(dl, x, y, w, h);
	put_paint(dl, paint);
}

void sc_dl_line(struct sc_dl *dl, float x0, float y0, float x1, float y1,
		struct sc_paint paint) {
	header(dl, SC_OP_LINE, 40);
	put_rect(dl, x0, y0, x1, y1);
	put_paint(dl, paint);
}

void sc_dl_path(struct sc_dl *dl, const uint8_t *verbs, uint32_t n_verbs,
		const float *points, uint32_t n_points, struct sc_paint paint) {
	size_t verbs_len = ((size_t)n_verbs + 3) & ~(size_t)3;
	header(dl, SC_OP_PATH, 32 + verbs_len + 8 * (size_t)n_points);
	put_paint(dl, paint);
	put_u32(dl, n_verbs);
	put_u32(dl, n_points);
	put(dl, verbs, n_verbs);
	pad(dl);
	for (uint32_t i = 0; i < 2 * n_points; i++) {
		put_f32(dl, points[i]);
	}
}

void sc_dl_image(struct sc_dl *dl, uint32_t image, float opacity, float sx,
		float sy, float sw, float sh, float x, float y, float w, float h) {
	header(dl, SC_OP_IMAGE, 48);
	put_u32(dl, image);
	put_f32(dl, opacity);
	put_rect(dl, sx, sy, sw, sh);
	put_rect(dl, x, y, w, h);
}

void sc_dl_text(struct sc_dl *dl, float x, float y, uint32_t color, float size,
		uint32_t weight, const char *family, const char *text) {
	size_t family_len = strlen(family), text_len = strlen(text);
	header(dl, SC_OP_TEXT, (36 + family_len + text_len + 3) & ~(size_t)3);
	put_f32(dl, x);
	put_f32(dl, y);
	put_u32(dl, color);
	put_f32(dl, size);
	put_u32(dl, weight);
	put_u32(dl, (uint32_t)family_len);
	put_u32(dl, (uint32_t)text_len);
	put(dl, family, family_len);
	put(dl, text, text_len);
	pad(dl);
}

void sc_dl_save(struct sc_dl *dl) {
	header(dl, SC_OP_SAVE, 8);
}

void sc_dl_restore(struct sc_dl *dl) {
	header(dl, SC_OP_RESTORE, 8);
}

void sc_dl_translate(struct sc_dl *dl, float x, float y) {
	header(dl, SC_OP_TRANSLATE, 16);
	put_f32(dl, x);
	put_f32(dl, y);
}

void sc_dl_clip_rrect(struct sc_dl *dl, float x, float y, float w, float h,
		float radius) {
	header(dl, SC_OP_CLIP_RRECT, 40);
	put_rect(dl, x, y, w, h);
	put_radii(dl, radius);
}

void sc_dl_shadow(struct sc_dl *dl, float x, float y, float w, float h,
		float radius, float blur, uint32_t color) {
	header(dl, SC_OP_SHADOW, 48);
	put_rect(dl, x, y, w, h);
	put_radii(dl, radius);
	put_f32(dl, blur);
	put_u32(dl, color);
}

/* ---- buffers, images, lists ------------------------------------------- */

static int memfd_with(const void *data, size_t size) {
	int fd = memfd_create("vitrail-scene-client", MFD_CLOEXEC);
	if (fd < 0) {
		perror("memfd_create");
		abort();
	}
	if (ftruncate(fd, (off_t)size) < 0) {
		perror("ftruncate");
		abort();
	}
	if (data != NULL && size > 0 &&
			pwrite(fd, data, size, 0) != (ssize_t)size) {
		perror("pwrite");
		abort();
	}
	return fd;
}

struct sc_buffer *sc_buffer_create(struct sc_app *app, int32_t width,
		int32_t height, uint32_t format, uint32_t fill) {
	struct sc_buffer *buffer = calloc(1, sizeof(*buffer));
	if (buffer == NULL) {
		abort();
	}
	buffer->width = width;
	buffer->height = height;
	buffer->size = (size_t)width * (size_t)height * 4;
	int fd = memfd_with(NULL, buffer->size);
	buffer->pixels =
			mmap(NULL, buffer->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (buffer->pixels == MAP_FAILED) {
		perror("mmap");
		abort();
	}
	for (size_t i = 0; i < (size_t)width * (size_t)height; i++) {
		buffer->pixels[i] = fill;
	}
	struct wl_shm_pool *pool =
			wl_shm_create_pool(app->shm, fd, (int32_t)buffer->size);
	buffer->wl_buffer = wl_shm_pool_create_buffer(pool, 0, width, height,
			width * 4, format);
	wl_shm_pool_destroy(pool);
	close(fd);
	return buffer;
}

void sc_buffer_destroy(struct sc_buffer *buffer) {
	if (buffer == NULL) {
		return;
	}
	wl_buffer_destroy(buffer->wl_buffer);
	munmap(buffer->pixels, buffer->size);
	free(buffer);
}

struct vitrail_scene_image_v1 *sc_image_create(struct sc_app *app,
		int32_t width, int32_t height, const uint32_t *pixels) {
	struct sc_buffer *buffer =
			sc_buffer_create(app, width, height, WL_SHM_FORMAT_ARGB8888, 0);
	memcpy(buffer->pixels, pixels, buffer->size);
	struct vitrail_scene_image_v1 *image =
			vitrail_scene_manager_v1_create_image(app->manager,
					buffer->wl_buffer);
	// The compositor copied the pixels during the request.
	sc_buffer_destroy(buffer);
	return image;
}

void sc_list_append_shm(struct vitrail_scene_display_list_v1 *list,
		const struct sc_dl *dl) {
	// At an offset, to exercise it: a page of padding first.
	size_t offset = 4096;
	uint8_t *data = calloc(1, offset + dl->size);
	if (data == NULL) {
		abort();
	}
	memcpy(data + offset, dl->data, dl->size);
	int fd = memfd_with(data, offset + dl->size);
	free(data);
	vitrail_scene_display_list_v1_append_shm(list, fd, (uint32_t)offset,
			(uint32_t)dl->size);
	close(fd);
}

struct vitrail_scene_display_list_v1 *sc_list_create(struct sc_app *app,
		const struct sc_dl *dl) {
	struct vitrail_scene_display_list_v1 *list =
			vitrail_scene_manager_v1_create_display_list(app->manager);
	if (dl->size == 0) {
		return list;
	}
	if (dl->size <= INLINE_MAX) {
		struct wl_array array = {
			.size = dl->size,
			.alloc = dl->size,
			.data = dl->data,
		};
		vitrail_scene_display_list_v1_append(list, &array);
	} else {
		sc_list_append_shm(list, dl);
	}
	return list;
}

void sc_node_set_children(struct vitrail_scene_node_v1 *node,
		struct vitrail_scene_node_v1 *const *children, size_t n) {
	struct wl_array array;
	wl_array_init(&array);
	for (size_t i = 0; i < n; i++) {
		uint32_t *id = wl_array_add(&array, sizeof(*id));
		if (id == NULL) {
			abort();
		}
		*id = wl_proxy_get_id((struct wl_proxy *)children[i]);
	}
	vitrail_scene_node_v1_set_children(node, &array);
	wl_array_release(&array);
}

void sc_node_set_position(struct vitrail_scene_node_v1 *node, double x,
		double y) {
	vitrail_scene_node_v1_set_translation(node, wl_fixed_from_double(x),
			wl_fixed_from_double(y));
}

static void fixed_array(struct wl_array *array, const double *v, size_t n) {
	wl_array_init(array);
	for (size_t i = 0; i < n; i++) {
		wl_fixed_t *f = wl_array_add(array, sizeof(*f));
		if (f == NULL) {
			abort();
		}
		*f = wl_fixed_from_double(v[i]);
	}
}

struct vitrail_scene_animation_v1 *sc_node_animate(
		struct vitrail_scene_node_v1 *node, uint32_t property,
		const double *target, size_t ntarget, uint32_t duration_ms,
		uint32_t curve, const double *params, size_t nparams) {
	struct wl_array t, p;
	fixed_array(&t, target, ntarget);
	fixed_array(&p, params, nparams);
	struct vitrail_scene_animation_v1 *anim = vitrail_scene_node_v1_animate(
			node, property, &t, duration_ms, curve, &p);
	wl_array_release(&t);
	wl_array_release(&p);
	return anim;
}

void sc_node_set_list(struct sc_app *app, struct vitrail_scene_node_v1 *node,
		struct sc_dl *dl) {
	struct vitrail_scene_display_list_v1 *list = sc_list_create(app, dl);
	vitrail_scene_node_v1_set_display_list(node, list);
	vitrail_scene_display_list_v1_destroy(list);
	sc_dl_finish(dl);
}

bool sc_parse_ms(const char *s, int *ms) {
	char *end;
	long v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || v < 0 || v > 3600000) {
		return false;
	}
	*ms = (int)v;
	return true;
}

/* ---- input -------------------------------------------------------------- */

static void pointer_enter(void *data, struct wl_pointer *pointer,
		uint32_t serial, struct wl_surface *surface, wl_fixed_t x,
		wl_fixed_t y) {
	struct sc_app *app = data;
	app->pointer_x = wl_fixed_to_double(x);
	app->pointer_y = wl_fixed_to_double(y);
}

static void pointer_leave(void *data, struct wl_pointer *pointer,
		uint32_t serial, struct wl_surface *surface) {
	// The position stays the last one seen.
}

static void pointer_motion(void *data, struct wl_pointer *pointer,
		uint32_t time, wl_fixed_t x, wl_fixed_t y) {
	struct sc_app *app = data;
	app->pointer_x = wl_fixed_to_double(x);
	app->pointer_y = wl_fixed_to_double(y);
}

static void pointer_button(void *data, struct wl_pointer *pointer,
		uint32_t serial, uint32_t time, uint32_t button, uint32_t state) {
	struct sc_app *app = data;
	if (state == WL_POINTER_BUTTON_STATE_PRESSED) {
		app->button_serial = serial;
		app->buttons_pressed++;
	}
	if (state == WL_POINTER_BUTTON_STATE_PRESSED && app->on_tap != NULL) {
		app->on_tap(app, app->pointer_x, app->pointer_y);
	}
}

static void pointer_axis(void *data, struct wl_pointer *pointer, uint32_t time,
		uint32_t axis, wl_fixed_t value) {
	struct sc_app *app = data;
	if (app->on_axis != NULL) {
		app->on_axis(app, axis, wl_fixed_to_double(value));
	}
}

static void pointer_frame(void *data, struct wl_pointer *pointer) {
	struct sc_app *app = data;
	app->axis_source = 0;
	app->pointer_frames++;
}

static void pointer_axis_source(void *data, struct wl_pointer *pointer,
		uint32_t source) {
	struct sc_app *app = data;
	app->axis_source = source;
}

static void pointer_axis_stop(void *data, struct wl_pointer *pointer,
		uint32_t time, uint32_t axis) {
	struct sc_app *app = data;
	if (app->on_axis_stop != NULL) {
		app->on_axis_stop(app, axis);
	}
}

static void pointer_axis_discrete(void *data, struct wl_pointer *pointer,
		uint32_t axis, int32_t discrete) {
	// The value of the axis event is what scrolls.
}

static const struct wl_pointer_listener pointer_listener = {
	.enter = pointer_enter,
	.leave = pointer_leave,
	.motion = pointer_motion,
	.button = pointer_button,
	.axis = pointer_axis,
	.frame = pointer_frame,
	.axis_source = pointer_axis_source,
	.axis_stop = pointer_axis_stop,
	.axis_discrete = pointer_axis_discrete,
};

static void touch_down(void *data, struct wl_touch *touch, uint32_t serial,
		uint32_t time, struct wl_surface *surface, int32_t id, wl_fixed_t x,
		wl_fixed_t y) {
	struct sc_app *app = data;
	app->touch_serial = serial;
	if (app->on_tap != NULL) {
		app->on_tap(app, wl_fixed_to_double(x), wl_fixed_to_double(y));
	}
	if (app->on_touch != NULL) {
		app->on_touch(app, SC_TOUCH_DOWN, id, wl_fixed_to_double(x),
				wl_fixed_to_double(y));
	}
}

static void touch_up(void *data, struct wl_touch *touch, uint32_t serial,
		uint32_t time, int32_t id) {
	// A tap acts on touch down.
	struct sc_app *app = data;
	if (app->on_touch != NULL) {
		app->on_touch(app, SC_TOUCH_UP, id, 0, 0);
	}
}

static void touch_motion(void *data, struct wl_touch *touch, uint32_t time,
		int32_t id, wl_fixed_t x, wl_fixed_t y) {
	// A tap acts on touch down.
	struct sc_app *app = data;
	if (app->on_touch != NULL) {
		app->on_touch(app, SC_TOUCH_MOTION, id, wl_fixed_to_double(x),
				wl_fixed_to_double(y));
	}
}

static void touch_frame(void *data, struct wl_touch *touch) {
	// Nothing is batched.
}

static void touch_cancel(void *data, struct wl_touch *touch) {
	// Nothing is in progress.
}

static const struct wl_touch_listener touch_listener = {
	.down = touch_down,
	.up = touch_up,
	.motion = touch_motion,
	.frame = touch_frame,
	.cancel = touch_cancel,
};

static void seat_capabilities(void *data, struct wl_seat *seat, uint32_t caps) {
	struct sc_app *app = data;
	if ((caps & WL_SEAT_CAPABILITY_POINTER) && app->pointer == NULL) {
		app->pointer = wl_seat_get_pointer(seat);
		wl_pointer_add_listener(app->pointer, &pointer_listener, app);
	} else if (!(caps & WL_SEAT_CAPABILITY_POINTER) && app->pointer != NULL) {
		wl_pointer_destroy(app->pointer);
		app->pointer = NULL;
	}
	if ((caps & WL_SEAT_CAPABILITY_TOUCH) && app->touch == NULL) {
		app->touch = wl_seat_get_touch(seat);
		wl_touch_add_listener(app->touch, &touch_listener, app);
	} else if (!(caps & WL_SEAT_CAPABILITY_TOUCH) && app->touch != NULL) {
		wl_touch_destroy(app->touch);
		app->touch = NULL;
	}
}

static void seat_name(void *data, struct wl_seat *seat, const char *name) {
	// Not needed.
}

static const struct wl_seat_listener seat_listener = {
	.capabilities = seat_capabilities,
	.name = seat_name,
};

/* ---- globals and window ------------------------------------------------- */

static void wm_base_ping(void *data, struct xdg_wm_base *wm_base,
		uint32_t serial) {
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = {
	.ping = wm_base_ping,
};

static void registry_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct sc_app *app = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		app->compositor =
				wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	} else if (strcmp(interface, wl_subcompositor_interface.name) == 0) {
		app->subcompositor = wl_registry_bind(registry, name,
				&wl_subcompositor_interface, 1);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		app->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		app->wm_base =
				wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
		xdg_wm_base_add_listener(app->wm_base, &wm_base_listener, app);
	} else if (strcmp(interface, wl_seat_interface.name) == 0 &&
			app->seat == NULL) {
		/* a client that wants axis sources and stops asks for 5 */
		uint32_t want = app->seat_version > 0 ? app->seat_version : 1;
		app->seat = wl_registry_bind(registry, name, &wl_seat_interface,
				version < want ? version : want);
		wl_seat_add_listener(app->seat, &seat_listener, app);
	} else if (strcmp(interface, vitrail_scene_manager_v1_interface.name) ==
			0) {
		app->manager = wl_registry_bind(registry, name,
				&vitrail_scene_manager_v1_interface, 1);
	} else if (strcmp(interface,
					   vitrail_frame_timing_manager_v1_interface.name) == 0) {
		app->timing_manager = wl_registry_bind(registry, name,
				&vitrail_frame_timing_manager_v1_interface,
				version < 2 ? version : 2);
	} else if (strcmp(interface,
					   wp_tearing_control_manager_v1_interface.name) == 0) {
		app->tearing_manager = wl_registry_bind(registry, name,
				&wp_tearing_control_manager_v1_interface, 1);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
	// Nothing we bind goes away while we run.
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

bool sc_app_init(struct sc_app *app, const char *name) {
	app->timer_fd = -1;
	app->running = true;
	app->display = wl_display_connect(NULL);
	if (app->display == NULL) {
		fprintf(stderr, "%s: cannot connect to the Wayland display\n", name);
		return false;
	}
	app->registry = wl_display_get_registry(app->display);
	wl_registry_add_listener(app->registry, &registry_listener, app);
	if (wl_display_roundtrip(app->display) < 0 ||
			wl_display_roundtrip(app->display) < 0) {
		fprintf(stderr, "%s: roundtrip failed\n", name);
		return false;
	}
	if (app->compositor == NULL || app->subcompositor == NULL ||
			app->shm == NULL || app->wm_base == NULL || app->manager == NULL) {
		fprintf(stderr,
				"%s: the compositor lacks wl_compositor, "
				"wl_subcompositor, wl_shm, xdg_wm_base or "
				"vitrail_scene_manager_v1\n",
				name);
		return false;
	}
	return true;
}

static void xdg_surface_configure(void *data, struct xdg_surface *surface,
		uint32_t serial) {
	struct sc_app *app = data;
	xdg_surface_ack_configure(surface, serial);
	app->configured = true;
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = xdg_surface_configure,
};

static void toplevel_configure(void *data, struct xdg_toplevel *toplevel,
		int32_t width, int32_t height, struct wl_array *states) {
	// The window keeps its size: its content is laid out for it. What
	// was asked is kept for tests.
	struct sc_app *app = data;
	app->configure_width = width;
	app->configure_height = height;
	app->configure_maximized = false;
	app->configure_fullscreen = false;
	const uint32_t *state;
	wl_array_for_each(state, states) {
		if (*state == XDG_TOPLEVEL_STATE_MAXIMIZED) {
			app->configure_maximized = true;
		} else if (*state == XDG_TOPLEVEL_STATE_FULLSCREEN) {
			app->configure_fullscreen = true;
		}
	}
}

static void toplevel_close(void *data, struct xdg_toplevel *toplevel) {
	struct sc_app *app = data;
	app->running = false;
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure,
	.close = toplevel_close,
};

void sc_app_create_toplevel(struct sc_app *app, const char *app_id,
		const char *title) {
	app->surface = wl_compositor_create_surface(app->compositor);
	app->xdg_surface = xdg_wm_base_get_xdg_surface(app->wm_base, app->surface);
	xdg_surface_add_listener(app->xdg_surface, &xdg_surface_listener, app);
	app->xdg_toplevel = xdg_surface_get_toplevel(app->xdg_surface);
	xdg_toplevel_add_listener(app->xdg_toplevel, &toplevel_listener, app);
	xdg_toplevel_set_app_id(app->xdg_toplevel, app_id);
	xdg_toplevel_set_title(app->xdg_toplevel, title);
}

bool sc_app_create_window(struct sc_app *app, const char *app_id,
		const char *title, int32_t width, int32_t height, uint32_t argb) {
	sc_app_create_toplevel(app, app_id, title);
	return sc_app_configure_window(app, width, height, argb);
}

bool sc_app_configure_window(struct sc_app *app, int32_t width, int32_t height,
		uint32_t argb) {
	app->width = width;
	app->height = height;
	wl_surface_commit(app->surface);
	while (!app->configured) {
		if (wl_display_dispatch(app->display) < 0) {
			fprintf(stderr,
					"lost the connection before the first "
					"configure\n");
			return false;
		}
	}
	app->buffer =
			sc_buffer_create(app, width, height, WL_SHM_FORMAT_ARGB8888, argb);
	xdg_surface_set_window_geometry(app->xdg_surface, 0, 0, width, height);
	wl_surface_attach(app->surface, app->buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(app->surface, 0, 0, width, height);
	return true;
}

void sc_app_set_timer(struct sc_app *app, int ms, sc_timer_func fn) {
	if (app->timer_fd < 0) {
		app->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		if (app->timer_fd < 0) {
			perror("timerfd_create");
			abort();
		}
	}
	struct itimerspec its = {
		.it_value = {
			.tv_sec = ms / 1000,
			.tv_nsec = (long)(ms % 1000) * 1000000 + (ms == 0 ? 1 : 0),
		},
	};
	timerfd_settime(app->timer_fd, 0, &its, NULL);
	app->on_timer = fn;
}

int sc_app_run(struct sc_app *app) {
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	int signal_fd = signalfd(-1, &mask, SFD_CLOEXEC);
	struct pollfd fds[3] = {
		{ .fd = wl_display_get_fd(app->display) },
		{ .fd = signal_fd, .events = POLLIN },
		{ .fd = -1, .events = POLLIN },
	};
	while (app->running) {
		fds[2].fd = app->timer_fd;
		while (wl_display_prepare_read(app->display) != 0) {
			if (wl_display_dispatch_pending(app->display) < 0) {
				goto error_display;
			}
		}
		fds[0].events = POLLIN;
		if (wl_display_flush(app->display) < 0) {
			if (errno != EAGAIN) {
				wl_display_cancel_read(app->display);
				goto error_display;
			}
			fds[0].events |= POLLOUT;
		}
		if (poll(fds, 3, -1) < 0) {
			wl_display_cancel_read(app->display);
			if (errno == EINTR) {
				continue;
			}
			perror("poll");
			app->exit_status = EXIT_FAILURE;
			break;
		}
		if (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) {
			if (wl_display_read_events(app->display) < 0) {
				goto error_display;
			}
		} else {
			wl_display_cancel_read(app->display);
		}
		if (wl_display_dispatch_pending(app->display) < 0) {
			goto error_display;
		}
		if (fds[1].revents & POLLIN) {
			struct signalfd_siginfo info;
			if (read(signal_fd, &info, sizeof(info)) > 0) {
				app->running = false;
			}
		}
		if (fds[2].fd >= 0 && (fds[2].revents & POLLIN)) {
			uint64_t expirations;
			if (read(app->timer_fd, &expirations, sizeof(expirations)) > 0 &&
					app->on_timer != NULL) {
				app->on_timer(app);
			}
		}
	}
	close(signal_fd);
	return app->exit_status;

error_display:
	fprintf(stderr, "lost the Wayland connection: %s\n",
			strerror(wl_display_get_error(app->display)));
	close(signal_fd);
	return EXIT_FAILURE;
}

void sc_app_finish(struct sc_app *app) {
	if (app->timer_fd >= 0) {
		close(app->timer_fd);
	}
	if (app->xdg_toplevel != NULL) {
		xdg_toplevel_destroy(app->xdg_toplevel);
	}
	if (app->xdg_surface != NULL) {
		xdg_surface_destroy(app->xdg_surface);
	}
	if (app->surface != NULL) {
		wl_surface_destroy(app->surface);
	}
	sc_buffer_destroy(app->buffer);
	if (app->pointer != NULL) {
		wl_pointer_destroy(app->pointer);
	}
	if (app->touch != NULL) {
		wl_touch_destroy(app->touch);
	}
	if (app->seat != NULL) {
		wl_seat_destroy(app->seat);
	}
	if (app->tearing_manager != NULL) {
		wp_tearing_control_manager_v1_destroy(app->tearing_manager);
	}
	if (app->timing_manager != NULL) {
		vitrail_frame_timing_manager_v1_destroy(app->timing_manager);
	}
	if (app->manager != NULL) {
		vitrail_scene_manager_v1_destroy(app->manager);
	}
	if (app->wm_base != NULL) {
		xdg_wm_base_destroy(app->wm_base);
	}
	if (app->shm != NULL) {
		wl_shm_destroy(app->shm);
	}
	if (app->subcompositor != NULL) {
		wl_subcompositor_destroy(app->subcompositor);
	}
	if (app->compositor != NULL) {
		wl_compositor_destroy(app->compositor);
	}
	if (app->registry != NULL) {
		wl_registry_destroy(app->registry);
	}
	if (app->display != NULL) {
		wl_display_flush(app->display);
		wl_display_disconnect(app->display);
	}
}

/* ---- example clients ---------------------------------------------------- */

void sc_app_animation_done(struct sc_app *app, uint32_t reason) {
	// Tests wait for this line.
	printf("animation done: %s\n",
			reason == VITRAIL_SCENE_ANIMATION_V1_REASON_FINISHED ? "finished" :
																   "cancelled");
	fflush(stdout);
	if (app->exit_when_done) {
		app->running = false;
	}
}

int sc_client_main(struct sc_app *app, const struct sc_client *client, int argc,
		char *argv[]) {
	const char *app_id = client->name;
	int animate_after = -1;
	static const struct option options[] = {
		{ "app-id", required_argument, NULL, 'a' },
		{ "animate-after", required_argument, NULL, 't' },
		{ "exit-when-done", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (opt) {
		case 'a': app_id = optarg; break;
		case 't':
			if (!sc_parse_ms(optarg, &animate_after)) {
				fprintf(stderr, "bad --animate-after '%s'\n", optarg);
				return EXIT_FAILURE;
			}
			break;
		case 'x': app->exit_when_done = true; break;
		default:
			fprintf(opt == 'h' ? stdout : stderr,
					"usage: %s [--app-id ID] "
					"[--animate-after MS] [--exit-when-done]\n",
					argv[0]);
			return opt == 'h' ? EXIT_SUCCESS : EXIT_FAILURE;
		}
	}
	int status = EXIT_FAILURE;
	if (sc_app_init(app, client->name) &&
			sc_app_create_window(app, app_id, client->title, client->width,
					client->height, 0)) {
		app->on_tap = client->on_tap;
		client->build(app);
		if (animate_after >= 0) {
			sc_app_set_timer(app, animate_after, client->on_timer);
		}
		status = sc_app_run(app);
	}
	if (client->finish != NULL) {
		client->finish(app);
	}
	sc_app_finish(app);
	return status;
}
