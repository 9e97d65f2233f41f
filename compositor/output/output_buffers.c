/*
 * Outputs' buffers: the swapchain of output buffers, their damage history,
 * and the damage and frame requests of each output.
 */
#include <assert.h>
#include <drm_fourcc.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <wlr/backend/drm.h>
#include <wlr/backend/headless.h>
#include <wlr/backend/x11.h>
#include <wlr/interfaces/wlr_output.h>
#include <wlr/render/allocator.h>
#include <wlr/render/drm_format_set.h>
#include <wlr/render/pixman.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/util/log.h>

#include "desktop/surface.h"
#include "output/output.h"
#include "output/output_dmabuf.h"
#include "pacing/pacer.h"
#include "server.h"
#include "util.h"

#include "output/output_internal.h"

/* ---- output buffers ----------------------------------------------------- */

static void buffer_destroy(struct output_buffer *buffer) {
	if (buffer->output->front == buffer) {
		buffer->output->front = NULL;
	}
	if (buffer->output->latest == buffer) {
		buffer->output->latest = NULL;
	}
	wl_list_remove(&buffer->link);
	wl_list_remove(&buffer->release.link);
	vr_changes_fini(&buffer->changes);
	/* the engine keeps its objects until the frames that write into it
	 * complete; the memory stays mapped as long as the wlr_buffer
	 * lives, and frames are waited for before that */
	vr_engine_buffer_destroy(buffer->pixels);
	if (buffer->data != NULL) {
		wlr_buffer_end_data_ptr_access(buffer->wlr_buffer);
	}
	wlr_buffer_drop(buffer->wlr_buffer);
	free(buffer);
}

/*
 * D-VSync: the frames to come are predictable while nothing but animations
 * changes the screen: animations are running (sampled at each frame's
 * display time), no input came and no client drew a frame of its own in
 * the last PREDICTABLE_QUIET periods. Anything else is drawn in step with
 * the display (the dvsync policy falls back to vsync).
 */
#define PREDICTABLE_QUIET 2

void output_update_predictable(struct vt_output *output, uint64_t now) {
	struct vt_server *server = output->server;
	uint64_t quiet = PREDICTABLE_QUIET * output->period_ns;
	/* frame timing (queued commits, the horizon), the scene, the scroll
	 * regions answer, in that order */
	struct vt_frame_busy_event busy = {
		.server = server,
		.horizon = UINT64_MAX,
	};
	wl_signal_emit(&server->frame_events.busy, &busy);
	bool predictable = (busy.animating || busy.queued) &&
			now - server->last_input_ns > quiet &&
			now - server->last_client_frame_ns > quiet;
	vt_pacer_set_predictable(output->pacer, predictable);
	vt_pacer_set_horizon(output->pacer, busy.horizon);
}

void output_handle_run_pacers(struct wl_listener *listener, void *data) {
	struct vt_server *server =
			wl_container_of(listener, server, outputs_run_pacers);
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		if (!output->pacer_run_pending) {
			continue;
		}
		output->pacer_run_pending = false;
		if (output->pacer != NULL && vt_output_enabled(output)) {
			uint64_t now = vt_now_ns();
			output_update_predictable(output, now);
			vt_pacer_request(output->pacer, 0, now);
		}
	}
}

void vt_server_update(struct vt_server *server) {
	if (server->update_idle != NULL) {
		wl_event_source_remove(server->update_idle);
		server->update_idle = NULL;
	}
	pixman_region32_t damage;
	pixman_region32_init(&damage);
	/* pixels that only moved come back as moves (shift-and-expose) */
	struct vr_move moves[VR_MOVES_MAX];
	size_t nmoves =
			vr_tree_update_moves(server->tree, &damage, moves, VR_MOVES_MAX);
	server->nodes_updated += (uint32_t)vr_tree_last_update_count(server->tree);
	if (pixman_region32_not_empty(&damage) || nmoves > 0) {
		vt_outputs_add_changes(server, &damage, moves, nmoves);
	}
	pixman_region32_fini(&damage);
}

void output_handle_update(struct wl_listener *listener, void *data) {
	struct vt_server *server =
			wl_container_of(listener, server, outputs_update);
	vt_server_update(server);
}

void output_update_target(struct vt_output *output) {
	int w = output->wlr_output->width, h = output->wlr_output->height;
	struct vr_engine_output *dest = output->dest;
	if (dest != NULL && vr_engine_output_width(dest) == w &&
			vr_engine_output_height(dest) == h) {
		return;
	}
	vr_engine_output_destroy(dest);
	output->dest = NULL;
	output->latest = NULL;
	if (output->server->engine != NULL && w > 0 && h > 0) {
		output->dest = vr_engine_output_create(output->server->engine, w, h);
		if (output->dest == NULL) {
			wlr_log(WLR_ERROR, "%s: cannot create a %dx%d destination",
					output->wlr_output->name, w, h);
		}
	}
	output_damage_whole(output);
}

void output_buffer_attach_engine(struct output_buffer *buffer) {
	struct vt_output *output = buffer->output;
	vr_engine_buffer_destroy(buffer->pixels);
	buffer->pixels = NULL;
	if (buffer->data == NULL || output->server->engine == NULL) {
		return;
	}
	int fd;
	uint32_t offset;
	if (buffer->dmabuf &&
			vt_output_dmabuf_plane(buffer->wlr_buffer, &fd, &offset)) {
		/* on the device; the host engines draw through the mapping */
		buffer->pixels = vr_engine_buffer_create_dmabuf(output->server->engine,
				fd, offset, buffer->data, buffer->wlr_buffer->width,
				buffer->wlr_buffer->height, (int32_t)buffer->stride);
	} else {
		/* the synchronous pipeline copies every frame out (its
		 * baseline) */
		buffer->pixels = vr_engine_buffer_create(output->server->engine,
				buffer->data, buffer->wlr_buffer->width,
				buffer->wlr_buffer->height, (int32_t)buffer->stride,
				output->server->opts.pipeline == VT_PIPELINE_ASYNC);
	}
	if (buffer->pixels == NULL) {
		wlr_log(WLR_ERROR, "%s: the engine cannot draw into an output buffer",
				output->wlr_output->name);
	}
}

/* The output wants something: the pacer runs now (and may render), or,
 * while pacers are deferred (vt_outputs_defer_pacers), hears of it now
 * and runs once the event loop is idle. */
void output_request(struct vt_output *output, uint32_t wants) {
	/* a disabled (or powered off) output draws nothing until it is
	 * enabled again */
	if (output->pacer == NULL || !vt_output_enabled(output)) {
		return;
	}
	uint64_t now = vt_now_ns();
	output_update_predictable(output, now);
	if (output->server->pacers_deferred && !output->destroying) {
		vt_pacer_want(output->pacer, wants);
		output->pacer_run_pending = true;
		return;
	}
	vt_pacer_request(output->pacer, wants, now);
}

int vt_output_display_slots(struct vt_output *output, uint64_t now,
		uint64_t after, struct vt_display_slot *slots, int n) {
	if (output->pacer == NULL) {
		return 0;
	}
	uint64_t display[8], deadline[8];
	n = n < 8 ? n : 8;
	n = vt_pacer_display_slots(output->pacer, now, after, display, deadline, n);
	uint64_t period = vt_clock_period(vt_pacer_clock(output->pacer));
	for (int i = 0; i < n; i++) {
		slots[i] = (struct vt_display_slot){
			.display_ns = display[i],
			.deadline_ns = deadline[i],
			.refresh_ns = period,
		};
	}
	return n;
}

struct vt_output *vt_surface_output(struct vt_surface *surface) {
	/* bounds are those of nodes that draw: its buffer's, else its scene
	 * content's */
	struct vr_box box;
	if (!vr_node_get_bounds(surface->content, &box) &&
			(surface->scene == NULL ||
					!vr_node_get_bounds(surface->scene, &box))) {
		return NULL;
	}
	return vt_output_at(surface->server, box.x + box.width / 2.0,
			box.y + box.height / 2.0);
}

void vt_outputs_input(struct vt_server *server) {
	uint64_t now = vt_now_ns();
	server->last_input_ns = now;
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		if (output->pacer != NULL && output->policy == &vt_policy_dvsync &&
				vt_pacer_queued(output->pacer) > 1) {
			/* what was rendered ahead does not know of it */
			output_update_predictable(output, now);
			vt_pacer_discard_ahead(output->pacer, now);
		}
	}
}

static void buffer_handle_release(struct wl_listener *listener, void *data) {
	struct output_buffer *buffer = wl_container_of(listener, buffer, release);
	buffer->busy = false;
	/* a frame may have waited for a free buffer */
	if (pixman_region32_not_empty(&buffer->output->pending.damage)) {
		output_request(buffer->output, VT_PACER_RENDER);
	}
}

static const struct wlr_drm_format *output_buffer_format(void) {
	/* XRGB8888 is what every backend's primary plane takes; the
	 * modifier list only matters to allocators that use it. */
	static struct {
		struct wlr_drm_format format;
		uint64_t modifiers[2];
	} storage = {
		.format = { .format = DRM_FORMAT_XRGB8888, .len = 2, .capacity = 2 },
		.modifiers = { DRM_FORMAT_MOD_INVALID, DRM_FORMAT_MOD_LINEAR },
	};
	return &storage.format;
}

/* Until the engine that draws the frame is done with it (before its
 * buffer goes back or away, and before a screenshot reads it). */
void output_wait_frame(struct vt_output *output, struct output_frame *frame) {
	struct vt_server *server = output->server;
	if (frame->render_id == 0) {
		return;
	}
	if (server->engine != NULL) {
		vr_engine_wait(server->engine, frame->render_id, UINT64_MAX);
	}
}

/* Every frame of the output still being drawn (buffers going away,
 * screenshots; never on the frame path). */
void output_wait_renderer(struct vt_output *output) {
	struct output_frame *frame;
	wl_list_for_each(frame, &output->frames, link) {
		output_wait_frame(output, frame);
	}
}

void output_drop_buffers(struct vt_output *output, bool all) {
	struct output_buffer *buffer, *tmp;
	wl_list_for_each_safe(buffer, tmp, &output->buffers, link) {
		if (all || !buffer->busy) {
			buffer_destroy(buffer);
		}
	}
}

void output_refuse_dmabufs(struct vt_output *output, const char *why) {
	if (output->dmabufs_refused || output->server->output_dmabufs == NULL) {
		return;
	}
	output->dmabufs_refused = true;
	wlr_log(WLR_INFO, "%s: output buffers: host memory from now on (%s)",
			output->wlr_output->name, why);
	output_drop_buffers(output, false);
}

/* An output buffer on the device where there may be one, else from
 * wlroots' allocator. */
static struct wlr_buffer *buffer_allocate(struct vt_output *output, int width,
		int height) {
	struct vt_server *server = output->server;
	if (server->output_dmabufs != NULL && !output->dmabufs_refused &&
			server->engine != NULL &&
			vr_engine_imports_dmabuf(server->engine)) {
		struct wlr_buffer *wlr_buffer = vt_output_dmabufs_allocate(
				server->output_dmabufs, width, height);
		if (wlr_buffer != NULL) {
			return wlr_buffer;
		}
		output_refuse_dmabufs(output, "allocation failed");
	}
	return wlr_allocator_create_buffer(server->allocator, width, height,
			output_buffer_format());
}

static struct output_buffer *buffer_create(struct vt_output *output, int width,
		int height) {
	struct wlr_buffer *wlr_buffer = buffer_allocate(output, width, height);
	if (wlr_buffer == NULL) {
		wlr_log(WLR_ERROR, "%s: cannot allocate a %dx%d output buffer",
				output->wlr_output->name, width, height);
		return NULL;
	}
	struct output_buffer *buffer = calloc(1, sizeof(*buffer));
	if (buffer == NULL) {
		wlr_buffer_drop(wlr_buffer);
		return NULL;
	}
	buffer->output = output;
	buffer->wlr_buffer = wlr_buffer;
	int fd;
	uint32_t offset;
	buffer->dmabuf = vt_output_dmabuf_plane(wlr_buffer, &fd, &offset);
	vr_changes_init(&buffer->changes);
	vr_changes_damage_all(&buffer->changes,
			&(struct vr_box){ 0, 0, width, height });
	buffer->release.notify = buffer_handle_release;
	wl_signal_add(&wlr_buffer->events.release, &buffer->release);
	wl_list_insert(output->buffers.prev, &buffer->link);
	/* Its memory stays mapped as long as the buffer lives (shm and dumb
	 * buffers are mapped once): import it as the renderer's
	 * destination. */
	uint32_t format;
	if (!wlr_buffer_begin_data_ptr_access(wlr_buffer,
				WLR_BUFFER_DATA_PTR_ACCESS_WRITE, &buffer->data, &format,
				&buffer->stride)) {
		buffer->data = NULL;
		wlr_log(WLR_ERROR, "%s: output buffer is not CPU-accessible",
				output->wlr_output->name);
		return buffer;
	}
	output_buffer_attach_engine(buffer);
	if (buffer->dmabuf &&
			(buffer->pixels == NULL ||
					!vr_engine_buffer_on_device(buffer->pixels))) {
		/* the device did not import it: a host buffer instead */
		buffer_destroy(buffer);
		output_refuse_dmabufs(output, "the engine did not import one");
		return buffer_create(output, width, height);
	}
	return buffer;
}

/* Free buffers beyond OUTPUT_BUFFERS_KEEP: unused for a while, or all
 * (idle: the output rendered nothing for OUTPUT_BUFFER_IDLE_MS). */
static void output_trim_buffers(struct vt_output *output, bool idle) {
	int count = wl_list_length(&output->buffers);
	if (count > output->buffers_max) {
		output->buffers_max = count;
	}
	struct output_buffer *b, *tmp;
	wl_list_for_each_safe(b, tmp, &output->buffers, link) {
		if (count <= OUTPUT_BUFFERS_KEEP) {
			break;
		}
		if (!b->busy &&
				(idle ||
						b->last_used + OUTPUT_BUFFER_IDLE_FRAMES <
								output->frame_seq)) {
			buffer_destroy(b);
			count--;
		}
	}
}

int output_handle_trim_timer(void *data) {
	struct vt_output *output = data;
	output_trim_buffers(output, true);
	return 0;
}

/* A free output buffer of the output's size; NULL when all are busy. */
struct output_buffer *output_acquire_buffer(struct vt_output *output) {
	int width = output->wlr_output->width;
	int height = output->wlr_output->height;
	if (width != output->buffer_width || height != output->buffer_height) {
		output_drop_buffers(output, false);
		output->buffer_width = width;
		output->buffer_height = height;
	}
	int count = 0;
	struct output_buffer *buffer;
	struct output_buffer *tmp;
	wl_list_for_each_safe(buffer, tmp, &output->buffers, link) {
		if (!buffer->busy && buffer->dmabuf && output->dmabufs_refused) {
			buffer_destroy(buffer);
			continue;
		}
		count++;
		if (!buffer->busy && buffer->wlr_buffer->width == width &&
				buffer->wlr_buffer->height == height) {
			goto found;
		}
	}
	if (count >= OUTPUT_BUFFERS_MAX) {
		return NULL;
	}
	buffer = buffer_create(output, width, height);
	if (buffer == NULL) {
		return NULL;
	}
found:
	buffer->busy = true;
	buffer->last_used = output->frame_seq;
	wlr_buffer_lock(buffer->wlr_buffer);
	/* the queue shrank back (D-VSync stopped rendering ahead): free
	 * what it grew, now or once the output idles */
	output_trim_buffers(output, false);
	if (output->trim_timer != NULL) {
		wl_event_source_timer_update(output->trim_timer, OUTPUT_BUFFER_IDLE_MS);
	}
	return buffer;
}

/* ---- damage and requests ------------------------------------------------ */

/* A move of layout pixels as one of the output's target pixels: where
 * the view only translates by whole pixels (a scaled or turned output
 * redraws the box instead), clipped to the output. False: nothing of it
 * to move here. */
static bool output_map_move(struct vt_output *output,
		const struct vr_move *layout, struct vr_move *out) {
	struct vr_mat view = vt_output_view(output);
	if (!vr_mat_is_integer_translation(&view)) {
		return false;
	}
	struct vr_box box = {
		layout->box.x + (int32_t)lroundf(view.tx),
		layout->box.y + (int32_t)lroundf(view.ty),
		layout->box.width,
		layout->box.height,
	};
	int32_t x1 = box.x < 0 ? 0 : box.x;
	int32_t y1 = box.y < 0 ? 0 : box.y;
	int32_t x2 = box.x + box.width;
	int32_t y2 = box.y + box.height;
	x2 = x2 > output->wlr_output->width ? output->wlr_output->width : x2;
	y2 = y2 > output->wlr_output->height ? output->wlr_output->height : y2;
	*out = (struct vr_move){
		.box = { x1, y1, x2 - x1, y2 - y1 },
		.dx = layout->dx,
		.dy = layout->dy,
	};
	return abs(out->dx) < out->box.width && abs(out->dy) < out->box.height;
}

void vt_outputs_add_changes(struct vt_server *server,
		const pixman_region32_t *layout_damage, const struct vr_move *moves,
		size_t nmoves) {
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		if (!vt_output_enabled(output)) {
			continue; /* all of it is drawn when enabled */
		}
		/* one move per output's pending changes (the first that lands
		 * on it); the others' boxes are redrawn */
		pixman_region32_t mapped, boxes;
		pixman_region32_init(&mapped);
		pixman_region32_init(&boxes);
		output_map_region(output, layout_damage, &mapped);
		struct vr_move move;
		bool moved = false;
		for (size_t i = 0; i < nmoves; i++) {
			struct vr_move m;
			if (!moved && output_map_move(output, &moves[i], &m)) {
				move = m;
				moved = true;
			} else {
				const struct vr_box *b = &moves[i].box;
				pixman_region32_union_rect(&boxes, &boxes, b->x, b->y,
						(unsigned)b->width, (unsigned)b->height);
			}
		}
		output_map_region(output, &boxes, &mapped);
		if (moved || pixman_region32_not_empty(&mapped)) {
			vr_changes_compose(&output->pending, moved ? &move : NULL, &mapped);
			output_request(output, VT_PACER_RENDER);
		}
		pixman_region32_fini(&boxes);
		pixman_region32_fini(&mapped);
	}
}

void vt_output_request_full_frame(struct vt_output *output) {
	output_damage_whole(output);
}

void output_damage_whole(struct vt_output *output) {
	vr_changes_damage_all(&output->pending,
			&(struct vr_box){ 0, 0, output->wlr_output->width,
					output->wlr_output->height });
	output_request(output, VT_PACER_RENDER);
}

void vt_server_request_frame(struct vt_server *server, uint32_t wants) {
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		output_request(output, wants);
	}
}
