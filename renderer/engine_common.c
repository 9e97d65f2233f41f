/*
 * What the engine's vertex-based kinds share: the clip part of their
 * vertices, the pixel -> NDC push constants, vertex allocation and
 * recording, and the C twins of the shaders' coverage functions
 * (shaders/coverage.glsl), which the pixman reference renderer evaluates.
 */
#include <math.h>
#include <string.h>
#include "engine_private.h"
#include "shader_interface.h"

float vr_clampf(float v, float lo, float hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* ---- coverage: keep in step with shaders/coverage.glsl ------------------ */

float vr_sdf_rrect(float px, float py, float hx, float hy,
		const float radii[4])
{
	float r = px > 0.0f ? (py > 0.0f ? radii[2] : radii[1]) :
		(py > 0.0f ? radii[3] : radii[0]);
	float qx = fabsf(px) - hx + r, qy = fabsf(py) - hy + r;
	float mx = fmaxf(qx, 0.0f), my = fmaxf(qy, 0.0f);
	return fminf(fmaxf(qx, qy), 0.0f) + sqrtf(mx * mx + my * my) - r;
}

float vr_sdf_ellipse(float px, float py, float hx, float hy)
{
	if (hx == hy) {
		return sqrtf(px * px + py * py) - hx;
	}
	float qx = px / hx, qy = py / hy;
	float f = qx * qx + qy * qy - 1.0f;
	float gx = 2.0f * px / (hx * hx), gy = 2.0f * py / (hy * hy);
	float g = sqrtf(gx * gx + gy * gy);
	return g > 0.0f ? f / g : -fminf(hx, hy);
}

float vr_clip_coverage(const struct vr_vertex_clip *clip, float x, float y)
{
	if (x < clip->clip[0] || y < clip->clip[1] || x >= clip->clip[2] ||
			y >= clip->clip[3]) {
		return 0.0f;
	}
	const float *r = clip->rclip;
	float cx = (r[0] + r[2]) * 0.5f, cy = (r[1] + r[3]) * 0.5f;
	float d = vr_sdf_rrect(x - cx, y - cy, (r[2] - r[0]) * 0.5f,
		(r[3] - r[1]) * 0.5f, clip->rclip_radii);
	return vr_clampf(0.5f - d, 0.0f, 1.0f);
}

float vr_shape_coverage(const struct vr_shape_vertex *v)
{
	float d;
	if (v->params[0] > 0.5f) {
		d = vr_sdf_ellipse(v->local[0], v->local[1], v->half[0],
			v->half[1]);
	} else {
		d = vr_sdf_rrect(v->local[0], v->local[1], v->half[0], v->half[1],
			v->radii);
	}
	if (v->params[1] > 0.0f) {
		d = fabsf(d) - v->params[1] * 0.5f;
	}
	return vr_clampf(0.5f - d * v->params[2], 0.0f, 1.0f);
}

float vr_tri_coverage(const struct vr_tri_vertex *v)
{
	float w = v->shape[0], e = v->shape[1];
	return vr_clampf(w + 0.5f - fabsf(v->aa[0]), 0.0f, 1.0f) *
		vr_clampf(e + 0.5f - v->aa[1], 0.0f, 1.0f) *
		vr_clampf(e + 0.5f - v->aa[2], 0.0f, 1.0f);
}

/* ---- vertices ----------------------------------------------------------- */

/* A rounded clip so large it never clips. */
#define NO_RCLIP 1e6f

void vr_vertex_clip_init(struct vr_vertex_clip *clip,
		const struct vr_prim_state *state)
{
	const struct vr_box *b = &state->clip;
	clip->clip[0] = (float)b->x;
	clip->clip[1] = (float)b->y;
	clip->clip[2] = (float)(b->x + b->width);
	clip->clip[3] = (float)(b->y + b->height);
	if (state->has_rclip) {
		const struct vr_rrectf *rr = &state->rclip;
		clip->rclip[0] = rr->rect.x;
		clip->rclip[1] = rr->rect.y;
		clip->rclip[2] = rr->rect.x + rr->rect.width;
		clip->rclip[3] = rr->rect.y + rr->rect.height;
		clip->rclip_radii[0] = rr->radii.tl;
		clip->rclip_radii[1] = rr->radii.tr;
		clip->rclip_radii[2] = rr->radii.br;
		clip->rclip_radii[3] = rr->radii.bl;
	} else {
		clip->rclip[0] = clip->rclip[1] = -NO_RCLIP;
		clip->rclip[2] = clip->rclip[3] = NO_RCLIP;
		memset(clip->rclip_radii, 0, sizeof(clip->rclip_radii));
	}
}

void *vr_engine_vertices(struct vr_exec_ctx *ctx, struct vr_task_draw *draw,
		size_t count, size_t stride)
{
	VkDeviceSize offset;
	void *data = vr_exec_vertices(ctx, count * stride, &offset);
	if (data == NULL) {
		return NULL;
	}
	draw->vertex_buffer = vr_exec_vertex_buffer(ctx);
	draw->vertex_offset = offset;
	draw->vertex_count = (uint32_t)count;
	return data;
}

void vr_engine_push_target(VkCommandBuffer cb, VkPipelineLayout layout,
		int32_t width, int32_t height)
{
	/* pos_x, pos_y: the rows of pixels -> NDC */
	float pc[VR_PC_SIZE / sizeof(float)] = { 0 };
	pc[VR_PC_POS_X_OFFSET / sizeof(float) + 0] = 2.0f / (float)width;
	pc[VR_PC_POS_X_OFFSET / sizeof(float) + 2] = -1.0f;
	pc[VR_PC_POS_Y_OFFSET / sizeof(float) + 1] = 2.0f / (float)height;
	pc[VR_PC_POS_Y_OFFSET / sizeof(float) + 2] = -1.0f;
	vkCmdPushConstants(cb, layout,
		VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
		sizeof(pc), pc);
}

void vr_engine_record_draws(VkCommandBuffer cb, VkPipelineLayout layout,
		const struct vr_task *task, int32_t target_width,
		int32_t target_height)
{
	const struct vr_task_out *out = task->out;
	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, out->pipeline);
	vr_engine_push_target(cb, layout, target_width, target_height);
	for (uint32_t i = 0; i < out->ndraws; i++) {
		const struct vr_task_draw *draw = &out->draws[i];
		if (draw->vertex_count == 0) {
			continue;
		}
		if (draw->set != VK_NULL_HANDLE) {
			vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS,
				layout, VR_TEXTURE_SET, 1, &draw->set, 0, NULL);
		}
		vkCmdBindVertexBuffers(cb, 0, 1, &draw->vertex_buffer,
			&draw->vertex_offset);
		vkCmdDraw(cb, draw->vertex_count, 1, 0, 0);
	}
}
