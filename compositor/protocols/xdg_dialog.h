/*
 * xdg_wm_dialog_v1 (xdg_dialog.c): toplevels marked dialogs of their
 * parent, modal or not.
 */
#ifndef VITRAIL_XDG_DIALOG_H
#define VITRAIL_XDG_DIALOG_H

#include <stdbool.h>

struct vt_server;
struct wlr_xdg_surface;

bool vt_xdg_dialog_init(struct vt_server *server);
/* A mapped toplevel marked modal whose parent is `parent` (the first
 * found), NULL when none: the parent then takes no input. */
struct wlr_xdg_surface *vt_xdg_dialog_modal_of(struct vt_server *server,
		struct wlr_xdg_surface *parent);

#endif
