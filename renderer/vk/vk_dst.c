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

/*
 * A copy destination over external memory: a VkBuffer of size bytes bound
 * to the memory that import (a VkImportMemoryHostPointerInfoEXT or a
 * VkImportMemoryFdInfoKHR) names, of a type among type_bits; host: a
 * host allocation (host-visible memory), else a dma-buf (a dedicated
 * allocation, as drivers may require of one). NULL (why logged at debug
 * level) when something refuses; an fd import's fd is then still the
 * caller's.
 */
static struct vr_dst_buffer *dst_buffer_import(struct vr_renderer *renderer,
		VkExternalMemoryHandleTypeFlagBits handle_type, const void *import,
		VkDeviceSize size, uint32_t type_bits, bool host, int32_t width,
		int32_t height, int32_t stride, VkDeviceSize offset) {
	VkDevice dev = renderer->device;
	struct vr_dst_buffer *buffer = calloc(1, sizeof(*buffer));
	if (buffer == NULL) {
		vr_log(VR_LOG_ERROR, "allocation failed");
		return NULL;
	}
	VkExternalMemoryBufferCreateInfo external = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
		.handleTypes = handle_type,
	};
	VkBufferCreateInfo binfo = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.pNext = &external,
		.size = size,
		.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	const char *why = "vkCreateBuffer";
	if (vkCreateBuffer(dev, &binfo, NULL, &buffer->buffer) != VK_SUCCESS) {
		goto error_buffer;
	}
	VkMemoryRequirements reqs;
	vkGetBufferMemoryRequirements(dev, buffer->buffer, &reqs);
	int type = vr_vk_find_memory_type(renderer, reqs.memoryTypeBits & type_bits,
			host ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT : 0,
			host ? VK_MEMORY_PROPERTY_HOST_COHERENT_BIT : 0);
	why = "no memory type for the import";
	if (type < 0 || reqs.size > size) {
		goto error_vk_buffer;
	}
	VkMemoryDedicatedAllocateInfo dedicated = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
		.pNext = import,
		.buffer = buffer->buffer,
	};
	VkMemoryAllocateInfo ainfo = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.pNext = host ? import : (const void *)&dedicated,
		.allocationSize = size,
		.memoryTypeIndex = (uint32_t)type,
	};
	why = "vkAllocateMemory (import)";
	if (vkAllocateMemory(dev, &ainfo, NULL, &buffer->memory) != VK_SUCCESS) {
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
	vr_log(VR_LOG_DEBUG, "dst buffer: %s failed", why);
	return NULL;
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
	VkMemoryHostPointerPropertiesEXT ptr_props = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT,
	};
	VkResult res = renderer->get_host_pointer_props(renderer->device,
			VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, data,
			&ptr_props);
	if (res != VK_SUCCESS || ptr_props.memoryTypeBits == 0) {
		vr_log(VR_LOG_DEBUG, "dst buffer: host pointer unusable: %s",
				vr_vk_result_str(res));
		return NULL;
	}
	VkImportMemoryHostPointerInfoEXT import = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
		.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
		.pHostPointer = data,
	};
	return dst_buffer_import(renderer,
			VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, &import,
			import_size, ptr_props.memoryTypeBits, true, width, height, stride,
			0);
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
	if (!renderer->has_dmabuf_import || !dmabuf_dst_importable(renderer)) {
		vr_log(VR_LOG_DEBUG, "dst buffer: no VK_EXT_external_memory_dma_buf");
		return NULL;
	}
	off_t fd_size = lseek(fd, 0, SEEK_END);
	if (width <= 0 || height <= 0 || stride % 4 != 0 || stride < width * 4 ||
			fd_size <= 0 ||
			(uint64_t)offset + (uint64_t)stride * (uint64_t)height >
					(uint64_t)fd_size) {
		vr_log(VR_LOG_DEBUG,
				"dst buffer: %dx%d, stride %d at %u does not fit the dma-buf",
				width, height, stride, offset);
		return NULL;
	}
	VkMemoryFdPropertiesKHR fd_props = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR,
	};
	VkResult res = renderer->get_memory_fd_props(renderer->device,
			VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT, fd, &fd_props);
	int dup_fd = res == VK_SUCCESS ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
	if (dup_fd < 0) {
		vr_log(VR_LOG_DEBUG, "dst buffer: dma-buf unusable: %s",
				vr_vk_result_str(res));
		return NULL;
	}
	/* the memory takes the duplicate when the import succeeds */
	VkImportMemoryFdInfoKHR import = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
		.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
		.fd = dup_fd,
	};
	struct vr_dst_buffer *buffer = dst_buffer_import(renderer,
			VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT, &import,
			(VkDeviceSize)fd_size, fd_props.memoryTypeBits, false, width,
			height, stride, offset);
	if (buffer == NULL) {
		close(dup_fd);
	}
	return buffer;
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
