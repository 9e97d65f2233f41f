/*
 * wlr-layer-shell (layer_shell.c): panels, wallpapers, on-screen keyboards
 * and lock-like overlays, placed on an output by their anchors, margins and
 * size in four layers of the render tree.
 */
#ifndef VITRAIL_LAYER_SHELL_H
#define VITRAIL_LAYER_SHELL_H

#include <stdbool.h>
#include <wlr/types/wlr_layer_shell_v1.h>
#include <wlr/util/box.h>

#include "server.h"
struct vt_output;
struct vr_node;
struct wlr_output;
struct wlr_surface;

/* The zwlr_layer_shell_v1 global and the four layer nodes: background and
 * bottom between server->background and the views, top and overlay above
 * the views, below the cursor. */
bool vt_layers_init(struct vt_server *server);
void vt_layers_finish(struct vt_server *server);
/* Place every layer surface again (outputs moved, changed mode, came or
 * went) and recompute each output's usable box. */
void vt_layers_arrange(struct vt_server *server);
/* The output is disabled: its layer surfaces are closed. */
void vt_layers_output_disabled(struct vt_server *server,
		struct wlr_output *wlr_output);
/* The mapped layer surface under (lx, ly) in the layers above the views
 * (above true: top and overlay) or below them (background and bottom);
 * NULL: none. *sx, *sy: surface-local. */
struct wlr_surface *vt_layers_surface_at(struct vt_server *server, double lx,
		double ly, bool above, double *sx, double *sy);
/* A layer surface with exclusive keyboard interactivity holds the
 * keyboard: windows may be raised but get no keyboard focus. Read from
 * the field layer_shell.c keeps, so that windows (below it) can ask. */
static inline bool vt_layers_keyboard_grabbed(struct vt_server *server) {
	return server->focused_layer != NULL &&
			server->focused_layer->current.keyboard_interactive ==
			ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_EXCLUSIVE;
}
/* A pointer button or touch went down on surface (any surface): an
 * on_demand layer surface takes the keyboard focus. true: it did. */
bool vt_layers_focus_surface(struct vt_server *server,
		struct wlr_surface *surface);
/* A popup's root is the layer surface `root`: its container node and the
 * box (root-surface-local) it is kept inside. false: root is no mapped
 * layer surface. */
bool vt_layers_popup_parent(struct wlr_surface *root, struct vr_node **node,
		struct wlr_box *constraint);

#endif
