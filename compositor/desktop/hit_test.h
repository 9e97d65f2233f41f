/*
 * Hit testing across the desktop (hit_test.c): layer surfaces, X11
 * override-redirect windows, windows and their decorations.
 */
#ifndef VITRAIL_HIT_TEST_H
#define VITRAIL_HIT_TEST_H

struct vt_server;
struct vt_view;
struct wlr_surface;

/* What is at (lx, ly): layer surfaces above the windows, X11 menus and
 * tooltips, the windows front first (a window's surface, or on its
 * decorations the view with *surface NULL), the layer surfaces below.
 * The view, or NULL for a layer or X11 surface (*surface set) or for
 * nothing (*surface untouched); *sx, *sy surface-local. */
struct vt_view *vt_view_at(struct vt_server *server, double lx, double ly,
		struct wlr_surface **surface, double *sx, double *sy);

#endif
