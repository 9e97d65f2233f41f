/*
 * vitrail canvas: a stateful 2D drawing API that records display lists.
 *
 * A display list holds draw commands in a node's local coordinates. It is
 * recorded through a canvas (save/restore/translate/scale/rotate/clip and
 * draw calls, the interface of Skia's SkCanvas or OpenHarmony's Drawing),
 * then attached to render-tree nodes as their content. At render time the
 * renderer's in-order preparation replays display lists with the nodes'
 * absolute state, batches compatible commands and turns them into
 * self-contained tasks for the stateless engine.
 *
 * Same threading rule as <vitrail/renderer.h>: one thread.
 */
#ifndef VITRAIL_CANVAS_H
#define VITRAIL_CANVAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vitrail/renderer.h>

/* ---- paths -------------------------------------------------------------- */

struct vr_path;

struct vr_path *vr_path_create(void);
void vr_path_destroy(struct vr_path *path); /* accepts NULL */
void vr_path_move_to(struct vr_path *path, float x, float y);
void vr_path_line_to(struct vr_path *path, float x, float y);
void vr_path_quad_to(struct vr_path *path, float cx, float cy, float x,
		float y);
void vr_path_cubic_to(struct vr_path *path, float c1x, float c1y, float c2x,
		float c2y, float x, float y);
void vr_path_close(struct vr_path *path);

/* ---- paint -------------------------------------------------------------- */

enum vr_line_join {
	VR_JOIN_MITER,
	VR_JOIN_ROUND,
	VR_JOIN_BEVEL,
};

enum vr_line_cap {
	VR_CAP_BUTT,
	VR_CAP_ROUND,
	VR_CAP_SQUARE,
};

enum vr_fill_rule {
	VR_FILL_NONZERO,
	VR_FILL_EVEN_ODD,
};

/* How a shape is painted: filled (stroke_width == 0) or stroked. */
struct vr_paint {
	struct vr_color color; /* straight alpha */
	float stroke_width; /* 0: fill */
	enum vr_line_join join;
	enum vr_line_cap cap;
	float miter_limit; /* 0: 4 */
	enum vr_fill_rule fill_rule; /* paths */
};

/* Corner radii: top-left, top-right, bottom-right, bottom-left. */
struct vr_radii {
	float tl, tr, br, bl;
};

struct vr_font {
	const char *family; /* fontconfig family name, e.g. "DejaVu Sans" */
	float size; /* pixels (em size) */
	int weight; /* 100 .. 900, 400 regular, 700 bold */
};

/* ---- images -------------------------------------------------------------- */

/* A decoded PNG file as an ARGB8888 (premultiplied) image; NULL (logged)
 * when it cannot be read. */
struct vr_image *vr_image_load_png(const char *path);

/* ---- display lists ------------------------------------------------------ */

struct vr_display_list;
struct vr_canvas;

/* Start recording a display list. */
struct vr_canvas *vr_canvas_begin(void);
/* Stop recording; the canvas is freed. The list starts with one
 * reference. NULL only when out of memory. */
struct vr_display_list *vr_canvas_finish(struct vr_canvas *canvas);

struct vr_display_list *vr_display_list_ref(struct vr_display_list *list);
void vr_display_list_unref(struct vr_display_list *list); /* accepts NULL */
/* Conservative bounds of everything the list draws, local coordinates. */
struct vr_rectf vr_display_list_bounds(const struct vr_display_list *list);
size_t vr_display_list_command_count(const struct vr_display_list *list);
/* Bytes the list holds (its commands, their paths and shaped text). */
size_t vr_display_list_bytes(const struct vr_display_list *list);

/* Node content: the display list (takes a reference); replaces any rect or
 * image content. The whole list is re-recorded to change it. */
void vr_node_set_display_list(struct vr_node *node,
		struct vr_display_list *list);

/*
 * Do ahead what the first frame drawing list would pay for: rasterise the
 * glyphs of its text into the renderer's shared glyph atlas (uploaded by
 * the next frame that draws them) and create the scratch images of its
 * blurred shadows. to_pixels: the transform the list is expected to be
 * drawn with (list-local -> target pixels; NULL: identity), which decides
 * the glyphs' pixel size and the shadows' scratch size; a list drawn
 * under another transform is still drawn correctly, its frame just pays
 * for what was not ready. Runs on the caller's thread (a few ms for a
 * screen of text); pixels are the same with and without it.
 */
void vr_renderer_warm_display_list(struct vr_renderer *renderer,
		const struct vr_display_list *list, const struct vr_mat *to_pixels);

/* ---- canvas state ------------------------------------------------------- */

void vr_canvas_save(struct vr_canvas *canvas);
void vr_canvas_restore(struct vr_canvas *canvas); /* unbalanced: ignored */
void vr_canvas_translate(struct vr_canvas *canvas, float x, float y);
void vr_canvas_scale(struct vr_canvas *canvas, float sx, float sy);
void vr_canvas_rotate(struct vr_canvas *canvas, float radians);
void vr_canvas_concat(struct vr_canvas *canvas, const struct vr_mat *m);
/* Intersect the clip with a rectangle / rounded rectangle given in the
 * current coordinates. A rectangle under rotation clips by its bounding
 * box; a rounded rectangle is exact under the current transform, and
 * rounded clips nest (with the nodes' too: vr_node_set_clip_rounded), up
 * to 2 per state: past that the oldest clips by its bounding box. */
void vr_canvas_clip_rect(struct vr_canvas *canvas, struct vr_rectf rect);
void vr_canvas_clip_rrect(struct vr_canvas *canvas, struct vr_rectf rect,
		struct vr_radii radii);

/* ---- draw commands ------------------------------------------------------ */

void vr_canvas_draw_rect(struct vr_canvas *canvas, struct vr_rectf rect,
		const struct vr_paint *paint);
void vr_canvas_draw_rrect(struct vr_canvas *canvas, struct vr_rectf rect,
		struct vr_radii radii, const struct vr_paint *paint);
/* The ellipse inscribed in rect (a circle when rect is square). */
void vr_canvas_draw_ellipse(struct vr_canvas *canvas, struct vr_rectf rect,
		const struct vr_paint *paint);
void vr_canvas_draw_line(struct vr_canvas *canvas, float x0, float y0, float x1,
		float y1, const struct vr_paint *paint);
/* points: 2 * count floats (x, y); closed joins the last to the first. */
void vr_canvas_draw_polyline(struct vr_canvas *canvas, const float *points,
		size_t count, bool closed, const struct vr_paint *paint);
void vr_canvas_draw_path(struct vr_canvas *canvas, const struct vr_path *path,
		const struct vr_paint *paint);
/* Image (src in image pixels, NULL: whole image) into dst, with opacity. */
void vr_canvas_draw_image(struct vr_canvas *canvas, struct vr_image *image,
		const struct vr_rectf *src, struct vr_rectf dst, float opacity);
/* UTF-8 text shaped with HarfBuzz, its baseline starting at (x, y). */
void vr_canvas_draw_text(struct vr_canvas *canvas, float x, float y,
		const char *utf8, const struct vr_font *font, struct vr_color color);
/* A Gaussian-blurred shadow of a rounded rectangle (sigma = blur / 2),
 * rendered through an offscreen layer. */
void vr_canvas_draw_shadow(struct vr_canvas *canvas, struct vr_rectf rect,
		struct vr_radii radii, float blur, struct vr_color color);

#endif
