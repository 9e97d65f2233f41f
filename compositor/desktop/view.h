/*
 * Windows (view.c): the window policy (placement, focus, stacking, grabs,
 * workspaces, filling outputs) that xdg toplevels (xdg_shell.c) and X11
 * windows (xwayland.c) share.
 */
#ifndef VITRAIL_VIEW_H
#define VITRAIL_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>
#include <wlr/util/box.h>

#include "config.h"
#include "server.h"

struct vr_node;
struct vt_decoration;
struct vt_foreign_toplevel;
struct vt_output;
struct wlr_output;
struct wlr_surface;
struct wlr_seat_keyboard_grab;
struct wlr_xdg_popup_grab;
struct wlr_xdg_surface;

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
	/* false: the window never takes the keyboard focus (clicked or
	 * mapped, it is only raised: then raised is called); NULL: it always
	 * does */
	bool (*takes_focus)(struct vt_view *view);
	void (*raised)(struct vt_view *view);
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

/* server->events.view_activated's payload: the view's activated state
 * changed to activated. */
struct vt_view_activated_event {
	struct vt_view *view;
	bool activated;
};

void vt_view_focus(struct vt_view *view, struct wlr_surface *surface);
/* surface gets the keyboard, past any seat grab (past_grab) or through
 * it (the window focus, and xdg_shell.c's popups). */
void vt_views_keyboard_enter(struct vt_server *server,
		struct wlr_surface *surface, bool past_grab);
/* The toplevel view an xdg surface belongs to (a popup: its chain's
 * root's), NULL: none (a layer surface's popup, or no view yet). */
struct vt_view *vt_view_toplevel_of(struct wlr_xdg_surface *xdg_surface);
/* The view whose xdg toplevel surface is surface, or NULL. */
struct vt_view *vt_view_from_toplevel_surface(struct wlr_surface *surface);
/* xdg popup grabs: the one whose keyboard grab is grab (NULL: another
 * kind), the one holding the seat's keyboard now (NULL: none). */
struct wlr_xdg_popup_grab *vt_popup_grab_of(struct vt_server *server,
		struct wlr_seat_keyboard_grab *grab);
struct wlr_xdg_popup_grab *vt_popup_grab_active(struct vt_server *server);
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
/* server->events.output_gone, output_moved (struct
 * vt_output_change_event): the two above (server.c adds them). */
void vt_views_handle_output_gone(struct wl_listener *listener, void *data);
void vt_views_handle_output_moved(struct wl_listener *listener, void *data);
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
void vt_view_move_to_output(struct vt_view *view, enum vt_config_direction dir);
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

#endif
