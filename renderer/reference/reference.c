/*
 * The pixman reference renderer: the oracle of the render tests. It runs
 * the same preparation as the Vulkan renderer (prepare.c: the same tasks,
 * batches and absolute state) and draws every task on the CPU, all pixels:
 *
 * - quads (rects, images): pixman, as before. Coverage follows the GPU
 *   rasteriser: a pixel is covered when its centre lies in the quad
 *   (top-left rule on edges). Axis-aligned quads (every scale/translation
 *   and quarter-turn) are exact; other rotations use an aliased a1 mask
 *   from pixman's rasteriser and may differ on edge pixels.
 * - shapes: the shaders' signed distance functions (their C twins in
 *   engine_common.c) at every pixel centre.
 * - strokes and paths: the engine's own tessellation, rasterised here
 *   (pixel centres, top-left rule, vertices snapped to 1/256 pixel as
 *   lavapipe does), the fringe distances interpolated per pixel.
 * - text: FreeType's bitmaps (the atlas holds the same), 1:1 or sampled
 *   bilinearly when transformed.
 * - shadows: the shape's coverage, two Gaussian passes and the composite,
 *   rounding to 8 bits between them as the scratch images do.
 * - layers (group opacity): the sub-tasks into a transparent 8-bit image
 *   of the layer's box, composited texel for pixel times the opacity.
 *
 * Blending is premultiplied "over" in floats, rounded once to 8 bits, as
 * the GPU's UNORM blending does.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "engine_private.h"

/* An a1 mask of the quad over task->aabb, or NULL on failure. */
static pixman_image_t *quad_mask(const struct vr_draw_task *task) {
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
		p[i].x = vr_to_fixed((double)x - box->x);
		p[i].y = vr_to_fixed((double)y - box->y);
	}
	pixman_triangle_t tris[2] = {
		{ p[0], p[1], p[2] },
		{ p[1], p[3], p[2] },
	};
	pixman_add_triangles(mask, 0, 0, 2, tris);
	return mask;
}

/* The opacity times the rounded clips' coverage over task->aabb (a8). */
static pixman_image_t *rclip_mask(const struct vr_draw_task *task) {
	const struct vr_box *box = &task->aabb;
	pixman_image_t *mask = pixman_image_create_bits(PIXMAN_a8, box->width,
			box->height, NULL, 0);
	if (mask == NULL) {
		return NULL;
	}
	struct vr_vertex_clip clip;
	vr_vertex_clip_set(&clip, box, task->rclips, task->nrclips);
	uint8_t *data = (uint8_t *)pixman_image_get_data(mask);
	int stride = pixman_image_get_stride(mask);
	float alpha = task->image != NULL ? (float)task->a / 255.0f : 1.0f;
	for (int32_t y = 0; y < box->height; y++) {
		for (int32_t x = 0; x < box->width; x++) {
			float c = vr_clip_coverage(&clip, (float)(box->x + x) + 0.5f,
					(float)(box->y + y) + 0.5f);
			data[(size_t)y * (size_t)stride + (size_t)x] =
					(uint8_t)lroundf(c * alpha * 255.0f);
		}
	}
	return mask;
}

static void draw_task(pixman_image_t *dst, const struct vr_draw_task *task) {
	pixman_image_t *src = vr_quad_source(task, false);
	if (src == NULL) {
		vr_log(VR_LOG_ERROR, "reference: cannot build a source");
		return;
	}
	pixman_image_t *opacity = NULL;
	if (task->nrclips > 0) {
		opacity = rclip_mask(task);
	} else if (task->image != NULL && task->a < 255) {
		pixman_color_t color = { .alpha = (uint16_t)(task->a * 257) };
		opacity = pixman_image_create_solid_fill(&color);
	}

	if (task->axis_aligned) {
		struct vr_box box = vr_quad_cover(task);
		/* a rounded clip's mask covers the aabb */
		int32_t mx = task->nrclips > 0 ? box.x - task->aabb.x : 0;
		int32_t my = task->nrclips > 0 ? box.y - task->aabb.y : 0;
		if (!vr_box_empty(&box)) {
			pixman_image_composite32(PIXMAN_OP_OVER, src, opacity, dst, box.x,
					box.y, mx, my, box.x, box.y, box.width, box.height);
		}
	} else {
		/* (src IN opacity) composited through the aliased quad mask,
		 * restricted to the clip (the aabb is inside it) */
		const struct vr_box *box = &task->aabb;
		pixman_image_t *mask = quad_mask(task);
		pixman_image_t *tmp = pixman_image_create_bits(PIXMAN_a8r8g8b8,
				box->width, box->height, NULL, 0);
		if (mask != NULL && tmp != NULL) {
			pixman_image_composite32(PIXMAN_OP_SRC, src, opacity, tmp, box->x,
					box->y, 0, 0, 0, 0, box->width, box->height);
			pixman_image_composite32(PIXMAN_OP_OVER, tmp, mask, dst, 0, 0, 0, 0,
					box->x, box->y, box->width, box->height);
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

/* ---- float blending ----------------------------------------------------- */

struct canvas_px {
	uint32_t *data;
	int32_t stride; /* in pixels */
	struct vr_box scissor; /* the task's AABB */
};

static uint8_t unorm8(float v) {
	return (uint8_t)lroundf(vr_clampf(v, 0.0f, 1.0f) * 255.0f);
}

/* dst = src * coverage over dst; src premultiplied. */
static void blend(struct canvas_px *px, int32_t x, int32_t y,
		const float src[4], float coverage) {
	const struct vr_box *s = &px->scissor;
	if (coverage <= 0.0f || x < s->x || y < s->y || x >= s->x + s->width ||
			y >= s->y + s->height) {
		return;
	}
	uint32_t *p = &px->data[(size_t)y * (size_t)px->stride + (size_t)x];
	float a = src[3] * coverage;
	float d[4] = {
		(float)((*p >> 16) & 0xff) / 255.0f,
		(float)((*p >> 8) & 0xff) / 255.0f,
		(float)(*p & 0xff) / 255.0f,
		(float)(*p >> 24) / 255.0f,
	};
	uint8_t r = unorm8(src[0] * coverage + d[0] * (1.0f - a));
	uint8_t g = unorm8(src[1] * coverage + d[1] * (1.0f - a));
	uint8_t b = unorm8(src[2] * coverage + d[2] * (1.0f - a));
	uint8_t al = unorm8(a + d[3] * (1.0f - a));
	*p = (uint32_t)al << 24 | (uint32_t)r << 16 | (uint32_t)g << 8 | b;
}

/* ---- shapes ------------------------------------------------------------- */

static void draw_shape(struct canvas_px *px, const struct vr_shape *shape) {
	struct vr_mat inv;
	if (!vr_mat_invert(&inv, &shape->state.mat)) {
		return;
	}
	struct vr_shape_vertex v;
	vr_shape_vertex_init(shape, &v);
	float cx = shape->rect.x + v.half[0], cy = shape->rect.y + v.half[1];
	const struct vr_box *box = &px->scissor;
	for (int32_t y = box->y; y < box->y + box->height; y++) {
		for (int32_t x = box->x; x < box->x + box->width; x++) {
			float fx = (float)x + 0.5f, fy = (float)y + 0.5f;
			float lx, ly;
			vr_mat_apply(&inv, fx, fy, &lx, &ly);
			v.local[0] = lx - cx;
			v.local[1] = ly - cy;
			float c = vr_shape_coverage(&v) * vr_clip_coverage(&v.clip, fx, fy);
			blend(px, x, y, v.color, c);
		}
	}
}

/* ---- triangles ---------------------------------------------------------- */

static double snap(float v) {
	return round((double)v * 256.0) / 256.0;
}

static bool top_left(double ax, double ay, double bx, double by) {
	return by < ay || (by == ay && bx > ax);
}

/* Calls fn for each pixel whose centre the triangle covers, with the
 * barycentric weights of a, b, c. */
static void raster_triangle(struct canvas_px *px, const float *a,
		const float *b, const float *c,
		void (*fn)(struct canvas_px *px, int32_t x, int32_t y,
				const double w[3], void *data),
		void *data) {
	double p[3][2] = {
		{ snap(a[0]), snap(a[1]) },
		{ snap(b[0]), snap(b[1]) },
		{ snap(c[0]), snap(c[1]) },
	};
	int order[3] = { 0, 1, 2 };
	double area = (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) -
			(p[1][1] - p[0][1]) * (p[2][0] - p[0][0]);
	if (area == 0.0) {
		return;
	}
	if (area < 0.0) {
		order[1] = 2;
		order[2] = 1;
		area = -area;
	}
	const float *f[3] = { a, b, c };
	double x0 = fmin(p[0][0], fmin(p[1][0], p[2][0]));
	double x1 = fmax(p[0][0], fmax(p[1][0], p[2][0]));
	double y0 = fmin(p[0][1], fmin(p[1][1], p[2][1]));
	double y1 = fmax(p[0][1], fmax(p[1][1], p[2][1]));
	const struct vr_box *s = &px->scissor;
	int32_t ix0 = (int32_t)fmax(floor(x0), s->x);
	int32_t ix1 = (int32_t)fmin(ceil(x1), s->x + s->width);
	int32_t iy0 = (int32_t)fmax(floor(y0), s->y);
	int32_t iy1 = (int32_t)fmin(ceil(y1), s->y + s->height);
	/* interpolation from the unsnapped positions */
	double fa = ((double)f[1][0] - f[0][0]) * ((double)f[2][1] - f[0][1]) -
			((double)f[1][1] - f[0][1]) * ((double)f[2][0] - f[0][0]);
	for (int32_t y = iy0; y < iy1; y++) {
		for (int32_t x = ix0; x < ix1; x++) {
			double cxp = x + 0.5, cyp = y + 0.5;
			bool inside = true;
			for (int e = 0; e < 3 && inside; e++) {
				const double *ea = p[order[e]], *eb = p[order[(e + 1) % 3]];
				double ev = (eb[0] - ea[0]) * (cyp - ea[1]) -
						(eb[1] - ea[1]) * (cxp - ea[0]);
				inside = ev > 0.0 ||
						(ev == 0.0 && top_left(ea[0], ea[1], eb[0], eb[1]));
			}
			if (!inside || fa == 0.0) {
				continue;
			}
			double w[3];
			for (int k = 0; k < 3; k++) {
				const float *u = f[(k + 1) % 3], *v = f[(k + 2) % 3];
				w[k] = (((double)v[0] - u[0]) * (cyp - u[1]) -
							   ((double)v[1] - u[1]) * (cxp - u[0])) /
						fa;
			}
			fn(px, x, y, w, data);
		}
	}
}

static void tri_pixel(struct canvas_px *px, int32_t x, int32_t y,
		const double w[3], void *data) {
	const struct vr_tri_vertex *v = data;
	struct vr_tri_vertex at = v[0]; /* flat attributes: the first */
	for (int i = 0; i < 3; i++) {
		at.aa[i] = (float)(w[0] * v[0].aa[i] + w[1] * v[1].aa[i] +
				w[2] * v[2].aa[i]);
	}
	float c = vr_tri_coverage(&at) *
			vr_clip_coverage(&at.clip, (float)x + 0.5f, (float)y + 0.5f);
	blend(px, x, y, at.color, c);
}

static void draw_geometry(struct canvas_px *px,
		const struct vr_geometry *geometry) {
	struct vr_tri_vertex *v;
	size_t count;
	if (!vr_geometry_tessellate(geometry, &v, &count)) {
		vr_log(VR_LOG_ERROR, "reference: tessellation failed");
		return;
	}
	for (size_t i = 0; i + 2 < count; i += 3) {
		raster_triangle(px, v[i].pos, v[i + 1].pos, v[i + 2].pos, tri_pixel,
				&v[i]);
	}
	free(v);
}

/* ---- textured quads ----------------------------------------------------- */

/* An 8-bit coverage image sampled like the GPU samples a texture whose
 * texels are premultiplied white. */
struct texture {
	const uint8_t *data;
	int32_t width, height, stride;
	bool clamp; /* clamp to edge, else zero outside */
};

static float texel(const struct texture *t, int32_t x, int32_t y) {
	if (t->clamp) {
		x = x < 0 ? 0 : x >= t->width ? t->width - 1 : x;
		y = y < 0 ? 0 : y >= t->height ? t->height - 1 : y;
	} else if (x < 0 || y < 0 || x >= t->width || y >= t->height) {
		return 0.0f;
	}
	return (float)t->data[(size_t)y * (size_t)t->stride + (size_t)x] / 255.0f;
}

static float sample_bilinear(const struct texture *t, float u, float v) {
	float x = u * (float)t->width - 0.5f, y = v * (float)t->height - 0.5f;
	float fx = floorf(x), fy = floorf(y);
	float ax = x - fx, ay = y - fy;
	int32_t ix = (int32_t)fx, iy = (int32_t)fy;
	return (texel(t, ix, iy) * (1 - ax) + texel(t, ix + 1, iy) * ax) *
			(1 - ay) +
			(texel(t, ix, iy + 1) * (1 - ax) + texel(t, ix + 1, iy + 1) * ax) *
			ay;
}

struct tex_quad {
	const struct texture *texture;
	const struct vr_tex_vertex *v; /* 3 */
};

static void tex_pixel(struct canvas_px *px, int32_t x, int32_t y,
		const double w[3], void *data) {
	const struct tex_quad *q = data;
	const struct vr_tex_vertex *v = q->v;
	float uv[2];
	for (int i = 0; i < 2; i++) {
		uv[i] = (float)(w[0] * v[0].uv[i] + w[1] * v[1].uv[i] +
				w[2] * v[2].uv[i]);
	}
	float c = sample_bilinear(q->texture, uv[0], uv[1]) *
			vr_clip_coverage(&v[0].clip, (float)x + 0.5f, (float)y + 0.5f);
	blend(px, x, y, v[0].color, c);
}

/* The quad with corners tl, tr, bl, br (target pixels) showing all of
 * texture, sampled bilinearly. */
static void draw_tex_quad(struct canvas_px *px, const struct texture *texture,
		const float corners[4][2], const struct vr_prim_state *state) {
	struct vr_tex_vertex v[4] = { 0 };
	for (int i = 0; i < 4; i++) {
		v[i].pos[0] = corners[i][0];
		v[i].pos[1] = corners[i][1];
		v[i].uv[0] = (i & 1) ? 1.0f : 0.0f;
		v[i].uv[1] = (i & 2) ? 1.0f : 0.0f;
		memcpy(v[i].color, state->color, sizeof(v[i].color));
		vr_vertex_clip_init(&v[i].clip, state);
	}
	struct vr_tex_vertex t0[3] = { v[0], v[1], v[2] };
	struct vr_tex_vertex t1[3] = { v[1], v[3], v[2] };
	struct tex_quad q0 = { texture, t0 }, q1 = { texture, t1 };
	raster_triangle(px, t0[0].pos, t0[1].pos, t0[2].pos, tex_pixel, &q0);
	raster_triangle(px, t1[0].pos, t1[1].pos, t1[2].pos, tex_pixel, &q1);
}

/* A coverage image placed 1:1 with its top-left pixel at (x0, y0). */
static void draw_tex_exact(struct canvas_px *px, const struct texture *t,
		int32_t x0, int32_t y0, const struct vr_prim_state *state) {
	struct vr_vertex_clip clip;
	vr_vertex_clip_init(&clip, state);
	for (int32_t y = 0; y < t->height; y++) {
		for (int32_t x = 0; x < t->width; x++) {
			float fx = (float)(x0 + x) + 0.5f, fy = (float)(y0 + y) + 0.5f;
			float c = texel(t, x, y) * vr_clip_coverage(&clip, fx, fy);
			blend(px, x0 + x, y0 + y, state->color, c);
		}
	}
}

/* ---- glyphs ------------------------------------------------------------- */

static void draw_run(struct canvas_px *px, const struct vr_glyph_run *run) {
	float size_px = roundf(vr_glyph_run_pixel_size(run) * 64.0f) / 64.0f;
	for (uint32_t i = 0; i < run->text->count; i++) {
		struct vr_glyph_bitmap bitmap;
		if (!vr_font_face_rasterize(run->text->face, run->text->glyphs[i],
					size_px, &bitmap) ||
				bitmap.width == 0) {
			continue;
		}
		struct texture t = {
			.data = bitmap.coverage,
			.width = bitmap.width,
			.height = bitmap.height,
			.stride = bitmap.width,
		};
		float corners[4][2];
		vr_glyph_quad(run, i, bitmap.left, bitmap.top, bitmap.width,
				bitmap.height, corners);
		if (run->nearest) {
			draw_tex_exact(px, &t, (int32_t)corners[0][0],
					(int32_t)corners[0][1], &run->state);
		} else {
			draw_tex_quad(px, &t, corners, &run->state);
		}
		free(bitmap.coverage);
	}
}

/* ---- shadows ------------------------------------------------------------ */

static void blur_pass(const uint8_t *src, uint8_t *dst, int32_t w, int32_t h,
		int dx, int dy, int32_t radius, float sigma) {
	for (int32_t y = 0; y < h; y++) {
		for (int32_t x = 0; x < w; x++) {
			/* blur.frag's loop, its normalisation at the end */
			float norm = 0.0f, sum = 0.0f;
			for (int32_t i = -radius; i <= radius; i++) {
				float wi = expf(-(float)(i * i) / (2.0f * sigma * sigma));
				norm += wi;
				int32_t qx = x + dx * i, qy = y + dy * i;
				if (qx >= 0 && qy >= 0 && qx < w && qy < h) {
					sum += wi *
							(float)src[(size_t)qy * (size_t)w + (size_t)qx] /
							255.0f;
				}
			}
			dst[(size_t)y * (size_t)w + (size_t)x] = unorm8(sum / norm);
		}
	}
}

static void draw_shadow(struct canvas_px *px, const struct vr_shadow *shadow) {
	struct vr_shadow_layout layout;
	if (!vr_shadow_layout(shadow, &layout)) {
		return;
	}
	size_t n = (size_t)layout.width * (size_t)layout.height;
	uint8_t *a = malloc(n), *b = malloc(n);
	if (a == NULL || b == NULL) {
		vr_log(VR_LOG_ERROR, "reference: allocation failed");
		goto out;
	}
	for (int32_t y = 0; y < layout.height; y++) {
		for (int32_t x = 0; x < layout.width; x++) {
			a[(size_t)y * (size_t)layout.width + (size_t)x] =
					unorm8(vr_shadow_shape_coverage(shadow, &layout,
							(float)x + 0.5f, (float)y + 0.5f));
		}
	}
	if (layout.radius > 0) {
		blur_pass(a, b, layout.width, layout.height, 1, 0, layout.radius,
				layout.sigma_px);
		blur_pass(b, a, layout.width, layout.height, 0, 1, layout.radius,
				layout.sigma_px);
	}
	struct texture t = {
		.data = a,
		.width = layout.width,
		.height = layout.height,
		.stride = layout.width,
		.clamp = true,
	};
	if (layout.nearest) {
		draw_tex_exact(px, &t, (int32_t)lroundf(layout.to_target.tx),
				(int32_t)lroundf(layout.to_target.ty), &shadow->state);
	} else {
		float corners[4][2];
		for (int i = 0; i < 4; i++) {
			vr_mat_apply(&layout.to_target,
					(i & 1) ? (float)layout.width : 0.0f,
					(i & 2) ? (float)layout.height : 0.0f, &corners[i][0],
					&corners[i][1]);
		}
		draw_tex_quad(px, &t, corners, &shadow->state);
	}
out:
	free(a);
	free(b);
}

/* ---- tasks -------------------------------------------------------------- */

struct reference_ctx {
	pixman_image_t *dst;
	void **allocations;
	size_t nallocations, allocations_cap;
};

static void *reference_alloc(void *data, size_t size) {
	struct reference_ctx *ctx = data;
	if (!vr_grow((void **)&ctx->allocations, &ctx->allocations_cap,
				ctx->nallocations + 1, sizeof(void *))) {
		return NULL;
	}
	void *p = calloc(1, size);
	if (p == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return NULL;
	}
	ctx->allocations[ctx->nallocations++] = p;
	return p;
}

static bool reference_push(void *data, const struct vr_task *task);

/* Group opacity: the sub-tasks into a transparent 8-bit image of the
 * layer's bounds (as the scratch image), then its box over the target,
 * texel for pixel, times the opacity (as tex.frag and the blend do). */
static void draw_layer(struct canvas_px *px, const struct vr_layer *layer) {
	const struct vr_box *box = &layer->box, *bounds = &layer->bounds;
	pixman_image_t *tmp = pixman_image_create_bits(PIXMAN_a8r8g8b8,
			bounds->width, bounds->height, NULL, 0);
	if (tmp == NULL) {
		vr_log(VR_LOG_ERROR, "reference: allocation failed");
		return;
	}
	struct reference_ctx sub = { .dst = tmp };
	for (uint32_t i = 0; i < layer->ntasks; i++) {
		reference_push(&sub, &layer->tasks[i]);
	}
	const uint32_t *data = pixman_image_get_data(tmp);
	int32_t stride = pixman_image_get_stride(tmp) / 4;
	float alpha = (float)layer->alpha / 255.0f;
	for (int32_t y = 0; y < box->height; y++) {
		for (int32_t x = 0; x < box->width; x++) {
			uint32_t p =
					data[(size_t)(box->y - bounds->y + y) * (size_t)stride +
							(size_t)(box->x - bounds->x + x)];
			if (p == 0) {
				continue;
			}
			const float src[4] = {
				(float)((p >> 16) & 0xff) / 255.0f * alpha,
				(float)((p >> 8) & 0xff) / 255.0f * alpha,
				(float)(p & 0xff) / 255.0f * alpha,
				(float)(p >> 24) / 255.0f * alpha,
			};
			blend(px, box->x + x, box->y + y, src, 1.0f);
		}
	}
	pixman_image_unref(tmp);
}

/* Draws each task as it comes: the chain order is the drawing order. */
static bool reference_push(void *data, const struct vr_task *task) {
	struct reference_ctx *ctx = data;
	const struct vr_task_payload *payload = task->payload;
	struct canvas_px px = {
		.data = pixman_image_get_data(ctx->dst),
		.stride = pixman_image_get_stride(ctx->dst) / 4,
		.scissor = task->aabb,
	};
	for (uint32_t i = 0; i < payload->count; i++) {
		switch (task->kind) {
		case VR_TASK_QUADS: draw_task(ctx->dst, &payload->quads[i]); break;
		case VR_TASK_SHAPES: draw_shape(&px, &payload->shapes[i]); break;
		case VR_TASK_TRIANGLES:
			draw_geometry(&px, &payload->geometries[i]);
			break;
		case VR_TASK_GLYPHS: draw_run(&px, &payload->runs[i]); break;
		case VR_TASK_SHADOW: draw_shadow(&px, &payload->shadows[i]); break;
		case VR_TASK_LAYER: draw_layer(&px, &payload->layers[i]); break;
		case VR_TASK_KIND_COUNT: break;
		}
	}
	return true;
}

/* Past this many rectangles a region is drawn as its extents. */
#define REGION_MAX_RECTS 16

static void render_box(struct vr_tree *tree, pixman_image_t *dst,
		const struct vr_mat *view, const pixman_color_t *clear,
		const struct vr_box *box) {
	pixman_box32_t fill = { box->x, box->y, box->x + box->width,
		box->y + box->height };
	pixman_image_fill_boxes(PIXMAN_OP_SRC, dst, clear, 1, &fill);
	/* an axis-aligned quad covers its whole clip (its aabb is cut to
	 * the extents, its cover is not): composite inside the box only */
	pixman_region32_t clip;
	pixman_region32_init_rect(&clip, box->x, box->y, (unsigned)box->width,
			(unsigned)box->height);
	pixman_image_set_clip_region32(dst, &clip);

	struct reference_ctx ctx = { .dst = dst };
	const struct vr_task_sink sink = {
		.alloc = reference_alloc,
		.push = reference_push,
		.data = &ctx,
	};
	/* tasks are cut to the extents: drawing stays inside the box */
	const struct vr_prepare_job job = {
		.index = 0,
		.view = *view,
		.target = { 0, 0, pixman_image_get_width(dst),
				pixman_image_get_height(dst) },
		.extents = *box,
	};
	if (!vr_prepare_tasks(&sink, tree, &job, NULL)) {
		vr_log(VR_LOG_ERROR, "reference: preparation failed");
	}
	pixman_image_set_clip_region32(dst, NULL);
	pixman_region32_fini(&clip);
	for (size_t i = 0; i < ctx.nallocations; i++) {
		free(ctx.allocations[i]);
	}
	free(ctx.allocations);
}

void vr_reference_render_region(struct vr_tree *tree, pixman_image_t *dst,
		const struct vr_mat *view, struct vr_color clear,
		const pixman_region32_t *region) {
	struct vr_box target = { 0, 0, pixman_image_get_width(dst),
		pixman_image_get_height(dst) };
	uint8_t r, g, b, a;
	vr_color_premultiply8(&clear, 1.0f, &r, &g, &b, &a);
	pixman_color_t color = { (uint16_t)(r * 257), (uint16_t)(g * 257),
		(uint16_t)(b * 257), (uint16_t)(a * 257) };
	/* preparation may reset the shared glyph atlas: no renderer's tasks
	 * may run (a parallel frame submitted just before) */
	vr_cpu_stages_wait_idle();
	if (region == NULL) {
		render_box(tree, dst, view, &color, &target);
		return;
	}
	pixman_region32_t clipped;
	pixman_region32_init(&clipped);
	pixman_region32_intersect_rect(&clipped, (pixman_region32_t *)region, 0, 0,
			(unsigned)target.width, (unsigned)target.height);
	int nrects;
	const pixman_box32_t *rects = pixman_region32_rectangles(&clipped, &nrects);
	if (nrects > REGION_MAX_RECTS) {
		rects = pixman_region32_extents(&clipped);
		nrects = 1;
	}
	for (int i = 0; i < nrects; i++) {
		struct vr_box box = { rects[i].x1, rects[i].y1,
			rects[i].x2 - rects[i].x1, rects[i].y2 - rects[i].y1 };
		render_box(tree, dst, view, &color, &box);
	}
	pixman_region32_fini(&clipped);
}

void vr_reference_render(struct vr_tree *tree, pixman_image_t *dst,
		const struct vr_mat *view, struct vr_color clear) {
	vr_reference_render_region(tree, dst, view, clear, NULL);
}
