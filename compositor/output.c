/*
 * Outputs and their frame pacing.
 *
 * Each output keeps a small queue of finished frames (output buffers that
 * already hold rendered pixels) and commits one per refresh. Its clock is
 * explicit: on DRM and nested outputs the backend's frame and present
 * events (page flips, the parent compositor's presentation feedback); on
 * headless outputs vitrail's own vblank model, a timerfd at the configured
 * refresh with nanosecond deadlines (wlroots' headless timer has
 * millisecond resolution and drifts).
 *
 * The vsync path below renders one frame per vblank when there is damage.
 * The queue is the seam where pre-rendering (D-VSync) and the low-latency
 * path plug in: they decide when to render and which vblank a frame
 * targets; committing stays here.
 */
#include <assert.h>
#include <drm_fourcc.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <wlr/backend/headless.h>
#include <wlr/backend/x11.h>
#include <wlr/interfaces/wlr_output.h>
#include <wlr/render/allocator.h>
#include <wlr/render/drm_format_set.h>
#include <wlr/render/pixman.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_presentation_time.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/util/log.h>

#include "scene.h"
#include "server.h"

#define OUTPUT_BUFFERS_MAX 4

static struct wlr_box output_box(struct vt_output *output) {
	struct wlr_box *box = wlr_output_layout_get_box(output->server->layout,
		output->wlr_output);
	return box != NULL ? *box : (struct wlr_box){ 0 };
}

struct vr_mat vt_output_view(struct vt_output *output) {
	struct wlr_box box = output_box(output);
	float scale = output->wlr_output->scale;
	return (struct vr_mat){
		.a = scale,
		.d = scale,
		.tx = -box.x * scale,
		.ty = -box.y * scale,
	};
}

struct vt_output *vt_output_at(struct vt_server *server, double lx,
		double ly) {
	struct wlr_output *wlr_output =
		wlr_output_layout_output_at(server->layout, lx, ly);
	return wlr_output != NULL ? wlr_output->data : NULL;
}

/* ---- output buffers ----------------------------------------------------- */

static void buffer_destroy(struct vt_buffer *buffer) {
	wl_list_remove(&buffer->link);
	wl_list_remove(&buffer->release.link);
	pixman_region32_fini(&buffer->stale);
	wlr_buffer_drop(buffer->wlr_buffer);
	free(buffer);
}

static void buffer_handle_release(struct wl_listener *listener, void *data) {
	struct vt_buffer *buffer = wl_container_of(listener, buffer, release);
	buffer->busy = false;
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

static void output_drop_buffers(struct vt_output *output, bool all) {
	struct vt_buffer *buffer, *tmp;
	wl_list_for_each_safe(buffer, tmp, &output->buffers, link) {
		if (all || !buffer->busy) {
			buffer_destroy(buffer);
		}
	}
}

/* A free output buffer of the output's size, its lock held by the caller
 * until the frame is committed or dropped. */
static struct vt_buffer *output_acquire_buffer(struct vt_output *output) {
	int width = output->wlr_output->width;
	int height = output->wlr_output->height;
	if (width != output->buffer_width || height != output->buffer_height) {
		output_drop_buffers(output, false);
		output->buffer_width = width;
		output->buffer_height = height;
	}
	int count = 0;
	struct vt_buffer *buffer;
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
	struct wlr_buffer *wlr_buffer = wlr_allocator_create_buffer(
		output->server->allocator, width, height, output_buffer_format());
	if (wlr_buffer == NULL) {
		wlr_log(WLR_ERROR, "%s: cannot allocate a %dx%d output buffer",
			output->wlr_output->name, width, height);
		return NULL;
	}
	buffer = calloc(1, sizeof(*buffer));
	if (buffer == NULL) {
		wlr_buffer_drop(wlr_buffer);
		return NULL;
	}
	buffer->wlr_buffer = wlr_buffer;
	pixman_region32_init_rect(&buffer->stale, 0, 0, width, height);
	buffer->release.notify = buffer_handle_release;
	wl_signal_add(&wlr_buffer->events.release, &buffer->release);
	wl_list_insert(output->buffers.prev, &buffer->link);
found:
	buffer->busy = true;
	wlr_buffer_lock(buffer->wlr_buffer);
	return buffer;
}

/* ---- damage ------------------------------------------------------------- */

void vt_output_add_damage(struct vt_output *output,
		const pixman_region32_t *layout_damage) {
	struct wlr_box box = output_box(output);
	float scale = output->wlr_output->scale;
	int nrects;
	const pixman_box32_t *rects =
		pixman_region32_rectangles((pixman_region32_t *)layout_damage, &nrects);
	bool any = false;
	for (int i = 0; i < nrects; i++) {
		int x1 = (int)floorf((rects[i].x1 - box.x) * scale);
		int y1 = (int)floorf((rects[i].y1 - box.y) * scale);
		int x2 = (int)ceilf((rects[i].x2 - box.x) * scale);
		int y2 = (int)ceilf((rects[i].y2 - box.y) * scale);
		if (x1 < 0) {
			x1 = 0;
		}
		if (y1 < 0) {
			y1 = 0;
		}
		if (x2 > output->wlr_output->width) {
			x2 = output->wlr_output->width;
		}
		if (y2 > output->wlr_output->height) {
			y2 = output->wlr_output->height;
		}
		if (x1 >= x2 || y1 >= y2) {
			continue;
		}
		pixman_region32_union_rect(&output->pending_damage,
			&output->pending_damage, x1, y1, x2 - x1, y2 - y1);
		any = true;
	}
	if (any) {
		output->wants_frame = true;
		vt_output_schedule_frame(output);
	}
}

void vt_output_damage_whole(struct vt_output *output) {
	pixman_region32_union_rect(&output->pending_damage,
		&output->pending_damage, 0, 0, output->wlr_output->width,
		output->wlr_output->height);
	output->wants_frame = true;
	vt_output_schedule_frame(output);
}

/* ---- clock -------------------------------------------------------------- */

static uint64_t model_next_vblank(struct vt_output *output, uint64_t now) {
	uint64_t n = (now - output->vblank_base_ns) / output->period_ns + 1;
	return output->vblank_base_ns + n * output->period_ns;
}

static void model_arm(struct vt_output *output) {
	if (output->timer_armed) {
		return;
	}
	output->next_vblank_ns = model_next_vblank(output, vt_now_ns());
	struct itimerspec its = { 0 };
	vt_ns_to_timespec(output->next_vblank_ns, &its.it_value);
	if (timerfd_settime(output->timer_fd, TFD_TIMER_ABSTIME, &its, NULL) != 0) {
		wlr_log_errno(WLR_ERROR, "timerfd_settime");
		return;
	}
	output->timer_armed = true;
}

void vt_output_schedule_frame(struct vt_output *output) {
	if (output->model_clock) {
		model_arm(output);
	} else {
		wlr_output_schedule_frame(output->wlr_output);
	}
}

static void output_set_period(struct vt_output *output) {
	int mhz = output->wlr_output->refresh;
	if (mhz <= 0) {
		mhz = output->server->opts.refresh_mhz;
	}
	output->period_ns = (uint64_t)(1e12 / mhz);
}

/* ---- frames ------------------------------------------------------------- */

static void frame_release(struct vt_frame *frame) {
	if (frame->buffer != NULL) {
		wlr_buffer_unlock(frame->buffer->wlr_buffer);
		frame->buffer = NULL;
	}
}

struct surfaces_drawn {
	struct vt_output *output;
	bool sampled; /* a new frame holds them: presentation feedback */
	bool frame_done; /* clients may draw their next frame */
	struct timespec now;
};

static void surfaces_drawn_iter(struct vr_node *node, void *data) {
	struct surfaces_drawn *drawn = data;
	struct vt_surface *surface = vr_node_user_data(node);
	if (surface == NULL) {
		return;
	}
	if (drawn->sampled) {
		wlr_presentation_surface_sampled_on_output(
			drawn->output->server->presentation, surface->wlr_surface,
			drawn->output->wlr_output);
	}
	if (drawn->frame_done) {
		wlr_surface_send_frame_done(surface->wlr_surface, &drawn->now);
	}
}

/* One pass over the surfaces drawn on the output after a refresh. */
static void output_surfaces_drawn(struct vt_output *output, bool sampled) {
	struct surfaces_drawn drawn = {
		.output = output,
		.sampled = sampled,
		.frame_done = !output->server->hold_frames,
	};
	if (!drawn.sampled && !drawn.frame_done) {
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &drawn.now);
	struct wlr_box box = output_box(output);
	struct vr_box area = { box.x, box.y, box.width, box.height };
	vr_tree_for_each_drawn(output->server->tree, &area, surfaces_drawn_iter,
		&drawn);
}

/* Render the pending damage into a free output buffer and queue it for
 * the vblank at target_ns. */
static bool output_render(struct vt_output *output, uint64_t target_ns) {
	struct vt_server *server = output->server;
	if (output->queue_len >= VT_FRAME_QUEUE_MAX) {
		return false;
	}
	/* Scene animations take their values at this frame's display time,
	 * right before the tree update that turns them into damage. */
	char samples[VT_SCENE_SAMPLES_LEN] = "";
	vt_scene_sample(server, target_ns, samples, sizeof(samples));
	vt_server_update(server);
	uint32_t nodes_updated = server->nodes_updated;
	uint32_t lists_recorded = server->lists_recorded;
	server->nodes_updated = 0;
	server->lists_recorded = 0;
	if (!pixman_region32_not_empty(&output->pending_damage)) {
		return false;
	}
	struct vt_buffer *buffer = output_acquire_buffer(output);
	if (buffer == NULL) {
		return false; /* damage stays pending; retried next vblank */
	}

	struct vt_frame frame = {
		.buffer = buffer,
		.seq = ++output->frame_seq,
		.generation = vr_tree_generation(server->tree),
		.target_ns = target_ns,
		.render_start_ns = vt_now_ns(),
		.nodes_updated = nodes_updated,
		.lists_recorded = lists_recorded,
	};
	memcpy(frame.scene_samples, samples, sizeof(samples));
	uint32_t stall_ms = vt_test_take_stall_ms(server);
	if (stall_ms > 0) {
		/* Test protocol: this frame renders late. */
		struct timespec stall = {
			.tv_sec = stall_ms / 1000,
			.tv_nsec = (long)(stall_ms % 1000) * 1000000,
		};
		nanosleep(&stall, NULL);
	}
	struct vr_render_job job = {
		.target = output->target,
		.view = vt_output_view(output),
		.damage = &output->pending_damage,
		.clear = { 0, 0, 0, 1 },
	};
	if (!vr_render(server->renderer, server->tree, &job, 1)) {
		wlr_log(WLR_ERROR, "%s: rendering failed", output->wlr_output->name);
		frame_release(&frame);
		return false;
	}
	frame.timing = job.timing;

	/* Every buffer now lacks this frame's damage; bring this one up to
	 * date from the renderer's host mirror. */
	struct vt_buffer *b;
	wl_list_for_each(b, &output->buffers, link) {
		pixman_region32_union(&b->stale, &b->stale, &output->pending_damage);
	}
	uint64_t copy_start = vt_now_ns();
	void *data;
	uint32_t format;
	size_t stride;
	if (wlr_buffer_begin_data_ptr_access(buffer->wlr_buffer,
			WLR_BUFFER_DATA_PTR_ACCESS_WRITE, &data, &format, &stride)) {
		vr_target_read(output->target, &buffer->stale, data, (int32_t)stride);
		wlr_buffer_end_data_ptr_access(buffer->wlr_buffer);
		pixman_region32_clear(&buffer->stale);
	} else {
		wlr_log(WLR_ERROR, "%s: output buffer is not CPU-accessible",
			output->wlr_output->name);
	}
	frame.render_end_ns = vt_now_ns();
	frame.copy_ns = frame.render_end_ns - copy_start;
	pixman_region32_init(&frame.damage);
	pixman_region32_copy(&frame.damage, &output->pending_damage);
	pixman_region32_clear(&output->pending_damage);

	output->queue[output->queue_len++] = frame;
	return true;
}

/* Damage between the frame on screen and the one `age` commits before it
 * (the swapchain buffer's age); NULL when unknown: copy everything. */
static bool output_damage_since(struct vt_output *output, int age,
		pixman_region32_t *region) {
	if (age <= 0 || age > VT_DAMAGE_HISTORY) {
		return false;
	}
	for (int i = 0; i < age - 1; i++) {
		int idx = (output->damage_idx - i + VT_DAMAGE_HISTORY) %
			VT_DAMAGE_HISTORY;
		pixman_region32_union(region, region, &output->damage_history[idx]);
	}
	return true;
}

/* Commit one frame: wlroots' output swapchain buffer (the one screencopy
 * reads) gets the frame's pixels where it is out of date. `source` is the
 * queued frame's buffer, or NULL to re-commit what the renderer last drew
 * (a commit without new content: screencopy and idle frame requests). */
static bool output_commit(struct vt_output *output, struct vt_frame *frame) {
	struct wlr_output *wlr_output = output->wlr_output;
	if (output->model_clock && wlr_output->frame_pending) {
		/* We are this output's clock: this is its vblank. */
		wlr_output_send_frame(wlr_output);
	}
	int age = 0;
	if (!wlr_output_attach_render(wlr_output, &age)) {
		wlr_log(WLR_ERROR, "%s: cannot get an output buffer",
			wlr_output->name);
		return false;
	}
	uint64_t copy_start = vt_now_ns();
	pixman_region32_t copy;
	pixman_region32_init(&copy);
	if (frame != NULL) {
		pixman_region32_copy(&copy, &frame->damage);
	}
	if (!output_damage_since(output, age, &copy)) {
		pixman_region32_fini(&copy);
		pixman_region32_init_rect(&copy, 0, 0, wlr_output->width,
			wlr_output->height);
	}
	pixman_image_t *dst = wlr_pixman_renderer_get_current_image(
		output->server->wlr_renderer);
	if (dst != NULL && pixman_region32_not_empty(&copy)) {
		if (frame != NULL && frame->buffer != NULL) {
			void *data;
			uint32_t format;
			size_t stride;
			if (wlr_buffer_begin_data_ptr_access(frame->buffer->wlr_buffer,
					WLR_BUFFER_DATA_PTR_ACCESS_READ, &data, &format,
					&stride)) {
				pixman_image_t *src = pixman_image_create_bits_no_clear(
					PIXMAN_x8r8g8b8, frame->buffer->wlr_buffer->width,
					frame->buffer->wlr_buffer->height, data, (int)stride);
				pixman_image_set_clip_region32(dst, &copy);
				pixman_image_composite32(PIXMAN_OP_SRC, src, NULL, dst,
					0, 0, 0, 0, 0, 0, wlr_output->width, wlr_output->height);
				pixman_image_set_clip_region32(dst, NULL);
				pixman_image_unref(src);
				wlr_buffer_end_data_ptr_access(frame->buffer->wlr_buffer);
			}
		} else {
			vr_target_read(output->target, &copy,
				pixman_image_get_data(dst), pixman_image_get_stride(dst));
		}
	}
	pixman_region32_fini(&copy);
	uint64_t copy_ns = vt_now_ns() - copy_start;

	/* Damage hint for nested backends (wl_surface.damage upstream). */
	pixman_region32_t *frame_damage = &output->damage_history[
		(output->damage_idx + 1) % VT_DAMAGE_HISTORY];
	pixman_region32_clear(frame_damage);
	if (frame != NULL) {
		pixman_region32_copy(frame_damage, &frame->damage);
	}
	wlr_output_set_damage(wlr_output, frame_damage);

	struct vt_frame in_flight = { 0 };
	if (frame != NULL) {
		in_flight = *frame;
		in_flight.buffer = NULL;
		in_flight.copy_ns += copy_ns;
	}
	in_flight.commit_ns = vt_now_ns();
	if (!output->model_clock && output->last_present_ns != 0) {
		/* The vblank this commit can make at the earliest: on the grid
		 * of the last presentation, after the shortest commit-to-light
		 * latency seen (a nested compositor adds its own frames). */
		uint64_t earliest = in_flight.commit_ns + output->min_latency_ns;
		uint64_t n = earliest > output->last_present_ns ?
			(earliest - output->last_present_ns + output->period_ns - 1) /
			output->period_ns : 0;
		in_flight.target_ns = output->last_present_ns + n * output->period_ns;
	} else if (!output->model_clock) {
		in_flight.target_ns = 0;
	}
	/* Some backends send the present event from inside the commit. */
	in_flight.commit_seq = wlr_output->commit_seq + 1;
	in_flight.committed = true;
	if (frame != NULL) {
		if (output->in_flight_len == VT_FRAME_QUEUE_MAX) {
			/* Never presented; the backend dropped it silently. */
			output->stats.dropped++;
			memmove(&output->in_flight[0], &output->in_flight[1],
				(VT_FRAME_QUEUE_MAX - 1) * sizeof(output->in_flight[0]));
			output->in_flight_len--;
		}
		output->in_flight[output->in_flight_len++] = in_flight;
	}
	if (!wlr_output_commit(wlr_output)) {
		wlr_log(WLR_ERROR, "%s: commit failed", wlr_output->name);
		if (frame != NULL) {
			output->in_flight_len--;
		}
		vt_output_damage_whole(output);
		return false;
	}
	output->damage_idx = (output->damage_idx + 1) % VT_DAMAGE_HISTORY;
	if (output->model_clock) {
		/* wlroots' headless backend reports "presented" from inside the
		 * commit, before wp_presentation can match it: as this output's
		 * clock, we report the vblank it scans out at. */
		struct timespec when;
		vt_ns_to_timespec(output->next_vblank_ns, &when);
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

static void frame_finish(struct vt_frame *frame) {
	frame_release(frame);
	pixman_region32_fini(&frame->damage);
}

static bool output_commit_head(struct vt_output *output) {
	if (output->queue_len == 0) {
		return false;
	}
	struct vt_frame frame = output->queue[0];
	memmove(&output->queue[0], &output->queue[1],
		(size_t)(output->queue_len - 1) * sizeof(output->queue[0]));
	output->queue_len--;
	bool ok = output_commit(output, &frame);
	frame_finish(&frame);
	return ok;
}

/* One refresh of the vsync path: commit what is queued, render what is
 * damaged, let clients draw their next frame. */
static void output_refresh(struct vt_output *output, uint64_t vblank_ns) {
	if (output->model_clock) {
		/* The frame rendered during the last period scans out now. */
		output_commit_head(output);
	}
	bool rendered = false;
	if (output->wants_frame) {
		output->wants_frame = false;
		rendered = output_render(output, vblank_ns + output->period_ns);
		output_surfaces_drawn(output, rendered);
	}
	if (vt_scene_animating(output->server)) {
		/* Animated outputs keep rendering: every frame samples them. */
		output->wants_frame = true;
	}
	if (!output->model_clock && rendered) {
		output_commit_head(output);
	} else if (output->needs_commit && output->queue_len == 0 &&
			output->in_flight_len == 0) {
		/* wlroots wants a new commit without new content
		 * (screencopy, a frame requested by a client). */
		output_commit(output, NULL);
	}
	output->needs_commit = false;
	if (pixman_region32_not_empty(&output->pending_damage)) {
		output->wants_frame = true; /* not drawn yet: try next refresh */
	}
	if (output->model_clock) {
		if (output->queue_len > 0 || output->wants_frame ||
				output->needs_commit) {
			model_arm(output);
		}
	} else if (output->wants_frame || output->needs_commit) {
		wlr_output_schedule_frame(output->wlr_output);
	}
}

static void handle_needs_frame(struct wl_listener *listener, void *data) {
	struct vt_output *output = wl_container_of(listener, output, needs_frame);
	output->needs_commit = true;
	if (output->model_clock) {
		model_arm(output);
	}
}

static int handle_timer(int fd, uint32_t mask, void *data) {
	struct vt_output *output = data;
	uint64_t expirations;
	if (read(fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN) {
		wlr_log_errno(WLR_ERROR, "timerfd read");
	}
	output->timer_armed = false;
	output_refresh(output, output->next_vblank_ns);
	return 0;
}

static void handle_frame(struct wl_listener *listener, void *data) {
	struct vt_output *output = wl_container_of(listener, output, frame);
	if (output->model_clock) {
		return; /* wlroots' headless timer: we keep our own */
	}
	output_refresh(output, vt_now_ns());
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
	int index = -1;
	for (int i = 0; i < output->in_flight_len; i++) {
		if (output->in_flight[i].commit_seq == event->commit_seq) {
			index = i;
		}
	}
	if (index < 0) {
		return;
	}
	struct vt_frame *frame = &output->in_flight[index];
	uint64_t presented_ns = event->when != NULL ?
		vt_timespec_to_ns(event->when) : vt_now_ns();
	if (event->refresh > 0 && !output->model_clock) {
		output->period_ns = (uint64_t)event->refresh;
	}
	if (event->presented) {
		uint64_t latency = presented_ns > frame->commit_ns ?
			presented_ns - frame->commit_ns : 0;
		if (output->last_present_ns == 0 || latency < output->min_latency_ns) {
			output->min_latency_ns = latency;
		}
		output->last_present_ns = presented_ns;
	}
	bool dropped;
	if (!event->presented) {
		dropped = true;
	} else if (frame->target_ns == 0) {
		dropped = false; /* the first frame: nothing to predict from */
	} else {
		dropped = presented_ns > frame->target_ns + output->period_ns / 2;
	}
	/* Older frames still waiting were replaced before they showed. */
	output->stats.dropped += (uint64_t)index;

	struct vt_output_stats *stats = &output->stats;
	stats->frames++;
	if (dropped) {
		stats->dropped++;
	}
	uint64_t cpu_ns = frame->render_end_ns - frame->render_start_ns;
	stats->cpu_ns_total += cpu_ns;
	if (stats->cpu_ns_len == stats->cpu_ns_cap) {
		size_t cap = stats->cpu_ns_cap ? stats->cpu_ns_cap * 2 : 256;
		uint64_t *v = realloc(stats->cpu_ns, cap * sizeof(*v));
		if (v != NULL) {
			stats->cpu_ns = v;
			stats->cpu_ns_cap = cap;
		}
	}
	if (stats->cpu_ns_len < stats->cpu_ns_cap) {
		stats->cpu_ns[stats->cpu_ns_len++] = cpu_ns;
	}
	vt_frame_log_write(output->server->frame_log, output->wlr_output->name,
		frame, presented_ns, dropped, "vsync");
	output->presented_generation = frame->generation;
	memmove(&output->in_flight[0], &output->in_flight[index + 1],
		(size_t)(output->in_flight_len - index - 1) *
		sizeof(output->in_flight[0]));
	output->in_flight_len -= index + 1;
	vt_test_check_settled(output->server);
}

static int cmp_u64(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

void vt_output_print_stats(struct vt_output *output, FILE *f) {
	struct vt_output_stats *s = &output->stats;
	double mean = s->frames ? s->cpu_ns_total / 1e6 / s->frames : 0;
	double p50 = 0, p95 = 0;
	if (s->cpu_ns_len > 0) {
		qsort(s->cpu_ns, s->cpu_ns_len, sizeof(uint64_t), cmp_u64);
		p50 = s->cpu_ns[s->cpu_ns_len / 2] / 1e6;
		p95 = s->cpu_ns[(s->cpu_ns_len * 95) / 100] / 1e6;
	}
	fprintf(f, "%s: %dx%d@%.2fHz frames=%" PRIu64 " dropped=%" PRIu64
		" cpu_ms_per_frame mean=%.3f p50=%.3f p95=%.3f\n",
		output->wlr_output->name, output->wlr_output->width,
		output->wlr_output->height, 1e9 / output->period_ns, s->frames,
		s->dropped, mean, p50, p95);
}

bool vt_output_write_screenshot(struct vt_output *output, const char *path) {
	int32_t w = vr_target_width(output->target);
	int32_t h = vr_target_height(output->target);
	void *pixels = malloc((size_t)w * h * 4);
	if (pixels == NULL) {
		return false;
	}
	vr_target_read(output->target, NULL, pixels, w * 4);
	bool ok = vr_png_write(path, pixels, w, h, w * 4, true);
	free(pixels);
	return ok;
}

/* ---- lifetime ----------------------------------------------------------- */

static void output_update_target(struct vt_output *output) {
	int w = output->wlr_output->width, h = output->wlr_output->height;
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
	output_set_period(output);
	vt_output_damage_whole(output);
}

/* Outputs side by side, left to right in name order (the order of
 * server->outputs), whatever order the backend announced them in. */
static void arrange_outputs(struct vt_server *server) {
	int x = 0;
	struct vt_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		wlr_output_layout_add(server->layout, output->wlr_output, x, 0);
		int width, height;
		wlr_output_effective_resolution(output->wlr_output, &width, &height);
		x += width;
	}
	/* Everything may be somewhere else now. */
	wl_list_for_each(output, &server->outputs, link) {
		vt_output_damage_whole(output);
	}
}

static void handle_mode(struct wl_listener *listener, void *data) {
	struct vt_output *output = wl_container_of(listener, output, mode);
	output_update_target(output);
	arrange_outputs(output->server);
}

static void handle_destroy(struct wl_listener *listener, void *data) {
	struct vt_output *output = wl_container_of(listener, output, destroy);
	wl_list_remove(&output->frame.link);
	wl_list_remove(&output->present.link);
	wl_list_remove(&output->destroy.link);
	wl_list_remove(&output->mode.link);
	wl_list_remove(&output->link);
	for (int i = 0; i < output->queue_len; i++) {
		frame_finish(&output->queue[i]);
	}
	for (int i = 0; i < VT_DAMAGE_HISTORY; i++) {
		pixman_region32_fini(&output->damage_history[i]);
	}
	wl_list_remove(&output->needs_frame.link);
	output_drop_buffers(output, true);
	if (output->timer_source != NULL) {
		wl_event_source_remove(output->timer_source);
	}
	if (output->timer_fd >= 0) {
		close(output->timer_fd);
	}
	vr_target_destroy(output->target);
	pixman_region32_fini(&output->pending_damage);
	free(output->stats.cpu_ns);
	output->wlr_output->data = NULL;
	struct vt_server *server = output->server;
	free(output);
	/* wlroots takes it out of the layout; close the gap. What was on it
	 * is now elsewhere or nowhere. */
	arrange_outputs(server);
	vt_server_schedule_update(server);
}

void vt_output_create(struct vt_server *server, struct wlr_output *wlr_output) {
	struct vt_options *opts = &server->opts;
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
	output->wlr_output = wlr_output;
	output->timer_fd = -1;
	wlr_output->data = output;
	wl_list_init(&output->buffers);
	pixman_region32_init(&output->pending_damage);
	for (int i = 0; i < VT_DAMAGE_HISTORY; i++) {
		pixman_region32_init(&output->damage_history[i]);
	}

	bool is_virtual = !wl_list_empty(&wlr_output->modes) ? false : true;
	if (wlr_output_is_headless(wlr_output)) {
		wlr_output_set_custom_mode(wlr_output, opts->output_width,
			opts->output_height, opts->refresh_mhz);
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
	wlr_output_enable(wlr_output, true);
	if (!wlr_output_commit(wlr_output)) {
		wlr_log(WLR_ERROR, "%s: cannot enable the output", wlr_output->name);
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

	if (wlr_output_is_headless(wlr_output)) {
		output->model_clock = true;
		output->timer_fd = timerfd_create(CLOCK_MONOTONIC,
			TFD_NONBLOCK | TFD_CLOEXEC);
		if (output->timer_fd < 0) {
			wlr_log_errno(WLR_ERROR, "timerfd_create");
			output->model_clock = false;
		} else {
			output->timer_source = wl_event_loop_add_fd(server->loop,
				output->timer_fd, WL_EVENT_READABLE, handle_timer, output);
			output->vblank_base_ns = vt_now_ns();
		}
	}
	output_set_period(output);
	output_update_target(output);
	arrange_outputs(server);
	wlr_log(WLR_INFO, "%s: %dx%d, refresh period %.3f ms, clock: %s",
		wlr_output->name, wlr_output->width, wlr_output->height,
		output->period_ns / 1e6,
		output->model_clock ? "vitrail vblank model" : "backend");
}
