/*
 * Display lists (private side of <vitrail/canvas.h>): recorded commands
 * with the canvas state they were recorded under, in list-local
 * coordinates. Immutable once finished; shared by reference between nodes
 * and read by preparation and the engine's workers during a frame.
 */
#ifndef RENDERER_DISPLAY_LIST_H
#define RENDERER_DISPLAY_LIST_H

#include <vitrail/canvas.h>
#include "render_private.h"

/* ---- paths (path.c) ----------------------------------------------------- */

enum vr_path_verb {
	VR_PATH_MOVE, /* 1 point */
	VR_PATH_LINE, /* 1 point */
	VR_PATH_QUAD, /* 2 points */
	VR_PATH_CUBIC, /* 3 points */
	VR_PATH_CLOSE, /* 0 points */
};

struct vr_path {
	uint8_t *verbs; /* enum vr_path_verb */
	size_t nverbs, verbs_cap;
	float *points; /* x, y pairs */
	size_t npoints, points_cap; /* in points */
	bool open; /* a contour is started (a move was seen) */
	float start[2]; /* where the last contour started */
};

/* A deep copy; NULL when out of memory. */
struct vr_path *vr_path_copy(const struct vr_path *path);
/* Bounds of every point (control points included), local coordinates;
 * false when the path has no point. */
bool vr_path_bounds(const struct vr_path *path, struct vr_rectf *bounds);

/*
 * Flattened contours in some pixel space. points: x, y pairs; contour i
 * is points [start, start + count) and closed or not.
 */
struct vr_contour {
	uint32_t start, count;
	bool closed;
};

struct vr_polylines {
	float *points;
	size_t npoints, points_cap; /* in points */
	struct vr_contour *contours;
	size_t ncontours, contours_cap;
};

void vr_polylines_finish(struct vr_polylines *lines);
/* Flatten path mapped by mat, within tolerance (pixels) of the curves;
 * consecutive duplicate points are dropped. False when out of memory. */
bool vr_path_flatten(const struct vr_path *path, const struct vr_mat *mat,
		float tolerance, struct vr_polylines *out);

/* Grow *data (elements of elem bytes, capacity *cap) to hold need. */
bool vr_grow(void **data, size_t *cap, size_t need, size_t elem);

/* ---- text (font.c) ------------------------------------------------------ */

struct vr_font_face; /* a font file opened once per process */

/* The face fontconfig chooses for family and weight; NULL (logged) when
 * none can be loaded. Faces live until the process exits. */
struct vr_font_face *vr_font_face_get(const char *family, int weight);

/* Shaped text: glyphs of one face at one size, local coordinates. */
struct vr_text {
	struct vr_font_face *face;
	float size; /* em size, local units */
	uint32_t count;
	uint32_t *glyphs; /* glyph ids */
	float *positions; /* x, y pen positions (the glyph origins) */
	struct vr_rectf bounds; /* conservative ink bounds */
};

/* Shape utf8 with HarfBuzz, pen starting at (x, y); NULL when out of
 * memory or the font cannot be loaded (logged). */
struct vr_text *vr_text_shape(const char *utf8, const struct vr_font *font,
		float x, float y);
void vr_text_destroy(struct vr_text *text);

/* ---- commands ----------------------------------------------------------- */

enum vr_dl_op {
	VR_DL_RECT,
	VR_DL_RRECT,
	VR_DL_ELLIPSE,
	VR_DL_PATH, /* lines, polylines and paths */
	VR_DL_IMAGE,
	VR_DL_TEXT,
	VR_DL_SHADOW,
};

/* Rounded clips a canvas state keeps (the outermost past it clip by their
 * bounding boxes). */
#define VR_DL_RCLIP_MAX 2

struct vr_dl_command {
	enum vr_dl_op op;
	/* the canvas state, list-local */
	struct vr_mat mat; /* command coordinates -> list-local */
	bool has_clip;
	struct vr_rectf clip; /* axis-aligned, list-local */
	/* rounded clips, outermost first, each mapping to list-local
	 * coordinates (their bounding boxes are in clip) */
	uint32_t nrclips;
	struct vr_rclip_src rclips[VR_DL_RCLIP_MAX];
	struct vr_paint paint; /* colour in paint.color */
	struct vr_rectf local_bounds; /* what it draws, command coordinates,
								   * before clipping */
	struct vr_rectf bounds; /* list-local, clipped, conservative */
	union {
		struct vr_rrectf shape; /* RECT, RRECT, ELLIPSE, SHADOW */
		struct vr_path *path; /* PATH, owned */
		struct {
			struct vr_image *image; /* referenced */
			struct vr_rectf src, dst;
			float opacity;
		} image;
		struct vr_text *text; /* TEXT, owned */
	};
	float blur; /* SHADOW: sigma = blur / 2 */
};

struct vr_display_list {
	int refs; /* caller's thread */
	uint64_t hold_epoch; /* caller's thread: the last frame holding it */
	struct vr_dl_command *commands;
	size_t ncommands;
	struct vr_rectf bounds; /* union of the commands' bounds */
};

/* Release what the commands hold, then the array. */
void vr_dl_commands_free(struct vr_dl_command *commands, size_t count);

/* Radii scaled down so adjacent ones fit the side (as CSS does), negative
 * ones zeroed. */
struct vr_radii vr_radii_fit(struct vr_rectf rect, struct vr_radii radii);
/* Bounding box of r mapped by m, in floats. */
struct vr_rectf vr_rectf_map(const struct vr_mat *m, const struct vr_rectf *r);
/* Intersection; empty: width or height <= 0. */
struct vr_rectf vr_rectf_intersect(const struct vr_rectf *a,
		const struct vr_rectf *b);
bool vr_rectf_empty(const struct vr_rectf *r);

#endif
