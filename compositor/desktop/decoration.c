/*
 * Server-side window decorations: what vitrail draws around a toplevel
 * whose decorations were negotiated server-side (xdg-decoration or KDE
 * server-decoration, protocols.c), in desktop mode, unless it is
 * fullscreen.
 *
 * One node with a display list, a child of the view's node below the
 * surface, its origin at the window geometry's top-left corner: a title
 * bar of VT_DECORATION_TITLE pixels right above the window, as wide as
 * it, with the title and a close button at its right end, and a border
 * of VT_DECORATION_BORDER pixels around both. The colours say whether the
 * window has the focus. The list is recorded again only when the size,
 * the focus or the title changed.
 */
#include <stdlib.h>
#include <string.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/edges.h>
#include <vitrail/canvas.h>

#include "desktop/decoration.h"
#include "desktop/surface.h"
#include "desktop/view.h"
#include "server.h"

/* The close button: a square at the title bar's right end, its cross
 * inset by this much. */
#define CLOSE_INSET 8
#define TITLE_FONT_SIZE 13.0f
#define TITLE_LEFT 8 /* the title's first pen position */
#define TITLE_BASELINE 17
/* How far along an edge from a corner a press resizes by both edges. */
#define CORNER 16
/* Bytes of a title shaped at most (a title bar shows far fewer): a
 * client's long title costs no more. */
#define TITLE_MAX 256

struct vt_decoration {
	struct vr_node *node;
	/* what the list was recorded for */
	int width, height;
	bool focused;
	char *title;
};

static struct vr_color rgb(uint32_t rgb) {
	return (struct vr_color){
		((rgb >> 16) & 0xff) / 255.0f,
		((rgb >> 8) & 0xff) / 255.0f,
		(rgb & 0xff) / 255.0f,
		1.0f,
	};
}

bool vt_view_decorated(struct vt_view *view) {
	return view->kind == VT_VIEW_TOPLEVEL && view->ssd &&
			view->server->config.mode == VT_MODE_DESKTOP &&
			!(view->impl->get_fill(view, false) & VT_FILL_FULLSCREEN);
}

struct vt_extents vt_view_extents(struct vt_view *view, bool fullscreen) {
	if (view->kind != VT_VIEW_TOPLEVEL || !view->ssd || fullscreen ||
			view->server->config.mode != VT_MODE_DESKTOP) {
		return (struct vt_extents){ 0 };
	}
	return (struct vt_extents){
		.left = VT_DECORATION_BORDER,
		.top = VT_DECORATION_TITLE + VT_DECORATION_BORDER,
		.right = VT_DECORATION_BORDER,
		.bottom = VT_DECORATION_BORDER,
	};
}

static struct vr_display_list *record(int w, int h, bool focused,
		const char *title) {
	const int b = VT_DECORATION_BORDER, t = VT_DECORATION_TITLE;
	struct vr_canvas *canvas = vr_canvas_begin();
	if (canvas == NULL) {
		return NULL;
	}
	struct vr_paint frame = {
		.color = rgb(focused ? VT_DECORATION_FOCUSED : VT_DECORATION_UNFOCUSED),
	};
	struct vr_color text = rgb(focused ? VT_DECORATION_TEXT_FOCUSED :
										 VT_DECORATION_TEXT_UNFOCUSED);
	/* the border and the title bar, around the window, never under it
	 * (a translucent window shows what is behind it) */
	vr_canvas_draw_rect(canvas,
			(struct vr_rectf){ -b, -t - b, w + 2 * b, t + b }, &frame);
	vr_canvas_draw_rect(canvas, (struct vr_rectf){ -b, 0, b, h }, &frame);
	vr_canvas_draw_rect(canvas, (struct vr_rectf){ w, 0, b, h }, &frame);
	vr_canvas_draw_rect(canvas, (struct vr_rectf){ -b, h, w + 2 * b, b },
			&frame);
	/* the title, cut where the close button starts */
	if (title[0] != '\0' && w - t - TITLE_LEFT > 0) {
		vr_canvas_save(canvas);
		vr_canvas_clip_rect(canvas, (struct vr_rectf){ 0, -t, w - t, t });
		struct vr_font font = {
			.family = "sans-serif",
			.size = TITLE_FONT_SIZE,
			.weight = 700,
		};
		vr_canvas_draw_text(canvas, TITLE_LEFT, -t + TITLE_BASELINE, title,
				&font, text);
		vr_canvas_restore(canvas);
	}
	/* the close button: a cross */
	if (w >= t) {
		struct vr_paint cross = {
			.color = text,
			.stroke_width = 2.0f,
			.cap = VR_CAP_SQUARE,
		};
		float x0 = w - t + CLOSE_INSET, x1 = w - CLOSE_INSET;
		float y0 = -t + CLOSE_INSET, y1 = -CLOSE_INSET;
		vr_canvas_draw_line(canvas, x0, y0, x1, y1, &cross);
		vr_canvas_draw_line(canvas, x0, y1, x1, y0, &cross);
	}
	return vr_canvas_finish(canvas);
}

void vt_decoration_update(struct vt_view *view) {
	if (view->kind != VT_VIEW_TOPLEVEL) {
		return;
	}
	struct vt_decoration *deco = view->decoration;
	if (!vt_view_decorated(view)) {
		if (deco != NULL && vr_node_enabled(deco->node)) {
			vr_node_set_enabled(deco->node, false);
			vt_server_schedule_update(view->server);
		}
		return;
	}
	struct vt_surface *surface =
			view->surface != NULL ? vt_surface_from_wlr(view->surface) : NULL;
	if (surface == NULL) {
		return;
	}
	if (deco == NULL) {
		deco = calloc(1, sizeof(*deco));
		if (deco == NULL) {
			return;
		}
		deco->node = vr_node_create(view->server->tree);
		if (deco->node == NULL) {
			free(deco);
			return;
		}
		deco->width = -1;
		vr_node_set_parent(deco->node, view->node);
		vr_node_place_below(deco->node, surface->node);
		view->decoration = deco;
	}
	struct wlr_box geo;
	view->impl->get_geometry(view, &geo);
	vr_node_set_position(deco->node, geo.x, geo.y);
	vr_node_set_enabled(deco->node, true);
	/* the title, cut at a character boundary after TITLE_MAX bytes */
	const char *full = view->impl->get_title(view);
	full = full != NULL ? full : "";
	char title[TITLE_MAX + 1];
	size_t len = strnlen(full, TITLE_MAX + 1);
	if (len > TITLE_MAX) {
		len = TITLE_MAX;
		while (len > 0 && ((unsigned char)full[len] & 0xc0) == 0x80) {
			len--;
		}
	}
	memcpy(title, full, len);
	title[len] = '\0';
	bool focused = view->server->focused_view == view;
	if (deco->width != geo.width || deco->height != geo.height ||
			deco->focused != focused || deco->title == NULL ||
			strcmp(deco->title, title) != 0) {
		struct vr_display_list *list =
				record(geo.width, geo.height, focused, title);
		char *copy = strdup(title);
		if (list == NULL || copy == NULL) {
			vr_display_list_unref(list);
			free(copy);
			return;
		}
		vr_node_set_display_list(deco->node, list);
		vr_display_list_unref(list);
		free(deco->title);
		deco->title = copy;
		deco->width = geo.width;
		deco->height = geo.height;
		deco->focused = focused;
	}
	vt_server_schedule_update(view->server);
}

void vt_decoration_destroy(struct vt_view *view) {
	struct vt_decoration *deco = view->decoration;
	if (deco == NULL) {
		return;
	}
	vr_node_destroy(deco->node);
	free(deco->title);
	free(deco);
	view->decoration = NULL;
}

enum vt_decoration_part vt_view_decoration_at(struct vt_view *view, double lx,
		double ly, uint32_t *edges) {
	*edges = 0;
	if (!view->mapped || !vt_view_decorated(view)) {
		return VT_PART_NONE;
	}
	const int b = VT_DECORATION_BORDER, t = VT_DECORATION_TITLE;
	struct wlr_box geo;
	view->impl->get_geometry(view, &geo);
	double x = lx - view->x, y = ly - view->y;
	int w = geo.width, h = geo.height;
	if (x < -b || x >= w + b || y < -t - b || y >= h + b ||
			(x >= 0 && x < w && y >= 0 && y < h)) {
		return VT_PART_NONE;
	}
	if (x >= 0 && x < w && y >= -t && y < 0) {
		return x >= w - t ? VT_PART_CLOSE : VT_PART_TITLE;
	}
	uint32_t e = 0;
	e |= x < 0 ? WLR_EDGE_LEFT : x >= w ? WLR_EDGE_RIGHT : 0;
	e |= y < -t ? WLR_EDGE_TOP : y >= h ? WLR_EDGE_BOTTOM : 0;
	/* near a corner, both edges */
	if (!(e & (WLR_EDGE_TOP | WLR_EDGE_BOTTOM))) {
		e |= y < -t - b + CORNER    ? WLR_EDGE_TOP :
				y >= h + b - CORNER ? WLR_EDGE_BOTTOM :
									  0;
	}
	if (!(e & (WLR_EDGE_LEFT | WLR_EDGE_RIGHT))) {
		e |= x < -b + CORNER        ? WLR_EDGE_LEFT :
				x >= w + b - CORNER ? WLR_EDGE_RIGHT :
									  0;
	}
	*edges = e;
	return VT_PART_EDGE;
}
