/*
 * Input emulated through wlroots' headless input devices: the WLCS
 * integration module (tests/wlcs/) and vitrail_test_v1's pointer requests
 * make devices and feed them events here, so that vitrail's input code
 * (compositor/input.c) handles them as it handles a real device's.
 * Main thread only.
 */
#ifndef VITRAIL_EMULATED_INPUT_H
#define VITRAIL_EMULATED_INPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <wlr/types/wlr_input_device.h>
#include <wlr/types/wlr_pointer.h>

struct vt_server;

/* A new headless device of `type`, or NULL (not the headless backend, or
 * out of memory). The backend destroys it with the server. */
struct wlr_input_device *vt_emulated_device_create(struct vt_server *server,
		enum wlr_input_device_type type);

/* Pointer events, each followed by a frame. Absolute positions are layout
 * coordinates; false when the layout is empty. */
bool vt_emulated_pointer_move_to(struct vt_server *server,
		struct wlr_input_device *device, double lx, double ly);
void vt_emulated_pointer_move_by(struct wlr_input_device *device, double dx,
		double dy);
void vt_emulated_pointer_button(struct wlr_input_device *device,
		uint32_t button, bool pressed);
/* An axis event (value 0 from the finger source: the axis stop). */
void vt_emulated_pointer_axis(struct wlr_input_device *device,
		enum wlr_axis_orientation orientation, double value, int32_t discrete,
		enum wlr_axis_source source);

/* Touch events, each followed by a frame; positions in layout
 * coordinates. */
bool vt_emulated_touch_down(struct vt_server *server,
		struct wlr_input_device *device, int32_t id, double lx, double ly);
bool vt_emulated_touch_move(struct vt_server *server,
		struct wlr_input_device *device, int32_t id, double lx, double ly);
void vt_emulated_touch_up(struct wlr_input_device *device, int32_t id);
/* A touch down (or motion) at x, y in the device's own 0..1 range, as a
 * touch screen's controller reports it. */
void vt_emulated_touch_raw(struct wlr_input_device *device, int32_t id,
		double x, double y, bool down);

#endif
