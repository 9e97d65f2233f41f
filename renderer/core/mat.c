#include <math.h>
#include "render_private.h"

/* Tolerance for float noise when snapping mapped coordinates to pixels
 * (a rotation by 90 degrees through cosf/sinf leaves ~1e-7 residues). */
#define SNAP_EPSILON 1e-3f

void vr_mat_identity(struct vr_mat *m) {
	*m = (struct vr_mat){ .a = 1.0f, .d = 1.0f };
}

void vr_mat_translate(struct vr_mat *m, float x, float y) {
	*m = (struct vr_mat){ .a = 1.0f, .d = 1.0f, .tx = x, .ty = y };
}

void vr_mat_multiply(struct vr_mat *out, const struct vr_mat *a,
		const struct vr_mat *b) {
	struct vr_mat r = {
		.a = a->a * b->a + a->c * b->b,
		.b = a->b * b->a + a->d * b->b,
		.c = a->a * b->c + a->c * b->d,
		.d = a->b * b->c + a->d * b->d,
		.tx = a->a * b->tx + a->c * b->ty + a->tx,
		.ty = a->b * b->tx + a->d * b->ty + a->ty,
	};
	*out = r;
}

void vr_mat_apply(const struct vr_mat *m, float x, float y, float *ox,
		float *oy) {
	float rx = m->a * x + m->c * y + m->tx;
	float ry = m->b * x + m->d * y + m->ty;
	*ox = rx;
	*oy = ry;
}

bool vr_mat_invert(struct vr_mat *out, const struct vr_mat *m) {
	double det = (double)m->a * m->d - (double)m->b * m->c;
	if (fabs(det) < 1e-12) {
		return false;
	}
	double ia = m->d / det, ib = -m->b / det;
	double ic = -m->c / det, id = m->a / det;
	struct vr_mat r = {
		.a = (float)ia,
		.b = (float)ib,
		.c = (float)ic,
		.d = (float)id,
		.tx = (float)(-(ia * m->tx + ic * m->ty)),
		.ty = (float)(-(ib * m->tx + id * m->ty)),
	};
	*out = r;
	return true;
}

struct vr_box vr_mat_map_rect_bounds(const struct vr_mat *m,
		const struct vr_rectf *r) {
	if (!(r->width > 0.0f) || !(r->height > 0.0f)) {
		return (struct vr_box){ 0 };
	}
	const float xs[4] = { r->x, r->x + r->width, r->x, r->x + r->width };
	const float ys[4] = { r->y, r->y, r->y + r->height, r->y + r->height };
	float x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
	for (int i = 0; i < 4; i++) {
		float x, y;
		vr_mat_apply(m, xs[i], ys[i], &x, &y);
		x0 = fminf(x0, x);
		y0 = fminf(y0, y);
		x1 = fmaxf(x1, x);
		y1 = fmaxf(y1, y);
	}
	if (!isfinite(x0) || !isfinite(y0) || !isfinite(x1) || !isfinite(y1)) {
		return (struct vr_box){ 0 };
	}
	int32_t bx0 = (int32_t)floorf(x0 + SNAP_EPSILON);
	int32_t by0 = (int32_t)floorf(y0 + SNAP_EPSILON);
	int32_t bx1 = (int32_t)ceilf(x1 - SNAP_EPSILON);
	int32_t by1 = (int32_t)ceilf(y1 - SNAP_EPSILON);
	if (bx1 <= bx0 || by1 <= by0) {
		return (struct vr_box){ 0 };
	}
	return (struct vr_box){ bx0, by0, bx1 - bx0, by1 - by0 };
}

static bool near_integer(float v) {
	return fabsf(v - roundf(v)) < 1e-4f;
}

bool vr_mat_is_integer_translation(const struct vr_mat *m) {
	return fabsf(m->a - 1.0f) < 1e-6f && fabsf(m->d - 1.0f) < 1e-6f &&
			fabsf(m->b) < 1e-6f && fabsf(m->c) < 1e-6f && near_integer(m->tx) &&
			near_integer(m->ty);
}

bool vr_mat_equal(const struct vr_mat *a, const struct vr_mat *b) {
	return a->a == b->a && a->b == b->b && a->c == b->c && a->d == b->d &&
			a->tx == b->tx && a->ty == b->ty;
}

struct vr_box vr_box_intersect(const struct vr_box *a, const struct vr_box *b) {
	if (vr_box_empty(a) || vr_box_empty(b)) {
		return (struct vr_box){ 0 };
	}
	int32_t x0 = a->x > b->x ? a->x : b->x;
	int32_t y0 = a->y > b->y ? a->y : b->y;
	int32_t ax1 = a->x + a->width, bx1 = b->x + b->width;
	int32_t ay1 = a->y + a->height, by1 = b->y + b->height;
	int32_t x1 = ax1 < bx1 ? ax1 : bx1;
	int32_t y1 = ay1 < by1 ? ay1 : by1;
	if (x1 <= x0 || y1 <= y0) {
		return (struct vr_box){ 0 };
	}
	return (struct vr_box){ x0, y0, x1 - x0, y1 - y0 };
}

struct vr_box vr_box_union(const struct vr_box *a, const struct vr_box *b) {
	if (vr_box_empty(a)) {
		return vr_box_empty(b) ? (struct vr_box){ 0 } : *b;
	}
	if (vr_box_empty(b)) {
		return *a;
	}
	int32_t x0 = a->x < b->x ? a->x : b->x;
	int32_t y0 = a->y < b->y ? a->y : b->y;
	int32_t ax1 = a->x + a->width, bx1 = b->x + b->width;
	int32_t ay1 = a->y + a->height, by1 = b->y + b->height;
	int32_t x1 = ax1 > bx1 ? ax1 : bx1;
	int32_t y1 = ay1 > by1 ? ay1 : by1;
	return (struct vr_box){ x0, y0, x1 - x0, y1 - y0 };
}

bool vr_box_equal(const struct vr_box *a, const struct vr_box *b) {
	if (vr_box_empty(a) || vr_box_empty(b)) {
		return vr_box_empty(a) == vr_box_empty(b);
	}
	return a->x == b->x && a->y == b->y && a->width == b->width &&
			a->height == b->height;
}
