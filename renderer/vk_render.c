/*
 * The Vulkan renderer: pipelines, textures, targets and frames.
 *
 * A frame runs in three steps that a later version spreads over threads:
 *   1. prepare (in order): walk the tree for each job's damaged area and
 *      build a flat array of self-contained draw tasks (absolute matrix,
 *      clip box, colour, image, sampler, AABB in target pixels);
 *   2. execute: turn tasks into GPU objects: textures (created on first
 *      use, written regions staged for upload) and push-constant data;
 *   3. commit (in order): record uploads, then per job a render pass that
 *      clears and redraws the damaged rectangles, and a copy of them into
 *      the target's host mirror; submit and wait on the fence.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "quad_frag.h" /* needs <stdint.h> */
#include "quad_vert.h"
#include "shader_interface.h"
#include "vk_private.h"

/* Past this many damage rectangles a job redraws their extents. */
#define MAX_DAMAGE_RECTS 16
#define DESCRIPTOR_POOL_SETS 256
#define MIN_STAGING_SIZE (1u << 20)

enum vr_sampler {
	VR_SAMPLER_NEAREST,
	VR_SAMPLER_LINEAR,
};

struct push_constants {
	float pos_x[4];
	float pos_y[4];
	float uv_x[4];
	float uv_y[4];
	float color[4];
};

_Static_assert(offsetof(struct push_constants, pos_x) == VR_PC_POS_X_OFFSET,
	"push constant layout");
_Static_assert(offsetof(struct push_constants, pos_y) == VR_PC_POS_Y_OFFSET,
	"push constant layout");
_Static_assert(offsetof(struct push_constants, uv_x) == VR_PC_UV_X_OFFSET,
	"push constant layout");
_Static_assert(offsetof(struct push_constants, uv_y) == VR_PC_UV_Y_OFFSET,
	"push constant layout");
_Static_assert(offsetof(struct push_constants, color) == VR_PC_COLOR_OFFSET,
	"push constant layout");
_Static_assert(sizeof(struct push_constants) == VR_PC_SIZE,
	"push constant layout");

struct descriptor_pool {
	VkDescriptorPool pool;
	struct vr_list link; /* vr_renderer::descriptor_pools */
};

/* The GPU copy of a vr_image in one renderer. */
struct vr_texture {
	struct vr_image_copy copy; /* linked in vr_image::copies */
	struct vr_renderer *renderer;
	struct vr_image *image; /* not referenced; NULL once it is gone */
	struct vr_list link; /* vr_renderer::textures or ::garbage */
	int32_t width, height;
	VkImage vk_image;
	VkDeviceMemory memory;
	VkImageView view;
	VkImageLayout layout;
	VkDescriptorPool pool;
	VkDescriptorSet sets[2]; /* indexed by enum vr_sampler */
};

struct vr_target {
	struct vr_renderer *renderer; /* NULL once the renderer is gone */
	struct vr_list link; /* vr_renderer::targets */
	int32_t width, height;
	VkImage image;
	VkDeviceMemory memory;
	VkImageView view;
	VkFramebuffer framebuffer;
	bool initialized; /* cleared to transparent black on the GPU */
	VkBuffer mirror;
	VkDeviceMemory mirror_memory;
	bool mirror_coherent;
	void *mirror_map; /* width * height * 4 bytes, stride width * 4 */
};

/* A draw task with what execution adds to it. */
struct gpu_task {
	struct vr_draw_task task;
	size_t job;
	struct vr_texture *texture; /* execute */
	struct push_constants pc; /* execute */
};

struct job_state {
	struct vr_render_job *job;
	size_t first_task, ntasks; /* in vr_renderer::tasks */
	size_t first_rect, nrects; /* in vr_renderer::rects */
	uint32_t draws, uploads;
};

struct upload {
	struct vr_texture *texture;
	size_t first_copy, ncopies; /* in vr_renderer::copies */
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define ARRAY_AT(array, type, i) (&((type *)(array)->data)[i])

/* ---- memory helpers ----------------------------------------------------- */

static bool allocate_memory(struct vr_renderer *renderer,
		const VkMemoryRequirements *reqs, VkMemoryPropertyFlags required,
		VkMemoryPropertyFlags preferred, VkDeviceMemory *memory,
		VkMemoryPropertyFlags *flags)
{
	int type = vr_vk_find_memory_type(renderer, reqs->memoryTypeBits,
		required, preferred);
	if (type < 0) {
		vr_log(VR_LOG_ERROR, "no suitable memory type");
		return false;
	}
	VkMemoryAllocateInfo info = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = reqs->size,
		.memoryTypeIndex = (uint32_t)type,
	};
	VkResult res = vkAllocateMemory(renderer->device, &info, NULL, memory);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkAllocateMemory failed: %s",
			vr_vk_result_str(res));
		return false;
	}
	if (flags != NULL) {
		*flags = renderer->memory_props.memoryTypes[type].propertyFlags;
	}
	return true;
}

/* A persistently mapped host-visible buffer. */
static bool create_host_buffer(struct vr_renderer *renderer, VkDeviceSize size,
		VkBufferUsageFlags usage, VkMemoryPropertyFlags preferred,
		VkBuffer *buffer, VkDeviceMemory *memory, void **map,
		bool *coherent)
{
	VkBufferCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = size,
		.usage = usage,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	VkResult res = vkCreateBuffer(renderer->device, &info, NULL, buffer);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateBuffer failed: %s",
			vr_vk_result_str(res));
		return false;
	}
	VkMemoryRequirements reqs;
	vkGetBufferMemoryRequirements(renderer->device, *buffer, &reqs);
	VkMemoryPropertyFlags flags;
	if (!allocate_memory(renderer, &reqs,
			VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, preferred, memory,
			&flags)) {
		goto error_buffer;
	}
	res = vkBindBufferMemory(renderer->device, *buffer, *memory, 0);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkBindBufferMemory failed: %s",
			vr_vk_result_str(res));
		goto error_memory;
	}
	res = vkMapMemory(renderer->device, *memory, 0, VK_WHOLE_SIZE, 0, map);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkMapMemory failed: %s",
			vr_vk_result_str(res));
		goto error_memory;
	}
	*coherent = flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	return true;

error_memory:
	vkFreeMemory(renderer->device, *memory, NULL);
error_buffer:
	vkDestroyBuffer(renderer->device, *buffer, NULL);
	*buffer = VK_NULL_HANDLE;
	*memory = VK_NULL_HANDLE;
	return false;
}

static bool create_image(struct vr_renderer *renderer, int32_t width,
		int32_t height, VkImageUsageFlags usage,
		VkComponentMapping components, VkImage *image,
		VkDeviceMemory *memory, VkImageView *view)
{
	VkImageCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = VK_FORMAT_B8G8R8A8_UNORM,
		.extent = { (uint32_t)width, (uint32_t)height, 1 },
		.mipLevels = 1,
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = usage,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	VkResult res = vkCreateImage(renderer->device, &info, NULL, image);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateImage failed: %s",
			vr_vk_result_str(res));
		return false;
	}
	VkMemoryRequirements reqs;
	vkGetImageMemoryRequirements(renderer->device, *image, &reqs);
	if (!allocate_memory(renderer, &reqs, 0,
			VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, memory, NULL)) {
		goto error_image;
	}
	res = vkBindImageMemory(renderer->device, *image, *memory, 0);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkBindImageMemory failed: %s",
			vr_vk_result_str(res));
		goto error_memory;
	}
	VkImageViewCreateInfo vinfo = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
		.image = *image,
		.viewType = VK_IMAGE_VIEW_TYPE_2D,
		.format = VK_FORMAT_B8G8R8A8_UNORM,
		.components = components,
		.subresourceRange = {
			.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
			.levelCount = 1,
			.layerCount = 1,
		},
	};
	res = vkCreateImageView(renderer->device, &vinfo, NULL, view);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateImageView failed: %s",
			vr_vk_result_str(res));
		goto error_memory;
	}
	return true;

error_memory:
	vkFreeMemory(renderer->device, *memory, NULL);
error_image:
	vkDestroyImage(renderer->device, *image, NULL);
	return false;
}

static bool ensure_staging(struct vr_renderer *renderer, VkDeviceSize size)
{
	if (size <= renderer->staging.size) {
		return true;
	}
	VkDeviceSize new_size = MIN_STAGING_SIZE;
	while (new_size < size) {
		new_size *= 2;
	}
	/* Called between frames: the GPU no longer reads the old buffer. */
	if (renderer->staging.buffer != VK_NULL_HANDLE) {
		vkDestroyBuffer(renderer->device, renderer->staging.buffer, NULL);
		vkFreeMemory(renderer->device, renderer->staging.memory, NULL);
		renderer->staging.buffer = VK_NULL_HANDLE;
		renderer->staging.size = 0;
	}
	if (!create_host_buffer(renderer, new_size,
			VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
			VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
			&renderer->staging.buffer, &renderer->staging.memory,
			&renderer->staging.map, &renderer->staging.coherent)) {
		return false;
	}
	renderer->staging.size = new_size;
	return true;
}

/* ---- textures ----------------------------------------------------------- */

static bool allocate_descriptor_sets(struct vr_renderer *renderer,
		struct vr_texture *texture)
{
	VkDescriptorSetLayout layouts[2] = { renderer->set_layout,
		renderer->set_layout };
	VkDescriptorSetAllocateInfo info = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
		.descriptorSetCount = 2,
		.pSetLayouts = layouts,
	};
	vr_list_for_each(pool, &renderer->descriptor_pools,
			struct descriptor_pool, link) {
		info.descriptorPool = pool->pool;
		if (vkAllocateDescriptorSets(renderer->device, &info,
				texture->sets) == VK_SUCCESS) {
			texture->pool = pool->pool;
			return true;
		}
	}
	struct descriptor_pool *pool = calloc(1, sizeof(*pool));
	if (pool == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return false;
	}
	VkDescriptorPoolSize size = {
		.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
		.descriptorCount = DESCRIPTOR_POOL_SETS,
	};
	VkDescriptorPoolCreateInfo pinfo = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT,
		.maxSets = DESCRIPTOR_POOL_SETS,
		.poolSizeCount = 1,
		.pPoolSizes = &size,
	};
	VkResult res = vkCreateDescriptorPool(renderer->device, &pinfo, NULL,
		&pool->pool);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateDescriptorPool failed: %s",
			vr_vk_result_str(res));
		free(pool);
		return false;
	}
	vr_list_insert(&renderer->descriptor_pools, &pool->link);
	info.descriptorPool = pool->pool;
	res = vkAllocateDescriptorSets(renderer->device, &info, texture->sets);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkAllocateDescriptorSets failed: %s",
			vr_vk_result_str(res));
		return false;
	}
	texture->pool = pool->pool;
	return true;
}

static void texture_free(struct vr_texture *texture)
{
	struct vr_renderer *renderer = texture->renderer;
	VkDevice dev = renderer->device;
	if (texture->pool != VK_NULL_HANDLE) {
		vkFreeDescriptorSets(dev, texture->pool, 2, texture->sets);
	}
	vkDestroyImageView(dev, texture->view, NULL);
	vkDestroyImage(dev, texture->vk_image, NULL);
	vkFreeMemory(dev, texture->memory, NULL);
	vr_list_remove(&texture->link);
	free(texture);
}

static void texture_handle_image_destroyed(struct vr_image_copy *copy)
{
	struct vr_texture *texture = vr_container_of(copy, struct vr_texture,
		copy);
	pixman_region32_fini(&copy->pending);
	texture->image = NULL;
	/* A submitted frame may still sample it: free after the fence. */
	vr_list_remove(&texture->link);
	vr_list_insert(&texture->renderer->garbage, &texture->link);
}

static void collect_garbage(struct vr_renderer *renderer)
{
	vr_list_for_each_safe(texture, &renderer->garbage, struct vr_texture,
			link) {
		texture_free(texture);
	}
}

static struct vr_texture *texture_create(struct vr_renderer *renderer,
		struct vr_image *image)
{
	struct vr_texture *texture = calloc(1, sizeof(*texture));
	if (texture == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return NULL;
	}
	texture->renderer = renderer;
	texture->image = image;
	texture->width = image->width;
	texture->height = image->height;
	texture->layout = VK_IMAGE_LAYOUT_UNDEFINED;
	VkComponentMapping components = {
		.r = VK_COMPONENT_SWIZZLE_IDENTITY,
		.g = VK_COMPONENT_SWIZZLE_IDENTITY,
		.b = VK_COMPONENT_SWIZZLE_IDENTITY,
		.a = image->format == VR_FORMAT_XRGB8888 ?
			VK_COMPONENT_SWIZZLE_ONE : VK_COMPONENT_SWIZZLE_IDENTITY,
	};
	if (!create_image(renderer, image->width, image->height,
			VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
			components, &texture->vk_image, &texture->memory,
			&texture->view)) {
		free(texture);
		return NULL;
	}
	vr_list_init(&texture->link);
	if (!allocate_descriptor_sets(renderer, texture)) {
		texture_free(texture);
		return NULL;
	}
	VkDescriptorImageInfo infos[2];
	VkWriteDescriptorSet writes[2];
	for (int i = 0; i < 2; i++) {
		infos[i] = (VkDescriptorImageInfo){
			.sampler = renderer->samplers[i],
			.imageView = texture->view,
			.imageLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
		};
		writes[i] = (VkWriteDescriptorSet){
			.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			.dstSet = texture->sets[i],
			.dstBinding = VR_TEXTURE_BINDING,
			.descriptorCount = 1,
			.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
			.pImageInfo = &infos[i],
		};
	}
	vkUpdateDescriptorSets(renderer->device, 2, writes, 0, NULL);

	texture->copy.owner = renderer;
	texture->copy.image_destroyed = texture_handle_image_destroyed;
	vr_image_add_copy(image, &texture->copy);
	vr_list_insert(&renderer->textures, &texture->link);
	return texture;
}

static struct vr_texture *texture_get(struct vr_renderer *renderer,
		struct vr_image *image)
{
	struct vr_image_copy *copy = vr_image_find_copy(image, renderer);
	if (copy != NULL) {
		return vr_container_of(copy, struct vr_texture, copy);
	}
	return texture_create(renderer, image);
}

/* ---- renderer ----------------------------------------------------------- */

static VkShaderModule create_shader(struct vr_renderer *renderer,
		const uint32_t *code, size_t size)
{
	VkShaderModuleCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
		.codeSize = size,
		.pCode = code,
	};
	VkShaderModule module;
	VkResult res = vkCreateShaderModule(renderer->device, &info, NULL,
		&module);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateShaderModule failed: %s",
			vr_vk_result_str(res));
		return VK_NULL_HANDLE;
	}
	return module;
}

static bool create_render_pass(struct vr_renderer *renderer)
{
	VkAttachmentDescription attachment = {
		.format = VK_FORMAT_B8G8R8A8_UNORM,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.loadOp = VK_ATTACHMENT_LOAD_OP_LOAD, /* targets persist */
		.storeOp = VK_ATTACHMENT_STORE_OP_STORE,
		.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
		.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
		.initialLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
		.finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
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
	VkSubpassDependency deps[2] = {
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
	VkRenderPassCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
		.attachmentCount = 1,
		.pAttachments = &attachment,
		.subpassCount = 1,
		.pSubpasses = &subpass,
		.dependencyCount = 2,
		.pDependencies = deps,
	};
	VkResult res = vkCreateRenderPass(renderer->device, &info, NULL,
		&renderer->render_pass);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateRenderPass failed: %s",
			vr_vk_result_str(res));
		return false;
	}
	return true;
}

static bool create_pipeline(struct vr_renderer *renderer)
{
	VkDevice dev = renderer->device;
	for (int i = 0; i < 2; i++) {
		VkFilter filter = i == VR_SAMPLER_NEAREST ?
			VK_FILTER_NEAREST : VK_FILTER_LINEAR;
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
		VkResult res = vkCreateSampler(dev, &sinfo, NULL,
			&renderer->samplers[i]);
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
		.stageFlags = VK_SHADER_STAGE_VERTEX_BIT |
			VK_SHADER_STAGE_FRAGMENT_BIT,
		.offset = 0,
		.size = VR_PC_SIZE,
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

	VkShaderModule vert = create_shader(renderer, quad_vert_spv,
		sizeof(quad_vert_spv));
	VkShaderModule frag = create_shader(renderer, quad_frag_spv,
		sizeof(quad_frag_spv));
	bool ok = false;
	if (vert == VK_NULL_HANDLE || frag == VK_NULL_HANDLE) {
		goto out;
	}
	VkPipelineShaderStageCreateInfo stages[2] = {
		{
			.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			.stage = VK_SHADER_STAGE_VERTEX_BIT,
			.module = vert,
			.pName = "main",
		},
		{
			.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			.stage = VK_SHADER_STAGE_FRAGMENT_BIT,
			.module = frag,
			.pName = "main",
		},
	};
	VkPipelineVertexInputStateCreateInfo vertex_input = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
	};
	VkPipelineInputAssemblyStateCreateInfo assembly = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
		.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP,
	};
	VkPipelineViewportStateCreateInfo viewport = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
		.viewportCount = 1,
		.scissorCount = 1,
	};
	VkPipelineRasterizationStateCreateInfo raster = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
		.polygonMode = VK_POLYGON_MODE_FILL,
		.cullMode = VK_CULL_MODE_NONE,
		.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE,
		.lineWidth = 1.0f,
	};
	VkPipelineMultisampleStateCreateInfo multisample = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
		.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT,
	};
	/* premultiplied over */
	VkPipelineColorBlendAttachmentState blend_attachment = {
		.blendEnable = VK_TRUE,
		.srcColorBlendFactor = VK_BLEND_FACTOR_ONE,
		.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
		.colorBlendOp = VK_BLEND_OP_ADD,
		.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
		.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
		.alphaBlendOp = VK_BLEND_OP_ADD,
		.colorWriteMask = VK_COLOR_COMPONENT_R_BIT |
			VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
			VK_COLOR_COMPONENT_A_BIT,
	};
	VkPipelineColorBlendStateCreateInfo blend = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
		.attachmentCount = 1,
		.pAttachments = &blend_attachment,
	};
	VkDynamicState dynamic_states[2] = {
		VK_DYNAMIC_STATE_VIEWPORT,
		VK_DYNAMIC_STATE_SCISSOR,
	};
	VkPipelineDynamicStateCreateInfo dynamic = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
		.dynamicStateCount = 2,
		.pDynamicStates = dynamic_states,
	};
	VkGraphicsPipelineCreateInfo pinfo = {
		.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
		.stageCount = 2,
		.pStages = stages,
		.pVertexInputState = &vertex_input,
		.pInputAssemblyState = &assembly,
		.pViewportState = &viewport,
		.pRasterizationState = &raster,
		.pMultisampleState = &multisample,
		.pColorBlendState = &blend,
		.pDynamicState = &dynamic,
		.layout = renderer->pipeline_layout,
		.renderPass = renderer->render_pass,
		.subpass = 0,
	};
	res = vkCreateGraphicsPipelines(dev, VK_NULL_HANDLE, 1, &pinfo, NULL,
		&renderer->pipeline);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateGraphicsPipelines failed: %s",
			vr_vk_result_str(res));
		goto out;
	}
	ok = true;
out:
	if (vert != VK_NULL_HANDLE) {
		vkDestroyShaderModule(dev, vert, NULL);
	}
	if (frag != VK_NULL_HANDLE) {
		vkDestroyShaderModule(dev, frag, NULL);
	}
	return ok;
}

static bool create_commands(struct vr_renderer *renderer)
{
	VkCommandPoolCreateInfo pinfo = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		.queueFamilyIndex = renderer->queue_family,
	};
	VkResult res = vkCreateCommandPool(renderer->device, &pinfo, NULL,
		&renderer->command_pool);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateCommandPool failed: %s",
			vr_vk_result_str(res));
		return false;
	}
	VkCommandBufferAllocateInfo cinfo = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = renderer->command_pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	res = vkAllocateCommandBuffers(renderer->device, &cinfo, &renderer->cb);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkAllocateCommandBuffers failed: %s",
			vr_vk_result_str(res));
		return false;
	}
	VkFenceCreateInfo finfo = {
		.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
	};
	res = vkCreateFence(renderer->device, &finfo, NULL, &renderer->fence);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkCreateFence failed: %s",
			vr_vk_result_str(res));
		return false;
	}
	return true;
}

static void target_release_gpu(struct vr_target *target);

void vr_renderer_destroy(struct vr_renderer *renderer)
{
	if (renderer == NULL) {
		return;
	}
	VkDevice dev = renderer->device;
	if (dev != VK_NULL_HANDLE) {
		vkDeviceWaitIdle(dev);
	}
	vr_image_unref(renderer->white); /* its texture goes to garbage */
	if (dev != VK_NULL_HANDLE) {
		collect_garbage(renderer);
		vr_list_for_each_safe(texture, &renderer->textures,
				struct vr_texture, link) {
			/* the image outlives us: forget its copy */
			vr_list_remove(&texture->copy.link);
			pixman_region32_fini(&texture->copy.pending);
			texture_free(texture);
		}
		vr_list_for_each_safe(target, &renderer->targets,
				struct vr_target, link) {
			vr_log(VR_LOG_ERROR, "renderer destroyed before a target");
			target_release_gpu(target);
		}
		vr_list_for_each_safe(pool, &renderer->descriptor_pools,
				struct descriptor_pool, link) {
			vkDestroyDescriptorPool(dev, pool->pool, NULL);
			vr_list_remove(&pool->link);
			free(pool);
		}
		if (renderer->staging.buffer != VK_NULL_HANDLE) {
			vkDestroyBuffer(dev, renderer->staging.buffer, NULL);
			vkFreeMemory(dev, renderer->staging.memory, NULL);
		}
		vkDestroyPipeline(dev, renderer->pipeline, NULL);
		vkDestroyPipelineLayout(dev, renderer->pipeline_layout, NULL);
		vkDestroyDescriptorSetLayout(dev, renderer->set_layout, NULL);
		for (int i = 0; i < 2; i++) {
			vkDestroySampler(dev, renderer->samplers[i], NULL);
		}
		vkDestroyRenderPass(dev, renderer->render_pass, NULL);
		vkDestroyFence(dev, renderer->fence, NULL);
		vkDestroyCommandPool(dev, renderer->command_pool, NULL);
	}
	vr_vk_finish_device(renderer);
	free(renderer->tasks.data);
	free(renderer->jobs.data);
	free(renderer->rects.data);
	free(renderer->uploads.data);
	free(renderer->copies.data);
	free(renderer);
}

struct vr_renderer *vr_renderer_create(const struct vr_renderer_options *opts)
{
	struct vr_renderer *renderer = calloc(1, sizeof(*renderer));
	if (renderer == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return NULL;
	}
	vr_list_init(&renderer->descriptor_pools);
	vr_list_init(&renderer->textures);
	vr_list_init(&renderer->garbage);
	vr_list_init(&renderer->targets);
	if (!vr_vk_init_device(renderer, opts != NULL && opts->validation)) {
		free(renderer);
		return NULL;
	}
	if (!create_render_pass(renderer) || !create_pipeline(renderer) ||
			!create_commands(renderer)) {
		goto error;
	}
	renderer->white = vr_image_create(1, 1, VR_FORMAT_XRGB8888);
	if (renderer->white == NULL) {
		goto error;
	}
	const uint32_t white = 0xffffffff;
	vr_image_write(renderer->white, &white, 4, NULL);
	return renderer;

error:
	vr_renderer_destroy(renderer);
	return NULL;
}

const char *vr_renderer_device_name(const struct vr_renderer *renderer)
{
	return renderer->device_name;
}

/* ---- targets ------------------------------------------------------------ */

static void target_release_gpu(struct vr_target *target)
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
	if (!create_image(renderer, width, height,
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
	if (!create_host_buffer(renderer, (VkDeviceSize)width * height * 4,
			VK_BUFFER_USAGE_TRANSFER_DST_BIT,
			VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
			VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
			&target->mirror, &target->mirror_memory,
			&target->mirror_map, &target->mirror_coherent)) {
		goto error_framebuffer;
	}
	memset(target->mirror_map, 0, (size_t)width * (size_t)height * 4);
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
	/* vr_render waits for its frame: the GPU no longer uses it */
	target_release_gpu(target);
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

void vr_target_read(struct vr_target *target, const pixman_region32_t *region,
		void *dst, int32_t dst_stride)
{
	if (target->mirror_map == NULL) {
		vr_log(VR_LOG_ERROR, "target has no mirror (renderer gone)");
		return;
	}
	pixman_region32_t clipped;
	pixman_region32_init_rect(&clipped, 0, 0, (unsigned)target->width,
		(unsigned)target->height);
	if (region != NULL) {
		pixman_region32_intersect(&clipped, &clipped,
			(pixman_region32_t *)region);
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

/* ---- frame: prepare ----------------------------------------------------- */

struct prepare_ctx {
	struct vr_renderer *renderer;
	size_t job;
	const struct vr_mat *view;
	struct vr_box target;
	struct vr_box extents; /* of the job's draw rects */
	bool failed;
};

static void prepare_node(struct vr_node *node, void *data)
{
	struct prepare_ctx *ctx = data;
	struct vr_draw_task task;
	if (!vr_draw_task_init(&task, node, ctx->view, &ctx->target)) {
		return;
	}
	struct vr_box visible = vr_box_intersect(&task.aabb, &ctx->extents);
	if (vr_box_empty(&visible)) {
		return;
	}
	struct vr_array *tasks = &ctx->renderer->tasks;
	if (!vr_array_reserve(tasks, 1, sizeof(struct gpu_task))) {
		ctx->failed = true;
		return;
	}
	struct gpu_task *gt = ARRAY_AT(tasks, struct gpu_task, tasks->len++);
	*gt = (struct gpu_task){ .task = task, .job = ctx->job };
}

static bool prepare_job(struct vr_renderer *renderer, struct vr_tree *tree,
		struct vr_render_job *job, size_t index)
{
	struct job_state *state = ARRAY_AT(&renderer->jobs, struct job_state,
		index);
	*state = (struct job_state){
		.job = job,
		.first_task = renderer->tasks.len,
		.first_rect = renderer->rects.len,
	};
	struct vr_target *target = job->target;
	pixman_region32_t region;
	pixman_region32_init_rect(&region, 0, 0, (unsigned)target->width,
		(unsigned)target->height);
	if (job->damage != NULL) {
		pixman_region32_intersect(&region, &region,
			(pixman_region32_t *)job->damage);
	}
	int nrects;
	const pixman_box32_t *boxes = pixman_region32_rectangles(&region,
		&nrects);
	if (nrects > MAX_DAMAGE_RECTS) {
		boxes = pixman_region32_extents(&region);
		nrects = 1;
	}
	if (!vr_array_reserve(&renderer->rects, (size_t)nrects,
			sizeof(VkRect2D))) {
		pixman_region32_fini(&region);
		return false;
	}
	for (int i = 0; i < nrects; i++) {
		*ARRAY_AT(&renderer->rects, VkRect2D, renderer->rects.len++) =
			(VkRect2D){
				{ boxes[i].x1, boxes[i].y1 },
				{ (uint32_t)(boxes[i].x2 - boxes[i].x1),
					(uint32_t)(boxes[i].y2 - boxes[i].y1) },
			};
	}
	state->nrects = (size_t)nrects;
	const pixman_box32_t *ext = pixman_region32_extents(&region);
	struct prepare_ctx ctx = {
		.renderer = renderer,
		.job = index,
		.view = &job->view,
		.target = { 0, 0, target->width, target->height },
		.extents = { ext->x1, ext->y1, ext->x2 - ext->x1,
			ext->y2 - ext->y1 },
	};
	pixman_region32_fini(&region);

	struct vr_mat inverse;
	if (nrects > 0 && vr_mat_invert(&inverse, &job->view)) {
		/* the damaged area in root coordinates, one pixel wider for
		 * float noise */
		struct vr_rectf ext_f = { (float)ctx.extents.x - 1.0f,
			(float)ctx.extents.y - 1.0f,
			(float)ctx.extents.width + 2.0f,
			(float)ctx.extents.height + 2.0f };
		struct vr_box area = vr_mat_map_rect_bounds(&inverse, &ext_f);
		vr_tree_for_each_drawn(tree, &area, prepare_node, &ctx);
	}
	state->ntasks = renderer->tasks.len - state->first_task;
	return !ctx.failed;
}

/* ---- frame: execute ----------------------------------------------------- */

static bool schedule_upload(struct vr_renderer *renderer,
		struct vr_texture *texture, VkDeviceSize *offset)
{
	int nrects;
	const pixman_box32_t *boxes = pixman_region32_rectangles(
		&texture->copy.pending, &nrects);
	if (nrects > MAX_DAMAGE_RECTS) {
		boxes = pixman_region32_extents(&texture->copy.pending);
		nrects = 1;
	}
	if (!vr_array_reserve(&renderer->uploads, 1, sizeof(struct upload)) ||
			!vr_array_reserve(&renderer->copies, (size_t)nrects,
				sizeof(VkBufferImageCopy))) {
		return false;
	}
	struct upload *upload = ARRAY_AT(&renderer->uploads, struct upload,
		renderer->uploads.len++);
	*upload = (struct upload){
		.texture = texture,
		.first_copy = renderer->copies.len,
		.ncopies = (size_t)nrects,
	};
	for (int i = 0; i < nrects; i++) {
		uint32_t w = (uint32_t)(boxes[i].x2 - boxes[i].x1);
		uint32_t h = (uint32_t)(boxes[i].y2 - boxes[i].y1);
		*ARRAY_AT(&renderer->copies, VkBufferImageCopy,
				renderer->copies.len++) = (VkBufferImageCopy){
			.bufferOffset = *offset,
			.imageSubresource = {
				.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
				.layerCount = 1,
			},
			.imageOffset = { boxes[i].x1, boxes[i].y1, 0 },
			.imageExtent = { w, h, 1 },
		};
		*offset += (VkDeviceSize)w * h * 4;
	}
	/* staged below; a failure to stage marks the whole image again */
	pixman_region32_clear(&texture->copy.pending);
	return true;
}

static void fill_push_constants(struct gpu_task *gt, const struct vr_target *target)
{
	const struct vr_draw_task *t = &gt->task;
	float sx = 2.0f / (float)target->width, sy = 2.0f / (float)target->height;
	struct push_constants *pc = &gt->pc;
	*pc = (struct push_constants){
		.pos_x = { t->mat.a * sx, t->mat.c * sx, t->mat.tx * sx - 1.0f, 0 },
		.pos_y = { t->mat.b * sy, t->mat.d * sy, t->mat.ty * sy - 1.0f, 0 },
		.color = { t->r / 255.0f, t->g / 255.0f, t->b / 255.0f,
			t->a / 255.0f },
	};
	if (t->image != NULL) {
		float iw = 1.0f / (float)t->image->width;
		float ih = 1.0f / (float)t->image->height;
		pc->uv_x[0] = t->uv.a * iw;
		pc->uv_x[1] = t->uv.c * iw;
		pc->uv_x[2] = t->uv.tx * iw;
		pc->uv_y[0] = t->uv.b * ih;
		pc->uv_y[1] = t->uv.d * ih;
		pc->uv_y[2] = t->uv.ty * ih;
	}
}

static bool execute(struct vr_renderer *renderer)
{
	VkDeviceSize staging_size = 0;
	struct gpu_task *tasks = renderer->tasks.data;
	for (size_t i = 0; i < renderer->tasks.len; i++) {
		struct gpu_task *gt = &tasks[i];
		struct vr_image *image = gt->task.image != NULL ?
			gt->task.image : renderer->white;
		gt->texture = texture_get(renderer, image);
		if (gt->texture == NULL) {
			return false;
		}
		if (pixman_region32_not_empty(&gt->texture->copy.pending)) {
			if (!schedule_upload(renderer, gt->texture, &staging_size)) {
				return false;
			}
			ARRAY_AT(&renderer->jobs, struct job_state, gt->job)->uploads++;
		}
		const struct job_state *job = ARRAY_AT(&renderer->jobs,
			struct job_state, gt->job);
		fill_push_constants(gt, job->job->target);
	}
	if (renderer->uploads.len == 0) {
		return true;
	}
	if (!ensure_staging(renderer, staging_size)) {
		/* upload everything again next time */
		struct upload *uploads = renderer->uploads.data;
		for (size_t i = 0; i < renderer->uploads.len; i++) {
			struct vr_texture *texture = uploads[i].texture;
			pixman_region32_union_rect(&texture->copy.pending,
				&texture->copy.pending, 0, 0,
				(unsigned)texture->width, (unsigned)texture->height);
		}
		return false;
	}
	const struct upload *uploads = renderer->uploads.data;
	const VkBufferImageCopy *copies = renderer->copies.data;
	for (size_t i = 0; i < renderer->uploads.len; i++) {
		const struct vr_image *image = uploads[i].texture->image;
		for (size_t j = 0; j < uploads[i].ncopies; j++) {
			const VkBufferImageCopy *c = &copies[uploads[i].first_copy + j];
			uint8_t *dst = (uint8_t *)renderer->staging.map +
				c->bufferOffset;
			size_t len = (size_t)c->imageExtent.width * 4;
			for (uint32_t y = 0; y < c->imageExtent.height; y++) {
				const uint8_t *src = (const uint8_t *)image->data +
					(size_t)(c->imageOffset.y + (int32_t)y) *
						(size_t)image->stride +
					(size_t)c->imageOffset.x * 4;
				memcpy(dst + y * len, src, len);
			}
		}
	}
	if (!renderer->staging.coherent) {
		VkMappedMemoryRange range = {
			.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
			.memory = renderer->staging.memory,
			.size = VK_WHOLE_SIZE,
		};
		vkFlushMappedMemoryRanges(renderer->device, 1, &range);
	}
	return true;
}

/* ---- frame: commit ------------------------------------------------------ */

static void image_barrier(VkCommandBuffer cb, VkImage image,
		VkImageLayout old_layout, VkImageLayout new_layout,
		VkPipelineStageFlags src_stage, VkAccessFlags src_access,
		VkPipelineStageFlags dst_stage, VkAccessFlags dst_access)
{
	VkImageMemoryBarrier barrier = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
		.srcAccessMask = src_access,
		.dstAccessMask = dst_access,
		.oldLayout = old_layout,
		.newLayout = new_layout,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.image = image,
		.subresourceRange = {
			.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
			.levelCount = 1,
			.layerCount = 1,
		},
	};
	vkCmdPipelineBarrier(cb, src_stage, dst_stage, 0, 0, NULL, 0, NULL, 1,
		&barrier);
}

static void record_uploads(struct vr_renderer *renderer)
{
	VkCommandBuffer cb = renderer->cb;
	const struct upload *uploads = renderer->uploads.data;
	const VkBufferImageCopy *copies = renderer->copies.data;
	for (size_t i = 0; i < renderer->uploads.len; i++) {
		struct vr_texture *texture = uploads[i].texture;
		bool first = texture->layout == VK_IMAGE_LAYOUT_UNDEFINED;
		image_barrier(cb, texture->vk_image, texture->layout,
			VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
			first ? VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT :
				VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
			0, VK_PIPELINE_STAGE_TRANSFER_BIT,
			VK_ACCESS_TRANSFER_WRITE_BIT);
		vkCmdCopyBufferToImage(cb, renderer->staging.buffer,
			texture->vk_image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
			(uint32_t)uploads[i].ncopies, &copies[uploads[i].first_copy]);
		image_barrier(cb, texture->vk_image,
			VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
			VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
			VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
			VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
			VK_ACCESS_SHADER_READ_BIT);
		texture->layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
	}
}

static void record_target_init(VkCommandBuffer cb, struct vr_target *target)
{
	image_barrier(cb, target->image, VK_IMAGE_LAYOUT_UNDEFINED,
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
	image_barrier(cb, target->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
		VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
		VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
		VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
		VK_ACCESS_COLOR_ATTACHMENT_READ_BIT |
		VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
	target->initialized = true;
}

static bool rect_intersect(const VkRect2D *a, const struct vr_box *b,
		VkRect2D *out)
{
	struct vr_box ab = { a->offset.x, a->offset.y, (int32_t)a->extent.width,
		(int32_t)a->extent.height };
	struct vr_box i = vr_box_intersect(&ab, b);
	if (vr_box_empty(&i)) {
		return false;
	}
	*out = (VkRect2D){ { i.x, i.y },
		{ (uint32_t)i.width, (uint32_t)i.height } };
	return true;
}

static void record_job(struct vr_renderer *renderer, struct job_state *state)
{
	VkCommandBuffer cb = renderer->cb;
	struct vr_render_job *job = state->job;
	struct vr_target *target = job->target;
	const VkRect2D *rects = ARRAY_AT(&renderer->rects, VkRect2D,
		state->first_rect);
	if (!target->initialized) {
		record_target_init(cb, target);
	}

	VkRenderPassBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
		.renderPass = renderer->render_pass,
		.framebuffer = target->framebuffer,
		.renderArea = { { 0, 0 },
			{ (uint32_t)target->width, (uint32_t)target->height } },
	};
	vkCmdBeginRenderPass(cb, &begin, VK_SUBPASS_CONTENTS_INLINE);
	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS,
		renderer->pipeline);
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
		.clearValue.color.float32 = { r / 255.0f, g / 255.0f,
			b / 255.0f, a / 255.0f },
	};
	for (size_t i = 0; i < state->nrects; i++) {
		VkClearRect clear_rect = { .rect = rects[i], .layerCount = 1 };
		vkCmdClearAttachments(cb, 1, &clear, 1, &clear_rect);
	}

	const struct gpu_task *tasks = ARRAY_AT(&renderer->tasks,
		struct gpu_task, state->first_task);
	VkDescriptorSet bound = VK_NULL_HANDLE;
	for (size_t i = 0; i < state->nrects; i++) {
		for (size_t j = 0; j < state->ntasks; j++) {
			const struct gpu_task *gt = &tasks[j];
			VkRect2D scissor;
			if (!rect_intersect(&rects[i], &gt->task.aabb, &scissor)) {
				continue;
			}
			rect_intersect(&scissor, &gt->task.clip, &scissor);
			vkCmdSetScissor(cb, 0, 1, &scissor);
			VkDescriptorSet set = gt->texture->sets[gt->task.nearest ?
				VR_SAMPLER_NEAREST : VR_SAMPLER_LINEAR];
			if (set != bound) {
				vkCmdBindDescriptorSets(cb,
					VK_PIPELINE_BIND_POINT_GRAPHICS,
					renderer->pipeline_layout, VR_TEXTURE_SET, 1, &set,
					0, NULL);
				bound = set;
			}
			vkCmdPushConstants(cb, renderer->pipeline_layout,
				VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
				0, sizeof(gt->pc), &gt->pc);
			vkCmdDraw(cb, VR_QUAD_VERTEX_COUNT, 1, 0, 0);
			state->draws++;
		}
	}
	vkCmdEndRenderPass(cb);

	/* keep the host mirror equal to the image: copy the redrawn rects */
	image_barrier(cb, target->image, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
		VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
		VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
		VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
		VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
	for (size_t i = 0; i < state->nrects; i++) {
		VkBufferImageCopy copy = {
			.bufferOffset = ((VkDeviceSize)rects[i].offset.y *
				(VkDeviceSize)target->width +
				(VkDeviceSize)rects[i].offset.x) * 4,
			.bufferRowLength = (uint32_t)target->width,
			.bufferImageHeight = (uint32_t)target->height,
			.imageSubresource = {
				.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
				.layerCount = 1,
			},
			.imageOffset = { rects[i].offset.x, rects[i].offset.y, 0 },
			.imageExtent = { rects[i].extent.width,
				rects[i].extent.height, 1 },
		};
		vkCmdCopyImageToBuffer(cb, target->image,
			VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, target->mirror, 1, &copy);
	}
	image_barrier(cb, target->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
		VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
		VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
		VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
		VK_ACCESS_COLOR_ATTACHMENT_READ_BIT |
		VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
	VkBufferMemoryBarrier host = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_HOST_READ_BIT,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.buffer = target->mirror,
		.size = VK_WHOLE_SIZE,
	};
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
		VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL, 1, &host, 0, NULL);
}

static bool commit(struct vr_renderer *renderer)
{
	VkCommandBuffer cb = renderer->cb;
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
	record_uploads(renderer);
	struct job_state *jobs = renderer->jobs.data;
	for (size_t i = 0; i < renderer->jobs.len; i++) {
		if (jobs[i].nrects > 0) {
			record_job(renderer, &jobs[i]);
		}
	}
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
	res = vkQueueSubmit(renderer->queue, 1, &submit, renderer->fence);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkQueueSubmit failed: %s",
			vr_vk_result_str(res));
		return false;
	}
	renderer->frame++;
	return true;
}

/* ---- frame -------------------------------------------------------------- */

bool vr_render(struct vr_renderer *renderer, struct vr_tree *tree,
		struct vr_render_job *jobs, size_t njobs)
{
	uint64_t start = now_ns();
	renderer->tasks.len = 0;
	renderer->jobs.len = 0;
	renderer->rects.len = 0;
	renderer->uploads.len = 0;
	renderer->copies.len = 0;
	if (njobs == 0) {
		return true;
	}
	for (size_t i = 0; i < njobs; i++) {
		if (jobs[i].target == NULL || jobs[i].target->renderer != renderer) {
			vr_log(VR_LOG_ERROR, "job %zu: target of another renderer", i);
			return false;
		}
		jobs[i].timing = (struct vr_frame_timing){ .start_ns = start };
	}
	if (!vr_array_reserve(&renderer->jobs, njobs, sizeof(struct job_state))) {
		return false;
	}
	renderer->jobs.len = njobs;

	/* 1. prepare */
	for (size_t i = 0; i < njobs; i++) {
		uint64_t t = now_ns();
		if (!prepare_job(renderer, tree, &jobs[i], i)) {
			return false;
		}
		jobs[i].timing.prepare_ns = now_ns() - t;
	}

	/* 2. execute */
	uint64_t t_execute = now_ns();
	if (!execute(renderer)) {
		return false;
	}

	/* 3. commit */
	uint64_t t_commit = now_ns();
	if (!commit(renderer)) {
		return false;
	}
	uint64_t t_gpu = now_ns();
	VkResult res = vkWaitForFences(renderer->device, 1, &renderer->fence,
		VK_TRUE, UINT64_MAX);
	uint64_t t_readback = now_ns();
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_ERROR, "vkWaitForFences failed: %s",
			vr_vk_result_str(res));
		return false;
	}
	vkResetFences(renderer->device, 1, &renderer->fence);
	/* the GPU is done with this frame: released textures can go */
	collect_garbage(renderer);
	for (size_t i = 0; i < njobs; i++) {
		struct vr_target *target = jobs[i].target;
		if (!target->mirror_coherent) {
			VkMappedMemoryRange range = {
				.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
				.memory = target->mirror_memory,
				.size = VK_WHOLE_SIZE,
			};
			vkInvalidateMappedMemoryRanges(renderer->device, 1, &range);
		}
	}
	uint64_t end = now_ns();

	const struct job_state *states = renderer->jobs.data;
	for (size_t i = 0; i < njobs; i++) {
		struct vr_frame_timing *timing = &jobs[i].timing;
		timing->end_ns = end;
		timing->execute_ns = t_commit - t_execute;
		timing->commit_ns = t_gpu - t_commit;
		timing->gpu_ns = t_readback - t_gpu;
		timing->readback_ns = end - t_readback;
		timing->draws = states[i].draws;
		timing->uploads = states[i].uploads;
	}
	return true;
}
