/*
 * X11 clients through Xwayland (xwayland.c), built when the meson option
 * `xwayland` is enabled (VT_HAVE_XWAYLAND): X11 windows are views of the
 * same window policy as xdg toplevels; override-redirect windows (menus,
 * tooltips) are drawn at their X coordinates above the windows.
 */
#ifndef VITRAIL_XWAYLAND_H
#define VITRAIL_XWAYLAND_H

#include <stdbool.h>

struct vt_server;
struct wlr_surface;

#if VT_HAVE_XWAYLAND
/* Offer an X display, Xwayland started on its first client, and export
 * it as DISPLAY to vitrail's environment (the clients it starts). No
 * Xwayland binary is no error: no DISPLAY then. False when out of
 * memory. */
bool vt_xwayland_init(struct vt_server *server);
void vt_xwayland_finish(struct vt_server *server);
/* The X display offered (":N"), or NULL. */
const char *vt_xwayland_display(struct vt_server *server);
/* The override-redirect window's surface at (lx, ly), topmost first, with
 * surface-local coordinates; NULL where none is. */
struct wlr_surface *vt_xwayland_unmanaged_at(struct vt_server *server,
		double lx, double ly, double *sx, double *sy);
#else
static inline bool vt_xwayland_init(struct vt_server *server) {
	return true;
}
static inline void vt_xwayland_finish(struct vt_server *server) {
}
static inline const char *vt_xwayland_display(struct vt_server *server) {
	return NULL;
}
static inline struct wlr_surface *vt_xwayland_unmanaged_at(
		struct vt_server *server, double lx, double ly, double *sx,
		double *sy) {
	return NULL;
}
#endif

#endif
