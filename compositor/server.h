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
#include <vitrail/renderer.h>

#include "config.h"

struct wlr_surface;
struct wlr_xdg_surface;

enum vt_backend_kind {
	VT_BACKEND_AUTO,
	VT_BACKEND_HEADLESS,
	VT_BACKEND_WAYLAND,
	VT_BACKEND_X11,
	VT_BACKEND_DRM,
};

/* Command-line options (what the user asked for; config is separate). */
struct vt_options {
	enum vt_backend_kind backend;
	int outputs; /* virtual outputs: headless, wayland, x11 */
	int output_width, output_height;
	int refresh_mhz;
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
	bool demo; /* embedded default session */
	bool validate; /* check the config and exit */
	enum vt_mode mode;
	bool mode_set;
	char **startup; /* commands run through /bin/sh -c */
	int startup_len;
};

/* Room for the animation values sampled for one frame (frame log). */
#define VT_SCENE_SAMPLES_LEN 256

/* One entry of an output's queue of finished frames. */
struct vt_frame {
	struct vt_buffer *buffer;
	uint64_t seq; /* per-output frame number */
	uint64_t generation; /* render tree generation drawn */
	uint64_t target_ns; /* vblank it is meant for */
	uint64_t render_start_ns, render_end_ns;
	uint64_t copy_ns; /* renderer mirror -> output buffers */
	pixman_region32_t damage; /* output pixels changed since last frame */
	struct vr_frame_timing timing;
	uint64_t commit_ns;
	uint32_t commit_seq; /* wlr_output commit_seq once committed */
	bool committed;
	/* Scene protocol (scene.c), for the frame log: */
	/* since the previous frame's tree update (a frame without damage
	 * is not rendered, and what it updated is not counted): */
	uint32_t nodes_updated; /* absolute states recomputed */
	uint32_t lists_recorded; /* display lists recorded */
	char scene_samples[VT_SCENE_SAMPLES_LEN]; /* animations sampled */
};

#define VT_FRAME_QUEUE_MAX 4
#define VT_DAMAGE_HISTORY 4

struct vt_output {
	struct vt_server *server;
	struct wlr_output *wlr_output;
	struct wl_list link; /* vt_server::outputs */

	struct vr_target *target;
	pixman_region32_t pending_damage; /* output buffer pixels */
	bool wants_frame; /* render and/or send frame callbacks */
	bool needs_commit; /* wlroots asked for a commit */
	/* Damage of the last committed frames, for buffer age. */
	pixman_region32_t damage_history[VT_DAMAGE_HISTORY];
	int damage_idx;

	/* Output buffers (our own small swapchain over the wlr_allocator):
	 * vt_buffer::link. A buffer is free when nothing locks it. */
	struct wl_list buffers;
	int buffer_width, buffer_height;

	/* Finished frames not yet committed, oldest first. */
	struct vt_frame queue[VT_FRAME_QUEUE_MAX];
	int queue_len;
	/* Committed, waiting for their present events, oldest first. */
	struct vt_frame in_flight[VT_FRAME_QUEUE_MAX];
	int in_flight_len;
	uint64_t last_present_ns;
	uint64_t min_latency_ns; /* commit -> light, shortest seen */
	uint64_t frame_seq;
	uint64_t presented_generation;

	/* Clock: the backend's frame/present events, or vitrail's own vblank
	 * model (timerfd) for headless outputs. */
	bool model_clock;
	int timer_fd;
	struct wl_event_source *timer_source;
	uint64_t vblank_base_ns;
	uint64_t period_ns;
	uint64_t next_vblank_ns; /* the armed deadline */
	bool sending_present; /* our own present event is being emitted */
	bool timer_armed;

	struct vt_output_stats {
		uint64_t frames, dropped;
		uint64_t cpu_ns_total;
		uint64_t *cpu_ns; /* per frame, for percentiles */
		size_t cpu_ns_len, cpu_ns_cap;
	} stats;

	struct wl_listener frame;
	struct wl_listener present;
	struct wl_listener destroy;
	struct wl_listener mode;
	struct wl_listener needs_frame;
};

struct vt_buffer {
	struct wlr_buffer *wlr_buffer;
	struct wl_list link; /* vt_output::buffers */
	/* Pixels that changed since this buffer was last written. */
	pixman_region32_t stale;
	bool busy; /* queued, in flight or on screen */
	struct wl_listener release;
};

/* Per wl_surface: a container node placed in its parent's coordinates,
 * holding subsurfaces below, the content node, subsurfaces above. */
struct vt_surface {
	struct vt_server *server;
	struct wlr_surface *wlr_surface;
	struct vr_node *node; /* container */
	struct vr_node *content; /* the buffer's image */
	struct vr_image *image;
	struct vr_node *scene; /* scene content (scene.c), above content */
	struct vr_node **order; /* last applied child order */
	size_t order_len;

	struct wlr_subsurface *subsurface; /* when it is one */

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

/* An xdg toplevel or popup. Toplevels live in server->views. */
struct vt_view {
	struct vt_server *server;
	enum vt_view_kind kind;
	struct wlr_xdg_surface *xdg_surface;
	struct vr_node *node; /* toplevel: at the window's top-left corner of
			       * the surface; popup: inside its toplevel */
	struct vt_view *parent; /* popups: the view they belong to */
	struct wl_list link; /* vt_server::views, front first (toplevels) */
	bool mapped;
	int x, y; /* toplevel: window geometry position in layout coords */
	struct vt_output *placed_on;

	struct wl_listener map;
	struct wl_listener unmap;
	struct wl_listener destroy;
	struct wl_listener commit;
	struct wl_listener new_popup;
	struct wl_listener request_maximize;
	struct wl_listener request_fullscreen;
};

struct vt_keyboard {
	struct vt_server *server;
	struct wlr_input_device *device;
	struct wl_list link; /* vt_server::keyboards */
	struct wl_listener modifiers;
	struct wl_listener key;
	struct wl_listener destroy;
};

struct vt_frame_log;
struct vt_scene_manager;

struct vt_server {
	struct wl_display *display;
	struct wl_event_loop *loop;
	struct wlr_backend *backend;
	struct wlr_backend *headless; /* when headless outputs are ours */
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
	const char *socket;

	struct vt_options opts;
	struct vt_config config;

	struct vr_renderer *renderer;
	struct vr_tree *tree;
	struct vr_node *background; /* solid colour under everything */
	struct vr_node *views_layer;
	struct vr_node *cursor_layer;
	struct vr_node *cursor_node; /* positioned at the cursor hotspot */
	struct vr_node *cursor_image_node; /* the theme image */
	struct vr_image *cursor_image;
	struct vt_surface *cursor_surface; /* a client's cursor, if any */
	struct wl_listener cursor_surface_destroy;
	int cursor_hotspot_x, cursor_hotspot_y;
	bool has_pointer;

	struct wl_list outputs; /* vt_output::link */
	struct wl_list views; /* vt_view::link, front first */
	struct wl_list keyboards; /* vt_keyboard::link */
	struct vt_view *focused_view;

	struct wl_event_source *update_idle;
	struct wl_event_source *exit_timer;
	bool hold_frames; /* test protocol: no frame callbacks */
	struct vt_frame_log *frame_log;
	struct vt_test *test;
	struct vt_scene_manager *scene; /* vitrail_scene_manager_v1 */
	/* Since the last frame's tree update, for the frame log: */
	uint32_t nodes_updated; /* vr_tree_last_update_count, summed */
	uint32_t lists_recorded; /* scene display lists recorded */
	uint64_t start_ns;

	pid_t *children;
	int children_len;

	struct wl_listener new_output;
	struct wl_listener layout_change;
	struct wl_listener new_input;
	struct wl_listener new_surface;
	struct wl_listener new_xdg_surface;
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
};

/* surface_renderer.c */
struct wlr_renderer *vt_surface_renderer_create(void);

/* util.c */
uint64_t vt_now_ns(void);
uint64_t vt_timespec_to_ns(const struct timespec *ts);
void vt_ns_to_timespec(uint64_t ns, struct timespec *ts);

/* server.c */
bool vt_server_init(struct vt_server *server);
void vt_server_finish(struct vt_server *server);
/* Something in the tree changed: update damage once the loop is idle. */
void vt_server_schedule_update(struct vt_server *server);
/* Run the pending tree update now (damage to outputs). */
void vt_server_update(struct vt_server *server);
pid_t vt_server_spawn(struct vt_server *server, const char *command);
/* The config changed: apply what can change at run time. */
void vt_server_apply_config(struct vt_server *server);

/* output.c */
void vt_output_create(struct vt_server *server, struct wlr_output *wlr_output);
void vt_output_add_damage(struct vt_output *output,
	const pixman_region32_t *layout_damage);
void vt_output_damage_whole(struct vt_output *output);
/* Ask for a refresh of the output (its clock decides when). */
void vt_output_schedule_frame(struct vt_output *output);
struct vt_output *vt_output_at(struct vt_server *server, double lx, double ly);
struct vr_mat vt_output_view(struct vt_output *output);
bool vt_output_write_screenshot(struct vt_output *output, const char *path);
void vt_output_print_stats(struct vt_output *output, FILE *f);

/* surface.c */
struct vt_surface *vt_surface_from_wlr(struct wlr_surface *wlr_surface);
void vt_surface_create(struct vt_server *server,
	struct wlr_surface *wlr_surface);
/* Place node (NULL: none) above the surface's buffer, below the
 * subsurfaces placed above it: the surface's scene content. */
void vt_surface_set_scene_node(struct vt_surface *surface,
	struct vr_node *node);

/* view.c */
void vt_view_handle_new_xdg_surface(struct wl_listener *listener, void *data);
void vt_view_focus(struct vt_view *view, struct wlr_surface *surface);
struct vt_view *vt_view_at(struct vt_server *server, double lx, double ly,
	struct wlr_surface **surface, double *sx, double *sy);
struct vt_output *vt_view_output(struct vt_view *view);

/* input.c */
bool vt_input_init(struct vt_server *server);
void vt_input_apply_config(struct vt_server *server);
void vt_input_finish(struct vt_server *server);

/* frame_log.c */
struct vt_frame_log *vt_frame_log_open(const char *path);
void vt_frame_log_close(struct vt_frame_log *log);
void vt_frame_log_write(struct vt_frame_log *log, const char *output,
	const struct vt_frame *frame, uint64_t presented_ns, bool dropped,
	const char *path);

/* test_control.c */
bool vt_test_init(struct vt_server *server);
void vt_test_finish(struct vt_server *server);
/* Called after every present: settle callbacks may complete. */
void vt_test_check_settled(struct vt_server *server);
/* stall_next_frame: the sleep owed by the next frame (0: none); taking
 * it clears it. */
uint32_t vt_test_take_stall_ms(struct vt_server *server);

#endif
