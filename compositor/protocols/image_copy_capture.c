/*
 * See image_copy_capture.h.
 *
 * A session follows one output. Its frames are copied from the output
 * buffers the outputs present (frame_events.shown), never from a buffer
 * still being drawn, so a capture never makes the main thread wait for the
 * renderer: a session's first capture asks the output for a whole new
 * frame and is answered when that frame is shown; later ones are answered
 * by the next frame the output shows (the protocol lets them wait for new
 * content), with the damage of every frame shown since the session's last
 * ready. Only what may differ from the buffer's last capture is copied:
 * the damage the client gives (damage_buffer: what changed since that
 * buffer was last captured, the damage events of the frames since) and
 * the damage sent with this frame; a session's first frame, and the
 * first after a new size, copies all of it.
 *
 * Buffers: wl_shm, XRGB8888 or ARGB8888 (opaque), of the output buffer's
 * size; anything else fails with buffer_constraints. The output's pixels
 * are sent as the output buffer holds them, with the output's transform.
 * A window session (a toplevel source) is composed on the main thread
 * from the images vitrail holds of the window's surfaces (the buffers it
 * copied at their commits, subsurfaces and popups included, each scaled
 * to its surface's size), at its window geometry's size: covered or not,
 * on any workspace. Its first capture is answered at once; later ones at
 * the first frame an output shows after one of the window's surfaces
 * committed or moved, with the whole buffer as damage. Content drawn
 * through vitrail's scene protocol is not in it.
 *
 * Cursor sessions are accepted and never enter: vitrail draws the cursor
 * into the output's frames (paint_cursors or not), and their capture
 * sessions stop at once.
 */
#include <stdlib.h>
#include <string.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_surface.h>

#include "desktop/surface.h"
#include "desktop/view.h"
#include "ext-image-copy-capture-v1-protocol.h"
#include "output/output.h"
#include "protocols/image_capture_source.h"
#include "protocols/image_copy_capture.h"
#include "server.h"
#include "util.h"

#define IMAGE_COPY_CAPTURE_VERSION 1

struct capture_manager {
	struct vt_server *server;
	struct wl_list sessions; /* capture_session::link */
	struct wl_listener frame_shown;
	struct wl_listener output_gone;
	struct wl_listener view_unmap;
	struct wl_listener display_destroy;
};

struct capture_frame;

struct capture_session {
	struct capture_manager *manager;
	struct wl_resource *resource;
	struct wl_list link; /* capture_manager::sessions, or its own */
	/* what it captures, one of them; both NULL: stopped */
	struct vt_output *output;
	struct vt_view *view;
	uint64_t view_stamp; /* the window's content as last captured */
	int32_t width, height; /* the constraints sent */
	struct capture_frame *frame; /* the one frame object, or NULL */
	bool captured_once; /* a frame was ready: the next ones may wait */
	/* output pixels changed by the frames shown since the last ready */
	pixman_region32_t damage;
};

struct capture_frame {
	struct wl_resource *resource;
	struct capture_session *session; /* NULL once the session is gone */
	struct wl_resource *buffer;
	struct wl_listener buffer_destroy;
	pixman_region32_t client_damage; /* damage_buffer, buffer pixels */
	bool captured; /* capture was sent */
	bool waiting; /* captured, for the next shown frame */
};

static const struct ext_image_copy_capture_frame_v1_interface frame_impl;
static const struct ext_image_copy_capture_session_v1_interface session_impl;
static void session_source_size(struct capture_session *session, int32_t *width,
		int32_t *height);
static void session_send_constraints(struct capture_session *session);

/* ---- frames ------------------------------------------------------------- */

static void frame_set_buffer(struct capture_frame *frame,
		struct wl_resource *buffer) {
	if (frame->buffer != NULL) {
		wl_list_remove(&frame->buffer_destroy.link);
	}
	frame->buffer = buffer;
	if (buffer != NULL) {
		wl_resource_add_destroy_listener(buffer, &frame->buffer_destroy);
	}
}

static void frame_handle_buffer_destroy(struct wl_listener *listener,
		void *data) {
	struct capture_frame *frame =
			wl_container_of(listener, frame, buffer_destroy);
	wl_list_remove(&frame->buffer_destroy.link);
	frame->buffer = NULL;
}

/* The answer is sent: the frame object takes no more part. */
static void frame_fail(struct capture_frame *frame, uint32_t reason) {
	frame->waiting = false;
	ext_image_copy_capture_frame_v1_send_failed(frame->resource, reason);
}

/* The client's buffer as the session's constraints allow it: its shm
 * buffer, or NULL (failed with buffer_constraints). */
static struct wl_shm_buffer *frame_shm_buffer(struct capture_frame *frame) {
	struct capture_session *session = frame->session;
	struct wl_shm_buffer *shm =
			frame->buffer != NULL ? wl_shm_buffer_get(frame->buffer) : NULL;
	if (shm == NULL) {
		return NULL;
	}
	uint32_t format = wl_shm_buffer_get_format(shm);
	if ((format != WL_SHM_FORMAT_XRGB8888 &&
				format != WL_SHM_FORMAT_ARGB8888) ||
			wl_shm_buffer_get_width(shm) != session->width ||
			wl_shm_buffer_get_height(shm) != session->height ||
			wl_shm_buffer_get_stride(shm) < session->width * 4) {
		return NULL;
	}
	return shm;
}

/* Copy a shown frame's pixels into the frame's buffer and send ready. */
static void frame_copy(struct capture_frame *frame,
		const struct vt_frame_shown_event *shown) {
	struct capture_session *session = frame->session;
	struct wl_shm_buffer *shm = frame_shm_buffer(frame);
	if (shm == NULL || shown->width != session->width ||
			shown->height != session->height) {
		/* the output's size changed since the constraints: they are
		 * sent again by the size listener; this frame fails */
		frame_fail(frame,
				EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_BUFFER_CONSTRAINTS);
		return;
	}
	/* what to write: all of a first frame, else the damage to send and
	 * the client's */
	pixman_region32_t copy;
	pixman_region32_init_rect(&copy, 0, 0, (unsigned)session->width,
			(unsigned)session->height);
	if (session->captured_once) {
		pixman_region32_t wanted;
		pixman_region32_init(&wanted);
		pixman_region32_union(&wanted, &session->damage, &frame->client_damage);
		pixman_region32_intersect(&copy, &copy, &wanted);
		pixman_region32_fini(&wanted);
	}
	bool opaque_alpha = wl_shm_buffer_get_format(shm) == WL_SHM_FORMAT_ARGB8888;
	int32_t stride = wl_shm_buffer_get_stride(shm);
	wl_shm_buffer_begin_access(shm);
	uint8_t *dst = wl_shm_buffer_get_data(shm);
	const uint8_t *src = shown->data;
	int nrects;
	const pixman_box32_t *rects = pixman_region32_rectangles(&copy, &nrects);
	for (int i = 0; i < nrects; i++) {
		const pixman_box32_t *r = &rects[i];
		size_t bytes = (size_t)(r->x2 - r->x1) * 4;
		for (int32_t y = r->y1; y < r->y2; y++) {
			uint32_t *row = (uint32_t *)(dst + (size_t)y * stride) + r->x1;
			memcpy(row, src + (size_t)y * shown->stride + (size_t)r->x1 * 4,
					bytes);
			if (opaque_alpha) {
				for (int32_t x = 0; x < r->x2 - r->x1; x++) {
					row[x] |= 0xff000000u;
				}
			}
		}
	}
	wl_shm_buffer_end_access(shm);
	pixman_region32_fini(&copy);

	struct wlr_output *wlr_output = vt_output_wlr(session->output);
	ext_image_copy_capture_frame_v1_send_transform(frame->resource,
			wlr_output->transform);
	if (!session->captured_once) {
		ext_image_copy_capture_frame_v1_send_damage(frame->resource, 0, 0,
				session->width, session->height);
	} else {
		int n;
		const pixman_box32_t *damage =
				pixman_region32_rectangles(&session->damage, &n);
		for (int i = 0; i < n; i++) {
			ext_image_copy_capture_frame_v1_send_damage(frame->resource,
					damage[i].x1, damage[i].y1, damage[i].x2 - damage[i].x1,
					damage[i].y2 - damage[i].y1);
		}
	}
	uint64_t sec = shown->presented_ns / 1000000000u;
	ext_image_copy_capture_frame_v1_send_presentation_time(frame->resource,
			(uint32_t)(sec >> 32), (uint32_t)sec,
			(uint32_t)(shown->presented_ns % 1000000000u));
	ext_image_copy_capture_frame_v1_send_ready(frame->resource);
	frame->waiting = false;
	session->captured_once = true;
	pixman_region32_clear(&session->damage);
}

/* ---- window frames -------------------------------------------------- */

struct compose {
	pixman_image_t *dst; /* NULL: only the stamp */
	int32_t x, y; /* the window geometry's origin in the main surface */
	uint64_t stamp;
};

static void compose_surface(struct wlr_surface *wlr_surface, int sx, int sy,
		void *data) {
	struct compose *c = data;
	/* what it shows changes with its commits and its place */
	c->stamp = c->stamp * 1000003u + wlr_surface->current.seq;
	c->stamp = c->stamp * 1000003u + (uint32_t)sx * 65599u + (uint32_t)sy;
	struct vt_surface *surface = vt_surface_from_wlr(wlr_surface);
	if (c->dst == NULL || surface == NULL || surface->image == NULL) {
		return;
	}
	struct vr_image *image = surface->image;
	int32_t stride;
	const void *pixels = vr_image_data(image, &stride);
	int32_t iw = vr_image_width(image), ih = vr_image_height(image);
	int32_t w = wlr_surface->current.width, h = wlr_surface->current.height;
	if (pixels == NULL || iw <= 0 || ih <= 0 || w <= 0 || h <= 0) {
		return;
	}
	pixman_image_t *src = pixman_image_create_bits(
			vr_image_format(image) == VR_FORMAT_ARGB8888 ? PIXMAN_a8r8g8b8 :
														   PIXMAN_x8r8g8b8,
			iw, ih, (uint32_t *)pixels, stride);
	if (src == NULL) {
		return;
	}
	if (iw != w || ih != h) {
		/* a buffer scale or a viewport: drawn at the surface's size */
		pixman_transform_t scale;
		pixman_transform_init_scale(&scale,
				pixman_double_to_fixed((double)iw / w),
				pixman_double_to_fixed((double)ih / h));
		pixman_image_set_transform(src, &scale);
		pixman_image_set_filter(src, PIXMAN_FILTER_BILINEAR, NULL, 0);
	}
	pixman_image_composite32(PIXMAN_OP_OVER, src, NULL, c->dst, 0, 0, 0, 0,
			sx - c->x, sy - c->y, w, h);
	pixman_image_unref(src);
}

/* A walk over the window's surfaces from its geometry's origin: the
 * stamp of what it shows (its surfaces' commits and places, its size),
 * composed into dst unless that is NULL. */
static uint64_t view_walk(struct vt_view *view, const struct wlr_box *geo,
		pixman_image_t *dst) {
	struct compose c = { .dst = dst, .x = geo->x, .y = geo->y, .stamp = 1 };
	view->impl->for_each_surface(view, compose_surface, &c);
	return c.stamp * 1000003u + (uint32_t)geo->width * 65599u +
			(uint32_t)geo->height;
}

static uint64_t view_stamp(struct vt_view *view) {
	struct wlr_box geo;
	view->impl->get_geometry(view, &geo);
	return view_walk(view, &geo, NULL);
}

/* Compose the window into the frame's buffer and send ready, or fail
 * when the buffer no longer fits the window's size (new constraints are
 * sent). */
static void frame_compose_view(struct capture_frame *frame,
		uint64_t presented_ns) {
	struct capture_session *session = frame->session;
	int32_t width, height;
	session_source_size(session, &width, &height);
	if (width != session->width || height != session->height) {
		session_send_constraints(session);
		frame_fail(frame,
				EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_BUFFER_CONSTRAINTS);
		return;
	}
	struct wl_shm_buffer *shm = frame_shm_buffer(frame);
	if (shm == NULL) {
		frame_fail(frame,
				EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_BUFFER_CONSTRAINTS);
		return;
	}
	struct vt_view *view = session->view;
	struct wlr_box geo;
	view->impl->get_geometry(view, &geo);
	wl_shm_buffer_begin_access(shm);
	pixman_image_t *dst = pixman_image_create_bits_no_clear(
			wl_shm_buffer_get_format(shm) == WL_SHM_FORMAT_ARGB8888 ?
					PIXMAN_a8r8g8b8 :
					PIXMAN_x8r8g8b8,
			width, height, wl_shm_buffer_get_data(shm),
			wl_shm_buffer_get_stride(shm));
	if (dst == NULL) {
		wl_shm_buffer_end_access(shm);
		frame_fail(frame,
				EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_UNKNOWN);
		return;
	}
	pixman_box32_t all = { 0, 0, width, height };
	pixman_image_fill_boxes(PIXMAN_OP_SRC, dst, &(pixman_color_t){ 0, 0, 0, 0 },
			1, &all);
	session->view_stamp = view_walk(view, &geo, dst);
	pixman_image_unref(dst);
	wl_shm_buffer_end_access(shm);

	ext_image_copy_capture_frame_v1_send_transform(frame->resource,
			WL_OUTPUT_TRANSFORM_NORMAL);
	ext_image_copy_capture_frame_v1_send_damage(frame->resource, 0, 0, width,
			height);
	uint64_t sec = presented_ns / 1000000000u;
	ext_image_copy_capture_frame_v1_send_presentation_time(frame->resource,
			(uint32_t)(sec >> 32), (uint32_t)sec,
			(uint32_t)(presented_ns % 1000000000u));
	ext_image_copy_capture_frame_v1_send_ready(frame->resource);
	frame->waiting = false;
	session->captured_once = true;
}

static void frame_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static void frame_handle_attach_buffer(struct wl_client *client,
		struct wl_resource *resource, struct wl_resource *buffer) {
	struct capture_frame *frame = wl_resource_get_user_data(resource);
	if (frame->captured) {
		vt_post_error(resource,
				EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_ALREADY_CAPTURED,
				"attach_buffer after capture");
		return;
	}
	frame_set_buffer(frame, buffer);
}

static void frame_handle_damage_buffer(struct wl_client *client,
		struct wl_resource *resource, int32_t x, int32_t y, int32_t width,
		int32_t height) {
	struct capture_frame *frame = wl_resource_get_user_data(resource);
	if (frame->captured) {
		vt_post_error(resource,
				EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_ALREADY_CAPTURED,
				"damage_buffer after capture");
		return;
	}
	if (x < 0 || y < 0 || width <= 0 || height <= 0) {
		vt_post_error(resource,
				EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_INVALID_BUFFER_DAMAGE,
				"damage %d,%d %dx%d: negative position or empty", x, y, width,
				height);
		return;
	}
	pixman_region32_union_rect(&frame->client_damage, &frame->client_damage, x,
			y, (unsigned)width, (unsigned)height);
}

static void frame_handle_capture(struct wl_client *client,
		struct wl_resource *resource) {
	struct capture_frame *frame = wl_resource_get_user_data(resource);
	if (frame->captured) {
		vt_post_error(resource,
				EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_ALREADY_CAPTURED,
				"capture sent twice");
		return;
	}
	if (frame->buffer == NULL) {
		vt_post_error(resource, EXT_IMAGE_COPY_CAPTURE_FRAME_V1_ERROR_NO_BUFFER,
				"capture without a buffer attached");
		return;
	}
	frame->captured = true;
	struct capture_session *session = frame->session;
	if (session == NULL || (session->output == NULL && session->view == NULL)) {
		frame_fail(frame,
				EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_STOPPED);
		return;
	}
	if (frame_shm_buffer(frame) == NULL) {
		frame_fail(frame,
				EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_BUFFER_CONSTRAINTS);
		return;
	}
	frame->waiting = true;
	if (session->view != NULL) {
		if (!session->captured_once) {
			frame_compose_view(frame, vt_now_ns());
		}
	} else if (!session->captured_once) {
		/* the first frame may not wait for new content: a whole frame
		 * now, answered when it is shown */
		vt_output_request_full_frame(session->output);
	}
}

static const struct ext_image_copy_capture_frame_v1_interface frame_impl = {
	.destroy = frame_handle_destroy,
	.attach_buffer = frame_handle_attach_buffer,
	.damage_buffer = frame_handle_damage_buffer,
	.capture = frame_handle_capture,
};

static void frame_resource_destroy(struct wl_resource *resource) {
	struct capture_frame *frame = wl_resource_get_user_data(resource);
	if (frame->session != NULL) {
		frame->session->frame = NULL;
	}
	frame_set_buffer(frame, NULL);
	pixman_region32_fini(&frame->client_damage);
	free(frame);
}

/* ---- sessions ----------------------------------------------------------- */

/* The source is gone: a frame waiting fails, no frame succeeds again. */
static void session_stop(struct capture_session *session) {
	if (session->output == NULL && session->view == NULL) {
		return;
	}
	session->output = NULL;
	session->view = NULL;
	if (session->frame != NULL && session->frame->waiting) {
		frame_fail(session->frame,
				EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_STOPPED);
	}
	ext_image_copy_capture_session_v1_send_stopped(session->resource);
}

/* The buffer size of the session's source now. */
static void session_source_size(struct capture_session *session, int32_t *width,
		int32_t *height) {
	if (session->view != NULL) {
		struct wlr_box geo;
		session->view->impl->get_geometry(session->view, &geo);
		*width = geo.width > 0 ? geo.width : 1;
		*height = geo.height > 0 ? geo.height : 1;
	} else {
		struct wlr_output *wlr_output = vt_output_wlr(session->output);
		*width = wlr_output->width;
		*height = wlr_output->height;
	}
}

static void session_send_constraints(struct capture_session *session) {
	session_source_size(session, &session->width, &session->height);
	ext_image_copy_capture_session_v1_send_buffer_size(session->resource,
			(uint32_t)session->width, (uint32_t)session->height);
	ext_image_copy_capture_session_v1_send_shm_format(session->resource,
			WL_SHM_FORMAT_XRGB8888);
	ext_image_copy_capture_session_v1_send_shm_format(session->resource,
			WL_SHM_FORMAT_ARGB8888);
	ext_image_copy_capture_session_v1_send_done(session->resource);
}

static void session_handle_create_frame(struct wl_client *client,
		struct wl_resource *resource, uint32_t id) {
	struct capture_session *session = wl_resource_get_user_data(resource);
	if (session->frame != NULL) {
		vt_post_error(resource,
				EXT_IMAGE_COPY_CAPTURE_SESSION_V1_ERROR_DUPLICATE_FRAME,
				"a frame of this session exists");
		return;
	}
	struct capture_frame *frame = calloc(1, sizeof(*frame));
	if (frame == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	frame->buffer_destroy.notify = frame_handle_buffer_destroy;
	pixman_region32_init(&frame->client_damage);
	frame->resource = vt_resource_create(client,
			&ext_image_copy_capture_frame_v1_interface,
			wl_resource_get_version(resource), id, &frame_impl, frame,
			frame_resource_destroy);
	if (frame->resource == NULL) {
		pixman_region32_fini(&frame->client_damage);
		free(frame);
		return;
	}
	frame->session = session;
	session->frame = frame;
}

static void session_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct ext_image_copy_capture_session_v1_interface session_impl = {
	.create_frame = session_handle_create_frame,
	.destroy = session_handle_destroy,
};

static void session_resource_destroy(struct wl_resource *resource) {
	struct capture_session *session = wl_resource_get_user_data(resource);
	if (session->frame != NULL) {
		/* the frame lives on, inert: its capture fails (stopped) */
		if (session->frame->waiting) {
			frame_fail(session->frame,
					EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_STOPPED);
		}
		session->frame->session = NULL;
	}
	wl_list_remove(&session->link);
	pixman_region32_fini(&session->damage);
	free(session);
}

/* A session of output or view (both NULL: stopped at once). */
static struct capture_session *session_create(struct capture_manager *manager,
		struct wl_client *client, uint32_t version, uint32_t id,
		struct vt_output *output, struct vt_view *view) {
	struct capture_session *session = calloc(1, sizeof(*session));
	if (session == NULL) {
		wl_client_post_no_memory(client);
		return NULL;
	}
	session->resource = vt_resource_create(client,
			&ext_image_copy_capture_session_v1_interface, version, id,
			&session_impl, session, session_resource_destroy);
	if (session->resource == NULL) {
		free(session);
		return NULL;
	}
	session->manager = manager;
	pixman_region32_init(&session->damage);
	wl_list_insert(&manager->sessions, &session->link);
	if (view != NULL && view->mapped) {
		session->view = view;
		session_send_constraints(session);
	} else if (output != NULL && vt_output_enabled(output)) {
		session->output = output;
		session_send_constraints(session);
	} else {
		ext_image_copy_capture_session_v1_send_stopped(session->resource);
	}
	return session;
}

/* ---- cursor sessions ---------------------------------------------------- */

struct cursor_session {
	struct capture_manager *manager;
	bool has_session;
};

static void cursor_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static void cursor_handle_get_capture_session(struct wl_client *client,
		struct wl_resource *resource, uint32_t id) {
	struct cursor_session *cursor = wl_resource_get_user_data(resource);
	if (cursor->has_session) {
		vt_post_error(resource,
				EXT_IMAGE_COPY_CAPTURE_CURSOR_SESSION_V1_ERROR_DUPLICATE_SESSION,
				"get_capture_session sent twice");
		return;
	}
	cursor->has_session = true;
	/* the cursor is part of the output's frames: no cursor image */
	session_create(cursor->manager, client, wl_resource_get_version(resource),
			id, NULL, NULL);
}

static const struct ext_image_copy_capture_cursor_session_v1_interface
		cursor_impl = {
			.destroy = cursor_handle_destroy,
			.get_capture_session = cursor_handle_get_capture_session,
		};

static void cursor_resource_destroy(struct wl_resource *resource) {
	free(wl_resource_get_user_data(resource));
}

/* ---- the manager -------------------------------------------------------- */

static bool options_valid(struct wl_resource *resource, uint32_t options) {
	if ((options &
				~(uint32_t)
						EXT_IMAGE_COPY_CAPTURE_MANAGER_V1_OPTIONS_PAINT_CURSORS) !=
			0) {
		vt_post_error(resource,
				EXT_IMAGE_COPY_CAPTURE_MANAGER_V1_ERROR_INVALID_OPTION,
				"options 0x%x: unknown flags", options);
		return false;
	}
	return true;
}

static void manager_handle_create_session(struct wl_client *client,
		struct wl_resource *resource, uint32_t id, struct wl_resource *source,
		uint32_t options) {
	struct capture_manager *manager = wl_resource_get_user_data(resource);
	if (!options_valid(resource, options)) {
		return;
	}
	/* paint_cursors: the cursor is in the frames either way */
	session_create(manager, client, wl_resource_get_version(resource), id,
			vt_image_capture_source_output(source),
			vt_image_capture_source_view(source));
}

static void manager_handle_create_pointer_cursor_session(
		struct wl_client *client, struct wl_resource *resource, uint32_t id,
		struct wl_resource *source, struct wl_resource *pointer) {
	struct capture_manager *manager = wl_resource_get_user_data(resource);
	struct cursor_session *cursor = calloc(1, sizeof(*cursor));
	if (cursor == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	cursor->manager = manager;
	if (vt_resource_create(client,
				&ext_image_copy_capture_cursor_session_v1_interface,
				wl_resource_get_version(resource), id, &cursor_impl, cursor,
				cursor_resource_destroy) == NULL) {
		free(cursor);
	}
}

static void manager_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct ext_image_copy_capture_manager_v1_interface manager_impl = {
	.create_session = manager_handle_create_session,
	.create_pointer_cursor_session =
			manager_handle_create_pointer_cursor_session,
	.destroy = manager_handle_destroy,
};

static void manager_bind(struct wl_client *client, void *data, uint32_t version,
		uint32_t id) {
	vt_resource_create(client, &ext_image_copy_capture_manager_v1_interface,
			version, id, &manager_impl, data, NULL);
}

/* An output showed a frame: its sessions gather its damage, and a frame
 * waiting is copied from it. */
static void handle_frame_shown(struct wl_listener *listener, void *data) {
	struct capture_manager *manager =
			wl_container_of(listener, manager, frame_shown);
	struct vt_frame_shown_event *shown = data;
	struct capture_session *session;
	wl_list_for_each(session, &manager->sessions, link) {
		if (session->view != NULL) {
			struct capture_frame *frame = session->frame;
			if (frame != NULL && frame->waiting &&
					view_stamp(session->view) != session->view_stamp) {
				frame_compose_view(frame, shown->presented_ns);
			}
			continue;
		}
		if (session->output != shown->output || shown->data == NULL) {
			continue;
		}
		struct wlr_output *wlr_output = vt_output_wlr(session->output);
		if (wlr_output->width != session->width ||
				wlr_output->height != session->height) {
			/* a new mode: new constraints, a new first frame */
			session_send_constraints(session);
			session->captured_once = false;
			pixman_region32_clear(&session->damage);
		}
		if (shown->damage != NULL) {
			pixman_region32_union(&session->damage, &session->damage,
					shown->damage);
		} else {
			pixman_region32_union_rect(&session->damage, &session->damage, 0, 0,
					(unsigned)session->width, (unsigned)session->height);
		}
		struct capture_frame *frame = session->frame;
		if (frame != NULL && frame->waiting) {
			frame_copy(frame, shown);
		}
	}
}

static void handle_output_gone(struct wl_listener *listener, void *data) {
	struct capture_manager *manager =
			wl_container_of(listener, manager, output_gone);
	struct vt_output_change_event *event = data;
	struct capture_session *session;
	wl_list_for_each(session, &manager->sessions, link) {
		if (session->output == event->output) {
			session_stop(session);
		}
	}
}

static void handle_view_unmap(struct wl_listener *listener, void *data) {
	struct capture_manager *manager =
			wl_container_of(listener, manager, view_unmap);
	struct capture_session *session;
	wl_list_for_each(session, &manager->sessions, link) {
		if (session->view == data) {
			session_stop(session);
		}
	}
}

static void handle_display_destroy(struct wl_listener *listener, void *data) {
	struct capture_manager *manager =
			wl_container_of(listener, manager, display_destroy);
	/* the clients' resources are gone (their sessions left the list) */
	wl_list_remove(&manager->frame_shown.link);
	wl_list_remove(&manager->output_gone.link);
	wl_list_remove(&manager->view_unmap.link);
	wl_list_remove(&manager->display_destroy.link);
	free(manager);
}

bool vt_image_copy_capture_init(struct vt_server *server) {
	struct capture_manager *manager = calloc(1, sizeof(*manager));
	if (manager == NULL) {
		return false;
	}
	if (wl_global_create(server->display,
				&ext_image_copy_capture_manager_v1_interface,
				IMAGE_COPY_CAPTURE_VERSION, manager, manager_bind) == NULL) {
		free(manager);
		return false;
	}
	manager->server = server;
	wl_list_init(&manager->sessions);
	manager->frame_shown.notify = handle_frame_shown;
	wl_signal_add(&server->frame_events.shown, &manager->frame_shown);
	manager->output_gone.notify = handle_output_gone;
	wl_signal_add(&server->events.output_gone, &manager->output_gone);
	manager->view_unmap.notify = handle_view_unmap;
	wl_signal_add(&server->events.view_unmap, &manager->view_unmap);
	manager->display_destroy.notify = handle_display_destroy;
	wl_display_add_destroy_listener(server->display, &manager->display_destroy);
	return true;
}
