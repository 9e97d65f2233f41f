/*
 * The Vulkan renderer's targets: their GPU image, the host mirror, and
 * reading them back (vk_render.c's top comment).
 */
#include <stdlib.h>
#include <string.h>
#include "vk_private.h"

/* ---- targets ------------------------------------------------------------ */

void vr_render_target_release_gpu(struct vr_target *target)
{
	struct vr_renderer *renderer = target->renderer;
	if (renderer == NULL) {
		return;
	}
	VkDevice dev = renderer->device;
	vkDestroyFramebuffer(dev, target->framebuffer, NULL);
	vkDestroyImageView(dev, target->view, NULL);
	vkDestroyImage(dev, target->image, NULL);
	vkFreeMemory(dev, target->memory, NULL);
	if (target->mirror != VK_NULL_HANDLE) {
		vkDestroyBuffer(dev, target->mirror, NULL);
		vkFreeMemory(dev, target->mirror_memory, NULL);
	}
	if (target->scratch != VK_NULL_HANDLE) {
		vkDestroyImageView(dev, target->scratch_view, NULL);
		vkDestroyImage(dev, target->scratch, NULL);
		vkFreeMemory(dev, target->scratch_memory, NULL);
		target->scratch = VK_NULL_HANDLE;
	}
	target->mirror_map = NULL;
	vr_list_remove(&target->link);
	target->renderer = NULL;
}

struct vr_target *vr_target_create(struct vr_renderer *renderer,
		int32_t width, int32_t height)
{
	if (width <= 0 || height <= 0 || width > 16384 || height > 16384) {
		vr_log(VR_LOG_ERROR, "invalid target size %dx%d", width, height);
		return NULL;
	}
	struct vr_target *target = calloc(1, sizeof(*target));
	if (target == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return NULL;
	}
	target->width = width;
	target->height = height;
	VkComponentMapping identity = { 0 };
	if (!vr_vk_create_image(renderer, width, height,
			VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
			VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
			VK_IMAGE_USAGE_TRANSFER_DST_BIT,
			identity, &target->image, &target->memory, &target->view)) {
		goto error_target;
	}
	VkFramebufferCreateInfo finfo = {
		.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
		.renderPass = renderer->render_pass,
		.attachmentCount = 1,
		.pAttachments = &target->view,
		.width = (uint32_t)width,
		.height = (uint32_t)height,
		.layers = 1,
	};
	VkResult res = vkCreateFramebuffer(renderer->device, &finfo, NULL,
		&target->framebuffer);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateFramebuffer failed: %s",
			vr_vk_result_str(res));
		goto error_image;
	}
	struct vr_host_buffer mirror;
	if (!vr_vk_create_host_buffer(renderer, (VkDeviceSize)width * height * 4,
			VK_BUFFER_USAGE_TRANSFER_DST_BIT,
			VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
			VK_MEMORY_PROPERTY_HOST_CACHED_BIT, &mirror)) {
		goto error_framebuffer;
	}
	target->mirror = mirror.buffer;
	target->mirror_memory = mirror.memory;
	target->mirror_map = mirror.map;
	target->mirror_coherent = mirror.coherent;
	memset(target->mirror_map, 0, (size_t)width * (size_t)height * 4);
	pixman_region32_init(&target->mirror_stale);
	target->renderer = renderer;
	vr_list_insert(&renderer->targets, &target->link);
	return target;

error_framebuffer:
	vkDestroyFramebuffer(renderer->device, target->framebuffer, NULL);
error_image:
	vkDestroyImageView(renderer->device, target->view, NULL);
	vkDestroyImage(renderer->device, target->image, NULL);
	vkFreeMemory(renderer->device, target->memory, NULL);
error_target:
	free(target);
	return NULL;
}

void vr_target_destroy(struct vr_target *target)
{
	if (target == NULL) {
		return;
	}
	if (target->renderer != NULL && target->last_frame != 0) {
		/* not the hot path: wait for the frames drawing into it */
		vr_frame_wait(target->renderer, target->last_frame, UINT64_MAX);
	}
	vr_render_target_release_gpu(target);
	pixman_region32_fini(&target->mirror_stale);
	free(target);
}

int32_t vr_target_width(const struct vr_target *target)
{
	return target->width;
}

int32_t vr_target_height(const struct vr_target *target)
{
	return target->height;
}

/* Copy the rects of region (inside the target) from the image into the
 * mirror now: one submission of its own, waited for. Caller's thread,
 * with the target's frames completed. */
static bool target_readback(struct vr_target *target,
		pixman_region32_t *region)
{
	struct vr_renderer *renderer = target->renderer;
	int nrects;
	const pixman_box32_t *boxes = pixman_region32_rectangles(region,
		&nrects);
	if (nrects == 0 || !target->initialized) {
		return true;
	}
	VkBufferImageCopy *copies = calloc((size_t)nrects, sizeof(*copies));
	if (copies == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return false;
	}
	for (int i = 0; i < nrects; i++) {
		copies[i] = (VkBufferImageCopy){
			.bufferOffset = ((VkDeviceSize)boxes[i].y1 *
				(VkDeviceSize)target->width +
				(VkDeviceSize)boxes[i].x1) * 4,
			.bufferRowLength = (uint32_t)target->width,
			.imageSubresource = {
				.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
				.layerCount = 1,
			},
			.imageOffset = { boxes[i].x1, boxes[i].y1, 0 },
			.imageExtent = { (uint32_t)(boxes[i].x2 - boxes[i].x1),
				(uint32_t)(boxes[i].y2 - boxes[i].y1), 1 },
		};
	}
	VkCommandBuffer cb = renderer->readback_cb;
	VkCommandBufferBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	VkResult res = vkResetCommandBuffer(cb, 0);
	if (res == VK_SUCCESS) {
		res = vkBeginCommandBuffer(cb, &begin);
	}
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "readback command buffer: %s",
			vr_vk_result_str(res));
		free(copies);
		return false;
	}
	vr_vk_image_barrier(cb, target->image,
		VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
		VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
		VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
		VK_PIPELINE_STAGE_TRANSFER_BIT,
		VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
		VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
	vkCmdCopyImageToBuffer(cb, target->image,
		VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, target->mirror,
		(uint32_t)nrects, copies);
	free(copies);
	vr_vk_image_barrier(cb, target->image,
		VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
		VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
		VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
		VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
		VK_ACCESS_COLOR_ATTACHMENT_READ_BIT |
		VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
	VkMemoryBarrier host = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_HOST_READ_BIT,
	};
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
		VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &host, 0, NULL, 0, NULL);
	res = vkEndCommandBuffer(cb);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkEndCommandBuffer failed: %s",
			vr_vk_result_str(res));
		return false;
	}
	VkSubmitInfo submit = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &cb,
	};
	pthread_mutex_lock(&renderer->queue_lock);
	res = vkQueueSubmit(renderer->queue, 1, &submit,
		renderer->readback_fence);
	pthread_mutex_unlock(&renderer->queue_lock);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkQueueSubmit failed: %s",
			vr_vk_result_str(res));
		return false;
	}
	res = vkWaitForFences(renderer->device, 1, &renderer->readback_fence,
		VK_TRUE, UINT64_MAX);
	vkResetFences(renderer->device, 1, &renderer->readback_fence);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkWaitForFences failed: %s",
			vr_vk_result_str(res));
		return false;
	}
	return true;
}

void vr_target_read(struct vr_target *target, const pixman_region32_t *region,
		void *dst, int32_t dst_stride)
{
	struct vr_renderer *renderer = target->renderer;
	if (target->mirror_map == NULL || renderer == NULL) {
		vr_log(VR_LOG_ERROR, "target has no mirror (renderer gone)");
		return;
	}
	if (target->last_frame != 0) {
		vr_frame_wait(renderer, target->last_frame, UINT64_MAX);
	}
	pixman_region32_t clipped;
	pixman_region32_init_rect(&clipped, 0, 0, (unsigned)target->width,
		(unsigned)target->height);
	if (region != NULL) {
		pixman_region32_intersect(&clipped, &clipped,
			(pixman_region32_t *)region);
	}
	/* the mirror lacks what frames copied only into dst buffers */
	pixman_region32_t stale;
	pixman_region32_init(&stale);
	pixman_region32_intersect(&stale, &target->mirror_stale, &clipped);
	if (pixman_region32_not_empty(&stale) &&
			target_readback(target, &stale)) {
		pixman_region32_subtract(&target->mirror_stale,
			&target->mirror_stale, &stale);
	}
	pixman_region32_fini(&stale);
	if (!target->mirror_coherent) {
		VkMappedMemoryRange range = {
			.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
			.memory = target->mirror_memory,
			.size = VK_WHOLE_SIZE,
		};
		vkInvalidateMappedMemoryRanges(renderer->device, 1, &range);
	}
	int nrects;
	const pixman_box32_t *rects = pixman_region32_rectangles(&clipped,
		&nrects);
	size_t stride = (size_t)target->width * 4;
	for (int i = 0; i < nrects; i++) {
		size_t len = (size_t)(rects[i].x2 - rects[i].x1) * 4;
		for (int32_t y = rects[i].y1; y < rects[i].y2; y++) {
			memcpy((uint8_t *)dst + (size_t)y * (size_t)dst_stride +
					(size_t)rects[i].x1 * 4,
				(const uint8_t *)target->mirror_map + (size_t)y * stride +
					(size_t)rects[i].x1 * 4,
				len);
		}
	}
	pixman_region32_fini(&clipped);
}
