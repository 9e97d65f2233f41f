/*
 * Input's internals, shared by the files of input.c's split (input.c,
 * keyboard.c, pointer.c): the helpers one file calls in another.
 */
#ifndef VITRAIL_INPUT_INPUT_INTERNAL_H
#define VITRAIL_INPUT_INPUT_INTERNAL_H

#define _GNU_SOURCE /* memfd_create */
#include <errno.h>
#include <linux/input-event-codes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wlr/backend.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/types/wlr_input_device.h>
#include <wlr/types/wlr_keyboard.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_pointer.h>
#include <wlr/types/wlr_primary_selection.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/types/wlr_touch.h>
#include <wlr/types/wlr_virtual_keyboard_v1.h>
#include <wlr/types/wlr_virtual_pointer_v1.h>
#include <wlr/backend/session.h>
#include <wlr/interfaces/wlr_input_device.h>
#include <wlr/interfaces/wlr_keyboard.h>
#include <wlr/types/wlr_xcursor_manager.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/edges.h>
#include <wlr/util/log.h>
#include <wlr/xcursor.h>
#include <xkbcommon/xkbcommon.h>

#include "desktop/view.h"
#include "server.h"

/* A virtual pointer (pointer.c): its events held until its frame. */
struct vt_virtual_pointer {
	struct vt_server *server;
	struct wlr_input_device *device;
	struct wl_array held; /* struct held_event, oldest first */
	struct wl_list link; /* vt_server::virtual_pointers */
	struct wl_listener frame;
	struct wl_listener destroy;
};

/* prediction.c: forget the history; a position over surface, now (a new
 * surface starts a new history). */
void input_history_reset(struct vt_input_history *history);
void input_history_add(struct vt_input_history *history,
		struct wlr_surface *surface, double x, double y);
bool input_own_keyboard_create(struct vt_server *server);
void input_update_capabilities(struct vt_server *server);
void input_add_device(struct vt_server *server,
		struct wlr_input_device *device);
void input_handle_new_input(struct wl_listener *listener, void *data);
void input_keymap_guard(void *data, enum wl_protocol_logger_type type,
		const struct wl_protocol_logger_message *message);
void input_handle_new_virtual_keyboard(struct wl_listener *listener,
		void *data);
void input_cursor_set_theme_image(struct vt_server *server, const char *name);
/* Unref the theme's images (pointer.c). */
void input_cursor_drop_theme_images(struct vt_server *server);
void input_handle_cursor_outputs(struct wl_listener *listener, void *data);
struct wlr_surface *input_surface_at(struct vt_server *server, double lx,
		double ly, double *sx, double *sy, struct vt_view **view);
void input_decoration_touch(struct vt_server *server, struct vt_view *view,
		int32_t touch_id, double lx, double ly);
void input_virtual_pointer_destroy(struct vt_virtual_pointer *vp);
void input_handle_new_virtual_pointer(struct wl_listener *listener, void *data);
void input_handle_cursor_motion(struct wl_listener *listener, void *data);
void input_handle_cursor_motion_absolute(struct wl_listener *listener,
		void *data);
void input_handle_cursor_button(struct wl_listener *listener, void *data);
void input_handle_cursor_axis(struct wl_listener *listener, void *data);
void input_handle_cursor_frame(struct wl_listener *listener, void *data);
void input_handle_request_cursor(struct wl_listener *listener, void *data);

#endif
