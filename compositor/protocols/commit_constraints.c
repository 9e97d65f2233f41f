/*
 * wp_fifo_v1 (staging/fifo) and wp_commit_timing_v1
 * (staging/commit-timing): readiness constraints on a content update,
 * entries of the surface's commit queue (commit_queue.c), the same one
 * vitrail_frame_timing_v1's set_target_time feeds.
 *
 * set_barrier: the commit sets the barrier when it applies; it clears at
 * the output frame after the one that first shows it. wait_barrier: the
 * commit is held while the barrier is set. set_timestamp: the commit is
 * held until the frame whose display time is the first within half a
 * period after the time. A commit with several constraints is held until
 * all hold; commits apply in the order they were made. A surface no
 * output frame latches (not shown) has its barriers cleared by a timer
 * at about the refresh rate (commit_queue.c): a client is never stalled.
 */
#include "protocols/commit_constraints.h"

#include <stdlib.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_surface.h>

#include "commit-timing-v1-protocol.h"
#include "desktop/surface.h"
#include "fifo-v1-protocol.h"
#include "protocols/commit_queue.h"
#include "protocols/surface_addon.h"
#include "server.h"
#include "util.h"

#define NSEC_PER_SEC 1000000000ull

/* A wp_fifo_v1 or a wp_commit_timer_v1. */
struct constraint {
	struct vt_surface_addon addon;
	bool timer; /* wp_commit_timer_v1 */
	uint32_t timestamp_seq; /* the commit the last timestamp is for */
	bool has_timestamp;
};

static const struct wp_fifo_v1_interface fifo_impl;
static const struct wp_commit_timer_v1_interface timer_impl;

static void constraint_resource_destroy(struct wl_resource *resource) {
	struct vt_surface_addon *addon = wl_resource_get_user_data(resource);
	struct constraint *c = wl_container_of(addon, c, addon);
	/* what it asked for stays (the protocols say so) */
	vt_surface_addon_finish(&c->addon);
	free(c);
}

/* The constraint's surface, NULL once destroyed. */
static struct vt_surface *constraint_surface(struct constraint *c) {
	return c->addon.surface != NULL ? vt_surface_from_wlr(c->addon.surface) :
									  NULL;
}

static void handle_destroy(struct wl_client *client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

/* The surface's queue, or the surface_destroyed error (error_code) and
 * NULL. */
static struct vt_commit_queue *constraint_queue(struct constraint *c,
		uint32_t error_code) {
	struct vt_surface *surface = constraint_surface(c);
	if (surface == NULL) {
		wl_resource_post_error(c->addon.resource, error_code,
				"the wl_surface was destroyed");
		return NULL;
	}
	struct vt_commit_queue *queue = vt_commit_queue_of(surface);
	if (queue == NULL) {
		wl_resource_post_no_memory(c->addon.resource);
	}
	return queue;
}

/* ---- wp_fifo_v1 ----------------------------------------------------------
 */

static struct constraint *fifo_from_resource(struct wl_resource *resource) {
	struct constraint *c;
	return wl_container_of(vt_surface_addon_from_resource(resource,
								   &wp_fifo_v1_interface, &fifo_impl),
			c, addon);
}

static void fifo_handle_set_barrier(struct wl_client *client,
		struct wl_resource *resource) {
	struct vt_commit_queue *queue = constraint_queue(
			fifo_from_resource(resource), WP_FIFO_V1_ERROR_SURFACE_DESTROYED);
	if (queue != NULL) {
		vt_commit_queue_set_barrier(queue);
	}
}

static void fifo_handle_wait_barrier(struct wl_client *client,
		struct wl_resource *resource) {
	struct constraint *c = fifo_from_resource(resource);
	struct vt_commit_queue *queue =
			constraint_queue(c, WP_FIFO_V1_ERROR_SURFACE_DESTROYED);
	if (queue == NULL) {
		return;
	}
	/* the constraint is ignored for a synchronized subsurface (its own
	 * mode: wlroots caches its commits for its parent's anyway) */
	struct vt_surface *surface = constraint_surface(c);
	if (surface->subsurface != NULL && surface->subsurface->synchronized) {
		return;
	}
	vt_commit_queue_wait_barrier(queue);
}

static const struct wp_fifo_v1_interface fifo_impl = {
	.set_barrier = fifo_handle_set_barrier,
	.wait_barrier = fifo_handle_wait_barrier,
	.destroy = handle_destroy,
};

/* ---- wp_commit_timer_v1 --------------------------------------------------
 */

static struct constraint *timer_from_resource(struct wl_resource *resource) {
	struct constraint *c;
	return wl_container_of(vt_surface_addon_from_resource(resource,
								   &wp_commit_timer_v1_interface, &timer_impl),
			c, addon);
}

static void timer_handle_set_timestamp(struct wl_client *client,
		struct wl_resource *resource, uint32_t sec_hi, uint32_t sec_lo,
		uint32_t nsec) {
	struct constraint *c = timer_from_resource(resource);
	struct vt_commit_queue *queue =
			constraint_queue(c, WP_COMMIT_TIMER_V1_ERROR_SURFACE_DESTROYED);
	if (queue == NULL) {
		return;
	}
	if (nsec >= NSEC_PER_SEC) {
		wl_resource_post_error(resource,
				WP_COMMIT_TIMER_V1_ERROR_INVALID_TIMESTAMP,
				"tv_nsec %u: must be under 1000000000", nsec);
		return;
	}
	uint32_t seq = c->addon.surface->pending.seq;
	if (c->has_timestamp && c->timestamp_seq == seq) {
		wl_resource_post_error(resource,
				WP_COMMIT_TIMER_V1_ERROR_TIMESTAMP_EXISTS,
				"the commit has a timestamp already");
		return;
	}
	c->has_timestamp = true;
	c->timestamp_seq = seq;
	uint64_t sec = (uint64_t)sec_hi << 32 | sec_lo;
	/* beyond what nanoseconds of CLOCK_MONOTONIC hold: never */
	uint64_t target = sec >= UINT64_MAX / NSEC_PER_SEC - 1 ?
			UINT64_MAX / 2 :
			sec * NSEC_PER_SEC + nsec;
	/* false when the queue is full: the commit goes behind the others,
	 * with the one before it */
	vt_commit_queue_set_target(queue, target);
}

static const struct wp_commit_timer_v1_interface timer_impl = {
	.set_timestamp = timer_handle_set_timestamp,
	.destroy = handle_destroy,
};

/* ---- the managers --------------------------------------------------------
 */

static void constraint_create(struct wl_client *client,
		struct wl_resource *manager, uint32_t id,
		struct wl_resource *surface_resource, bool timer) {
	struct constraint *c = calloc(1, sizeof(*c));
	if (c == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	c->timer = timer;
	bool made = timer ?
			vt_surface_addon_create(&c->addon, manager, id, surface_resource,
					&wp_commit_timer_v1_interface, &timer_impl,
					constraint_resource_destroy,
					WP_COMMIT_TIMING_MANAGER_V1_ERROR_COMMIT_TIMER_EXISTS) :
			vt_surface_addon_create(&c->addon, manager, id, surface_resource,
					&wp_fifo_v1_interface, &fifo_impl,
					constraint_resource_destroy,
					WP_FIFO_MANAGER_V1_ERROR_ALREADY_EXISTS);
	if (!made) {
		free(c);
	}
}

static void fifo_manager_get_fifo(struct wl_client *client,
		struct wl_resource *resource, uint32_t id,
		struct wl_resource *surface) {
	constraint_create(client, resource, id, surface, false);
}

static void timing_manager_get_timer(struct wl_client *client,
		struct wl_resource *resource, uint32_t id,
		struct wl_resource *surface) {
	constraint_create(client, resource, id, surface, true);
}

static const struct wp_fifo_manager_v1_interface fifo_manager_impl = {
	.destroy = handle_destroy,
	.get_fifo = fifo_manager_get_fifo,
};

static const struct wp_commit_timing_manager_v1_interface
		timing_manager_impl = {
			.destroy = handle_destroy,
			.get_timer = timing_manager_get_timer,
		};

static void fifo_manager_bind(struct wl_client *client, void *data,
		uint32_t version, uint32_t id) {
	vt_resource_create(client, &wp_fifo_manager_v1_interface, version, id,
			&fifo_manager_impl, data, NULL);
}

static void timing_manager_bind(struct wl_client *client, void *data,
		uint32_t version, uint32_t id) {
	vt_resource_create(client, &wp_commit_timing_manager_v1_interface, version,
			id, &timing_manager_impl, data, NULL);
}

bool vt_commit_constraints_init(struct vt_server *server) {
	/* the globals live as long as the display */
	return wl_global_create(server->display, &wp_fifo_manager_v1_interface, 1,
				   server, fifo_manager_bind) != NULL &&
			wl_global_create(server->display,
					&wp_commit_timing_manager_v1_interface, 1, server,
					timing_manager_bind) != NULL;
}
