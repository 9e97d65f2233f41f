/*
 * VR_TASK_SHAPES: rectangles, rounded rectangles (per-corner radii) and
 * ellipses, filled or stroked, anti-aliased analytically: each shape is
 * one quad (two triangles) a pixel larger than the shape, and the
 * fragment shader evaluates its signed distance function (shape.frag):
 * coverage = clamp(0.5 - distance in pixels). A stroke is |d| - width / 2.
 * A whole batch is one draw.
 */
#include <math.h>
#include <stddef.h>
#include "engine_kinds.h"
#include "engine_private.h"
#include "shader_interface.h"
#include "shape_frag.h" /* needs <stdint.h> */
#include "shape_frag_rclip.h"
#include "shape_vert.h"
#include "shape_vert_rclip.h"

#define ATTR(loc, format, field) \
	{ (loc), 0, (format), offsetof(struct vr_shape_vertex, field) }

static const VkVertexInputAttributeDescription shape_attributes[] = {
	ATTR(VR_SHAPE_LOC_POS, VK_FORMAT_R32G32_SFLOAT, pos),
	ATTR(VR_SHAPE_LOC_LOCAL, VK_FORMAT_R32G32_SFLOAT, local),
	ATTR(VR_SHAPE_LOC_HALF, VK_FORMAT_R32G32_SFLOAT, half),
	ATTR(VR_SHAPE_LOC_PARAMS, VK_FORMAT_R32G32B32A32_SFLOAT, params),
	ATTR(VR_SHAPE_LOC_RADII, VK_FORMAT_R32G32B32A32_SFLOAT, radii),
	ATTR(VR_SHAPE_LOC_COLOR, VK_FORMAT_R32G32B32A32_SFLOAT, color),
	ATTR(VR_SHAPE_LOC_CLIP + 0, VK_FORMAT_R32G32B32A32_SFLOAT, clip.clip),
	ATTR(VR_SHAPE_LOC_CLIP + 1, VK_FORMAT_R32G32B32A32_SFLOAT,
			clip.rclips[0].x),
	ATTR(VR_SHAPE_LOC_CLIP + 2, VK_FORMAT_R32G32B32A32_SFLOAT,
			clip.rclips[0].y),
	ATTR(VR_SHAPE_LOC_CLIP + 3, VK_FORMAT_R32G32B32A32_SFLOAT,
			clip.rclips[0].radii),
	ATTR(VR_SHAPE_LOC_CLIP + 4, VK_FORMAT_R32G32B32A32_SFLOAT,
			clip.rclips[1].x),
	ATTR(VR_SHAPE_LOC_CLIP + 5, VK_FORMAT_R32G32B32A32_SFLOAT,
			clip.rclips[1].y),
	ATTR(VR_SHAPE_LOC_CLIP + 6, VK_FORMAT_R32G32B32A32_SFLOAT,
			clip.rclips[1].radii),
};

/* Without rounded clips: the attributes and vertex bytes before them. */
const struct vr_pipeline_desc vr_shape_pipeline = {
	.key = VR_PIPELINE_SHAPES,
	.vert_spv = shape_vert_spv,
	.vert_size = sizeof(shape_vert_spv),
	.frag_spv = shape_frag_spv,
	.frag_size = sizeof(shape_frag_spv),
	.vertex_stride = offsetof(struct vr_shape_vertex, clip.rclips),
	.attributes = shape_attributes,
	.attribute_count = VR_SHAPE_LOC_CLIP + 1,
	.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
};

const struct vr_pipeline_desc vr_shape_rclip_pipeline = {
	.key = VR_PIPELINE_SHAPES_RCLIP,
	.vert_spv = shape_vert_rclip_spv,
	.vert_size = sizeof(shape_vert_rclip_spv),
	.frag_spv = shape_frag_rclip_spv,
	.frag_size = sizeof(shape_frag_rclip_spv),
	.vertex_stride = sizeof(struct vr_shape_vertex),
	.attributes = shape_attributes,
	.attribute_count = sizeof(shape_attributes) / sizeof(shape_attributes[0]),
	.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
};

/* Six vertices: the shape's rectangle grown by half the stroke and one
 * pixel (in the shape's coordinates), mapped to target pixels. */
static void shape_quad(const struct vr_shape *shape,
		struct vr_shape_vertex *out) {
	const struct vr_mat *m = &shape->state.mat;
	float sx = sqrtf(m->a * m->a + m->b * m->b);
	float sy = sqrtf(m->c * m->c + m->d * m->d);
	float pixel = 1.0f / fmaxf(fminf(sx, sy), 1e-6f);
	float margin = shape->stroke_width / 2.0f + pixel;
	struct vr_shape_vertex v;
	vr_shape_vertex_init(shape, &v);
	float cx = shape->rect.x + v.half[0], cy = shape->rect.y + v.half[1];
	float hx = v.half[0] + margin, hy = v.half[1] + margin;
	static const int corners[6][2] = {
		{ -1, -1 },
		{ 1, -1 },
		{ -1, 1 },
		{ 1, -1 },
		{ 1, 1 },
		{ -1, 1 },
	};
	for (int i = 0; i < 6; i++) {
		out[i] = v;
		out[i].local[0] = (float)corners[i][0] * hx;
		out[i].local[1] = (float)corners[i][1] * hy;
		vr_mat_apply(m, cx + out[i].local[0], cy + out[i].local[1],
				&out[i].pos[0], &out[i].pos[1]);
	}
}

bool vr_shapes_execute(struct vr_exec_ctx *ctx, struct vr_task *task) {
	const struct vr_task_payload *payload = task->payload;
	struct vr_task_out *out = task->out;
	/* the batch's shapes all have rounded clips or none (prepare.c) */
	const struct vr_pipeline_desc *desc = payload->shapes[0].state.nrclips > 0 ?
			&vr_shape_rclip_pipeline :
			&vr_shape_pipeline;
	out->pipeline = vr_exec_pipeline(ctx, desc);
	if (out->pipeline == VK_NULL_HANDLE) {
		return false;
	}
	void *v = vr_engine_vertices(ctx, &out->draws[0],
			(size_t)payload->count * 6, desc->vertex_stride);
	if (v == NULL) {
		return false;
	}
	for (uint32_t i = 0; i < payload->count; i++) {
		struct vr_shape_vertex quad[6];
		shape_quad(&payload->shapes[i], quad);
		v = vr_engine_copy_vertices(v, desc->vertex_stride, quad,
				sizeof(quad[0]), 6);
	}
	out->ndraws = 1;
	return true;
}
