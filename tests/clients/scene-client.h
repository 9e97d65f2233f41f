/*
 * A small helper for vitrail_scene_v1 clients (the example clients and the
 * protocol tests): an xdg_toplevel whose content is scene nodes, shm
 * buffers and images, an encoder of the display-list command stream
 * (protocol/vitrail-scene-v1.xml, "Command stream"), and an event loop
 * with taps (pointer button or touch down) and a one-shot timer.
 */
#ifndef VITRAIL_TESTS_CLIENTS_SCENE_CLIENT_H
#define VITRAIL_TESTS_CLIENTS_SCENE_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wayland-client.h>
#include "tearing-control-v1-client-protocol.h"
#include "vitrail-frame-timing-v1-client-protocol.h"
#include "vitrail-scene-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

/* Ops of the command stream. */
enum sc_op {
	SC_OP_RECT = 1,
	SC_OP_RRECT = 2,
	SC_OP_ELLIPSE = 3,
	SC_OP_LINE = 4,
	SC_OP_PATH = 5,
	SC_OP_IMAGE = 6,
	SC_OP_TEXT = 7,
	SC_OP_SAVE = 8,
	SC_OP_RESTORE = 9,
	SC_OP_TRANSLATE = 10,
	SC_OP_SCALE = 11,
	SC_OP_ROTATE = 12,
	SC_OP_CLIP_RECT = 13,
	SC_OP_CLIP_RRECT = 14,
	SC_OP_SHADOW = 15,
};

/* Path verbs. */
enum sc_verb {
	SC_MOVE = 0,
	SC_LINE = 1,
	SC_QUAD = 2,
	SC_CUBIC = 3,
	SC_CLOSE = 4,
};

/* A command stream being encoded (little-endian records). */
struct sc_dl {
	uint8_t *data;
	size_t size, cap;
};

/* How a shape is painted: fill when stroke_width is 0. */
struct sc_paint {
	uint32_t color; // 0xAARRGGBB, straight alpha
	float stroke_width;
	uint8_t join, cap, fill_rule;
	float miter_limit;
};

#define SC_FILL(argb) ((struct sc_paint){ .color = (argb) })
#define SC_STROKE(argb, w) \
	((struct sc_paint){ .color = (argb), .stroke_width = (w) })

void sc_dl_init(struct sc_dl *dl);
void sc_dl_finish(struct sc_dl *dl);
/* Raw record: op, then payload bytes (padded with zeros to 4). */
void sc_dl_record(struct sc_dl *dl, uint16_t op, const void *payload,
		size_t len);
void sc_dl_rect(struct sc_dl *dl, float x, float y, float w, float h,
		struct sc_paint paint);
void sc_dl_rrect(struct sc_dl *dl, float x, float y, float w, float h,
		float radius, struct sc_paint paint);
void sc_dl_ellipse(struct sc_dl *dl, float x, float y, float w, float h,
		struct sc_paint paint);
void sc_dl_line(struct sc_dl *dl, float x0, float y0, float x1, float y1,
		struct sc_paint paint);
/* verbs: n_verbs enum sc_verb; points: x, y pairs (n_points of them). */
void sc_dl_path(struct sc_dl *dl, const uint8_t *verbs, uint32_t n_verbs,
		const float *points, uint32_t n_points, struct sc_paint paint);
/* image: the vitrail_scene_image_v1's id; src 0-sized: the whole image. */
void sc_dl_image(struct sc_dl *dl, uint32_t image, float opacity, float sx,
		float sy, float sw, float sh, float x, float y, float w, float h);
void sc_dl_text(struct sc_dl *dl, float x, float y, uint32_t color, float size,
		uint32_t weight, const char *family, const char *text);
void sc_dl_save(struct sc_dl *dl);
void sc_dl_restore(struct sc_dl *dl);
void sc_dl_translate(struct sc_dl *dl, float x, float y);
void sc_dl_clip_rrect(struct sc_dl *dl, float x, float y, float w, float h,
		float radius);
void sc_dl_shadow(struct sc_dl *dl, float x, float y, float w, float h,
		float radius, float blur, uint32_t color);

/* A wl_shm buffer with its pixels mapped. */
struct sc_buffer {
	struct wl_buffer *wl_buffer;
	uint32_t *pixels; // premultiplied ARGB8888 / XRGB8888
	int32_t width, height;
	size_t size;
};

struct sc_app;
typedef void (*sc_tap_func)(struct sc_app *app, double x, double y);
typedef void (*sc_timer_func)(struct sc_app *app);

enum sc_touch {
	SC_TOUCH_DOWN,
	SC_TOUCH_MOTION,
	SC_TOUCH_UP,
};

struct sc_app {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct wl_subcompositor *subcompositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wl_seat *seat;
	struct wl_pointer *pointer;
	struct wl_touch *touch;
	struct vitrail_scene_manager_v1 *manager;
	struct vitrail_frame_timing_manager_v1 *timing_manager; // or NULL
	struct wp_tearing_control_manager_v1 *tearing_manager; // or NULL

	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *xdg_toplevel;
	struct sc_buffer *buffer; // the window's (transparent unless drawn)
	int32_t width, height;
	bool configured;
	/* the last xdg_toplevel.configure: its size (0: the client's) and
	 * whether it said maximized, fullscreen */
	int32_t configure_width, configure_height;
	bool configure_maximized, configure_fullscreen;
	bool running; // false after xdg_toplevel.close
	int exit_status;

	bool exit_when_done; // sc_app_animation_done stops the loop

	double pointer_x, pointer_y;
	uint32_t button_serial; // of the last press
	uint32_t touch_serial; // of the last touch down
	int buttons_pressed; // presses received
	sc_tap_func on_tap;
	/* Scrolling input, for clients that scroll themselves (NULL:
	 * ignored): wl_pointer.axis (value in surface units; axis_source is
	 * the source of the pointer frame it is in, 0 when none came), the
	 * axis stop, and touch points (x, y surface-local; up has none). */
	void (*on_axis)(struct sc_app *app, uint32_t axis, double value);
	void (*on_axis_stop)(struct sc_app *app, uint32_t axis);
	void (*on_touch)(struct sc_app *app, enum sc_touch what, int32_t id,
			double x, double y);
	uint32_t axis_source;
	int pointer_frames; // wl_pointer.frame events received (seat v5)
	/* Set before sc_app_init: the wl_seat version to bind (0: 1; 5 for
	 * axis sources and stops, but then every wl_keyboard listener the
	 * client adds must handle repeat_info). */
	uint32_t seat_version;
	int timer_fd; // -1 when no timer
	sc_timer_func on_timer;
	void *data;
};

/* Connect and bind the globals; false (printed) when something lacks. */
bool sc_app_init(struct sc_app *app, const char *name);
void sc_app_finish(struct sc_app *app);
/* The two halves of sc_app_create_window, for a client that makes more
 * objects of its toplevel before the first commit: the surface and its
 * toplevel (nothing committed); then the first commit, the wait for its
 * configure, and the buffer (attached, not committed). */
void sc_app_create_toplevel(struct sc_app *app, const char *app_id,
		const char *title);
bool sc_app_configure_window(struct sc_app *app, int32_t width, int32_t height,
		uint32_t argb);
/* Create the toplevel of width x height with a buffer filled with argb
 * (0: transparent) and wait for its first configure. */
bool sc_app_create_window(struct sc_app *app, const char *app_id,
		const char *title, int32_t width, int32_t height, uint32_t argb);
/* Arm the one-shot timer (ms from now). */
void sc_app_set_timer(struct sc_app *app, int ms, sc_timer_func fn);
/* Dispatch until app->running is false or SIGTERM/SIGINT; returns the
 * exit status. */
int sc_app_run(struct sc_app *app);

/* An shm buffer filled with one colour (premultiplied ARGB8888). */
struct sc_buffer *sc_buffer_create(struct sc_app *app, int32_t width,
		int32_t height, uint32_t format, uint32_t fill);
void sc_buffer_destroy(struct sc_buffer *buffer);

/* An image from pixels (premultiplied ARGB8888, stride 4 * width). */
struct vitrail_scene_image_v1 *sc_image_create(struct sc_app *app,
		int32_t width, int32_t height, const uint32_t *pixels);
/* A display list holding dl's commands, sent inline when small, through
 * shared memory (a memfd) otherwise. */
struct vitrail_scene_display_list_v1 *sc_list_create(struct sc_app *app,
		const struct sc_dl *dl);
/* Append dl through a memfd in any case. */
void sc_list_append_shm(struct vitrail_scene_display_list_v1 *list,
		const struct sc_dl *dl);

/* Node helpers (requests are double-buffered: commit the surface). */
void sc_node_set_children(struct vitrail_scene_node_v1 *node,
		struct vitrail_scene_node_v1 *const *children, size_t n);
void sc_node_set_position(struct vitrail_scene_node_v1 *node, double x,
		double y);
/* Animate property to target values (count per the property) with curve
 * and its parameters. */
struct vitrail_scene_animation_v1 *sc_node_animate(
		struct vitrail_scene_node_v1 *node, uint32_t property,
		const double *target, size_t ntarget, uint32_t duration_ms,
		uint32_t curve, const double *params, size_t nparams);

/* Set node's display list to one holding dl's commands; finishes dl. */
void sc_node_set_list(struct sc_app *app, struct vitrail_scene_node_v1 *node,
		struct sc_dl *dl);

/* Parse "--animate-after MS" style integers; false when not one. */
bool sc_parse_ms(const char *s, int *ms);

/* Print "animation done: finished" (or "cancelled"), the line the tests
 * wait for, and stop the loop under --exit-when-done. */
void sc_app_animation_done(struct sc_app *app, uint32_t reason);

/* An example client: what sc_client_main needs to know. */
struct sc_client {
	const char *name; // for messages, and the default app_id
	const char *title;
	int32_t width, height;
	void (*build)(struct sc_app *app); // the window's content
	sc_tap_func on_tap;
	sc_timer_func on_timer; // what --animate-after does
	void (*finish)(struct sc_app *app); // before sc_app_finish, or NULL
};

/*
 * The example clients' main: parse their options
 *   --app-id ID           xdg_toplevel app_id (default client->name)
 *   --animate-after MS    call client->on_timer MS ms after start
 *   --exit-when-done      set app->exit_when_done
 * then connect, create the (transparent) window, build it, run, finish;
 * returns the exit status.
 */
int sc_client_main(struct sc_app *app, const struct sc_client *client, int argc,
		char *argv[]);

#endif
