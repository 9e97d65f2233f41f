/*
 * vitrail compositor: wlroots glue, policy and frame pacing.
 *
 * Everything in compositor/ runs on the main thread (the wl_event_loop);
 * the renderer library is the only part allowed threads of its own.
 *
 * This header holds the server itself (struct vt_server, the command
 * line's options, what starts and stops it, and the types it embeds);
 * each module declares the rest in a header of its own beside it:
 * output/ (the frame pipeline), protocols/, desktop/ (surfaces, windows,
 * layers, the session lock, kiosk mode, Xwayland), input/, scene/,
 * testing/ (the test protocol), util.h.
 */
#ifndef VITRAIL_SERVER_H
#define VITRAIL_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/box.h>
#include <vitrail/renderer.h>

#include "config.h"
#include "loop.h"

struct vt_output;
struct vt_surface;
struct vt_view;
struct wlr_input_inhibit_manager;
struct wlr_layer_surface_v1;
struct wlr_surface;
struct wlr_virtual_keyboard_manager_v1;
struct wlr_virtual_pointer_manager_v1;
struct wlr_xdg_surface;

enum vt_backend_kind {
	VT_BACKEND_AUTO,
	VT_BACKEND_HEADLESS,
	VT_BACKEND_WAYLAND,
	VT_BACKEND_X11,
	VT_BACKEND_DRM,
};

/* Command-line options (what the user asked for; config is separate). */
#define VT_OUTPUTS_MAX 16

enum vt_frame_pipeline {
	VT_PIPELINE_ASYNC, /* frames in flight, written once into the buffer */
	VT_PIPELINE_SYNC, /* the old path (benchmark baseline): wait for each
		frame, copy it twice on the CPU, render a period ahead */
};

enum vt_pacing_kind {
	VT_PACING_VSYNC, /* frames in step with the display, just in time */
	VT_PACING_DVSYNC, /* predictable frames rendered ahead (D-VSync) */
};

/* --prerender: frames queued ahead of the display (D-VSync). */
#define VT_PRERENDER_DEFAULT 3
#define VT_PRERENDER_MAX 5

/* What executes the renderer's tasks (--render-backend). */
enum vt_render_backend {
	VT_RENDER_AUTO, /* Vulkan on a GPU; on a CPU Vulkan device (lavapipe)
					 * whichever renders a UI-like frame faster; the CPU
					 * backend where Vulkan fails */
	VT_RENDER_VULKAN, /* Vulkan, or the CPU backend where it fails */
	VT_RENDER_CPU, /* the CPU backend */
};

struct vt_options {
	enum vt_backend_kind backend;
	int outputs; /* virtual outputs: headless, wayland, x11 */
	int output_width, output_height;
	/* headless refresh per output, in output order; the last one
	 * repeats */
	int refresh_mhz[VT_OUTPUTS_MAX];
	int refresh_count;
	enum vt_frame_pipeline pipeline;
	enum vt_pacing_kind pacing;
	/* D-VSync's limit per output, in output order (as refresh_mhz); none:
	 * VT_PRERENDER_DEFAULT */
	int prerender[VT_OUTPUTS_MAX];
	int prerender_count;
	const char *socket;
	const char *config_path;
	const char *screenshot_dir;
	const char *stats_path;
	const char *frame_log_path;
	double exit_after; /* seconds, 0 = never */
	int ready_fd; /* -1 = none */
	bool test; /* expose vitrail_test_v1 */
	int renderer_threads; /* 0: the renderer's default */
	bool sequential; /* the renderer's sequential baseline */
	enum vt_render_backend render_backend;
	bool demo; /* embedded default session */
	bool validate; /* check the config and exit */
	bool no_xwayland; /* --no-xwayland */
	enum vt_mode mode;
	bool mode_set;
	uint32_t allow; /* --allow: enum vt_privilege, beside the config's */
	char **startup; /* commands run through /bin/sh -c */
	int startup_len;
};

/* An interactive move or resize of a window (view.c, input.c): started by
 * the client (xdg_toplevel.move/resize on a button press) or by the drag
 * modifier and a button; the pointer's motion drives it until every
 * button is up. */
enum vt_grab_mode {
	VT_GRAB_NONE,
	VT_GRAB_MOVE,
	VT_GRAB_RESIZE,
};

struct vt_grab {
	enum vt_grab_mode mode;
	struct vt_view *view;
	double cursor_x, cursor_y; /* at the start, layout coords */
	struct wlr_box box; /* the window's geometry at the start */
	uint32_t edges; /* enum wlr_edges, resize */
	bool swallow; /* the drag modifier's: buttons kept from the client */
	/* driven by touch point touch_id (from cursor_x, cursor_y) instead
	 * of the cursor, until that point is up */
	bool touch;
	int32_t touch_id;
};

/* A cursor image of the theme (XCURSOR_THEME, XCURSOR_SIZE): the arrow
 * and the resize cursors of each edge and corner, its pixels loaded at
 * the largest scale of the outputs (vt_server::cursor_scale); its size
 * (the scale-1 image's) and hotspot in layout coordinates. */
#define VT_CURSOR_IMAGES 12
struct vt_cursor_image {
	const char *name; /* a static string */
	struct vr_image *image;
	float width, height, hotspot_x, hotspot_y;
};

struct vt_commit_queues;
struct vt_frame_log;
struct vt_layer_shell;
struct vt_xwayland;
struct vt_output_management;
struct vt_presentation;
struct vt_scene_manager;
struct vt_scroll_manager;

#define VT_INPUT_HISTORY 8

/* One position of a pointer or touch point, surface-local, stamped at its
 * arrival (CLOCK_MONOTONIC ns). */
struct vt_input_sample {
	uint64_t t_ns;
	double x, y;
};

/* The last VT_INPUT_HISTORY positions, over one surface. */
struct vt_input_history {
	struct wlr_surface *surface; /* compared, never dereferenced */
	struct vt_input_sample samples[VT_INPUT_HISTORY]; /* a ring */
	int n, next;
};

struct vt_server {
	/*
	 * What modules below announce to those above, synchronously (the
	 * listeners run inside the emit, at the point of the old call, in
	 * the order added: where that order matters, the init order in
	 * server.c makes it). Event structs are in the emitter's header.
	 */
	struct {
		/* windows moved, appeared or went away: input gives the
		 * pointer focus to what is under the cursor now
		 * (vt_input_update_pointer_focus) */
		struct wl_signal pointer_focus;
		/* the reload binding: server.c loads the config again */
		struct wl_signal reload;
		/* a toplevel (struct vt_view) was mapped, unmapped (or
		 * finished), its title or app_id changed, the output under it,
		 * what vitrail asked it to fill, its minimized state
		 * (view->minimized): foreign_toplevel.c follows */
		struct wl_signal view_map;
		struct wl_signal view_unmap;
		struct wl_signal view_names;
		struct wl_signal view_output;
		struct wl_signal view_fill;
		struct wl_signal view_minimized;
		/* struct vt_view_activated_event */
		struct wl_signal view_activated;
		/* an xdg toplevel (struct vt_view) was made: a KDE
		 * server-decoration made before applies to it */
		struct wl_signal new_xdg_toplevel;
		/* fullscreen windows may have come or gone (layer_shell.c) */
		struct wl_signal fullscreen_changed;
		/* the session lock raised its layer above everything: what
		 * must stay above it (output_power.c's blanks) is placed
		 * again */
		struct wl_signal lock_raised;
		/* loop.c: the tree update is due (the outputs run it) */
		struct wl_signal update;
		/* loop.c: deferred pacers may run (the outputs run them) */
		struct wl_signal run_pacers;
		/* output/engine.c: the engine's fd is readable: frames
		 * completed (the outputs collect them) */
		struct wl_signal engine_completed;
		/* a frame, a copy or a fling ended: a waiting test may be
		 * settled now (test_control.c) */
		struct wl_signal check_settled;
		/* surface.c: a vt_surface was created (data: it); its own
		 * events say what it does next */
		struct wl_signal new_surface;
		/* output.c, data: struct vt_output_change_event */
		struct wl_signal output_disabled; /* before it leaves the layout */
		struct wl_signal output_gone; /* disabled or destroyed */
		struct wl_signal output_moved;
	} events;

	struct wl_display *display;
	struct wl_event_loop *loop;
	struct wlr_backend *backend;
	/* a nested session's headless backend for emulated input devices
	 * (emulated_input.c), part of the multi-backend; NULL until used */
	struct wlr_backend *headless;
	struct wlr_renderer *wlr_renderer; /* pixman: output buffers only */
	struct wlr_renderer *surface_renderer; /* wl_shm, client buffers */
	struct wlr_allocator *allocator;
	struct wlr_compositor *compositor;
	struct wlr_output_layout *layout;
	struct vt_presentation *presentation; /* protocols/presentation.c */
	struct wlr_xdg_shell *xdg_shell;
	struct wlr_seat *seat;
	struct wlr_cursor *cursor;
	struct wlr_xcursor_manager *xcursor_manager;
	struct wlr_virtual_pointer_manager_v1 *virtual_pointer;
	struct wlr_virtual_keyboard_manager_v1 *virtual_keyboard;
	const char *socket;

	struct vt_options opts;
	struct vt_config config;

	/* NULL: no usable Vulkan device (or it was lost); outputs draw with
	 * pixman (vr_reference_render_region) on the main thread */
	struct vr_renderer *renderer; /* NULL: the CPU backend draws */
	struct vr_cpu_renderer *cpu; /* the CPU backend; NULL with Vulkan */
	struct vr_tree *tree;
	struct vr_node *background; /* solid colour under everything */
	struct vr_node *views_layer;
	struct vr_node *cursor_layer;
	struct vr_node *cursor_node; /* positioned at the cursor hotspot */
	struct vr_node *cursor_image_node; /* the theme image */
	/* the theme's images loaded so far (input.c), by name, and the one
	 * shown */
	struct vt_cursor_image cursor_images[VT_CURSOR_IMAGES];
	int cursor_images_len;
	float cursor_scale; /* the theme's images are loaded at (>= 1) */
	struct wl_listener cursor_outputs; /* events.output_moved */
	const char *cursor_name;
	/* a button pressed on a decoration: its release stays vitrail's */
	uint32_t decoration_button;
	struct vt_surface *cursor_surface; /* a client's cursor, if any */
	struct wl_listener cursor_surface_destroy;
	int cursor_hotspot_x, cursor_hotspot_y;
	bool has_pointer;
	/* a pointer event went to a client since the last wl_pointer.frame:
	 * the device's frame closes it (a device frame whose events vitrail
	 * kept, such as an axis that scrolled a region, sends none) */
	bool pointer_frame_owed;
	/* recent positions for input prediction (input.c): the pointer's,
	 * and the touch point touch_history_id's */
	struct vt_input_history pointer_history, touch_history;
	int32_t touch_history_id;
	/* the last touch down or motion, layout coordinates: where a
	 * client's xdg_toplevel.move on a touch serial starts from */
	int32_t last_touch_id;
	double last_touch_x, last_touch_y;

	struct wl_list outputs; /* vt_output::link (output.c) */
	int outputs_created; /* index of the next output, for its options */
	/* the engine every output frame goes through (vt_server_set_engine:
	 * renderer's, cpu's, or the reference renderer), and its fd's
	 * source: frames completed */
	struct vr_engine *engine;
	struct wl_event_source *engine_source;
	/* output buffers on the device (output/output_dmabuf.c); NULL:
	 * host memory (wlroots' allocator) */
	struct vt_output_dmabufs *output_dmabufs;
	struct vt_frame_timing *frame_timing; /* frame_timing.c */
	/* surfaces' held commits (commit_queue.c) */
	struct vt_commit_queues *commit_queues;
	struct vt_paths *paths; /* presentation_paths.c */
	/* D-VSync's predictability (output.c): the last input event, the
	 * last client commit with new content (CLOCK_MONOTONIC ns) */
	uint64_t last_input_ns;
	uint64_t last_client_frame_ns;
	struct wl_list views; /* vt_view::link, front first */
	struct wl_list keyboards; /* vt_keyboard::link */
	/* vt_virtual_pointer::link (input.c): their events held until
	 * their frames */
	struct wl_list virtual_pointers;
	/* vitrail's own keyboard: the seat's while no device with a keymap
	 * is (input.c) */
	struct wlr_input_device *own_keyboard;
	/* checks virtual keyboards' keymaps before wlroots maps them */
	struct wl_protocol_logger *keymap_guard;
	struct vt_view *focused_view;
	/* The output last chosen (focus output, move-to-output, a click, a
	 * binding focusing a window there): where workspace bindings act
	 * and, in desktop mode, new windows open; NULL: none chosen yet
	 * (or it went away) */
	struct vt_output *current_output;
	struct vt_grab grab;

	struct wl_event_source *update_idle;
	/* while set, outputs' pacers hear of requests but run only at
	 * pacer_idle (vt_outputs_defer_pacers) */
	bool pacers_deferred;
	struct wl_event_source *pacer_idle;
	int surface_copies; /* large buffers being copied (surface.c) */
	struct wl_event_source *exit_timer;
	bool hold_frames; /* test protocol: no frame callbacks */
	struct vt_frame_log *frame_log;
	struct vt_test *test;
	struct vt_scene_manager *scene; /* vitrail_scene_manager_v1 */
	struct vt_xdg_dialogs *xdg_dialogs; /* xdg_wm_dialog_v1 */
	struct vt_scroll_manager *scroll; /* vitrail_scroll_manager_v1 */
	struct vt_protocols *protocols; /* wlroots' ready-made (protocols.c) */
	struct vt_session_lock *session_lock; /* ext-session-lock-v1 */
	/* the session is locked: input goes to lock surfaces only
	 * (session_lock.c sets it; vt_session_locked reads it) */
	bool locked;
	/* above the windows, below the cursor: the session lock's surfaces
	 * and colour (session_lock.c) */
	struct vr_node *lock_layer;
	struct vt_layer_shell *layers; /* zwlr_layer_shell_v1 (layer_shell.c) */
	/* the layer surface with the keyboard focus, or NULL (layer_shell.c
	 * sets it; vt_layers_keyboard_grabbed reads it) */
	struct wlr_layer_surface_v1 *focused_layer;
	/* the input inhibitor (protocols.c), NULL before and after it
	 * (vt_protocols_client_allowed reads it) */
	struct wlr_input_inhibit_manager *input_inhibit;
	struct vt_xwayland *xwayland; /* X11 clients (xwayland.c), or NULL */
	/* zwlr_output_manager_v1 (output_management.c) */
	struct vt_output_management *output_management;
	/* Since the last frame's tree update, for the frame log: */
	uint32_t nodes_updated; /* vr_tree_last_update_count, summed */
	uint32_t lists_recorded; /* scene display lists recorded */
	uint64_t start_ns;

	pid_t *children;
	int children_len;
	struct vt_kiosk *kiosk; /* kiosk.c */
	int exit_status; /* main's, unless 0 (kiosk.c: the application's) */
	bool running; /* the backend started: outputs from now on are new */

	struct wl_listener new_output;
	struct wl_listener layout_change;
	struct wl_listener new_input;
	struct wl_listener new_virtual_pointer;
	struct wl_listener new_virtual_keyboard;
	struct wl_listener new_surface;
	struct wl_listener new_xdg_surface;
	struct wl_listener keyboard_grab_end; /* the seat's (view.c) */
	struct wl_listener cursor_motion;
	struct wl_listener cursor_motion_absolute;
	struct wl_listener cursor_button;
	struct wl_listener cursor_axis;
	struct wl_listener cursor_frame;
	struct wl_listener touch_down;
	struct wl_listener touch_up;
	struct wl_listener touch_motion;
	struct wl_listener touch_frame;
	struct wl_listener request_cursor;
	struct wl_listener request_set_selection;
	struct wl_listener request_set_primary_selection;
	struct wl_listener request_start_drag;
	/* the outputs' (output/): server->events.update, run_pacers */
	struct wl_listener outputs_update;
	struct wl_listener outputs_run_pacers;
	struct wl_listener outputs_engine_completed;
	/* view.c's: server->events.output_gone, output_moved */
	struct wl_listener views_output_gone;
	struct wl_listener views_output_moved;

	struct wl_listener pointer_focus; /* events.pointer_focus (input.c) */
	struct wl_listener reload; /* events.reload (server.c) */

	/*
	 * The outputs' frame clock (output/): what each frame does, for the
	 * modules that take part (frame timing, presentation paths, scene,
	 * scroll regions, the session lock, the test protocol). Data: the
	 * event structs of output/output.h, which listeners fill in where
	 * the output needs an answer.
	 */
	struct {
		/* is anything animating (predictability, keep rendering)? */
		struct wl_signal busy; /* struct vt_frame_busy_event */
		/* a frame starts: latch queued commits, sample animations */
		struct wl_signal sample; /* struct vt_frame_sample_event */
		/* a frame was created: its lock epoch, test slowdowns */
		struct wl_signal begin; /* struct vt_frame_begin_event */
		/* a frame draws a surface */
		struct wl_signal surface_sampled; /* vt_frame_surface_event */
		/* a vblank: may the surface have its frame callbacks? */
		struct wl_signal vblank_callback; /* vt_frame_surface_event */
		/* a frame was presented / never shown */
		struct wl_signal presented; /* struct vt_frame_presented_event */
		struct wl_signal dropped; /* struct vt_frame_dropped_event */
		/* a frame newer than the lock's last shown one was presented */
		struct wl_signal lock_shown; /* data: server */
		/* a presented frame's pixels */
		struct wl_signal shown; /* struct vt_frame_shown_event */
	} frame_events;
};

/* server.c */
/* The command line's defaults: auto backend, one 1280x720 output, 60 Hz. */
void vt_options_defaults(struct vt_options *opts);
bool vt_server_init(struct vt_server *server);
void vt_server_finish(struct vt_server *server);
/* The config changed: apply what can change at run time. */
void vt_server_apply_config(struct vt_server *server);
/* Load the config file again (SIGHUP, the reload binding); a bad one is
 * reported (file:line: reason) and the previous one stays. */
void vt_server_reload(struct vt_server *server);
#endif
