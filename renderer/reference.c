/*
 * The pixman reference renderer: the oracle of the render tests. It draws
 * the same draw tasks as the Vulkan renderer, all pixels, on the CPU.
 *
 * Coverage follows the GPU rasteriser: a pixel is covered when its centre
 * lies in the quad (top-left rule on edges). Axis-aligned quads (every
 * scale/translation and quarter-turn) are exact; other rotations use an
 * aliased a1 mask from pixman's rasteriser and may differ on edge pixels.
 */
#include <math.h>
#include <stdlib.h>
#include "render_private.h"

struct reference_ctx {
	pixman_image_t *dst;
	const struct vr_mat *view;
	struct vr_box target;
};

/* Affine transform in doubles (the inverse mapping wants precision). */
struct dmat {
	double a, b, c, d, tx, ty;
};

static struct dmat dmat_from(const struct vr_mat *m)
{
	return (struct dmat){ m->a, m->b, m->c, m->d, m->tx, m->ty };
}

static struct dmat dmat_multiply(const struct dmat *a, const struct dmat *b)
{
	return (struct dmat){
		.a = a->a * b->a + a->c * b->b,
		.b = a->b * b->a + a->d * b->b,
		.c = a->a * b->c + a->c * b->d,
		.d = a->b * b->c + a->d * b->d,
		.tx = a->a * b->tx + a->c * b->ty + a->tx,
		.ty = a->b * b->tx + a->d * b->ty + a->ty,
	};
}

static bool dmat_invert(struct dmat *out, const struct dmat *m)
{
	double det = m->a * m->d - m->b * m->c;
	if (fabs(det) < 1e-12) {
		return false;
	}
	double ia = m->d / det, ib = -m->b / det;
	double ic = -m->c / det, id = m->a / det;
	*out = (struct dmat){ ia, ib, ic, id,
		-(ia * m->tx + ic * m->ty), -(ib * m->tx + id * m->ty) };
	return true;
}

static pixman_fixed_t to_fixed(double v)
{
	return (pixman_fixed_t)llround(v * 65536.0);
}

/* First covered pixel for an edge at coordinate e (centre rule). */
static int32_t cover_start(float e)
{
	return (int32_t)ceilf(e - 0.5f);
}

/* Covered target pixels of an axis-aligned task, inside its clip. */
static struct vr_box axis_aligned_cover(const struct vr_draw_task *task)
{
	float x0, y0, x1, y1;
	vr_mat_apply(&task->mat, 0.0f, 0.0f, &x0, &y0);
	vr_mat_apply(&task->mat, 1.0f, 1.0f, &x1, &y1);
	float lx = fminf(x0, x1), hx = fmaxf(x0, x1);
	float ly = fminf(y0, y1), hy = fmaxf(y0, y1);
	int32_t bx0 = cover_start(lx), bx1 = cover_start(hx);
	int32_t by0 = cover_start(ly), by1 = cover_start(hy);
	struct vr_box box = { bx0, by0, bx1 - bx0, by1 - by0 };
	if (vr_box_empty(&box)) {
		return (struct vr_box){ 0 };
	}
	return vr_box_intersect(&box, &task->clip);
}

/* An a1 mask of the quad over task->aabb, or NULL on failure. */
static pixman_image_t *quad_mask(const struct vr_draw_task *task)
{
	const struct vr_box *box = &task->aabb;
	pixman_image_t *mask = pixman_image_create_bits(PIXMAN_a1, box->width,
		box->height, NULL, 0);
	if (mask == NULL) {
		return NULL;
	}
	pixman_point_fixed_t p[4];
	const float us[4] = { 0, 1, 0, 1 }, vs[4] = { 0, 0, 1, 1 };
	for (int i = 0; i < 4; i++) {
		float x, y;
		vr_mat_apply(&task->mat, us[i], vs[i], &x, &y);
		p[i].x = to_fixed((double)x - box->x);
		p[i].y = to_fixed((double)y - box->y);
	}
	pixman_triangle_t tris[2] = {
		{ p[0], p[1], p[2] },
		{ p[1], p[3], p[2] },
	};
	pixman_add_triangles(mask, 0, 0, 2, tris);
	return mask;
}

static pixman_image_t *task_source(const struct vr_draw_task *task)
{
	if (task->image == NULL) {
		pixman_color_t color = {
			.red = (uint16_t)(task->r * 257),
			.green = (uint16_t)(task->g * 257),
			.blue = (uint16_t)(task->b * 257),
			.alpha = (uint16_t)(task->a * 257),
		};
		return pixman_image_create_solid_fill(&color);
	}
	struct vr_image *image = task->image;
	pixman_image_t *src = pixman_image_create_bits(
		image->format == VR_FORMAT_XRGB8888 ?
			PIXMAN_x8r8g8b8 : PIXMAN_a8r8g8b8,
		image->width, image->height, image->data, image->stride);
	if (src == NULL) {
		return NULL;
	}
	/* target pixel -> image pixel: uv o mat^-1 */
	struct dmat mat = dmat_from(&task->mat), inv;
	if (!dmat_invert(&inv, &mat)) {
		pixman_image_unref(src);
		return NULL;
	}
	struct dmat uv = dmat_from(&task->uv);
	struct dmat m = dmat_multiply(&uv, &inv);
	pixman_transform_t transform = {{
		{ to_fixed(m.a), to_fixed(m.c), to_fixed(m.tx) },
		{ to_fixed(m.b), to_fixed(m.d), to_fixed(m.ty) },
		{ 0, 0, pixman_fixed_1 },
	}};
	pixman_image_set_transform(src, &transform);
	pixman_image_set_filter(src, task->nearest ?
		PIXMAN_FILTER_NEAREST : PIXMAN_FILTER_BILINEAR, NULL, 0);
	/* clamp to edge, like the GPU sampler */
	pixman_image_set_repeat(src, PIXMAN_REPEAT_PAD);
	return src;
}

static void draw_task(pixman_image_t *dst, const struct vr_draw_task *task)
{
	pixman_image_t *src = task_source(task);
	if (src == NULL) {
		vr_log(VR_LOG_ERROR, "reference: cannot build a source");
		return;
	}
	pixman_image_t *opacity = NULL;
	if (task->image != NULL && task->a < 255) {
		pixman_color_t color = { .alpha = (uint16_t)(task->a * 257) };
		opacity = pixman_image_create_solid_fill(&color);
	}

	if (task->axis_aligned) {
		struct vr_box box = axis_aligned_cover(task);
		if (!vr_box_empty(&box)) {
			pixman_image_composite32(PIXMAN_OP_OVER, src, opacity, dst,
				box.x, box.y, 0, 0, box.x, box.y,
				box.width, box.height);
		}
	} else {
		/* (src IN opacity) composited through the aliased quad mask,
		 * restricted to the clip (the aabb is inside it) */
		const struct vr_box *box = &task->aabb;
		pixman_image_t *mask = quad_mask(task);
		pixman_image_t *tmp = pixman_image_create_bits(PIXMAN_a8r8g8b8,
			box->width, box->height, NULL, 0);
		if (mask != NULL && tmp != NULL) {
			pixman_image_composite32(PIXMAN_OP_SRC, src, opacity, tmp,
				box->x, box->y, 0, 0, 0, 0,
				box->width, box->height);
			pixman_image_composite32(PIXMAN_OP_OVER, tmp, mask, dst,
				0, 0, 0, 0, box->x, box->y,
				box->width, box->height);
		} else {
			vr_log(VR_LOG_ERROR, "reference: allocation failed");
		}
		if (mask != NULL) {
			pixman_image_unref(mask);
		}
		if (tmp != NULL) {
			pixman_image_unref(tmp);
		}
	}
	if (opacity != NULL) {
		pixman_image_unref(opacity);
	}
	pixman_image_unref(src);
}

static void reference_draw_node(struct vr_node *node, void *data)
{
	struct reference_ctx *ctx = data;
	struct vr_draw_task task;
	if (vr_draw_task_init(&task, node, ctx->view, &ctx->target)) {
		draw_task(ctx->dst, &task);
	}
}

void vr_reference_render(struct vr_tree *tree, pixman_image_t *dst,
		const struct vr_mat *view, struct vr_color clear)
{
	struct reference_ctx ctx = {
		.dst = dst,
		.view = view,
		.target = { 0, 0, pixman_image_get_width(dst),
			pixman_image_get_height(dst) },
	};
	uint8_t r, g, b, a;
	vr_color_premultiply8(&clear, 1.0f, &r, &g, &b, &a);
	pixman_color_t color = { (uint16_t)(r * 257), (uint16_t)(g * 257),
		(uint16_t)(b * 257), (uint16_t)(a * 257) };
	pixman_box32_t all = { 0, 0, ctx.target.width, ctx.target.height };
	pixman_image_fill_boxes(PIXMAN_OP_SRC, dst, &color, 1, &all);
	vr_tree_for_each_drawn(tree, NULL, reference_draw_node, &ctx);
}
