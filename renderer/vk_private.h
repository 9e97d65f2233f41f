/*
 * Vulkan internals of the renderer, shared by vk_device.c (instance,
 * device, queue, memory types) and vk_render.c (pipelines, textures,
 * targets, frames).
 */
#ifndef RENDERER_VK_PRIVATE_H
#define RENDERER_VK_PRIVATE_H

#include <vulkan/vulkan.h>
#include "render_private.h"

/* A growable array of fixed-size elements. */
struct vr_array {
	void *data;
	size_t len, cap; /* in elements */
};

/* Room for n more elements; false (logged) on allocation failure. */
bool vr_array_reserve(struct vr_array *array, size_t n, size_t elem_size);

struct vr_renderer {
	VkInstance instance;
	VkDebugUtilsMessengerEXT messenger;
	PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger;
	VkPhysicalDevice phdev;
	VkPhysicalDeviceMemoryProperties memory_props;
	VkDeviceSize non_coherent_atom_size;
	char device_name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
	VkDevice device;
	uint32_t queue_family;
	VkQueue queue;

	VkCommandPool command_pool;
	VkCommandBuffer cb;
	VkFence fence;
	VkRenderPass render_pass;
	VkDescriptorSetLayout set_layout;
	VkPipelineLayout pipeline_layout;
	VkPipeline pipeline;
	VkSampler samplers[2]; /* indexed by enum vr_sampler */

	struct vr_list descriptor_pools; /* descriptor_pool::link */
	struct vr_list textures; /* vr_texture::link, images alive */
	struct vr_list garbage; /* vr_texture::link, freed after a fence */
	struct vr_list targets; /* vr_target::link */
	struct vr_image *white; /* 1x1 opaque white: solid colour draws */

	struct {
		VkBuffer buffer;
		VkDeviceMemory memory;
		VkDeviceSize size;
		bool coherent;
		void *map;
	} staging;

	/* per-frame scratch, reused */
	struct vr_array tasks; /* struct gpu_task */
	struct vr_array jobs; /* struct job_state */
	struct vr_array rects; /* VkRect2D, draw rects of every job */
	struct vr_array uploads; /* struct upload */
	struct vr_array copies; /* VkBufferImageCopy */
	uint64_t frame; /* frames submitted */
};

/* vk_device.c */
bool vr_vk_init_device(struct vr_renderer *renderer, bool validation);
void vr_vk_finish_device(struct vr_renderer *renderer);
/* A memory type index with all of required (and preferred if possible),
 * or -1. */
int vr_vk_find_memory_type(struct vr_renderer *renderer, uint32_t type_bits,
	VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred);
const char *vr_vk_result_str(VkResult result);

#endif
