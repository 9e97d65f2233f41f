/*
 * Outputs: wlroots glue for the pacing module (pacing/pacer.h).
 *
 * Each output has a persistent render target (the renderer redraws only
 * damaged pixels of it), a small swapchain of output buffers from the
 * wlr_allocator, and a pacer that decides when to render a frame and for
 * which display time, and when to commit it. This file does what the
 * pacer asks:
 * - render: sample animations at the frame's display time, update the
 *   tree, submit the damage to the renderer, which copies the redrawn
 *   pixels (plus whatever the buffer missed since it was last written)
 *   into the output buffer on the GPU: the buffer's memory is imported
 *   into Vulkan, so the pixels are written once (no CPU copy);
 * - the renderer's completion fd tells when a frame is ready;
 * - commit: attach that very buffer to the wlr_output;
 * - present events (page flips, the parent compositor's presentation
 *   feedback, or on headless outputs vitrail's own vblank model) close a
 *   frame: wp_presentation feedback for the surfaces it showed, statistics,
 *   the frame log.
 * Frame callbacks go out at vblanks (the pacer says when).
 *
 * The clock of a headless output is vitrail's vblank model, ticked by a
 * timerfd with nanosecond deadlines (wlroots' headless timer has
 * millisecond resolution and drifts); other backends' frame and present
 * events drive and calibrate theirs.
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
#include <wlr/types/wlr_presentation_time.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/util/log.h>

#include "desktop/layer_shell.h"
#include "desktop/session_lock.h"
#include "desktop/surface.h"
#include "desktop/view.h"
#include "output/frame_log.h"
#include "output/output.h"
#include "output/output_management.h"
#include "pacing/pacer.h"
#include "protocols/frame_timing.h"
#include "protocols/presentation_paths.h"
#include "protocols/scroll_region.h"
#include "scene/scene.h"
#include "server.h"
#include "testing/test_control.h"
#include "util.h"

/* Output buffers per output: enough for the frames a pacer may hold
 * (rendering, ready, committed) plus the one on screen. */
#define OUTPUT_BUFFERS_MAX 6
/* Kept however idle: what the vsync path cycles through. Buffers beyond
 * (D-VSync's queue) go once unused for OUTPUT_BUFFER_IDLE_FRAMES frames,
 * or once the output rendered nothing for OUTPUT_BUFFER_IDLE_MS. */
#define OUTPUT_BUFFERS_KEEP 3
#define OUTPUT_BUFFER_IDLE_FRAMES 120
#define OUTPUT_BUFFER_IDLE_MS 2000
/* Damage of the last commits, for the buffer age of wlroots' swapchain
 * (the fallback commit path). */
#define DAMAGE_HISTORY 4

struct output_buffer {
	struct vt_output *output;
	struct wlr_buffer *wlr_buffer;
	struct vr_dst_buffer *dst; /* its memory, imported; NULL: CPU copy */
	/* its memory as the CPU engine's destination (NULL: not mapped) */
	pixman_image_t *image;
	void *data;
	size_t stride;
	struct wl_list link; /* vt_output::buffers */
	/* What this buffer lacks of the latest frame: pixels moved and
	 * changed since it was last written (shift-and-expose) */
	struct vr_changes changes;
	bool busy; /* locked by a frame, or held by the backend */
	uint64_t last_used; /* vt_output::frame_seq when last written */
	struct wl_listener release;
};

/* A wp_presentation feedback a frame answers, and the commit it is for:
 * its surface (NULL once destroyed) and that surface's content_commits
 * then. */
struct drawn_feedback {
	struct wlr_presentation_feedback *feedback;
	struct vt_surface *surface;
	uint32_t content;
};

/* One frame, from the render call until it was shown or dropped. */
struct output_frame {
	struct vt_output *output;
	struct wl_list link; /* vt_output::frames */
	struct output_buffer *buffer; /* locked until the frame ends */
	uint64_t render_id; /* the renderer's frame; 0: none pending */
	bool ready;
	bool failed; /* its pixels were lost with the device: never shown */
	/* Test protocol slow_frames: ready no earlier than this, as if
	 * rendering took that long (the main thread is not blocked). */
	uint64_t ready_not_before_ns;
	bool finished; /* rendered, waiting for ready_not_before_ns */
	bool committed;
	uint32_t commit_seq; /* wlr_output commit_seq once committed */
	pixman_region32_t damage; /* output pixels changed by this frame */
	pixman_region32_t cpu_copy; /* to copy from the mirror when ready */
	/* the session lock's epoch its tree showed (0: unlocked) */
	uint64_t lock_epoch;
	struct wl_array feedbacks; /* struct drawn_feedback */
	struct wl_list timing_feedbacks; /* vitrail_commit_feedback_v1s */
	struct vt_frame_record record;
	char scene_samples[VT_SCENE_SAMPLES_LEN];
	char scroll_samples[VT_SCROLL_SAMPLES_LEN];
};

struct vt_output {
	struct vt_server *server;
	struct wlr_output *wlr_output;
	struct wl_list link; /* vt_server::outputs */

	/* The output's current frame: the Vulkan renderer's target; without
	 * one (the CPU engine, or the reference renderer on the main thread)
	 * every frame is drawn into its output buffer itself, and `latest`
	 * is the buffer of the newest frame drawn (soft_w x soft_h). */
	struct vr_target *target;
	bool soft;
	int soft_w, soft_h;
	struct output_buffer *latest;
	struct wlr_box layout_box; /* where arrange_outputs put it */
	/* what layer surfaces' exclusive zones leave of it, in layout
	 * coordinates (layer_shell.c); until set: all of it */
	struct wlr_box usable;
	bool usable_set;
	int workspace; /* the one shown (view.c), 1..VT_WORKSPACES */
	/* a position in the layout set through output management (else
	 * arrange_outputs puts it right of the others) */
	bool manual_position;
	int manual_x, manual_y;
	bool enabled; /* as handle_commit last saw it */
	/* the newest session lock epoch a presented frame of it showed */
	uint64_t lock_epoch_shown;
	/* the order outputs came in: 0 for those there at the start */
	int created;
	/* disabled by vitrail alone: the backend cannot disable it (wlroots
	 * 0.15's headless outputs), so it stays enabled there but is out of
	 * the layout and draws nothing */
	bool soft_disabled;
	/* what the target lacks of the tree: target pixels moved and not
	 * drawn yet */
	struct vr_changes pending;
	struct wl_list buffers; /* output_buffer::link */
	int buffer_width, buffer_height;
	struct output_buffer *front; /* last committed */
	struct wl_list frames; /* output_frame::link, oldest first */
	uint64_t frame_seq;

	struct vt_pacer *pacer;
	const struct vt_pacing_policy *policy;
	/* position-aware rendering: the frame being rendered by
	 * vt_output_tear draws only this (output pixels) */
	bool tearing;
	pixman_region32_t tear_region;
	struct vt_surface *tear_surface;
	bool model_clock;
	uint64_t period_ns;
	int timer_fd;
	struct wl_event_source *timer_source;
	struct wl_event_source *slow_timer; /* frames slowed by the test
		protocol: when the next one is due */
	bool sending_present; /* our own present event is being emitted */
	bool destroying; /* in handle_destroy */
	bool pacer_run_pending; /* asked for something: run at the idle */
	struct wl_event_source *redraw_idle; /* a whole redraw, once idle */
	/* wp_presentation feedbacks of frames never shown, for the next
	 * frame rendered */
	struct wl_array orphan_feedbacks;
	struct wl_event_source *trim_timer; /* free extra buffers when idle */
	int buffers_max; /* the most output buffers at once */
	/* wlroots' swapchain (the fallback commit path): buffer age */
	pixman_region32_t damage_history[DAMAGE_HISTORY];
	int damage_idx;
	/* every commit since the damage history began went through the
	 * swapchain (otherwise buffer ages say nothing about our frames) */
	bool swapchain_history;

	struct {
		uint64_t frames, replaced; /* dropped: vt_pacer_missed */
		uint64_t main_ns_total;
		uint64_t *main_ns; /* per frame, for percentiles */
		size_t main_ns_len, main_ns_cap;
	} stats;

	struct wl_listener frame;
	struct wl_listener present;
	struct wl_listener destroy;
	struct wl_listener mode;
	struct wl_listener commit;
	struct wl_listener needs_frame;
};

static const struct vt_pacer_impl pacer_impl;

static struct wlr_box output_box(struct vt_output *output) {
	struct wlr_box *box = wlr_output_layout_get_box(output->server->layout,
		output->wlr_output);
	return box != NULL ? *box : (struct wlr_box){ 0 };
}

/*
 * Layout coordinates to output buffer pixels: the output's box in the
 * layout, scaled (its logical size times scale is the buffer's size,
 * turned for 90 and 270), then turned into the buffer as wl_output's
 * transform says (wlroots' convention: transform 90 draws the content
 * turned 90 degrees counter-clockwise, so the layout's top-left corner
 * lands at the buffer's bottom-left). In the turned space, of tw x th
 * pixels, a point (x, y) goes to (u, v) = (a x + c y + tx, b x + d y + ty).
 */
struct vr_mat vt_output_view(struct vt_output *output) {
	struct wlr_output *wlr_output = output->wlr_output;
	struct wlr_box box = output_box(output);
	float scale = wlr_output->scale;
	bool turned = wlr_output->transform % 2 == 1;
	float tw = turned ? wlr_output->height : wlr_output->width;
	float th = turned ? wlr_output->width : wlr_output->height;
	struct vr_mat to_scaled = {
		.a = scale,
		.d = scale,
		.tx = -box.x * scale,
		.ty = -box.y * scale,
	};
	struct vr_mat turn;
	switch (wlr_output->transform) {
	case WL_OUTPUT_TRANSFORM_NORMAL:
	default:
		turn = (struct vr_mat){ .a = 1, .d = 1 };
		break;
	case WL_OUTPUT_TRANSFORM_90:
		turn = (struct vr_mat){ .c = 1, .b = -1, .ty = tw };
		break;
	case WL_OUTPUT_TRANSFORM_180:
		turn = (struct vr_mat){ .a = -1, .tx = tw, .d = -1, .ty = th };
		break;
	case WL_OUTPUT_TRANSFORM_270:
		turn = (struct vr_mat){ .c = -1, .tx = th, .b = 1 };
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED:
		turn = (struct vr_mat){ .a = -1, .tx = tw, .d = 1 };
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_90:
		turn = (struct vr_mat){ .c = 1, .b = 1 };
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_180:
		turn = (struct vr_mat){ .a = 1, .d = -1, .ty = th };
		break;
	case WL_OUTPUT_TRANSFORM_FLIPPED_270:
		turn = (struct vr_mat){ .c = -1, .tx = th, .b = -1, .ty = tw };
		break;
	}
	struct vr_mat view;
	vr_mat_multiply(&view, &turn, &to_scaled);
	return view;
}

struct vr_mat vt_output_upright_view(struct vt_output *output, int *width,
		int *height) {
	struct wlr_output *wlr_output = output->wlr_output;
	struct wlr_box box = output_box(output);
	float scale = wlr_output->scale;
	bool turned = wlr_output->transform % 2 == 1;
	*width = turned ? wlr_output->height : wlr_output->width;
	*height = turned ? wlr_output->width : wlr_output->height;
	return (struct vr_mat){
		.a = scale,
		.d = scale,
		.tx = -box.x * scale,
		.ty = -box.y * scale,
	};
}

/* A region in layout coordinates to the output buffer pixels it covers
 * (every pixel it touches, clipped to the buffer), added to out. */
static void output_map_region(struct vt_output *output,
		const pixman_region32_t *layout, pixman_region32_t *out) {
	struct vr_mat view = vt_output_view(output);
	int w = output->wlr_output->width, h = output->wlr_output->height;
	int nrects;
	const pixman_box32_t *rects =
		pixman_region32_rectangles((pixman_region32_t *)layout, &nrects);
	for (int i = 0; i < nrects; i++) {
		struct vr_rectf r = { rects[i].x1, rects[i].y1,
			rects[i].x2 - rects[i].x1, rects[i].y2 - rects[i].y1 };
		struct vr_box b = vr_mat_map_rect_bounds(&view, &r);
		int x1 = b.x < 0 ? 0 : b.x, y1 = b.y < 0 ? 0 : b.y;
		int x2 = b.x + b.width > w ? w : b.x + b.width;
		int y2 = b.y + b.height > h ? h : b.y + b.height;
		if (x1 < x2 && y1 < y2) {
			pixman_region32_union_rect(out, out, x1, y1, x2 - x1,
				y2 - y1);
		}
	}
}

struct vt_output *vt_output_at(struct vt_server *server, double lx,
		double ly) {
	struct wlr_output *wlr_output =
		wlr_output_layout_output_at(server->layout, lx, ly);
	return wlr_output != NULL ? wlr_output->data : NULL;
}

struct vt_output *vt_output_next(struct vt_server *server,
		struct vt_output *output) {
	struct wl_list *next = output != NULL ? output->link.next :
		server->outputs.next;
	for (; next != &server->outputs; next = next->next) {
		struct vt_output *o = wl_container_of(next, o, link);
		if (vt_output_enabled(o)) {
			return o;
		}
	}
	return NULL;
}

struct vt_output *vt_output_next_any(struct vt_server *server,
		struct vt_output *output) {
	struct wl_list *next = output != NULL ? output->link.next :
		server->outputs.next;
	if (next == &server->outputs) {
		return NULL;
	}
	return wl_container_of(next, output, link);
}

struct wlr_box vt_output_last_box(struct vt_output *output) {
	return output->layout_box;
}

void vt_output_set_position(struct vt_output *output, bool manual, int x,
		int y) {
	output->manual_position = manual;
	output->manual_x = x;
	output->manual_y = y;
}

int vt_output_created(struct vt_output *output) {
	return output->created;
}

struct wlr_output *vt_output_wlr(struct vt_output *output) {
	return output->wlr_output;
}

struct wlr_box vt_output_usable_box(struct vt_output *output) {
	return output->usable_set ? output->usable : output_box(output);
}

int vt_output_workspace(struct vt_output *output) {
	return output->workspace;
}

void vt_output_set_workspace(struct vt_output *output, int workspace) {
	output->workspace = workspace;
}

void vt_output_set_usable_box(struct vt_output *output,
		const struct wlr_box *box) {
	output->usable = *box;
	output->usable_set = true;
}

struct vt_output *vt_output_by_name(struct vt_server *server,
		const char *name) {
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		if (strcmp(output->wlr_output->name, name) == 0) {
			return output;
		}
	}
	return NULL;
}

/* ---- output buffers ----------------------------------------------------- */

static void buffer_destroy(struct output_buffer *buffer) {
	if (buffer->output->front == buffer) {
		buffer->output->front = NULL;
	}
	if (buffer->output->latest == buffer) {
		buffer->output->latest = NULL;
	}
	if (buffer->image != NULL) {
		pixman_image_unref(buffer->image);
	}
	wl_list_remove(&buffer->link);
	wl_list_remove(&buffer->release.link);
	vr_changes_fini(&buffer->changes);
	/* the renderer keeps its Vulkan objects until the frames that write
	 * into it complete; the memory stays mapped as long as the
	 * wlr_buffer lives, and frames are waited for before that */
	vr_dst_buffer_destroy(buffer->dst);
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

static void output_update_predictable(struct vt_output *output,
		uint64_t now) {
	struct vt_server *server = output->server;
	uint64_t quiet = PREDICTABLE_QUIET * output->period_ns;
	uint64_t horizon;
	bool queued = vt_frame_timing_queue_state(server, &horizon);
	bool predictable = (vt_scene_animating(server) || queued ||
			vt_scroll_flinging(server)) &&
		now - server->last_input_ns > quiet &&
		now - server->last_client_frame_ns > quiet;
	vt_pacer_set_predictable(output->pacer, predictable);
	vt_pacer_set_horizon(output->pacer, horizon);
}

static void handle_pacer_idle(void *data) {
	struct vt_server *server = data;
	server->pacer_idle = NULL;
	server->pacers_deferred = false;
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

void vt_outputs_defer_pacers(struct vt_server *server) {
	if (server->loop == NULL) {
		return;
	}
	server->pacers_deferred = true;
	if (server->pacer_idle == NULL) {
		server->pacer_idle = wl_event_loop_add_idle(server->loop,
			handle_pacer_idle, server);
	}
}

/* The output wants something: the pacer runs now (and may render), or,
 * while pacers are deferred (vt_outputs_defer_pacers), hears of it now
 * and runs once the event loop is idle. */
static void output_request(struct vt_output *output, uint32_t wants) {
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
	n = vt_pacer_display_slots(output->pacer, now, after, display, deadline,
		n);
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
static void output_wait_frame(struct vt_output *output,
		struct output_frame *frame) {
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
static void output_wait_renderer(struct vt_output *output) {
	struct output_frame *frame;
	wl_list_for_each(frame, &output->frames, link) {
		output_wait_frame(output, frame);
	}
}

static void output_drop_buffers(struct vt_output *output, bool all) {
	struct output_buffer *buffer, *tmp;
	wl_list_for_each_safe(buffer, tmp, &output->buffers, link) {
		if (all || !buffer->busy) {
			buffer_destroy(buffer);
		}
	}
}

static struct output_buffer *buffer_create(struct vt_output *output,
		int width, int height) {
	struct wlr_buffer *wlr_buffer = wlr_allocator_create_buffer(
		output->server->allocator, width, height, output_buffer_format());
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
	/* the CPU engine draws into the buffer itself */
	buffer->image = pixman_image_create_bits_no_clear(PIXMAN_x8r8g8b8,
		width, height, buffer->data, (int)buffer->stride);
	if (output->server->opts.pipeline == VT_PIPELINE_ASYNC &&
			output->server->renderer != NULL) {
		buffer->dst = vr_dst_buffer_import(output->server->renderer,
			buffer->data, buffer->stride * (size_t)height, width, height,
			(int32_t)buffer->stride);
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
		if (!b->busy && (idle || b->last_used + OUTPUT_BUFFER_IDLE_FRAMES <
				output->frame_seq)) {
			buffer_destroy(b);
			count--;
		}
	}
}

static int handle_trim_timer(void *data) {
	struct vt_output *output = data;
	output_trim_buffers(output, true);
	return 0;
}

/* A free output buffer of the output's size; NULL when all are busy. */
static struct output_buffer *output_acquire_buffer(struct vt_output *output) {
	int width = output->wlr_output->width;
	int height = output->wlr_output->height;
	if (width != output->buffer_width || height != output->buffer_height) {
		output_drop_buffers(output, false);
		output->buffer_width = width;
		output->buffer_height = height;
	}
	int count = 0;
	struct output_buffer *buffer;
	wl_list_for_each(buffer, &output->buffers, link) {
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
		wl_event_source_timer_update(output->trim_timer,
			OUTPUT_BUFFER_IDLE_MS);
	}
	return buffer;
}

/* ---- damage and requests ------------------------------------------------ */

static uint64_t region_area(const pixman_region32_t *region) {
	int n;
	const pixman_box32_t *b = pixman_region32_rectangles(
		(pixman_region32_t *)region, &n);
	uint64_t area = 0;
	for (int i = 0; i < n; i++) {
		area += (uint64_t)(b[i].x2 - b[i].x1) * (uint64_t)(b[i].y2 - b[i].y1);
	}
	return area;
}

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
		layout->box.width, layout->box.height,
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
			vr_changes_compose(&output->pending, moved ? &move : NULL,
				&mapped);
			output_request(output, VT_PACER_RENDER);
		}
		pixman_region32_fini(&boxes);
		pixman_region32_fini(&mapped);
	}
}

static void output_damage_whole(struct vt_output *output) {
	vr_changes_damage_all(&output->pending, &(struct vr_box){ 0, 0,
		output->wlr_output->width, output->wlr_output->height });
	output_request(output, VT_PACER_RENDER);
}

void vt_server_request_frame(struct vt_server *server, uint32_t wants) {
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		output_request(output, wants);
	}
}

/* ---- frames ------------------------------------------------------------- */

/* The frame ends: shown, replaced or dropped. Discarded feedback tells
 * the clients their content was not presented. */
static void handle_redraw_idle(void *data) {
	struct vt_output *output = data;
	output->redraw_idle = NULL;
	output_damage_whole(output);
}

/* Move the presentation feedbacks of `from` to `to`, the array of a
 * frame rendered at render_ns (0: not yet rendered). One whose surface
 * is gone, or made a newer commit with new content before that render
 * (the frame shows that one), is discarded instead. */
static void feedbacks_move(struct wl_array *to, struct wl_array *from,
		uint64_t render_ns) {
	struct drawn_feedback *entry;
	wl_array_for_each(entry, from) {
		struct vt_surface *surface = entry->surface;
		bool replaced = surface == NULL ||
			(surface->content_commits != entry->content &&
			(render_ns == 0 || surface->content_ns <= render_ns));
		struct drawn_feedback *slot = replaced ? NULL :
			wl_array_add(to, sizeof(*slot));
		if (slot != NULL) {
			*slot = *entry;
		} else {
			wlr_presentation_feedback_destroy(entry->feedback);
		}
	}
	wl_array_release(from);
	wl_array_init(from);
}

void vt_outputs_surface_destroyed(struct vt_server *server,
		struct vt_surface *surface) {
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		struct drawn_feedback *entry;
		struct output_frame *frame;
		wl_list_for_each(frame, &output->frames, link) {
			wl_array_for_each(entry, &frame->feedbacks) {
				if (entry->surface == surface) {
					entry->surface = NULL;
				}
			}
		}
		wl_array_for_each(entry, &output->orphan_feedbacks) {
			if (entry->surface == surface) {
				entry->surface = NULL;
			}
		}
	}
}

static void frame_destroy(struct output_frame *frame) {
	struct vt_output *output = frame->output;
	if (frame->feedbacks.size > 0 && !output->destroying) {
		/* Never shown (replaced, stale or failed): the commits it
		 * drew are shown by a later frame (it drew the target later),
		 * or by the next one rendered (a whole redraw follows below).
		 * wp_presentation reports the frame that did show them. */
		if (frame->link.next != &output->frames) {
			struct output_frame *later =
				wl_container_of(frame->link.next, later, link);
			feedbacks_move(&later->feedbacks, &frame->feedbacks,
				later->record.render_start_ns);
		} else {
			feedbacks_move(&output->orphan_feedbacks, &frame->feedbacks, 0);
			if (output->redraw_idle == NULL) {
				output->redraw_idle = wl_event_loop_add_idle(
					output->server->loop, handle_redraw_idle, output);
			}
		}
	}
	struct drawn_feedback *entry;
	wl_array_for_each(entry, &frame->feedbacks) {
		wlr_presentation_feedback_destroy(entry->feedback);
	}
	wl_array_release(&frame->feedbacks);
	if (!wl_list_empty(&frame->timing_feedbacks)) {
		/* never shown: a later frame (it drew the tree later) shows
		 * those commits; without one, a new frame must */
		struct wl_list *next = NULL;
		uint64_t next_render_ns = 0;
		if (frame->link.next != &output->frames) {
			struct output_frame *later =
				wl_container_of(frame->link.next, later, link);
			next = &later->timing_feedbacks;
			next_render_ns = later->record.render_start_ns;
		}
		if (!vt_frame_timing_frame_dropped(&frame->timing_feedbacks, next,
				next_render_ns) &&
				!output->destroying && output->redraw_idle == NULL) {
			/* not now: frames are destroyed from inside the pacer */
			output->redraw_idle = wl_event_loop_add_idle(
				output->server->loop, handle_redraw_idle, output);
		}
	}
	if (frame->buffer != NULL) {
		wlr_buffer_unlock(frame->buffer->wlr_buffer);
	}
	pixman_region32_fini(&frame->damage);
	pixman_region32_fini(&frame->cpu_copy);
	wl_list_remove(&frame->link);
	free(frame);
}

struct drawn_surfaces {
	struct vt_output *output;
	struct vt_surface *only; /* a torn frame shows this one alone */
	struct output_frame *frame; /* sample presentation feedback into */
	bool frame_done; /* send frame callbacks */
	bool held; /* some callbacks wait for a frame that draws them */
	struct timespec now;
};

/* The frame draws surface: the oldest input its commits answer, if older
 * than what the frame has (frame log). */
static void frame_take_input(struct output_frame *frame,
		struct vt_surface *surface) {
	uint64_t input_ns = vt_surface_take_input(surface);
	if (input_ns != 0 && (frame->record.input_ns == 0 ||
			input_ns < frame->record.input_ns)) {
		frame->record.input_ns = input_ns;
	}
}

static void drawn_surface_iter(struct vr_node *node, void *data) {
	struct drawn_surfaces *drawn = data;
	struct vt_surface *surface = vr_node_user_data(node);
	if (surface == NULL || (drawn->only != NULL && surface != drawn->only)) {
		return;
	}
	if (drawn->frame != NULL) {
		if (surface->unsampled) {
			vt_paths_surface_drawn(surface);
		}
		surface->unsampled = false;
		frame_take_input(drawn->frame, surface);
		vt_frame_timing_sampled(surface, &drawn->frame->timing_feedbacks);
		struct wlr_presentation_feedback *feedback =
			wlr_presentation_surface_sampled(
				drawn->output->server->presentation, surface->wlr_surface);
		if (feedback != NULL) {
			struct drawn_feedback *slot = wl_array_add(
				&drawn->frame->feedbacks, sizeof(*slot));
			if (slot != NULL) {
				*slot = (struct drawn_feedback){
					.feedback = feedback,
					.surface = surface,
					.content = surface->content_commits,
				};
			} else {
				wlr_presentation_feedback_destroy(feedback);
			}
		}
	}
	if (drawn->frame_done && surface->unsampled) {
		/* Its new content is in no frame yet (it came after this
		 * vblank's frame started): a callback now would let it draw
		 * again over a commit never shown. It gets one at the vblank
		 * after the frame that draws it. */
		drawn->held = true;
	} else if (drawn->frame_done && vt_paths_vblank_callback(surface)) {
		wlr_surface_send_frame_done(surface->wlr_surface, &drawn->now);
	}
}

/* One pass over the surfaces drawn on the output. */
static void output_for_each_drawn(struct vt_output *output,
		struct drawn_surfaces *drawn) {
	struct wlr_box box = output_box(output);
	struct vr_box area = { box.x, box.y, box.width, box.height };
	vr_tree_for_each_drawn(output->server->tree, &area, drawn_surface_iter,
		drawn);
}

/* Copy region (output pixels; NULL: all) of the output's current frame
 * into data (the output's size, stride bytes per row). */
static void output_read(struct vt_output *output,
		const pixman_region32_t *region, void *data, int32_t stride) {
	if (output->target != NULL) {
		vr_target_read(output->target, region, data, stride);
		return;
	}
	/* the newest frame drawn, complete (frames in flight waited for) */
	output_wait_renderer(output);
	struct output_buffer *latest = output->latest;
	if (!wl_list_empty(&output->frames)) {
		/* drawn, though not yet seen completed by the event loop */
		struct output_frame *newest =
			wl_container_of(output->frames.prev, newest, link);
		if (!newest->failed) {
			latest = newest->buffer;
		}
	}
	if (!output->soft || latest == NULL || latest->image == NULL) {
		return;
	}
	int w = pixman_image_get_width(latest->image);
	int h = pixman_image_get_height(latest->image);
	pixman_image_t *dst = pixman_image_create_bits_no_clear(
		PIXMAN_a8r8g8b8, w, h, data, stride);
	if (dst == NULL) {
		return;
	}
	if (region != NULL) {
		pixman_image_set_clip_region32(dst, (pixman_region32_t *)region);
	}
	/* x8r8g8b8 read as opaque */
	pixman_image_composite32(PIXMAN_OP_SRC, latest->image, NULL, dst,
		0, 0, 0, 0, 0, 0, w, h);
	pixman_image_unref(dst);
}

static void frame_cpu_copy(struct output_frame *frame) {
	struct output_buffer *buffer = frame->buffer;
	if (!pixman_region32_not_empty(&frame->cpu_copy) || buffer->data == NULL) {
		return;
	}
	uint64_t start = vt_now_ns();
	output_read(frame->output, &frame->cpu_copy, buffer->data,
		(int32_t)buffer->stride);
	pixman_region32_clear(&frame->cpu_copy);
	frame->record.cpu_copies++;
	frame->record.copy_ns += vt_now_ns() - start;
}

/* The renderer finished the frame. */
static void frame_ready(struct output_frame *frame, uint64_t now) {
	struct vt_output *output = frame->output;
	frame->ready = true;
	if (frame->render_id != 0) {
		vr_engine_get_timing(output->server->engine, frame->render_id,
			&frame->record.timing);
		frame->render_id = 0;
	}
	if (output->soft && !frame->failed) {
		output->latest = frame->buffer;
	}
	uint64_t start = vt_now_ns();
	frame_cpu_copy(frame);
	frame->record.main_thread_ns += vt_now_ns() - start;
	frame->record.render_end_ns = now;
}

/* The earliest slowed frame still waiting: when the slow timer fires. */
static void output_arm_slow_timer(struct vt_output *output, uint64_t now) {
	uint64_t next = 0;
	struct output_frame *frame;
	wl_list_for_each(frame, &output->frames, link) {
		if (frame->finished && !frame->ready &&
				(next == 0 || frame->ready_not_before_ns < next)) {
			next = frame->ready_not_before_ns;
		}
	}
	if (next != 0 && output->slow_timer != NULL) {
		uint64_t ms = next > now ? (next - now + 999999) / 1000000 : 1;
		wl_event_source_timer_update(output->slow_timer, (int)ms);
	}
}

/* The renderer finished the frame: ready now, or (slowed by the test
 * protocol) once its time has come. */
static void frame_finished(struct output_frame *frame, uint64_t now) {
	struct vt_output *output = frame->output;
	if (now < frame->ready_not_before_ns) {
		frame->finished = true;
		output_arm_slow_timer(output, now);
		return;
	}
	frame_ready(frame, now);
	output_update_predictable(output, now);
	vt_pacer_frame_ready(output->pacer, frame, now);
}

static int handle_slow_timer(void *data) {
	struct vt_output *output = data;
	uint64_t now = vt_now_ns();
	/* one at a time: the pacer may drop frames on the way */
	bool again = true;
	while (again) {
		again = false;
		struct output_frame *frame;
		wl_list_for_each(frame, &output->frames, link) {
			if (frame->finished && !frame->ready &&
					frame->ready_not_before_ns <= now) {
				frame->finished = false;
				frame_finished(frame, now);
				again = true;
				break;
			}
		}
	}
	output_arm_slow_timer(output, now);
	return 0;
}

void vt_outputs_frames_completed(struct vt_server *server) {
	if (server->engine == NULL) {
		return;
	}
	uint64_t done = vr_engine_dispatch(server->engine);
	if (vr_engine_is_lost(server->engine)) {
		vt_outputs_lose_renderer(server);
		return;
	}
	uint64_t now = vt_now_ns();
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		struct output_frame *frame, *tmp;
		wl_list_for_each_safe(frame, tmp, &output->frames, link) {
			if (!frame->ready && !frame->finished &&
					frame->render_id != 0 &&
					frame->render_id <= done) {
				frame_finished(frame, now);
			}
		}
	}
}

/* pacer_impl.render: draw the pending damage for display time display_ns
 * into a free output buffer. */
static void *output_render(void *data, uint64_t display_ns, bool *ready,
		uint64_t *ready_ns) {
	struct vt_output *output = data;
	struct vt_server *server = output->server;
	if (!vt_output_enabled(output)) {
		return NULL; /* disabled after the pacer planned this frame */
	}
	uint64_t start = vt_now_ns();
	/* Scene animations take their values at this frame's display time,
	 * right before the tree update that turns them into damage. */
	/* Commits queued for this display time apply now, so that the
	 * frame shows them; then animations take their values at it, right
	 * before the tree update that turns them into damage. */
	/* A torn frame (vt_output_tear) shows one surface's new damage in
	 * the refresh being scanned out: nothing is latched or sampled for
	 * it, everything else waits for the next vblank's frame. */
	bool tear = output->tearing;
	bool queued = false;
	char samples[VT_SCENE_SAMPLES_LEN] = "";
	char scroll_samples[VT_SCROLL_SAMPLES_LEN] = "";
	if (!tear) {
		queued = vt_frame_timing_latch(server, output, display_ns,
			output->period_ns);
		vt_scene_sample(server, display_ns, samples, sizeof(samples));
		/* scroll regions on this output: their windows at display_ns
		 * (a fling is a function of it) */
		vt_scroll_sample(server, output, display_ns, output->period_ns,
			scroll_samples, sizeof(scroll_samples));
	}
	vt_server_update(server);
	uint32_t nodes_updated = server->nodes_updated;
	uint32_t lists_recorded = server->lists_recorded;
	server->nodes_updated = 0;
	server->lists_recorded = 0;
	if (vt_scene_animating(server) || queued || vt_scroll_flinging(server)) {
		/* Animated outputs keep rendering: every frame samples them
		 * (and latches queued commits). */
		output_request(output, VT_PACER_RENDER);
	}
	/* what this frame draws: the pending damage, or a torn frame's part
	 * of it */
	pixman_region32_t *draw = &output->pending.damage;
	if (tear) {
		/* a torn frame draws its part in place: pixels still to move
		 * are redrawn instead (by this frame or the next) */
		vr_changes_flatten(&output->pending);
		pixman_region32_intersect(&output->tear_region,
			&output->tear_region, &output->pending.damage);
		draw = &output->tear_region;
	}
	if ((output->target == NULL && !output->soft) ||
			!pixman_region32_not_empty(draw)) {
		return NULL;
	}
	struct output_buffer *buffer = output_acquire_buffer(output);
	if (buffer == NULL) {
		return NULL; /* damage stays pending until a buffer is free */
	}
	struct output_frame *frame = calloc(1, sizeof(*frame));
	if (frame == NULL) {
		wlr_buffer_unlock(buffer->wlr_buffer);
		return NULL;
	}
	frame->output = output;
	frame->buffer = buffer;
	frame->lock_epoch = vt_session_lock_epoch(output->server);
	pixman_region32_init(&frame->damage);
	pixman_region32_init(&frame->cpu_copy);
	wl_array_init(&frame->feedbacks);
	wl_list_init(&frame->timing_feedbacks);
	wl_list_insert(output->frames.prev, &frame->link);
	memcpy(frame->scene_samples, samples, sizeof(samples));
	memcpy(frame->scroll_samples, scroll_samples, sizeof(scroll_samples));
	int in_flight = wl_list_length(&output->frames);
	frame->record = (struct vt_frame_record){
		.output = output->wlr_output->name,
		.path = output->policy->name,
		.seq = ++output->frame_seq,
		.generation = vr_tree_generation(server->tree),
		.display_ns = display_ns,
		.render_start_ns = start,
		.in_flight = (uint32_t)in_flight,
		.nodes_updated = nodes_updated,
		.lists_recorded = lists_recorded,
		.scene_samples = frame->scene_samples,
		.scroll_samples = frame->scroll_samples,
	};

	uint32_t slow_us = vt_test_take_frame_cost_us(server);
	if (slow_us > 0) {
		frame->ready_not_before_ns = start + (uint64_t)slow_us * 1000;
	}
	uint32_t stall_ms = vt_test_take_stall_ms(server);
	if (stall_ms > 0) {
		/* Test protocol: this frame renders late. */
		struct timespec stall = {
			.tv_sec = stall_ms / 1000,
			.tv_nsec = (long)(stall_ms % 1000) * 1000000,
		};
		nanosleep(&stall, NULL);
	}

	/* Every buffer now lacks this frame's changes; this one gets them
	 * and whatever it missed before (buffer age), its pixels moved first
	 * where the frames since only moved them (shift-and-expose). */
	const struct vr_move *move = output->pending.has_move ?
		&output->pending.move : NULL;
	struct output_buffer *b;
	wl_list_for_each(b, &output->buffers, link) {
		vr_changes_compose(&b->changes, move, draw);
	}
	/* One engine, whichever draws: the CPU engine and the reference
	 * renderer (the CPU engine's threads failed) write into the buffer
	 * itself, Vulkan into the output's target and from there into the
	 * buffer (dst) or its mirror. What this buffer lacks: this frame's
	 * damage and what it missed while others were drawn (buffer age). */
	struct vr_engine *engine = server->engine;
	bool soft = output->soft;
	bool sync = server->opts.pipeline == VT_PIPELINE_SYNC;
	struct vr_engine_frame job = {
		.target = output->target,
		.dst = buffer->dst,
		.image = buffer->image,
		.view = vt_output_view(output),
		.clear = { 0, 0, 0, 1 },
		.damage = draw,
		.region = &buffer->changes.damage,
	};
	if (soft && buffer->changes.has_move) {
		/* the buffer's pixels move */
		job.moves = &buffer->changes.move;
		job.nmoves = 1;
	} else if (!soft) {
		/* the target's pixels move (it holds the last frame); the
		 * buffer gets the moved box from it */
		job.moves = move;
		job.nmoves = move != NULL ? 1 : 0;
		vr_changes_flatten(&buffer->changes);
	}
	/* what this buffer gets: moved, then drawn */
	for (size_t i = 0; i < job.nmoves; i++) {
		frame->record.moved_px += (uint64_t)job.moves[i].box.width *
			(uint64_t)job.moves[i].box.height;
	}
	frame->record.drawn_px = region_area(soft ? job.region : job.damage);
	bool ok;
	if (engine == NULL || (soft ? buffer->image == NULL :
			output->target == NULL)) {
		ok = false; /* nothing to draw with or into (logged before) */
	} else if (sync) {
		ok = vr_engine_render(engine, server->tree, &job,
			&frame->record.timing);
	} else {
		frame->render_id = vr_engine_submit(engine, server->tree, &job);
		ok = frame->render_id != 0;
	}
	if (!ok) {
		wlr_log(WLR_ERROR, "%s: rendering failed", output->wlr_output->name);
		/* the changes stay pending, composed into the buffers once
		 * already: nothing is left to move, all of it to redraw */
		wl_list_for_each(b, &output->buffers, link) {
			vr_changes_flatten(&b->changes);
		}
		vr_changes_flatten(&output->pending);
		frame_destroy(frame);
		return NULL;
	}
	if (!soft && buffer->dst == NULL) {
		/* no import: copy out of the renderer's mirror once ready */
		pixman_region32_copy(&frame->cpu_copy, &buffer->changes.damage);
	}
	vr_changes_clear(&buffer->changes);
	pixman_region32_copy(&frame->damage, draw);
	if (move != NULL) {
		/* what changed on screen: the moved pixels too */
		pixman_region32_union_rect(&frame->damage, &frame->damage,
			move->box.x, move->box.y, (unsigned)move->box.width,
			(unsigned)move->box.height);
	}
	if (tear) {
		pixman_region32_subtract(&output->pending.damage,
			&output->pending.damage, draw);
		frame->record.path = "torn";
	} else {
		vr_changes_clear(&output->pending);
	}

	/* the surfaces this frame shows: their presentation feedback
	 * belongs to it */
	struct drawn_surfaces drawn = { .output = output, .frame = frame,
		.only = tear ? output->tear_surface : NULL };
	if (!tear) {
		feedbacks_move(&frame->feedbacks, &output->orphan_feedbacks,
			frame->record.render_start_ns);
	}
	output_for_each_drawn(output, &drawn);

	uint64_t end = vt_now_ns();
	frame->record.main_thread_ns = end - start;
	if (sync && end < frame->ready_not_before_ns) {
		frame->finished = true; /* slowed: ready later */
		output_arm_slow_timer(output, end);
		sync = false;
	} else if (sync) {
		frame_ready(frame, end);
	}
	*ready = sync;
	*ready_ns = end;
	return frame;
}

/* Damage between the frame on screen and the one `age` commits before it
 * (the swapchain buffer's age); false when unknown: copy everything. */
static bool output_damage_since(struct vt_output *output, int age,
		pixman_region32_t *region) {
	if (age <= 0 || age > DAMAGE_HISTORY) {
		return false;
	}
	for (int i = 0; i < age - 1; i++) {
		int idx = (output->damage_idx - i + DAMAGE_HISTORY) % DAMAGE_HISTORY;
		pixman_region32_union(region, region, &output->damage_history[idx]);
	}
	return true;
}

/* The fallback commit: wlroots' own swapchain buffer gets the pixels of
 * `source` where it is out of date (one CPU copy). Used while a
 * screencopy client locks direct scan-out, and by the sync pipeline. */
static bool output_attach_render(struct vt_output *output,
		struct output_buffer *source, const pixman_region32_t *damage,
		struct vt_frame_record *record) {
	struct wlr_output *wlr_output = output->wlr_output;
	int age = 0;
	if (!wlr_output_attach_render(wlr_output, &age)) {
		wlr_log(WLR_ERROR, "%s: cannot get an output buffer",
			wlr_output->name);
		return false;
	}
	uint64_t copy_start = vt_now_ns();
	pixman_region32_t copy;
	pixman_region32_init(&copy);
	if (damage != NULL) {
		pixman_region32_copy(&copy, (pixman_region32_t *)damage);
	}
	if (!output->swapchain_history ||
			!output_damage_since(output, age, &copy)) {
		pixman_region32_fini(&copy);
		pixman_region32_init_rect(&copy, 0, 0, wlr_output->width,
			wlr_output->height);
	}
	pixman_image_t *dst = wlr_pixman_renderer_get_current_image(
		output->server->wlr_renderer);
	if (dst != NULL && pixman_region32_not_empty(&copy)) {
		if (source != NULL && source->data != NULL) {
			pixman_image_t *src = pixman_image_create_bits_no_clear(
				PIXMAN_x8r8g8b8, source->wlr_buffer->width,
				source->wlr_buffer->height, source->data,
				(int)source->stride);
			pixman_image_set_clip_region32(dst, &copy);
			pixman_image_composite32(PIXMAN_OP_SRC, src, NULL, dst,
				0, 0, 0, 0, 0, 0, wlr_output->width, wlr_output->height);
			pixman_image_set_clip_region32(dst, NULL);
			pixman_image_unref(src);
		} else {
			output_read(output, &copy, pixman_image_get_data(dst),
				pixman_image_get_stride(dst));
		}
		if (record != NULL) {
			record->cpu_copies++;
		}
	}
	pixman_region32_fini(&copy);
	if (record != NULL) {
		record->copy_ns += vt_now_ns() - copy_start;
	}
	return true;
}

/* pacer_impl.commit */
static bool output_commit(void *data, void *handle, uint64_t vblank_ns) {
	struct vt_output *output = data;
	struct output_frame *frame = handle;
	struct wlr_output *wlr_output = output->wlr_output;
	uint64_t start = vt_now_ns();
	if (frame != NULL && frame->failed) {
		return false; /* dropped; its damage is drawn again */
	}
	if (!wlr_output->enabled) {
		return false; /* powered off since it was rendered */
	}
	if (output->model_clock && wlr_output->frame_pending) {
		/* We are this output's clock: this is its vblank. */
		wlr_output_send_frame(wlr_output);
	}
	struct output_buffer *buffer = frame != NULL ? frame->buffer :
		output->front;
	const pixman_region32_t *damage = frame != NULL ? &frame->damage : NULL;
	bool direct = buffer != NULL && wlr_output->attach_render_locks == 0 &&
		output->server->opts.pipeline == VT_PIPELINE_ASYNC;
	if (direct) {
		/* the very buffer the renderer wrote */
		wlr_output_attach_buffer(wlr_output, buffer->wlr_buffer);
	} else if (!output_attach_render(output, buffer, damage,
			frame != NULL ? &frame->record : NULL)) {
		return false;
	}

	/* Damage hint for nested backends (wl_surface.damage upstream). */
	pixman_region32_t *frame_damage = &output->damage_history[
		(output->damage_idx + 1) % DAMAGE_HISTORY];
	pixman_region32_clear(frame_damage);
	if (damage != NULL) {
		pixman_region32_copy(frame_damage, (pixman_region32_t *)damage);
	}
	wlr_output_set_damage(wlr_output, frame_damage);

	if (frame != NULL) {
		/* Some backends send the present event from inside the
		 * commit. */
		frame->commit_seq = wlr_output->commit_seq + 1;
		frame->committed = true;
		frame->record.main_thread_ns += vt_now_ns() - start;
	}
	if (!wlr_output_commit(wlr_output)) {
		wlr_log(WLR_ERROR, "%s: commit failed", wlr_output->name);
		if (frame != NULL) {
			frame->committed = false;
		}
		output_damage_whole(output);
		return false;
	}
	output->damage_idx = (output->damage_idx + 1) % DAMAGE_HISTORY;
	/* the buffer on screen: ours when attached directly; otherwise
	 * wlroots' swapchain's, and ours go back to the pool */
	output->front = direct ? buffer : NULL;
	output->swapchain_history = !direct;
	if (output->model_clock) {
		/* wlroots' headless backend reports "presented" from inside the
		 * commit, before wp_presentation can match it: as this output's
		 * clock, we report the vblank it scans out at. */
		struct timespec when;
		vt_ns_to_timespec(vblank_ns, &when);
		struct wlr_output_event_present present = {
			.commit_seq = wlr_output->commit_seq,
			.presented = true,
			.when = &when,
			.refresh = (int)output->period_ns,
			.flags = WLR_OUTPUT_PRESENT_VSYNC | WLR_OUTPUT_PRESENT_HW_CLOCK,
		};
		output->sending_present = true;
		wlr_output_send_present(wlr_output, &present);
		output->sending_present = false;
	}
	return true;
}

/* pacer_impl.discard: never shown. */
static void output_discard(void *data, void *handle) {
	struct vt_output *output = data;
	struct output_frame *frame = handle;
	/* still being drawn (on the GPU, or by the CPU engine's threads):
	 * its buffer must outlive the writes */
	output_wait_frame(output, frame);
	output->stats.replaced++;
	frame->record.dropped = true;
	vt_frame_log_write(output->server->frame_log, &frame->record);
	/* the buffer missed nothing: it holds this frame's pixels, which are
	 * the target's, as the next frame's stale region accounts for */
	frame_destroy(frame);
}

/* pacer_impl.frame_done */
static void output_frame_done(void *data, uint64_t now_ns) {
	struct vt_output *output = data;
	if (output->server->hold_frames) {
		return;
	}
	struct drawn_surfaces drawn = { .output = output, .frame_done = true };
	vt_ns_to_timespec(now_ns, &drawn.now);
	output_for_each_drawn(output, &drawn);
	/* The tree's update waits for the event loop to idle
	 * (vt_server_schedule_update), and the vblank can be read in the same
	 * turn as a commit, after it (the main thread was busy or preempted
	 * past the vblank). A surface that commit mapped is in no tree yet:
	 * neither sent its callback above nor held, while this vblank took
	 * the pacer's wish for callbacks. So callbacks are asked for again:
	 * by the next vblank the tree is up to date, and the surface is drawn
	 * or held for the frame that draws it. (Updating the tree here, inside
	 * the pacer's vblank, instead hung nested sessions' settles.) */
	if (drawn.held || output->server->update_idle != NULL) {
		output_request(output, VT_PACER_CALLBACKS);
	}
}

/* pacer_impl.arm */
static void output_arm(void *data, uint64_t at_ns) {
	struct vt_output *output = data;
	struct itimerspec its = { 0 };
	if (at_ns != 0) {
		vt_ns_to_timespec(at_ns, &its.it_value);
	}
	if (timerfd_settime(output->timer_fd, TFD_TIMER_ABSTIME, &its, NULL) != 0) {
		wlr_log_errno(WLR_ERROR, "timerfd_settime");
	}
}

/* pacer_impl.request_backend_frame */
static void output_request_backend_frame(void *data) {
	struct vt_output *output = data;
	wlr_output_schedule_frame(output->wlr_output);
}

static const struct vt_pacer_impl pacer_impl = {
	.render = output_render,
	.commit = output_commit,
	.discard = output_discard,
	.frame_done = output_frame_done,
	.arm = output_arm,
	.request_backend_frame = output_request_backend_frame,
};

/* ---- the low-latency path (presentation_paths.c) ------------------------ */

bool vt_output_pacing(struct vt_output *output, uint64_t now,
		const struct vt_clock **clock, uint64_t *out_ns, uint64_t *earliest) {
	if (output->pacer == NULL) {
		return false;
	}
	*clock = vt_pacer_clock(output->pacer);
	/* the vsync policy's lead: the composition estimate, a period at
	 * most */
	uint64_t period = vt_clock_period(*clock);
	uint64_t composition = vt_pacer_composition_ns(output->pacer);
	*out_ns = composition < period ? composition : period;
	*earliest = vt_pacer_first_display(output->pacer, now + *out_ns);
	return true;
}

/* The surface's damage of its latest commit, in output pixels; empty
 * when its content is not wholly drawn where the last tree update put it
 * (clipped: where the damage lands is not known then). */
static void surface_output_damage(struct vt_output *output,
		struct vt_surface *surface, pixman_region32_t *out) {
	struct wlr_surface *wlr_surface = surface->wlr_surface;
	struct vr_box bounds;
	if (!vr_node_get_bounds(surface->content, &bounds) ||
			bounds.width != wlr_surface->current.width ||
			bounds.height != wlr_surface->current.height) {
		return;
	}
	pixman_region32_t damage;
	pixman_region32_init(&damage);
	wlr_surface_get_effective_damage(wlr_surface, &damage);
	/* surface-local to the layout (vitrail draws surfaces at their
	 * logical size), then to output pixels */
	pixman_region32_translate(&damage, (int)bounds.x, (int)bounds.y);
	pixman_region32_clear(out);
	output_map_region(output, &damage, out);
	pixman_region32_fini(&damage);
}

/* The scanout model of a headless output. */
static struct vt_scanout output_scanout(struct vt_output *output) {
	return (struct vt_scanout){
		.period_ns = vt_clock_period(vt_pacer_clock(output->pacer)),
		.height = output->wlr_output->height,
	};
}

/* The pointer in output pixels. */
static void output_pointer(struct vt_output *output, int *x, int *y) {
	struct vr_mat view = vt_output_view(output);
	float ox, oy;
	vr_mat_apply(&view, (float)output->server->cursor->x,
		(float)output->server->cursor->y, &ox, &oy);
	*x = (int)floorf(ox);
	*y = (int)floorf(oy);
}

uint64_t vt_output_tear_offset(struct vt_output *output) {
	struct vt_server *server = output->server;
	if (output->pacer == NULL || !output->model_clock ||
			!server->has_pointer) {
		return 0;
	}
	int px, py;
	output_pointer(output, &px, &py);
	struct vt_scanout scanout = output_scanout(output);
	return vt_scanout_row_ns(&scanout, 0, py - server->config.tearing_box / 2);
}

bool vt_output_tear(struct vt_output *output, struct vt_surface *surface,
		uint64_t now, uint64_t *shown_ns) {
	struct vt_server *server = output->server;
	if (output->pacer == NULL || !output->model_clock ||
			server->engine == NULL ||
			!server->has_pointer ||
			vt_pacer_queued(output->pacer) > 0 ||
			server->opts.pipeline != VT_PIPELINE_ASYNC) {
		/* only a headless output's scanout is ours to model; nested
		 * and DRM outputs take the next refresh (vitrail-protocols(7)) */
		return false;
	}
	pixman_region32_t damage;
	pixman_region32_init(&damage);
	surface_output_damage(output, surface, &damage);
	pixman_box32_t *ext = pixman_region32_extents(&damage);
	struct vt_par_box box = { ext->x1, ext->y1, ext->x2, ext->y2 };
	bool empty = !pixman_region32_not_empty(&damage);
	int px, py;
	output_pointer(output, &px, &py);
	const struct vt_clock *clock = vt_pacer_clock(output->pacer);
	uint64_t period = vt_clock_period(clock);
	struct vt_scanout scanout = output_scanout(output);
	/* the refresh being scanned out began at the last vblank */
	uint64_t vblank = vt_clock_next_vblank(clock, now) - period;
	uint64_t write_ns = vt_pacer_composition_ns(output->pacer);
	uint64_t shown = 0;
	bool ok = !empty && vt_par_decide(&scanout, vblank, now, write_ns, &box,
		px, py, server->config.tearing_box, &shown);
	if (ok) {
		pixman_region32_copy(&output->tear_region, &damage);
		output->tearing = true;
		output->tear_surface = surface;
		ok = vt_pacer_tear(output->pacer, shown, now);
		*shown_ns = shown;
		output->tearing = false;
		output->tear_surface = NULL;
		pixman_region32_clear(&output->tear_region);
	}
	pixman_region32_fini(&damage);
	return ok;
}

/* ---- events ------------------------------------------------------------- */

static void handle_needs_frame(struct wl_listener *listener, void *data) {
	struct vt_output *output = wl_container_of(listener, output, needs_frame);
	output_request(output, VT_PACER_COMMIT);
}

static int handle_timer(int fd, uint32_t mask, void *data) {
	struct vt_output *output = data;
	uint64_t expirations;
	if (read(fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN) {
		wlr_log_errno(WLR_ERROR, "timerfd read");
	}
	uint64_t now = vt_now_ns();
	output_update_predictable(output, now);
	vt_pacer_wake(output->pacer, now);
	return 0;
}

static void handle_frame(struct wl_listener *listener, void *data) {
	struct vt_output *output = wl_container_of(listener, output, frame);
	if (output->model_clock) {
		return; /* wlroots' headless timer: we keep our own */
	}
	uint64_t now = vt_now_ns();
	output_update_predictable(output, now);
	vt_pacer_backend_frame(output->pacer, now);
}

static void stats_add(struct vt_output *output, uint64_t main_ns) {
	struct vt_output *o = output;
	o->stats.frames++;
	o->stats.main_ns_total += main_ns;
	if (o->stats.main_ns_len == o->stats.main_ns_cap) {
		size_t cap = o->stats.main_ns_cap ? o->stats.main_ns_cap * 2 : 256;
		uint64_t *v = realloc(o->stats.main_ns, cap * sizeof(*v));
		if (v != NULL) {
			o->stats.main_ns = v;
			o->stats.main_ns_cap = cap;
		}
	}
	if (o->stats.main_ns_len < o->stats.main_ns_cap) {
		o->stats.main_ns[o->stats.main_ns_len++] = main_ns;
	}
}

/* A committed frame was shown (or not): close it. */
static void frame_presented(struct output_frame *frame,
		const struct wlr_output_event_present *event) {
	struct vt_output *output = frame->output;
	uint64_t presented_ns = event->when != NULL ?
		vt_timespec_to_ns(event->when) : vt_now_ns();
	bool late = vt_pacer_presented(output->pacer, frame, event->presented,
		presented_ns, event->refresh > 0 ? (uint64_t)event->refresh : 0);
	if (event->presented) {
		struct wlr_presentation_event pevent;
		wlr_presentation_event_from_output(&pevent, event);
		struct drawn_feedback *entry;
		wl_array_for_each(entry, &frame->feedbacks) {
			wlr_presentation_feedback_send_presented(entry->feedback,
				&pevent);
			wlr_presentation_feedback_destroy(entry->feedback);
		}
		wl_array_release(&frame->feedbacks);
		wl_array_init(&frame->feedbacks);
		vt_frame_timing_presented(&frame->timing_feedbacks, presented_ns,
			frame->record.display_ns);
		if (frame->lock_epoch > output->lock_epoch_shown) {
			output->lock_epoch_shown = frame->lock_epoch;
			vt_session_lock_shown(output->server);
		}
	}
	/* An output's first frame has nothing on screen to repeat: it is not
	 * a dropped refresh however long it took. */
	if (output->stats.frames == 0 && event->presented) {
		late = false;
	}
	frame->record.presented_ns = event->presented ? presented_ns : 0;
	frame->record.dropped = late;
	if (event->presented && frame->buffer != NULL) {
		vt_test_frame_presented(output->server, output, frame->record.seq,
			frame->buffer->data, frame->buffer->stride,
			frame->buffer->wlr_buffer->width,
			frame->buffer->wlr_buffer->height);
	}
	stats_add(output, frame->record.main_thread_ns);
	vt_frame_log_write(output->server->frame_log, &frame->record);
	frame_destroy(frame);
}

static void handle_present(struct wl_listener *listener, void *data) {
	struct vt_output *output = wl_container_of(listener, output, present);
	struct wlr_output_event_present *event = data;
	if (output->model_clock && !output->sending_present) {
		return; /* the headless backend's own, see output_commit */
	}
	if (wlr_output_is_x11(output->wlr_output) && !output->sending_present) {
		/* wlroots 0.15's x11 backend numbers its present events one
		 * commit behind (the serial is taken before the commit counts),
		 * so neither we nor wp_presentation could match them. Report
		 * the corrected event instead. */
		struct wlr_output_event_present fixed = *event;
		fixed.commit_seq++;
		output->sending_present = true;
		wlr_output_send_present(output->wlr_output, &fixed);
		output->sending_present = false;
		return;
	}
	if (event->refresh > 0 && !output->model_clock) {
		output->period_ns = (uint64_t)event->refresh;
	}
	/* Committed frames up to this one: older ones were never shown
	 * (the backend replaced them). */
	struct output_frame *frame, *tmp;
	wl_list_for_each_safe(frame, tmp, &output->frames, link) {
		if (!frame->committed) {
			continue;
		}
		if (frame->commit_seq == event->commit_seq) {
			frame_presented(frame, event);
			break;
		}
		if ((int32_t)(frame->commit_seq - event->commit_seq) < 0) {
			struct wlr_output_event_present skipped = {
				.commit_seq = frame->commit_seq,
				.presented = false,
			};
			frame_presented(frame, &skipped);
		}
	}
	if (!event->presented) {
		/* the backend dropped the commit: redraw */
		output_damage_whole(output);
	} else if (!output->model_clock) {
		/* calibrate even from commits without a frame of ours */
		uint64_t t = event->when != NULL ? vt_timespec_to_ns(event->when) :
			vt_now_ns();
		vt_pacer_presented(output->pacer, NULL, true, t,
			event->refresh > 0 ? (uint64_t)event->refresh : 0);
	}
	vt_test_check_settled(output->server);
}

/* ---- statistics and screenshots ----------------------------------------- */

static int cmp_u64(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void output_print_stats(struct vt_output *output, FILE *f) {
	double mean = output->stats.frames ?
		output->stats.main_ns_total / 1e6 / output->stats.frames : 0;
	double p50 = 0, p95 = 0;
	size_t n = output->stats.main_ns_len;
	if (n > 0) {
		qsort(output->stats.main_ns, n, sizeof(uint64_t), cmp_u64);
		p50 = output->stats.main_ns[n / 2] / 1e6;
		p95 = output->stats.main_ns[(n * 95) / 100] / 1e6;
	}
	fprintf(f, "%s: %dx%d@%.2fHz frames=%" PRIu64 " dropped=%" PRIu64
		" replaced=%" PRIu64 " in_flight_max=%d"
		" cpu_ms_per_frame mean=%.3f p50=%.3f p95=%.3f buffers=%d"
		" buffers_max=%d\n",
		output->wlr_output->name, output->wlr_output->width,
		output->wlr_output->height, 1e9 / output->period_ns,
		output->stats.frames, vt_pacer_missed(output->pacer),
		output->stats.replaced,
		vt_pacer_max_in_flight(output->pacer), mean, p50, p95,
		wl_list_length(&output->buffers), output->buffers_max);
}

void vt_outputs_print_stats(struct vt_server *server, FILE *f,
		const char *indent) {
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		fputs(indent, f);
		output_print_stats(output, f);
	}
}

void vt_outputs_write_screenshots(struct vt_server *server, const char *dir) {
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		int32_t w, h;
		if (output->target != NULL) {
			w = vr_target_width(output->target);
			h = vr_target_height(output->target);
		} else if (output->soft && output->latest != NULL) {
			w = output->soft_w;
			h = output->soft_h;
		} else {
			continue;
		}
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s.png", dir,
			output->wlr_output->name);
		void *pixels = malloc((size_t)w * h * 4);
		bool ok = pixels != NULL;
		if (ok) {
			output_read(output, NULL, pixels, w * 4);
			ok = vr_png_write(path, pixels, w, h, w * 4, true);
		}
		free(pixels);
		if (ok) {
			printf("wrote %s\n", path);
		} else {
			wlr_log(WLR_ERROR, "cannot write %s", path);
		}
	}
}

bool vt_outputs_settled(struct vt_server *server) {
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		if (!vt_output_enabled(output)) {
			continue;
		}
		/* An output that presented an older generation still shows
		 * the current tree when the changes since damaged nothing on
		 * it: no pending damage, no frame not yet presented. */
		if (pixman_region32_not_empty(&output->pending.damage) ||
				!wl_list_empty(&output->frames)) {
			return false;
		}
	}
	return true;
}

static void log_surface_iter(struct vr_node *node, void *data) {
	struct vt_output *output = data;
	struct vt_surface *surface = vr_node_user_data(node);
	if (surface == NULL) {
		return;
	}
	wlr_log(WLR_INFO, "%s   surface %p: unsampled %d, %u content "
		"commits, %d frame callbacks waiting, path %s, copying %d",
		output->wlr_output->name, (void *)surface, surface->unsampled,
		surface->content_commits, wl_list_length(
			&surface->wlr_surface->current.frame_callback_list),
		surface->path_scheduled ? "scheduled" : "vblank",
		surface->copy != NULL);
}

void vt_outputs_log_state(struct vt_server *server) {
	wlr_log(WLR_INFO, "state: tree generation %" PRIu64 ", update %s, "
		"%d surface copies, frames %s", vr_tree_generation(server->tree),
		server->update_idle != NULL ? "pending" : "done",
		server->surface_copies, server->hold_frames ? "held" : "not held");
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		const pixman_box32_t *e =
			pixman_region32_extents(&output->pending.damage);
		wlr_log(WLR_INFO, "%s: %s, pending damage (%d,%d)-(%d,%d), "
			"%d frames, commit_seq %u, frame_pending %d, pacer "
			"rendering %d ready %d committed %d queued %d, %d orphan "
			"feedbacks", output->wlr_output->name,
			vt_output_enabled(output) ? "enabled" : "disabled",
			e->x1, e->y1, e->x2, e->y2, wl_list_length(&output->frames),
			output->wlr_output->commit_seq,
			output->wlr_output->frame_pending,
			vt_pacer_rendering(output->pacer), vt_pacer_ready(output->pacer),
			vt_pacer_committed(output->pacer), vt_pacer_queued(output->pacer),
			(int)(output->orphan_feedbacks.size /
			sizeof(struct drawn_feedback)));
		struct output_frame *frame;
		wl_list_for_each(frame, &output->frames, link) {
			wlr_log(WLR_INFO, "%s   frame %" PRIu64 ": render_id %" PRIu64
				" ready %d finished %d committed %d (seq %u) failed %d, "
				"%d feedbacks", output->wlr_output->name, frame->record.seq,
				frame->render_id, frame->ready, frame->finished,
				frame->committed, frame->commit_seq, frame->failed,
				(int)(frame->feedbacks.size / sizeof(struct drawn_feedback)));
		}
		struct wlr_box box = output_box(output);
		struct vr_box area = { box.x, box.y, box.width, box.height };
		vr_tree_for_each_drawn(server->tree, &area, log_surface_iter,
			output);
	}
}

/* ---- lifetime ----------------------------------------------------------- */

static void output_set_period(struct vt_output *output) {
	int mhz = output->wlr_output->refresh;
	if (mhz <= 0) {
		mhz = output->server->opts.refresh_mhz[0];
	}
	output->period_ns = (uint64_t)(1e12 / mhz);
	if (output->pacer != NULL) {
		vt_pacer_set_period(output->pacer, output->period_ns, vt_now_ns());
	}
}

static void output_update_target(struct vt_output *output) {
	int w = output->wlr_output->width, h = output->wlr_output->height;
	struct vr_engine *engine = output->server->engine;
	if (engine == NULL || vr_engine_host_images(engine)) {
		if (output->soft && output->soft_w == w && output->soft_h == h) {
			return;
		}
		output->soft = true;
		output->soft_w = w;
		output->soft_h = h;
		output->latest = NULL;
		output_damage_whole(output);
		return;
	}
	if (output->target != NULL && vr_target_width(output->target) == w &&
			vr_target_height(output->target) == h) {
		return;
	}
	vr_target_destroy(output->target);
	output->target = vr_target_create(output->server->renderer, w, h);
	if (output->target == NULL) {
		wlr_log(WLR_ERROR, "%s: cannot create a %dx%d render target",
			output->wlr_output->name, w, h);
	}
	output_damage_whole(output);
}

void vt_outputs_lose_renderer(struct vt_server *server) {
	wlr_log(WLR_ERROR, "the Vulkan device is lost: the CPU backend draws "
		"from now on");
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		/* frames the device never finished: their buffers hold
		 * nothing worth showing */
		struct output_frame *frame;
		wl_list_for_each(frame, &output->frames, link) {
			if (frame->render_id != 0) {
				frame->failed = true;
				frame->render_id = 0;
			}
		}
		struct output_buffer *buffer;
		wl_list_for_each(buffer, &output->buffers, link) {
			vr_dst_buffer_destroy(buffer->dst);
			buffer->dst = NULL;
		}
		vr_target_destroy(output->target);
		output->target = NULL;
	}
	vt_server_drop_renderer(server);
	vt_server_use_cpu_backend(server);
	if (!vt_server_set_engine(server)) {
		wlr_log(WLR_ERROR, "no engine left to draw with");
	}
	uint64_t now = vt_now_ns();
	wl_list_for_each(output, &server->outputs, link) {
		/* a new frame, all of it, and every buffer redrawn */
		output_update_target(output);
		/* the pacer drops them at their commit; it may drop others on
		 * the way, so look again after each */
		bool again = true;
		while (again) {
			again = false;
			struct output_frame *frame;
			wl_list_for_each(frame, &output->frames, link) {
				if (frame->failed && !frame->ready) {
					frame->ready = true;
					vt_pacer_frame_ready(output->pacer, frame, now);
					again = true;
					break;
				}
			}
		}
	}
}

/* Outputs side by side, left to right in name order (the order of
 * server->outputs), whatever order the backend announced them in. */
static void arrange_outputs(struct vt_server *server);

void vt_outputs_arrange(struct vt_server *server) {
	arrange_outputs(server);
}

static void arrange_outputs(struct vt_server *server) {
	int x = 0;
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		struct wlr_box from = output->layout_box;
		if (!vt_output_enabled(output)) {
			/* out of the layout; its windows went (output_disable) */
			/* layout_box stays where it was: output management
			 * shows it there */
			wlr_output_layout_remove(server->layout, output->wlr_output);
			continue;
		}
		if (output->manual_position) {
			wlr_output_layout_add(server->layout, output->wlr_output,
				output->manual_x, output->manual_y);
			output->layout_box = output_box(output);
		} else {
			wlr_output_layout_add(server->layout, output->wlr_output, x, 0);
			output->layout_box = output_box(output);
			x += output->layout_box.width;
		}
		/* its windows go where it goes */
		if (!wlr_box_empty(&from) && (from.x != output->layout_box.x ||
				from.y != output->layout_box.y ||
				from.width != output->layout_box.width ||
				from.height != output->layout_box.height)) {
			vt_views_output_moved(server, output, from);
		}
	}
	if (!wl_list_empty(&server->outputs)) {
		/* windows left without an output get one */
		vt_views_output_moved(server, NULL, (struct wlr_box){ 0 });
	}
	/* Everything may be somewhere else now. */
	wl_list_for_each(output, &server->outputs, link) {
		output_damage_whole(output);
	}
}

/* A new mode: a new refresh period for the pacer and its clock (the
 * frame timeline and its vblank model follow at once), a render target and
 * buffers of the new size (output_acquire_buffer), the layout. */
static void handle_mode(struct wl_listener *listener, void *data) {
	struct vt_output *output = wl_container_of(listener, output, mode);
	output_set_period(output);
	output_update_target(output);
	arrange_outputs(output->server);
	wlr_log(WLR_INFO, "%s: mode %dx%d, refresh period %.3f ms",
		output->wlr_output->name, output->wlr_output->width,
		output->wlr_output->height, output->period_ns / 1e6);
}

/* Enabled or disabled (output management): a disabled output leaves the
 * layout, its windows go to the others, its layer surfaces are closed, it
 * draws nothing; enabled again, it comes back into the layout and draws
 * all of itself. */
static void output_enabled_changed(struct vt_output *output) {
	struct vt_server *server = output->server;
	bool enabled = vt_output_enabled(output);
	if (!enabled && output->enabled) {
		output->enabled = false;
		struct wlr_box box = output->layout_box;
		vt_layers_output_disabled(server, output->wlr_output);
		arrange_outputs(server); /* out of the layout */
		/* and out of clients' sight; its return to the layout makes
		 * the global again (wlr_output_layout_add) */
		wlr_output_destroy_global(output->wlr_output);
		vt_views_output_gone(server, output, box);
		vr_changes_clear(&output->pending);
		wlr_log(WLR_INFO, "%s: disabled", output->wlr_output->name);
	} else if (enabled && !output->enabled) {
		output->enabled = true;
		output_set_period(output);
		output_update_target(output);
		arrange_outputs(server);
		output_damage_whole(output);
		wlr_log(WLR_INFO, "%s: enabled", output->wlr_output->name);
	}
	vt_server_schedule_update(server);
}

bool vt_output_enabled(struct vt_output *output) {
	return output->wlr_output->enabled && !output->soft_disabled;
}

uint64_t vt_output_lock_epoch_shown(struct vt_output *output) {
	return output->lock_epoch_shown;
}

void vt_output_set_soft_disabled(struct vt_output *output, bool disabled) {
	output->soft_disabled = disabled;
	output_enabled_changed(output);
}

/* A new scale or transform changes the output's size in the layout;
 * enabling or disabling it, whether it is in the layout at all. */
static void handle_commit(struct wl_listener *listener, void *data) {
	struct vt_output *output = wl_container_of(listener, output, commit);
	struct wlr_output_event_commit *event = data;
	if (event->committed & WLR_OUTPUT_STATE_ENABLED) {
		output_enabled_changed(output);
	}
	if (event->committed & (WLR_OUTPUT_STATE_SCALE |
			WLR_OUTPUT_STATE_TRANSFORM)) {
		arrange_outputs(output->server);
		vt_server_schedule_update(output->server);
	}
}

static void handle_destroy(struct wl_listener *listener, void *data) {
	struct vt_output *output = wl_container_of(listener, output, destroy);
	output->destroying = true;
	wl_list_remove(&output->frame.link);
	wl_list_remove(&output->present.link);
	wl_list_remove(&output->destroy.link);
	wl_list_remove(&output->mode.link);
	wl_list_remove(&output->commit.link);
	wl_list_remove(&output->needs_frame.link);
	wl_list_remove(&output->link);
	/* the GPU may still write into its buffers */
	output_wait_renderer(output);
	vt_pacer_destroy(output->pacer); /* discards its frames */
	struct output_frame *frame, *tmp;
	wl_list_for_each_safe(frame, tmp, &output->frames, link) {
		frame_destroy(frame);
	}
	struct drawn_feedback *entry;
	wl_array_for_each(entry, &output->orphan_feedbacks) {
		wlr_presentation_feedback_destroy(entry->feedback); /* discarded */
	}
	wl_array_release(&output->orphan_feedbacks);
	for (int i = 0; i < DAMAGE_HISTORY; i++) {
		pixman_region32_fini(&output->damage_history[i]);
	}
	output_drop_buffers(output, true);
	if (output->timer_source != NULL) {
		wl_event_source_remove(output->timer_source);
	}
	if (output->slow_timer != NULL) {
		wl_event_source_remove(output->slow_timer);
	}
	if (output->redraw_idle != NULL) {
		wl_event_source_remove(output->redraw_idle);
	}
	if (output->trim_timer != NULL) {
		wl_event_source_remove(output->trim_timer);
	}
	if (output->timer_fd >= 0) {
		close(output->timer_fd);
	}
	vr_target_destroy(output->target);
	vr_changes_fini(&output->pending);
	pixman_region32_fini(&output->tear_region);
	free(output->stats.main_ns);
	output->wlr_output->data = NULL;
	struct vt_server *server = output->server;
	/* its windows go to the outputs left (it is out of the list) */
	vt_views_output_gone(server, output, output->layout_box);
	free(output);
	/* wlroots takes it out of the layout; close the gap. */
	arrange_outputs(server);
	vt_server_schedule_update(server);
}

/* ---- the config's output settings ------------------------------------- */

/* Set the mode, scale and transform of the config (or the defaults: the
 * mode as it is, scale 1, no transform) pending on the output, and
 * enable it unless the config disables it and the backend can. */
static void output_stage_config(struct wlr_output *wlr_output,
		const struct vt_config_output *oc) {
	if (oc->has_mode) {
		struct wlr_output_mode *best = NULL, *mode;
		wl_list_for_each(mode, &wlr_output->modes, link) {
			if (mode->width != oc->width || mode->height != oc->height) {
				continue;
			}
			if (oc->refresh_mhz > 0 &&
					abs(mode->refresh - oc->refresh_mhz) > 500) {
				continue;
			}
			if (best == NULL || mode->refresh > best->refresh) {
				best = mode;
			}
		}
		if (best != NULL) {
			wlr_output_set_mode(wlr_output, best);
		} else {
			/* headless and nested outputs: a custom mode; their
			 * refresh stays unless one is given */
			int refresh = oc->refresh_mhz > 0 ? oc->refresh_mhz :
				wlr_output->pending.committed & WLR_OUTPUT_STATE_MODE ?
				wlr_output->pending.custom_mode.refresh :
				wlr_output->refresh;
			wlr_output_set_custom_mode(wlr_output, oc->width, oc->height,
				refresh);
		}
	}
	wlr_output_set_scale(wlr_output, oc->has_scale ? (float)oc->scale : 1.0f);
	wlr_output_set_transform(wlr_output, oc->has_transform ?
		(enum wl_output_transform)oc->transform :
		WL_OUTPUT_TRANSFORM_NORMAL);
	bool enabled = !oc->has_enabled || oc->enabled;
	/* only DRM outputs can be disabled in wlroots 0.15: vitrail keeps
	 * the others out of the layout itself */
	wlr_output_enable(wlr_output, enabled || !wlr_output_is_drm(wlr_output));
}

/* What the config leaves to vitrail alone: a disabled output that the
 * backend keeps enabled, and a fixed position. */
static bool output_config_soft_disabled(struct wlr_output *wlr_output,
		const struct vt_config_output *oc) {
	return oc->has_enabled && !oc->enabled && !wlr_output_is_drm(wlr_output);
}

void vt_outputs_apply_config(struct vt_server *server,
		const struct vt_config *previous) {
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		struct wlr_output *wlr_output = output->wlr_output;
		struct vt_config_output oc, old;
		bool named = vt_config_output(&server->config, wlr_output->name, &oc);
		bool was_named = previous != NULL &&
			vt_config_output(previous, wlr_output->name, &old);
		if (!named && !was_named) {
			continue; /* left as it is (wlr-randr may have changed it) */
		}
		output_stage_config(wlr_output, &oc);
		if (!wlr_output_commit(wlr_output)) {
			wlr_log(WLR_ERROR, "%s: the backend refuses the config's "
				"settings", wlr_output->name);
			wlr_output_rollback(wlr_output);
		}
		vt_output_set_position(output, oc.has_position, oc.x, oc.y);
		bool soft = output_config_soft_disabled(wlr_output, &oc);
		if (soft != output->soft_disabled) {
			vt_output_set_soft_disabled(output, soft);
		}
	}
	arrange_outputs(server);
	vt_output_management_update(server);
}

/* The mode an output starts with: --size for headless and nested
 * outputs (headless ones at their --refresh), else the preferred one. */
static void output_stage_default_mode(struct vt_server *server,
		struct wlr_output *wlr_output, int refresh_mhz) {
	struct vt_options *opts = &server->opts;
	bool is_virtual = wl_list_empty(&wlr_output->modes);
	if (wlr_output_is_headless(wlr_output)) {
		wlr_output_set_custom_mode(wlr_output, opts->output_width,
			opts->output_height, refresh_mhz);
	} else if (is_virtual) {
		/* Nested window: the size we were asked for. */
		wlr_output_set_custom_mode(wlr_output, opts->output_width,
			opts->output_height, 0);
	} else {
		struct wlr_output_mode *mode = wlr_output_preferred_mode(wlr_output);
		if (mode != NULL) {
			wlr_output_set_mode(wlr_output, mode);
		}
	}
}

void vt_output_create(struct vt_server *server, struct wlr_output *wlr_output) {
	struct vt_options *opts = &server->opts;
	/* --refresh rates go by output order: HEADLESS-1 takes the first,
	 * whatever order the backend announces them in */
	int created = server->outputs_created++;
	int index = created;
	const char *number = strrchr(wlr_output->name, '-');
	if (wlr_output_is_headless(wlr_output) && number != NULL &&
			atoi(number + 1) > 0) {
		index = atoi(number + 1) - 1;
	}
	int refresh_mhz = opts->refresh_mhz[index < opts->refresh_count ? index :
		opts->refresh_count - 1];
	if (!wlr_output_init_render(wlr_output, server->allocator,
			server->wlr_renderer)) {
		wlr_log(WLR_ERROR, "%s: cannot init rendering", wlr_output->name);
		return;
	}
	struct vt_output *output = calloc(1, sizeof(*output));
	if (output == NULL) {
		return;
	}
	output->server = server;
	/* outputs there from the start come in the backend's order: they
	 * are all first */
	output->created = server->running ? created : 0;
	output->workspace = 1;
	output->wlr_output = wlr_output;
	output->timer_fd = -1;
	wlr_output->data = output;
	wl_list_init(&output->buffers);
	wl_list_init(&output->frames);
	vr_changes_init(&output->pending);
	pixman_region32_init(&output->tear_region);
	wl_array_init(&output->orphan_feedbacks);
	for (int i = 0; i < DAMAGE_HISTORY; i++) {
		pixman_region32_init(&output->damage_history[i]);
	}

	output_stage_default_mode(server, wlr_output, refresh_mhz);
	/* the config's settings for it, if any */
	struct vt_config_output oc;
	vt_config_output(&server->config, wlr_output->name, &oc);
	output_stage_config(wlr_output, &oc);
	if (!wlr_output_commit(wlr_output)) {
		wlr_log(WLR_ERROR, "%s: cannot enable the output with the "
			"config's settings; trying without them", wlr_output->name);
		wlr_output_rollback(wlr_output);
		oc = (struct vt_config_output){ 0 };
		output_stage_default_mode(server, wlr_output, refresh_mhz);
		wlr_output_enable(wlr_output, true);
		if (!wlr_output_commit(wlr_output)) {
			wlr_log(WLR_ERROR, "%s: cannot enable the output",
				wlr_output->name);
		}
	}
	output->soft_disabled = output_config_soft_disabled(wlr_output, &oc);
	vt_output_set_position(output, oc.has_position, oc.x, oc.y);

	/* Keep outputs in name order: placement ties and reports follow it. */
	struct wl_list *before = &server->outputs;
	struct vt_output *o;
	wl_list_for_each(o, &server->outputs, link) {
		if (strcmp(o->wlr_output->name, wlr_output->name) > 0) {
			before = &o->link;
			break;
		}
	}
	wl_list_insert(before->prev, &output->link);

	output->timer_fd = timerfd_create(CLOCK_MONOTONIC,
		TFD_NONBLOCK | TFD_CLOEXEC);
	if (output->timer_fd < 0) {
		wlr_log_errno(WLR_ERROR, "timerfd_create");
	} else {
		output->timer_source = wl_event_loop_add_fd(server->loop,
			output->timer_fd, WL_EVENT_READABLE, handle_timer, output);
	}
	output->slow_timer = wl_event_loop_add_timer(server->loop,
		handle_slow_timer, output);
	output->trim_timer = wl_event_loop_add_timer(server->loop,
		handle_trim_timer, output);
	output->model_clock = wlr_output_is_headless(wlr_output) &&
		output->timer_source != NULL;
	output_set_period(output);
	if (opts->pipeline == VT_PIPELINE_SYNC) {
		output->policy = &vt_policy_legacy;
	} else if (opts->pacing == VT_PACING_DVSYNC) {
		output->policy = &vt_policy_dvsync;
	} else {
		output->policy = &vt_policy_vsync;
	}
	output->pacer = vt_pacer_create(output->model_clock ?
		VT_PACER_CLOCK_MODEL : VT_PACER_CLOCK_BACKEND, output->period_ns,
		vt_now_ns(), output->policy, &pacer_impl, output);
	if (output->pacer == NULL) {
		wlr_log(WLR_ERROR, "%s: out of memory", wlr_output->name);
	} else if (output->policy == &vt_policy_dvsync) {
		vt_pacer_set_prerender(output->pacer, opts->prerender_count == 0 ?
			VT_PRERENDER_DEFAULT : opts->prerender[index <
			opts->prerender_count ? index : opts->prerender_count - 1]);
	}

	output->frame.notify = handle_frame;
	wl_signal_add(&wlr_output->events.frame, &output->frame);
	output->present.notify = handle_present;
	wl_signal_add(&wlr_output->events.present, &output->present);
	output->destroy.notify = handle_destroy;
	wl_signal_add(&wlr_output->events.destroy, &output->destroy);
	output->needs_frame.notify = handle_needs_frame;
	wl_signal_add(&wlr_output->events.needs_frame, &output->needs_frame);
	output->mode.notify = handle_mode;
	wl_signal_add(&wlr_output->events.mode, &output->mode);
	output->commit.notify = handle_commit;
	wl_signal_add(&wlr_output->events.commit, &output->commit);
	output->enabled = vt_output_enabled(output);

	output_update_target(output);
	arrange_outputs(server);
	wlr_log(WLR_INFO, "%s: %dx%d, refresh period %.3f ms, clock: %s, "
		"pacing: %s", wlr_output->name, wlr_output->width,
		wlr_output->height, output->period_ns / 1e6,
		output->model_clock ? "vitrail vblank model" : "backend",
		output->policy->name);
}

bool vt_output_set_power(struct vt_server *server,
		struct wlr_output *wlr_output, bool on) {
	struct vt_output *output = wlr_output->data;
	if (output == NULL || output->server != server) {
		return false;
	}
	if (wlr_output->enabled == on) {
		return true;
	}
	/* nothing of a frame goes with it */
	wlr_output_rollback(wlr_output);
	wlr_output_enable(wlr_output, on);
	if (!wlr_output_commit(wlr_output)) {
		/* wlroots 0.15's headless, wayland and x11 backends cannot */
		wlr_log(WLR_INFO, "%s: the backend cannot turn the output %s",
			wlr_output->name, on ? "on" : "off");
		return false;
	}
	wlr_log(WLR_INFO, "%s: powered %s", wlr_output->name, on ? "on" : "off");
	if (on) {
		output_damage_whole(output);
		output_request(output, VT_PACER_RENDER | VT_PACER_CALLBACKS);
	}
	return true;
}
