/*
 * The pixel grid of a blurred shadow (struct vr_shadow_layout) and its
 * shape's coverage there: what the Vulkan engine (vk/engine_shadow.c) and
 * the CPU renderers share, so that all of them blur the same pixels.
 */
#include <math.h>
#include "engine_private.h"

/* Wider blurs run on a smaller frame, upsampled when composited: a blur
 * is smooth, so a sigma of 4 scratch pixels (13 taps each side) loses
 * nothing visible, and a 32 px shadow costs 1/16 of the pixels and a
 * quarter of the taps of a full-resolution one. */
#define MAX_SIGMA_PX 4.0f
_Static_assert(3 * 4 <= VR_SHADOW_MAX_RADIUS, "kernel radius");
/* Scratch images larger than this shrink the shadow's frame. */
#define MAX_SCRATCH 4096

bool vr_shadow_layout(const struct vr_shadow *shadow,
		struct vr_shadow_layout *layout) {
	const struct vr_mat *m = &shadow->state.mat;
	bool uniform = m->b == 0.0f && m->c == 0.0f && m->a > 0.0f && m->a == m->d;
	float target_scale =
			uniform ? m->a : sqrtf(fabsf(m->a * m->d - m->b * m->c));
	if (!(target_scale > 0.0f)) {
		return false;
	}
	float s = target_scale;
	if (shadow->sigma * s > MAX_SIGMA_PX) {
		s = MAX_SIGMA_PX / shadow->sigma; /* blur a smaller frame */
	}
	const struct vr_rectf *r = &shadow->rect;
	for (;;) {
		float sigma_px = shadow->sigma * s;
		int32_t radius = sigma_px >= 0.1f ? (int32_t)ceilf(3.0f * sigma_px) : 0;
		if (radius > VR_SHADOW_MAX_RADIUS) {
			radius = VR_SHADOW_MAX_RADIUS;
		}
		float margin = (float)radius + 1.0f;
		/* texel-aligned with the target: a translation and the same
		 * positive uniform scale */
		bool nearest = uniform && s == m->a;
		float tx = nearest ? m->tx : 0.0f, ty = nearest ? m->ty : 0.0f;
		float x0 = floorf(s * r->x + tx - margin);
		float y0 = floorf(s * r->y + ty - margin);
		float x1 = ceilf(s * (r->x + r->width) + tx + margin);
		float y1 = ceilf(s * (r->y + r->height) + ty + margin);
		*layout = (struct vr_shadow_layout){
			.scale = s,
			.sigma_px = sigma_px,
			.radius = radius,
			.origin = { x0 - tx, y0 - ty },
			.width = (int32_t)(x1 - x0),
			.height = (int32_t)(y1 - y0),
			.nearest = nearest,
		};
		if (layout->width <= MAX_SCRATCH && layout->height <= MAX_SCRATCH) {
			break;
		}
		s *= 0.5f;
	}
	/* scratch pixels -> frame (/ s -> primitive) -> target */
	struct vr_mat from_scratch = { .a = 1.0f / s,
		.d = 1.0f / s,
		.tx = layout->origin[0] / s,
		.ty = layout->origin[1] / s };
	vr_mat_multiply(&layout->to_target, m, &from_scratch);
	return layout->width > 0 && layout->height > 0;
}

/* The rounded rectangle in scratch pixels: centre, half size, radii. */
void vr_shadow_shape_in_scratch(const struct vr_shadow *shadow,
		const struct vr_shadow_layout *layout, float c[2], float h[2],
		float radii[4]) {
	float s = layout->scale;
	const struct vr_rectf *r = &shadow->rect;
	h[0] = r->width * s / 2.0f;
	h[1] = r->height * s / 2.0f;
	c[0] = r->x * s + h[0] - layout->origin[0];
	c[1] = r->y * s + h[1] - layout->origin[1];
	radii[0] = shadow->radii.tl * s;
	radii[1] = shadow->radii.tr * s;
	radii[2] = shadow->radii.br * s;
	radii[3] = shadow->radii.bl * s;
}

float vr_shadow_shape_coverage(const struct vr_shadow *shadow,
		const struct vr_shadow_layout *layout, float x, float y) {
	float c[2], h[2], radii[4];
	vr_shadow_shape_in_scratch(shadow, layout, c, h, radii);
	float d = vr_sdf_rrect(x - c[0], y - c[1], h[0], h[1], radii);
	return vr_clampf(0.5f - d, 0.0f, 1.0f);
}
