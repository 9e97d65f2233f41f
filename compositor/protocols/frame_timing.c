/*
 * vitrail_frame_timing_v1 (protocol/vitrail-frame-timing-v1.xml): frame
 * timelines from the display time virtualizer (the pacer's vblank model),
 * commits queued for a display time, their feedback, and the per-surface
 * path (vsync or pre_render) D-VSync's frame pre-executor reads, and
 * input positions predicted at each slot's display time for pre_render
 * surfaces (D-VSync's input prediction layer; the fit is input.c's).
 *
 * Queued commits are entries of the surface's commit queue
 * (commit_queue.c), the one wp_commit_timing_v1 and wp_fifo_v1 feed too:
 * set_target_time holds the next commit until its display time; each
 * output frame, before it samples the tree, latches the queues (this
 * module's sample listener), which apply the commits due by the frame's
 * display time, in order (the latest due one is what the frame shows); a
 * commit without a target waits for the refresh after the one before it.
 *
 * Feedback: a feedback object is tied to the surface's pending state's
 * sequence number when it is made. When a commit applies, the feedbacks
 * of it wait on the surface until a frame draws the surface (like
 * wp_presentation's), go with that frame, and are answered when the frame
 * is shown; a frame dropped hands them back to the surface. Feedbacks of
 * commits a later one overtook in the same application are discarded
 * (replaced).
 */
#include <assert.h>
#include <stdlib.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/util/log.h>

#include "pacing/pacer.h"
#include "desktop/surface.h"
#include "input/input.h"
#include "output/output.h"
#include "pacing/latch.h"
#include "pacing/path.h"
#include "protocols/commit_queue.h"
#include "protocols/frame_timing.h"
#include "server.h"
#include "util.h"
#include "vitrail-frame-timing-v1-protocol.h"

#define LIMIT_DEFAULT 3
#define LIMIT_MAX 5
#define NSEC_PER_SEC 1000000000ull

struct timing_feedback {
	struct wl_resource *resource;
	struct vt_surface_timing *timing; /* NULL once it is gone */
	uint32_t seq; /* the commit it reports on */
	uint32_t content; /* its surface's content_commits once applied */
	struct wl_list link; /* pending, applied, or a frame's list */
	struct wl_list timing_link; /* vt_surface_timing::feedbacks, while
		timing is set */
};

struct vt_surface_timing {
	struct wl_resource *resource;
	struct vt_server *server;
	struct vt_surface *surface; /* NULL once destroyed */
	/* the surface's events.commit, events.destroy, while it lives */
	struct wl_listener surface_commit;
	struct wl_listener surface_destroy;
	struct wl_list link; /* vt_frame_timing::timings */
	enum vitrail_surface_timing_v1_path path, pending_path;
	uint32_t limit, pending_limit;
	enum vitrail_surface_timing_v1_input_model model, pending_model;
	bool path_set, pending_path_set; /* set_path was asked for */
	bool tearing, pending_tearing;
	uint32_t applied_seq; /* the state last applied */
	struct wl_list pending_feedbacks; /* not yet applied */
	struct wl_list applied_feedbacks; /* applied, not drawn yet */
	struct wl_list feedbacks; /* timing_feedback::timing_link: every one
		not answered, wherever it is (frames hold some) */
};

struct vt_frame_timing {
	struct vt_server *server;
	struct wl_global *global;
	struct wl_list timings; /* vt_surface_timing::link */
	/* the outputs' frame clock (server->frame_events) */
	struct wl_listener busy;
	struct wl_listener sample;
	struct wl_listener surface_sampled;
	struct wl_listener presented;
	struct wl_listener dropped;
};

static const struct vitrail_surface_timing_v1_interface timing_impl;
static const struct vitrail_frame_timeline_v1_interface timeline_impl;
static const struct vitrail_commit_feedback_v1_interface feedback_impl;

static void split_ns(uint64_t ns, uint32_t *hi, uint32_t *lo, uint32_t *nsec) {
	uint64_t sec = ns / NSEC_PER_SEC;
	*hi = (uint32_t)(sec >> 32);
	*lo = (uint32_t)sec;
	*nsec = (uint32_t)(ns % NSEC_PER_SEC);
}

/* ---- feedback ----------------------------------------------------------- */

static void feedback_unlink(struct timing_feedback *fb) {
	wl_list_remove(&fb->link);
	wl_list_init(&fb->link);
}

static void feedback_forget_timing(struct timing_feedback *fb) {
	if (fb->timing != NULL) {
		wl_list_remove(&fb->timing_link);
		fb->timing = NULL;
	}
}

/* Forget an answered or destroyed feedback (its resource, if any, stays
 * inert until the client destroys it). */
static void feedback_free(struct timing_feedback *fb) {
	feedback_unlink(fb);
	feedback_forget_timing(fb);
	wl_resource_set_user_data(fb->resource, NULL);
	free(fb);
}

static void feedback_discard(struct timing_feedback *fb, uint32_t reason) {
	vitrail_commit_feedback_v1_send_discarded(fb->resource, reason);
	feedback_free(fb);
}

static void feedback_handle_resource_destroy(struct wl_resource *resource) {
	struct timing_feedback *fb = wl_resource_get_user_data(resource);
	if (fb != NULL) {
		feedback_free(fb);
	}
}

static void handle_simple_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct vitrail_commit_feedback_v1_interface feedback_impl = {
	.destroy = handle_simple_destroy,
};

static void frame_timing_sampled(struct vt_surface *surface,
		struct wl_list *frame_feedbacks) {
	struct vt_surface_timing *timing = surface->timing;
	if (timing == NULL || wl_list_empty(&timing->applied_feedbacks)) {
		return;
	}
	wl_list_insert_list(frame_feedbacks, &timing->applied_feedbacks);
	wl_list_init(&timing->applied_feedbacks);
}

static void frame_timing_presented(struct wl_list *frame_feedbacks,
		uint64_t presented_ns, uint64_t display_ns) {
	uint32_t hi, lo, nsec, thi, tlo, tnsec;
	split_ns(presented_ns, &hi, &lo, &nsec);
	split_ns(display_ns, &thi, &tlo, &tnsec);
	struct timing_feedback *fb, *tmp;
	wl_list_for_each_safe(fb, tmp, frame_feedbacks, link) {
		vitrail_commit_feedback_v1_send_presented(fb->resource, hi, lo, nsec,
				thi, tlo, tnsec);
		feedback_free(fb);
	}
}

static bool frame_timing_frame_dropped(struct wl_list *frame_feedbacks,
		struct wl_list *next_frame, uint64_t next_render_ns) {
	struct timing_feedback *fb, *tmp;
	if (next_frame != NULL) {
		wl_list_for_each_safe(fb, tmp, frame_feedbacks, link) {
			struct vt_surface *surface =
					fb->timing != NULL ? fb->timing->surface : NULL;
			if (surface != NULL && surface->content_commits != fb->content &&
					surface->content_ns <= next_render_ns) {
				/* the later frame shows a newer commit */
				feedback_discard(fb,
						VITRAIL_COMMIT_FEEDBACK_V1_REASON_REPLACED);
				continue;
			}
			feedback_unlink(fb);
			wl_list_insert(next_frame->prev, &fb->link);
		}
		return true;
	}
	wl_list_for_each_safe(fb, tmp, frame_feedbacks, link) {
		feedback_unlink(fb);
		if (fb->timing != NULL && fb->timing->surface != NULL) {
			/* the next frame drawing the surface shows it */
			wl_list_insert(fb->timing->applied_feedbacks.prev, &fb->link);
		} else {
			feedback_discard(fb,
					fb->timing == NULL ?
							VITRAIL_COMMIT_FEEDBACK_V1_REASON_NOT_SHOWN :
							VITRAIL_COMMIT_FEEDBACK_V1_REASON_SURFACE_DESTROYED);
		}
	}
	return false;
}

/* A state was applied: its feedbacks wait for a frame; those of earlier
 * states no frame drew yet, and of commits overtaken, are replaced. */
static void timing_applied(struct vt_surface_timing *timing, uint32_t seq) {
	struct timing_feedback *fb, *tmp;
	wl_list_for_each_safe(fb, tmp, &timing->applied_feedbacks, link) {
		if ((int32_t)(fb->seq - seq) < 0) {
			feedback_discard(fb, VITRAIL_COMMIT_FEEDBACK_V1_REASON_REPLACED);
		}
	}
	wl_list_for_each_safe(fb, tmp, &timing->pending_feedbacks, link) {
		if ((int32_t)(fb->seq - seq) > 0) {
			continue; /* for a later commit */
		}
		if (fb->seq != seq) {
			feedback_discard(fb, VITRAIL_COMMIT_FEEDBACK_V1_REASON_REPLACED);
			continue;
		}
		feedback_unlink(fb);
		fb->content =
				timing->surface != NULL ? timing->surface->content_commits : 0;
		wl_list_insert(timing->applied_feedbacks.prev, &fb->link);
	}
	timing->applied_seq = seq;
}

/* ---- surface timing ----------------------------------------------------- */

static struct vt_surface_timing *timing_from_resource(
		struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource,
			&vitrail_surface_timing_v1_interface, &timing_impl));
	return wl_resource_get_user_data(resource);
}

/* Requests on a timing whose surface is gone are the surface_gone error;
 * true when the request may go on. */
static bool timing_alive(struct wl_resource *resource,
		struct vt_surface_timing *timing) {
	if (timing->surface == NULL) {
		wl_resource_post_error(resource,
				VITRAIL_SURFACE_TIMING_V1_ERROR_SURFACE_GONE,
				"wl_surface destroyed");
		return false;
	}
	return true;
}

/* The output the surface shows on (its view's), else the first. */
static struct vt_output *timing_output(struct vt_surface_timing *timing) {
	struct vt_server *server = timing->server;
	struct vt_output *output = vt_surface_output(timing->surface);
	return output != NULL ? output : vt_output_next(server, NULL);
}

static void timing_handle_set_path(struct wl_client *client,
		struct wl_resource *resource, uint32_t path) {
	struct vt_surface_timing *timing = timing_from_resource(resource);
	if (!timing_alive(resource, timing)) {
		return;
	}
	if (path > VITRAIL_SURFACE_TIMING_V1_PATH_LOW_LATENCY) {
		wl_resource_post_error(resource,
				VITRAIL_SURFACE_TIMING_V1_ERROR_INVALID_PATH, "%u: not a path",
				path);
		return;
	}
	if (path == VITRAIL_SURFACE_TIMING_V1_PATH_LOW_LATENCY &&
			wl_resource_get_version(resource) < 2) {
		wl_resource_post_error(resource,
				VITRAIL_SURFACE_TIMING_V1_ERROR_UNSUPPORTED_PATH,
				"low_latency: offered from version 2, this object is version "
				"%d",
				wl_resource_get_version(resource));
		return;
	}
	timing->pending_path = path;
	timing->pending_path_set = true;
}

static void timing_handle_set_tearing(struct wl_client *client,
		struct wl_resource *resource, uint32_t allowed) {
	struct vt_surface_timing *timing = timing_from_resource(resource);
	if (!timing_alive(resource, timing)) {
		return;
	}
	if (allowed > 1) {
		wl_resource_post_error(resource,
				VITRAIL_SURFACE_TIMING_V1_ERROR_INVALID_TEARING,
				"%u: must be 0 or 1", allowed);
		return;
	}
	timing->pending_tearing = allowed == 1;
}

static void timing_handle_set_prerender_limit(struct wl_client *client,
		struct wl_resource *resource, uint32_t frames) {
	struct vt_surface_timing *timing = timing_from_resource(resource);
	if (!timing_alive(resource, timing)) {
		return;
	}
	if (frames < 1 || frames > LIMIT_MAX) {
		wl_resource_post_error(resource,
				VITRAIL_SURFACE_TIMING_V1_ERROR_INVALID_LIMIT,
				"%u frames: must be in [1, %d]", frames, LIMIT_MAX);
		return;
	}
	timing->pending_limit = frames;
}

static void timing_handle_set_input_prediction(struct wl_client *client,
		struct wl_resource *resource, uint32_t model) {
	struct vt_surface_timing *timing = timing_from_resource(resource);
	if (!timing_alive(resource, timing)) {
		return;
	}
	if (model > VITRAIL_SURFACE_TIMING_V1_INPUT_MODEL_QUADRATIC) {
		wl_resource_post_error(resource,
				VITRAIL_SURFACE_TIMING_V1_ERROR_INVALID_MODEL,
				"%u: not an input model", model);
		return;
	}
	timing->pending_model = model;
}

/* After a slot: the input held on the surface, predicted at its display
 * time, when the surface asked for it on the pre_render path. */
static void timing_send_prediction(struct vt_surface_timing *timing,
		struct wl_resource *timeline, uint64_t display_ns) {
	if (timing->path != VITRAIL_SURFACE_TIMING_V1_PATH_PRE_RENDER ||
			timing->model == VITRAIL_SURFACE_TIMING_V1_INPUT_MODEL_NONE) {
		return;
	}
	int degree =
			timing->model == VITRAIL_SURFACE_TIMING_V1_INPUT_MODEL_QUADRATIC ?
			2 :
			1;
	double x, y;
	if (!vt_input_predict(timing->server, timing->surface->wlr_surface,
				display_ns, degree, &x, &y)) {
		return;
	}
	uint32_t hi, lo, nsec;
	split_ns(display_ns, &hi, &lo, &nsec);
	vitrail_frame_timeline_v1_send_predicted_input(timeline, hi, lo, nsec,
			wl_fixed_from_double(x), wl_fixed_from_double(y));
}

static void timing_handle_get_timeline(struct wl_client *client,
		struct wl_resource *resource, uint32_t id) {
	struct vt_surface_timing *timing = timing_from_resource(resource);
	struct wl_resource *timeline =
			wl_resource_create(client, &vitrail_frame_timeline_v1_interface,
					wl_resource_get_version(resource), id);
	if (timeline == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(timeline, &timeline_impl, NULL, NULL);
	if (!timing_alive(resource, timing)) {
		return;
	}
	struct vt_output *output = timing_output(timing);
	if (output != NULL) {
		/* after what the surface queued already, latched or not */
		uint64_t after =
				vt_commit_queue_last_target(timing->surface->commit_queue);
		struct vt_display_slot slots[LIMIT_MAX];
		int n = vt_output_display_slots(output, vt_now_ns(), after, slots,
				(int)timing->limit);
		for (int i = 0; i < n; i++) {
			uint32_t dhi, dlo, dns, ehi, elo, ens;
			split_ns(slots[i].display_ns, &dhi, &dlo, &dns);
			split_ns(slots[i].deadline_ns, &ehi, &elo, &ens);
			vitrail_frame_timeline_v1_send_slot(timeline, dhi, dlo, dns, ehi,
					elo, ens, (uint32_t)slots[i].refresh_ns);
			timing_send_prediction(timing, timeline, slots[i].display_ns);
		}
	}
	vitrail_frame_timeline_v1_send_done(timeline);
}

static void timing_handle_set_target_time(struct wl_client *client,
		struct wl_resource *resource, uint32_t sec_hi, uint32_t sec_lo,
		uint32_t nsec) {
	struct vt_surface_timing *timing = timing_from_resource(resource);
	if (!timing_alive(resource, timing)) {
		return;
	}
	if (nsec >= NSEC_PER_SEC) {
		wl_resource_post_error(resource,
				VITRAIL_SURFACE_TIMING_V1_ERROR_INVALID_TIME,
				"tv_nsec %u: must be under 1000000000", nsec);
		return;
	}
	struct vt_commit_queue *queue = vt_commit_queue_of(timing->surface);
	if (queue == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	if (vt_commit_queue_len(queue) >= VT_LATCH_QUEUE_MAX) {
		wl_resource_post_error(resource,
				VITRAIL_SURFACE_TIMING_V1_ERROR_QUEUE_FULL,
				"%zu commits queued: the most is %d",
				vt_commit_queue_len(queue), VT_LATCH_QUEUE_MAX);
		return;
	}
	uint64_t sec = (uint64_t)sec_hi << 32 | sec_lo;
	/* held until its time (with a wp_commit_timer_v1 timestamp too, the
	 * later of the two) */
	vt_commit_queue_set_target(queue, sec * NSEC_PER_SEC + nsec);
}

static void timing_handle_feedback(struct wl_client *client,
		struct wl_resource *resource, uint32_t id) {
	struct vt_surface_timing *timing = timing_from_resource(resource);
	struct wl_resource *fb_resource =
			wl_resource_create(client, &vitrail_commit_feedback_v1_interface,
					wl_resource_get_version(resource), id);
	struct timing_feedback *fb = calloc(1, sizeof(*fb));
	if (fb_resource == NULL || fb == NULL) {
		free(fb);
		wl_client_post_no_memory(client);
		return;
	}
	fb->resource = fb_resource;
	wl_list_init(&fb->link);
	wl_resource_set_implementation(fb_resource, &feedback_impl, fb,
			feedback_handle_resource_destroy);
	if (!timing_alive(resource, timing)) {
		return;
	}
	fb->timing = timing;
	wl_list_insert(&timing->feedbacks, &fb->timing_link);
	fb->seq = timing->surface->wlr_surface->pending.seq;
	wl_list_insert(timing->pending_feedbacks.prev, &fb->link);
}

static const struct vitrail_surface_timing_v1_interface timing_impl = {
	.destroy = handle_simple_destroy,
	.set_path = timing_handle_set_path,
	.set_prerender_limit = timing_handle_set_prerender_limit,
	.set_tearing = timing_handle_set_tearing,
	.get_timeline = timing_handle_get_timeline,
	.set_target_time = timing_handle_set_target_time,
	.feedback = timing_handle_feedback,
	.set_input_prediction = timing_handle_set_input_prediction,
};

static const struct vitrail_frame_timeline_v1_interface timeline_impl = {
	.destroy = handle_simple_destroy,
};

/* Every feedback not answered yet gets `reason`. */
static void timing_discard_all(struct vt_surface_timing *timing,
		uint32_t reason) {
	struct timing_feedback *fb, *tmp;
	wl_list_for_each_safe(fb, tmp, &timing->pending_feedbacks, link) {
		feedback_discard(fb, reason);
	}
	wl_list_for_each_safe(fb, tmp, &timing->applied_feedbacks, link) {
		feedback_discard(fb, reason);
	}
}

static void timing_handle_resource_destroy(struct wl_resource *resource) {
	struct vt_surface_timing *timing = wl_resource_get_user_data(resource);
	/* Feedbacks not answered yet: those still waiting for their commit
	 * or for a frame are not_shown; those a frame holds are answered by
	 * that frame, without us. */
	timing_discard_all(timing, VITRAIL_COMMIT_FEEDBACK_V1_REASON_NOT_SHOWN);
	struct timing_feedback *fb, *tmp;
	wl_list_for_each_safe(fb, tmp, &timing->feedbacks, timing_link) {
		feedback_forget_timing(fb);
	}
	/* Detach before releasing anything: applying the held states runs
	 * commit handlers that could look at this timing again. */
	struct vt_surface *surface = timing->surface;
	if (surface != NULL) {
		wl_list_remove(&timing->surface_commit.link);
		wl_list_remove(&timing->surface_destroy.link);
	}
	timing->surface = NULL;
	wl_list_remove(&timing->link);
	free(timing);
	if (surface != NULL) {
		/* back to vsync: what was held applies now, in order */
		surface->timing = NULL;
		surface->prerender = false;
		if (surface->commit_queue != NULL) {
			vt_commit_queue_release(surface->commit_queue);
		}
	}
}

/* ---- what the rest of vitrail calls ----------------------------------------
 */

static void handle_surface_commit(struct wl_listener *listener, void *data) {
	struct vt_surface *surface = data;
	struct vt_surface_timing *timing = surface->timing;
	if (timing == NULL) {
		return;
	}
	struct wlr_surface *wlr_surface = surface->wlr_surface;
	timing->path = timing->pending_path;
	timing->path_set = timing->pending_path_set;
	timing->tearing = timing->pending_tearing;
	timing->limit = timing->pending_limit;
	timing->model = timing->pending_model;
	surface->prerender =
			timing->path == VITRAIL_SURFACE_TIMING_V1_PATH_PRE_RENDER;
	timing_applied(timing, wlr_surface->current.seq);
}

static bool frame_timing_queue_state(struct vt_server *server,
		uint64_t *horizon) {
	struct vt_frame_timing *ft = server->frame_timing;
	*horizon = UINT64_MAX;
	if (ft == NULL) {
		return false;
	}
	bool queued = vt_commit_queues_busy(server);
	struct vt_surface_timing *timing;
	wl_list_for_each(timing, &ft->timings, link) {
		if (timing->surface == NULL ||
				timing->path != VITRAIL_SURFACE_TIMING_V1_PATH_PRE_RENDER) {
			continue;
		}
		uint64_t last =
				vt_commit_queue_last_target(timing->surface->commit_queue);
		if (last < *horizon) {
			*horizon = last;
		}
	}
	return queued;
}

bool vt_frame_timing_path(struct vt_surface *surface, enum vt_path *path,
		bool *tearing) {
	struct vt_surface_timing *timing = surface->timing;
	*tearing = timing != NULL && timing->tearing;
	if (timing == NULL || !timing->path_set) {
		return false;
	}
	switch (timing->path) {
	case VITRAIL_SURFACE_TIMING_V1_PATH_PRE_RENDER:
		*path = VT_PATH_PRE_RENDER;
		break;
	case VITRAIL_SURFACE_TIMING_V1_PATH_LOW_LATENCY:
		*path = VT_PATH_LOW_LATENCY;
		break;
	default: *path = VT_PATH_VSYNC; break;
	}
	return true;
}

bool vt_frame_timing_surface_queued(struct vt_surface *surface) {
	return vt_commit_queue_busy(surface->commit_queue);
}

static void handle_surface_destroy(struct wl_listener *listener, void *data) {
	struct vt_surface *surface = data;
	struct vt_surface_timing *timing = surface->timing;
	if (timing == NULL) {
		return;
	}
	wl_list_remove(&timing->surface_commit.link);
	wl_list_remove(&timing->surface_destroy.link);
	/* wlroots frees the cached states with the surface */
	timing_discard_all(timing,
			VITRAIL_COMMIT_FEEDBACK_V1_REASON_SURFACE_DESTROYED);
	timing->surface = NULL;
	surface->timing = NULL;
}

/* ---- the outputs' frame clock ------------------------------------------- */

static void handle_busy(struct wl_listener *listener, void *data) {
	struct vt_frame_busy_event *event = data;
	if (!event->queued_known) {
		event->queued =
				frame_timing_queue_state(event->server, &event->horizon);
	}
}

static void handle_sample(struct wl_listener *listener, void *data) {
	struct vt_frame_timing *ft = wl_container_of(listener, ft, sample);
	struct vt_frame_sample_event *event = data;
	event->queued = vt_commit_queues_latch(ft->server, event->output,
			event->display_ns, event->period_ns);
}

static void handle_surface_sampled(struct wl_listener *listener, void *data) {
	struct vt_frame_surface_event *event = data;
	vt_commit_queue_drawn(event->surface);
	frame_timing_sampled(event->surface, event->timing_feedbacks);
}

static void handle_presented(struct wl_listener *listener, void *data) {
	struct vt_frame_presented_event *event = data;
	frame_timing_presented(event->timing_feedbacks, event->presented_ns,
			event->display_ns);
}

static void handle_dropped(struct wl_listener *listener, void *data) {
	struct vt_frame_dropped_event *event = data;
	event->handled = frame_timing_frame_dropped(event->timing_feedbacks,
			event->next, event->next_render_ns);
}

/* ---- the global ------------------------------------------------------------
 */

static void manager_handle_get_surface_timing(struct wl_client *client,
		struct wl_resource *resource, uint32_t id,
		struct wl_resource *surface_resource) {
	struct vt_frame_timing *ft = wl_resource_get_user_data(resource);
	struct wlr_surface *wlr_surface =
			wlr_surface_from_resource(surface_resource);
	struct vt_surface *surface = vt_surface_from_wlr(wlr_surface);
	if (surface != NULL && surface->timing != NULL) {
		wl_resource_post_error(resource,
				VITRAIL_FRAME_TIMING_MANAGER_V1_ERROR_ALREADY_EXISTS,
				"wl_surface@%u has one", wl_resource_get_id(surface_resource));
		return;
	}
	struct vt_surface_timing *timing = calloc(1, sizeof(*timing));
	struct wl_resource *timing_resource =
			wl_resource_create(client, &vitrail_surface_timing_v1_interface,
					wl_resource_get_version(resource), id);
	if (timing == NULL || timing_resource == NULL || surface == NULL) {
		free(timing);
		wl_client_post_no_memory(client);
		return;
	}
	timing->resource = timing_resource;
	timing->server = ft->server;
	timing->surface = surface;
	timing->path = timing->pending_path = VITRAIL_SURFACE_TIMING_V1_PATH_VSYNC;
	timing->limit = timing->pending_limit = LIMIT_DEFAULT;
	timing->model = timing->pending_model =
			VITRAIL_SURFACE_TIMING_V1_INPUT_MODEL_NONE;
	timing->applied_seq = wlr_surface->current.seq;
	wl_list_init(&timing->pending_feedbacks);
	wl_list_init(&timing->applied_feedbacks);
	wl_list_init(&timing->feedbacks);
	wl_list_insert(&ft->timings, &timing->link);
	surface->timing = timing;
	timing->surface_commit.notify = handle_surface_commit;
	wl_signal_add(&surface->events.commit, &timing->surface_commit);
	timing->surface_destroy.notify = handle_surface_destroy;
	wl_signal_add(&surface->events.destroy, &timing->surface_destroy);
	wl_resource_set_implementation(timing_resource, &timing_impl, timing,
			timing_handle_resource_destroy);
}

static const struct vitrail_frame_timing_manager_v1_interface manager_impl = {
	.destroy = handle_simple_destroy,
	.get_surface_timing = manager_handle_get_surface_timing,
};

static void manager_bind(struct wl_client *client, void *data, uint32_t version,
		uint32_t id) {
	vt_resource_create(client, &vitrail_frame_timing_manager_v1_interface,
			version, id, &manager_impl, data, NULL);
}

bool vt_frame_timing_init(struct vt_server *server) {
	struct vt_frame_timing *ft = calloc(1, sizeof(*ft));
	if (ft == NULL) {
		return false;
	}
	ft->server = server;
	wl_list_init(&ft->timings);
	ft->global = wl_global_create(server->display,
			&vitrail_frame_timing_manager_v1_interface, 2, ft, manager_bind);
	if (ft->global == NULL) {
		free(ft);
		return false;
	}
	/* Order: busy before the scene's and the scroll regions' (queued
	 * commits were asked first); sample before theirs (commits latch,
	 * then animations sample); surface_sampled after the path
	 * manager's. server.c's init order makes it. */
	ft->busy.notify = handle_busy;
	wl_signal_add(&server->frame_events.busy, &ft->busy);
	ft->sample.notify = handle_sample;
	wl_signal_add(&server->frame_events.sample, &ft->sample);
	ft->surface_sampled.notify = handle_surface_sampled;
	wl_signal_add(&server->frame_events.surface_sampled, &ft->surface_sampled);
	ft->presented.notify = handle_presented;
	wl_signal_add(&server->frame_events.presented, &ft->presented);
	ft->dropped.notify = handle_dropped;
	wl_signal_add(&server->frame_events.dropped, &ft->dropped);
	server->frame_timing = ft;
	return true;
}

void vt_frame_timing_finish(struct vt_server *server) {
	struct vt_frame_timing *ft = server->frame_timing;
	if (ft == NULL) {
		return;
	}
	wl_list_remove(&ft->busy.link);
	wl_list_remove(&ft->sample.link);
	wl_list_remove(&ft->surface_sampled.link);
	wl_list_remove(&ft->presented.link);
	wl_list_remove(&ft->dropped.link);
	wl_global_destroy(ft->global);
	/* surface timings die with their clients (before this, at display
	 * destruction they are gone already) */
	free(ft);
	server->frame_timing = NULL;
}
