/*
 * vitrail_frame_timing_v1 (protocol/vitrail-frame-timing-v1.xml): frame
 * timelines from the display time virtualizer (the pacer's vblank model),
 * commits queued for a display time, their feedback, and the per-surface
 * path (vsync or pre_render) D-VSync's frame pre-executor reads, and
 * input positions predicted at each slot's display time for pre_render
 * surfaces (D-VSync's input prediction layer; the fit is input.c's).
 *
 * Queued commits use wlroots' cached surface states: set_target_time
 * locks the surface's pending state (wlr_surface_lock_pending), so the
 * commit that follows is cached, not applied; while commits are queued the
 * next pending state is locked too (wlroots would cache a commit behind
 * them anyway, but apply it together with the one before). wlroots says
 * nothing when a commit is cached: a lock is seen committed when the
 * pending sequence number moved past it (timing_note_cached).
 * vt_frame_timing_latch, called by each output frame before it samples the
 * tree, unlocks the queued commits due by the frame's display time, in
 * order (the latest due one is what the frame shows); a commit without a
 * target waits for the refresh after the one before it.
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
	bool has_target;
	uint64_t target_ns; /* for the next commit */
	bool locked; /* the pending state is locked for target_ns */
	uint32_t locked_seq;
	/* cached states waiting for their display time (pacing/latch.c), by
	 * their seq */
	struct vt_latch_queue queue;
	uint32_t seen_seq; /* the newest cached state it knows of */
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
static void timing_note_cached(struct vt_surface_timing *timing);
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
	timing_note_cached(timing);
	struct vt_output *output = timing_output(timing);
	if (output != NULL) {
		/* after what the surface queued already, latched or not */
		uint64_t after = vt_latch_queued_until(&timing->queue);
		if (timing->has_target && timing->target_ns > after) {
			after = timing->target_ns;
		}
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
	timing_note_cached(timing);
	if (nsec >= NSEC_PER_SEC) {
		wl_resource_post_error(resource,
				VITRAIL_SURFACE_TIMING_V1_ERROR_INVALID_TIME,
				"tv_nsec %u: must be under 1000000000", nsec);
		return;
	}
	if (timing->queue.len >= VT_LATCH_QUEUE_MAX) {
		wl_resource_post_error(resource,
				VITRAIL_SURFACE_TIMING_V1_ERROR_QUEUE_FULL,
				"%zu commits queued: the most is %d", timing->queue.len,
				VT_LATCH_QUEUE_MAX);
		return;
	}
	uint64_t sec = (uint64_t)sec_hi << 32 | sec_lo;
	/* frames are rendered for its time even if nothing else changes:
	 * each one latches what is due (the commit itself is cached
	 * silently) */
	vt_server_request_frame(timing->server, VT_PACER_RENDER);
	timing->has_target = true;
	timing->target_ns = sec * NSEC_PER_SEC + nsec;
	if (!timing->locked) {
		/* the commit that follows is cached until its time (states
		 * cached before, a synchronized subsurface's, are not ours) */
		struct wlr_surface *wlr_surface = timing->surface->wlr_surface;
		if (timing->queue.len == 0) {
			timing->seen_seq = wlr_surface->pending.seq - 1;
		}
		timing->locked_seq = wlr_surface_lock_pending(wlr_surface);
		timing->locked = true;
	}
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

static void timing_free_queue(struct vt_surface_timing *timing) {
	timing->queue.len = 0;
}

static void timing_handle_resource_destroy(struct wl_resource *resource) {
	struct vt_surface_timing *timing = wl_resource_get_user_data(resource);
	/* Feedbacks not answered yet: those still waiting for their commit
	 * or for a frame are not_shown; those a frame holds are answered by
	 * that frame, without us. */
	timing_note_cached(timing);
	timing_discard_all(timing, VITRAIL_COMMIT_FEEDBACK_V1_REASON_NOT_SHOWN);
	struct timing_feedback *fb, *tmp;
	wl_list_for_each_safe(fb, tmp, &timing->feedbacks, timing_link) {
		feedback_forget_timing(fb);
	}
	/* Detach before releasing anything: applying the held states runs
	 * commit handlers that could look at this timing again. */
	struct vt_surface *surface = timing->surface;
	struct vt_latch_queue queue = timing->queue;
	bool locked = timing->locked;
	uint32_t locked_seq = timing->locked_seq;
	if (surface != NULL) {
		wl_list_remove(&timing->surface_commit.link);
		wl_list_remove(&timing->surface_destroy.link);
	}
	timing->surface = NULL;
	timing->locked = false;
	timing_free_queue(timing);
	wl_list_remove(&timing->link);
	free(timing);
	if (surface != NULL) {
		/* back to vsync: what was held applies now, in order */
		surface->timing = NULL;
		surface->prerender = false;
		if (locked) {
			wlr_surface_unlock_cached(surface->wlr_surface, locked_seq);
		}
		for (size_t i = 0; i < queue.len; i++) {
			wlr_surface_unlock_cached(surface->wlr_surface,
					queue.entries[i].seq);
		}
	}
}

/* ---- what the rest of vitrail calls ----------------------------------------
 */

/* wlroots has no event for a commit that was cached: a set_target_time
 * lock is noticed as committed when pending.seq moved past it; it joins
 * the queue. */
static void timing_note_cached(struct vt_surface_timing *timing) {
	if (timing->surface == NULL ||
			(timing->queue.len == 0 && !timing->locked)) {
		return;
	}
	struct wlr_surface *wlr_surface = timing->surface->wlr_surface;
	struct wlr_surface_state *state;
	wl_list_for_each(state, &wlr_surface->cached, cached_state_link) {
		if ((int32_t)(state->seq - timing->seen_seq) <= 0) {
			continue; /* queued already (or not ours: before the queue) */
		}
		bool targeted = timing->locked && state->seq == timing->locked_seq;
		if (!targeted && timing->queue.len == 0 && !timing->locked) {
			continue;
		}
		if (!vt_latch_push(&timing->queue, state->seq, timing->target_ns,
					!targeted)) {
			/* full (only fifo ones get here): it applies with the one
			 * before it */
			timing->seen_seq = state->seq;
			continue;
		}
		if (!targeted) {
			/* A commit made behind queued ones: wlroots caches it
			 * but would apply it together with the one before. Hold
			 * it, as wlr_surface_lock_pending would have, for the
			 * refresh after. */
			state->cached_state_locks++;
		}
		timing->seen_seq = state->seq;
		if (targeted) {
			timing->locked = false;
			timing->has_target = false;
		}
	}
}

static void handle_surface_commit(struct wl_listener *listener, void *data) {
	struct vt_surface *surface = data;
	struct vt_surface_timing *timing = surface->timing;
	if (timing == NULL) {
		return;
	}
	struct wlr_surface *wlr_surface = surface->wlr_surface;
	timing_note_cached(timing);
	timing->path = timing->pending_path;
	timing->path_set = timing->pending_path_set;
	timing->tearing = timing->pending_tearing;
	timing->limit = timing->pending_limit;
	timing->model = timing->pending_model;
	surface->prerender =
			timing->path == VITRAIL_SURFACE_TIMING_V1_PATH_PRE_RENDER;
	timing_applied(timing, wlr_surface->current.seq);
}

static bool frame_timing_latch(struct vt_server *server,
		struct vt_output *output, uint64_t display_ns, uint64_t period_ns) {
	struct vt_frame_timing *ft = server->frame_timing;
	if (ft == NULL) {
		return false;
	}
	bool queued = false;
	struct vt_surface_timing *timing, *tmp;
	wl_list_for_each_safe(timing, tmp, &ft->timings, link) {
		timing_note_cached(timing);
		if (timing->surface == NULL) {
			continue;
		}
		if (timing_output(timing) != output) {
			/* its own output's frames latch it, on that clock */
			queued |= timing->queue.len > 0 || timing->locked;
			continue;
		}
		/* Every commit due by this display time applies, in order: the
		 * latest due one is what the frame shows (the earlier ones are
		 * replaced, their feedback says so), so a frame latched late
		 * does not delay the ones after it. A commit without a target
		 * waits for the refresh after the one before it. */
		uint32_t seq;
		while (vt_latch_next_due(&timing->queue, display_ns, period_ns, &seq)) {
			timing->surface->latching = true;
			wlr_surface_unlock_cached(timing->surface->wlr_surface, seq);
			timing->surface->latching = false;
			timing_note_cached(timing);
		}
		/* a targeted commit on its way counts: the frames must go on
		 * to latch it once it comes */
		queued |= timing->queue.len > 0 || timing->locked;
	}
	return queued;
}

static bool frame_timing_queue_state(struct vt_server *server,
		uint64_t *horizon) {
	struct vt_frame_timing *ft = server->frame_timing;
	*horizon = UINT64_MAX;
	if (ft == NULL) {
		return false;
	}
	bool queued = false;
	struct vt_surface_timing *timing;
	wl_list_for_each(timing, &ft->timings, link) {
		timing_note_cached(timing);
		queued |= timing->queue.len > 0 || timing->locked;
		if (timing->surface == NULL ||
				timing->path != VITRAIL_SURFACE_TIMING_V1_PATH_PRE_RENDER) {
			continue;
		}
		uint64_t last = vt_latch_last_target(&timing->queue);
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
	struct vt_surface_timing *timing = surface->timing;
	if (timing == NULL) {
		return false;
	}
	timing_note_cached(timing);
	return timing->queue.len > 0 || timing->locked;
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
	timing_free_queue(timing);
	timing->locked = false;
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
	event->queued = frame_timing_latch(ft->server, event->output,
			event->display_ns, event->period_ns);
}

static void handle_surface_sampled(struct wl_listener *listener, void *data) {
	struct vt_frame_surface_event *event = data;
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
