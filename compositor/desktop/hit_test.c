/*
 * Hit testing across the desktop: what is under a point of the layout,
 * among the layer surfaces (layer_shell.c), X11 override-redirect windows
 * (xwayland.c) and the windows (view.c) with their decorations. Above all
 * of them, so that none of them needs another to look.
 */
#include <wlr/types/wlr_surface.h>

#include "desktop/decoration.h"
#include "desktop/hit_test.h"
#include "desktop/layer_shell.h"
#include "desktop/view.h"
#include "desktop/xwayland.h"
#include "server.h"

struct vt_view *vt_view_at(struct vt_server *server, double lx, double ly,
		struct wlr_surface **surface, double *sx, double *sy) {
	/* layer surfaces above the windows, the windows, those below */
	struct wlr_surface *layer =
			vt_layers_surface_at(server, lx, ly, true, sx, sy);
	if (layer != NULL) {
		*surface = layer;
		return NULL;
	}
	/* X11 menus and tooltips, above the windows */
	struct wlr_surface *unmanaged =
			vt_xwayland_unmanaged_at(server, lx, ly, sx, sy);
	if (unmanaged != NULL) {
		*surface = unmanaged;
		return NULL;
	}
	struct vt_view *view;
	wl_list_for_each(view, &server->views, link) {
		if (!vt_view_visible(view)) {
			continue;
		}
		int ox, oy;
		vt_view_surface_origin(view, &ox, &oy);
		double vx = lx - ox, vy = ly - oy;
		struct wlr_surface *s = view->impl->surface_at(view, vx, vy, sx, sy);
		if (s != NULL) {
			*surface = s;
			return view;
		}
		/* its decorations: the view, no surface */
		uint32_t edges;
		if (vt_view_decoration_at(view, lx, ly, &edges) != VT_PART_NONE) {
			*surface = NULL;
			return view;
		}
	}
	layer = vt_layers_surface_at(server, lx, ly, false, sx, sy);
	if (layer != NULL) {
		*surface = layer;
	}
	return NULL;
}
