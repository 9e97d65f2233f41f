/*
 * vitrail_scroll_v1: scroll regions whose extended frames vitrail scrolls
 * itself (see protocol/vitrail-scroll-v1.xml for the client's view, and
 * pacing/scroll.h for the policy: Algorithm 1, the velocity, the client's
 * render time, where and when to ask for frames, the fling).
 *
 * A region's frame is either an image (attach_buffer: the buffer's pixels
 * copied into a vr_image charged to the client's image budget: at once
 * in version 1; in version 2 a frame of VT_COPY_BANDED_BYTES or more is
 * copied in bands, VT_COPY_BAND_NS of the main thread per event-loop
 * turn, as large surface buffers are (surface.c), the wl_buffer held
 * until then and released after; a commit that applies it waits for the
 * last band)
 * drawn by one node, `crop`, under the surface's scroll layer at the
 * region's place, whose source rectangle is the window; or a scene node
 * (attach_node), which the scene moves by the window's offset
 * (vt_scene_node_set_scroll). Moving the window changes that source
 * rectangle or that translation and nothing else: no display list is
 * recorded, no pixel uploaded; the renderer redraws the region from
 * what it holds.
 *
 * Input (scroll_region_input.c: input.c hands it over first) moves the
 * wanted position at once; each output frame samples it at its display
 * time (a fling is a function of it), clamps the window to the frame
 * (counted as an overflow frame when it had to), and plans a request for
 * the next frame.
 */
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-server-core.h>
#include <wayland-server-protocol.h>
#include <wlr/types/wlr_pointer.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/util/log.h>

#include "pacing/pacer.h"
#include "desktop/surface.h"
#include "desktop/view.h"
#include "output/output.h"
#include "pacing/scroll.h"
#include "protocols/scroll_region.h"
#include "protocols/scroll_region_internal.h"
#include "scene/scene.h"
#include "server.h"
#include "util.h"
#include "vitrail-scroll-v1-protocol.h"

#define SCROLL_VERSION 2

/* Limits (documented in the protocol). */
#define REGIONS_PER_SURFACE 16
#define COORD_MAX 16384
#define CONTENT_MAX 10000000
#define FRAME_MAX 16384
/* The client's render time before it answered a request once. */
#define RENDER_FALLBACK_NS 50000000ull
/* Added to every lead: scheduling jitter the history cannot show. */
#define LEAD_MARGIN_NS 2000000ull
/* A request not answered for this long may be made again. */
#define REQUEST_TIMEOUT_NS 1000000000ull

static const struct vitrail_scroll_manager_v1_interface manager_impl;
static const struct vitrail_scroll_region_v1_interface region_impl;

static struct vt_scroll_manager *manager_from_resource(
		struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource,
			&vitrail_scroll_manager_v1_interface, &manager_impl));
	return wl_resource_get_user_data(resource);
}

/* NULL when inert (its surface is gone). */
static struct scroll_region *region_from_resource(
		struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource,
			&vitrail_scroll_region_v1_interface, &region_impl));
	return wl_resource_get_user_data(resource);
}

/* ---- geometry ----------------------------------------------------------- */

/* One axis of the region and its current frame, for the policy. */
struct vt_scroll_span scroll_region_span(const struct scroll_region *region,
		int axis) {
	const struct frame *f = &region->frame;
	bool has = f->kind != FRAME_NONE;
	return (struct vt_scroll_span){
		.region = region->rect[2 + axis],
		.offset = has ? f->offset[axis] : 0,
		.extent = has ? f->size[axis] : 0,
		.content = has ? f->content[axis] : 0,
	};
}

static bool check_rect(struct wl_resource *resource, uint32_t code,
		const char *request, int32_t x, int32_t y, int32_t width,
		int32_t height) {
	if (x < -COORD_MAX || x > COORD_MAX || y < -COORD_MAX || y > COORD_MAX) {
		vt_post_error(resource, code, "%s x, y = %d, %d: not in [-%d, %d]",
				request, x, y, COORD_MAX, COORD_MAX);
		return false;
	}
	if (width < 1 || width > COORD_MAX || height < 1 || height > COORD_MAX) {
		vt_post_error(resource, code,
				"%s %dx%d: width and height must be in "
				"[1, %d]",
				request, width, height, COORD_MAX);
		return false;
	}
	return true;
}

static bool check_content(struct wl_resource *resource, int32_t x, int32_t y,
		int32_t width, int32_t height) {
	if (x < 0 || x > CONTENT_MAX || y < 0 || y > CONTENT_MAX) {
		vt_post_error(resource, VITRAIL_SCROLL_REGION_V1_ERROR_BAD_CONTENT,
				"content offset %d, %d: not in [0, %d]", x, y, CONTENT_MAX);
		return false;
	}
	if (width < 1 || width > CONTENT_MAX || height < 1 ||
			height > CONTENT_MAX) {
		vt_post_error(resource, VITRAIL_SCROLL_REGION_V1_ERROR_BAD_CONTENT,
				"content %dx%d: width and height must be in [1, %d]", width,
				height, CONTENT_MAX);
		return false;
	}
	return true;
}

/* Does the frame fit the region (see the protocol)? false: the error is
 * posted. */
static bool check_frame(struct scroll_region *region, const struct frame *f,
		const int32_t rect[4]) {
	static const char *const names[2] = { "x", "y" };
	for (int i = 0; i < 2; i++) {
		int32_t r = rect[2 + i], size = f->size[i];
		int32_t offset = f->offset[i], content = f->content[i];
		if (!region->scrolls[i]) {
			if (size != r || offset != 0 || content != r) {
				vt_post_error(region->resource,
						VITRAIL_SCROLL_REGION_V1_ERROR_BAD_FRAME,
						"%s does not "
						"scroll: frame %d, offset %d, content %d must be "
						"%d, 0, %d",
						names[i], size, offset, content, r, r);
				return false;
			}
			continue;
		}
		int32_t least = r < content ? r : content;
		int64_t most = (int64_t)floor(VT_SCROLL_N_MAX * r);
		if (size < least || size > most || size > FRAME_MAX) {
			vt_post_error(region->resource,
					VITRAIL_SCROLL_REGION_V1_ERROR_BAD_FRAME,
					"frame %s extent "
					"%d: not in [%d, %" PRId64 "] (region %d, content %d)",
					names[i], size, least, most < FRAME_MAX ? most : FRAME_MAX,
					r, content);
			return false;
		}
		if ((int64_t)offset + size > content) {
			vt_post_error(region->resource,
					VITRAIL_SCROLL_REGION_V1_ERROR_BAD_FRAME,
					"frame %s %d + %d "
					"ends after the content's %d",
					names[i], offset, size, content);
			return false;
		}
	}
	return true;
}

/* ---- frames ------------------------------------------------------------- */

static void handle_node_destroy(struct wl_listener *listener, void *data);
static void handle_pending_node_destroy(struct wl_listener *listener,
		void *data);

/* Let go of a frame: its pixels leave the budget, a node goes back to
 * where its client put it (unless it is being destroyed: gone). */
static void copy_stop(struct frame_copy *copy) {
	struct vt_server *server = copy->region->manager->server;
	wl_event_source_remove(copy->timer);
	if (copy->buffer != NULL) {
		wl_list_remove(&copy->buffer_destroy.link);
		/* vitrail reads it no more */
		wl_buffer_send_release(copy->buffer);
	}
	free(copy);
	server->surface_copies--;
}

static void spare_drop(struct scroll_region *region) {
	vt_client_budget_charge(region->budget, region->spare_bytes, 0, NULL);
	vr_image_unref(region->spare);
	region->spare = NULL;
	region->spare_bytes = 0;
}

/* The spare image when it fits a new frame and is the region's alone (its
 * charge given back), or NULL. The frame's copy writes every pixel before
 * it is shown. */
static struct vr_image *spare_take(struct scroll_region *region, int32_t width,
		int32_t height, enum vr_format format) {
	struct vr_image *image = region->spare;
	if (image == NULL || vr_image_shared(image) ||
			vr_image_width(image) != width ||
			vr_image_height(image) != height ||
			vr_image_format(image) != format) {
		return NULL;
	}
	vt_client_budget_charge(region->budget, region->spare_bytes, 0, NULL);
	region->spare = NULL;
	region->spare_bytes = 0;
	return image;
}

static void frame_release(struct scroll_region *region, struct frame *f,
		struct wl_listener *listener, bool node_alive) {
	if (f->copy != NULL) {
		copy_stop(f->copy);
	}
	if (f->kind == FRAME_BUFFER) {
		if (f == &region->frame && region->crop != NULL) {
			/* the crop's reference: the pixels go now */
			vr_node_clear_content(region->crop);
		}
		/* kept for the next frame (region_finish drops it) */
		spare_drop(region);
		region->spare = f->image;
		region->spare_bytes = f->bytes;
	} else if (f->kind == FRAME_NODE) {
		wl_list_remove(&listener->link);
		/* only the current frame's node was moved (a pending one may
		 * be the same node, still the current frame's) */
		if (node_alive && f == &region->frame) {
			vt_scene_node_set_scroll(f->node, 0.0f, 0.0f);
		}
	}
	memset(f, 0, sizeof(*f));
}

static void handle_node_destroy(struct wl_listener *listener, void *data) {
	struct scroll_region *region =
			wl_container_of(listener, region, node_destroy);
	frame_release(region, &region->frame, &region->node_destroy, false);
	vt_server_schedule_update(region->manager->server);
}

static void handle_pending_node_destroy(struct wl_listener *listener,
		void *data) {
	struct scroll_region *region =
			wl_container_of(listener, region, pending_node_destroy);
	frame_release(region, &region->pending, &region->pending_node_destroy,
			false);
	region->frame_pending = false;
}

/* The position within the current scroll range. */
static void clamp_position(struct scroll_region *region) {
	for (int i = 0; i < 2; i++) {
		struct vt_scroll_span span = scroll_region_span(region, i);
		region->pos[i] = region->scrolls[i] ?
				vt_scroll_clamp(&span, region->pos[i]) :
				0.0;
	}
}

/* Move the window to the wanted position, clamped at the frame's edges:
 * the crop's source rectangle, or the node's scroll. Returns the
 * overflow mask (0: the frame holds the window). */
uint32_t scroll_region_show(struct scroll_region *region) {
	const struct frame *f = &region->frame;
	if (f->kind == FRAME_NONE) {
		if (region->crop != NULL) {
			vr_node_set_enabled(region->crop, false);
		}
		return 0;
	}
	struct vt_scroll_span span[2] = {
		scroll_region_span(region, AXIS_X),
		scroll_region_span(region, AXIS_Y),
	};
	uint32_t mask;
	vt_scroll_decide(span, region->scrolls, region->pos, region->shown, &mask);
	int32_t dx = region->shown[0] - f->offset[0];
	int32_t dy = region->shown[1] - f->offset[1];
	if (f->kind == FRAME_NODE) {
		vr_node_set_enabled(region->crop, false);
		vt_scene_node_set_scroll(f->node, (float)dx, (float)dy);
		return mask;
	}
	/* the window in the frame's pixels: the region, or what the frame
	 * has of it when the content is shorter */
	int32_t w = region->rect[2] < f->size[0] ? region->rect[2] : f->size[0];
	int32_t h = region->rect[3] < f->size[1] ? region->rect[3] : f->size[1];
	struct vr_rectf src = { (float)dx, (float)dy, (float)w, (float)h };
	vr_node_set_image(region->crop, f->image, &src, (float)w, (float)h,
			VR_TRANSFORM_NORMAL);
	vr_node_set_position(region->crop, (float)region->rect[0],
			(float)region->rect[1]);
	vr_node_set_enabled(region->crop, true);
	vt_server_schedule_update(region->manager->server);
	return mask;
}

/* ---- requests ----------------------------------------------------------- */

/* Plan at now, for an output frame shown at display_ns: ask for a new
 * frame when the window, predicted when a frame asked for now can be in
 * use, no longer fits the frame (or there is none yet). */
static void region_plan(struct scroll_region *region, uint64_t now,
		uint64_t display_ns, uint64_t period_ns) {
	struct vt_server *server = region->manager->server;
	uint64_t client_ns =
			vt_scroll_render_time_get(&region->render_time, RENDER_FALLBACK_NS);
	/* frames rendered before the new frame comes show up to that much
	 * later than now (D-VSync renders ahead), plus a refresh */
	uint64_t ahead = display_ns > now ? display_ns - now : 0;
	uint64_t shown_lead = ahead + period_ns + LEAD_MARGIN_NS;
	uint64_t lead = client_ns + shown_lead;
	/* predicted: where the window is when a frame asked for now can be
	 * in use (the old frame must hold it until then); from: where it is
	 * in the first output frame that a new frame could reach if it came
	 * at once, where the new frame starts to serve (a client faster than
	 * predicted must not get a frame that lacks the window) */
	double predicted[2], from[2], to[2], velocity[2];
	bool need = region->frame.kind == FRAME_NONE;
	for (int i = 0; i < 2; i++) {
		struct vt_scroll_span span = scroll_region_span(region, i);
		if (!region->scrolls[i]) {
			predicted[i] = from[i] = to[i] = velocity[i] = 0.0;
			continue;
		}
		if (region->fling[i].active) {
			predicted[i] = vt_fling_position(&region->fling[i], now + lead);
			from[i] = vt_fling_position(&region->fling[i], now + shown_lead);
			velocity[i] = vt_fling_velocity(&region->fling[i], now + lead);
			to[i] = region->fling[i].end_pos;
		} else {
			velocity[i] = vt_scroll_velocity_get(&region->velocity[i],
					vt_scroll_velocity_event_clock(&region->velocity[i], now));
			predicted[i] = vt_scroll_clamp(&span,
					region->pos[i] + velocity[i] * (double)lead / 1e9);
			from[i] = vt_scroll_clamp(&span,
					region->pos[i] + velocity[i] * (double)shown_lead / 1e9);
			to[i] = velocity[i] > 0.0 ? 1e12 :
					velocity[i] < 0.0 ? -1e12 :
										predicted[i];
		}
		if (region->frame.kind != FRAME_NONE &&
				vt_scroll_need_frame(&span, predicted[i])) {
			need = true;
		}
	}
	if (!need) {
		return;
	}
	if (region->requested) {
		/* the frame asked for will do, unless it is long overdue */
		bool covers = true;
		for (int i = 0; i < 2 && region->frame.kind != FRAME_NONE; i++) {
			struct vt_scroll_span span = scroll_region_span(region, i);
			span.offset = region->requested_offset[i];
			span.extent = region->requested_size[i];
			if (region->scrolls[i] &&
					vt_scroll_need_frame(&span, predicted[i])) {
				covers = false;
			}
		}
		if (covers && now - region->requested_at < REQUEST_TIMEOUT_NS) {
			return;
		}
	}
	double n = server->config.scroll_extend;
	for (int i = 0; i < 2; i++) {
		int32_t r = region->rect[2 + i];
		if (!region->scrolls[i]) {
			region->requested_offset[i] = 0;
			region->requested_size[i] = r;
			continue;
		}
		/* a frame the client can attach: at most FRAME_MAX (the
		 * region is at most that) */
		if (region->frame.kind == FRAME_NONE) {
			/* the content is not known yet: its start */
			region->requested_offset[i] = 0;
			region->requested_size[i] =
					vt_scroll_frame_extent(r, FRAME_MAX, n, true);
			continue;
		}
		int32_t content = region->frame.content[i];
		int32_t size = vt_scroll_frame_extent(r,
				content < FRAME_MAX ? content : FRAME_MAX, n, true);
		double margin = vt_scroll_reverse_margin(velocity[i], lead, r, size);
		region->requested_offset[i] = vt_scroll_place_frame(r, size, content,
				region->pos[i], from[i], to[i], margin);
		region->requested_size[i] = size;
	}
	region->requested = true;
	region->requested_at = now;
	region->manager->requests++;
	vitrail_scroll_region_v1_send_frame_needed(region->resource,
			region->requested_offset[0], region->requested_offset[1],
			region->requested_size[0], region->requested_size[1]);
}

/* ---- commit ------------------------------------------------------------- */

static void region_apply(struct scroll_region *region) {
	if (!region->rect_pending && !region->frame_pending &&
			!region->pos_pending) {
		return;
	}
	if (region->frame_pending && region->pending.copy != NULL) {
		/* applied with the copy's last band (copy_handle_timer) */
		region->commit_waiting = true;
		return;
	}
	region->commit_waiting = false;
	int32_t rect[4];
	memcpy(rect, region->rect_pending ? region->pending_rect : region->rect,
			sizeof(rect));
	const struct frame *next =
			region->frame_pending ? &region->pending : &region->frame;
	if (next->kind != FRAME_NONE && !check_frame(region, next, rect)) {
		return;
	}
	memcpy(region->rect, rect, sizeof(rect));
	region->rect_pending = false;
	if (region->frame_pending) {
		frame_release(region, &region->frame, &region->node_destroy, true);
		region->frame = region->pending;
		memset(&region->pending, 0, sizeof(region->pending));
		if (region->frame.kind == FRAME_NODE) {
			wl_list_remove(&region->pending_node_destroy.link);
			vt_scene_node_add_destroy_listener(region->frame.node,
					&region->node_destroy);
		}
		region->frame_pending = false;
		region->frames++;
		region->manager->frames++;
		if (region->requested) {
			uint64_t now = vt_now_ns();
			vt_scroll_render_time_add(&region->render_time,
					now - region->requested_at);
			region->requested = false;
		}
	}
	if (region->pos_pending) {
		for (int i = 0; i < 2; i++) {
			region->fling[i].active = false;
			vt_scroll_velocity_reset(&region->velocity[i]);
			region->pos[i] = region->pending_pos[i];
		}
		region->pos_pending = false;
	}
	clamp_position(region);
	scroll_region_show(region);
	/* a frame samples it soon, and plans the next request */
	vt_server_request_frame(region->manager->server, VT_PACER_RENDER);
}

static void region_handle_surface_commit(struct wl_listener *listener,
		void *data) {
	struct scroll_region *region =
			wl_container_of(listener, region, surface_commit);
	region_apply(region);
}

/* The region goes (its resource, or its surface): it and its frames. */
static void region_finish(struct scroll_region *region) {
	if (region->surface == NULL) {
		return;
	}
	frame_release(region, &region->frame, &region->node_destroy, true);
	frame_release(region, &region->pending, &region->pending_node_destroy,
			true);
	spare_drop(region);
	region->commit_waiting = false;
	vr_node_destroy(region->crop);
	region->crop = NULL;
	wl_list_remove(&region->surface_commit.link);
	wl_list_remove(&region->surface_destroy.link);
	wl_list_remove(&region->link);
	region->surface = NULL;
	vt_server_schedule_update(region->manager->server);
}

static void region_handle_surface_destroy(struct wl_listener *listener,
		void *data) {
	struct scroll_region *region =
			wl_container_of(listener, region, surface_destroy);
	region_finish(region);
	wl_resource_set_user_data(region->resource, NULL);
	vt_client_budget_unref(region->budget);
	free(region);
}

static void region_handle_resource_destroy(struct wl_resource *resource) {
	struct scroll_region *region = wl_resource_get_user_data(resource);
	if (region == NULL) {
		return;
	}
	region_finish(region);
	vt_client_budget_unref(region->budget);
	free(region);
}

/* ---- requests of the region --------------------------------------------- */

static void handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static void region_handle_set_region(struct wl_client *client,
		struct wl_resource *resource, int32_t x, int32_t y, int32_t width,
		int32_t height) {
	struct scroll_region *region = region_from_resource(resource);
	if (!check_rect(resource, VITRAIL_SCROLL_REGION_V1_ERROR_BAD_REGION,
				"set_region", x, y, width, height) ||
			region == NULL) {
		return;
	}
	region->pending_rect[0] = x;
	region->pending_rect[1] = y;
	region->pending_rect[2] = width;
	region->pending_rect[3] = height;
	region->rect_pending = true;
}

/* The pending frame's copy is over (complete, or given up: the frame
 * goes): a commit that waited for it applies now. */
static void copy_over(struct scroll_region *region, bool complete) {
	struct frame_copy *copy = region->pending.copy;
	if (complete) {
		wlr_log(WLR_DEBUG,
				"scroll region %u: a %dx%d frame copied in %u "
				"bands over %.1f ms (main thread %.1f ms)",
				region->id, vr_image_width(region->pending.image), copy->rows,
				copy->bands, (double)(vt_now_ns() - copy->start_ns) / 1e6,
				(double)copy->busy_ns / 1e6);
		region->pending.copy = NULL;
		copy_stop(copy);
	} else {
		frame_release(region, &region->pending, &region->pending_node_destroy,
				true);
		region->frame_pending = false;
	}
	if (region->commit_waiting) {
		region_apply(region);
	}
}

static int copy_handle_timer(void *data) {
	struct frame_copy *copy = data;
	struct scroll_region *region = copy->region;
	struct vt_server *server = region->manager->server;
	struct vr_image *image = region->pending.image;
	assert(region->pending.copy == copy);
	if (vr_image_in_use(image)) {
		wl_event_source_timer_update(copy->timer, 1);
		return 0;
	}
	uint64_t start = vt_now_ns();
	struct wl_shm_buffer *shm = wl_shm_buffer_get(copy->buffer);
	wl_shm_buffer_begin_access(shm);
	/* a pool can be resized (remapped) between bands */
	const uint8_t *pixels = wl_shm_buffer_get_data(shm);
	int32_t stride = wl_shm_buffer_get_stride(shm);
	int32_t width = vr_image_width(image);
	int32_t step = (int32_t)(VT_COPY_STEP_BYTES / ((size_t)width * 4));
	step = step > 0 ? step : 1;
	bool ok = true;
	while (ok && copy->next_row < copy->rows) {
		int32_t y = copy->next_row;
		int32_t n = copy->rows - y < step ? copy->rows - y : step;
		struct vr_box box = { 0, y, width, n };
		ok = vr_image_write_box(image, pixels + (size_t)y * (size_t)stride,
				stride, &box);
		copy->next_row += n;
		if (vt_now_ns() - start >= VT_COPY_BAND_NS) {
			break;
		}
	}
	/* a truncated pool: wl_shm.invalid_fd, the client is cut off and
	 * its region with it */
	wl_shm_buffer_end_access(shm);
	copy->busy_ns += vt_now_ns() - start;
	copy->bands++;
	if (!ok || copy->next_row >= copy->rows) {
		if (!ok) {
			wlr_log(WLR_ERROR, "copying a scroll frame failed");
		}
		copy_over(region, ok);
	} else {
		wl_event_source_timer_update(copy->timer, 1);
	}
	wl_signal_emit(&server->events.check_settled, server);
	return 0;
}

static void copy_handle_buffer_destroy(struct wl_listener *listener,
		void *data) {
	struct frame_copy *copy = wl_container_of(listener, copy, buffer_destroy);
	struct scroll_region *region = copy->region;
	wlr_log(WLR_DEBUG,
			"scroll region %u: wl_buffer destroyed while vitrail "
			"copied it: the frame is dropped",
			region->id);
	wl_list_remove(&copy->buffer_destroy.link);
	copy->buffer = NULL;
	copy_over(region, false);
	wl_signal_emit(&region->manager->server->events.check_settled,
			region->manager->server);
}

/* Start copying the buffer into the image in bands. */
static struct frame_copy *copy_start(struct scroll_region *region,
		struct wl_resource *buffer, int32_t rows) {
	struct vt_server *server = region->manager->server;
	struct frame_copy *copy = calloc(1, sizeof(*copy));
	if (copy == NULL) {
		return NULL;
	}
	copy->timer =
			wl_event_loop_add_timer(wl_display_get_event_loop(server->display),
					copy_handle_timer, copy);
	if (copy->timer == NULL) {
		free(copy);
		return NULL;
	}
	copy->region = region;
	copy->buffer = buffer;
	copy->rows = rows;
	copy->start_ns = vt_now_ns();
	copy->buffer_destroy.notify = copy_handle_buffer_destroy;
	wl_resource_add_destroy_listener(buffer, &copy->buffer_destroy);
	wl_event_source_timer_update(copy->timer, 1);
	server->surface_copies++;
	return copy;
}

/* The pending frame becomes f (its old one let go). */
static void set_pending(struct scroll_region *region, const struct frame *f) {
	frame_release(region, &region->pending, &region->pending_node_destroy,
			true);
	region->pending = *f;
	if (f->kind == FRAME_NODE) {
		vt_scene_node_add_destroy_listener(f->node,
				&region->pending_node_destroy);
	}
	region->frame_pending = true;
}

static void region_handle_attach_buffer(struct wl_client *client,
		struct wl_resource *resource, struct wl_resource *buffer,
		int32_t content_x, int32_t content_y, int32_t content_width,
		int32_t content_height) {
	struct scroll_region *region = region_from_resource(resource);
	uint32_t buffer_id = wl_resource_get_id(buffer);
	struct wl_shm_buffer *shm = wl_shm_buffer_get(buffer);
	if (shm == NULL) {
		vt_post_error(resource, VITRAIL_SCROLL_REGION_V1_ERROR_INVALID_BUFFER,
				"wl_buffer@%u is not a wl_shm buffer", buffer_id);
		return;
	}
	uint32_t format = wl_shm_buffer_get_format(shm);
	if (format != WL_SHM_FORMAT_ARGB8888 && format != WL_SHM_FORMAT_XRGB8888) {
		vt_post_error(resource, VITRAIL_SCROLL_REGION_V1_ERROR_INVALID_BUFFER,
				"wl_buffer@%u has format 0x%08x, not ARGB8888 or XRGB8888",
				buffer_id, format);
		return;
	}
	int32_t width = wl_shm_buffer_get_width(shm);
	int32_t height = wl_shm_buffer_get_height(shm);
	int32_t stride = wl_shm_buffer_get_stride(shm);
	if ((int64_t)stride < (int64_t)width * 4) {
		vt_post_error(resource, VITRAIL_SCROLL_REGION_V1_ERROR_INVALID_BUFFER,
				"wl_buffer@%u stride %d is less than its width %d x 4 bytes",
				buffer_id, stride, width);
		return;
	}
	if (!check_content(resource, content_x, content_y, content_width,
				content_height)) {
		return;
	}
	if (width > FRAME_MAX || height > FRAME_MAX) {
		vt_post_error(resource, VITRAIL_SCROLL_REGION_V1_ERROR_BAD_FRAME,
				"wl_buffer@%u is %dx%d, larger than %dx%d", buffer_id, width,
				height, FRAME_MAX, FRAME_MAX);
		return;
	}
	if (region == NULL) {
		return; /* inert */
	}
	enum vr_format vr_format = format == WL_SHM_FORMAT_XRGB8888 ?
			VR_FORMAT_XRGB8888 :
			VR_FORMAT_ARGB8888;
	struct vr_image *image = spare_take(region, width, height, vr_format);
	/* the pending frame this one replaces gives its bytes back */
	uint64_t bytes = (uint64_t)width * (uint64_t)height * 4;
	uint64_t release =
			region->pending.kind == FRAME_BUFFER ? region->pending.bytes : 0;
	uint64_t total;
	bool charged =
			vt_client_budget_charge(region->budget, release, bytes, &total);
	if (!charged && region->spare != NULL) {
		spare_drop(region);
		charged =
				vt_client_budget_charge(region->budget, release, bytes, &total);
	}
	if (!charged) {
		vr_image_unref(image);
		vt_post_error(resource, VITRAIL_SCROLL_REGION_V1_ERROR_QUOTA_EXCEEDED,
				"wl_buffer@%u %dx%d: images of %" PRIu64 " bytes, over the "
				"budget %llu",
				buffer_id, width, height, total, VT_CLIENT_IMAGE_BYTES);
		return;
	}
	/* charged: give the old pending bytes back through the release below
	 * only once */
	if (region->pending.kind == FRAME_BUFFER) {
		region->pending.bytes = 0;
	}
	if (image == NULL) {
		image = vr_image_create(width, height, vr_format);
	}
	if (image == NULL) {
		vt_client_budget_charge(region->budget, bytes, 0, NULL);
		wl_client_post_no_memory(client);
		return;
	}
	struct frame_copy *copy = NULL;
	bool v2 = wl_resource_get_version(resource) >= 2;
	if (v2 && bytes >= VT_COPY_BANDED_BYTES) {
		copy = copy_start(region, buffer, height);
		if (copy == NULL) {
			vr_image_unref(image);
			vt_client_budget_charge(region->budget, bytes, 0, NULL);
			wl_client_post_no_memory(client);
			return;
		}
	} else {
		wl_shm_buffer_begin_access(shm);
		vr_image_write(image, wl_shm_buffer_get_data(shm), stride, NULL);
		wl_shm_buffer_end_access(shm);
		if (v2) {
			wl_buffer_send_release(buffer);
		}
	}
	struct frame f = {
		.kind = FRAME_BUFFER,
		.image = image,
		.copy = copy,
		.bytes = bytes,
		.size = { width, height },
		.offset = { content_x, content_y },
		.content = { content_width, content_height },
	};
	set_pending(region, &f);
}

static void region_handle_attach_node(struct wl_client *client,
		struct wl_resource *resource, struct wl_resource *node_resource,
		int32_t width, int32_t height, int32_t content_x, int32_t content_y,
		int32_t content_width, int32_t content_height) {
	struct scroll_region *region = region_from_resource(resource);
	if (!check_content(resource, content_x, content_y, content_width,
				content_height)) {
		return;
	}
	if (width < 1 || width > FRAME_MAX || height < 1 || height > FRAME_MAX) {
		vt_post_error(resource, VITRAIL_SCROLL_REGION_V1_ERROR_BAD_FRAME,
				"frame %dx%d: width and height must be in [1, %d]", width,
				height, FRAME_MAX);
		return;
	}
	if (region == NULL) {
		return; /* inert */
	}
	struct vt_scene_node *node = vt_scene_node_from_resource(node_resource);
	if (node == NULL || vt_scene_node_surface(node) != region->surface) {
		vt_post_error(resource, VITRAIL_SCROLL_REGION_V1_ERROR_FOREIGN_NODE,
				"vitrail_scene_node_v1@%u is not a live node of the scene of "
				"this region's wl_surface",
				wl_resource_get_id(node_resource));
		return;
	}
	struct scroll_region *other;
	wl_list_for_each(other, &region->manager->regions, link) {
		if (other != region &&
				(other->frame.node == node || other->pending.node == node)) {
			vt_post_error(resource, VITRAIL_SCROLL_REGION_V1_ERROR_NODE_IN_USE,
					"vitrail_scene_node_v1@%u is moved by another region",
					wl_resource_get_id(node_resource));
			return;
		}
	}
	struct frame f = {
		.kind = FRAME_NODE,
		.node = node,
		.size = { width, height },
		.offset = { content_x, content_y },
		.content = { content_width, content_height },
	};
	set_pending(region, &f);
}

static void region_handle_set_position(struct wl_client *client,
		struct wl_resource *resource, int32_t x, int32_t y) {
	struct scroll_region *region = region_from_resource(resource);
	if (region == NULL) {
		return;
	}
	region->pending_pos[0] = x;
	region->pending_pos[1] = y;
	region->pos_pending = true;
}

static const struct vitrail_scroll_region_v1_interface region_impl = {
	.destroy = handle_destroy,
	.set_region = region_handle_set_region,
	.attach_buffer = region_handle_attach_buffer,
	.attach_node = region_handle_attach_node,
	.set_position = region_handle_set_position,
};

/* ---- manager ------------------------------------------------------------ */

static void manager_handle_get_scroll_region(struct wl_client *client,
		struct wl_resource *resource, uint32_t id,
		struct wl_resource *surface_resource, uint32_t axes, int32_t x,
		int32_t y, int32_t width, int32_t height) {
	struct vt_scroll_manager *manager = manager_from_resource(resource);
	struct wl_resource *region_resource =
			wl_resource_create(client, &vitrail_scroll_region_v1_interface,
					wl_resource_get_version(resource), id);
	if (region_resource == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(region_resource, &region_impl, NULL,
			region_handle_resource_destroy);
	const uint32_t all = VITRAIL_SCROLL_REGION_V1_AXIS_HORIZONTAL |
			VITRAIL_SCROLL_REGION_V1_AXIS_VERTICAL;
	if (axes == 0 || (axes & ~all) != 0) {
		vt_post_error(resource, VITRAIL_SCROLL_MANAGER_V1_ERROR_BAD_AXES,
				"axes = %u: not a non-empty set of horizontal (1) and "
				"vertical (2)",
				axes);
		return;
	}
	if (!check_rect(resource, VITRAIL_SCROLL_MANAGER_V1_ERROR_BAD_REGION,
				"get_scroll_region", x, y, width, height)) {
		return;
	}
	struct wlr_surface *wlr_surface =
			wlr_surface_from_resource(surface_resource);
	int count = 0;
	struct scroll_region *other;
	wl_list_for_each(other, &manager->regions, link) {
		count += other->surface == wlr_surface;
	}
	if (count >= REGIONS_PER_SURFACE) {
		vt_post_error(resource, VITRAIL_SCROLL_MANAGER_V1_ERROR_TOO_MANY,
				"wl_surface@%u already has %d scroll regions",
				wl_resource_get_id(surface_resource), count);
		return;
	}
	struct vt_surface *surface = vt_surface_from_wlr(wlr_surface);
	struct scroll_region *region = calloc(1, sizeof(*region));
	struct vt_client_budget *budget = vt_client_budget_get(client);
	struct vr_node *layer =
			surface != NULL ? vt_surface_scroll_layer(surface) : NULL;
	struct vr_node *crop = vr_node_create(manager->server->tree);
	if (region == NULL || budget == NULL || layer == NULL || crop == NULL) {
		free(region);
		vt_client_budget_unref(budget);
		vr_node_destroy(crop);
		wl_client_post_no_memory(client);
		return;
	}
	region->resource = region_resource;
	region->manager = manager;
	region->surface = wlr_surface;
	region->budget = budget;
	region->id = ++manager->next_id;
	region->scrolls[AXIS_X] = axes & VITRAIL_SCROLL_REGION_V1_AXIS_HORIZONTAL;
	region->scrolls[AXIS_Y] = axes & VITRAIL_SCROLL_REGION_V1_AXIS_VERTICAL;
	region->rect[0] = x;
	region->rect[1] = y;
	region->rect[2] = width;
	region->rect[3] = height;
	region->crop = crop;
	vr_node_set_enabled(crop, false);
	vr_node_set_parent(crop, layer);
	region->node_destroy.notify = handle_node_destroy;
	region->pending_node_destroy.notify = handle_pending_node_destroy;
	region->surface_commit.notify = region_handle_surface_commit;
	wl_signal_add(&wlr_surface->events.commit, &region->surface_commit);
	region->surface_destroy.notify = region_handle_surface_destroy;
	wl_signal_add(&wlr_surface->events.destroy, &region->surface_destroy);
	wl_list_insert(manager->regions.prev, &region->link);
	wl_resource_set_user_data(region_resource, region);
	/* the first frame: at once */
	region_plan(region, vt_now_ns(), 0, 0);
}

static const struct vitrail_scroll_manager_v1_interface manager_impl = {
	.destroy = handle_destroy,
	.get_scroll_region = manager_handle_get_scroll_region,
};

static void manager_bind(struct wl_client *client, void *data, uint32_t version,
		uint32_t id) {
	vt_resource_create(client, &vitrail_scroll_manager_v1_interface, version,
			id, &manager_impl, data, NULL);
}

/* Frames go on while a region flings; asked last, and only when neither
 * queued commits nor animations already keep them going. */
static void handle_busy(struct wl_listener *listener, void *data) {
	struct vt_frame_busy_event *event = data;
	if (!event->animating && !event->queued) {
		event->animating = vt_scroll_flinging(event->server);
	}
}

/* A frame starts: regions on its output take their windows at its
 * display time (a fling is a function of it), after the scene sampled. */
static void handle_sample(struct wl_listener *listener, void *data) {
	struct vt_scroll_manager *manager =
			wl_container_of(listener, manager, sample);
	struct vt_frame_sample_event *event = data;
	vt_scroll_sample(manager->server, event->output, event->display_ns,
			event->period_ns, event->scroll_samples, event->scroll_samples_len);
}

bool vt_scroll_init(struct vt_server *server) {
	struct vt_scroll_manager *manager = calloc(1, sizeof(*manager));
	if (manager == NULL) {
		return false;
	}
	manager->server = server;
	wl_list_init(&manager->regions);
	manager->global = wl_global_create(server->display,
			&vitrail_scroll_manager_v1_interface, SCROLL_VERSION, manager,
			manager_bind);
	if (manager->global == NULL) {
		free(manager);
		return false;
	}
	server->scroll = manager;
	manager->busy.notify = handle_busy;
	wl_signal_add(&server->frame_events.busy, &manager->busy);
	manager->sample.notify = handle_sample;
	wl_signal_add(&server->frame_events.sample, &manager->sample);
	return true;
}

void vt_scroll_finish(struct vt_server *server) {
	struct vt_scroll_manager *manager = server->scroll;
	if (manager == NULL) {
		return;
	}
	/* every client is gone, and with them every region */
	assert(wl_list_empty(&manager->regions));
	wl_list_remove(&manager->busy.link);
	wl_list_remove(&manager->sample.link);
	wl_global_destroy(manager->global);
	free(manager);
	server->scroll = NULL;
}

/* ---- frames of the outputs ---------------------------------------------- */

/* The output a region is shown on: its surface's, or any when it shows
 * nowhere yet (it still plans its first frame). */
static bool region_on_output(struct scroll_region *region,
		struct vt_output *output) {
	struct vt_surface *surface = vt_surface_from_wlr(region->surface);
	struct vt_output *on = surface != NULL ? vt_surface_output(surface) : NULL;
	return on == NULL || on == output;
}

void vt_scroll_sample(struct vt_server *server, struct vt_output *output,
		uint64_t display_ns, uint64_t period_ns, char *log, size_t log_size) {
	size_t used = 0;
	if (log_size > 0) {
		log[0] = '\0';
	}
	struct vt_scroll_manager *manager = server->scroll;
	if (manager == NULL) {
		return;
	}
	uint64_t now = vt_now_ns();
	struct scroll_region *region;
	wl_list_for_each(region, &manager->regions, link) {
		if (!region_on_output(region, output)) {
			continue;
		}
		for (int i = 0; i < 2; i++) {
			if (region->fling[i].active) {
				region->pos[i] =
						vt_fling_position(&region->fling[i], display_ns);
				if (vt_fling_done(&region->fling[i], display_ns)) {
					region->fling[i].active = false;
				}
			}
		}
		clamp_position(region);
		if (region->frame.kind != FRAME_NONE) {
			if (scroll_region_show(region) != 0) {
				manager->overflow_frames++;
			}
			if (!region->sent_known || region->sent[0] != region->shown[0] ||
					region->sent[1] != region->shown[1]) {
				region->sent[0] = region->shown[0];
				region->sent[1] = region->shown[1];
				region->sent_known = true;
				vitrail_scroll_region_v1_send_position(region->resource,
						region->shown[0], region->shown[1],
						(uint32_t)(display_ns >> 32),
						(uint32_t)(display_ns & 0xffffffff));
			}
			char entry[96];
			int n = snprintf(entry, sizeof(entry),
					"%s%u@%d/%d/%.0f/%.0f/%" PRIu64, used > 0 ? ";" : "",
					region->id, region->shown[0], region->shown[1],
					floor(region->pos[0] + 0.5), floor(region->pos[1] + 0.5),
					region->frames);
			if (n > 0 && (size_t)n < sizeof(entry) &&
					used + (size_t)n < log_size) {
				memcpy(log + used, entry, (size_t)n + 1);
				used += (size_t)n;
			}
		}
		region_plan(region, now, display_ns, period_ns);
	}
}

void vt_scroll_print_stats(struct vt_server *server, FILE *f,
		const char *indent) {
	struct vt_scroll_manager *manager = server->scroll;
	if (manager == NULL || manager->next_id == 0) {
		return;
	}
	fprintf(f,
			"%sscroll regions=%u extended_frames=%" PRIu64 " requests=%" PRIu64
			" overflow_frames=%" PRIu64 "\n",
			indent, manager->next_id, manager->frames, manager->requests,
			manager->overflow_frames);
}

bool vt_scroll_flinging(struct vt_server *server) {
	struct vt_scroll_manager *manager = server->scroll;
	if (manager == NULL) {
		return false;
	}
	struct scroll_region *region;
	wl_list_for_each(region, &manager->regions, link) {
		if (region->fling[0].active || region->fling[1].active) {
			return true;
		}
	}
	return false;
}
