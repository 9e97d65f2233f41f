/*
 * Server-side decorations (decoration.c): the title bar, close button and
 * borders vitrail draws around a window.
 */
#ifndef VITRAIL_DECORATION_H
#define VITRAIL_DECORATION_H

#include <stdbool.h>
#include <stdint.h>

struct vt_view;

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
enum vt_decoration_part vt_view_decoration_at(struct vt_view *view, double lx,
		double ly, uint32_t *edges);

#endif
