/*
 * ext_image_copy_capture_v1 with ext_image_capture_source_v1 output sources
 * (compositor/protocols/image_copy_capture.c, image_capture_source.c),
 * with a capture client written from the XML. Oracles: the colours the
 * test's own windows draw, where vitrail says they are (vitrail_test_v1's
 * window list), the protocol's rules and error codes.
 *
 * output: the constraints (the output's size, XRGB8888 and ARGB8888); a
 *   first frame with full damage, the window's colour in its box and the
 *   background around it, a presentation time in the past; a second
 *   capture is answered once the window changes colour, with damage that
 *   covers its box and not the whole output; an ARGB8888 buffer gets
 *   opaque pixels; a buffer of the wrong size fails (buffer_constraints);
 *   unplugging the output stops the session and fails the frame waiting.
 * toplevel: a window covered by another, captured through its
 *   ext_foreign_toplevel_list_v1 handle: the constraints are its size and
 *   every pixel is its own colour, not the one covering it; a second
 *   capture is answered when it changes colour; it goes away: the session
 *   stops and the frame waiting fails; a source made from its closed
 *   handle gives a session stopped at once.
 * errors: duplicate_frame, no_buffer, invalid_buffer_damage,
 *   already_captured (capture twice, attach after capture) and
 *   invalid_option, each on its own connection, by interface and code,
 *   while a bystander client is still served; a pointer cursor session's
 *   capture session stops at once (the cursor is in the frames), and a
 *   second get_capture_session is duplicate_session.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pixman.h>
#include <wayland-client.h>

#include "ext-foreign-toplevel-list-v1-client-protocol.h"
#include "ext-image-capture-source-v1-client-protocol.h"
#include "ext-image-copy-capture-v1-client-protocol.h"
#include "harness.h"
#include "scene-client.h"

#define OUTPUT_W 320
#define OUTPUT_H 240
#define WIN_W 120
#define WIN_H 90
#define RED 0xffcc2211u
#define GREEN 0xff22aa44u

struct capturer {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_output *output;
	struct wl_shm *shm;
	struct wl_seat *seat;
	struct ext_output_image_capture_source_manager_v1 *sources;
	struct ext_image_copy_capture_manager_v1 *manager;
	/* toplevel sources, and the list's handles with their app_ids */
	struct ext_foreign_toplevel_image_capture_source_manager_v1 *toplevels;
	struct ext_foreign_toplevel_list_v1 *list;
	struct ext_foreign_toplevel_handle_v1 *handles[8];
	char *app_ids[8];
	bool closed[8];
	int nhandles;
	/* the session's events */
	struct ext_image_copy_capture_session_v1 *session;
	uint32_t width, height;
	bool xrgb, argb;
	int dones;
	bool stopped;
	/* the frame's events */
	struct ext_image_copy_capture_frame_v1 *frame;
	bool ready, failed;
	uint32_t reason;
	int32_t transform;
	pixman_region32_t damage;
	uint64_t presented_ns;
};

static void registry_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct capturer *c = data;
	if (strcmp(interface, wl_output_interface.name) == 0 && c->output == NULL) {
		c->output = wl_registry_bind(registry, name, &wl_output_interface, 1);
	} else if (strcmp(interface, wl_seat_interface.name) == 0 &&
			c->seat == NULL) {
		c->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		c->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface,
					   ext_output_image_capture_source_manager_v1_interface
							   .name) == 0) {
		c->sources = wl_registry_bind(registry, name,
				&ext_output_image_capture_source_manager_v1_interface, 1);
	} else if (
			strcmp(interface,
					ext_foreign_toplevel_image_capture_source_manager_v1_interface
							.name) == 0) {
		c->toplevels = wl_registry_bind(registry, name,
				&ext_foreign_toplevel_image_capture_source_manager_v1_interface,
				1);
	} else if (strcmp(interface, ext_foreign_toplevel_list_v1_interface.name) ==
			0) {
		c->list = wl_registry_bind(registry, name,
				&ext_foreign_toplevel_list_v1_interface, 1);
	} else if (strcmp(interface,
					   ext_image_copy_capture_manager_v1_interface.name) == 0) {
		c->manager = wl_registry_bind(registry, name,
				&ext_image_copy_capture_manager_v1_interface, 1);
	}
}

static int handle_index(struct capturer *c,
		struct ext_foreign_toplevel_handle_v1 *handle) {
	for (int i = 0; i < c->nhandles; i++) {
		if (c->handles[i] == handle) {
			return i;
		}
	}
	ck_abort_msg("an event of an unknown handle");
	return -1;
}

static void handle_closed(void *data,
		struct ext_foreign_toplevel_handle_v1 *handle) {
	struct capturer *c = data;
	c->closed[handle_index(c, handle)] = true;
}

static void handle_done(void *data,
		struct ext_foreign_toplevel_handle_v1 *handle) {
}

static void handle_title(void *data,
		struct ext_foreign_toplevel_handle_v1 *handle, const char *title) {
}

static void handle_app_id(void *data,
		struct ext_foreign_toplevel_handle_v1 *handle, const char *app_id) {
	struct capturer *c = data;
	int i = handle_index(c, handle);
	free(c->app_ids[i]);
	c->app_ids[i] = strdup(app_id);
}

static void handle_identifier(void *data,
		struct ext_foreign_toplevel_handle_v1 *handle, const char *identifier) {
}

static const struct ext_foreign_toplevel_handle_v1_listener handle_listener = {
	.closed = handle_closed,
	.done = handle_done,
	.title = handle_title,
	.app_id = handle_app_id,
	.identifier = handle_identifier,
};

static void list_toplevel(void *data, struct ext_foreign_toplevel_list_v1 *list,
		struct ext_foreign_toplevel_handle_v1 *handle) {
	struct capturer *c = data;
	ck_assert_int_lt(c->nhandles, 8);
	c->handles[c->nhandles++] = handle;
	ext_foreign_toplevel_handle_v1_add_listener(handle, &handle_listener, c);
}

static void list_finished(void *data,
		struct ext_foreign_toplevel_list_v1 *list) {
}

static const struct ext_foreign_toplevel_list_v1_listener list_listener = {
	.toplevel = list_toplevel,
	.finished = list_finished,
};

/* The open handle of app_id (the list must be bound and synced). */
static struct ext_foreign_toplevel_handle_v1 *find_handle(struct capturer *c,
		const char *app_id) {
	for (int i = 0; i < c->nhandles; i++) {
		if (!c->closed[i] && c->app_ids[i] != NULL &&
				strcmp(c->app_ids[i], app_id) == 0) {
			return c->handles[i];
		}
	}
	return NULL;
}

static void registry_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

static void session_buffer_size(void *data,
		struct ext_image_copy_capture_session_v1 *session, uint32_t width,
		uint32_t height) {
	struct capturer *c = data;
	c->width = width;
	c->height = height;
}

static void session_shm_format(void *data,
		struct ext_image_copy_capture_session_v1 *session, uint32_t format) {
	struct capturer *c = data;
	c->xrgb |= format == WL_SHM_FORMAT_XRGB8888;
	c->argb |= format == WL_SHM_FORMAT_ARGB8888;
}

static void session_dmabuf_device(void *data,
		struct ext_image_copy_capture_session_v1 *session,
		struct wl_array *device) {
}

static void session_dmabuf_format(void *data,
		struct ext_image_copy_capture_session_v1 *session, uint32_t format,
		struct wl_array *modifiers) {
}

static void session_done(void *data,
		struct ext_image_copy_capture_session_v1 *session) {
	struct capturer *c = data;
	c->dones++;
}

static void session_stopped(void *data,
		struct ext_image_copy_capture_session_v1 *session) {
	struct capturer *c = data;
	c->stopped = true;
}

static const struct ext_image_copy_capture_session_v1_listener
		session_listener = {
			.buffer_size = session_buffer_size,
			.shm_format = session_shm_format,
			.dmabuf_device = session_dmabuf_device,
			.dmabuf_format = session_dmabuf_format,
			.done = session_done,
			.stopped = session_stopped,
		};

static void frame_transform(void *data,
		struct ext_image_copy_capture_frame_v1 *frame, uint32_t transform) {
	struct capturer *c = data;
	c->transform = (int32_t)transform;
}

static void frame_damage(void *data,
		struct ext_image_copy_capture_frame_v1 *frame, int32_t x, int32_t y,
		int32_t width, int32_t height) {
	struct capturer *c = data;
	ck_assert_msg(width > 0 && height > 0, "empty damage %d,%d %dx%d", x, y,
			width, height);
	pixman_region32_union_rect(&c->damage, &c->damage, x, y, (unsigned)width,
			(unsigned)height);
}

static void frame_presentation_time(void *data,
		struct ext_image_copy_capture_frame_v1 *frame, uint32_t sec_hi,
		uint32_t sec_lo, uint32_t nsec) {
	struct capturer *c = data;
	ck_assert_uint_lt(nsec, 1000000000u);
	c->presented_ns = (((uint64_t)sec_hi << 32) | sec_lo) * 1000000000u + nsec;
}

static void frame_ready(void *data,
		struct ext_image_copy_capture_frame_v1 *frame) {
	struct capturer *c = data;
	ck_assert(!c->ready && !c->failed);
	c->ready = true;
}

static void frame_failed(void *data,
		struct ext_image_copy_capture_frame_v1 *frame, uint32_t reason) {
	struct capturer *c = data;
	ck_assert(!c->ready && !c->failed);
	c->failed = true;
	c->reason = reason;
}

static const struct ext_image_copy_capture_frame_v1_listener frame_listener = {
	.transform = frame_transform,
	.damage = frame_damage,
	.presentation_time = frame_presentation_time,
	.ready = frame_ready,
	.failed = frame_failed,
};

static void capturer_init(struct capturer *c, struct harness_vitrail *vitrail) {
	*c = (struct capturer){ .transform = -1 };
	pixman_region32_init(&c->damage);
	c->display = wl_display_connect(vitrail->socket);
	ck_assert_ptr_nonnull(c->display);
	c->registry = wl_display_get_registry(c->display);
	wl_registry_add_listener(c->registry, &registry_listener, c);
	ck_assert_int_ge(wl_display_roundtrip(c->display), 0);
	ck_assert_msg(c->sources != NULL && c->manager != NULL,
			"no ext_output_image_capture_source_manager_v1 or "
			"ext_image_copy_capture_manager_v1");
	ck_assert_ptr_nonnull(c->output);
	if (c->list != NULL) {
		ext_foreign_toplevel_list_v1_add_listener(c->list, &list_listener, c);
		ck_assert_int_ge(wl_display_roundtrip(c->display), 0);
	}
}

/* A session on source (NULL: the output), its constraints received. */
static void capturer_start_source(struct capturer *c, uint32_t options,
		struct ext_image_capture_source_v1 *source) {
	if (source == NULL) {
		source = ext_output_image_capture_source_manager_v1_create_source(
				c->sources, c->output);
	}
	c->session = ext_image_copy_capture_manager_v1_create_session(c->manager,
			source, options);
	ext_image_capture_source_v1_destroy(source); // the session stays
	ext_image_copy_capture_session_v1_add_listener(c->session,
			&session_listener, c);
	wl_display_roundtrip(c->display);
}

/* A new frame object with buffer attached, damaged in box (NULL: whole)
 * and captured. */
static void capturer_capture_damaged(struct capturer *c,
		struct wl_buffer *buffer, const pixman_box32_t *box) {
	if (c->frame != NULL) {
		ext_image_copy_capture_frame_v1_destroy(c->frame);
	}
	c->ready = c->failed = false;
	c->transform = -1;
	pixman_region32_clear(&c->damage);
	c->frame = ext_image_copy_capture_session_v1_create_frame(c->session);
	ext_image_copy_capture_frame_v1_add_listener(c->frame, &frame_listener, c);
	ext_image_copy_capture_frame_v1_attach_buffer(c->frame, buffer);
	if (box == NULL) {
		ext_image_copy_capture_frame_v1_damage_buffer(c->frame, 0, 0,
				INT32_MAX / 2, INT32_MAX / 2);
	} else {
		ext_image_copy_capture_frame_v1_damage_buffer(c->frame, box->x1,
				box->y1, box->x2 - box->x1, box->y2 - box->y1);
	}
	ext_image_copy_capture_frame_v1_capture(c->frame);
	wl_display_flush(c->display);
}

static void capturer_capture(struct capturer *c, struct wl_buffer *buffer) {
	capturer_capture_damaged(c, buffer, NULL);
}

/* Dispatch until the frame is answered (ready or failed). */
static void capturer_wait(struct capturer *c) {
	int64_t deadline =
			harness_now_ms() + harness_scaled_ms(HARNESS_WAIT_TIMEOUT_MS);
	while (!c->ready && !c->failed) {
		ck_assert_msg(harness_now_ms() < deadline,
				"no ready or failed for the capture");
		ck_assert_int_ge(wl_display_roundtrip(c->display), 0);
		harness_sleep_ms(5);
	}
}

/* A buffer of the capturing client's own connection. */
static struct sc_buffer *capture_buffer(struct capturer *c, int32_t width,
		int32_t height, uint32_t format) {
	struct sc_app shm_only = { .shm = c->shm };
	return sc_buffer_create(&shm_only, width, height, format, 0x12345678u);
}

static void capturer_start(struct capturer *c, uint32_t options) {
	capturer_start_source(c, options, NULL);
}

static void capturer_finish(struct capturer *c) {
	if (c->frame != NULL) {
		ext_image_copy_capture_frame_v1_destroy(c->frame);
	}
	if (c->session != NULL) {
		ext_image_copy_capture_session_v1_destroy(c->session);
	}
	for (int i = 0; i < c->nhandles; i++) {
		ext_foreign_toplevel_handle_v1_destroy(c->handles[i]);
		free(c->app_ids[i]);
	}
	if (c->list != NULL) {
		ext_foreign_toplevel_list_v1_destroy(c->list);
	}
	if (c->toplevels != NULL) {
		ext_foreign_toplevel_image_capture_source_manager_v1_destroy(
				c->toplevels);
	}
	ext_image_copy_capture_manager_v1_destroy(c->manager);
	ext_output_image_capture_source_manager_v1_destroy(c->sources);
	wl_output_destroy(c->output);
	wl_shm_destroy(c->shm);
	if (c->seat != NULL) {
		wl_seat_destroy(c->seat);
	}
	wl_registry_destroy(c->registry);
	wl_display_disconnect(c->display);
	pixman_region32_fini(&c->damage);
}

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Pixels of the box (inset by 2: no edge blending) equal to rgb, and
 * pixels anywhere equal to rgb. */
static void count_colour(const uint32_t *pixels, uint32_t rgb,
		const struct harness_window *w, long *inside, long *all) {
	*inside = *all = 0;
	for (int32_t y = 0; y < OUTPUT_H; y++) {
		for (int32_t x = 0; x < OUTPUT_W; x++) {
			bool is = (pixels[y * OUTPUT_W + x] & 0xffffff) == (rgb & 0xffffff);
			*all += is;
			if (is && x >= w->x + 2 && x < w->x + w->width - 2 &&
					y >= w->y + 2 && y < w->y + w->height - 2) {
				(*inside)++;
			}
		}
	}
}

/* A window of colour argb, WIN_W x WIN_H, mapped. */
static const struct harness_window *map_window(struct harness_vitrail *vitrail,
		struct sc_app *app, uint32_t argb) {
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	ck_assert(sc_app_init(app, "capture-window"));
	ck_assert(sc_app_create_window(app, "capture-window", "Capture", WIN_W,
			WIN_H, argb));
	wl_surface_commit(app->surface);
	ck_assert_int_ge(wl_display_roundtrip(app->display), 0);
	harness_wait_for_window_count(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	const struct harness_window *w =
			harness_find_window(vitrail->conn, "capture-window");
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(w->width, WIN_W);
	ck_assert_int_eq(w->height, WIN_H);
	// inside the output, away from its bottom-right corner
	ck_assert_msg(w->x >= 0 && w->y >= 0 && w->x + WIN_W + 4 <= OUTPUT_W &&
					w->y + WIN_H + 4 <= OUTPUT_H,
			"the window at %d,%d is not inside the output with a margin", w->x,
			w->y);
	return w;
}

/* Capture into buf: the frame stays unanswered while nothing changes;
 * then app's window turns argb (the buffer returned, for the caller to
 * destroy) and the frame is ready. */
static struct sc_buffer *capture_after_recolour(struct capturer *c,
		struct sc_buffer *buf, struct sc_app *app, uint32_t argb) {
	capturer_capture(c, buf->wl_buffer);
	ck_assert_int_ge(wl_display_roundtrip(c->display), 0);
	harness_sleep_ms(100);
	ck_assert_int_ge(wl_display_roundtrip(c->display), 0);
	ck_assert_msg(!c->ready && !c->failed,
			"a second capture was answered while nothing changed");
	struct sc_buffer *next =
			sc_buffer_create(app, WIN_W, WIN_H, WL_SHM_FORMAT_ARGB8888, argb);
	wl_surface_attach(app->surface, next->wl_buffer, 0, 0);
	wl_surface_damage_buffer(app->surface, 0, 0, WIN_W, WIN_H);
	wl_surface_commit(app->surface);
	ck_assert_int_ge(wl_display_roundtrip(app->display), 0);
	capturer_wait(c);
	ck_assert_msg(c->ready, "the second capture failed (reason %u)", c->reason);
	return next;
}

START_TEST(test_capture_output) {
	struct harness *harness = harness_create("capture-output");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "320x240" });
	struct sc_app app = { 0 };
	const struct harness_window *found = map_window(vitrail, &app, RED);
	struct harness_window w = *found;
	harness_settle(vitrail->conn);

	struct capturer c;
	capturer_init(&c, vitrail);
	capturer_start(&c, EXT_IMAGE_COPY_CAPTURE_MANAGER_V1_OPTIONS_PAINT_CURSORS);
	ck_assert_int_eq(c.dones, 1);
	ck_assert(!c.stopped);
	ck_assert_uint_eq(c.width, OUTPUT_W);
	ck_assert_uint_eq(c.height, OUTPUT_H);
	ck_assert(c.xrgb && c.argb);

	// the first frame: at once (nothing changes), whole damage
	struct sc_buffer *buf =
			capture_buffer(&c, OUTPUT_W, OUTPUT_H, WL_SHM_FORMAT_XRGB8888);
	uint64_t before = now_ns();
	capturer_capture(&c, buf->wl_buffer);
	capturer_wait(&c);
	ck_assert_msg(c.ready, "the first capture failed (reason %u)", c.reason);
	ck_assert_int_eq(c.transform, WL_OUTPUT_TRANSFORM_NORMAL);
	ck_assert_msg(pixman_region32_contains_rectangle(&c.damage,
						  &(pixman_box32_t){ 0, 0, OUTPUT_W, OUTPUT_H }) ==
					PIXMAN_REGION_IN,
			"the first frame's damage is not the whole buffer");
	ck_assert_msg(c.presented_ns > 0 && c.presented_ns <= now_ns(),
			"presentation time %llu is not in the past",
			(unsigned long long)c.presented_ns);
	ck_assert_msg(c.presented_ns + 1000000000u >= before,
			"presentation time %llu ms before the capture request",
			(unsigned long long)((before - c.presented_ns) / 1000000u));
	long inside, all;
	count_colour(buf->pixels, RED, &w, &inside, &all);
	long box = (long)(WIN_W - 4) * (WIN_H - 4);
	ck_assert_msg(inside == box, "%ld of the window's %ld pixels are its red",
			inside, box);
	ck_assert_msg(all <= (long)WIN_W * WIN_H,
			"%ld red pixels: more than the window's", all);
	// the background below and right of it is one colour, not the
	// window's
	uint32_t bg =
			buf->pixels[(OUTPUT_H - 1) * OUTPUT_W + OUTPUT_W - 1] & 0xffffff;
	ck_assert_uint_ne(bg, RED & 0xffffff);
	ck_assert_uint_eq(buf->pixels[(OUTPUT_H - 1) * OUTPUT_W] & 0xffffff, bg);
	ck_assert_uint_eq(buf->pixels[OUTPUT_W - 1] & 0xffffff, bg);

	// the next capture waits for new content: the window turns green
	memset(buf->pixels, 0, buf->size);
	struct sc_buffer *green = capture_after_recolour(&c, buf, &app, GREEN);
	ck_assert_msg(pixman_region32_contains_rectangle(&c.damage,
						  &(pixman_box32_t){ w.x, w.y, w.x + WIN_W,
								  w.y + WIN_H }) == PIXMAN_REGION_IN,
			"the second frame's damage does not cover the window");
	ck_assert_msg(!pixman_region32_contains_point(&c.damage, OUTPUT_W - 1,
						  OUTPUT_H - 1, NULL),
			"the second frame's damage reaches the output's corner, far "
			"from the window");
	count_colour(buf->pixels, GREEN, &w, &inside, &all);
	ck_assert_msg(inside == box, "%ld of the window's %ld pixels are green",
			inside, box);

	// only the frame's damage and the client's are written: the window
	// turns red again, the client damages one pixel of the top-right
	// corner, and the far corner keeps what the client left there
	const uint32_t sentinel = 0x00abcdefu;
	for (size_t i = 0; i < buf->size / 4; i++) {
		buf->pixels[i] = sentinel;
	}
	const pixman_box32_t corner = { OUTPUT_W - 1, 0, OUTPUT_W, 1 };
	capturer_capture_damaged(&c, buf->wl_buffer, &corner);
	ck_assert_int_ge(wl_display_roundtrip(c.display), 0);
	wl_surface_attach(app.surface, app.buffer->wl_buffer, 0, 0);
	wl_surface_damage_buffer(app.surface, 0, 0, WIN_W, WIN_H);
	wl_surface_commit(app.surface);
	ck_assert_int_ge(wl_display_roundtrip(app.display), 0);
	capturer_wait(&c);
	ck_assert_msg(c.ready, "the third capture failed (reason %u)", c.reason);
	count_colour(buf->pixels, RED, &w, &inside, &all);
	ck_assert_msg(inside == box, "%ld of the window's %ld pixels are red",
			inside, box);
	ck_assert_uint_eq(buf->pixels[OUTPUT_W - 1] & 0xffffff, bg);
	ck_assert_msg(buf->pixels[(OUTPUT_H - 1) * OUTPUT_W + OUTPUT_W - 1] ==
					sentinel,
			"a pixel neither damaged nor asked for was written");

	// ARGB8888: the same pixels, opaque
	struct capturer c2;
	capturer_init(&c2, vitrail);
	struct sc_buffer *argb =
			capture_buffer(&c2, OUTPUT_W, OUTPUT_H, WL_SHM_FORMAT_ARGB8888);
	capturer_start(&c2, 0);
	capturer_capture(&c2, argb->wl_buffer);
	capturer_wait(&c2);
	ck_assert(c2.ready);
	count_colour(argb->pixels, RED, &w, &inside, &all);
	ck_assert_int_eq(inside, box);
	for (int i = 0; i < OUTPUT_W * OUTPUT_H; i += 97) {
		ck_assert_uint_eq(argb->pixels[i] >> 24, 0xff);
	}

	// a buffer of the wrong size: buffer_constraints
	struct sc_buffer *small =
			capture_buffer(&c2, OUTPUT_W / 2, OUTPUT_H, WL_SHM_FORMAT_XRGB8888);
	capturer_capture(&c2, small->wl_buffer);
	capturer_wait(&c2);
	ck_assert(c2.failed);
	ck_assert_uint_eq(c2.reason,
			EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_BUFFER_CONSTRAINTS);

	// the output goes: stopped, and the frame waiting fails
	capturer_capture(&c, buf->wl_buffer);
	ck_assert_int_ge(wl_display_roundtrip(c.display), 0);
	harness_unplug_output(vitrail->conn, "HEADLESS-1");
	capturer_wait(&c);
	ck_assert(c.failed);
	ck_assert_uint_eq(c.reason,
			EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_STOPPED);
	ck_assert(c.stopped);
	// a new frame of a stopped session fails too
	capturer_capture(&c, buf->wl_buffer);
	capturer_wait(&c);
	ck_assert(c.failed);
	ck_assert_uint_eq(c.reason,
			EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_STOPPED);

	sc_buffer_destroy(small);
	sc_buffer_destroy(argb);
	sc_buffer_destroy(buf);
	capturer_finish(&c2);
	capturer_finish(&c);
	sc_buffer_destroy(green);
	sc_app_finish(&app);
	harness_assert_alive(vitrail->proc);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- toplevel ----------------------------------------------------------- */

#define BLUE 0xff2244ccu

/* Pixels of the w x h buffer equal to rgb. */
static long count_all(const uint32_t *pixels, int32_t w, int32_t h,
		uint32_t rgb) {
	long n = 0;
	for (int32_t i = 0; i < w * h; i++) {
		n += (pixels[i] & 0xffffff) == (rgb & 0xffffff);
	}
	return n;
}

START_TEST(test_capture_toplevel) {
	struct harness *harness = harness_create("capture-toplevel");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "320x240" });
	setenv("WAYLAND_DISPLAY", vitrail->socket, 1);
	// a red window, then a green one over all of the output
	struct sc_app red = { 0 }, green = { 0 };
	ck_assert(sc_app_init(&red, "capture-red"));
	ck_assert(sc_app_create_window(&red, "capture-red", "Red", WIN_W, WIN_H,
			RED));
	wl_surface_commit(red.surface);
	ck_assert_int_ge(wl_display_roundtrip(red.display), 0);
	harness_wait_for_window_count(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	ck_assert(sc_app_init(&green, "capture-green"));
	ck_assert(sc_app_create_window(&green, "capture-green", "Green", OUTPUT_W,
			OUTPUT_H, GREEN));
	wl_surface_commit(green.surface);
	ck_assert_int_ge(wl_display_roundtrip(green.display), 0);
	harness_wait_for_window_count(vitrail->conn, 2, HARNESS_WINDOWS_TIMEOUT_MS);
	harness_settle(vitrail->conn);

	struct capturer c;
	capturer_init(&c, vitrail);
	ck_assert_ptr_nonnull(c.toplevels);
	ck_assert_ptr_nonnull(c.list);
	struct ext_foreign_toplevel_handle_v1 *handle =
			find_handle(&c, "capture-red");
	ck_assert_msg(handle != NULL, "no handle of the red window");
	capturer_start_source(&c, 0,
			ext_foreign_toplevel_image_capture_source_manager_v1_create_source(
					c.toplevels, handle));
	ck_assert_int_eq(c.dones, 1);
	ck_assert(!c.stopped);
	ck_assert_uint_eq(c.width, WIN_W);
	ck_assert_uint_eq(c.height, WIN_H);

	// covered on screen, its own pixels in the capture
	struct sc_buffer *buf =
			capture_buffer(&c, WIN_W, WIN_H, WL_SHM_FORMAT_XRGB8888);
	capturer_capture(&c, buf->wl_buffer);
	capturer_wait(&c);
	ck_assert_msg(c.ready, "the window capture failed (reason %u)", c.reason);
	ck_assert_int_eq(c.transform, WL_OUTPUT_TRANSFORM_NORMAL);
	long n = count_all(buf->pixels, WIN_W, WIN_H, RED);
	ck_assert_msg(n == (long)WIN_W * WIN_H,
			"%ld of the window's %d pixels are its red", n, WIN_W * WIN_H);

	// the next capture comes when it changes
	struct sc_buffer *blue = capture_after_recolour(&c, buf, &red, BLUE);
	n = count_all(buf->pixels, WIN_W, WIN_H, BLUE);
	ck_assert_msg(n == (long)WIN_W * WIN_H,
			"%ld of the window's %d pixels are its blue", n, WIN_W * WIN_H);

	// the window goes: stopped, the frame waiting fails
	capturer_capture(&c, buf->wl_buffer);
	ck_assert_int_ge(wl_display_roundtrip(c.display), 0);
	sc_buffer_destroy(blue);
	sc_app_finish(&red);
	harness_wait_for_window_count(vitrail->conn, 1, HARNESS_WINDOWS_TIMEOUT_MS);
	capturer_wait(&c);
	ck_assert(c.failed);
	ck_assert_uint_eq(c.reason,
			EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_STOPPED);
	ck_assert(c.stopped);

	// a source of its closed handle: a session stopped at once
	ext_image_copy_capture_frame_v1_destroy(c.frame);
	c.frame = NULL;
	ext_image_copy_capture_session_v1_destroy(c.session);
	c.stopped = false;
	c.dones = 0;
	capturer_start_source(&c, 0,
			ext_foreign_toplevel_image_capture_source_manager_v1_create_source(
					c.toplevels, handle));
	ck_assert(c.stopped);
	ck_assert_int_eq(c.dones, 0);

	sc_buffer_destroy(buf);
	capturer_finish(&c);
	sc_app_finish(&green);
	harness_assert_alive(vitrail->proc);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

/* ---- errors ------------------------------------------------------------- */

enum misuse {
	DUPLICATE_FRAME,
	NO_BUFFER,
	INVALID_DAMAGE,
	CAPTURE_TWICE,
	ATTACH_AFTER_CAPTURE,
	INVALID_OPTION,
};

static void misuse(struct harness_vitrail *vitrail, struct sc_app *bystander,
		enum misuse what, const struct wl_interface *interface, uint32_t code) {
	struct capturer c;
	capturer_init(&c, vitrail);
	capturer_start(&c, what == INVALID_OPTION ? 0x6 : 0);
	struct ext_image_copy_capture_frame_v1 *frame = NULL;
	struct sc_buffer *buf = NULL;
	struct wl_buffer *own = NULL;
	if (what != INVALID_OPTION) {
		frame = ext_image_copy_capture_session_v1_create_frame(c.session);
		buf = capture_buffer(&c, OUTPUT_W, OUTPUT_H, WL_SHM_FORMAT_XRGB8888);
		own = buf->wl_buffer;
	}
	c.frame = frame; // capturer_finish destroys it
	struct ext_image_copy_capture_frame_v1 *second = NULL;
	switch (what) {
	case DUPLICATE_FRAME:
		second = ext_image_copy_capture_session_v1_create_frame(c.session);
		break;
	case NO_BUFFER: ext_image_copy_capture_frame_v1_capture(frame); break;
	case INVALID_DAMAGE:
		ext_image_copy_capture_frame_v1_attach_buffer(frame, own);
		ext_image_copy_capture_frame_v1_damage_buffer(frame, -1, 0, 10, 10);
		break;
	case CAPTURE_TWICE:
		ext_image_copy_capture_frame_v1_attach_buffer(frame, own);
		ext_image_copy_capture_frame_v1_capture(frame);
		ext_image_copy_capture_frame_v1_capture(frame);
		break;
	case ATTACH_AFTER_CAPTURE:
		ext_image_copy_capture_frame_v1_attach_buffer(frame, own);
		ext_image_copy_capture_frame_v1_capture(frame);
		ext_image_copy_capture_frame_v1_attach_buffer(frame, own);
		break;
	case INVALID_OPTION: break;
	}
	ck_assert_int_lt(wl_display_roundtrip(c.display), 0);
	const struct wl_interface *got = NULL;
	uint32_t got_code = wl_display_get_protocol_error(c.display, &got, NULL);
	ck_assert_msg(got == interface && got_code == code,
			"misuse %d: error %u on %s, expected %u on %s", (int)what, got_code,
			got != NULL ? got->name : "(none)", code, interface->name);
	if (second != NULL) {
		ext_image_copy_capture_frame_v1_destroy(second);
	}
	sc_buffer_destroy(buf);
	capturer_finish(&c);
	// the bystander is still served
	ck_assert_int_ge(wl_display_roundtrip(bystander->display), 0);
	harness_assert_alive(vitrail->proc);
}

START_TEST(test_capture_errors) {
	struct harness *harness = harness_create("capture-errors");
	struct harness_vitrail *vitrail = harness_start_vitrail(harness,
			&(struct harness_vitrail_options){ .outputs = 1,
					.output_size = "320x240" });
	struct sc_app bystander = { 0 };
	map_window(vitrail, &bystander, RED);
	const struct wl_interface *frame =
			&ext_image_copy_capture_frame_v1_interface;
	misuse(vitrail, &bystander, DUPLICATE_FRAME,
			&ext_image_copy_capture_session_v1_interface,
			EXT_IMAGE_COPY_CAPTURE_SESSION_V1_ERROR_DUPLICATE_FRAME);
	misuse(vitrail, &bystander, NO_BUFFER, frame,
			EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_NO_BUFFER);
	misuse(vitrail, &bystander, INVALID_DAMAGE, frame,
			EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_INVALID_BUFFER_DAMAGE);
	misuse(vitrail, &bystander, CAPTURE_TWICE, frame,
			EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_ALREADY_CAPTURED);
	misuse(vitrail, &bystander, ATTACH_AFTER_CAPTURE, frame,
			EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_ALREADY_CAPTURED);
	misuse(vitrail, &bystander, INVALID_OPTION,
			&ext_image_copy_capture_manager_v1_interface,
			EXT_IMAGE_COPY_CAPTURE_MANAGER_V1_ERROR_INVALID_OPTION);
	// cursor sessions: stopped at once, then duplicate_session
	struct capturer c;
	capturer_init(&c, vitrail);
	ck_assert_ptr_nonnull(c.seat);
	struct wl_pointer *pointer = wl_seat_get_pointer(c.seat);
	struct ext_image_capture_source_v1 *source =
			ext_output_image_capture_source_manager_v1_create_source(c.sources,
					c.output);
	struct ext_image_copy_capture_cursor_session_v1 *cursor =
			ext_image_copy_capture_manager_v1_create_pointer_cursor_session(
					c.manager, source, pointer);
	c.session = ext_image_copy_capture_cursor_session_v1_get_capture_session(
			cursor);
	ext_image_copy_capture_session_v1_add_listener(c.session, &session_listener,
			&c);
	ck_assert_int_ge(wl_display_roundtrip(c.display), 0);
	ck_assert(c.stopped);
	ck_assert_int_eq(c.dones, 0);
	struct ext_image_copy_capture_session_v1 *again =
			ext_image_copy_capture_cursor_session_v1_get_capture_session(
					cursor);
	ck_assert_int_lt(wl_display_roundtrip(c.display), 0);
	const struct wl_interface *got = NULL;
	uint32_t code = wl_display_get_protocol_error(c.display, &got, NULL);
	ck_assert_ptr_eq(got, &ext_image_copy_capture_cursor_session_v1_interface);
	ck_assert_uint_eq(code,
			EXT_IMAGE_COPY_CAPTURE_CURSOR_SESSION_V1_ERROR_DUPLICATE_SESSION);
	ext_image_copy_capture_session_v1_destroy(again);
	ext_image_copy_capture_cursor_session_v1_destroy(cursor);
	ext_image_capture_source_v1_destroy(source);
	wl_pointer_destroy(pointer);
	capturer_finish(&c);
	ck_assert_int_ge(wl_display_roundtrip(bystander.display), 0);
	harness_assert_alive(vitrail->proc);

	sc_app_finish(&bystander);
	harness_stop_vitrail(harness, vitrail);
	harness_destroy(harness);
}
END_TEST

static Suite *capture_suite(void) {
	Suite *suite = suite_create("capture");
	harness_add_case(suite, "output", test_capture_output, 90);
	harness_add_case(suite, "errors", test_capture_errors, 90);
	harness_add_case(suite, "toplevel", test_capture_toplevel, 90);
	return suite;
}

int main(int argc, char *argv[]) {
	return harness_run_suite(capture_suite(), argc, argv);
}
