/*
 * Input on vitrail_scroll_v1's regions (input.c hands pointer axis and
 * touch events here first): it moves a region's wanted position at once
 * and starts flings; the output frames show it (scroll_region.c).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_pointer.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_surface.h>

#include "desktop/hit_test.h"
#include "output/output.h"
#include "pacing/pacer.h"
#include "pacing/scroll.h"
#include "protocols/scroll_region.h"
#include "protocols/scroll_region_internal.h"
#include "server.h"
#include "util.h"

/* ---- input -------------------------------------------------------------- */

/* The region of surface at sx, sy (surface-local) that scrolls along
 * axis (-1: any), the latest made first. */
static struct scroll_region *region_at(struct vt_scroll_manager *manager,
		struct wlr_surface *surface, double sx, double sy, int axis) {
	struct scroll_region *region;
	wl_list_for_each_reverse(region, &manager->regions, link) {
		if (region->surface != surface ||
				(axis >= 0 && !region->scrolls[axis])) {
			continue;
		}
		const int32_t *r = region->rect;
		if (sx >= r[0] && sx < r[0] + r[2] && sy >= r[1] && sy < r[1] + r[3]) {
			return region;
		}
	}
	return NULL;
}

/* The event's timestamp on a clock of nanoseconds. */
static uint64_t event_ns(uint32_t time_msec) {
	return (uint64_t)time_msec * 1000000;
}

/* The wanted position moved (input at event_time): show it at once. */
static void region_moved(struct scroll_region *region, int axis, uint64_t now,
		uint64_t event_time) {
	vt_scroll_velocity_add(&region->velocity[axis], now, event_time,
			region->pos[axis]);
	scroll_region_show(region);
	vt_server_request_frame(region->manager->server, VT_PACER_RENDER);
}

static double fling_tau(struct scroll_region *region) {
	return region->manager->server->config.scroll_fling_ms / 1000.0;
}

/* Fling along axis from now, at the velocity of the 100 ms of events
 * before the one at event_time (the lift). */
static void region_fling(struct scroll_region *region, int axis, uint64_t now,
		uint64_t event_time) {
	double v = vt_scroll_velocity_get(&region->velocity[axis], event_time);
	struct vt_scroll_span span = scroll_region_span(region, axis);
	if (fabs(v) >= VT_FLING_MIN_VELOCITY) {
		vt_fling_start(&region->fling[axis], now, region->pos[axis], v,
				fling_tau(region), VT_FLING_STOP_VELOCITY, 0.0,
				vt_scroll_max(&span));
	}
	vt_scroll_velocity_reset(&region->velocity[axis]);
	if (region->fling[axis].active) {
		vt_server_request_frame(region->manager->server, VT_PACER_RENDER);
	}
}

bool vt_scroll_pointer_axis(struct vt_server *server,
		const struct wlr_event_pointer_axis *event) {
	struct vt_scroll_manager *manager = server->scroll;
	struct wlr_seat *seat = server->seat;
	struct wlr_surface *surface = seat->pointer_state.focused_surface;
	if (manager == NULL || surface == NULL) {
		return false;
	}
	int axis = event->orientation == WLR_AXIS_ORIENTATION_VERTICAL ? AXIS_Y :
																	 AXIS_X;
	struct scroll_region *region = region_at(manager, surface,
			seat->pointer_state.sx, seat->pointer_state.sy, axis);
	if (region == NULL) {
		return false;
	}
	uint64_t now = vt_now_ns();
	if (event->delta == 0.0) {
		/* axis_stop: a finger left the touchpad */
		if (event->source == WLR_AXIS_SOURCE_FINGER) {
			region_fling(region, axis, now, event_ns(event->time_msec));
		}
		return true;
	}
	region->fling[axis].active = false;
	struct vt_scroll_span span = scroll_region_span(region, axis);
	region->pos[axis] =
			vt_scroll_clamp(&span, region->pos[axis] + event->delta);
	region_moved(region, axis, now, event_ns(event->time_msec));
	return true;
}

bool vt_scroll_touch_down(struct vt_server *server, uint32_t time_msec,
		int32_t id, double lx, double ly) {
	struct vt_scroll_manager *manager = server->scroll;
	if (manager == NULL) {
		return false;
	}
	struct wlr_surface *surface = NULL;
	double sx, sy;
	if (vt_view_at(server, lx, ly, &surface, &sx, &sy) == NULL ||
			surface == NULL) {
		return false;
	}
	struct scroll_region *region = region_at(manager, surface, sx, sy, -1);
	if (region == NULL || region->dragging) {
		return false;
	}
	uint64_t now = vt_now_ns();
	region->dragging = true;
	region->touch_id = id;
	region->drag_from[0] = lx;
	region->drag_from[1] = ly;
	for (int i = 0; i < 2; i++) {
		region->fling[i].active = false;
		vt_scroll_velocity_reset(&region->velocity[i]);
		region->drag_pos[i] = region->pos[i];
		vt_scroll_velocity_add(&region->velocity[i], now, event_ns(time_msec),
				region->pos[i]);
	}
	return true;
}

static struct scroll_region *dragging_region(struct vt_server *server,
		int32_t id) {
	struct vt_scroll_manager *manager = server->scroll;
	if (manager == NULL) {
		return NULL;
	}
	struct scroll_region *region;
	wl_list_for_each(region, &manager->regions, link) {
		if (region->dragging && region->touch_id == id) {
			return region;
		}
	}
	return NULL;
}

bool vt_scroll_touch_motion(struct vt_server *server, uint32_t time_msec,
		int32_t id, double lx, double ly) {
	struct scroll_region *region = dragging_region(server, id);
	if (region == NULL) {
		return false;
	}
	uint64_t now = vt_now_ns();
	double at[2] = { lx, ly };
	for (int i = 0; i < 2; i++) {
		if (!region->scrolls[i]) {
			continue;
		}
		/* the content follows the finger */
		struct vt_scroll_span span = scroll_region_span(region, i);
		region->pos[i] = vt_scroll_clamp(&span,
				region->drag_pos[i] - (at[i] - region->drag_from[i]));
		vt_scroll_velocity_add(&region->velocity[i], now, event_ns(time_msec),
				region->pos[i]);
	}
	scroll_region_show(region);
	vt_server_request_frame(server, VT_PACER_RENDER);
	return true;
}

bool vt_scroll_touch_up(struct vt_server *server, uint32_t time_msec,
		int32_t id) {
	struct scroll_region *region = dragging_region(server, id);
	if (region == NULL) {
		return false;
	}
	region->dragging = false;
	uint64_t now = vt_now_ns();
	for (int i = 0; i < 2; i++) {
		if (region->scrolls[i]) {
			region_fling(region, i, now, event_ns(time_msec));
		}
	}
	return true;
}
