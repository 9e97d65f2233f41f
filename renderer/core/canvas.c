/*
 * The canvas: the stateful recording API of <vitrail/canvas.h>. Every draw
 * command is stored with the complete canvas state it was recorded under
 * (transform, clip box, rounded clip, paint), so a display list replays
 * without any state of its own: preparation only composes each command's
 * state with the node's absolute state.
 *
 * Clips are kept as one axis-aligned box (list-local; under rotation the
 * bounding box of the clip, as for the tree's clips) and the rounded
 * rectangles, each in the coordinates it was given in with the transform
 * of then: they nest and follow rotations, up to VR_DL_RCLIP_MAX (past it
 * the oldest clips by its box only).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "display_list.h"

struct canvas_state {
	struct vr_mat mat; /* current coordinates -> list-local */
	bool has_clip;
	struct vr_rectf clip; /* list-local */
	uint32_t nrclips;
	struct vr_rclip_src rclips[VR_DL_RCLIP_MAX]; /* outermost first */
};

struct vr_canvas {
	struct canvas_state state;
	struct canvas_state *stack; /* saved states */
	size_t depth, stack_cap;
	struct vr_dl_command *commands;
	size_t ncommands, commands_cap;
	struct vr_rectf bounds;
	bool has_bounds;
};

struct vr_canvas *vr_canvas_begin(void) {
	struct vr_canvas *canvas = calloc(1, sizeof(*canvas));
	if (canvas == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return NULL;
	}
	vr_mat_identity(&canvas->state.mat);
	return canvas;
}

struct vr_display_list *vr_canvas_finish(struct vr_canvas *canvas) {
	struct vr_display_list *list = calloc(1, sizeof(*list));
	if (list == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		vr_dl_commands_free(canvas->commands, canvas->ncommands);
		free(canvas->stack);
		free(canvas);
		return NULL;
	}
	list->refs = 1;
	/* keep what the commands need, not the growth slack */
	if (canvas->ncommands > 0 && canvas->ncommands < canvas->commands_cap) {
		struct vr_dl_command *fit =
				realloc(canvas->commands, canvas->ncommands * sizeof(*fit));
		if (fit != NULL) {
			canvas->commands = fit;
		}
	}
	list->commands = canvas->commands;
	list->ncommands = canvas->ncommands;
	list->bounds = canvas->has_bounds ? canvas->bounds : (struct vr_rectf){ 0 };
	free(canvas->stack);
	free(canvas);
	return list;
}

/* ---- state -------------------------------------------------------------- */

void vr_canvas_save(struct vr_canvas *canvas) {
	if (!vr_grow((void **)&canvas->stack, &canvas->stack_cap, canvas->depth + 1,
				sizeof(struct canvas_state))) {
		return;
	}
	canvas->stack[canvas->depth++] = canvas->state;
}

void vr_canvas_restore(struct vr_canvas *canvas) {
	if (canvas->depth == 0) {
		return;
	}
	canvas->state = canvas->stack[--canvas->depth];
}

void vr_canvas_concat(struct vr_canvas *canvas, const struct vr_mat *m) {
	vr_mat_multiply(&canvas->state.mat, &canvas->state.mat, m);
}

void vr_canvas_translate(struct vr_canvas *canvas, float x, float y) {
	struct vr_mat m;
	vr_mat_translate(&m, x, y);
	vr_canvas_concat(canvas, &m);
}

void vr_canvas_scale(struct vr_canvas *canvas, float sx, float sy) {
	struct vr_mat m = { .a = sx, .d = sy };
	vr_canvas_concat(canvas, &m);
}

void vr_canvas_rotate(struct vr_canvas *canvas, float radians) {
	float c = cosf(radians), s = sinf(radians);
	struct vr_mat m = { .a = c, .b = s, .c = -s, .d = c };
	vr_canvas_concat(canvas, &m);
}

static void intersect_clip(struct canvas_state *state,
		const struct vr_rectf *box) {
	state->clip =
			state->has_clip ? vr_rectf_intersect(&state->clip, box) : *box;
	state->has_clip = true;
}

void vr_canvas_clip_rect(struct vr_canvas *canvas, struct vr_rectf rect) {
	struct vr_rectf box = vr_rectf_map(&canvas->state.mat, &rect);
	intersect_clip(&canvas->state, &box);
}

void vr_canvas_clip_rrect(struct vr_canvas *canvas, struct vr_rectf rect,
		struct vr_radii radii) {
	struct canvas_state *state = &canvas->state;
	struct vr_rrectf local = { rect, vr_radii_fit(rect, radii) };
	struct vr_rectf box = vr_rectf_map(&state->mat, &rect);
	intersect_clip(state, &box);
	if (state->nrclips == VR_DL_RCLIP_MAX) {
		/* the oldest clips by its box (in clip) */
		state->nrclips--;
		memmove(&state->rclips[0], &state->rclips[1],
				state->nrclips * sizeof(state->rclips[0]));
	}
	state->rclips[state->nrclips++] = (struct vr_rclip_src){
		.mat = state->mat,
		.rrect = local,
	};
}

/* ---- commands ----------------------------------------------------------- */

static const struct vr_paint default_paint = {
	.color = { 0.0f, 0.0f, 0.0f, 1.0f },
};

/* Where a stroke may reach beyond the geometry's bounds. */
static float stroke_outset(const struct vr_paint *paint, bool joins) {
	if (paint->stroke_width <= 0.0f) {
		return 0.0f;
	}
	float factor = 1.0f;
	if (paint->cap == VR_CAP_SQUARE) {
		factor = 1.41421356f;
	}
	if (joins && paint->join == VR_JOIN_MITER) {
		float limit = paint->miter_limit > 0.0f ? paint->miter_limit : 4.0f;
		factor = fmaxf(factor, limit);
	}
	return paint->stroke_width / 2.0f * factor;
}

static struct vr_rectf outset(struct vr_rectf r, float d) {
	return (struct vr_rectf){ r.x - d, r.y - d, r.width + 2 * d,
		r.height + 2 * d };
}

/* A new command with the current state; NULL when it is clipped away or
 * out of memory. The caller fills in the op's data. */
static struct vr_dl_command *add_command(struct vr_canvas *canvas,
		enum vr_dl_op op, const struct vr_paint *paint,
		struct vr_rectf local_bounds) {
	const struct canvas_state *state = &canvas->state;
	if (!isfinite(local_bounds.x) || !isfinite(local_bounds.y) ||
			!isfinite(local_bounds.width) || !isfinite(local_bounds.height)) {
		return NULL;
	}
	struct vr_rectf bounds = vr_rectf_map(&state->mat, &local_bounds);
	if (state->has_clip) {
		bounds = vr_rectf_intersect(&bounds, &state->clip);
	}
	if (vr_rectf_empty(&bounds)) {
		return NULL;
	}
	if (!vr_grow((void **)&canvas->commands, &canvas->commands_cap,
				canvas->ncommands + 1, sizeof(struct vr_dl_command))) {
		return NULL;
	}
	struct vr_dl_command *cmd = &canvas->commands[canvas->ncommands++];
	*cmd = (struct vr_dl_command){
		.op = op,
		.mat = state->mat,
		.has_clip = state->has_clip,
		.clip = state->clip,
		.nrclips = state->nrclips,
		.paint = paint != NULL ? *paint : default_paint,
		.local_bounds = local_bounds,
		.bounds = bounds,
	};
	memcpy(cmd->rclips, state->rclips,
			state->nrclips * sizeof(state->rclips[0]));
	if (canvas->has_bounds) {
		float x0 = fminf(canvas->bounds.x, bounds.x);
		float y0 = fminf(canvas->bounds.y, bounds.y);
		float x1 = fmaxf(canvas->bounds.x + canvas->bounds.width,
				bounds.x + bounds.width);
		float y1 = fmaxf(canvas->bounds.y + canvas->bounds.height,
				bounds.y + bounds.height);
		canvas->bounds = (struct vr_rectf){ x0, y0, x1 - x0, y1 - y0 };
	} else {
		canvas->bounds = bounds;
		canvas->has_bounds = true;
	}
	return cmd;
}

static void draw_shape(struct vr_canvas *canvas, enum vr_dl_op op,
		struct vr_rectf rect, struct vr_radii radii,
		const struct vr_paint *paint) {
	if (vr_rectf_empty(&rect) || paint == NULL) {
		return;
	}
	struct vr_rectf b = outset(rect, stroke_outset(paint, false));
	struct vr_dl_command *cmd = add_command(canvas, op, paint, b);
	if (cmd != NULL) {
		cmd->shape = (struct vr_rrectf){ rect, vr_radii_fit(rect, radii) };
	}
}

void vr_canvas_draw_rect(struct vr_canvas *canvas, struct vr_rectf rect,
		const struct vr_paint *paint) {
	draw_shape(canvas, VR_DL_RECT, rect, (struct vr_radii){ 0 }, paint);
}

void vr_canvas_draw_rrect(struct vr_canvas *canvas, struct vr_rectf rect,
		struct vr_radii radii, const struct vr_paint *paint) {
	draw_shape(canvas, VR_DL_RRECT, rect, radii, paint);
}

void vr_canvas_draw_ellipse(struct vr_canvas *canvas, struct vr_rectf rect,
		const struct vr_paint *paint) {
	draw_shape(canvas, VR_DL_ELLIPSE, rect, (struct vr_radii){ 0 }, paint);
}

/* Takes path (owned by the command, destroyed when not recorded). */
static void draw_owned_path(struct vr_canvas *canvas, struct vr_path *path,
		const struct vr_paint *paint) {
	struct vr_rectf b;
	if (path == NULL || !vr_path_bounds(path, &b)) {
		vr_path_destroy(path);
		return;
	}
	struct vr_dl_command *cmd = add_command(canvas, VR_DL_PATH, paint,
			outset(b, stroke_outset(paint, true)));
	if (cmd == NULL) {
		vr_path_destroy(path);
		return;
	}
	cmd->path = path;
}

void vr_canvas_draw_line(struct vr_canvas *canvas, float x0, float y0, float x1,
		float y1, const struct vr_paint *paint) {
	if (paint == NULL || paint->stroke_width <= 0.0f) {
		return; /* a line has no area to fill */
	}
	struct vr_path *path = vr_path_create();
	if (path == NULL) {
		return;
	}
	vr_path_move_to(path, x0, y0);
	vr_path_line_to(path, x1, y1);
	draw_owned_path(canvas, path, paint);
}

void vr_canvas_draw_polyline(struct vr_canvas *canvas, const float *points,
		size_t count, bool closed, const struct vr_paint *paint) {
	if (paint == NULL || count < 2) {
		return;
	}
	struct vr_path *path = vr_path_create();
	if (path == NULL) {
		return;
	}
	vr_path_move_to(path, points[0], points[1]);
	for (size_t i = 1; i < count; i++) {
		vr_path_line_to(path, points[2 * i], points[2 * i + 1]);
	}
	if (closed) {
		vr_path_close(path);
	}
	draw_owned_path(canvas, path, paint);
}

void vr_canvas_draw_path(struct vr_canvas *canvas, const struct vr_path *path,
		const struct vr_paint *paint) {
	if (path == NULL || paint == NULL) {
		return;
	}
	draw_owned_path(canvas, vr_path_copy(path), paint);
}

void vr_canvas_draw_image(struct vr_canvas *canvas, struct vr_image *image,
		const struct vr_rectf *src, struct vr_rectf dst, float opacity) {
	if (image == NULL || vr_rectf_empty(&dst) || !(opacity > 0.0f)) {
		return;
	}
	struct vr_rectf full = { 0.0f, 0.0f, (float)image->width,
		(float)image->height };
	struct vr_dl_command *cmd = add_command(canvas, VR_DL_IMAGE, NULL, dst);
	if (cmd == NULL) {
		return;
	}
	cmd->image.image = vr_image_ref(image);
	cmd->image.src = src != NULL ? *src : full;
	cmd->image.dst = dst;
	cmd->image.opacity = opacity > 1.0f ? 1.0f : opacity;
}

void vr_canvas_draw_text(struct vr_canvas *canvas, float x, float y,
		const char *utf8, const struct vr_font *font, struct vr_color color) {
	if (utf8 == NULL || utf8[0] == '\0' || font == NULL ||
			!(font->size > 0.0f)) {
		return;
	}
	struct vr_text *text = vr_text_shape(utf8, font, x, y);
	if (text == NULL) {
		return;
	}
	struct vr_paint paint = { .color = color };
	struct vr_dl_command *cmd = text->count > 0 ?
			add_command(canvas, VR_DL_TEXT, &paint, text->bounds) :
			NULL;
	if (cmd == NULL) {
		vr_text_destroy(text);
		return;
	}
	cmd->text = text;
}

void vr_canvas_draw_shadow(struct vr_canvas *canvas, struct vr_rectf rect,
		struct vr_radii radii, float blur, struct vr_color color) {
	if (vr_rectf_empty(&rect)) {
		return;
	}
	blur = blur > 0.0f ? blur : 0.0f;
	struct vr_paint paint = { .color = color };
	/* the kernel reaches 3 sigma; one more unit for the shape's fringe */
	struct vr_dl_command *cmd = add_command(canvas, VR_DL_SHADOW, &paint,
			outset(rect, 1.5f * blur + 1.0f));
	if (cmd == NULL) {
		return;
	}
	cmd->shape = (struct vr_rrectf){ rect, vr_radii_fit(rect, radii) };
	cmd->blur = blur;
}
