/*
 * VR_TASK_LAYER: group opacity (engine.h). The sub-tasks are executed by
 * the worker that executes the layer (nested layers among them, which
 * record their own passes first), then recorded into a scratch image of
 * the layer's size in the worker's prologue command buffer (run before
 * the frame's draws; the offscreen pass clears it to transparent and
 * leaves it SHADER_READ_ONLY). The frame draws the scratch as one
 * textured quad over the layer's box, texel for pixel, multiplied by the
 * opacity (tex.frag; the scratch is premultiplied, as the target is).
 *
 * The engine's pipelines are made for the frame's render pass; the
 * offscreen pass is compatible with it (one B8G8R8A8_UNORM attachment,
 * one sample, one subpass), so the sub-tasks record there unchanged. *
 * The dispatch lives here too, vr_engine_execute / vr_engine_record: one
 * switch on the task kind, each kind's functions in its own
 * engine_<kind>.c (engine_kinds.h). A layer's sub-tasks, nested layers
 * among them, go through the same switch: the layer sits above every
 * other kind, and the recursion stays inside this file.
 */
#include "engine_kinds.h"
#include "engine_private.h"

/* Scratch images come in sizes rounded up to this many pixels (the layer
 * uses their top-left corner): a layer's box follows the damage, and
 * scratch images are recycled by size. */
#define SCRATCH_STEP 64

static int32_t round_up(int32_t v) {
	return (v + SCRATCH_STEP - 1) / SCRATCH_STEP * SCRATCH_STEP;
}

uint32_t vr_task_layer_count(const struct vr_task *task) {
	if (task->kind != VR_TASK_LAYER) {
		return 0;
	}
	const struct vr_layer *layer = &task->payload->layers[0];
	uint32_t count = 1;
	for (uint32_t i = 0; i < layer->ntasks; i++) {
		count += vr_task_layer_count(&layer->tasks[i]);
	}
	return count;
}

/* The sub-tasks into the scratch image, whose top-left part of the
 * layer's bounds' size holds the layer (only its box is drawn), each
 * inside its AABB (quads rely on the scissor for their clip box, as in
 * the frame). */
static void record_layer(struct vr_exec_ctx *ctx, VkCommandBuffer cb,
		const struct vr_layer *layer, const struct vr_scratch *scratch) {
	int32_t w = layer->bounds.width, h = layer->bounds.height;
	const struct vr_box area = { layer->box.x - layer->bounds.x,
		layer->box.y - layer->bounds.y, layer->box.width, layer->box.height };
	VkClearValue clear = { .color.float32 = { 0, 0, 0, 0 } };
	VkRenderPassBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
		.renderPass = vr_exec_offscreen_pass(ctx),
		.framebuffer = scratch->framebuffer,
		.renderArea = { { area.x, area.y },
				{ (uint32_t)area.width, (uint32_t)area.height } },
		.clearValueCount = 1,
		.pClearValues = &clear,
	};
	VkPipelineLayout pipeline_layout = vr_exec_pipeline_layout(ctx);
	vkCmdBeginRenderPass(cb, &begin, VK_SUBPASS_CONTENTS_INLINE);
	VkViewport viewport = {
		.width = (float)w,
		.height = (float)h,
		.maxDepth = 1.0f,
	};
	vkCmdSetViewport(cb, 0, 1, &viewport);
	for (uint32_t i = 0; i < layer->ntasks; i++) {
		const struct vr_task *sub = &layer->tasks[i];
		struct vr_box box = vr_box_intersect(&sub->aabb, &area);
		if (!layer->drawn[i] || vr_box_empty(&box)) {
			continue;
		}
		VkRect2D scissor = { { box.x, box.y },
			{ (uint32_t)box.width, (uint32_t)box.height } };
		vkCmdSetScissor(cb, 0, 1, &scissor);
		vr_engine_record(cb, pipeline_layout, sub, w, h);
	}
	vkCmdEndRenderPass(cb);
}

bool vr_layer_execute(struct vr_exec_ctx *ctx, struct vr_task *task) {
	const struct vr_layer *layer = &task->payload->layers[0];
	struct vr_task_out *out = task->out;
	/* first the sub-tasks: what they record in the prologue (uploads,
	 * shadows' and nested layers' passes) comes before this pass */
	bool any = false;
	for (uint32_t i = 0; i < layer->ntasks; i++) {
		layer->drawn[i] = vr_engine_execute(ctx, &layer->tasks[i]);
		any = any || layer->drawn[i];
	}
	if (!any || layer->alpha == 0) {
		return false;
	}
	/* the composite has no rounded clip (its sub-tasks have them) */
	const struct vr_pipeline_desc *desc = &vr_textured_pipeline;
	out->pipeline = vr_exec_pipeline(ctx, desc);
	VkCommandBuffer cb = vr_exec_prologue(ctx);
	struct vr_scratch scratch;
	if (out->pipeline == VK_NULL_HANDLE || cb == VK_NULL_HANDLE ||
			!vr_exec_scratch(ctx, round_up(layer->bounds.width),
					round_up(layer->bounds.height), &scratch)) {
		return false;
	}
	record_layer(ctx, cb, layer, &scratch);

	/* the composite, in the frame: the box's part, texel (i, j) on pixel
	 * (bounds.x + i, bounds.y + j) */
	struct vr_task_draw *draw = &out->draws[0];
	void *dst = vr_engine_vertices(ctx, draw, 6, desc->vertex_stride);
	if (dst == NULL) {
		return false;
	}
	draw->set = scratch.set;
	out->ndraws = 1;
	float alpha = (float)layer->alpha / 255.0f;
	struct vr_prim_state state = { .clip = layer->box };
	struct vr_tex_vertex base = {
		.color = { alpha, alpha, alpha, alpha },
	};
	vr_vertex_clip_init(&base.clip, &state);
	const struct vr_box *b = &layer->box;
	float sw = (float)scratch.width, sh = (float)scratch.height;
	static const int order[6] = { 0, 1, 2, 1, 3, 2 };
	struct vr_tex_vertex v[6];
	for (int i = 0; i < 6; i++) {
		int k = order[i];
		int32_t x = b->x + ((k & 1) ? b->width : 0);
		int32_t y = b->y + ((k & 2) ? b->height : 0);
		v[i] = base;
		v[i].pos[0] = (float)x;
		v[i].pos[1] = (float)y;
		v[i].uv[0] = (float)(x - layer->bounds.x) / sw;
		v[i].uv[1] = (float)(y - layer->bounds.y) / sh;
	}
	vr_engine_copy_vertices(dst, desc->vertex_stride, v, sizeof(v[0]), 6);
	return true;
}

/* ---- dispatch
 * ----------------------------------------------------------------- */

bool vr_engine_execute(struct vr_exec_ctx *ctx, struct vr_task *task) {
	switch (task->kind) {
	case VR_TASK_QUADS: return vr_quads_execute(ctx, task);
	case VR_TASK_SHAPES: return vr_shapes_execute(ctx, task);
	case VR_TASK_TRIANGLES: return vr_triangles_execute(ctx, task);
	case VR_TASK_GLYPHS: return vr_glyphs_execute(ctx, task);
	case VR_TASK_SHADOW: return vr_shadow_execute(ctx, task);
	case VR_TASK_LAYER: return vr_layer_execute(ctx, task);
	case VR_TASK_KIND_COUNT: break;
	}
	vr_log(VR_LOG_ERROR, "task %u: kind %d has no engine", task->index,
			(int)task->kind);
	return false;
}

void vr_engine_record(VkCommandBuffer cb, VkPipelineLayout layout,
		const struct vr_task *task, int32_t target_width,
		int32_t target_height) {
	switch (task->kind) {
	case VR_TASK_QUADS:
		vr_quads_record(cb, layout, task, target_width, target_height);
		return;
	case VR_TASK_SHAPES:
	case VR_TASK_TRIANGLES:
	case VR_TASK_GLYPHS:
	case VR_TASK_SHADOW:
	case VR_TASK_LAYER:
		vr_engine_record_draws(cb, layout, task, target_width, target_height);
		return;
	case VR_TASK_KIND_COUNT: break;
	}
	/* vr_engine_execute refused it: never recorded */
}
