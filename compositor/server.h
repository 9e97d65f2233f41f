/*
 * vitrail compositor: wlroots glue, policy and frame pacing.
 *
 * Everything in compositor/ runs on the main thread (the wl_event_loop);
 * the renderer library is the only part allowed threads of its own.
 */
#ifndef VITRAIL_SERVER_H
#define VITRAIL_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/box.h>
#include <vitrail/renderer.h>

#include "config.h"
#include "pacing/pacer.h"
#include "pacing/path.h"

struct wlr_buffer;
struct wlr_surface;
struct wlr_texture;
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

/* Room for the animation values sampled for one frame (frame log). */
#define VT_SCENE_SAMPLES_LEN 256

/* What the frame log records of a frame once it was shown (or not). */
struct vt_frame_record {
	const char *output;
	const char *path; /* the pacing policy */
	uint64_t seq; /* per-output frame number */
	uint64_t generation; /* render tree generation drawn */
	uint64_t display_ns; /* the vblank it was made for (D-Timestamp) */
	uint64_t presented_ns; /* 0: never shown */
	uint64_t render_start_ns; /* rendering started */
	uint64_t render_end_ns; /* the frame was ready to commit */
	uint64_t copy_ns; /* CPU copies of its pixels */
	uint64_t main_thread_ns; /* main-thread time spent on it */
	uint32_t cpu_copies; /* CPU copies of its pixels */
	uint32_t in_flight; /* frames tracked when it was planned, itself too */
	bool dropped; /* shown after its display time, or never */
	/* the oldest input event its surfaces' commits answer, first drawn
	 * by this frame: when vitrail received it (0: none) */
	uint64_t input_ns;
	struct vr_frame_timing timing;
	/* Scene protocol (scene.c): since the previous frame's tree update */
	uint32_t nodes_updated; /* absolute states recomputed */
	uint32_t lists_recorded; /* display lists recorded */
	const char *scene_samples; /* animations sampled */
	const char *scroll_samples; /* scroll regions' positions (scroll_region.c) */
	/* shift-and-expose: pixels of the buffer moved instead of redrawn,
	 * and pixels drawn (what the buffer lacked) */
	uint64_t moved_px, drawn_px;
};

/* An output: its render target, buffers and pacing (output.c; opaque). */
struct vt_output;

/* Per wl_surface: a container node placed in its parent's coordinates,
 * holding subsurfaces below, the content node, subsurfaces above. */
/* Bytes of surface images vitrail holds per client (vitrail(1)),
 * surfaces' spares (surface.c) included. While a large buffer is being
 * copied, the new image counts and the one it replaces does not: a client
 * may hold up to twice this for that long. */
#define VT_CLIENT_IMAGE_BYTES (256ull * 1024 * 1024)
/* A commit that copies at least this many bytes of a client buffer (a
 * 1920x1080 one copies less) copies them in bands (surface.c): the first
 * of up to VT_COPY_FIRST_BAND_NS of main-thread time at commit, as long
 * as a one-shot copy of nearly VT_COPY_BANDED_BYTES into fresh memory
 * takes on the CI machine, so that a copy into memory used before (a
 * 2560x1440 or 3840x2160 client redrawing every frame) is done at once as
 * before; the others of VT_COPY_BAND_NS each, one per event-loop turn. */
#define VT_COPY_BANDED_BYTES (8ull * 1024 * 1024)
#define VT_COPY_FIRST_BAND_NS 8000000
#define VT_COPY_BAND_NS 2000000
/* Rows copied between two looks at the clock in a band. */
#define VT_COPY_STEP_BYTES (256u << 10)
/* Subsurfaces per parent surface and per client (vitrail(1)): a parent's
 * commit walks all of its subsurfaces (wlroots and surface.c). */
#define VT_SUBSURFACES_PER_PARENT 1024
#define VT_SUBSURFACES_PER_CLIENT 4096

struct vt_client_budget;
/* A large buffer being copied in bands (surface.c). */
struct vt_surface_copy;

struct vt_surface {
	struct vt_server *server;
	struct wlr_surface *wlr_surface;
	struct vr_node *node; /* container */
	struct vr_node *content; /* the buffer's image */
	struct vr_image *image;
	/* The copy of a large buffer in progress, or NULL: until it is
	 * complete the content node keeps the previous image, and has no
	 * user data (output.c then neither samples the surface nor sends
	 * its frame callbacks). */
	struct vt_surface_copy *copy;
	/* The image the last banded copy replaced, kept (in the budget) for
	 * the next one of its size: no new memory to fault in per commit. */
	struct vr_image *spare;
	bool committing; /* in its commit handler (surface.c) */
	struct vt_client_budget *budget; /* its client's, referenced */
	struct vr_node *scene; /* scene content (scene.c), above content */
	/* scroll regions' frames (scroll_region.c), above the scene; made by the
	 * first region */
	struct vr_node *scroll_layer;
	int subsurfaces; /* subsurfaces whose parent it is */

	struct wlr_subsurface *subsurface; /* when it is one */
	/* Its last commit changed its content and no frame has drawn it
	 * yet: its frame callbacks wait for that frame (output.c). */
	bool unsampled;
	/* vitrail_frame_timing_v1 (frame_timing.c): its timing object, the
	 * pre_render path, a queued commit being latched right now */
	struct vt_surface_timing *timing;
	bool prerender;
	bool latching;
	/* wp_presentation.feedback requests since its last commit (the
	 * limit is protocols.c's) */
	uint32_t feedback_requests;
	/* The path manager (presentation_paths.c): its path and callback timing; on the
	 * low-latency path with tearing allowed, tearing; the
	 * wp_tearing_control_v1 hint (pending, applied at commit). */
	struct vt_path_state path;
	uint64_t path_shows_at; /* the refresh its latest commit makes */
	bool path_scheduled; /* in vt_paths::scheduled, at path_at */
	uint64_t path_at;
	struct wl_list path_link;
	bool tearing;
	bool tearing_hint, tearing_hint_pending;
	struct wl_resource *tearing_control;
	/* wp_content_type_v1 (content_type.c): the committed type and the
	 * pending one (wp_content_type_v1.type values; 0: none) */
	uint32_t content_type, content_type_pending;
	/* commits with new content so far, and when the last came: a
	 * feedback of an older one that a frame carries over is replaced */
	uint32_t content_commits;
	uint64_t content_ns;
	/* Input timestamps for the frame log (CLOCK_MONOTONIC ns, 0: none):
	 * the oldest input event delivered to it since its last commit with
	 * new content, and the oldest one such commits answered that no
	 * frame has drawn yet. */
	uint64_t input_pending_ns;
	uint64_t input_answered_ns;

	struct wl_listener commit;
	struct wl_listener destroy;
	struct wl_listener new_subsurface;
	struct wl_listener subsurface_map;
	struct wl_listener subsurface_unmap;
	struct wl_listener subsurface_destroy;
};

enum vt_view_kind {
	VT_VIEW_TOPLEVEL,
	VT_VIEW_POPUP,
};

struct vt_view;

/* Filling the output (vt_view_impl::set_fill, get_fill): bits. */
enum vt_view_fill {
	VT_FILL_MAXIMIZED = 1 << 0,
	VT_FILL_FULLSCREEN = 1 << 1,
};

/* What a kind of window does its own way: xdg toplevels (view.c) and X11
 * windows (xwayland.c). The window policy (placement, focus, stacking,
 * grabs, filling outputs) is view.c's, for both. */
struct vt_view_impl {
	/* the window geometry in its main surface's coordinates */
	void (*get_geometry)(struct vt_view *view, struct wlr_box *geo);
	/* true while the client set no window geometry of its own, so that
	 * get_geometry gives the extents of the main surface and its
	 * subsurfaces (xdg-shell's default); NULL: never */
	bool (*geometry_implicit)(struct vt_view *view);
	/* the surface (popups and subsurfaces included) at (sx, sy) of the
	 * main surface's coordinates, with its own coordinates there */
	struct wlr_surface *(*surface_at)(struct vt_view *view, double sx,
		double sy, double *sub_x, double *sub_y);
	void (*for_each_surface)(struct vt_view *view,
		void (*iterator)(struct wlr_surface *surface, int sx, int sy,
			void *data),
		void *data);
	void (*set_activated)(struct vt_view *view, bool activated);
	/* ask for a window geometry of width x height (0x0: the client's
	 * own size); it stays at view->x, view->y */
	void (*set_size)(struct vt_view *view, int width, int height);
	/* view->x, view->y changed (NULL: nothing to tell the client) */
	void (*moved)(struct vt_view *view);
	/* enter or leave a fill state (one enum vt_view_fill bit) */
	void (*set_fill)(struct vt_view *view, uint32_t fill, bool on);
	/* enum vt_view_fill bits: as the client last committed them
	 * (asked false), or as vitrail last asked for them (true) */
	uint32_t (*get_fill)(struct vt_view *view, bool asked);
	void (*set_resizing)(struct vt_view *view, bool resizing);
	void (*close)(struct vt_view *view);
	/* NULL: none */
	const char *(*get_title)(struct vt_view *view);
	const char *(*get_app_id)(struct vt_view *view);
};

/* A window (toplevel: an xdg toplevel or an X11 window, in server->views
 * while it can be mapped) or an xdg popup. */
struct vt_view {
	struct vt_server *server;
	enum vt_view_kind kind;
	const struct vt_view_impl *impl; /* toplevels */
	/* toplevels: the main surface (an X11 window's only while mapped) */
	struct wlr_surface *surface;
	struct wlr_xdg_surface *xdg_surface; /* xdg toplevels and popups */
	struct vr_node *node; /* toplevel: at the window's top-left corner of
			       * the surface; popup: inside its toplevel */
	struct vt_view *parent; /* popups: the view they belong to */
	struct wl_list link; /* vt_server::views, front first (toplevels) */
	bool mapped;
	int x, y; /* toplevel: window geometry position in layout coords */
	/* toplevel: the window geometry's origin in the main surface when
	 * the view was last placed (view_update_position): the main surface
	 * is at (x - geo_x, y - geo_y), for drawing and for input alike,
	 * until the toplevel's next commit places it again */
	int geo_x, geo_y;
	struct vt_output *placed_on;
	/* toplevel: the workspace of placed_on it belongs to (1 to
	 * VT_WORKSPACES); shown when that output shows it, unless
	 * minimized */
	int workspace;
	bool minimized;
	bool fullscreen; /* its last commit's state (top layers hide) */

	struct wl_listener map;
	struct wl_listener unmap;
	struct wl_listener destroy;
	struct wl_listener commit;
	struct wl_listener new_popup;
	struct wl_listener request_maximize;
	struct wl_listener request_fullscreen;
	/* its wlr-foreign-toplevel handle while mapped (protocols.c) */
	struct vt_foreign_toplevel *foreign;
	/* toplevel: the output its surfaces were sent wl_surface.enter for
	 * (the one under its top-left corner), NULL: none */
	struct wlr_output *entered;
	struct wl_listener entered_destroy;
	struct wl_listener request_move;
	struct wl_listener request_resize;
	struct wl_listener request_minimize;
	struct wl_listener set_title;
	struct wl_listener set_app_id;
	/* Server-side decorations: negotiated (protocols.c), and what
	 * vitrail draws of them (decoration.c; NULL until first drawn). */
	bool ssd;
	struct vt_decoration *decoration;
	/* an unmapped maximized view's new size, sent from the idle */
	struct wl_event_source *refill_idle;
	/* toplevel: its window geometry before it last filled an output
	 * (width 0: none), given back when it leaves that state there */
	struct wlr_box restore;
	struct vt_output *restore_output;
};

/* Server-side decorations (decoration.c, vitrail(5)): sizes in pixels
 * and colours (0xRRGGBB). */
#define VT_DECORATION_BORDER 4
#define VT_DECORATION_TITLE 24
#define VT_DECORATION_FOCUSED 0x2f5d8a
#define VT_DECORATION_UNFOCUSED 0x4a4f57
#define VT_DECORATION_TEXT_FOCUSED 0xffffff
#define VT_DECORATION_TEXT_UNFOCUSED 0xc8ccd2

/* What vitrail draws around a window geometry, per side. */
struct vt_extents {
	int left, top, right, bottom;
};

/* The parts of a decoration under the pointer. */
enum vt_decoration_part {
	VT_PART_NONE,
	VT_PART_TITLE, /* moves the window */
	VT_PART_CLOSE, /* closes it */
	VT_PART_EDGE, /* resizes it by the edges said */
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
 * and the resize cursors of each edge and corner. */
#define VT_CURSOR_IMAGES 12
struct vt_cursor_image {
	const char *name; /* a static string */
	struct vr_image *image;
	int width, height, hotspot_x, hotspot_y;
};

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

struct vt_frame_log;
struct vt_layer_shell;
struct vt_xwayland;
struct vt_output_management;
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
	struct wlr_presentation *presentation;
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
	struct vt_frame_timing *frame_timing; /* frame_timing.c */
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
	struct vt_scroll_manager *scroll; /* vitrail_scroll_manager_v1 */
	struct vt_protocols *protocols; /* wlroots' ready-made (protocols.c) */
	struct vt_session_lock *session_lock; /* ext-session-lock-v1 */
	/* above the windows, below the cursor: the session lock's surfaces
	 * and colour (session_lock.c) */
	struct vr_node *lock_layer;
	struct vt_layer_shell *layers; /* zwlr_layer_shell_v1 (layer_shell.c) */
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
};

/* client_buffer_renderer.c */
struct wlr_renderer *vt_surface_renderer_create(void);
/* The lock a texture of this renderer holds on a large client buffer
 * (VT_COPY_BANDED_BYTES or more), handed to the caller, who unlocks it;
 * NULL when it holds none (or was taken). */
struct wlr_buffer *vt_surface_texture_take_buffer(struct wlr_texture *texture);

/* util.c */
uint64_t vt_now_ns(void);
/* Fault the pages of [data, data + len) of a mapping in (readable) with
 * one call (MADV_POPULATE_READ) rather than one fault per page: a hint,
 * failure is fine (a truncated shm pool fails with EFAULT, no SIGBUS).
 * Copying out of a sparse memfd on the CI machine: 2.75 ms per MiB
 * without, 0.7 with (huge-page destinations). */
void vt_prefault_read(const void *data, size_t len);
uint64_t vt_timespec_to_ns(const struct timespec *ts);
void vt_ns_to_timespec(uint64_t ns, struct timespec *ts);
/* Without XDG_RUNTIME_DIR (a root shell, CI) make a private one. */
bool vt_ensure_runtime_dir(void);

/* server.c */
/* The command line's defaults: auto backend, one 1280x720 output, 60 Hz. */
void vt_options_defaults(struct vt_options *opts);
bool vt_server_init(struct vt_server *server);
void vt_server_finish(struct vt_server *server);
/* Something in the tree changed: update damage once the loop is idle. */
void vt_server_schedule_update(struct vt_server *server);
/* Run the pending tree update now (damage to outputs). */
void vt_server_update(struct vt_server *server);
pid_t vt_server_spawn(struct vt_server *server, const char *command);
/* The config changed: apply what can change at run time. */
void vt_server_apply_config(struct vt_server *server);
/* Load the config file again (SIGHUP, the reload binding); a bad one is
 * reported (file:line: reason) and the previous one stays. */
void vt_server_reload(struct vt_server *server);
/* Stop watching and destroy the Vulkan renderer (after the outputs let go
 * of its targets and buffers); server->renderer is NULL afterwards. */
void vt_server_drop_renderer(struct vt_server *server);
/* The engine that draws outputs from now on: the Vulkan renderer's, else
 * the CPU engine's, else the reference renderer's. */
bool vt_server_set_engine(struct vt_server *server);
/* The renderer's name for messages and statistics. */
const char *vt_server_renderer_name(struct vt_server *server);
/* Start the CPU backend (server->cpu) unless it runs; false when its
 * threads cannot start (the reference renderer draws then). */
bool vt_server_use_cpu_backend(struct vt_server *server);

/* kiosk.c */
bool vt_kiosk_init(struct vt_server *server);
void vt_kiosk_finish(struct vt_server *server);
void vt_kiosk_apply_config(struct vt_server *server);
/* Start the command line's application (a shell command line). */
void vt_kiosk_start_app(struct vt_server *server, const char *command);
/* A child exited: true when it was the application (app_exit applied). */
bool vt_kiosk_child_exited(struct vt_server *server, pid_t pid, int status);
/* Pointer input came (hide_cursor's idle time starts again), or touch. */
void vt_kiosk_pointer_activity(struct vt_server *server);
void vt_kiosk_touch_activity(struct vt_server *server);
/* The output kiosk windows go to (kiosk_output last or a name), NULL when
 * windows are spread over the outputs. */
struct vt_output *vt_kiosk_output(struct vt_server *server);
/* The box a kiosk window fills when it covers every output (kiosk_output
 * extend): true and *box set, else false. */
bool vt_kiosk_fill_box(struct vt_server *server, struct wlr_box *box);

/* output.c */
void vt_output_create(struct vt_server *server, struct wlr_output *wlr_output);
/* Iterate the enabled outputs in name order: vt_output_next(server, NULL)
 * is the first, NULL ends. */
struct vt_output *vt_output_next(struct vt_server *server,
	struct vt_output *output);
struct wlr_output *vt_output_wlr(struct vt_output *output);
/* The order the outputs came in: 0 for those there at the start, higher
 * for later ones. */
int vt_output_created(struct vt_output *output);
/* Enabled, for vitrail: in the layout and drawn. */
bool vt_output_enabled(struct vt_output *output);
/* The newest session lock epoch a presented frame of the output showed. */
uint64_t vt_output_lock_epoch_shown(struct vt_output *output);
/* Disable (or enable again) an output the backend cannot disable: vitrail
 * takes it out of the layout and stops drawing it. */
void vt_output_set_soft_disabled(struct vt_output *output, bool disabled);
/* Every output vitrail drives, disabled ones too, in name order. */
struct vt_output *vt_output_next_any(struct vt_server *server,
	struct vt_output *output);
/* Place the enabled outputs in the layout again: those with a manual
 * position there, the others left to right. */
void vt_outputs_arrange(struct vt_server *server);
/* The config's output settings (vitrail(5)) once reloaded: every output
 * the file names, or named before (previous), takes them again. */
void vt_outputs_apply_config(struct vt_server *server,
	const struct vt_config *previous);
/* Its box in the layout, or where it was last when it is disabled. */
struct wlr_box vt_output_last_box(struct vt_output *output);
/* Where output management put it in the layout (manual), or back to
 * automatic placement (left to right in name order). */
void vt_output_set_position(struct vt_output *output, bool manual, int x,
	int y);
/* The part of the output's layout box that windows are placed in and
 * maximized to: all of it but layer surfaces' exclusive zones. */
struct wlr_box vt_output_usable_box(struct vt_output *output);
void vt_output_set_usable_box(struct vt_output *output,
	const struct wlr_box *box);
/* The workspace the output shows (view.c decides; 1 when it came). */
int vt_output_workspace(struct vt_output *output);
void vt_output_set_workspace(struct vt_output *output, int workspace);
struct vt_output *vt_output_by_name(struct vt_server *server,
	const char *name);
struct vt_output *vt_output_at(struct vt_server *server, double lx, double ly);
struct vr_mat vt_output_view(struct vt_output *output);
/* The same without the turn: the output as screenshot tools show it,
 * upright, *width x *height pixels (its buffer's size, turned for 90 and
 * 270). */
struct vr_mat vt_output_upright_view(struct vt_output *output, int *width,
	int *height);
/* A tree update's changes (vr_tree_update_moves), on every output they
 * touch: layout damage and moves of layout pixels. */
void vt_outputs_add_changes(struct vt_server *server,
	const pixman_region32_t *layout_damage, const struct vr_move *moves,
	size_t nmoves);
/* Ask every output for a frame: VT_PACER_RENDER (something may have
 * changed: animations) and/or VT_PACER_CALLBACKS (clients wait for frame
 * callbacks). The outputs' pacing decides when. */
void vt_server_request_frame(struct vt_server *server, uint32_t wants);
/* The renderer completed frames (its fd is readable). */
void vt_outputs_frames_completed(struct vt_server *server);
/* One display slot of an output's frame timeline. */
struct vt_display_slot {
	uint64_t display_ns; /* when a frame for it is shown */
	uint64_t deadline_ns; /* commit by then to be in it */
	uint64_t refresh_ns;
};
/* Up to n slots of output's timeline from now, after display time `after`
 * (0: none); returns how many. */
int vt_output_display_slots(struct vt_output *output, uint64_t now,
	uint64_t after, struct vt_display_slot *slots, int n);
/* The output a surface shows on (the centre of its node), or NULL. */
struct vt_output *vt_surface_output(struct vt_surface *surface);

/* frame_timing.c */
bool vt_frame_timing_init(struct vt_server *server);
void vt_frame_timing_finish(struct vt_server *server);
/* Before a frame of output for display_ns samples the tree: latch the
 * queued commits of surfaces on that output due by then; true while
 * commits stay queued anywhere (outputs keep rendering for them). */
bool vt_frame_timing_latch(struct vt_server *server, struct vt_output *output,
	uint64_t display_ns, uint64_t period_ns);
/* Whether commits wait in some surface's queue; *horizon: the latest
 * display time whose content every pre_render surface has queued
 * (UINT64_MAX: no such surface): D-VSync renders no further. One walk. */
bool vt_frame_timing_queue_state(struct vt_server *server,
	uint64_t *horizon);
/* The path the surface's client chose (false: none chose); *tearing:
 * whether it allowed tearing. */
bool vt_frame_timing_path(struct vt_surface *surface, enum vt_path *path,
	bool *tearing);
/* Commits of the surface wait for their display time. */
bool vt_frame_timing_surface_queued(struct vt_surface *surface);

/* presentation_paths.c: the path manager's glue */
bool vt_paths_init(struct vt_server *server);
void vt_paths_finish(struct vt_server *server);
void vt_paths_surface_init(struct vt_surface *surface);
/* After a commit applied: new_content (it changed the surface's
 * pixels), replaced (the commit before was never drawn). */
void vt_paths_surface_commit(struct vt_surface *surface, bool new_content,
	bool replaced);
/* A frame drew the surface's latest commit. */
void vt_paths_surface_drawn(struct vt_surface *surface);
/* At an output's vblank: whether the surface's callback goes now (false:
 * the low-latency trigger sends it). */
bool vt_paths_vblank_callback(struct vt_surface *surface);
void vt_paths_surface_destroyed(struct vt_surface *surface);
/* The output's frame clock and composition lead, and the first refresh
 * whose composition has not started. false: no pacer. */
bool vt_output_pacing(struct vt_output *output, uint64_t now,
	const struct vt_clock **clock, uint64_t *out_ns, uint64_t *earliest);
/* Position-aware rendering of the surface's damage (presentation_paths.c decides the
 * surface may tear): written at once into the refresh being scanned out
 * when the scanout model allows. */
bool vt_output_tear(struct vt_output *output, struct vt_surface *surface,
	uint64_t now, uint64_t *shown_ns);
/* How long after a vblank the scan reaches the top of the tearing box
 * around the pointer (0: no scanout model, or no pointer): low-latency
 * surfaces that tear aim their frames at that time. */
uint64_t vt_output_tear_offset(struct vt_output *output);
void vt_frame_timing_surface_commit(struct vt_surface *surface);
void vt_frame_timing_surface_destroyed(struct vt_surface *surface);
/* Feedbacks: a frame drew the surface (they go with the frame); the frame
 * was shown at presented_ns, rendered for display_ns; it was dropped:
 * they go to next_frame (a frame whose rendering started at
 * next_render_ns, after it) and true, unless their surface committed new
 * content before that (replaced), or, without one, back to their
 * surfaces and false: a new frame must draw them. */
void vt_frame_timing_sampled(struct vt_surface *surface,
	struct wl_list *frame_feedbacks);
void vt_frame_timing_presented(struct wl_list *frame_feedbacks,
	uint64_t presented_ns, uint64_t display_ns);
bool vt_frame_timing_frame_dropped(struct wl_list *frame_feedbacks,
	struct wl_list *next_frame, uint64_t next_render_ns);

/* An input event: frames rendered ahead are stale (D-VSync). */
void vt_outputs_input(struct vt_server *server);
/* The surface is going: frames forget it (their feedbacks for it are
 * discarded if they are never shown). */
void vt_outputs_surface_destroyed(struct vt_server *server,
	struct vt_surface *surface);
/* The Vulkan device is lost: frames it did not finish are dropped, and
 * the CPU backend draws every output from now on. */
void vt_outputs_lose_renderer(struct vt_server *server);
/* No output has damage to draw or frames not yet presented. */
bool vt_outputs_settled(struct vt_server *server);
/*
 * Until the event loop is idle, no output starts a frame: requests are
 * kept and the pacers run then. Called at a surface's commit: a frame
 * started inside a commit signal would sample the commit's
 * wp_presentation feedback before wlroots' own commit listener (added
 * after vitrail's, at the client's first feedback request) made it
 * current. The frame draws the new content, the feedback is never
 * sampled and never answered, and a client waiting for it (a nested
 * vitrail's output) waits for ever.
 */
void vt_outputs_defer_pacers(struct vt_server *server);
/* Log (WLR_INFO) each output's frame state: its pending damage, its
 * frames' states, its pacer's, and the surfaces it draws (whether their
 * newest content was drawn, their frame callbacks waiting). SIGUSR1 and
 * a settle of the test protocol unanswered for long log it. */
void vt_outputs_log_state(struct vt_server *server);
void vt_outputs_print_stats(struct vt_server *server, FILE *f,
	const char *indent);
/* One PNG per output, DIR/NAME.png. */
void vt_outputs_write_screenshots(struct vt_server *server, const char *dir);

/* surface.c */
struct vt_surface *vt_surface_from_wlr(struct wlr_surface *wlr_surface);
void vt_surface_create(struct vt_server *server,
	struct wlr_surface *wlr_surface);
/* Place node (NULL: none) above the surface's buffer, below the
 * subsurfaces placed above it: the surface's scene content. */
void vt_surface_set_scene_node(struct vt_surface *surface,
	struct vr_node *node);
/* The node holding the surface's scroll regions' frames, above its scene
 * content (made on first use; NULL when out of memory). */
struct vr_node *vt_surface_scroll_layer(struct vt_surface *surface);
/* A client's image budget (VT_CLIENT_IMAGE_BYTES), with a reference for
 * the caller (NULL when out of memory); scroll regions' frames count
 * against it too. */
struct vt_client_budget *vt_client_budget_get(struct wl_client *client);
void vt_client_budget_unref(struct vt_client_budget *budget);
/* Move image bytes in the budget: release, then add; false (nothing
 * changed) when that takes it over VT_CLIENT_IMAGE_BYTES. *total (may be
 * NULL): what it comes, or would come, to. */
bool vt_client_budget_charge(struct vt_client_budget *budget,
	uint64_t release, uint64_t add, uint64_t *total);
/* An input event vitrail received at received_ns (CLOCK_MONOTONIC) was
 * delivered to wlr_surface (NULL: to none): the surface's next commit
 * with new content answers it. */
void vt_surface_note_input(struct wlr_surface *wlr_surface,
	uint64_t received_ns);
/* A frame draws the surface: the oldest input its commits answered since
 * the last frame that drew it (0: none); the frame log records it. */
uint64_t vt_surface_take_input(struct vt_surface *surface);

/* view.c */
void vt_view_handle_new_xdg_surface(struct wl_listener *listener, void *data);
/* The seat's keyboard_grab_end (payload: the wlr_seat_keyboard_grab that
 * ended): an xdg popup grab's end gives the keyboard back. */
void vt_view_handle_keyboard_grab_end(struct wl_listener *listener,
	void *data);
void vt_view_focus(struct vt_view *view, struct wlr_surface *surface);
struct vt_view *vt_view_at(struct vt_server *server, double lx, double ly,
	struct wlr_surface **surface, double *sx, double *sy);
/* Output `gone` (already out of server->outputs) is going away: its windows
 * move to the outputs left, at the same offset (box: where it was); those
 * it showed onto the workspace their new output shows, the others onto
 * the workspace of their number there. */
void vt_views_output_gone(struct vt_server *server, struct vt_output *gone,
	struct wlr_box box);
/* Output moved in the layout (from: its box before): its windows move
 * along. NULL: windows placed on no output go to one (an output came). */
void vt_views_output_moved(struct vt_server *server, struct vt_output *output,
	struct wlr_box from);
struct vt_output *vt_view_output(struct vt_view *view);
/* The output's usable box changed (layer_shell.c): maximized windows on it
 * fill the new one, others are kept inside it as far as they fit. */
void vt_views_usable_changed(struct vt_server *server,
	struct vt_output *output);
/* Put a toplevel's window geometry's top-left corner at (x, y) in layout
 * coordinates (test harnesses: WLCS). */
void vt_view_move(struct vt_view *view, int x, int y);
/* Where a toplevel's main surface's top-left corner is in layout
 * coordinates, as drawn. */
void vt_view_surface_origin(struct vt_view *view, int *x, int *y);
/* Key bindings' window actions: ask the client to close; toggle
 * maximized (fullscreen false) or fullscreen; focus the next window (the
 * one longest unfocused, forward) or the previous one (the focused one
 * goes to the back). */
void vt_view_close(struct vt_view *view);
void vt_view_toggle_fill(struct vt_view *view, bool fullscreen);
void vt_views_cycle_focus(struct vt_server *server, bool forward);
/* Whether a toplevel is drawn and can be hit: mapped, on the workspace
 * its output shows, not minimized. */
bool vt_view_visible(struct vt_view *view);
/* Workspaces and outputs (vitrail(5)): the output bindings act on (the
 * current one, else the focused window's, else the first; NULL: none);
 * show workspace n on it; move the focused window to its workspace n;
 * make another output current (its front window gets the keyboard);
 * move the focused window to another output, inside it; minimize (the
 * window goes to the back of the stack: focus next brings it back). */
struct vt_output *vt_views_current_output(struct vt_server *server);
void vt_views_show_workspace(struct vt_server *server, int workspace);
void vt_view_move_to_workspace(struct vt_view *view, int workspace);
void vt_views_focus_output(struct vt_server *server,
	enum vt_config_direction dir);
void vt_view_move_to_output(struct vt_view *view,
	enum vt_config_direction dir);
void vt_view_minimize(struct vt_view *view);
/* Interactive move and resize: start one (desktop mode, a window neither
 * maximized nor fullscreen), follow the cursor, end it. */
void vt_view_begin_grab(struct vt_view *view, enum vt_grab_mode mode,
	uint32_t edges, bool swallow);
/* Move a window by dx, dy and resize it by dw, dh (its right and bottom
 * edges; at least 1x1), as the move and resize bindings do: desktop
 * mode, a window neither maximized nor fullscreen. */
void vt_view_nudge(struct vt_view *view, int dx, int dy, int dw, int dh);
/* The same, driven by the touch point touch_id, now at lx, ly. */
void vt_view_begin_touch_grab(struct vt_view *view, enum vt_grab_mode mode,
	uint32_t edges, int32_t touch_id, double lx, double ly);
void vt_grab_motion(struct vt_server *server);
/* The grab's point (the cursor, or its touch point) is at lx, ly. */
void vt_grab_motion_to(struct vt_server *server, double lx, double ly);
void vt_grab_end(struct vt_server *server);
/* The policy each kind of toplevel calls (xdg in view.c, X11 windows in
 * xwayland.c), view->impl and view->node set: the output a new window
 * goes to; its map (placed, shown, focused), unmap, commit (position,
 * fullscreen state); a client's request to enter (requested) or leave a
 * fill state; the end of its life (out of the lists, node destroyed:
 * free it after). */
struct vt_output *vt_views_pick_output(struct vt_server *server);
/* Where a new window goes: in desktop mode the current output once one
 * is chosen (server->current_output), else vt_views_pick_output's. */
struct vt_output *vt_views_placement_output(struct vt_server *server);
void vt_view_map(struct vt_view *view);
void vt_view_unmap(struct vt_view *view);
void vt_view_committed(struct vt_view *view);
void vt_view_request_fill(struct vt_view *view, bool requested,
	bool fullscreen);
void vt_view_finish(struct vt_view *view);

/* Negotiated server-side decorations on (protocols.c) or off: drawn or
 * not, and a window filling its output refills it. */
void vt_view_set_server_decorations(struct vt_view *view, bool on);
/* Its decoration object went (the client draws its own): as
 * set_server_decorations(false), safe inside the toplevel's destruction. */
void vt_view_decorations_gone(struct vt_view *view);

/* decoration.c */
/* Whether the view shows server-side decorations now. */
bool vt_view_decorated(struct vt_view *view);
/* What the decorations take around the window geometry when the view is
 * (fullscreen true) or is not fullscreen; zero when not decorated. */
struct vt_extents vt_view_extents(struct vt_view *view, bool fullscreen);
/* Size, focus, title or state changed: draw them again (or hide them). */
void vt_decoration_update(struct vt_view *view);
void vt_decoration_destroy(struct vt_view *view);
/* The part at (lx, ly), layout coordinates; *edges (enum wlr_edges) for
 * VT_PART_EDGE. */
enum vt_decoration_part vt_view_decoration_at(struct vt_view *view,
	double lx, double ly, uint32_t *edges);

/* input.c */
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
void vt_input_finish(struct vt_server *server);

/* protocols.c: the protocols wlroots implements, and vitrail's policy */
bool vt_protocols_init(struct vt_server *server);
void vt_protocols_finish(struct vt_server *server);
/* The config changed: the KDE server-decoration default follows it. */
void vt_protocols_apply_config(struct vt_server *server);
/* A toplevel was created: a KDE server-decoration of its wl_surface,
 * made before, applies to it. */
void vt_protocols_toplevel_created(struct vt_view *view);
/* Any input event: idle timers start again. */
void vt_protocols_input_activity(struct vt_server *server);
/* A pointer device moved by (*dx, *dy): relative motion goes to clients;
 * false when the cursor must not move (a locked pointer); a confined
 * pointer's move is shortened to stop at the edge of its region. */
bool vt_protocols_pointer_motion(struct vt_server *server,
	uint32_t time_msec, double *dx, double *dy, double dx_unaccel,
	double dy_unaccel);
/* Whether a client may have input focus (not while another client holds
 * the input inhibitor). */
bool vt_protocols_client_allowed(struct vt_server *server,
	struct wl_client *client);
/* Whether the surface with keyboard focus inhibits vitrail's key
 * bindings (keyboard-shortcuts-inhibit-v1, its inhibitor active). */
bool vt_protocols_shortcuts_inhibited(struct vt_server *server);
/* A tablet-tool device of the backend joins the seat. */
void vt_protocols_add_tablet(struct vt_server *server,
	struct wlr_input_device *device);
/* The view's wlr-foreign-toplevel handle: made at map, gone at unmap; its
 * activated, minimized, maximized and fullscreen states and output follow
 * the view; a taskbar's minimize request minimizes it, unminimize brings it
 * back focused; maximize and fullscreen requests are the client's own
 * (vt_view_request_fill). */
void vt_foreign_toplevel_map(struct vt_view *view);
void vt_foreign_toplevel_unmap(struct vt_view *view);
void vt_foreign_toplevel_set_activated(struct vt_view *view, bool activated);
void vt_foreign_toplevel_set_minimized(struct vt_view *view, bool minimized);
void vt_foreign_toplevel_update_output(struct vt_view *view);
/* What vitrail asks the view to fill (maximized, fullscreen) changed. */
void vt_foreign_toplevel_update_fill(struct vt_view *view);
/* The view's title or app_id changed. */
void vt_foreign_toplevel_update_names(struct vt_view *view);

/* session_lock.c: ext-session-lock-v1 */
bool vt_session_lock_init(struct vt_server *server);
void vt_session_lock_finish(struct vt_server *server);
/* Whether the session is locked (input goes to lock surfaces only). */
bool vt_session_locked(struct vt_server *server);
/* Locked: the lock surface at (lx, ly), surface-local *sx, *sy; NULL
 * where none is (or the session is not locked). */
struct wlr_surface *vt_session_lock_surface_at(struct vt_server *server,
	double lx, double ly, double *sx, double *sy);
/* Outputs came, went or moved: lock surfaces and colour follow. */
void vt_session_lock_outputs_changed(struct vt_server *server);
/* The lock's epoch (a new one each time the session locks), 0 when
 * unlocked: a frame records the one its tree showed (output.c). */
uint64_t vt_session_lock_epoch(struct vt_server *server);
/* An output presented a frame of a newer epoch: once every enabled output
 * has shown the lock, the locker gets `locked`. */
void vt_session_lock_shown(struct vt_server *server);
/* ... and so do the blanks of outputs powered off (protocols.c). */
void vt_protocols_outputs_changed(struct vt_server *server);

/* single_pixel.c, content_type.c, fractional_scale.c */
bool vt_single_pixel_init(struct vt_server *server);
bool vt_content_type_init(struct vt_server *server);
bool vt_fractional_scale_init(struct vt_server *server);
/* The surface entered output: its preferred fractional scale is that
 * output's. */
void vt_fractional_scale_entered(struct wlr_surface *surface,
	struct wlr_output *output);

/* output.c: output power (wlr-output-power-management): off disables the
 * output (no frames), on enables it and draws it whole; false when the
 * backend cannot (wlroots 0.15 disables DRM outputs only). */
bool vt_output_set_power(struct vt_server *server,
	struct wlr_output *wlr_output, bool on);

/* frame_log.c */
struct vt_frame_log *vt_frame_log_open(const char *path);
void vt_frame_log_close(struct vt_frame_log *log);
void vt_frame_log_write(struct vt_frame_log *log,
	const struct vt_frame_record *frame);

/* test_control.c */
bool vt_test_init(struct vt_server *server);
void vt_test_finish(struct vt_server *server);
/* Called after every present: settle callbacks may complete. */
void vt_test_check_settled(struct vt_server *server);
/* stall_next_frame: the sleep owed by the next frame (0: none); taking
 * it clears it. */
uint32_t vt_test_take_stall_ms(struct vt_server *server);
/* The render time the next frame must take (slow_frames), in us; 0: as it
 * comes. */
uint32_t vt_test_take_frame_cost_us(struct vt_server *server);
/* A frame of output was presented: its pixels (the output buffer, data
 * NULL when not mapped) for hash_frames. */
void vt_test_frame_presented(struct vt_server *server,
	struct vt_output *output, uint64_t seq, const void *data, size_t stride,
	int32_t width, int32_t height);

#endif
