/*
 * What the Vulkan engine's vertex-based kinds share: vertex allocation in
 * the frame's memory, the pixel -> NDC push constants, and recording.
 */
#include "engine_kinds.h"
#include "engine_private.h"
#include "shader_interface.h"

void *vr_engine_vertices(struct vr_exec_ctx *ctx, struct vr_task_draw *draw,
		size_t count, size_t stride) {
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
		int32_t width, int32_t height) {
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
		int32_t target_height) {
	const struct vr_task_out *out = task->out;
	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, out->pipeline);
	vr_engine_push_target(cb, layout, target_width, target_height);
	for (uint32_t i = 0; i < out->ndraws; i++) {
		const struct vr_task_draw *draw = &out->draws[i];
		if (draw->vertex_count == 0) {
			continue;
		}
		if (draw->set != VK_NULL_HANDLE) {
			vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, layout,
					VR_TEXTURE_SET, 1, &draw->set, 0, NULL);
		}
		vkCmdBindVertexBuffers(cb, 0, 1, &draw->vertex_buffer,
				&draw->vertex_offset);
		vkCmdDraw(cb, draw->vertex_count, 1, 0, 0);
	}
}
