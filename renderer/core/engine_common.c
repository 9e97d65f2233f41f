/*
 * What the engine's vertex-based kinds share with the CPU renderers: the
 * clip part of their vertices, the shapes' vertices, and the C twins of
 * the shaders' coverage functions (shaders/coverage.glsl), which the
 * pixman reference renderer evaluates. The Vulkan side (vertex allocation,
 * push constants, recording) is vk/engine_record.c.
 */
#include <math.h>
#include <stdatomic.h>
#include <string.h>
#include "engine_private.h"
#include "shader_interface.h"

_Static_assert(VR_CLIP_RCLIPS == VR_RCLIP_MAX, "shader_interface.h");
_Static_assert(sizeof(struct vr_rclip) == 48, "three vec4");

/* ---- coverage: keep in step with shaders/coverage.glsl ------------------ */

float vr_sdf_rrect(float px, float py, float hx, float hy,
		const float radii[4]) {
	float r = px > 0.0f ? (py > 0.0f ? radii[2] : radii[1]) :
						  (py > 0.0f ? radii[3] : radii[0]);
	float qx = fabsf(px) - hx + r, qy = fabsf(py) - hy + r;
	float mx = fmaxf(qx, 0.0f), my = fmaxf(qy, 0.0f);
	return fminf(fmaxf(qx, qy), 0.0f) + sqrtf(mx * mx + my * my) - r;
}

float vr_sdf_ellipse(float px, float py, float hx, float hy) {
	if (hx == hy) {
		return sqrtf(px * px + py * py) - hx;
	}
	float qx = px / hx, qy = py / hy;
	float f = qx * qx + qy * qy - 1.0f;
	float gx = 2.0f * px / (hx * hx), gy = 2.0f * py / (hy * hy);
	float g = sqrtf(gx * gx + gy * gy);
	return g > 0.0f ? f / g : -fminf(hx, hy);
}

float vr_rclip_coverage(const struct vr_rclip *rclip, float x, float y) {
	float hx = rclip->x[3], hy = rclip->y[3];
	if (hx < 0.0f) {
		return 1.0f; /* an unused slot */
	}
	float px = rclip->x[0] * x + rclip->x[1] * y + rclip->x[2];
	float py = rclip->y[0] * x + rclip->y[1] * y + rclip->y[2];
	const float *radii = rclip->radii;
	float r = px > 0.0f ? (py > 0.0f ? radii[2] : radii[1]) :
						  (py > 0.0f ? radii[3] : radii[0]);
	float qx = fabsf(px) - hx + r, qy = fabsf(py) - hy + r;
	float mx = fmaxf(qx, 0.0f), my = fmaxf(qy, 0.0f);
	float len = sqrtf(mx * mx + my * my);
	float d = fminf(fmaxf(qx, qy), 0.0f) + len - r;
	/* the distance's gradient n (local coordinates): pixels per local
	 * unit along it are 1 / |A^T n| */
	float sx = px > 0.0f ? 1.0f : -1.0f, sy = py > 0.0f ? 1.0f : -1.0f;
	float nx = 0.0f, ny = sy;
	if (len > 0.0f) {
		nx = sx * mx / len;
		ny = sy * my / len;
	} else if (qx > qy) {
		nx = sx;
		ny = 0.0f;
	}
	float gx = rclip->x[0] * nx + rclip->y[0] * ny;
	float gy = rclip->x[1] * nx + rclip->y[1] * ny;
	float g = sqrtf(gx * gx + gy * gy);
	return vr_clampf(0.5f - d / g, 0.0f, 1.0f);
}

float vr_clip_coverage(const struct vr_vertex_clip *clip, float x, float y) {
	if (x < clip->clip[0] || y < clip->clip[1] || x >= clip->clip[2] ||
			y >= clip->clip[3]) {
		return 0.0f;
	}
	float coverage = 1.0f;
	for (int i = 0; i < VR_RCLIP_MAX; i++) {
		coverage *= vr_rclip_coverage(&clip->rclips[i], x, y);
	}
	return coverage;
}

float vr_shape_coverage(const struct vr_shape_vertex *v) {
	float d;
	if (v->params[0] > 0.5f) {
		d = vr_sdf_ellipse(v->local[0], v->local[1], v->half[0], v->half[1]);
	} else {
		d = vr_sdf_rrect(v->local[0], v->local[1], v->half[0], v->half[1],
				v->radii);
	}
	if (v->params[1] > 0.0f) {
		d = fabsf(d) - v->params[1] * 0.5f;
	}
	return vr_clampf(0.5f - d * v->params[2], 0.0f, 1.0f);
}

/* ---- vertices ----------------------------------------------------------- */

/* ---- rounded clips ------------------------------------------------------ */

bool vr_rclip_init(struct vr_rclip *out, const struct vr_mat *to_pixels,
		const struct vr_rrectf *rrect) {
	struct vr_mat inv;
	if (!vr_mat_invert(&inv, to_pixels)) {
		return false;
	}
	const struct vr_rectf *r = &rrect->rect;
	float hx = fmaxf(r->width, 0.0f) * 0.5f;
	float hy = fmaxf(r->height, 0.0f) * 0.5f;
	*out = (struct vr_rclip){
		.x = { inv.a, inv.c, inv.tx - (r->x + hx), hx },
		.y = { inv.b, inv.d, inv.ty - (r->y + hy), hy },
		.radii = { rrect->radii.tl, rrect->radii.tr, rrect->radii.br,
				rrect->radii.bl },
	};
	return true;
}

/* Does the rounded clip cover every pixel of box fully (coverage 1)? Its
 * fully covered pixels are a convex set, so the box's corners tell, with
 * a pixel of margin (|A^T n| <= |A|, Frobenius) against float noise. */
static bool rclip_covers(const struct vr_rclip *rc, const struct vr_box *box) {
	float norm = sqrtf(rc->x[0] * rc->x[0] + rc->x[1] * rc->x[1] +
			rc->y[0] * rc->y[0] + rc->y[1] * rc->y[1]);
	float xs[2] = { (float)box->x, (float)(box->x + box->width) };
	float ys[2] = { (float)box->y, (float)(box->y + box->height) };
	for (int i = 0; i < 4; i++) {
		float x = xs[i & 1], y = ys[i >> 1];
		float px = rc->x[0] * x + rc->x[1] * y + rc->x[2];
		float py = rc->y[0] * x + rc->y[1] * y + rc->y[2];
		if (vr_sdf_rrect(px, py, rc->x[3], rc->y[3], rc->radii) > -norm) {
			return false;
		}
	}
	return true;
}

#define RCLIP_STACK_MAX (2 * VR_RCLIP_NEST_MAX)

uint32_t vr_rclips_for(struct vr_rclip out[VR_RCLIP_MAX],
		const struct vr_rclip_src *stack, uint32_t n,
		const struct vr_box *aabb) {
	static atomic_flag warned = ATOMIC_FLAG_INIT;
	struct vr_rclip all[RCLIP_STACK_MAX];
	struct vr_box boxes[RCLIP_STACK_MAX];
	uint32_t count = 0;
	/* the innermost ones first when the stack is too deep */
	uint32_t first = n > RCLIP_STACK_MAX ? n - RCLIP_STACK_MAX : 0;
	for (uint32_t i = first; i < n; i++) {
		const struct vr_rclip_src *src = &stack[i];
		/* degenerate: its bounding box, in the clip box, is empty */
		if (!vr_rclip_init(&all[count], &src->mat, &src->rrect) ||
				rclip_covers(&all[count], aabb)) {
			continue; /* clips nothing of the primitive */
		}
		boxes[count] = vr_mat_map_rect_bounds(&src->mat, &src->rrect.rect);
		boxes[count].x -= 1;
		boxes[count].y -= 1;
		boxes[count].width += 2;
		boxes[count].height += 2;
		count++;
	}
	/* one containing another's bounding box clips nothing more */
	for (uint32_t i = 0; i < count;) {
		bool redundant = false;
		for (uint32_t j = 0; j < count && !redundant; j++) {
			redundant = j != i && rclip_covers(&all[i], &boxes[j]);
		}
		if (!redundant) {
			i++;
			continue;
		}
		count--;
		memmove(&all[i], &all[i + 1], (count - i) * sizeof(all[0]));
		memmove(&boxes[i], &boxes[i + 1], (count - i) * sizeof(boxes[0]));
	}
	first = 0;
	if (count > VR_RCLIP_MAX) {
		if (!atomic_flag_test_and_set(&warned)) {
			vr_log(VR_LOG_INFO,
					"more than %d nested rounded clips "
					"meet a primitive: the outermost clip by their "
					"bounding boxes only",
					VR_RCLIP_MAX);
		}
		first = count - VR_RCLIP_MAX;
	}
	memcpy(out, &all[first], (count - first) * sizeof(all[0]));
	return count - first;
}

/* ---- vertices ----------------------------------------------------------- */

void vr_vertex_clip_set(struct vr_vertex_clip *clip, const struct vr_box *box,
		const struct vr_rclip *rclips, uint32_t nrclips) {
	clip->clip[0] = (float)box->x;
	clip->clip[1] = (float)box->y;
	clip->clip[2] = (float)(box->x + box->width);
	clip->clip[3] = (float)(box->y + box->height);
	for (uint32_t i = 0; i < VR_RCLIP_MAX; i++) {
		if (i < nrclips) {
			clip->rclips[i] = rclips[i];
		} else {
			/* unused: half width < 0 */
			clip->rclips[i] =
					(struct vr_rclip){ .x = { 0.0f, 0.0f, 0.0f, -1.0f } };
		}
	}
}

void vr_vertex_clip_init(struct vr_vertex_clip *clip,
		const struct vr_prim_state *state) {
	vr_vertex_clip_set(clip, &state->clip, state->rclips, state->nrclips);
}

void vr_shape_vertex_init(const struct vr_shape *shape,
		struct vr_shape_vertex *v) {
	const struct vr_mat *m = &shape->state.mat;
	*v = (struct vr_shape_vertex){
		.half = { shape->rect.width / 2.0f, shape->rect.height / 2.0f },
		.params = { shape->ellipse ? 1.0f : 0.0f, shape->stroke_width,
				sqrtf(fabsf(m->a * m->d - m->b * m->c)), 0.0f },
		.radii = { shape->radii.tl, shape->radii.tr, shape->radii.br,
				shape->radii.bl },
	};
	for (int i = 0; i < 4; i++) {
		v->color[i] = shape->state.color[i];
	}
	vr_vertex_clip_init(&v->clip, &shape->state);
}

void *vr_engine_copy_vertices(void *dst, size_t stride, const void *src,
		size_t size, size_t count) {
	char *d = dst;
	const char *s = src;
	if (count == 0) {
		return d; /* src may be NULL then */
	}
	if (stride == size) {
		memcpy(d, s, count * size);
		return d + count * size;
	}
	for (size_t i = 0; i < count; i++) {
		memcpy(d, s, stride);
		d += stride;
		s += size;
	}
	return d;
}

/* ---- quads on the CPU (the reference renderer and the CPU backend) ---- */

struct vr_dmat vr_dmat_from(const struct vr_mat *m) {
	return (struct vr_dmat){ m->a, m->b, m->c, m->d, m->tx, m->ty };
}

struct vr_dmat vr_dmat_multiply(const struct vr_dmat *a,
		const struct vr_dmat *b) {
	return (struct vr_dmat){
		.a = a->a * b->a + a->c * b->b,
		.b = a->b * b->a + a->d * b->b,
		.c = a->a * b->c + a->c * b->d,
		.d = a->b * b->c + a->d * b->d,
		.tx = a->a * b->tx + a->c * b->ty + a->tx,
		.ty = a->b * b->tx + a->d * b->ty + a->ty,
	};
}

bool vr_dmat_invert(struct vr_dmat *out, const struct vr_dmat *m) {
	double det = m->a * m->d - m->b * m->c;
	if (fabs(det) < 1e-12) {
		return false;
	}
	double ia = m->d / det, ib = -m->b / det;
	double ic = -m->c / det, id = m->a / det;
	*out = (struct vr_dmat){ ia, ib, ic, id, -(ia * m->tx + ic * m->ty),
		-(ib * m->tx + id * m->ty) };
	return true;
}

pixman_fixed_t vr_to_fixed(double v) {
	return (pixman_fixed_t)llround(v * 65536.0);
}

int32_t vr_cover_start(float e) {
	return (int32_t)ceilf(e - 0.5f);
}

struct vr_box vr_quad_cover(const struct vr_draw_task *task) {
	float x0, y0, x1, y1;
	vr_mat_apply(&task->mat, 0.0f, 0.0f, &x0, &y0);
	vr_mat_apply(&task->mat, 1.0f, 1.0f, &x1, &y1);
	float lx = fminf(x0, x1), hx = fmaxf(x0, x1);
	float ly = fminf(y0, y1), hy = fmaxf(y0, y1);
	int32_t bx0 = vr_cover_start(lx), bx1 = vr_cover_start(hx);
	int32_t by0 = vr_cover_start(ly), by1 = vr_cover_start(hy);
	struct vr_box box = { bx0, by0, bx1 - bx0, by1 - by0 };
	if (vr_box_empty(&box)) {
		return (struct vr_box){ 0 };
	}
	return vr_box_intersect(&box, &task->clip);
}

pixman_image_t *vr_quad_source(const struct vr_draw_task *task, bool pinned) {
	uint32_t *pixels = NULL;
	if (task->image != NULL) {
		pixels = pinned ? task->image->data :
						  (uint32_t *)vr_image_data(task->image, NULL);
	}
	return vr_quad_source_from(task, pixels);
}

/* The quad's image transform: target pixel -> image pixel, uv o mat^-1
 * in pixman's fixed point. False when mat does not invert. */
static bool quad_transform(const struct vr_draw_task *task,
		pixman_transform_t *out) {
	struct vr_dmat mat = vr_dmat_from(&task->mat), inv;
	if (!vr_dmat_invert(&inv, &mat)) {
		return false;
	}
	struct vr_dmat uv = vr_dmat_from(&task->uv);
	struct vr_dmat m = vr_dmat_multiply(&uv, &inv);
	*out = (pixman_transform_t){ {
			{ vr_to_fixed(m.a), vr_to_fixed(m.c), vr_to_fixed(m.tx) },
			{ vr_to_fixed(m.b), vr_to_fixed(m.d), vr_to_fixed(m.ty) },
			{ 0, 0, pixman_fixed_1 },
	} };
	return true;
}

static pixman_image_t *quad_image(const struct vr_draw_task *task,
		uint32_t *pixels) {
	struct vr_image *image = task->image;
	pixman_image_t *src = pixman_image_create_bits(
			image->format == VR_FORMAT_XRGB8888 ? PIXMAN_x8r8g8b8 :
												  PIXMAN_a8r8g8b8,
			image->width, image->height, pixels, image->stride);
	if (src != NULL) {
		/* clamp to edge, like the GPU sampler */
		pixman_image_set_repeat(src, PIXMAN_REPEAT_PAD);
	}
	return src;
}

/* The quad's image through its transform, filtered as the task says. */
static pixman_image_t *quad_image_transformed(const struct vr_draw_task *task,
		uint32_t *pixels, const pixman_transform_t *transform) {
	pixman_image_t *src = quad_image(task, pixels);
	if (src == NULL) {
		return NULL;
	}
	pixman_image_set_transform(src, transform);
	pixman_image_set_filter(src,
			task->nearest ? PIXMAN_FILTER_NEAREST : PIXMAN_FILTER_BILINEAR,
			NULL, 0);
	return src;
}

/* The image pixel pixman samples for target pixel 0 along one axis of a
 * unit-scale transform with translation t: the pixel centre 0.5 + t,
 * rounded down as its nearest filter does (pixman_fixed_e below). */
static int32_t quad_offset(pixman_fixed_t t) {
	return (int32_t)(((int64_t)pixman_fixed_1 / 2 + t - pixman_fixed_e) >> 16);
}

/* Whether transform t maps target pixels to image pixels 1:1 at a
 * whole-pixel offset (*dx, *dy): unit scale, no rotation, and a
 * whole-pixel translation, or any one when filtered nearest (bilinear
 * samples one texel only where the centres land on texel centres, and
 * pixman then filters nearest itself). */
static bool quad_pixel_offset(const pixman_transform_t *t, bool nearest,
		int32_t *dx, int32_t *dy) {
	if (t->matrix[0][0] != pixman_fixed_1 ||
			t->matrix[1][1] != pixman_fixed_1 || t->matrix[0][1] != 0 ||
			t->matrix[1][0] != 0) {
		return false;
	}
	if (!nearest &&
			(pixman_fixed_frac(t->matrix[0][2]) != 0 ||
					pixman_fixed_frac(t->matrix[1][2]) != 0)) {
		return false;
	}
	*dx = quad_offset(t->matrix[0][2]);
	*dy = quad_offset(t->matrix[1][2]);
	return true;
}

pixman_image_t *vr_quad_source_at(const struct vr_draw_task *task,
		uint32_t *pixels, int32_t *sx, int32_t *sy) {
	pixman_transform_t transform;
	int32_t dx, dy;
	if (task->image == NULL) {
		return vr_quad_source_from(task, NULL);
	}
	if (!quad_transform(task, &transform)) {
		return NULL;
	}
	if (!quad_pixel_offset(&transform, task->nearest, &dx, &dy)) {
		return quad_image_transformed(task, pixels, &transform);
	}
	*sx += dx;
	*sy += dy;
	return quad_image(task, pixels);
}

pixman_image_t *vr_quad_source_from(const struct vr_draw_task *task,
		uint32_t *pixels) {
	if (task->image == NULL) {
		pixman_color_t color = {
			.red = (uint16_t)(task->r * 257),
			.green = (uint16_t)(task->g * 257),
			.blue = (uint16_t)(task->b * 257),
			.alpha = (uint16_t)(task->a * 257),
		};
		return pixman_image_create_solid_fill(&color);
	}
	pixman_transform_t transform;
	if (!quad_transform(task, &transform)) {
		return NULL;
	}
	return quad_image_transformed(task, pixels, &transform);
}
