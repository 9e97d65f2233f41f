/*
 * Draw tasks: the self-contained, absolute description of one draw in
 * target pixels. Built by the preparation step of vr_render and by the
 * reference renderer alike, so both follow the same rules (clip boxes,
 * colour quantisation, the nearest/bilinear choice, buffer transforms).
 */
#include <math.h>
#include <string.h>
#include "display_list.h"
#include "render_private.h"

static uint8_t to_u8(float v) {
	v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
	return (uint8_t)lroundf(v * 255.0f);
}

void vr_color_premultiply8(const struct vr_color *color, float opacity,
		uint8_t *r, uint8_t *g, uint8_t *b, uint8_t *a) {
	float alpha = color->a < 0.0f ? 0.0f : color->a > 1.0f ? 1.0f : color->a;
	alpha *= opacity;
	*r = to_u8(color->r * alpha);
	*g = to_u8(color->g * alpha);
	*b = to_u8(color->b * alpha);
	*a = to_u8(alpha);
}

/*
 * Buffer transform as a map from the destination's unit square (u, v) to
 * the source rectangle's unit square (s, t), following wl_surface's
 * buffer_transform: the buffer holds the content transformed by it, so
 * drawing applies the inverse (as weston_transformed_coord does).
 */
static const struct vr_mat buffer_transforms[8] = {
	[VR_TRANSFORM_NORMAL] = { 1, 0, 0, 1, 0, 0 },
	[VR_TRANSFORM_90] = { 0, -1, 1, 0, 0, 1 },
	[VR_TRANSFORM_180] = { -1, 0, 0, -1, 1, 1 },
	[VR_TRANSFORM_270] = { 0, 1, -1, 0, 1, 0 },
	[VR_TRANSFORM_FLIPPED] = { -1, 0, 0, 1, 1, 0 },
	[VR_TRANSFORM_FLIPPED_90] = { 0, 1, 1, 0, 0, 0 },
	[VR_TRANSFORM_FLIPPED_180] = { 1, 0, 0, -1, 0, 1 },
	[VR_TRANSFORM_FLIPPED_270] = { 0, -1, -1, 0, 1, 1 },
};

static bool is_integer(float v) {
	return fabsf(v - roundf(v)) < 1e-4f;
}

static bool maps_pixel_exactly(const struct vr_mat *final,
		const struct vr_rectf *src, float width, float height,
		enum vr_transform transform) {
	if (!vr_mat_is_integer_translation(final)) {
		return false;
	}
	if (!is_integer(src->x) || !is_integer(src->y) || !is_integer(src->width) ||
			!is_integer(src->height)) {
		return false;
	}
	bool swap = transform & 1; /* 90, 270 and their flips */
	float sw = swap ? src->height : src->width;
	float sh = swap ? src->width : src->height;
	return fabsf(sw - width) < 1e-4f && fabsf(sh - height) < 1e-4f;
}

bool vr_draw_task_init(struct vr_draw_task *task, const struct vr_node *node,
		const struct vr_mat *view, const struct vr_box *target, float opacity) {
	const struct vr_node_abs *abs = &node->abs;
	if (!abs->drawn ||
			(node->content.type != VR_CONTENT_RECT &&
					node->content.type != VR_CONTENT_IMAGE)) {
		return false;
	}
	float w = node->content.width, h = node->content.height;
	task->nrclips = 0;
	struct vr_mat final;
	vr_mat_multiply(&final, view, &abs->transform);
	struct vr_mat quad = { .a = w, .d = h };
	vr_mat_multiply(&task->mat, &final, &quad);
	task->axis_aligned = (task->mat.b == 0.0f && task->mat.c == 0.0f) ||
			(task->mat.a == 0.0f && task->mat.d == 0.0f);

	task->clip = *target;
	if (abs->has_clip) {
		struct vr_rectf clip = { (float)abs->clip.x, (float)abs->clip.y,
			(float)abs->clip.width, (float)abs->clip.height };
		struct vr_box box = vr_mat_map_rect_bounds(view, &clip);
		task->clip = vr_box_intersect(&task->clip, &box);
	}
	const struct vr_rectf unit = { 0.0f, 0.0f, 1.0f, 1.0f };
	task->aabb = vr_mat_map_rect_bounds(&task->mat, &unit);
	task->aabb = vr_box_intersect(&task->aabb, &task->clip);
	if (vr_box_empty(&task->aabb)) {
		return false;
	}
	if (abs->nrclips > 0) {
		/* the rounded clips of the node and its ancestors, in target
		 * pixels */
		struct vr_rclip_src stack[VR_RCLIP_NEST_MAX];
		for (uint32_t i = 0; i < abs->nrclips; i++) {
			stack[i].rrect = abs->rclips[i].rrect;
			vr_mat_multiply(&stack[i].mat, view, &abs->rclips[i].mat);
		}
		task->nrclips =
				vr_rclips_for(task->rclips, stack, abs->nrclips, &task->aabb);
	}

	if (node->content.type == VR_CONTENT_RECT) {
		vr_color_premultiply8(&node->content.color, opacity, &task->r, &task->g,
				&task->b, &task->a);
		if (task->a == 0) {
			return false;
		}
		task->image = NULL;
		task->nearest = true;
		task->uv = (struct vr_mat){ 0 };
		return true;
	}

	uint8_t alpha = to_u8(opacity);
	if (alpha == 0) {
		return false;
	}
	task->r = task->g = task->b = task->a = alpha;
	task->image = node->content.image;
	const struct vr_rectf *src = &node->content.src;
	struct vr_mat to_src = { .a = src->width,
		.d = src->height,
		.tx = src->x,
		.ty = src->y };
	vr_mat_multiply(&task->uv, &to_src,
			&buffer_transforms[node->content.transform]);
	task->nearest =
			maps_pixel_exactly(&final, src, w, h, node->content.transform);
	return true;
}

bool vr_draw_task_init_image(struct vr_draw_task *task,
		const struct vr_mat *mat, struct vr_image *image,
		const struct vr_rectf *src, enum vr_transform transform, float opacity,
		const struct vr_box *clip) {
	if ((unsigned)transform > 7) {
		transform = VR_TRANSFORM_NORMAL;
	}
	task->mat = *mat;
	task->nrclips = 0;
	task->axis_aligned = (mat->b == 0.0f && mat->c == 0.0f) ||
			(mat->a == 0.0f && mat->d == 0.0f);
	task->clip = *clip;
	const struct vr_rectf unit = { 0.0f, 0.0f, 1.0f, 1.0f };
	task->aabb = vr_mat_map_rect_bounds(mat, &unit);
	task->aabb = vr_box_intersect(&task->aabb, &task->clip);
	if (vr_box_empty(&task->aabb)) {
		return false;
	}
	uint8_t alpha = to_u8(opacity);
	if (alpha == 0) {
		return false;
	}
	task->r = task->g = task->b = task->a = alpha;
	task->image = image;
	struct vr_mat to_src = { .a = src->width,
		.d = src->height,
		.tx = src->x,
		.ty = src->y };
	vr_mat_multiply(&task->uv, &to_src, &buffer_transforms[transform]);
	/* pixel-exact: an integer translation of the source at its size */
	bool swap = transform & 1;
	float sw = swap ? src->height : src->width;
	float sh = swap ? src->width : src->height;
	task->nearest = fabsf(mat->b) < 1e-6f && fabsf(mat->c) < 1e-6f &&
			fabsf(mat->a - sw) < 1e-4f && fabsf(mat->d - sh) < 1e-4f &&
			is_integer(mat->tx) && is_integer(mat->ty) && is_integer(src->x) &&
			is_integer(src->y) && is_integer(src->width) &&
			is_integer(src->height);
	return true;
}
