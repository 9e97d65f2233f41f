/*
 * Emulated input (see emulated_input.h): events are emitted on the
 * headless device's signals with the current CLOCK_MONOTONIC time, as a
 * libinput device's would be.
 */
#include <math.h>
#include <wlr/backend/headless.h>
#include <wlr/backend/multi.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_pointer.h>
#include <wlr/types/wlr_touch.h>

#include "input/emulated_input.h"
#include "server.h"
#include "util.h"

static uint32_t now_msec(void) {
	return (uint32_t)(vt_now_ns() / 1000000u);
}

/* The headless backend emulated devices belong to: vitrail's own when it
 * is headless, else one added to the multi-backend for them (a nested
 * session driven by the test protocol), started at once. */
static struct wlr_backend *input_backend(struct vt_server *server) {
	if (wlr_backend_is_headless(server->backend)) {
		return server->backend;
	}
	if (server->headless != NULL) {
		return server->headless;
	}
	if (!wlr_backend_is_multi(server->backend)) {
		return NULL;
	}
	struct wlr_backend *headless = wlr_headless_backend_create(server->display);
	if (headless == NULL) {
		return NULL;
	}
	if (!wlr_multi_backend_add(server->backend, headless) ||
			!wlr_backend_start(headless)) {
		wlr_backend_destroy(headless);
		return NULL;
	}
	server->headless = headless;
	return headless;
}

struct wlr_input_device *vt_emulated_device_create(struct vt_server *server,
		enum wlr_input_device_type type) {
	struct wlr_backend *backend = input_backend(server);
	return backend != NULL ? wlr_headless_add_input_device(backend, type) :
							 NULL;
}

/* Layout coordinates to the device's 0..1 range (the whole layout). */
/* The fraction f of [origin, origin + size) that wlroots turns back into
 * exactly l (origin + size * f): (l - origin) / size alone may come back
 * a hair short (49 over 100 as 48.99999999999999), and input aimed at a
 * surface's first row or column would land outside it. */
static double exact_fraction(double l, int origin, int size) {
	double f = (l - origin) / size;
	while (size * f + origin > l) {
		f = nextafter(f, -INFINITY);
	}
	while (size * f + origin < l) {
		f = nextafter(f, INFINITY);
	}
	return f;
}

static bool to_absolute(struct vt_server *server, double lx, double ly,
		double *x, double *y) {
	struct wlr_box *box = wlr_output_layout_get_box(server->layout, NULL);
	if (box == NULL || box->width <= 0 || box->height <= 0) {
		return false;
	}
	*x = exact_fraction(lx, box->x, box->width);
	*y = exact_fraction(ly, box->y, box->height);
	return true;
}

bool vt_emulated_pointer_move_to(struct vt_server *server,
		struct wlr_input_device *device, double lx, double ly) {
	struct wlr_event_pointer_motion_absolute event = {
		.device = device,
		.time_msec = now_msec(),
	};
	if (!to_absolute(server, lx, ly, &event.x, &event.y)) {
		return false;
	}
	wl_signal_emit(&device->pointer->events.motion_absolute, &event);
	wl_signal_emit(&device->pointer->events.frame, device->pointer);
	return true;
}

void vt_emulated_pointer_move_by(struct wlr_input_device *device, double dx,
		double dy) {
	struct wlr_event_pointer_motion event = {
		.device = device,
		.time_msec = now_msec(),
		.delta_x = dx,
		.delta_y = dy,
		.unaccel_dx = dx,
		.unaccel_dy = dy,
	};
	wl_signal_emit(&device->pointer->events.motion, &event);
	wl_signal_emit(&device->pointer->events.frame, device->pointer);
}

void vt_emulated_pointer_button(struct wlr_input_device *device,
		uint32_t button, bool pressed) {
	struct wlr_event_pointer_button event = {
		.device = device,
		.time_msec = now_msec(),
		.button = button,
		.state = pressed ? WLR_BUTTON_PRESSED : WLR_BUTTON_RELEASED,
	};
	wl_signal_emit(&device->pointer->events.button, &event);
	wl_signal_emit(&device->pointer->events.frame, device->pointer);
}

void vt_emulated_pointer_axis(struct wlr_input_device *device,
		enum wlr_axis_orientation orientation, double value, int32_t discrete,
		enum wlr_axis_source source) {
	struct wlr_event_pointer_axis event = {
		.device = device,
		.time_msec = now_msec(),
		.source = source,
		.orientation = orientation,
		.delta = value,
		.delta_discrete = discrete,
	};
	wl_signal_emit(&device->pointer->events.axis, &event);
	wl_signal_emit(&device->pointer->events.frame, device->pointer);
}

void vt_emulated_touch_raw(struct wlr_input_device *device, int32_t id,
		double x, double y, bool down) {
	if (down) {
		struct wlr_event_touch_down event = {
			.device = device,
			.time_msec = now_msec(),
			.touch_id = id,
			.x = x,
			.y = y,
		};
		wl_signal_emit(&device->touch->events.down, &event);
	} else {
		struct wlr_event_touch_motion event = {
			.device = device,
			.time_msec = now_msec(),
			.touch_id = id,
			.x = x,
			.y = y,
		};
		wl_signal_emit(&device->touch->events.motion, &event);
	}
	wl_signal_emit(&device->touch->events.frame, NULL);
}

bool vt_emulated_touch_down(struct vt_server *server,
		struct wlr_input_device *device, int32_t id, double lx, double ly) {
	double x, y;
	if (!to_absolute(server, lx, ly, &x, &y)) {
		return false;
	}
	vt_emulated_touch_raw(device, id, x, y, true);
	return true;
}

bool vt_emulated_touch_move(struct vt_server *server,
		struct wlr_input_device *device, int32_t id, double lx, double ly) {
	double x, y;
	if (!to_absolute(server, lx, ly, &x, &y)) {
		return false;
	}
	vt_emulated_touch_raw(device, id, x, y, false);
	return true;
}

void vt_emulated_touch_up(struct wlr_input_device *device, int32_t id) {
	struct wlr_event_touch_up event = {
		.device = device,
		.time_msec = now_msec(),
		.touch_id = id,
	};
	wl_signal_emit(&device->touch->events.up, &event);
	wl_signal_emit(&device->touch->events.frame, NULL);
}
