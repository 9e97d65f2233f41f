/*
 * Input: the seat and touch (input.c), input prediction (prediction.c),
 * keyboards and key bindings (keyboard.c), the pointer and cursor
 * (pointer.c).
 */
#ifndef VITRAIL_INPUT_H
#define VITRAIL_INPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

struct vt_server;
struct wlr_input_device;
struct wlr_surface;

struct vt_keyboard {
	struct vt_server *server;
	struct wlr_input_device *device;
	struct wl_list link; /* vt_server::keyboards */
	struct wl_listener modifiers;
	struct wl_listener key;
	struct wl_listener destroy;
	/* keys pressed for a binding: their releases stay with vitrail */
	uint32_t bound_keys[8];
	int bound_len;
};

bool vt_input_init(struct vt_server *server);
/* The position of the pointer (a button held, its focus on surface) or
 * of a touch point down on surface, predicted at t_ns (CLOCK_MONOTONIC)
 * by a least-squares polynomial of degree (1: linear, 2: quadratic) over
 * the recent samples, surface-local; false when neither is held on it. */
bool vt_input_predict(struct vt_server *server, struct wlr_surface *surface,
		uint64_t t_ns, int degree, double *x, double *y);
void vt_input_apply_config(struct vt_server *server);
/* Windows moved, appeared or went away: give the pointer focus to what is
 * under the cursor now, as if it had moved there. */
void vt_input_update_pointer_focus(struct vt_server *server);
/* The cursor becomes the theme's image `name` (a string that outlives the
 * server; the arrow when the theme lacks it) in place of a client's
 * cursor surface: cursor-shape-v1 (cursor_shape.c), which checked that the
 * client asking has the pointer focus. */
void vt_input_set_cursor_shape(struct vt_server *server, const char *name);
void vt_input_finish(struct vt_server *server);

#endif
