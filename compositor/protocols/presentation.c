/*
 * wp_presentation (stable/presentation-time, version 2), implemented by
 * vitrail instead of wlroots 0.15's wlr_presentation.
 *
 * Why not wlroots': its feedback requests gather on the surface, outside
 * the surface state, and move to the current state at the next state
 * applied. A commit cached for a display time (vitrail_frame_timing_v1's
 * set_target_time, pacing/latch.c) leaves its feedback behind, where the
 * next commit's joins it; both then go with whichever queued state is
 * applied first. With commits queued, a feedback was answered by the
 * frame that showed an earlier commit (presented one or two refreshes
 * before its own commit was shown), or discarded when that earlier state
 * was replaced, though its own commit was shown later.
 *
 * Here a feedback belongs to the surface state it was asked for (the
 * pending state's sequence number, as the request is double-buffered with
 * wl_surface.commit): it waits while that state is cached; when the state
 * is applied it waits on the surface until a frame draws the surface,
 * goes with that frame, and is answered when the frame is shown (the
 * frame's present event: time, refresh, sequence, flags). A frame never
 * shown hands its feedbacks to the frame after it, or back to the
 * surface. Discarded: a state overtaken before any frame drew it (another
 * state applied after it, or in the same latch), or the surface gone
 * before it was shown. vitrail_frame_timing_v1's feedback follows the same
 * rules, so both report the same frame.
 *
 * Version 2 (wayland-protocols 1.38) changes one thing: on an output
 * without a constant refresh rate (adaptive sync), `refresh` may be a
 * rate the compositor picks; version 1 must send 0 there. vitrail sends
 * the output's nominal period to version 2, 0 to version 1.
 */
#include "protocols/presentation.h"

#include <assert.h>
#include <stdlib.h>
#include <time.h>
#include <wayland-server-core.h>
#include <wlr/backend.h>
#include <wlr/interfaces/wlr_output.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_surface.h>

#include "desktop/surface.h"
#include "output/output.h"
#include "server.h"
#include "util.h"
#include "presentation-time-protocol.h"

#define PRESENTATION_VERSION 2

struct vt_presentation {
	struct vt_server *server;
	struct wl_global *global;
	clockid_t clock;
	/* the outputs' frame clock (server->frame_events) */
	struct wl_listener surface_sampled;
	struct wl_listener presented;
	struct wl_listener dropped;
};

/* A surface's feedbacks, made at its first feedback request. */
struct vt_surface_presentation {
	struct vt_surface *surface;
	struct wl_list pending; /* presentation_feedback::link: not applied */
	struct wl_list applied; /* presentation_feedback::link: no frame yet */
	struct wl_list feedbacks; /* presentation_feedback::surface_link: every
		one not answered, wherever it is (frames hold some) */
	struct wl_listener commit; /* vt_surface::events.commit */
	struct wl_listener destroy; /* vt_surface::events.destroy */
};

struct presentation_feedback {
	struct wl_resource *resource;
	struct vt_surface_presentation *surface; /* NULL once it is gone */
	uint32_t seq; /* the surface state it reports on */
	uint32_t content; /* its surface's content_commits once applied */
	struct wl_list link; /* pending, applied, or a frame's list */
	struct wl_list surface_link; /* vt_surface_presentation::feedbacks */
};

/* ---- feedback ------------------------------------------------------------ */

static void feedback_forget_surface(struct presentation_feedback *fb) {
	if (fb->surface != NULL) {
		wl_list_remove(&fb->surface_link);
		fb->surface = NULL;
	}
}

/* Forget a feedback (answered: libwayland destroys the resource with its
 * destructor event; or its resource is being destroyed). */
static void feedback_free(struct presentation_feedback *fb) {
	wl_list_remove(&fb->link);
	feedback_forget_surface(fb);
	wl_resource_set_user_data(fb->resource, NULL);
	free(fb);
}

static void feedback_discard(struct presentation_feedback *fb) {
	struct wl_resource *resource = fb->resource;
	feedback_free(fb);
	wp_presentation_feedback_send_discarded(resource);
	wl_resource_destroy(resource);
}

static void feedback_handle_resource_destroy(struct wl_resource *resource) {
	struct presentation_feedback *fb = wl_resource_get_user_data(resource);
	if (fb != NULL) {
		feedback_free(fb);
	}
}

static void feedback_presented(struct presentation_feedback *fb,
		const struct wlr_output_event_present *event, uint64_t presented_ns) {
	struct wl_resource *resource = fb->resource;
	struct wl_client *client = wl_resource_get_client(resource);
	struct wlr_output *output = event->output;
	struct wl_resource *output_resource;
	wl_resource_for_each(output_resource, &output->resources) {
		if (wl_resource_get_client(output_resource) == client) {
			wp_presentation_feedback_send_sync_output(resource,
					output_resource);
		}
	}
	uint32_t refresh = event->refresh > 0 ? (uint32_t)event->refresh : 0;
	if (output->adaptive_sync_status == WLR_OUTPUT_ADAPTIVE_SYNC_ENABLED &&
			wl_resource_get_version(resource) < 2) {
		refresh = 0; /* no constant rate: version 1 says 0 */
	}
	uint64_t sec = presented_ns / 1000000000ull;
	wp_presentation_feedback_send_presented(resource, (uint32_t)(sec >> 32),
			(uint32_t)sec, (uint32_t)(presented_ns % 1000000000ull), refresh, 0,
			(uint32_t)event->seq, /* wlroots counts 32 bits */
			event->flags &
					(WP_PRESENTATION_FEEDBACK_KIND_VSYNC |
							WP_PRESENTATION_FEEDBACK_KIND_HW_CLOCK |
							WP_PRESENTATION_FEEDBACK_KIND_HW_COMPLETION |
							WP_PRESENTATION_FEEDBACK_KIND_ZERO_COPY));
	feedback_free(fb);
	wl_resource_destroy(resource);
}

/* ---- surfaces ------------------------------------------------------------ */

/* A state was applied: its feedbacks wait for a frame; those of earlier
 * states no frame drew yet, and of states overtaken, are discarded. */
static void handle_surface_commit(struct wl_listener *listener, void *data) {
	struct vt_surface_presentation *ps = wl_container_of(listener, ps, commit);
	uint32_t seq = ps->surface->wlr_surface->current.seq;
	struct presentation_feedback *fb, *tmp;
	wl_list_for_each_safe(fb, tmp, &ps->applied, link) {
		if ((int32_t)(fb->seq - seq) < 0) {
			feedback_discard(fb);
		}
	}
	wl_list_for_each_safe(fb, tmp, &ps->pending, link) {
		if ((int32_t)(fb->seq - seq) > 0) {
			continue; /* for a later state, cached or pending */
		}
		if (fb->seq != seq) {
			feedback_discard(fb);
			continue;
		}
		wl_list_remove(&fb->link);
		fb->content = ps->surface->content_commits;
		wl_list_insert(ps->applied.prev, &fb->link);
	}
}

static void handle_surface_destroy(struct wl_listener *listener, void *data) {
	struct vt_surface_presentation *ps = wl_container_of(listener, ps, destroy);
	struct presentation_feedback *fb, *tmp;
	wl_list_for_each_safe(fb, tmp, &ps->pending, link) {
		feedback_discard(fb);
	}
	wl_list_for_each_safe(fb, tmp, &ps->applied, link) {
		feedback_discard(fb);
	}
	/* those frames hold are answered by the frames */
	wl_list_for_each_safe(fb, tmp, &ps->feedbacks, surface_link) {
		feedback_forget_surface(fb);
	}
	wl_list_remove(&ps->commit.link);
	wl_list_remove(&ps->destroy.link);
	ps->surface->presentation = NULL;
	free(ps);
}

static struct vt_surface_presentation *surface_presentation(
		struct vt_surface *surface) {
	if (surface->presentation != NULL) {
		return surface->presentation;
	}
	struct vt_surface_presentation *ps = calloc(1, sizeof(*ps));
	if (ps == NULL) {
		return NULL;
	}
	ps->surface = surface;
	wl_list_init(&ps->pending);
	wl_list_init(&ps->applied);
	wl_list_init(&ps->feedbacks);
	ps->commit.notify = handle_surface_commit;
	wl_signal_add(&surface->events.commit, &ps->commit);
	ps->destroy.notify = handle_surface_destroy;
	wl_signal_add(&surface->events.destroy, &ps->destroy);
	surface->presentation = ps;
	return ps;
}

/* ---- the global ---------------------------------------------------------- */

static void presentation_handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static void presentation_handle_feedback(struct wl_client *client,
		struct wl_resource *resource, struct wl_resource *surface_resource,
		uint32_t id) {
	struct wlr_surface *wlr_surface =
			wlr_surface_from_resource(surface_resource);
	struct vt_surface *surface = vt_surface_from_wlr(wlr_surface);
	struct wl_resource *fb_resource =
			wl_resource_create(client, &wp_presentation_feedback_interface,
					wl_resource_get_version(resource), id);
	if (fb_resource == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(fb_resource, NULL, NULL,
			feedback_handle_resource_destroy);
	struct vt_surface_presentation *ps =
			surface != NULL ? surface_presentation(surface) : NULL;
	struct presentation_feedback *fb =
			ps != NULL ? calloc(1, sizeof(*fb)) : NULL;
	if (fb == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	fb->resource = fb_resource;
	fb->surface = ps;
	fb->seq = wlr_surface->pending.seq;
	wl_list_insert(ps->pending.prev, &fb->link);
	wl_list_insert(&ps->feedbacks, &fb->surface_link);
	wl_resource_set_user_data(fb_resource, fb);
}

static const struct wp_presentation_interface presentation_impl = {
	.destroy = presentation_handle_destroy,
	.feedback = presentation_handle_feedback,
};

static void presentation_bind(struct wl_client *client, void *data,
		uint32_t version, uint32_t id) {
	struct vt_presentation *presentation = data;
	struct wl_resource *resource =
			vt_resource_create(client, &wp_presentation_interface, version, id,
					&presentation_impl, presentation, NULL);
	if (resource != NULL) {
		wp_presentation_send_clock_id(resource, (uint32_t)presentation->clock);
	}
}

/* ---- the outputs' frame clock -------------------------------------------- */

static void handle_surface_sampled(struct wl_listener *listener, void *data) {
	struct vt_frame_surface_event *event = data;
	struct vt_surface_presentation *ps = event->surface->presentation;
	if (ps == NULL || wl_list_empty(&ps->applied)) {
		return;
	}
	wl_list_insert_list(event->presentation_feedbacks->prev, &ps->applied);
	wl_list_init(&ps->applied);
}

static void handle_presented(struct wl_listener *listener, void *data) {
	struct vt_frame_presented_event *event = data;
	struct presentation_feedback *fb, *tmp;
	wl_list_for_each_safe(fb, tmp, event->presentation_feedbacks, link) {
		feedback_presented(fb, event->present, event->presented_ns);
	}
}

/* A frame never shown: the frame after it shows its commits, unless that
 * one draws a newer commit of the surface; without a later frame, the
 * next frame that draws the surface does. */
static void handle_dropped(struct wl_listener *listener, void *data) {
	struct vt_frame_dropped_event *event = data;
	struct presentation_feedback *fb, *tmp;
	wl_list_for_each_safe(fb, tmp, event->presentation_feedbacks, link) {
		struct vt_surface *surface =
				fb->surface != NULL ? fb->surface->surface : NULL;
		bool newer = surface != NULL && surface->content_commits != fb->content;
		if (surface == NULL ||
				(newer &&
						(event->next_presentation == NULL ||
								surface->content_ns <=
										event->next_render_ns))) {
			feedback_discard(fb);
			continue;
		}
		wl_list_remove(&fb->link);
		struct wl_list *to = event->next_presentation != NULL ?
				event->next_presentation :
				&fb->surface->applied;
		wl_list_insert(to->prev, &fb->link);
	}
	if (event->next_presentation != NULL) {
		event->handled = true;
	}
}

bool vt_presentation_init(struct vt_server *server) {
	struct vt_presentation *presentation = calloc(1, sizeof(*presentation));
	if (presentation == NULL) {
		return false;
	}
	presentation->server = server;
	presentation->clock = wlr_backend_get_presentation_clock(server->backend);
	presentation->global =
			wl_global_create(server->display, &wp_presentation_interface,
					PRESENTATION_VERSION, presentation, presentation_bind);
	if (presentation->global == NULL) {
		free(presentation);
		return false;
	}
	presentation->surface_sampled.notify = handle_surface_sampled;
	wl_signal_add(&server->frame_events.surface_sampled,
			&presentation->surface_sampled);
	presentation->presented.notify = handle_presented;
	wl_signal_add(&server->frame_events.presented, &presentation->presented);
	presentation->dropped.notify = handle_dropped;
	wl_signal_add(&server->frame_events.dropped, &presentation->dropped);
	server->presentation = presentation;
	return true;
}

void vt_presentation_finish(struct vt_server *server) {
	struct vt_presentation *presentation = server->presentation;
	if (presentation == NULL) {
		return;
	}
	wl_list_remove(&presentation->surface_sampled.link);
	wl_list_remove(&presentation->presented.link);
	wl_list_remove(&presentation->dropped.link);
	wl_global_destroy(presentation->global);
	/* surfaces' feedbacks die with their clients */
	free(presentation);
	server->presentation = NULL;
}
