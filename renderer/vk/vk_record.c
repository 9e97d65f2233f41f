/*
 * Recording a frame (vk_render.c, stage 3): the frame's command buffer,
 * each job's render pass over its damaged pixels (moves first), the
 * finished tasks in it, the copies out of the target after the pass, and
 * the submission with every context's uploads and prologues. The commit
 * thread's (workers.c), or the caller's thread's in sequential and inline
 * mode; below the workers and the frames' retirement, above the engine
 * (vr_engine_record) and the resources.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "engine_kinds.h"
#include "vk_private.h"

#define ARRAY_AT(array, type, i) (&((type *)(array)->data)[i])

static void record_target_init(VkCommandBuffer cb, struct vr_target *target) {
	vr_vk_image_barrier(cb, target->image, VK_IMAGE_LAYOUT_UNDEFINED,
			VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
			VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
			VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
	VkClearColorValue zero = { .float32 = { 0, 0, 0, 0 } };
	VkImageSubresourceRange range = {
		.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
		.levelCount = 1,
		.layerCount = 1,
	};
	vkCmdClearColorImage(cb, target->image,
			VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &zero, 1, &range);
	vr_vk_image_barrier(cb, target->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
			VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
			VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
			VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
			VK_ACCESS_COLOR_ATTACHMENT_READ_BIT |
					VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
	target->initialized = true;
}

static VkCommandBuffer frame_cb(struct vr_renderer *renderer) {
	return vr_frame_slot_of(renderer, renderer->frame.number)->cb;
}

bool vr_frame_begin_commands(struct vr_renderer *renderer) {
	VkCommandBuffer cb = frame_cb(renderer);
	VkResult res = vkResetCommandBuffer(cb, 0);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkResetCommandBuffer failed: %s",
				vr_vk_result_str(res));
		return false;
	}
	VkCommandBufferBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	res = vkBeginCommandBuffer(cb, &begin);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkBeginCommandBuffer failed: %s",
				vr_vk_result_str(res));
		return false;
	}
	return true;
}

/* Shift-and-expose: each move's source pixels into the scratch image,
 * then back into the target moved (a copy within one image must not
 * overlap itself). Between passes: the target is a colour attachment. */
static void record_moves(VkCommandBuffer cb, const struct vr_frame_job *job) {
	struct vr_target *target = job->target;
	vr_vk_image_barrier(cb, target->image,
			VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
			VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
			VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
			VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
			VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
	/* the scratch image's earlier contents are not needed */
	vr_vk_image_barrier(cb, target->scratch, VK_IMAGE_LAYOUT_UNDEFINED,
			VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
			VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT,
			VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
	VkImageCopy regions[VR_MOVES_MAX];
	for (size_t i = 0; i < job->nmoves; i++) {
		const struct vr_move *m = &job->moves[i];
		/* the source pixels that stay inside the box */
		int32_t x = m->box.x + (m->dx < 0 ? -m->dx : 0);
		int32_t y = m->box.y + (m->dy < 0 ? -m->dy : 0);
		regions[i] = (VkImageCopy){
			.srcSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
			.srcOffset = { x, y, 0 },
			.dstSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
			.dstOffset = { x, y, 0 },
			.extent = { (uint32_t)(m->box.width - abs(m->dx)),
					(uint32_t)(m->box.height - abs(m->dy)), 1 },
		};
	}
	vkCmdCopyImage(cb, target->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
			target->scratch, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
			(uint32_t)job->nmoves, regions);
	vr_vk_image_barrier(cb, target->scratch,
			VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
			VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
			VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
			VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
	vr_vk_image_barrier(cb, target->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
			VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
			VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT,
			VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
	for (size_t i = 0; i < job->nmoves; i++) {
		regions[i].dstOffset.x += job->moves[i].dx;
		regions[i].dstOffset.y += job->moves[i].dy;
	}
	vkCmdCopyImage(cb, target->scratch, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
			target->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
			(uint32_t)job->nmoves, regions);
	vr_vk_image_barrier(cb, target->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
			VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
			VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
			VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
			VK_ACCESS_COLOR_ATTACHMENT_READ_BIT |
					VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
}

void vr_frame_begin_job(struct vr_renderer *renderer, size_t index) {
	struct vr_frame_job *job = &renderer->frame.jobs[index];
	if (job->nrects == 0 && job->nmoves == 0) {
		return;
	}
	VkCommandBuffer cb = frame_cb(renderer);
	struct vr_target *target = job->target;
	const VkRect2D *rects =
			ARRAY_AT(&renderer->frame.rects, VkRect2D, job->first_rect);
	if (!target->initialized) {
		record_target_init(cb, target);
	}
	if (job->nmoves > 0) {
		record_moves(cb, job);
	}
	if (job->nrects == 0) {
		return;
	}
	VkRenderPassBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
		.renderPass = renderer->render_pass,
		.framebuffer = target->framebuffer,
		.renderArea = { { 0, 0 },
				{ (uint32_t)target->width, (uint32_t)target->height } },
	};
	vkCmdBeginRenderPass(cb, &begin, VK_SUBPASS_CONTENTS_INLINE);
	VkViewport viewport = {
		.width = (float)target->width,
		.height = (float)target->height,
		.maxDepth = 1.0f,
	};
	vkCmdSetViewport(cb, 0, 1, &viewport);

	/* the clear colour under everything, in the damaged pixels only */
	uint8_t r, g, b, a;
	vr_color_premultiply8(&job->clear, 1.0f, &r, &g, &b, &a);
	VkClearAttachment clear = {
		.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
		.colorAttachment = 0,
		.clearValue.color.float32 = { r / 255.0f, g / 255.0f, b / 255.0f,
				a / 255.0f },
	};
	for (size_t i = 0; i < job->nrects; i++) {
		VkClearRect clear_rect = { .rect = rects[i], .layerCount = 1 };
		vkCmdClearAttachments(cb, 1, &clear, 1, &clear_rect);
	}
}

void vr_frame_record_task(struct vr_renderer *renderer,
		const struct vr_task *task) {
	struct vr_frame_job *job = &renderer->frame.jobs[task->job];
	const struct vr_target *target = job->target;
	const VkRect2D *rects =
			ARRAY_AT(&renderer->frame.rects, VkRect2D, job->first_rect);
	/* Damage rectangles are disjoint: drawing task by task, rectangle by
	 * rectangle keeps every pixel's drawing order. */
	for (size_t i = 0; i < job->nrects; i++) {
		struct vr_box rect = { rects[i].offset.x, rects[i].offset.y,
			(int32_t)rects[i].extent.width, (int32_t)rects[i].extent.height };
		struct vr_box box = vr_box_intersect(&rect, &task->aabb);
		if (vr_box_empty(&box)) {
			continue;
		}
		VkRect2D scissor = { { box.x, box.y },
			{ (uint32_t)box.width, (uint32_t)box.height } };
		VkCommandBuffer cb = frame_cb(renderer);
		vkCmdSetScissor(cb, 0, 1, &scissor);
		vr_engine_record(cb, renderer->pipeline_layout, task, target->width,
				target->height);
		/* the figure counts primitives, batched or not */
		job->draws += task->payload != NULL ? task->payload->count : 1;
	}
}

static void copy_rects(VkCommandBuffer cb, VkImage image, VkBuffer buffer,
		VkDeviceSize base, const VkRect2D *rects, size_t nrects,
		uint32_t row_pixels) {
	for (size_t i = 0; i < nrects; i++) {
		VkBufferImageCopy copy = {
			.bufferOffset = base + ((VkDeviceSize)rects[i].offset.y *
				(VkDeviceSize)row_pixels +
				(VkDeviceSize)rects[i].offset.x) * 4,
			.bufferRowLength = row_pixels,
			.imageSubresource = {
				.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
				.layerCount = 1,
			},
			.imageOffset = { rects[i].offset.x, rects[i].offset.y, 0 },
			.imageExtent = { rects[i].extent.width,
				rects[i].extent.height, 1 },
		};
		vkCmdCopyImageToBuffer(cb, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
				buffer, 1, &copy);
	}
}

void vr_frame_end_job(struct vr_renderer *renderer, size_t index) {
	struct vr_frame *frame = &renderer->frame;
	struct vr_frame_job *job = &frame->jobs[index];
	VkCommandBuffer cb = frame_cb(renderer);
	struct vr_target *target = job->target;
	if (job->nrects > 0) {
		vkCmdEndRenderPass(cb);
	}
	if (job->ndst_rects == 0 && job->nmirror_rects == 0) {
		return;
	}
	if (!target->initialized) {
		record_target_init(cb, target);
	}
	/* The pass's writes (or an earlier frame's) before the copies; the
	 * copies of earlier frames into the same buffers before these (WAW
	 * across submissions of one queue). */
	vr_vk_image_barrier(cb, target->image,
			VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
			VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
			VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
			VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
			VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
	VkMemoryBarrier waw = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
	};
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
			VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &waw, 0, NULL, 0, NULL);

	VkBufferMemoryBarrier host[2];
	uint32_t nhost = 0;
	if (job->ndst_rects > 0) {
		/* the output buffer, written once: bufferRowLength in pixels */
		struct vr_dst_buffer *dst = job->dst;
		copy_rects(cb, target->image, dst->buffer, dst->offset,
				ARRAY_AT(&frame->rects, VkRect2D, job->first_dst_rect),
				job->ndst_rects, (uint32_t)dst->stride / 4);
		host[nhost++] = (VkBufferMemoryBarrier){
			.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
			.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_HOST_READ_BIT,
			.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.buffer = dst->buffer,
			.size = VK_WHOLE_SIZE,
		};
	}
	if (job->nmirror_rects > 0) {
		copy_rects(cb, target->image, target->mirror, 0,
				ARRAY_AT(&frame->rects, VkRect2D, job->first_mirror_rect),
				job->nmirror_rects, (uint32_t)target->width);
		host[nhost++] = (VkBufferMemoryBarrier){
			.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
			.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_HOST_READ_BIT,
			.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.buffer = target->mirror,
			.size = VK_WHOLE_SIZE,
		};
	}
	vr_vk_image_barrier(cb, target->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
			VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
			VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
			VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
			VK_ACCESS_COLOR_ATTACHMENT_READ_BIT |
					VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
			VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL, nhost, host, 0, NULL);
}

bool vr_frame_submit(struct vr_renderer *renderer, bool ok) {
	struct vr_frame *frame = &renderer->frame;
	struct vr_frame_slot *slot = vr_frame_slot_of(renderer, frame->number);
	uint64_t t0 = vr_now_ns();
	VkCommandBuffer cb = slot->cb;
	if (ok) {
		VkResult res = vkEndCommandBuffer(cb);
		if (res != VK_SUCCESS) {
			vr_log(VR_LOG_ERROR, "vkEndCommandBuffer failed: %s",
					vr_vk_result_str(res));
			ok = false;
		}
	}
	/* uploads of every context, then effect passes, then the frame */
	frame->upload_cbs.len = 0;
	frame->prologue_cbs.len = 0;
	for (size_t i = 0; i < vr_exec_ctx_count(renderer); i++) {
		ok &= vr_exec_ctx_collect(vr_exec_ctx_at(renderer, i),
				&frame->upload_cbs, &frame->prologue_cbs);
	}
	struct vr_array *cbs = &frame->upload_cbs;
	if (ok &&
			!vr_array_reserve(cbs, frame->prologue_cbs.len + 1,
					sizeof(VkCommandBuffer))) {
		ok = false;
	}
	VkSubmitInfo submit = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
	};
	if (ok) {
		if (frame->prologue_cbs.len > 0) {
			memcpy(ARRAY_AT(cbs, VkCommandBuffer, cbs->len),
					frame->prologue_cbs.data,
					frame->prologue_cbs.len * sizeof(VkCommandBuffer));
			cbs->len += frame->prologue_cbs.len;
		}
		*ARRAY_AT(cbs, VkCommandBuffer, cbs->len++) = cb;
		vr_resources_frame_flush(renderer);
		submit.commandBufferCount = (uint32_t)cbs->len;
		submit.pCommandBuffers = cbs->data;
	}
	pthread_mutex_lock(&renderer->queue_lock);
	VkResult res = vkQueueSubmit(renderer->queue, 1, &submit, slot->fence);
	if (res != VK_SUCCESS && ok) {
		/* frame numbers stay consecutive: the fence still signals */
		vr_log(VR_LOG_ERROR, "vkQueueSubmit failed: %s", vr_vk_result_str(res));
		ok = false;
		res = vkQueueSubmit(renderer->queue, 0, NULL, slot->fence);
	}
	pthread_mutex_unlock(&renderer->queue_lock);
	if (res != VK_SUCCESS) {
		/* the device is gone; the fence thread gives up on it */
		vr_log(VR_LOG_ERROR, "vkQueueSubmit failed: %s", vr_vk_result_str(res));
		if (res == VK_ERROR_DEVICE_LOST) {
			vr_frames_set_lost(renderer);
		}
	}
	uint64_t t1 = vr_now_ns();
	frame->commit_ns += t1 - t0;
	frame->submit_ns = t1;
	vr_frames_submitted(renderer, frame->number);
	return ok;
}
