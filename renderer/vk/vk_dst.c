/*
 * Output buffers written once: host memory (an output's mmap'ed buffer)
 * imported through VK_EXT_external_memory_host, or a LINEAR dma-buf
 * (an output buffer the display scans out) imported through
 * VK_EXT_external_memory_dma_buf, as a VkBuffer the frame copies its
 * pixels into on the GPU (vk_render.c, vr_frame_end_job).
 *
 * Everything here runs on the caller's thread. A buffer records the
 * latest frame copying into it; destroying it before that frame retired
 * hands its Vulkan objects to the frame's slot (vk_frames.c frees them).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "vk_private.h"

bool vr_renderer_can_import_host(const struct vr_renderer *renderer) {
	return renderer->has_host_import;
}

struct vr_dst_buffer *vr_dst_buffer_import(struct vr_renderer *renderer,
		void *data, size_t size, int32_t width, int32_t height,
		int32_t stride) {
	if (!renderer->has_host_import) {
		vr_log(VR_LOG_DEBUG, "dst buffer: no VK_EXT_external_memory_host");
		return NULL;
	}
	if (data == NULL || width <= 0 || height <= 0 || stride % 4 != 0 ||
			stride < width * 4 || (uint64_t)stride * (uint64_t)height > size) {
		vr_log(VR_LOG_DEBUG,
				"dst buffer: %dx%d, stride %d does not fit "
				"%zu bytes",
				width, height, stride, size);
		return NULL;
	}
	VkDeviceSize align = renderer->host_import_alignment;
	if (align == 0 || (uintptr_t)data % align != 0) {
		vr_log(VR_LOG_DEBUG, "dst buffer: %p not aligned to %llu", data,
				(unsigned long long)align);
		return NULL;
	}
	/* the import covers whole alignment units: mapped pages */
	VkDeviceSize import_size = ((VkDeviceSize)size + align - 1) / align * align;
	VkDevice dev = renderer->device;
	VkMemoryHostPointerPropertiesEXT ptr_props = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT,
	};
	VkResult res = renderer->get_host_pointer_props(dev,
			VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, data,
			&ptr_props);
	if (res != VK_SUCCESS || ptr_props.memoryTypeBits == 0) {
		vr_log(VR_LOG_DEBUG, "dst buffer: host pointer unusable: %s",
				vr_vk_result_str(res));
		return NULL;
	}
	struct vr_dst_buffer *buffer = calloc(1, sizeof(*buffer));
	if (buffer == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return NULL;
	}
	VkExternalMemoryBufferCreateInfo external = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
		.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
	};
	VkBufferCreateInfo binfo = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.pNext = &external,
		.size = import_size,
		.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	res = vkCreateBuffer(dev, &binfo, NULL, &buffer->buffer);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_DEBUG, "dst buffer: vkCreateBuffer failed: %s",
				vr_vk_result_str(res));
		goto error_buffer;
	}
	VkMemoryRequirements reqs;
	vkGetBufferMemoryRequirements(dev, buffer->buffer, &reqs);
	int type = vr_vk_find_memory_type(renderer,
			reqs.memoryTypeBits & ptr_props.memoryTypeBits,
			VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
			VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
	if (type < 0 || reqs.size > import_size) {
		vr_log(VR_LOG_DEBUG, "dst buffer: no memory type for the import");
		goto error_vk_buffer;
	}
	VkImportMemoryHostPointerInfoEXT import = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
		.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
		.pHostPointer = data,
	};
	VkMemoryAllocateInfo ainfo = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.pNext = &import,
		.allocationSize = import_size,
		.memoryTypeIndex = (uint32_t)type,
	};
	res = vkAllocateMemory(dev, &ainfo, NULL, &buffer->memory);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_DEBUG, "dst buffer: import failed: %s",
				vr_vk_result_str(res));
		goto error_vk_buffer;
	}
	res = vkBindBufferMemory(dev, buffer->buffer, buffer->memory, 0);
	if (res != VK_SUCCESS) {
		vr_log(VR_LOG_DEBUG, "dst buffer: vkBindBufferMemory failed: %s",
				vr_vk_result_str(res));
		goto error_memory;
	}
	buffer->renderer = renderer;
	buffer->width = width;
	buffer->height = height;
	buffer->stride = stride;
	vr_list_insert(&renderer->dst_buffers, &buffer->link);
	return buffer;

error_memory:
	vkFreeMemory(dev, buffer->memory, NULL);
error_vk_buffer:
	vkDestroyBuffer(dev, buffer->buffer, NULL);
error_buffer:
	free(buffer);
	return NULL;
}

/* Whether the device imports a dma-buf as a copy destination buffer. */
static bool dmabuf_dst_importable(struct vr_renderer *renderer) {
	VkPhysicalDeviceExternalBufferInfo info = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO,
		.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
	};
	VkExternalBufferProperties props = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES,
	};
	vkGetPhysicalDeviceExternalBufferProperties(renderer->phdev, &info, &props);
	return (props.externalMemoryProperties.externalMemoryFeatures &
				   VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT) != 0;
}

struct vr_dst_buffer *vr_dst_buffer_import_dmabuf(struct vr_renderer *renderer,
		int fd, uint32_t offset, int32_t width, int32_t height,
		int32_t stride) {
	const char *why = "no VK_EXT_external_memory_dma_buf";
	if (!renderer->has_dmabuf_import || !dmabuf_dst_importable(renderer)) {
		goto refuse;
	}
	why = "bad plane";
	off_t fd_size = lseek(fd, 0, SEEK_END);
	if (width <= 0 || height <= 0 || stride % 4 != 0 || stride < width * 4 ||
			fd_size <= 0 ||
			(uint64_t)offset + (uint64_t)stride * (uint64_t)height >
					(uint64_t)fd_size) {
		goto refuse;
	}
	VkDevice dev = renderer->device;
	VkMemoryFdPropertiesKHR fd_props = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR,
	};
	why = "vkGetMemoryFdPropertiesKHR";
	if (renderer->get_memory_fd_props(dev,
				VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT, fd,
				&fd_props) != VK_SUCCESS) {
		goto refuse;
	}
	struct vr_dst_buffer *buffer = calloc(1, sizeof(*buffer));
	if (buffer == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return NULL;
	}
	VkExternalMemoryBufferCreateInfo external = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
		.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
	};
	VkBufferCreateInfo binfo = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.pNext = &external,
		.size = (VkDeviceSize)fd_size,
		.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	why = "vkCreateBuffer";
	if (vkCreateBuffer(dev, &binfo, NULL, &buffer->buffer) != VK_SUCCESS) {
		goto error_buffer;
	}
	VkMemoryRequirements reqs;
	vkGetBufferMemoryRequirements(dev, buffer->buffer, &reqs);
	int type = vr_vk_find_memory_type(renderer,
			reqs.memoryTypeBits & fd_props.memoryTypeBits, 0, 0);
	why = "no memory type";
	if (type < 0 || reqs.size > (VkDeviceSize)fd_size) {
		goto error_vk_buffer;
	}
	why = "dup";
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd < 0) {
		goto error_vk_buffer;
	}
	VkMemoryDedicatedAllocateInfo dedicated = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
		.buffer = buffer->buffer,
	};
	VkImportMemoryFdInfoKHR import = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
		.pNext = &dedicated,
		.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
		.fd = dup_fd,
	};
	VkMemoryAllocateInfo ainfo = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.pNext = &import,
		.allocationSize = (VkDeviceSize)fd_size,
		.memoryTypeIndex = (uint32_t)type,
	};
	why = "vkAllocateMemory (import)";
	if (vkAllocateMemory(dev, &ainfo, NULL, &buffer->memory) != VK_SUCCESS) {
		close(dup_fd);
		goto error_vk_buffer;
	}
	why = "vkBindBufferMemory";
	if (vkBindBufferMemory(dev, buffer->buffer, buffer->memory, 0) !=
			VK_SUCCESS) {
		goto error_memory;
	}
	buffer->renderer = renderer;
	buffer->width = width;
	buffer->height = height;
	buffer->stride = stride;
	buffer->offset = offset;
	vr_list_insert(&renderer->dst_buffers, &buffer->link);
	return buffer;

error_memory:
	vkFreeMemory(dev, buffer->memory, NULL);
error_vk_buffer:
	vkDestroyBuffer(dev, buffer->buffer, NULL);
error_buffer:
	free(buffer);
refuse:
	vr_log(VR_LOG_DEBUG, "dst buffer: dma-buf not imported: %s", why);
	return NULL;
}

void vr_dst_buffer_destroy(struct vr_dst_buffer *buffer) {
	if (buffer == NULL) {
		return;
	}
	struct vr_renderer *renderer = buffer->renderer;
	if (renderer == NULL) {
		free(buffer); /* released with its renderer */
		return;
	}
	vr_list_remove(&buffer->link);
	uint64_t last = buffer->last_frame;
	if (last != 0) {
		vr_frames_retire(renderer);
		struct vr_frame_slot *slot = vr_frame_slot_of(renderer, last);
		if (slot->number == last && !slot->retired) {
			vr_list_insert(&slot->dst_garbage, &buffer->link);
			return;
		}
	}
	vkDestroyBuffer(renderer->device, buffer->buffer, NULL);
	vkFreeMemory(renderer->device, buffer->memory, NULL);
	free(buffer);
}
