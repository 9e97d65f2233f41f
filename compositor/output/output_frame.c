/*
 * An output's frames: render, commit and present as the pacer asks, the
 * low-latency path's tearing, and the backend's events.
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
#include "output/client_dmabuf.h"
#include "output/engine.h"
#include "output/frame_log.h"
#include "output/output.h"
#include "pacing/jitt.h"
#include "pacing/pacer.h"
#include "server.h"
#include "util.h"

#include "output/output_internal.h"

/* ---- frames ------------------------------------------------------------- */

/* The frame ends: shown, replaced or dropped. Discarded feedback tells
 * the clients their content was not presented. */
static void handle_redraw_idle(void *data) {
	struct vt_output *output = data;
	output->redraw_idle = NULL;
	output_damage_whole(output);
}

void output_frame_destroy(struct output_frame *frame) {
	struct vt_output *output = frame->output;
	if (!wl_list_empty(&frame->timing_feedbacks) ||
			!wl_list_empty(&frame->presentation_feedbacks)) {
		/* Never shown (replaced, stale or failed): a later frame (it
		 * drew the tree later) shows those commits; without one, a new
		 * frame must. Both kinds of feedback report the frame that did
		 * show them (frame_timing.c, presentation.c). */
		struct wl_list *next = NULL, *next_presentation = NULL;
		uint64_t next_render_ns = 0;
		if (frame->link.next != &output->frames) {
			struct output_frame *later =
					wl_container_of(frame->link.next, later, link);
			next = &later->timing_feedbacks;
			next_presentation = &later->presentation_feedbacks;
			next_render_ns = later->record.render_start_ns;
		}
		struct vt_frame_dropped_event dropped = {
			.timing_feedbacks = &frame->timing_feedbacks,
			.next = next,
			.presentation_feedbacks = &frame->presentation_feedbacks,
			.next_presentation = next_presentation,
			.next_render_ns = next_render_ns,
		};
		wl_signal_emit(&output->server->frame_events.dropped, &dropped);
		if (!dropped.handled && !output->destroying &&
				output->redraw_idle == NULL) {
			/* not now: frames are destroyed from inside the pacer */
			output->redraw_idle = wl_event_loop_add_idle(output->server->loop,
					handle_redraw_idle, output);
		}
	}
	if (frame->buffer != NULL) {
		wlr_buffer_unlock(frame->buffer->wlr_buffer);
	}
	if (frame->scanout != NULL) {
		wlr_buffer_unlock(frame->scanout);
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
	if (input_ns != 0 &&
			(frame->record.input_ns == 0 ||
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
	struct vt_server *server = drawn->output->server;
	if (drawn->frame != NULL) {
		/* the path manager (its latest commit is shown, if it was
		 * unsampled), then frame timing (its feedbacks go with the
		 * frame); neither looks at what this does in between */
		struct vt_frame_surface_event sampled = {
			.surface = surface,
			.timing_feedbacks = &drawn->frame->timing_feedbacks,
			.presentation_feedbacks = &drawn->frame->presentation_feedbacks,
			.unsampled = surface->unsampled,
		};
		surface->unsampled = false;
		frame_take_input(drawn->frame, surface);
		wl_signal_emit(&server->frame_events.surface_sampled, &sampled);
	}
	if (drawn->frame_done && surface->unsampled) {
		/* Its new content is in no frame yet (it came after this
		 * vblank's frame started): a callback now would let it draw
		 * again over a commit never shown. It gets one at the vblank
		 * after the frame that draws it. */
		drawn->held = true;
	} else if (drawn->frame_done) {
		/* the path manager says whether it goes now */
		struct vt_frame_surface_event vblank = {
			.surface = surface,
			.send = true,
		};
		wl_signal_emit(&server->frame_events.vblank_callback, &vblank);
		if (vblank.send) {
			wlr_surface_send_frame_done(surface->wlr_surface, &drawn->now);
		}
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
bool output_read(struct vt_output *output, const pixman_region32_t *region,
		void *data, int32_t stride) {
	if (output->dest == NULL) {
		return false;
	}
	/* the newest frame drawn, complete (frames in flight waited for) */
	output_wait_renderer(output);
	struct output_buffer *latest = output->latest;
	/* or the client buffer the newest frame, or the screen, shows as it
	 * is (direct scan-out) */
	struct wlr_buffer *scanout = output->scanout_front;
	if (!wl_list_empty(&output->frames)) {
		/* drawn, though not yet seen completed by the event loop */
		struct output_frame *newest =
				wl_container_of(output->frames.prev, newest, link);
		if (!newest->failed) {
			latest = newest->buffer;
			scanout = newest->scanout;
		}
	}
	if (scanout != NULL) {
		return output_scanout_read(scanout, region, data, stride);
	}
	return vr_engine_output_read(output->dest,
			latest != NULL ? latest->pixels : NULL, region, data, stride);
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
	if (!frame->failed && frame->buffer != NULL) {
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

int output_handle_slow_timer(void *data) {
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

void vt_outputs_lose_renderer(struct vt_server *server) {
	wlr_log(WLR_ERROR,
			"the Vulkan device is lost: the CPU backend draws "
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
			vr_engine_buffer_destroy(buffer->pixels);
			buffer->pixels = NULL;
		}
		vr_engine_output_destroy(output->dest);
		output->dest = NULL;
		output->latest = NULL;
	}
	vt_server_drop_renderer(server);
	vt_server_use_cpu_backend(server);
	if (!vt_server_set_engine(server)) {
		wlr_log(WLR_ERROR, "no engine left to draw with");
	}
	uint64_t now = vt_now_ns();
	wl_list_for_each(output, &server->outputs, link) {
		/* a new frame, all of it, and every buffer redrawn; into host
		 * memory (the dma-bufs in use are drawn through their mapping
		 * until they are free) */
		output_update_target(output);
		output_refuse_dmabufs(output, "the Vulkan device was lost");
		struct output_buffer *buffer;
		wl_list_for_each(buffer, &output->buffers, link) {
			output_buffer_attach_engine(buffer);
		}
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

void output_handle_engine_completed(struct wl_listener *listener, void *data) {
	vt_outputs_frames_completed(data);
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
			if (!frame->ready && !frame->finished && frame->render_id != 0 &&
					frame->render_id <= done) {
				frame_finished(frame, now);
			}
		}
	}
}

/* Compose the frame: draw into its output buffer what that buffer lacks
 * (draw: the output pixels this frame changes). False: rendering failed
 * and the frame is gone. */
static bool frame_compose(struct output_frame *frame, pixman_region32_t *draw,
		bool tear) {
	struct vt_output *output = frame->output;
	struct vt_server *server = output->server;
	struct output_buffer *buffer = frame->buffer;
	/* Every buffer now lacks this frame's changes; this one gets them
	 * and whatever it missed before (buffer age), its pixels moved first
	 * where the frames since only moved them (shift-and-expose). */
	const struct vr_move *move =
			output->pending.has_move ? &output->pending.move : NULL;
	struct output_buffer *b;
	wl_list_for_each(b, &output->buffers, link) {
		vr_changes_compose(&b->changes, move, draw);
	}
	/* One engine, whichever draws: this frame's move and damage, and
	 * what this buffer lacks (this frame's changes and those it missed
	 * while others were drawn: buffer age); the engine takes what it
	 * needs. */
	struct vr_engine *engine = server->engine;
	bool sync = server->opts.pipeline == VT_PIPELINE_SYNC;
	struct vr_engine_frame job = {
		.output = output->dest,
		.buffer = buffer->pixels,
		.view = vt_output_view(output),
		.clear = { 0, 0, 0, 1 },
		.move = move,
		.damage = draw,
		.buffer_changes = &buffer->changes,
	};
	bool ok;
	if (engine == NULL || buffer->pixels == NULL) {
		ok = false; /* nothing to draw with or into (logged before) */
	} else if (sync) {
		ok = vr_engine_render(engine, server->tree, &job,
				&frame->record.timing);
	} else {
		frame->render_id = vr_engine_submit(engine, server->tree, &job);
		ok = frame->render_id != 0;
	}
	frame->record.moved_px = job.moved_px;
	frame->record.drawn_px = job.drawn_px;
	if (!ok) {
		wlr_log(WLR_ERROR, "%s: rendering failed", output->wlr_output->name);
		/* the changes stay pending, composed into the buffers once
		 * already: nothing is left to move, all of it to redraw */
		wl_list_for_each(b, &output->buffers, link) {
			vr_changes_flatten(&b->changes);
		}
		vr_changes_flatten(&output->pending);
		output_frame_destroy(frame);
		return false;
	}
	if (!vr_engine_buffer_direct(buffer->pixels)) {
		/* not written by the engine: copied out once ready */
		pixman_region32_copy(&frame->cpu_copy, &buffer->changes.damage);
	}
	vr_changes_clear(&buffer->changes);
	pixman_region32_copy(&frame->damage, draw);
	if (move != NULL) {
		/* what changed on screen: the moved pixels too */
		pixman_region32_union_rect(&frame->damage, &frame->damage, move->box.x,
				move->box.y, (unsigned)move->box.width,
				(unsigned)move->box.height);
	}
	if (tear) {
		pixman_region32_subtract(&output->pending.damage,
				&output->pending.damage, draw);
		frame->record.path = "torn";
	} else {
		vr_changes_clear(&output->pending);
	}
	return true;
}

/* output_pacer_impl.render: draw the pending damage for display time display_ns
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
		/* frame timing latches, the scene samples, then the scroll
		 * regions on this output take their windows at display_ns (a
		 * fling is a function of it): listeners in that order */
		struct vt_frame_sample_event sample = {
			.output = output,
			.display_ns = display_ns,
			.period_ns = output->period_ns,
			.scene_samples = samples,
			.scene_samples_len = sizeof(samples),
			.scroll_samples = scroll_samples,
			.scroll_samples_len = sizeof(scroll_samples),
		};
		wl_signal_emit(&server->frame_events.sample, &sample);
		queued = sample.queued;
	}
	vt_server_update(server);
	uint32_t nodes_updated = server->nodes_updated;
	uint32_t lists_recorded = server->lists_recorded;
	server->nodes_updated = 0;
	server->lists_recorded = 0;
	struct vt_frame_busy_event busy = {
		.server = server,
		.queued_known = true,
		.queued = queued,
		.horizon = UINT64_MAX,
	};
	wl_signal_emit(&server->frame_events.busy, &busy);
	if (busy.animating || busy.queued) {
		/* Animated outputs keep rendering: every frame samples them
		 * (and latches queued commits). */
		output_request(output, VT_PACER_RENDER);
	}
	/* A client buffer shown as it is, where the output can (only when
	 * something changed); otherwise a composed frame, which draws all of
	 * the output after frames shown that way. */
	struct wlr_buffer *scanout = NULL;
	if (!tear && output->dest != NULL &&
			pixman_region32_not_empty(&output->pending.damage)) {
		scanout = output_scanout_buffer(output);
	}
	if (scanout == NULL && output->composed_stale) {
		if (tear) {
			return NULL; /* drawn in place: the next frame draws all */
		}
		output->composed_stale = false;
		vr_changes_damage_all(&output->pending,
				&(struct vr_box){ 0, 0, output->wlr_output->width,
						output->wlr_output->height });
	}
	/* what this frame draws: the pending damage, or a torn frame's part
	 * of it */
	pixman_region32_t *draw = &output->pending.damage;
	if (tear) {
		/* a torn frame draws its part in place: pixels still to move
		 * are redrawn instead (by this frame or the next) */
		vr_changes_flatten(&output->pending);
		pixman_region32_intersect(&output->tear_region, &output->tear_region,
				&output->pending.damage);
		draw = &output->tear_region;
	}
	if (output->dest == NULL || !pixman_region32_not_empty(draw)) {
		return NULL;
	}
	struct output_buffer *buffer = NULL;
	if (scanout == NULL) {
		buffer = output_acquire_buffer(output);
		if (buffer == NULL) {
			return NULL; /* damage stays pending until a buffer is free */
		}
	}
	struct output_frame *frame = calloc(1, sizeof(*frame));
	if (frame == NULL) {
		wlr_buffer_unlock(buffer != NULL ? buffer->wlr_buffer : scanout);
		return NULL;
	}
	frame->output = output;
	frame->buffer = buffer;
	frame->scanout = scanout;
	/* the session lock (lock_epoch), the test protocol (slow_us,
	 * stall_ms) answer */
	struct vt_frame_begin_event begin = { .output = output };
	wl_signal_emit(&server->frame_events.begin, &begin);
	frame->lock_epoch = begin.lock_epoch;
	pixman_region32_init(&frame->damage);
	pixman_region32_init(&frame->cpu_copy);
	wl_list_init(&frame->presentation_feedbacks);
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

	uint32_t slow_us = begin.slow_us;
	if (slow_us > 0) {
		frame->ready_not_before_ns = start + (uint64_t)slow_us * 1000;
	}
	uint32_t stall_ms = begin.stall_ms;
	if (stall_ms > 0) {
		/* Test protocol: this frame renders late. */
		struct timespec stall = {
			.tv_sec = stall_ms / 1000,
			.tv_nsec = (long)(stall_ms % 1000) * 1000000,
		};
		nanosleep(&stall, NULL);
	}

	if (scanout != NULL) {
		/* shown as it is: all of the output changes, and the target
		 * and every output buffer miss it */
		output->composed_stale = true;
		pixman_region32_union_rect(&frame->damage, &frame->damage, 0, 0,
				(unsigned)output->wlr_output->width,
				(unsigned)output->wlr_output->height);
		vr_changes_clear(&output->pending);
		frame->record.path = "scanout";
	} else if (!frame_compose(frame, draw, tear)) {
		return NULL;
	}

	/* the surfaces this frame shows: their presentation feedback
	 * belongs to it */
	struct drawn_surfaces drawn = { .output = output,
		.frame = frame,
		.only = tear ? output->tear_surface : NULL };
	output_for_each_drawn(output, &drawn);

	/* a frame shown as it is, or drawn synchronously, is ready now */
	bool sync = scanout != NULL || server->opts.pipeline == VT_PIPELINE_SYNC;
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
		wlr_log(WLR_ERROR, "%s: cannot get an output buffer", wlr_output->name);
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
	pixman_image_t *dst =
			wlr_pixman_renderer_get_current_image(output->server->wlr_renderer);
	if (dst != NULL && pixman_region32_not_empty(&copy)) {
		if (source != NULL && source->data != NULL) {
			pixman_image_t *src = pixman_image_create_bits_no_clear(
					PIXMAN_x8r8g8b8, source->wlr_buffer->width,
					source->wlr_buffer->height, source->data,
					(int)source->stride);
			pixman_image_set_clip_region32(dst, &copy);
			pixman_image_composite32(PIXMAN_OP_SRC, src, NULL, dst, 0, 0, 0, 0,
					0, 0, wlr_output->width, wlr_output->height);
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

/* output_pacer_impl.commit */
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
	struct output_buffer *buffer =
			frame != NULL ? frame->buffer : output->front;
	/* a client buffer shown as it is (direct scan-out): the frame's, or,
	 * committing without one, the one on screen */
	struct wlr_buffer *scanout =
			frame != NULL ? frame->scanout : output->scanout_front;
	const pixman_region32_t *damage = frame != NULL ? &frame->damage : NULL;
	bool direct = buffer != NULL && wlr_output->attach_render_locks == 0 &&
			output->server->opts.pipeline == VT_PIPELINE_ASYNC;
	if (scanout != NULL) {
		wlr_output_attach_buffer(wlr_output, scanout);
		direct = false;
	} else if (direct) {
		/* the very buffer the renderer wrote */
		wlr_output_attach_buffer(wlr_output, buffer->wlr_buffer);
		if (frame != NULL) {
			frame->on_device = buffer->pixels != NULL &&
					vr_engine_buffer_on_device(buffer->pixels);
		}
	} else if (!output_attach_render(output, buffer, damage,
					   frame != NULL ? &frame->record : NULL)) {
		return false;
	}

	/* Damage hint for nested backends (wl_surface.damage upstream). */
	pixman_region32_t *frame_damage =
			&output->damage_history[(output->damage_idx + 1) % DAMAGE_HISTORY];
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
		if (scanout != NULL && wlr_output->attach_render_locks == 0) {
			/* passed the test, failed the commit: composed for a while */
			output->scanout_refused = scanout;
			output->scanout_refused_seq = output->frame_seq;
		}
		if (direct && buffer->dmabuf) {
			/* the backend (or the parent) does not take them */
			output_refuse_dmabufs(output, "the backend refused one");
		}
		output_damage_whole(output);
		return false;
	}
	output->damage_idx = (output->damage_idx + 1) % DAMAGE_HISTORY;
	/* the buffer on screen: ours when attached directly, or the client's
	 * (held until another replaces it); otherwise wlroots' swapchain's,
	 * and ours go back to the pool */
	output->front = direct ? buffer : NULL;
	output->swapchain_history = !direct && scanout == NULL;
	if (scanout != output->scanout_front) {
		if (scanout != NULL) {
			wlr_buffer_lock(scanout);
		}
		if (output->scanout_front != NULL) {
			wlr_buffer_unlock(output->scanout_front);
		}
		output->scanout_front = scanout;
	}
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

/* output_pacer_impl.discard: never shown. */
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
	output_frame_destroy(frame);
}

/* output_pacer_impl.frame_done */
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

/* output_pacer_impl.arm */
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

/* output_pacer_impl.request_backend_frame */
static void output_request_backend_frame(void *data) {
	struct vt_output *output = data;
	wlr_output_schedule_frame(output->wlr_output);
}

const struct vt_pacer_impl output_pacer_impl = {
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
	if (output->pacer == NULL || !output->model_clock || !server->has_pointer) {
		return 0;
	}
	int px, py;
	output_pointer(output, &px, &py);
	struct vt_scanout scanout = output_scanout(output);
	return vt_scanout_row_ns(&scanout, 0, py - server->config.tearing_box / 2);
}

bool vt_output_tear(struct vt_output *output, struct vt_surface *surface,
		uint64_t now, uint64_t *shown_ns, bool *fits) {
	struct vt_server *server = output->server;
	*fits = false;
	if (output->pacer == NULL || !output->model_clock ||
			server->engine == NULL || !server->has_pointer ||
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
	*fits = !empty && vt_par_fits(&box, px, py, server->config.tearing_box);
	if (vt_pacer_queued(output->pacer) > 0) {
		pixman_region32_fini(&damage);
		return false; /* a frame is on its way to the next refresh */
	}
	const struct vt_clock *clock = vt_pacer_clock(output->pacer);
	uint64_t period = vt_clock_period(clock);
	struct vt_scanout scanout = output_scanout(output);
	/* the refresh being scanned out began at the last vblank */
	uint64_t vblank = vt_clock_next_vblank(clock, now) - period;
	uint64_t write_ns = vt_pacer_composition_ns(output->pacer);
	uint64_t shown = 0;
	bool ok = !empty &&
			vt_par_decide(&scanout, vblank, now, write_ns, &box, px, py,
					server->config.tearing_box, &shown);
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

void output_handle_needs_frame(struct wl_listener *listener, void *data) {
	struct vt_output *output = wl_container_of(listener, output, needs_frame);
	output_request(output, VT_PACER_COMMIT);
}

int output_handle_timer(int fd, uint32_t mask, void *data) {
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

void output_handle_frame(struct wl_listener *listener, void *data) {
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

/* frame_events.shown: the frame's pixels, those of buffer (data, stride
 * bytes a row), as the screen showed them at presented_ns. */
static void frame_emit_shown(struct output_frame *frame,
		const struct wlr_buffer *buffer, const void *data, size_t stride,
		uint64_t presented_ns) {
	struct vt_frame_shown_event shown = {
		.output = frame->output,
		.seq = frame->record.seq,
		.data = data,
		.stride = stride,
		.width = buffer->width,
		.height = buffer->height,
		.damage = &frame->damage,
		.presented_ns = presented_ns,
	};
	wl_signal_emit(&frame->output->server->frame_events.shown, &shown);
}

/* A committed frame was shown (or not): close it. */
static void frame_presented(struct output_frame *frame,
		const struct wlr_output_event_present *event) {
	struct vt_output *output = frame->output;
	uint64_t presented_ns =
			event->when != NULL ? vt_timespec_to_ns(event->when) : vt_now_ns();
	bool late = vt_pacer_presented(output->pacer, frame, event->presented,
			presented_ns, event->refresh > 0 ? (uint64_t)event->refresh : 0);
	/* a client buffer scanned out as it is: zero-copy, whatever the
	 * backend says */
	struct wlr_output_event_present shown_event = *event;
	if (frame->scanout != NULL) {
		shown_event.flags |= WLR_OUTPUT_PRESENT_ZERO_COPY;
	}
	if (event->presented) {
		struct vt_frame_presented_event presented = {
			.output = output,
			.timing_feedbacks = &frame->timing_feedbacks,
			.presentation_feedbacks = &frame->presentation_feedbacks,
			.present = &shown_event,
			.presented_ns = presented_ns,
			.display_ns = frame->record.display_ns,
		};
		wl_signal_emit(&output->server->frame_events.presented, &presented);
		if (frame->lock_epoch > output->lock_epoch_shown) {
			output->lock_epoch_shown = frame->lock_epoch;
			wl_signal_emit(&output->server->frame_events.lock_shown,
					output->server);
		}
	}
	/* An output's first frame has nothing on screen to repeat: it is not
	 * a dropped refresh however long it took. */
	if (output->stats.frames == 0 && event->presented) {
		late = false;
	}
	frame->record.presented_ns = event->presented ? presented_ns : 0;
	frame->record.dropped = late;
	if (event->presented && frame->on_device) {
		output->stats.dmabuf++;
	}
	if (event->presented && frame->buffer != NULL) {
		frame_emit_shown(frame, frame->buffer->wlr_buffer, frame->buffer->data,
				frame->buffer->stride, presented_ns);
	}
	void *data;
	uint32_t format;
	size_t stride;
	if (event->presented && frame->scanout != NULL) {
		output->stats.scanout++;
		/* the client's pixels, as the screen shows them */
		if (vt_client_buffer_begin_read(frame->scanout, &data, &format,
					&stride)) {
			frame_emit_shown(frame, frame->scanout, data, stride, presented_ns);
			vt_client_buffer_end_read(frame->scanout);
		}
	}
	stats_add(output, frame->record.main_thread_ns);
	vt_frame_log_write(output->server->frame_log, &frame->record);
	output_frame_destroy(frame);
}

void output_handle_present(struct wl_listener *listener, void *data) {
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
	wl_signal_emit(&output->server->events.check_settled, output->server);
}
