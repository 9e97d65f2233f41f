/*
 * VR_TASK_SHADOW: a Gaussian-blurred rounded rectangle. Effects like this
 * need render passes of their own, which cannot happen inside the frame's
 * pass: the worker records them into its prologue command buffer (run
 * before the frame's draws), and the frame only composites the result.
 *
 *   1. the shape's coverage (shadow_shape.frag, analytic AA) into scratch
 *      image A, in the shadow's frame (struct vr_shadow_layout);
 *   2. a horizontal Gaussian pass A -> B, 3. a vertical one B -> C
 *      (blur.frag, exact texels, weights exp(-i^2 / 2 sigma^2) over
 *      3 sigma each side);
 *   4. in the frame: C as a textured quad tinted by the colour (tex.frag),
 *      texel-aligned with the target when the transform allows it.
 *
 * The reference renderer runs the same four steps on the CPU, rounding to
 * 8 bits between them as the scratch images do.
 */
#include <math.h>
#include <stdlib.h>
#include "engine_kinds.h"
#include "engine_private.h"
#include "shader_interface.h"
#include "blit_vert.h" /* after <stdint.h> */
#include "blur_frag.h"
#include "shadow_shape_frag.h"

static const VkVertexInputAttributeDescription blit_attributes[] = {
	{ VR_BLIT_LOC_POS, 0, VK_FORMAT_R32G32_SFLOAT,
			offsetof(struct vr_blit_vertex, pos) },
	{ VR_BLIT_LOC_UV, 0, VK_FORMAT_R32G32_SFLOAT,
			offsetof(struct vr_blit_vertex, uv) },
};

const struct vr_pipeline_desc vr_shadow_shape_pipeline = {
	.key = VR_PIPELINE_SHADOW_SHAPE,
	.vert_spv = blit_vert_spv,
	.vert_size = sizeof(blit_vert_spv),
	.frag_spv = shadow_shape_frag_spv,
	.frag_size = sizeof(shadow_shape_frag_spv),
	.vertex_stride = sizeof(struct vr_blit_vertex),
	.attributes = blit_attributes,
	.attribute_count = 2,
	.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
	.offscreen = true,
};

const struct vr_pipeline_desc vr_shadow_blur_pipeline = {
	.key = VR_PIPELINE_SHADOW_BLUR,
	.vert_spv = blit_vert_spv,
	.vert_size = sizeof(blit_vert_spv),
	.frag_spv = blur_frag_spv,
	.frag_size = sizeof(blur_frag_spv),
	.vertex_stride = sizeof(struct vr_blit_vertex),
	.attributes = blit_attributes,
	.attribute_count = 2,
	.uses_texture = true,
	.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
	.offscreen = true,
};

/* ---- execution ---------------------------------------------------------- */

struct pass_push {
	float pos_x[4], pos_y[4], uv_x[4], uv_y[4], color[4];
};

_Static_assert(sizeof(struct pass_push) == VR_PC_SIZE, "push constants");

/* One offscreen pass drawing a quad over all of dst. */
static void record_pass(struct vr_exec_ctx *ctx, VkCommandBuffer cb,
		VkPipeline pipeline, const struct vr_scratch *dst, VkDescriptorSet src,
		const struct pass_push *push, VkBuffer buffer, VkDeviceSize offset) {
	VkClearValue clear = { .color.float32 = { 0, 0, 0, 0 } };
	VkRenderPassBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
		.renderPass = vr_exec_offscreen_pass(ctx),
		.framebuffer = dst->framebuffer,
		.renderArea = { { 0, 0 },
				{ (uint32_t)dst->width, (uint32_t)dst->height } },
		.clearValueCount = 1,
		.pClearValues = &clear,
	};
	VkPipelineLayout layout = vr_exec_pipeline_layout(ctx);
	vkCmdBeginRenderPass(cb, &begin, VK_SUBPASS_CONTENTS_INLINE);
	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
	VkViewport viewport = {
		.width = (float)dst->width,
		.height = (float)dst->height,
		.maxDepth = 1.0f,
	};
	vkCmdSetViewport(cb, 0, 1, &viewport);
	VkRect2D scissor = { { 0, 0 },
		{ (uint32_t)dst->width, (uint32_t)dst->height } };
	vkCmdSetScissor(cb, 0, 1, &scissor);
	if (src != VK_NULL_HANDLE) {
		vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, layout,
				VR_TEXTURE_SET, 1, &src, 0, NULL);
	}
	vkCmdPushConstants(cb, layout,
			VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
			sizeof(*push), push);
	vkCmdBindVertexBuffers(cb, 0, 1, &buffer, &offset);
	vkCmdDraw(cb, 6, 1, 0, 0);
	vkCmdEndRenderPass(cb);
}

static void corners_quad(float w, float h, struct vr_blit_vertex v[6]) {
	static const int order[6] = { 0, 1, 2, 1, 3, 2 };
	for (int i = 0; i < 6; i++) {
		int c = order[i];
		float x = (c & 1) ? 1.0f : 0.0f, y = (c & 2) ? 1.0f : 0.0f;
		v[i] = (struct vr_blit_vertex){ { x * w, y * h }, { x, y } };
	}
}

bool vr_shadow_execute(struct vr_exec_ctx *ctx, struct vr_task *task) {
	const struct vr_shadow *shadow = &task->payload->shadows[0];
	struct vr_task_out *out = task->out;
	struct vr_shadow_layout layout;
	if (!vr_shadow_layout(shadow, &layout)) {
		return false;
	}
	VkPipeline shape = vr_exec_pipeline(ctx, &vr_shadow_shape_pipeline);
	VkPipeline blur = layout.radius > 0 ?
			vr_exec_pipeline(ctx, &vr_shadow_blur_pipeline) :
			VK_NULL_HANDLE;
	const struct vr_pipeline_desc *desc =
			vr_textured_pipeline_for(shadow->state.nrclips);
	out->pipeline = vr_exec_pipeline(ctx, desc);
	VkCommandBuffer cb = vr_exec_prologue(ctx);
	if (shape == VK_NULL_HANDLE || out->pipeline == VK_NULL_HANDLE ||
			(layout.radius > 0 && blur == VK_NULL_HANDLE) ||
			cb == VK_NULL_HANDLE) {
		return false;
	}
	int npasses = layout.radius > 0 ? 3 : 1;
	struct vr_scratch scratch[3];
	for (int i = 0; i < npasses; i++) {
		if (!vr_exec_scratch(ctx, layout.width, layout.height, &scratch[i])) {
			return false;
		}
	}
	struct vr_task_draw pass_draw;
	struct vr_blit_vertex *quad =
			vr_engine_vertices(ctx, &pass_draw, 6, sizeof(*quad));
	if (quad == NULL) {
		return false;
	}
	corners_quad((float)layout.width, (float)layout.height, quad);

	struct pass_push push = {
		.pos_x = { 2.0f / (float)layout.width, 0.0f, -1.0f, 0.0f },
		.pos_y = { 0.0f, 2.0f / (float)layout.height, -1.0f, 0.0f },
	};
	float c[2], h[2], radii[4];
	vr_shadow_shape_in_scratch(shadow, &layout, c, h, radii);
	push.uv_x[0] = c[0];
	push.uv_x[1] = c[1];
	push.uv_x[2] = h[0];
	push.uv_x[3] = h[1];
	for (int i = 0; i < 4; i++) {
		push.uv_y[i] = radii[i];
	}
	record_pass(ctx, cb, shape, &scratch[0], VK_NULL_HANDLE, &push,
			pass_draw.vertex_buffer, pass_draw.vertex_offset);
	if (layout.radius > 0) {
		for (int pass = 1; pass <= 2; pass++) {
			struct pass_push bp = push;
			bp.uv_x[0] = pass == 1 ? 1.0f : 0.0f;
			bp.uv_x[1] = pass == 1 ? 0.0f : 1.0f;
			bp.uv_x[2] = layout.sigma_px;
			bp.uv_x[3] = (float)layout.radius;
			bp.uv_y[0] = bp.uv_y[1] = bp.uv_y[2] = bp.uv_y[3] = 0.0f;
			record_pass(ctx, cb, blur, &scratch[pass], scratch[pass - 1].set,
					&bp, pass_draw.vertex_buffer, pass_draw.vertex_offset);
		}
	}

	/* the composite, in the frame */
	struct vr_task_draw *draw = &out->draws[0];
	void *dst = vr_engine_vertices(ctx, draw, 6, desc->vertex_stride);
	if (dst == NULL) {
		return false;
	}
	draw->set = scratch[npasses - 1].set;
	out->ndraws = 1;
	struct vr_tex_vertex base = { 0 };
	for (int i = 0; i < 4; i++) {
		base.color[i] = shadow->state.color[i];
	}
	vr_vertex_clip_init(&base.clip, &shadow->state);
	static const int order[6] = { 0, 1, 2, 1, 3, 2 };
	struct vr_tex_vertex v[6];
	for (int i = 0; i < 6; i++) {
		int k = order[i];
		float u = (k & 1) ? 1.0f : 0.0f, w = (k & 2) ? 1.0f : 0.0f;
		v[i] = base;
		vr_mat_apply(&layout.to_target, u * (float)layout.width,
				w * (float)layout.height, &v[i].pos[0], &v[i].pos[1]);
		v[i].uv[0] = u;
		v[i].uv[1] = w;
	}
	vr_engine_copy_vertices(dst, desc->vertex_stride, v, sizeof(v[0]), 6);
	return true;
}
