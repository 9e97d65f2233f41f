/*
 * The Vulkan renderer: device-wide objects, targets, and frames.
 *
 * A frame runs the three stages of engine.h:
 *   1. preparation (the caller's thread): vr_engine_prepare() walks the
 *      tree per job and appends self-contained tasks to the chain
 *      (vr_chain_push); in parallel mode each task goes to the task pool
 *      at once, so workers start before preparation ends;
 *   2. execution (workers.c): W worker threads run vr_engine_execute() in
 *      any order, through resources.c's thread-safe managers;
 *   3. commit (workers.c's commit thread): records finished tasks in chain
 *      order (or ahead, when their AABB allows) into the frame's command
 *      buffer, one render pass per job, and submits it with every worker's
 *      upload and prologue command buffers in one vkQueueSubmit.
 * In sequential mode the caller's thread executes and records each task as
 * preparation pushes it: no pools, no threads, the same pixels.
 *
 * In parallel mode vr_render_submit returns as soon as preparation pushed
 * the frame's last task and job end: workers and the commit thread finish
 * the frame's CPU stage on their own, with what the tasks point into held
 * (images pinned, display lists referenced) and the caller's job
 * description copied; the next submit (or any wait or retirement) reaps
 * it first (vr_frame_reap). The GPU work runs on after that (vk_frames.c
 * tracks it in one of VR_FRAMES_IN_FLIGHT slots). After each job's pass the
 * frame copies pixels out of the target on the GPU: into the job's dst buffer
 * (vk_dst.c) and/or the host mirror. vr_render is submit plus wait.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "display_list.h"
#include "engine_kinds.h"
#include "shader_interface.h"
#include "vk_private.h"

/* Past this many damage rectangles a job redraws their extents. */
#define MAX_DAMAGE_RECTS 16
/* The push constant range of the shared pipeline layout: the minimum
 * every Vulkan device supports; each engine kind uses a prefix of it. */
#define PUSH_CONSTANT_RANGE 128

_Static_assert(VR_PC_SIZE <= PUSH_CONSTANT_RANGE, "push constant range");

#define ARRAY_AT(array, type, i) (&((type *)(array)->data)[i])

/* ---- device-wide objects --------------------------------------------------
 */

/* A single-subpass pass over one B8G8R8A8 colour attachment. */
static bool create_color_pass(struct vr_renderer *renderer,
		VkAttachmentLoadOp load_op, VkImageLayout initial_layout,
		VkImageLayout final_layout, const VkSubpassDependency deps[2],
		VkRenderPass *out) {
	VkAttachmentDescription attachment = {
		.format = VK_FORMAT_B8G8R8A8_UNORM,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.loadOp = load_op,
		.storeOp = VK_ATTACHMENT_STORE_OP_STORE,
		.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
		.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
		.initialLayout = initial_layout,
		.finalLayout = final_layout,
	};
	VkAttachmentReference ref = {
		.attachment = 0,
		.layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
	};
	VkSubpassDescription subpass = {
		.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
		.colorAttachmentCount = 1,
		.pColorAttachments = &ref,
	};
	VkRenderPassCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
		.attachmentCount = 1,
		.pAttachments = &attachment,
		.subpassCount = 1,
		.pSubpasses = &subpass,
		.dependencyCount = 2,
		.pDependencies = deps,
	};
	VkResult res = vkCreateRenderPass(renderer->device, &info, NULL, out);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateRenderPass failed: %s",
				vr_vk_result_str(res));
		return false;
	}
	return true;
}

/* The frame's pass: targets persist across frames (load, no clear). */
static bool create_render_pass(struct vr_renderer *renderer) {
	const VkSubpassDependency deps[2] = {
		{
				.srcSubpass = VK_SUBPASS_EXTERNAL,
				.dstSubpass = 0,
				.srcStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT |
						VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
				.dstStageMask = VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT |
						VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
				.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT |
						VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
				.dstAccessMask = VK_ACCESS_SHADER_READ_BIT |
						VK_ACCESS_COLOR_ATTACHMENT_READ_BIT |
						VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
		},
		{
				.srcSubpass = 0,
				.dstSubpass = VK_SUBPASS_EXTERNAL,
				.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
				.dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT,
				.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
				.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT,
		},
	};
	return create_color_pass(renderer, VK_ATTACHMENT_LOAD_OP_LOAD,
			VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
			VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, deps,
			&renderer->render_pass);
}

/* Scratch images: cleared on load, sampled afterwards. */
static bool create_offscreen_pass(struct vr_renderer *renderer) {
	const VkSubpassDependency deps[2] = {
		{
				/* an earlier use of the scratch image, sampled */
				.srcSubpass = VK_SUBPASS_EXTERNAL,
				.dstSubpass = 0,
				.srcStageMask = VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT |
						VK_PIPELINE_STAGE_TRANSFER_BIT,
				.dstStageMask = VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT |
						VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
				.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
				.dstAccessMask = VK_ACCESS_SHADER_READ_BIT |
						VK_ACCESS_COLOR_ATTACHMENT_READ_BIT |
						VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
		},
		{
				/* sampled by later passes (and the frame's) */
				.srcSubpass = 0,
				.dstSubpass = VK_SUBPASS_EXTERNAL,
				.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
				.dstStageMask = VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
				.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
				.dstAccessMask = VK_ACCESS_SHADER_READ_BIT,
		},
	};
	return create_color_pass(renderer, VK_ATTACHMENT_LOAD_OP_CLEAR,
			VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
			deps, &renderer->offscreen_pass);
}

/* Samplers, the texture set layout and the one pipeline layout every
 * engine kind shares. */
static bool create_layouts(struct vr_renderer *renderer) {
	VkDevice dev = renderer->device;
	for (int i = 0; i < 2; i++) {
		VkFilter filter =
				i == VR_SAMPLER_NEAREST ? VK_FILTER_NEAREST : VK_FILTER_LINEAR;
		VkSamplerCreateInfo sinfo = {
			.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
			.magFilter = filter,
			.minFilter = filter,
			.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
			.addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
			.addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
			.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
			.maxLod = 0.0f,
		};
		VkResult res =
				vkCreateSampler(dev, &sinfo, NULL, &renderer->samplers[i]);
		if (res != VK_SUCCESS) {
			vr_log(VR_LOG_ERROR, "vkCreateSampler failed: %s",
					vr_vk_result_str(res));
			return false;
		}
	}

	VkDescriptorSetLayoutBinding binding = {
		.binding = VR_TEXTURE_BINDING,
		.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
		.descriptorCount = 1,
		.stageFlags = VK_SHADER_STAGE_FRAGMENT_BIT,
	};
	VkDescriptorSetLayoutCreateInfo linfo = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = 1,
		.pBindings = &binding,
	};
	VkResult res = vkCreateDescriptorSetLayout(dev, &linfo, NULL,
			&renderer->set_layout);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateDescriptorSetLayout failed: %s",
				vr_vk_result_str(res));
		return false;
	}
	VkPushConstantRange range = {
		.stageFlags = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
		.offset = 0,
		.size = PUSH_CONSTANT_RANGE,
	};
	VkPipelineLayoutCreateInfo plinfo = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
		.setLayoutCount = 1,
		.pSetLayouts = &renderer->set_layout,
		.pushConstantRangeCount = 1,
		.pPushConstantRanges = &range,
	};
	res = vkCreatePipelineLayout(dev, &plinfo, NULL,
			&renderer->pipeline_layout);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreatePipelineLayout failed: %s",
				vr_vk_result_str(res));
		return false;
	}
	return true;
}

/* The pool of the slots' frame command buffers (vk_frames.c allocates
 * them) and vr_target_read's readback command buffer and fence. */
static bool create_commands(struct vr_renderer *renderer) {
	VkCommandPoolCreateInfo pinfo = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		.queueFamilyIndex = renderer->queue_family,
	};
	VkCommandPool *pools[2] = { &renderer->command_pool,
		&renderer->readback_pool };
	for (int i = 0; i < 2; i++) {
		VkResult res =
				vkCreateCommandPool(renderer->device, &pinfo, NULL, pools[i]);
		if (res != VK_SUCCESS) {
			vr_log(VR_LOG_ERROR, "vkCreateCommandPool failed: %s",
					vr_vk_result_str(res));
			return false;
		}
	}
	VkCommandBufferAllocateInfo cinfo = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = renderer->readback_pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	VkResult res = vkAllocateCommandBuffers(renderer->device, &cinfo,
			&renderer->readback_cb);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkAllocateCommandBuffers failed: %s",
				vr_vk_result_str(res));
		return false;
	}
	VkFenceCreateInfo finfo = {
		.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
	};
	res = vkCreateFence(renderer->device, &finfo, NULL,
			&renderer->readback_fence);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateFence failed: %s", vr_vk_result_str(res));
		return false;
	}
	return true;
}

/* ---- renderer -------------------------------------------------------------
 */

static void target_release_gpu(struct vr_target *target);

void vr_renderer_destroy(struct vr_renderer *renderer) {
	if (renderer == NULL) {
		return;
	}
	VkDevice dev = renderer->device;
	vr_frames_wait_idle(renderer);
	vr_workers_stop(renderer);
	if (dev != VK_NULL_HANDLE) {
		vkDeviceWaitIdle(dev);
	}
	vr_image_unref(renderer->white); /* its texture goes to garbage */
	vr_exec_ctx_destroy(renderer->seq_ctx);
	vr_frames_finish(renderer);
	vr_resources_finish(renderer);
	vr_pipeline_cache_finish(renderer); /* saves it */
	if (dev != VK_NULL_HANDLE) {
		vr_list_for_each_safe(target, &renderer->targets, struct vr_target,
				link) {
			vr_log(VR_LOG_ERROR, "renderer destroyed before a target");
			target_release_gpu(target);
		}
		vr_list_for_each_safe(buffer, &renderer->dst_buffers,
				struct vr_dst_buffer, link) {
			vr_log(VR_LOG_ERROR, "renderer destroyed before a dst buffer");
			vkDestroyBuffer(dev, buffer->buffer, NULL);
			vkFreeMemory(dev, buffer->memory, NULL);
			vr_list_remove(&buffer->link);
			buffer->renderer = NULL;
		}
		vkDestroyPipelineLayout(dev, renderer->pipeline_layout, NULL);
		vkDestroyDescriptorSetLayout(dev, renderer->set_layout, NULL);
		for (int i = 0; i < 2; i++) {
			vkDestroySampler(dev, renderer->samplers[i], NULL);
		}
		vkDestroyRenderPass(dev, renderer->offscreen_pass, NULL);
		vkDestroyRenderPass(dev, renderer->render_pass, NULL);
		vkDestroyFence(dev, renderer->readback_fence, NULL);
		vkDestroyCommandPool(dev, renderer->readback_pool, NULL);
		vkDestroyCommandPool(dev, renderer->command_pool, NULL);
	}
	pthread_mutex_destroy(&renderer->queue_lock);
	vr_vk_finish_device(renderer);
	vr_workers_finish(renderer);
	struct vr_frame *frame = &renderer->frame;
	free(frame->chain.held_images.data);
	free(frame->chain.held_lists.data);
	vr_task_list_finish(&frame->chain.tasks);
	vr_arena_finish(&frame->chain.arena);
	free(frame->jobs);
	free(frame->job_ends);
	free(frame->rects.data);
	free(frame->upload_cbs.data);
	free(frame->prologue_cbs.data);
	free(renderer);
}

/* VITRAIL_RENDERER_MODE=sequential|parallel and VITRAIL_RENDERER_WORKERS=N
 * override the options (benchmarks, and running a test suite in both
 * modes). */
static void apply_env(struct vr_renderer *renderer) {
	const char *mode = getenv("VITRAIL_RENDERER_MODE");
	if (mode != NULL && strcmp(mode, "sequential") == 0) {
		renderer->sequential = true;
	} else if (mode != NULL && strcmp(mode, "parallel") == 0) {
		renderer->sequential = false;
	} else if (mode != NULL) {
		vr_log(VR_LOG_ERROR,
				"VITRAIL_RENDERER_MODE=%s: expected "
				"sequential or parallel",
				mode);
	}
	const char *workers = getenv("VITRAIL_RENDERER_WORKERS");
	if (workers != NULL) {
		char *end;
		long n = strtol(workers, &end, 10);
		if (*end != '\0' || n < 0 || n > 256) {
			vr_log(VR_LOG_ERROR,
					"VITRAIL_RENDERER_WORKERS=%s: expected "
					"0..256",
					workers);
		} else {
			renderer->workers_wanted = (int)n;
		}
	}
}

struct vr_renderer *vr_renderer_create(const struct vr_renderer_options *opts) {
	struct vr_renderer *renderer = calloc(1, sizeof(*renderer));
	if (renderer == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return NULL;
	}
	vr_list_init(&renderer->targets);
	vr_list_init(&renderer->dst_buffers);
	pthread_mutex_init(&renderer->queue_lock, NULL);
	vr_frames_setup(renderer);
	struct vr_frame *frame = &renderer->frame;
	frame->chain.renderer = renderer;
	vr_arena_init(&frame->chain.arena);
	vr_commit_init(&frame->commit, &frame->chain.tasks);
	vr_resources_init(renderer);
	if (!vr_workers_init(renderer)) {
		goto error;
	}
	if (!vr_vk_init_device(renderer, opts != NULL && opts->validation)) {
		goto error;
	}
	if (!create_render_pass(renderer) || !create_offscreen_pass(renderer) ||
			!create_layouts(renderer) || !create_commands(renderer) ||
			!vr_frames_init(renderer)) {
		goto error;
	}
	vr_pipeline_cache_init(renderer); /* never fails: no cache at worst */
	renderer->seq_ctx = vr_exec_ctx_create(renderer, -1);
	if (renderer->seq_ctx == NULL) {
		goto error;
	}
	renderer->white = vr_image_create(1, 1, VR_FORMAT_XRGB8888);
	if (renderer->white == NULL) {
		goto error;
	}
	const uint32_t white = 0xffffffff;
	vr_image_write(renderer->white, &white, 4, NULL);

	renderer->sequential = opts != NULL && opts->sequential;
	renderer->workers_wanted = opts != NULL ? opts->workers : 0;
	apply_env(renderer);
	const char *fault = getenv("VITRAIL_FAULT_DEVICE_LOST");
	if (fault != NULL) {
		renderer->fault_lost_frame = strtoull(fault, NULL, 10);
		vr_log(VR_LOG_INFO,
				"fault injection: the device is lost at "
				"frame %llu",
				(unsigned long long)renderer->fault_lost_frame);
	}
	if (!renderer->sequential &&
			!vr_workers_start(renderer, renderer->workers_wanted)) {
		goto error;
	}
	vr_granularity_refresh(renderer);
	return renderer;

error:
	vr_renderer_destroy(renderer);
	return NULL;
}

const char *vr_renderer_device_name(const struct vr_renderer *renderer) {
	return renderer->device_name;
}

bool vr_renderer_is_software(const struct vr_renderer *renderer) {
	return renderer->software;
}

bool vr_renderer_render_node(const struct vr_renderer *renderer, int64_t *major,
		int64_t *minor) {
	*major = renderer->render_major;
	*minor = renderer->render_minor;
	return renderer->has_render_node;
}

void vr_renderer_set_workers(struct vr_renderer *renderer, int workers) {
	renderer->workers_wanted = workers;
	if (renderer->sequential) {
		return;
	}
	int count = workers > 0 ? workers : vr_workers_default_count();
	if (renderer->workers.running && renderer->workers.count == count) {
		return;
	}
	/* the workers' command buffers of pending frames die with them */
	vr_frames_wait_idle(renderer);
	vr_workers_stop(renderer);
	if (!vr_workers_start(renderer, workers)) {
		vr_log(VR_LOG_ERROR, "no worker threads: rendering sequentially");
		renderer->sequential = true;
	}
	vr_granularity_refresh(renderer);
}

void vr_renderer_set_sequential(struct vr_renderer *renderer, bool sequential) {
	if (renderer->sequential == sequential) {
		return;
	}
	if (sequential) {
		vr_frames_wait_idle(renderer);
		vr_workers_stop(renderer);
		renderer->sequential = true;
	} else if (vr_workers_start(renderer, renderer->workers_wanted)) {
		renderer->sequential = false;
		vr_granularity_refresh(renderer);
	} else {
		vr_log(VR_LOG_ERROR, "no worker threads: staying sequential");
	}
}

bool vr_renderer_is_sequential(const struct vr_renderer *renderer) {
	return renderer->sequential;
}

/* ---- targets ------------------------------------------------------------ */

static void target_release_gpu(struct vr_target *target) {
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

struct vr_target *vr_target_create(struct vr_renderer *renderer, int32_t width,
		int32_t height) {
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
						VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
				&mirror)) {
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

void vr_target_destroy(struct vr_target *target) {
	if (target == NULL) {
		return;
	}
	if (target->renderer != NULL && target->last_frame != 0) {
		/* not the hot path: wait for the frames drawing into it */
		vr_frame_wait(target->renderer, target->last_frame, UINT64_MAX);
	}
	target_release_gpu(target);
	pixman_region32_fini(&target->mirror_stale);
	free(target);
}

int32_t vr_target_width(const struct vr_target *target) {
	return target->width;
}

int32_t vr_target_height(const struct vr_target *target) {
	return target->height;
}

/* Copy the rects of region (inside the target) from the image into the
 * mirror now: one submission of its own, waited for. Caller's thread,
 * with the target's frames completed. */
static bool target_readback(struct vr_target *target,
		pixman_region32_t *region) {
	struct vr_renderer *renderer = target->renderer;
	int nrects;
	const pixman_box32_t *boxes = pixman_region32_rectangles(region, &nrects);
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
	vr_vk_image_barrier(cb, target->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
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
	res = vkQueueSubmit(renderer->queue, 1, &submit, renderer->readback_fence);
	pthread_mutex_unlock(&renderer->queue_lock);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkQueueSubmit failed: %s", vr_vk_result_str(res));
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
		void *dst, int32_t dst_stride) {
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
	if (pixman_region32_not_empty(&stale) && target_readback(target, &stale)) {
		pixman_region32_subtract(&target->mirror_stale, &target->mirror_stale,
				&stale);
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
	const pixman_box32_t *rects = pixman_region32_rectangles(&clipped, &nrects);
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

/* ---- frame
 * -------------------------------------------------------------------- */

/* Append the rectangles of region to the frame's; at most `max` of them
 * (more: their extents), 0: all. */
static bool append_rects(struct vr_frame *frame, pixman_region32_t *region,
		int max, size_t *first, size_t *count) {
	int nrects;
	const pixman_box32_t *boxes = pixman_region32_rectangles(region, &nrects);
	if (max > 0 && nrects > max) {
		boxes = pixman_region32_extents(region);
		nrects = 1;
	}
	*first = frame->rects.len;
	*count = 0;
	if (!vr_array_reserve(&frame->rects, (size_t)nrects, sizeof(VkRect2D))) {
		return false;
	}
	for (int i = 0; i < nrects; i++) {
		*ARRAY_AT(&frame->rects, VkRect2D, frame->rects.len++) = (VkRect2D){
			{ boxes[i].x1, boxes[i].y1 },
			{ (uint32_t)(boxes[i].x2 - boxes[i].x1),
					(uint32_t)(boxes[i].y2 - boxes[i].y1) },
		};
	}
	*count = (size_t)nrects;
	return true;
}

static bool job_updates_mirror(const struct vr_render_job *job) {
	return job->dst == NULL || job->update_mirror;
}

/* The job's damage, dst and mirror rectangles and what preparation needs
 * to know. */
/* The job's moves, clipped to the target (those left with nothing to
 * move dropped: their box is damaged too); its scratch image made. */
static bool setup_moves(struct vr_renderer *renderer,
		const struct vr_render_job *job, struct vr_frame_job *state) {
	struct vr_target *target = job->target;
	struct vr_box all = { 0, 0, target->width, target->height };
	for (size_t i = 0; i < job->nmoves && i < VR_MOVES_MAX; i++) {
		struct vr_move m = job->moves[i];
		m.box = vr_box_intersect(&m.box, &all);
		if (abs(m.dx) < m.box.width && abs(m.dy) < m.box.height &&
				(m.dx != 0 || m.dy != 0)) {
			state->moves[state->nmoves++] = m;
		}
	}
	if (state->nmoves == 0 || target->scratch != VK_NULL_HANDLE) {
		return true;
	}
	VkComponentMapping identity = { 0 };
	return vr_vk_create_image(renderer, target->width, target->height,
			VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
			identity, &target->scratch, &target->scratch_memory,
			&target->scratch_view);
}

static bool setup_job(struct vr_renderer *renderer, struct vr_render_job *job,
		size_t index) {
	struct vr_frame *frame = &renderer->frame;
	struct vr_frame_job *state = &frame->jobs[index];
	struct vr_target *target = job->target;
	*state = (struct vr_frame_job){
		.target = target,
		.clear = job->clear,
		.mirror = job_updates_mirror(job),
		.dst = job->dst,
		.prep = {
			.index = (uint32_t)index,
			.view = job->view,
			.target = { 0, 0, target->width, target->height },
		},
	};
	atomic_init(&state->uploads, 0);
	if (!setup_moves(renderer, job, state)) {
		return false;
	}
	pixman_region32_t region;
	pixman_region32_init_rect(&region, 0, 0, (unsigned)target->width,
			(unsigned)target->height);
	if (job->damage != NULL) {
		pixman_region32_intersect(&region, &region,
				(pixman_region32_t *)job->damage);
	}
	bool ok = append_rects(frame, &region, MAX_DAMAGE_RECTS, &state->first_rect,
			&state->nrects);
	if (ok && state->nrects > 0) {
		/* what is redrawn: the damage, or its extents */
		const pixman_box32_t *ext = pixman_region32_extents(&region);
		state->prep.extents = (struct vr_box){ ext->x1, ext->y1,
			ext->x2 - ext->x1, ext->y2 - ext->y1 };
		if (state->nrects == 1) {
			pixman_region32_reset(&region, (pixman_box32_t *)ext);
		}
	}
	/* the host mirror: what is redrawn and what it missed before */
	if (ok && job_updates_mirror(job)) {
		pixman_region32_t mirror;
		pixman_region32_init(&mirror);
		pixman_region32_union(&mirror, &region, &target->mirror_stale);
		for (size_t i = 0; i < state->nmoves; i++) {
			const struct vr_box *b = &state->moves[i].box;
			pixman_region32_union_rect(&mirror, &mirror, b->x, b->y,
					(unsigned)b->width, (unsigned)b->height);
		}
		ok = append_rects(frame, &mirror, MAX_DAMAGE_RECTS,
				&state->first_mirror_rect, &state->nmirror_rects);
		pixman_region32_fini(&mirror);
	}
	/* the dst buffer: exactly dst_region, inside the target and dst */
	if (ok && job->dst != NULL) {
		pixman_region32_t dst;
		pixman_region32_init_rect(&dst, 0, 0,
				(unsigned)(job->dst->width < target->width ? job->dst->width :
															 target->width),
				(unsigned)(job->dst->height < target->height ?
								job->dst->height :
								target->height));
		if (job->dst_region != NULL) {
			pixman_region32_intersect(&dst, &dst,
					(pixman_region32_t *)job->dst_region);
		}
		ok = append_rects(frame, &dst, 0, &state->first_dst_rect,
				&state->ndst_rects);
		pixman_region32_fini(&dst);
	}
	pixman_region32_fini(&region);
	return ok;
}

static bool setup_frame(struct vr_renderer *renderer,
		struct vr_render_job *jobs, size_t njobs) {
	struct vr_frame *frame = &renderer->frame;
	frame->njobs = 0;
	frame->rects.len = 0;
	frame->stalls = 0;
	frame->commit_ns = frame->submit_ns = 0;
	frame->seq_execute_ns = frame->seq_record_ns = 0;
	frame->commit_failed = false;
	frame->mode =
			renderer->sequential ? VR_FRAME_SEQUENTIAL : VR_FRAME_PARALLEL;
	frame->handing = false;
	frame->cost = frame->chunks = frame->handed = 0;
	frame->layers = 0;
	frame->reused_nodes = frame->reused_prims = 0;
	frame->chunk_first = frame->chunk_len = frame->chunk_cost = 0;
	frame->jobs_ended = 0;
	vr_arena_reset(&frame->chain.arena);
	frame->chain.tasks.len = 0;
	frame->chain.failed = false;
	frame->chain.hold_epoch = vr_hold_epoch_next();
	if (njobs > frame->jobs_cap) {
		struct vr_frame_job *states =
				realloc(frame->jobs, njobs * sizeof(*states));
		uint32_t *ends = realloc(frame->job_ends, njobs * sizeof(*ends));
		if (states != NULL) {
			frame->jobs = states;
		}
		if (ends != NULL) {
			frame->job_ends = ends;
		}
		if (states == NULL || ends == NULL) {
			vr_log(VR_LOG_ERROR, "allocation failed");
			return false;
		}
		frame->jobs_cap = njobs;
	}
	for (size_t i = 0; i < njobs; i++) {
		if (!setup_job(renderer, &jobs[i], i)) {
			return false;
		}
		frame->job_ends[i] = UINT32_MAX;
		frame->njobs++;
	}
	/* the frame will be submitted: targets and dst buffers learn it */
	for (size_t i = 0; i < njobs; i++) {
		const struct vr_frame_job *state = &frame->jobs[i];
		struct vr_target *target = jobs[i].target;
		target->last_frame = frame->number;
		if (job_updates_mirror(&jobs[i])) {
			pixman_region32_clear(&target->mirror_stale);
		} else {
			for (size_t m = 0; m < state->nmoves; m++) {
				const struct vr_box *b = &state->moves[m].box;
				pixman_region32_union_rect(&target->mirror_stale,
						&target->mirror_stale, b->x, b->y, (unsigned)b->width,
						(unsigned)b->height);
			}
			const VkRect2D *rects =
					ARRAY_AT(&frame->rects, VkRect2D, state->first_rect);
			for (size_t r = 0; r < state->nrects; r++) {
				pixman_region32_union_rect(&target->mirror_stale,
						&target->mirror_stale, rects[r].offset.x,
						rects[r].offset.y, rects[r].extent.width,
						rects[r].extent.height);
			}
		}
		if (jobs[i].dst != NULL) {
			jobs[i].dst->last_frame = frame->number;
		}
	}
	return true;
}

static bool prepare_job(struct vr_renderer *renderer, struct vr_tree *tree,
		size_t index) {
	struct vr_frame *frame = &renderer->frame;
	struct vr_frame_job *job = &frame->jobs[index];
	struct vr_prepare_stats stats = { 0 };
	if (job->nrects > 0 && !frame->chain.failed &&
			!vr_engine_prepare(&frame->chain, tree, &job->prep, &stats)) {
		frame->chain.failed = true;
	}
	frame->reused_nodes += stats.reused_nodes;
	frame->reused_prims += stats.reused_prims;
	job->end = frame->chain.tasks.len;
	return !frame->chain.failed;
}

static bool render_sequential(struct vr_renderer *renderer,
		struct vr_tree *tree, uint64_t *prepare_ns) {
	struct vr_frame *frame = &renderer->frame;
	uint64_t t0 = vr_now_ns();
	bool recording = vr_frame_begin_commands(renderer);
	for (size_t i = 0; recording && i < frame->njobs; i++) {
		vr_frame_begin_job(renderer, i);
		prepare_job(renderer, tree, i);
		vr_frame_end_job(renderer, i);
	}
	uint64_t t1 = vr_now_ns();
	*prepare_ns = t1 - t0 - frame->seq_execute_ns - frame->seq_record_ns;
	frame->commit_ns = frame->seq_record_ns;
	bool ok = recording && !frame->chain.failed && !renderer->seq_ctx->failed;
	return vr_frame_submit(renderer, ok) && ok;
}

static bool render_parallel(struct vr_renderer *renderer, struct vr_tree *tree,
		uint64_t *prepare_ns) {
	struct vr_frame *frame = &renderer->frame;
	uint64_t t0 = vr_now_ns();
	if (renderer->granularity.parallel_cost == 0) {
		vr_chain_start_handing(renderer); /* every frame, empty ones too */
	}
	for (size_t i = 0; i < frame->njobs; i++) {
		prepare_job(renderer, tree, i);
		if (frame->handing) {
			vr_chain_push_chunk(renderer);
			vr_chain_end_jobs(renderer, i + 1);
		}
	}
	*prepare_ns = vr_now_ns() - t0;
	/* Handing: the workers and the commit thread finish on their own:
	 * they read the frame's tasks and what preparation held for them,
	 * never the tree; vr_frame_reap waits for them. Otherwise the frame
	 * is too small to gain from them: render_inline. */
	return !frame->chain.failed;
}

/* A parallel-mode frame below vr_granularity::parallel_cost: its tasks,
 * prepared, are executed and recorded on the caller's thread in chain
 * order, as the sequential mode does, without a handoff. */
static bool render_inline(struct vr_renderer *renderer, bool ok) {
	struct vr_frame *frame = &renderer->frame;
	frame->mode = VR_FRAME_INLINE;
	vr_cpu_stage_begin();
	bool recording = vr_frame_begin_commands(renderer);
	uint32_t index = 0;
	for (size_t i = 0; recording && i < frame->njobs; i++) {
		vr_frame_begin_job(renderer, i);
		for (; ok && index < frame->jobs[i].end; index++) {
			struct vr_task *task = vr_task_list_at(&frame->chain.tasks, index);
			uint64_t t0 = vr_now_ns();
			bool drawn = vr_exec_task(renderer->seq_ctx, task);
			uint64_t t1 = vr_now_ns();
			if (drawn) {
				vr_frame_record_task(renderer, task);
			}
			frame->seq_execute_ns += t1 - t0;
			frame->seq_record_ns += vr_now_ns() - t1;
		}
		vr_frame_end_job(renderer, i);
	}
	frame->commit_ns = frame->seq_record_ns;
	ok = ok && recording && !renderer->seq_ctx->failed;
	ok = vr_frame_submit(renderer, ok) && ok;
	vr_cpu_stage_end();
	return ok;
}

uint64_t vr_render_submit(struct vr_renderer *renderer, struct vr_tree *tree,
		struct vr_render_job *jobs, size_t njobs) {
	uint64_t start = vr_now_ns();
	for (size_t i = 0; i < njobs; i++) {
		if (jobs[i].target == NULL || jobs[i].target->renderer != renderer) {
			vr_log(VR_LOG_ERROR, "job %zu: target of another renderer", i);
			return 0;
		}
		if (jobs[i].dst != NULL && jobs[i].dst->renderer != renderer) {
			vr_log(VR_LOG_ERROR, "job %zu: dst of another renderer", i);
			return 0;
		}
		jobs[i].timing = (struct vr_frame_timing){ .start_ns = start };
	}
	vr_frames_retire(renderer);
	if (vr_renderer_is_lost(renderer)) {
		vr_log(VR_LOG_DEBUG, "the device is lost: no frame rendered");
		return 0;
	}
	if (!vr_frame_open(renderer)) {
		return 0;
	}
	/* from here on the frame is submitted, empty when it failed */
	struct vr_frame *frame = &renderer->frame;
	frame->start_ns = start;
	frame->prepare_ns = 0;
	bool ok = vr_resources_frame_begin(renderer) &&
			setup_frame(renderer, jobs, njobs);
	/* preparation may reset the shared glyph atlas: no other renderer's
	 * tasks may run (ours were reaped by vr_frame_open) */
	vr_cpu_stages_wait_idle();
	if (!ok) {
		frame->njobs = 0;
		vr_frame_submit(renderer, false);
		vr_frame_finish_cpu(renderer, false);
		return 0;
	}
	if (renderer->sequential) {
		ok = render_sequential(renderer, tree, &frame->prepare_ns);
		vr_frame_finish_cpu(renderer, ok);
	} else {
		/* the commit thread submits; the next submit, wait or
		 * retirement reaps the frame's CPU stage */
		ok = render_parallel(renderer, tree, &frame->prepare_ns);
		if (frame->handing) {
			frame->cpu_pending = true;
			renderer->frames = frame->number;
		} else {
			ok = render_inline(renderer, ok);
			vr_frame_finish_cpu(renderer, ok);
		}
	}
	bool done = renderer->sequential || frame->mode == VR_FRAME_INLINE;
	/* the figures known now (sequential and inline: every CPU figure;
	 * parallel: preparation's); vr_frame_get_timing has them all */
	struct vr_frame_slot *slot = vr_frame_slot_of(renderer, frame->number);
	for (size_t i = 0; i < njobs; i++) {
		if (done && ok && i < slot->njobs) {
			jobs[i].timing = slot->timings[i];
		} else {
			jobs[i].timing.prepare_ns = frame->prepare_ns;
		}
	}
	return ok ? frame->number : 0;
}

bool vr_render(struct vr_renderer *renderer, struct vr_tree *tree,
		struct vr_render_job *jobs, size_t njobs) {
	if (njobs == 0) {
		return true;
	}
	uint64_t id = vr_render_submit(renderer, tree, jobs, njobs);
	if (id == 0 || !vr_frame_wait(renderer, id, UINT64_MAX) ||
			vr_frame_slot_of(renderer, id)->failed) {
		return false;
	}
	uint64_t t_readback = vr_now_ns();
	for (size_t i = 0; i < njobs; i++) {
		struct vr_target *target = jobs[i].target;
		if (!target->mirror_coherent && job_updates_mirror(&jobs[i])) {
			VkMappedMemoryRange range = {
				.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
				.memory = target->mirror_memory,
				.size = VK_WHOLE_SIZE,
			};
			vkInvalidateMappedMemoryRanges(renderer->device, 1, &range);
		}
	}
	uint64_t readback_ns = vr_now_ns() - t_readback;
	for (size_t i = 0; i < njobs; i++) {
		if (vr_frame_get_timing(renderer, id, i, &jobs[i].timing)) {
			jobs[i].timing.readback_ns = readback_ns;
		}
	}
	return true;
}
